import json

import pytest

from pip_variants.metadata import InvalidVariantMetadata, check_consistency, parse_metadata
from pip_variants.metadata_merge import merge_metadata

from support.metadata_docs import V003, V011, V020_DOC


def test_consistency_and_merge():
    index = parse_metadata(V020_DOC, "index")
    wheel_doc = json.loads(json.dumps(V020_DOC))
    wheel_doc["variants"] = {"cu128": json.loads(json.dumps(V020_DOC["variants"]["cu128"]))}
    wheel = parse_metadata(wheel_doc, "wheel")
    assert check_consistency(index, wheel, "cu128") is None
    wheel_doc["variants"]["cu128"]["nvidia"]["cuda_version_lower_bound"] = ["12.9"]
    assert "different properties" in check_consistency(index, parse_metadata(wheel_doc, "w"), "cu128")
    other = json.loads(json.dumps(V020_DOC))
    other["providers"]["nvidia"]["requires"] = ["other-provider"]
    other["variants"] = {"cu128": V020_DOC["variants"]["cu128"]}
    assert "provider" in check_consistency(index, parse_metadata(other, "w"), "cu128")

    a = parse_metadata(dict(V011, variants={"fast": {"simd": {"level": ["v2"]}}}), "a.whl")
    b = parse_metadata(dict(V011, variants={"null": {}}), "b.whl")
    merged = merge_metadata([a, b], "dir")
    assert set(merged.variants) == {"fast", "null"}
    c = parse_metadata(dict(V011, variants={"fast": {"simd": {"level": ["v3"]}}}), "c.whl")
    with pytest.raises(InvalidVariantMetadata, match="conflicting"):
        merge_metadata([a, c], "dir")


def test_merge_refuses_different_priorities_for_the_same_namespace():
    """IX-4: priorities that differ for one namespace conflict. A part that
    gives none for it takes the other's (leniency: a wheel's own variant.json
    need not repeat them)."""
    a = parse_metadata(V003, "a")
    same = parse_metadata(json.loads(json.dumps(V003)), "b")
    assert merge_metadata([a, same], "dir").feature_priorities == a.feature_priorities
    features = json.loads(json.dumps(V003))
    features["default-priorities"]["feature"]["blas_lapack"] = ["int", "library"]
    with pytest.raises(InvalidVariantMetadata, match="'blas_lapack' conflict"):
        merge_metadata([a, parse_metadata(features, "c")], "dir")
    values = json.loads(json.dumps(V003))
    values["default-priorities"]["property"]["x86_64"]["level"] = ["v4"]
    with pytest.raises(InvalidVariantMetadata, match="value priorities of x86_64 :: level conflict"):
        merge_metadata([a, parse_metadata(values, "d")], "dir")
    unlisted = json.loads(json.dumps(V003))
    del unlisted["default-priorities"]["property"]
    assert merge_metadata([parse_metadata(unlisted, "e"), a], "dir").property_priorities == a.property_priorities


def test_merge_refuses_a_label_valid_in_one_part_and_invalid_in_another():
    good = parse_metadata(V011, "a.whl")
    doc = json.loads(json.dumps(V011))
    doc["variants"] = {"fast": {"other": {"f": ["1"]}}}  # undeclared namespace: invalid there
    bad = parse_metadata(doc, "b.whl")
    for parts in ([good, bad], [bad, good]):
        with pytest.raises(InvalidVariantMetadata, match="'fast' has conflicting properties"):
            merge_metadata(parts, "dir")
