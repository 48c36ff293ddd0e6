"""Writing variant metadata (``metadata_write``): what is written reads back the same."""

import json

import pytest

from pip_variants.metadata import InvalidVariantMetadata, ProviderInfo, VariantMetadata, check_consistency, parse_metadata
from pip_variants.metadata_write import dumps, to_json_dict

from support.metadata_docs import STATIC_003, TORCH_28, TORCH_29, V002, V003, V011, V020_DOC


def test_write_020_round_trips():
    md = parse_metadata(V020_DOC, "x")
    again = parse_metadata(json.loads(dumps(md)), "x")
    assert again.variants == md.variants and again.providers == md.providers
    assert again.namespaces == md.namespaces



@pytest.mark.parametrize("doc", [V002, V003, STATIC_003, TORCH_28, TORCH_29],
                         ids=["0.0.2", "0.0.3", "0.0.3-static", "torch-2.8", "torch-2.9"])
def test_00x_written_as_020_agrees_with_its_wheels(doc):
    # 0.2.0 has no enable-if: an index file written from 0.0.x wheels (pip-variants index)
    # drops it, and still agrees with each wheel's variant.json; uv reads 0.2.0, not 0.0.x.
    md = parse_metadata(doc, "x")
    written = json.loads(dumps(md))
    assert written["$schema"].endswith("/v0.2.0.json")
    again = parse_metadata(written, "x")
    for name in ("namespaces", "variants", "feature_priorities", "property_priorities"):
        assert getattr(again, name) == getattr(md, name), name
    for label in md.variants:
        assert check_consistency(again, md, label) is None
        assert check_consistency(md, again, label) is None
    if any(p.enable_if for p in md.providers.values()):  # both in 0.0.x: enable-if still counts
        changed = json.loads(json.dumps(doc))
        for entry in changed["providers"].values():
            if "enable-if" in entry:
                entry["enable-if"] = "platform_machine == 'riscv64'"
        other = parse_metadata(changed, "x")
        assert any(check_consistency(other, md, label) for label in md.variants)


V010 = {
    "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.0.json",
    "default-priorities": {"namespace": ["x86_64"], "feature": {"x86_64": ["level"]},
                           "property": {"x86_64": {"level": ["v3", "v1"]}}},
    "variants": {"v1": {"x86_64": {"level": ["v1"]}}, "null": {}},
}


@pytest.mark.parametrize("doc", [V010, V011], ids=["0.1.0", "0.1.1"])
def test_0_1_x_is_written_in_its_own_format(doc):
    # 0.1.x names no providers (installers map namespaces through their own
    # registry): written as 0.2.0 it would need a provider entry it cannot have
    md = parse_metadata(doc, "x")
    written = json.loads(dumps(md))
    assert written == json.loads(json.dumps(doc)) and "providers" not in written
    again = parse_metadata(written, "x")
    assert again.schema == md.schema and again.variants == md.variants
    for label in md.variants:
        assert check_consistency(again, md, label) is None
    assert list(to_json_dict(md, ["null"])["variants"]) == ["null"]


def test_a_namespace_without_provider_information_is_not_written():
    md = VariantMetadata(source="pkg-1.0-variants.json", schema=(0, 2, 0), namespaces=("gpu",),
                         variants={"g": {"gpu": {"api": ("1",)}}}, providers={"gpu": ProviderInfo("gpu")})
    with pytest.raises(InvalidVariantMetadata, match="no provider information for namespace 'gpu'"):
        dumps(md)


def test_0_1_0_override_lists_keep_the_0_1_0_format():
    # an abi_dependency-only release has a 0.2.0 form, but not for its 0.1.0 override lists
    doc = {"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.0.json",
           "default-priorities": {"namespace": ["abi_dependency"], "feature": {"abi_dependency": ["torch"]}},
           "variants": {"t29": {"abi_dependency": {"torch": ["2.9"]}}}}
    written = to_json_dict(parse_metadata(doc, "x"))
    assert written["$schema"].endswith("/v0.1.0.json") and "providers" not in written
    del doc["default-priorities"]["feature"]
    assert to_json_dict(parse_metadata(doc, "x"))["$schema"].endswith("/v0.2.0.json")
