import io
import json
import zipfile

import pytest

from pip_variants.metadata import (
    MAX_METADATA_BYTES,
    InvalidVariantMetadata,
    UnsupportedSchemaVersion,
    _schema_url_version,
    check_consistency,
    load_metadata,
    load_wheel_metadata,
    parse_metadata,
    schema_version,
    split_object_reference,
)

from support.metadata_docs import TORCH_28, V002, V003, V011, V020, V020_DOC

def test_torch_28_metadata_reads_with_legacy_null():
    md = parse_metadata(TORCH_28, "torch-2.8.0-variants.json")
    assert md.schema == (0, 0, 3)  # sniffed from enable-if
    assert md.variants["00000000"] == {}
    assert md.providers["nvidia"].kind == "plugin"
    assert md.providers["nvidia"].enable_if.startswith("platform_system")
    assert md.variants["cu128"]["nvidia"]["sm_arch"] == ("100_real", "75_real")


def test_v003_static_and_overrides():
    md = parse_metadata(V003, "x")
    blas = md.providers["blas_lapack"]
    assert blas.kind == "static" and blas.optional
    # feature order comes from default-priorities.feature, JSON objects being unordered
    assert blas.static_properties == (("library", ("openblas", "mkl")), ("int", ("lp64",)))
    assert md.property_priorities == {"x86_64": {"level": ("v3",)}}


def test_v002_plugin_use_none_reads_static_from_priorities():
    # WHEEL-VARIANTS.md §11 behaviour 25a
    md = parse_metadata(V002, "x")
    assert md.schema == (0, 0, 2)
    assert md.providers["blas"].static_properties == (("lib", ("mkl", "openblas")),)
    assert md.variants["mkl"] == {"blas": {"lib": ("mkl",)}}  # bare string read as a list


def test_v002_static_data_covers_only_the_listed_features():
    # variantlib 0.0.2 reads an ahead-of-time namespace's supported list from
    # default-priorities.feature; property priorities of a feature it does not
    # list support nothing (WheelNext's 0.0.2 torch examples: null there too).
    doc = {**V002, "default-priorities": {"namespace": ["blas"], "property": {"blas": {"lib": ["mkl"]}}}}
    assert parse_metadata(doc, "x").providers["blas"].static_properties == ()


def test_v011_has_no_providers():
    md = parse_metadata(V011, "x")
    assert md.schema == (0, 1, 1)
    assert md.providers == {}
    assert md.provider("simd").kind == "unspecified"


def test_v020_kinds():
    md = parse_metadata(V020_DOC, "x")
    assert md.providers["blas_lapack"].static_properties[0] == ("library", ("openblas", "mkl"))
    assert md.providers["abi"].kind == "builtin"
    assert md.providers["nvidia"].plugin_api == "nvidia_variant_provider.plugin:NvidiaVariantPlugin"


@pytest.mark.parametrize(
    "url, version",
    [
        ("https://variants-schema.wheelnext.dev/peps/9999/v0.2.0.json", (0, 2, 0)),
        ("https://variants-schema.wheelnext.dev/peps/826/v0.2.0.json", (0, 2, 0)),
        ("https://variants-schema.wheelnext.dev/v0.2.0.json", (0, 2, 0)),
        ("https://variants-schema.wheelnext.dev/peps/825/v0.1.0.json", (0, 1, 0)),
    ],
)
def test_schema_urls(url, version):
    assert schema_version({"$schema": url}) == version


@pytest.mark.parametrize(
    "url, version",
    [
        ("https://x/v0.2.0.json", (0, 2, 0)),
        ("v10.20.30.json", (10, 20, 30)),
        ("https://v1.example/schema-v0.1.0.json", (0, 1, 0)),
        ("https://x/v0.2.json", None),
        ("https://x/v0.2.0.1.json", None),
        ("https://x/v.2.0.json", None),
        ("https://x/v0.2.0.json/", None),
        ("https://x/0.2.0.json", (0, 2, 0)),
        ("https://packaging.python.org/en/latest/specifications/variants/2.0.0.json", (2, 0, 0)),
        ("https://x/schema-0.2.0.json", None),
        ("https://x/v0.2.x.json", None),
        ("", None),
    ],
)
def test_schema_url_version(url, version):
    assert _schema_url_version(url) == version


