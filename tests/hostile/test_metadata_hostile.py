"""Hostile variant metadata: what an index nobody here controls may serve.

Broken ``{name}-{version}-variants.json`` files (syntax, types, missing keys,
an unknown schema major, over the size limit, nested past the recursion
limit, labels and properties breaking the grammar), wheels whose
``variant.json`` disagrees with their filename or with the index file, and an
index file whose ``#sha256=`` is wrong.

PEP 825 (IX-9): consumers that find metadata invalid SHOULD NOT rely on it
and SHOULD degrade gracefully, i.e. ignore the release's variant wheels and
choose among the rest. So with a bad index file pip installs the plain wheel,
says once which URL was bad and why, and never shows a traceback; a single
bad wheel is dropped and the next best variant is chosen (WM-5).

The reader itself is checked at library level on the same inputs (and on
random mutations of a valid document, with hypothesis): it either returns
metadata or raises ``InvalidVariantMetadata`` naming the source; nothing else.
"""

from __future__ import annotations

import copy
import json
import random
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pip_variants.metadata import (
    MAX_METADATA_BYTES,
    InvalidVariantMetadata,
    UnsupportedSchemaVersion,
    VariantMetadata,
    load_metadata,
    load_wheel_metadata,
)
from support.index import LocalIndex
from support.uv import require_uv, uv_pick
from support.venvs import pick, run_pip
from support.wheels import (
    NVIDIA_PROVIDER,
    SCHEMA_0_2_0,
    build_release,
    build_wheel,
    static_provider,
    variants_json,
    variants_json_filename,
)

PLAIN = "pkg-1.0-py3-none-any.whl"
JSON_NAME = variants_json_filename("pkg", "1.0")
BLAS = {"blas_lapack": static_provider({"library": ["openblas", "mkl"]})}
VARIANTS = {
    "ob": {"blas_lapack": {"library": ["openblas"]}},
    "mkl": {"blas_lapack": {"library": ["mkl"]}},
}


def vfile(label: str) -> str:
    return f"pkg-1.0-py3-none-any-{label}.whl"


def good() -> dict:
    return variants_json(
        "pkg", "1.0", namespaces=["blas_lapack"], providers=BLAS, variants=VARIANTS
    )


