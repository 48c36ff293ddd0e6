import pytest

from pip_variants.properties import (
    InvalidVariantProperty,
    VariantFeature,
    VariantProperty,
    iter_properties,
    normalize_property_set,
)


def test_parse_tolerates_whitespace_around_separators():
    assert VariantProperty.parse("acme::sm::90_real") == VariantProperty("acme", "sm", "90_real")
    assert VariantProperty.parse("  acme  ::sm ::   90_real ") == VariantProperty("acme", "sm", "90_real")
    assert str(VariantProperty.parse("nvidia::cuda_version_lower_bound::12.8")) == (
        "nvidia :: cuda_version_lower_bound :: 12.8"
    )


@pytest.mark.parametrize(
    "text", ["CUDA :: runtime :: 12", "ns :: feat", "ns :: f.x :: 1", "ns :: f :: V1", "ns::f::a b", "", "a::b::c::d"]
)
def test_parse_rejects_bad_grammar(text):
    with pytest.raises(InvalidVariantProperty):
        VariantProperty.parse(text)


def test_feature_parse_and_grouping():
    assert str(VariantFeature.parse("acme :: sm")) == "acme :: sm"
    props = [VariantProperty.parse(t) for t in ("b :: f :: 2", "a :: g :: x", "b :: f :: 1")]
    grouped = normalize_property_set(props)
    assert grouped == {"a": {"g": ("x",)}, "b": {"f": ("1", "2")}}
    assert sorted(map(str, iter_properties(grouped))) == ["a :: g :: x", "b :: f :: 1", "b :: f :: 2"]