@pytest.mark.parametrize("url", ["https://variants-schema.wheelnext.dev/v9.0.json",
                                 "https://packaging.python.org/en/latest/specifications/variants-2.0.0.json",
                                 "https://packaging.python.org/specifications/variant-schema/2.0.0/schema.json"])
def test_a_version_in_an_unknown_url_shape_is_not_guessed_from_the_keys(url):
    # PEP 825: the URL carries the version, and an unknown one is unsupported.
    doc = dict(V011, **{"$schema": url})
    with pytest.raises(UnsupportedSchemaVersion, match=r"unsupported variant metadata format (9\.0|2\.0\.0) "):
        parse_metadata(doc, "pkg-1.0-variants.json")


def test_the_020_layout_under_the_003_address_is_read_as_020():
    # variantlib 0.2.0 wrote its files so (0.2.2 corrected the address); uv and
    # variantlib read them by their keys, and the static provider must not be lost
    old_address = "https://variants-schema.wheelnext.dev/v0.0.3.json"
    doc = dict(V020_DOC, **{"$schema": old_address})
    md = parse_metadata(doc, "pkg-1.0-variants.json")
    assert md.schema == (0, 2, 0)
    assert md.providers["blas_lapack"].static_properties[0] == ("library", ("openblas", "mkl"))
    assert md.providers["abi"].kind == "builtin"
    # a real 0.0.3 document stays 0.0.3
    only_requires = {"$schema": old_address, "default-priorities": {"namespace": ["a"]},
                     "providers": {"a": {"requires": ["a-plugin"], "install-time": True}}, "variants": {}}
    assert schema_version(only_requires) == (0, 0, 3)


@pytest.mark.parametrize("url", ["https://x/v0.1.1", "https://x/v0.1.1.json/", "https://x/0.1.1/schema.json"])
def test_a_known_version_in_another_url_shape_is_that_version(url):
    assert schema_version(dict(V011, **{"$schema": url})) == (0, 1, 1)


@pytest.mark.parametrize("url", ["https://variants-schema.wheelnext.dev/", "https://127.0.0.1:8080/schema",
                                 "not a url", "https://x/schema?v=1.2"])
def test_a_url_without_a_version_is_read_from_the_keys(url):
    assert schema_version({"$schema": url, "default-priorities": {"namespace": ["a"]}}) == (0, 1, 1)


@pytest.mark.parametrize("url", ["https://packaging.python.org/x/v2.0.0.json", "https://x/v0.3.0.json", "https://x/v1.0.0.json",
                                 "https://packaging.python.org/en/latest/specifications/variants/2.0.0.json"])
def test_unknown_schema_versions_rejected(url):
    # §11 behaviour 25c: an unsupported major is rejected, so are unknown 0.x drafts
    doc = dict(V011, **{"$schema": url})
    with pytest.raises(UnsupportedSchemaVersion) as exc:
        parse_metadata(doc, "pkg-1.0-variants.json")
    assert "pkg-1.0-variants.json" in str(exc.value)
    assert "Upgrade pip-variants" in str(exc.value)


def _bad(doc_changes, base=V020_DOC):
    doc = json.loads(json.dumps(base))
    doc_changes(doc)
    with pytest.raises(InvalidVariantMetadata) as exc:
        parse_metadata(doc, "https://index/pkg-1.0-variants.json")
    assert str(exc.value).startswith("https://index/pkg-1.0-variants.json: ")
    return str(exc.value)