def assert_no_crash(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text
        assert "internal error" not in text, text


def edit(**changes):
    """A valid document with top-level keys replaced (``None`` removes one)."""
    data = good()
    for key, value in changes.items():
        key = {"schema": "$schema", "prio": "default-priorities"}.get(key, key)
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return json.dumps(data).encode()


def variant_edit(label: str, props) -> bytes:
    data = good()
    data["variants"] = dict(data["variants"])
    data["variants"][label] = props
    return json.dumps(data).encode()


def _deep(depth: int, opener: str = "[", closer: str = "]") -> str:
    return opener * depth + closer * depth


def _deep_objects(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


HUGE_PADDING = "x" * (MAX_METADATA_BYTES + 16)

# name -> (raw bytes of the index file, words the warning must contain)
BAD_FILES = {
    # syntax and encoding
    "truncated-json": (b'{"$schema": "' + SCHEMA_0_2_0.encode() + b'", ', "not valid JSON"),
    "empty-file": (b"", "not valid JSON"),
    "html-error-page": (b"<html><body>Service Unavailable</body></html>", "not valid JSON"),
    "not-utf8": (b"\xff\xfe{\x00}\x00", "not UTF-8"),
    "nan-value": (
        edit(variants={"ob": {"blas_lapack": {"library": "__NAN__"}}}).replace(
            b'"__NAN__"', b"[NaN]"
        ),
        "must hold strings",
    ),
    # wrong types
    "top-level-list": (b"[1, 2, 3]", "top level must be an object"),
    "top-level-null": (b"null", "top level must be an object"),
    "variants-is-a-list": (edit(variants=["ob", "mkl"]), "'variants' must be an object"),
    "namespace-is-a-string": (edit(prio={"namespace": "blas_lapack"}), "must be a list"),
    "values-are-numbers": (
        variant_edit("ob", {"blas_lapack": {"library": [1, 2]}}),
        "must hold strings",
    ),
    "providers-is-a-list": (edit(providers=["blas_lapack"]), "'providers' must be an object"),
    "optional-is-a-string": (
        edit(providers={"blas_lapack": dict(BLAS["blas_lapack"], optional="yes")}),
        "must be a boolean",
    ),
    # missing keys
    "no-variants": (edit(variants=None), "missing required key 'variants'"),
    "no-default-priorities": (edit(prio=None), "missing required key 'default-priorities'"),
    "no-providers-in-0.2.0": (edit(providers=None), "missing required key 'providers'"),
    "providers-miss-a-namespace": (edit(providers={}), "must equal 'default-priorities.namespace'"),
    # schema versions
    "schema-major-2": (
        edit(schema="https://variants-schema.wheelnext.dev/peps/850/v2.0.0.json"),
        "unsupported variant metadata format 2.0.0",
    ),
    "schema-unknown-draft": (
        edit(schema="https://variants-schema.wheelnext.dev/peps/825/v0.9.0.json"),
        "unsupported variant metadata format 0.9.0",
    ),
    "schema-not-a-string": (edit(schema=42), "'$schema' must be a string"),
    # size and depth
    "over-2-MiB": (edit(padding=HUGE_PADDING), "byte limit"),
    "deeply-nested-lists": (
        b'{"default-priorities": {"namespace": ' + _deep(100_000).encode() + b"}}",
        "nested too deeply",
    ),
    "deeply-nested-objects": (
        b'{"variants": ' + _deep_objects(100_000).encode() + b"}",
        "nested too deeply",
    ),
    # grammar of labels and properties
    "label-uppercase": (variant_edit("OB", VARIANTS["ob"]), "variant label 'OB'"),
    "label-with-dash": (variant_edit("o-b", VARIANTS["ob"]), "variant label 'o-b'"),
    "label-empty": (variant_edit("", VARIANTS["ob"]), "variant label ''"),
    "label-path-traversal": (
        variant_edit("../../etc", VARIANTS["ob"]),
        "variant label '../../etc'",
    ),
    "namespace-uppercase": (variant_edit("ob", {"BLAS": {"library": ["openblas"]}}), "'BLAS'"),
    "feature-with-space": (
        variant_edit("ob", {"blas_lapack": {"lib rary": ["openblas"]}}),
        "'lib rary'",
    ),
    "value-with-space": (
        variant_edit("ob", {"blas_lapack": {"library": ["open blas"]}}),
        "'open blas'",
    ),
    "value-empty-list": (variant_edit("ob", {"blas_lapack": {"library": []}}), "must not be empty"),
    "value-duplicate": (
        variant_edit("ob", {"blas_lapack": {"library": ["mkl", "mkl"]}}),
        "duplicate",
    ),
    "null-with-properties": (
        variant_edit("null", VARIANTS["mkl"]),
        "'null' variant must have no properties",
    ),
    "plugin-api-injection": (
        edit(providers={"blas_lapack": {"requires": ["x"], "plugin-api": "os:system; rm -rf /"}}),
        "is not an object reference",
    ),
    "static-value-grammar": (
        edit(providers={"blas_lapack": {"static-properties": {"library": ["Open BLAS"]}}}),
        "'Open BLAS'",
    ),
    "two-static-features-no-order": (
        edit(providers={"blas_lapack": {"static-properties": {"library": ["mkl"], "abi": ["x"]}}}),
        "'feature-order' is required",
    ),
}

# A subset that goes through real pip: one of each kind of breakage.
E2E_CASES = [
    "truncated-json",
    "not-utf8",
    "html-error-page",
    "top-level-list",
    "values-are-numbers",
    "no-variants",
    "no-providers-in-0.2.0",
    "schema-major-2",
    "over-2-MiB",
    "deeply-nested-lists",
    "deeply-nested-objects",
    "label-uppercase",
    "label-path-traversal",
    "value-with-space",
    "null-with-properties",
    "plugin-api-injection",
]


# -- library level ------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_reader_rejects_with_a_message_naming_the_file(case):
    raw, words = BAD_FILES[case]
    source = "https://example.invalid/files/pkg/pkg-1.0-variants.json"
    with pytest.raises(InvalidVariantMetadata) as info:
        load_metadata(raw, source)
    assert info.value.source == source
    assert str(info.value).startswith(source + ": ")
    assert words in str(info.value), str(info.value)
    assert "\n" not in str(info.value)[:500]  # one line (JSON errors quote no document)
    if case.startswith("schema-"):
        assert isinstance(info.value, UnsupportedSchemaVersion) or case == "schema-not-a-string"


def test_huge_file_is_refused_before_parsing(mocker):
    spy = mocker.patch("pip_variants.metadata.json.loads")
    with pytest.raises(InvalidVariantMetadata, match="byte limit"):
        load_metadata(b" " * (MAX_METADATA_BYTES + 1), "big.json")
    assert not spy.called


def test_exactly_at_the_limit_is_still_read():
    raw = edit(padding="")
    raw = raw[:-1] + b"," + b'"pad":"' + b"x" * (MAX_METADATA_BYTES - len(raw) - 9) + b'"}'
    assert len(raw) == MAX_METADATA_BYTES
    assert isinstance(load_metadata(raw, "limit.json"), VariantMetadata)


def test_a_label_without_properties_only_loses_that_label():
    md = load_metadata(variant_edit("empty", {}), "f.json")
    assert set(md.variants) == {"ob", "mkl"}
    assert "empty" in md.invalid_labels


def test_a_label_with_an_undeclared_namespace_only_loses_that_label():
    md = load_metadata(variant_edit("odd", {"other_ns": {"f": ["v"]}}), "f.json")
    assert set(md.variants) == {"ob", "mkl"}
    assert "missing from 'default-priorities.namespace'" in md.invalid_labels["odd"]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
_PATHS = [
    ("$schema",),
    ("default-priorities",),
    ("default-priorities", "namespace"),
    ("providers",),
    ("providers", "blas_lapack"),
    ("providers", "blas_lapack", "static-properties"),
    ("providers", "blas_lapack", "static-properties", "library"),
    ("providers", "blas_lapack", "feature-order"),
    ("providers", "blas_lapack", "optional"),
    ("providers", "blas_lapack", "requires"),
    ("providers", "blas_lapack", "plugin-api"),
    ("variants",),
    ("variants", "ob"),
    ("variants", "ob", "blas_lapack"),
    ("variants", "ob", "blas_lapack", "library"),
    ("variants", "null"),
]


@settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(st.tuples(st.sampled_from(_PATHS), _JSON), min_size=1, max_size=3))
def test_reader_never_fails_with_anything_but_invalid_metadata(mutations):
    """Random values planted anywhere in a valid document: the reader returns
    metadata or raises InvalidVariantMetadata, never TypeError & co."""
    data = copy.deepcopy(good())
    for path, value in mutations:
        node = data
        for key in path[:-1]:
            if not isinstance(node, dict):
                break
            node = node.setdefault(key, {})
        else:
            if isinstance(node, dict):
                node[path[-1]] = value
    try:
        raw = json.dumps(data).encode()
    except ValueError:
        return
    try:
        md = load_metadata(raw, "fuzz.json")
    except InvalidVariantMetadata as exc:
        assert exc.source == "fuzz.json"
    else:
        assert isinstance(md, VariantMetadata)


# -- end to end: a bad index file ---------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("case", E2E_CASES)
def test_bad_index_file_installs_plain_and_names_the_url(variant_venv, publish, index, case):
    raw, words = BAD_FILES[case]
    publish("pkg", "1.0", good(), index_file=False)
    index.add_bytes("pkg", JSON_NAME, raw)
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == PLAIN, stderr
    assert_no_crash(stderr)
    url = index.file_url("pkg", JSON_NAME)
    lines = [line for line in stderr.splitlines() if url in line]
    assert len(lines) == 1, f"expected one line naming {url}:\n{stderr}"
    assert words in lines[0], lines[0]
    assert lines[0].startswith("WARNING:"), lines[0]
    # No variant wheel was even downloaded: the choice was made from the index file.
    assert not [
        f for f in index.downloaded() if f.endswith(".whl") and f != PLAIN
    ], index.downloaded()


@pytest.mark.e2e
@pytest.mark.parametrize("entry", [
    {"requires": ["blas-provider>=1 garbage"], "plugin-api": "blas_provider:P"},
    {"requires": ["blas-provider==1..2"], "plugin-api": "blas_provider:P"},
])
def test_an_unusable_provider_entry_costs_only_its_own_release(variant_venv, publish, index, entry):
    """A 'requires' entry that is not PEP 508 in one release's file: that release
    gets its plain wheel, and pip-variants stays on for its dependency."""
    bad = variants_json("zzz", "1.0", namespaces=["blas_lapack"], providers={"blas_lapack": entry},
                        variants=VARIANTS)
    publish("zzz", "1.0", bad, requires=["pkg"])
    publish("pkg", "1.0", good())
    chosen, report, stderr = pick(variant_venv, index, "zzz")
    assert_no_crash(stderr)
    assert chosen == "zzz-1.0-py3-none-any.whl", stderr
    installed = {item["metadata"]["name"]: item["download_info"]["url"].rsplit("/", 1)[-1]
                 for item in report["install"]}
    assert installed["pkg"] == vfile("ob"), stderr


@pytest.mark.e2e
def test_bad_index_file_real_install_leaves_only_the_plain_wheel(
    variant_venv, publish, index, tmp_path
):
    publish("pkg", "1.0", good(), index_file=False)
    index.add_bytes("pkg", JSON_NAME, BAD_FILES["schema-major-2"][0])
    target = tmp_path / "target"
    proc = run_pip(variant_venv, "install", "--index-url", index.url, "--target", target, "pkg")
    assert_no_crash(proc.stderr)
    assert (target / "pkg" / "__init__.py").read_text().strip() == 'VARIANT = ""'
    assert not (target / "pkg-1.0.dist-info" / "variant.json").exists()
    assert sorted(p.name for p in target.iterdir()) == ["pkg", "pkg-1.0.dist-info"]


@pytest.mark.e2e
@pytest.mark.parametrize(
    "case", ["BOM", "unknown-top-level-key", "unknown-key-in-variant-of-other-release"]
)
def test_tolerable_oddities_still_select_the_variant(variant_venv, publish, index, case):
    data = good()
    if case == "BOM":
        raw = b"\xef\xbb\xbf" + json.dumps(data).encode()
    elif case == "unknown-top-level-key":
        raw = json.dumps(dict(data, **{"x-generator": {"anything": [1, None]}})).encode()
    else:
        # A label listed in the file with no wheel on the index is fine (IX-2).
        data["variants"]["gone"] = {"blas_lapack": {"library": ["openblas"]}}
        raw = json.dumps(data).encode()
    publish("pkg", "1.0", good(), index_file=False)
    index.add_bytes("pkg", JSON_NAME, raw)
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == vfile("ob"), stderr
    assert_no_crash(stderr)


@pytest.mark.e2e
@pytest.mark.parametrize("api", ["html", "json"])
def test_index_file_with_a_wrong_sha256_is_not_used(variant_venv, dist, api):
    with LocalIndex(api=api) as idx:
        idx.add_files("pkg", build_release(dist, "pkg", "1.0", good()))
        idx.set_hash("pkg", JSON_NAME, "wrong")
        chosen, _, stderr = pick(variant_venv, idx, "pkg")
        url = idx.file_url("pkg", JSON_NAME)
    assert chosen == PLAIN, stderr
    assert_no_crash(stderr)
    lines = [line for line in stderr.splitlines() if url in line]
    assert len(lines) == 1 and "does not match its sha256 hash" in lines[0], stderr


@pytest.mark.e2e
def test_index_file_of_another_project_is_ignored(variant_venv, publish, index):
    """``other-1.0-variants.json`` on pkg's page must not describe pkg's wheels."""
    publish("pkg", "1.0", good(), index_file=False)
    index.add_bytes("pkg", variants_json_filename("other", "1.0"), json.dumps(good()).encode())
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == PLAIN, stderr
    assert_no_crash(stderr)
    assert "no pkg-1.0-variants.json" in stderr, stderr


# -- end to end: one wheel disagrees ----------------------------------------------------


def _liar(dist, label: str, claims: dict):
    """Variant wheel ``label`` whose variant.json says ``claims`` (a 0.2.0 document)."""
    out = dist / f"liar-{label}"
    return build_wheel(out, "pkg", "1.0", label=label, variant_json=claims, filename=vfile(label))


def _mislabeled(dist):
    """The ``ob`` wheel's variant.json describes label ``mkl``."""
    claims = dict(good(), variants={"mkl": VARIANTS["mkl"]})
    return _liar(dist, "ob", claims)


def _wrong_properties(dist):
    """The ``ob`` wheel's variant.json gives ``ob`` other properties than the index file."""
    claims = dict(good(), variants={"ob": {"blas_lapack": {"library": ["accelerate"]}}})
    return _liar(dist, "ob", claims)


def _no_variant_json(dist):
    return build_wheel(dist / "bare", "pkg", "1.0", filename=vfile("ob"))


LIARS = {
    "mislabeled": _mislabeled,
    "wrong-properties": _wrong_properties,
    "no-variant-json": _no_variant_json,
}


def _release_with_liar(dist, liar: str, *, index_file: bool):
    """The release with its ``ob`` wheel replaced by a lying one."""
    paths = build_release(dist / "honest", "pkg", "1.0", good(), index_file=index_file)
    paths = [p for p in paths if p.name != vfile("ob")]
    return paths + [LIARS[liar](dist)]


@pytest.mark.e2e
@pytest.mark.parametrize("index_file", [True, False], ids=["with-index-file", "from-wheels"])
@pytest.mark.parametrize("liar", sorted(LIARS))
def test_find_links_drops_the_lying_wheel_and_takes_the_next(
    variant_venv, dist, tmp_path, liar, index_file
):
    links = tmp_path / "links"
    links.mkdir()
    for path in _release_with_liar(dist, liar, index_file=index_file):
        (links / path.name).write_bytes(path.read_bytes())
    chosen, _, stderr = pick(variant_venv, links, "pkg")
    assert chosen == vfile("mkl"), stderr
    assert_no_crash(stderr)


@pytest.mark.e2e
def test_find_links_lying_wheel_with_the_legacy_resolver(variant_venv, dist, tmp_path):
    """The legacy resolver never calls H12: local wheels are checked when selected."""
    links = tmp_path / "links"
    links.mkdir()
    for path in _release_with_liar(dist, "wrong-properties", index_file=True):
        (links / path.name).write_bytes(path.read_bytes())
    chosen, _, stderr = pick(variant_venv, links, "pkg", "--use-deprecated=legacy-resolver")
    assert chosen == vfile("mkl"), stderr
    assert_no_crash(stderr)


@pytest.mark.e2e
@pytest.mark.parametrize("liar", ["mislabeled", "no-variant-json"])
def test_local_lying_wheel_file_fails_cleanly(variant_venv, dist, tmp_path, liar):
    wheel = LIARS[liar](dist)
    target = tmp_path / "target"
    proc = run_pip(variant_venv, "install", "--no-index", "--target", target, wheel, check=False)
    assert proc.returncode == 1, proc.stderr
    assert_no_crash(proc.stderr)
    assert wheel.name in proc.stderr and "not a valid variant wheel" in proc.stderr, proc.stderr
    assert not target.exists() or not any(target.iterdir())


REMOTE_CHECK_MISSING = (
    "pip_variants/_pip: a variant wheel downloaded from an index is never compared with the "
    "index file (WM-5; only local wheels are, in FinderContext._compute), so a wheel whose "
    "variant.json disagrees is installed instead of being dropped for the next best"
)


@pytest.mark.e2e
@pytest.mark.parametrize(
    "liar",
    sorted(LIARS),  # was xfail(REMOTE_CHECK_MISSING) until H12 (_pip/candidates.py)
)
def test_index_lying_wheel_is_dropped_for_the_next_best(variant_venv, index, dist, tmp_path, liar):
    index.add_files("pkg", _release_with_liar(dist, liar, index_file=True))
    target = tmp_path / "target"
    proc = run_pip(
        variant_venv, "install", "--index-url", index.url, "--target", target, "pkg", check=False
    )
    assert_no_crash(proc.stderr)
    assert proc.returncode == 0, proc.stderr
    assert (target / "pkg" / "__init__.py").read_text().strip() == 'VARIANT = "mkl"', proc.stderr
    assert vfile("ob") in proc.stderr  # says which wheel was dropped


@pytest.mark.e2e
@pytest.mark.parametrize("liar", sorted(LIARS))
def test_index_lying_wheel_behind_pep658_metadata_stops_before_installing(variant_venv, dist, tmp_path, liar):
    """pip resolves from the ``.metadata`` files and downloads the wheel after
    the resolution: too late for the next best, but not too late to refuse it."""
    target = tmp_path / "target"
    with LocalIndex(pep658=True) as index:
        index.add_files("pkg", _release_with_liar(dist, liar, index_file=True))
        proc = run_pip(
            variant_venv, "install", "--index-url", index.url, "--target", target, "pkg", check=False
        )
        assert index.requested(f"{vfile('ob')}.metadata"), index.requested()
        json_url = index.file_url("pkg", "pkg-1.0-variants.json")
    assert_no_crash(proc.stderr)
    assert proc.returncode == 1, proc.stderr
    assert f"{vfile('ob')} does not match {json_url}" in proc.stderr, proc.stderr
    assert "Nothing was installed" in proc.stderr and "--variant pkg=LABEL" in proc.stderr
    assert not target.exists() or not any(target.iterdir())


@pytest.mark.e2e
def test_honest_wheel_behind_pep658_metadata_installs(variant_venv, dist, tmp_path):
    target = tmp_path / "target"
    with LocalIndex(pep658=True) as index:
        index.add_files("pkg", build_release(dist / "honest", "pkg", "1.0", good()))
        proc = run_pip(variant_venv, "install", "--index-url", index.url, "--target", target, "pkg")
    assert (target / "pkg" / "__init__.py").read_text().strip() == 'VARIANT = "ob"', proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr


def test_load_wheel_metadata_on_a_zip_bomb_member(tmp_path):
    """A variant.json that inflates past the limit is refused from its header,
    without being decompressed."""
    wheel = tmp_path / vfile("ob")
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("pkg-1.0.dist-info/variant.json", b" " * (MAX_METADATA_BYTES + 1))
    with pytest.raises(InvalidVariantMetadata, match="byte limit"):
        load_wheel_metadata(wheel, "ob")


# -- differential against uv on random 0.2.0 releases ------------------------------------

NV_VALUES = {
    "cuda_version_lower_bound": ["11.8", "12", "12.4", "12.6", "12.8", "13.0"],
    "cuda_version_upper_bound": ["12.5", "12.9", "13", "14"],
    "sm_arch": ["80_real", "86_real", "89_real", "90_real", "80_virtual", "90_virtual"],
}
STATIC_POOL = ["a", "b", "c", "d", "e"]


def random_release(seed: int):
    """A random but valid 0.2.0 release: static providers and/or nvidia (faked
    through its override variables), 2-5 labels, maybe a null variant.
    Returns ``(variants.json dict, environment)``."""
    rng = random.Random(seed)
    namespaces = rng.sample(["alpha", "beta", "gamma"], rng.randint(1, 2))
    env = {}
    if rng.random() < 0.5:
        namespaces.append("nvidia")
        env["NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION"] = rng.choice(
            ["12.4", "12.8", "13.0", "11.8"]
        )
        if rng.random() < 0.7:
            env["NV_VARIANT_PROVIDER_FORCE_SM_ARCH"] = rng.choice(["8.0", "8.6", "8.9", "9.0"])
    rng.shuffle(namespaces)
    providers, features = {}, {}
    for ns in namespaces:
        if ns == "nvidia":
            providers[ns] = NVIDIA_PROVIDER
            features[ns] = dict(NV_VALUES)
            continue
        names = rng.sample(["f", "g"], rng.randint(1, 2))
        supported = {f: rng.sample(STATIC_POOL, rng.randint(1, 3)) for f in names}
        providers[ns] = static_provider(supported, feature_order=names if len(names) > 1 else None)
        features[ns] = {f: STATIC_POOL for f in names}
    variants = {}
    for label in rng.sample([f"v{i}" for i in range(10)], rng.randint(2, 5)):
        props = {}
        for ns in rng.sample(namespaces, rng.randint(1, len(namespaces))):
            feats = features[ns]
            for feat in rng.sample(sorted(feats), rng.randint(1, min(2, len(feats)))):
                many = feat == "sm_arch" or (ns != "nvidia" and rng.random() < 0.3)
                props.setdefault(ns, {})[feat] = sorted(rng.sample(feats[feat], 2 if many else 1))
        variants[label] = props
    if rng.random() < 0.5:
        variants["null"] = {}
    data = variants_json(
        "pkg", "1.0", namespaces=namespaces, providers=providers, variants=variants
    )
    return data, env


@pytest.fixture(scope="module")
def uv_binary():
    return require_uv()


@pytest.mark.e2e
@pytest.mark.uv
@pytest.mark.parametrize("seed", range(10))
def test_random_release_same_choice_as_uv(
    uv_binary, variant_venv, stock_venv, publish, index, seed
):
    data, env = random_release(seed)
    publish("pkg", "1.0", data)
    theirs = uv_pick(uv_binary, stock_venv.python, index, "pkg", **env)
    ours, _, stderr = pick(variant_venv, index, "pkg", **env)
    assert_no_crash(stderr)
    assert ours == theirs, (
        f"seed {seed}: pip-variants chose {ours}, uv chose {theirs}\n"
        f"env {env}\n{json.dumps(data, indent=1)}\n{stderr}"
    )