def test_v020_rules():
    # PROVIDERS.md §7 tests 11, 17, 18
    assert "feature-order" in _bad(lambda d: d["providers"]["blas_lapack"].pop("feature-order"))
    assert "exactly one" in _bad(lambda d: d["providers"]["nvidia"].update({"static-properties": {"x": ["1"]}}))
    assert "unknown keys" in _bad(lambda d: d["providers"]["nvidia"].update({"enable-if": "True"}))
    assert "unknown keys" in _bad(lambda d: d["providers"]["nvidia"].update({"install-time": True}))
    assert "must equal" in _bad(lambda d: d["providers"].update({"extra": {"builtin": "x"}}))
    assert "must equal" in _bad(lambda d: d["default-priorities"]["namespace"].append("more"))
    assert "only allowed with 'requires'" in _bad(
        lambda d: d["providers"]["abi"].update({"plugin-api": "a:b"})
    )


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d.pop("variants"), "missing required key 'variants'"),
        (lambda d: d.pop("default-priorities"), "'default-priorities'"),
        (lambda d: d["default-priorities"].update(namespace=[]), "must not be empty"),
        (lambda d: d["default-priorities"].update(namespace="nvidia"), "must be a list"),
        (lambda d: d["variants"].update({"GPU": {}}), "does not match"),
        (lambda d: d["variants"].update({"a-b": {}}), "does not match"),
        (lambda d: d["variants"].update({"x": {"nvidia": {"sm_arch": ["90-real"]}}}), "does not match"),
        (lambda d: d["variants"].update({"x": {"nvidia": {"sm_arch": []}}}), "must not be empty"),
        (lambda d: d["variants"].update({"x": {"nvidia": {"sm_arch": [1]}}}), "must hold strings"),
        (lambda d: d["variants"].update({"x": {"nvidia": {"sm_arch": ["80", "90", "80"]}}}), "duplicate '80'"),
        (lambda d: d["variants"].update({"null": {"nvidia": {"f": ["1"]}}}), "'null' variant must have no properties"),
        (lambda d: d.update({"variants": []}), "must be an object"),
        (lambda d: d.update({"$schema": 3}), "'$schema' must be a string"),
    ],
)
def test_bad_input_named_errors(change, words):
    assert words in _bad(change)


def test_empty_non_null_label_is_invalid_not_fatal():
    doc = json.loads(json.dumps(V011))
    doc["variants"]["empty"] = {}
    md = parse_metadata(doc, "x")
    assert "empty" in md.invalid_labels and "empty" not in md.variants


def test_load_metadata_bad_bytes():
    with pytest.raises(InvalidVariantMetadata, match="not valid JSON"):
        load_metadata(b"{not json", "u")
    with pytest.raises(InvalidVariantMetadata, match="not UTF-8"):
        load_metadata(b"\xff\xfe\x00", "u")
    with pytest.raises(InvalidVariantMetadata, match="limit"):
        load_metadata(b" " * (MAX_METADATA_BYTES + 1), "u")
    with pytest.raises(InvalidVariantMetadata, match="nested too deeply|top level"):
        load_metadata("[" * 100000 + "]" * 100000, "u")
    with pytest.raises(InvalidVariantMetadata, match="top level must be an object"):
        load_metadata(b"[]", "u")


def test_load_metadata_byte_order_mark():
    """A leading UTF-8 BOM is dropped once (as the utf-8-sig codec does);
    a bad byte is reported at its offset after the BOM."""
    plain = json.dumps(V020_DOC).encode()
    assert load_metadata(b"\xef\xbb\xbf" + plain, "u") == load_metadata(plain, "u")
    with pytest.raises(InvalidVariantMetadata, match="not valid JSON"):
        load_metadata(b"\xef\xbb\xbf\xef\xbb\xbf" + plain, "u")
    with pytest.raises(InvalidVariantMetadata, match="invalid start byte at byte 2"):
        load_metadata(b"\xef\xbb\xbf{ \xff}", "u")


def _wheel_bytes(label, doc):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n")
        if doc is not None:
            zf.writestr("pkg-1.0.dist-info/variant.json", json.dumps(doc))
    buf.seek(0)
    return zipfile.ZipFile(buf)


def test_wheel_metadata_must_describe_its_label():
    doc = {"$schema": V020, "default-priorities": {"namespace": ["s"]},
           "providers": {"s": {"static-properties": {"f": ["1"]}}}, "variants": {"fast": {"s": {"f": ["1"]}}}}
    assert list(load_wheel_metadata(_wheel_bytes("fast", doc), "fast").variants) == ["fast"]
    # §11 behaviour 25d: label in the file differs from the filename's
    with pytest.raises(InvalidVariantMetadata, match="exactly the filename's label 'fast2'"):
        load_wheel_metadata(_wheel_bytes("fast", doc), "fast2")
    with pytest.raises(InvalidVariantMetadata, match="no .*variant.json"):
        load_wheel_metadata(_wheel_bytes("fast", None), "fast")


@pytest.mark.parametrize("damage", ["deflate", "crc", "lzma", "lzma-stream", "lzma-props", "bzip2"])
def test_damaged_wheel_metadata_is_invalid_metadata(tmp_path, damage):
    # a readable archive whose variant.json data is damaged: that wheel fails, as any bad metadata
    doc = {"$schema": V020, "default-priorities": {"namespace": ["s"]},
           "providers": {"s": {"static-properties": {"f": ["1"]}}}, "variants": {"fast": {"s": {"f": ["1"]}}}}
    path = tmp_path / "pkg-1.0-py3-none-any-fast.whl"
    method = {"deflate": zipfile.ZIP_DEFLATED, "crc": zipfile.ZIP_STORED, "lzma": zipfile.ZIP_LZMA,
              "lzma-stream": zipfile.ZIP_LZMA, "lzma-props": zipfile.ZIP_LZMA, "bzip2": zipfile.ZIP_BZIP2}[damage]
    with zipfile.ZipFile(path, "w", method) as zf:
        zf.writestr("pkg-1.0.dist-info/variant.json", json.dumps(doc) + " " * 2000)
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("pkg-1.0.dist-info/variant.json")
    data = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    if damage in ("deflate", "lzma", "bzip2"):
        data[start:start + 8] = bytes(b ^ 0xFF for b in data[start:start + 8])
    elif damage == "lzma-stream":  # past the header: the LZMA data itself
        data[start + 20:start + 40] = bytes(b ^ 0xFF for b in data[start + 20:start + 40])
    elif damage == "lzma-props":  # lc + lp > 4: a properties byte liblzma refuses
        data[start + 4] = 44
    else:
        data[start + 1] ^= 0x01  # stored: the CRC no longer matches
    path.write_bytes(bytes(data))
    with pytest.raises(InvalidVariantMetadata, match=r"variant.json cannot be read \(") as exc:
        load_wheel_metadata(str(path), "fast")
    assert str(path) in str(exc.value)


def _claim_size(path, member, size):
    """Make the archive claim ``member`` inflates to ``size`` bytes (a zip bomb's lie)."""
    import struct

    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo(member)
    data = bytearray(path.read_bytes())
    struct.pack_into("<L", data, info.header_offset + 22, size)  # local header
    central = struct.unpack_from("<L", data, len(data) - 22 + 16)[0]  # the only member's record
    assert data[central:central + 4] == b"PK\x01\x02"
    struct.pack_into("<L", data, central + 24, size)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("method", [zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_variant_json_that_lies_about_its_size_is_never_inflated_whole(tmp_path, method):
    """A few kilobytes that claim 411 bytes and inflate to 40 MB: refused, in bounded memory."""
    import tracemalloc

    path = tmp_path / "pkg-1.0-py3-none-any-fast.whl"
    member = "pkg-1.0.dist-info/variant.json"
    with zipfile.ZipFile(path, "w", method) as zf:
        zf.writestr(member, b"{" + b" " * (40 << 20))
    _claim_size(path, member, 411)
    tracemalloc.start()
    try:
        with pytest.raises(InvalidVariantMetadata, match=r"variant.json cannot be read") as exc:
            load_wheel_metadata(str(path), "fast")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, peak  # LZMA's 8 MB dictionary, never the 40 MB
    assert str(path) in str(exc.value)


def test_a_label_with_an_undeclared_namespace_is_invalid_and_the_rest_usable():
    """WHEEL-VARIANTS App. B 6: that label is incompatible, not the whole file."""
    doc = json.loads(json.dumps(V011))
    doc["variants"] = {"fast": {"simd": {"level": ["v2"]}}, "odd": {"other": {"f": ["1"]}}, "null": {}}
    md = parse_metadata(doc, "x.json")
    assert set(md.variants) == {"fast", "null"}
    assert "missing from 'default-priorities.namespace'" in md.invalid_labels["odd"]


def test_feature_and_value_priorities_of_a_0_1_1_file_are_ignored():
    """They were removed in 0.1.1: the provider's order alone ranks (§6.2)."""
    doc = json.loads(json.dumps(V011))
    doc["default-priorities"]["feature"] = {"simd": ["width", "level"]}
    doc["default-priorities"]["property"] = {"simd": {"level": ["v2"]}}
    md = parse_metadata(doc, "x.json")
    assert md.schema == (0, 1, 1)
    assert md.feature_priorities == {} and md.property_priorities == {}


#: (plugin-api, (module, object path) or None when refused): the one rule that
#: reading metadata, make-variant and the plugin runner share
OBJECT_REFERENCES = [
    ("nvidia_variant_provider.plugin:NvidiaVariantPlugin", ("nvidia_variant_provider.plugin", "NvidiaVariantPlugin")),
    ("nvidia_variant_provider.plugin : NvidiaVariantPlugin", ("nvidia_variant_provider.plugin", "NvidiaVariantPlugin")),
    ("inst_plugin : Outer.Inner.obj", ("inst_plugin", "Outer.Inner.obj")),
    ("pkg.module", ("pkg.module", None)),
    ("pkg.module ", ("pkg.module", None)),
    ("a:b", ("a", "b")),
    ("a:b ", ("a", "b")),  # the entry-point object reference syntax, as variantlib reads it
    ("a :\tb", ("a", "b")),
    ("mödul:Klasse", ("mödul", "Klasse")),  # names are not ASCII only, as Python's are not
    ("_x1.y_2:Z", ("_x1.y_2", "Z")),
    ("a:b:c", None),
    (" a:b", None),
    ("a:", None),
    (":b", None),
    ("a-b:c", None),
    ("a b", None),
    ("a:b c", None),
    ("a..b", None),
    (".a", None),
    ("a.", None),
    ("a:.b", None),
    ("a:b..c", None),
    ("a.:b", None),
    ("a:b[extra]", None),
    ("", None),
]


def _is_valid_reference(api):
    try:
        split_object_reference(api)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("api, parts", OBJECT_REFERENCES)
def test_plugin_api_object_reference(api, parts):
    if parts is None:
        with pytest.raises(ValueError):
            split_object_reference(api)
    else:
        assert split_object_reference(api) == parts


@pytest.mark.parametrize("api, parts", OBJECT_REFERENCES)
def test_plugin_api_rule_is_the_same_for_reading_running_and_publishing(api, parts):
    from pip_variants.providers.plugins import parse_plugin_api
    from pip_variants.publish import PublishError, parse_provider_option

    doc = {
        "$schema": "https://variants-schema.wheelnext.dev/v0.2.0.json",
        "default-priorities": {"namespace": ["ns"]},
        "providers": {"ns": {"requires": ["ns-provider"], "plugin-api": api}},
        "variants": {"v": {"ns": {"f": ["x"]}}},
    }
    option = f"ns=ns-provider;plugin-api={api}"
    if parts is None:
        with pytest.raises(InvalidVariantMetadata, match="is not an object reference"):
            parse_metadata(doc)
        with pytest.raises(ValueError, match="invalid plugin API"):
            parse_plugin_api(api)
        if _is_valid_reference(api.strip()):  # " a:b": in the option, blanks after '=' are the option's
            assert parse_provider_option(option)[2] == api.strip()
        else:
            with pytest.raises(PublishError, match="plugin-api"):
                parse_provider_option(option)
    else:
        assert parse_metadata(doc).providers["ns"].plugin_api == api
        assert parse_plugin_api(api) == parts
        # written without blanks, the form every reader takes
        assert parse_provider_option(option)[2] == (parts[0] if parts[1] is None else ":".join(parts))



def test_a_null_only_0_0_x_file_may_list_no_namespace():
    """variantlib writes a null build's variant.json with an empty namespace
    list (0.0.3), and reads it; with any non-null variant, or from 0.1.0 on
    (PEP 825; uv 0.13.9 refuses it too), the list must not be empty."""
    null_only = {"$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
                 "default-priorities": {"namespace": []}, "providers": {}, "variants": {"null": {}}}
    md = parse_metadata(null_only, "pkg-1.0-py3-none-any-null.whl")
    assert md.namespaces == () and md.variants == {"null": {}}
    assert load_wheel_metadata(_wheel_bytes("null", null_only), "null").variants == {"null": {}}
    with_build = json.loads(json.dumps(null_only))
    with_build["variants"]["tbb"] = {"itk": {"threading": ["tbb"]}}
    with pytest.raises(InvalidVariantMetadata, match="'default-priorities.namespace' must not be empty"):
        parse_metadata(with_build, "x")
    for schema in (V011["$schema"], V020):
        with pytest.raises(InvalidVariantMetadata, match="'default-priorities.namespace' must not be empty"):
            parse_metadata(dict(null_only, **{"$schema": schema}), "x")


def test_a_0_0_2_provider_entry_for_the_abi_namespace_is_ignored():
    """wheelnext's 0.0.2 examples (flash-attn, vLLM) gave abi_dependency a
    'plugin-use: none' entry before PEP 817 reserved the namespace; from 0.0.3
    on it is invalid."""
    doc = {
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.2.json",
        "default-priorities": {"namespace": ["nvidia", "abi_dependency"]},
        "providers": {
            "nvidia": {"requires": ["nvidia-variant-provider>=0.0.1,<1.0.0"],
                       "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin"},
            "abi_dependency": {"plugin-use": "none"},
        },
        "variants": {"cu12_pyt2.8.0": {"nvidia": {"cuda_version_lower_bound": ["12.0"]},
                                       "abi_dependency": {"torch": ["2.8.0"]}}},
    }
    md = parse_metadata(doc, "flash_attn-2.8.0-variants.json")
    assert "abi_dependency" not in md.providers and "cu12_pyt2.8.0" in md.variants
    doc["$schema"] = "https://variants-schema.wheelnext.dev/v0.0.3.json"
    with pytest.raises(InvalidVariantMetadata, match="reserved namespace 'abi_dependency' must not have a provider"):
        parse_metadata(doc, "x")


def test_an_index_file_without_the_wheels_abi_provider_disagrees_with_it():
    """A 0.2.0 file with abi_dependency dropped from its namespaces and providers
    still reads (as the drafts' form); variantlib and uv refuse it for the release."""
    schema = "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json"
    wheel = parse_metadata({
        "$schema": schema,
        "default-priorities": {"namespace": ["x86_64", "abi_dependency"]},
        "providers": {"x86_64": {"requires": ["x86-64-variant-provider>=0.2"]},
                      "abi_dependency": {"builtin": "abi_dependency"}},
        "variants": {"t29": {"x86_64": {"level": ["v3"]}, "abi_dependency": {"torch": ["2.9"]}}},
    }, "wheel")
    index = parse_metadata({
        "$schema": schema,
        "default-priorities": {"namespace": ["x86_64"]},
        "providers": {"x86_64": {"requires": ["x86-64-variant-provider>=0.2"]}},
        "variants": {"t29": {"x86_64": {"level": ["v3"]}, "abi_dependency": {"torch": ["2.9"]}}},
    }, "index")
    assert check_consistency(index, wheel, "t29") == (
        "namespace 'abi_dependency' has a provider in the wheel but none in the index file")


def test_the_abi_provider_answers_its_literal_namespace_and_builtin_entries():
    md = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/v0.2.0.json",
        "default-priorities": {"namespace": ["torch_abi", "nvidia"]},
        "providers": {"torch_abi": {"builtin": "abi_dependency"}, "nvidia": {"requires": ["nvidia-variant-provider"]}},
        "variants": {"v": {"torch_abi": {"torch": ["2.9"]}, "nvidia": {"sm_arch": ["90_real"]}}},
    })
    assert md.is_abi_namespace("torch_abi") and md.is_abi_namespace("abi_dependency")
    assert not md.is_abi_namespace("nvidia") and not md.is_abi_namespace("absent")
