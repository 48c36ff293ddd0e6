"""WHEEL-VARIANTS §8 (MK-1..MK-5): the values and comparisons of variant markers."""

from __future__ import annotations

import pytest

from pip_variants.variant_markers import (
    NON_VARIANT,
    InvalidVariantComparison,
    InvalidVariantRequirement,
    VariantEnvironment,
    check_requirement,
    compare,
    normalize_item,
    uses_variant_markers,
)

DECLARED = {
    "nvidia": {"cuda_version_lower_bound": ("12.8",), "sm_arch": ("80_real", "90_real")},
    "x86_64": {"level": ("v3",)},
}
A100 = {"nvidia": {"cuda_version_lower_bound": ("12.8", "12.6"), "sm_arch": ("80_real", "75_real")},
        "x86_64": {"level": ("v3", "v2", "v1")}}


def test_825_properties_are_filtered_to_what_the_target_supports():
    env = VariantEnvironment.for_wheel("cu128", DECLARED, A100)
    assert env.label == "cu128"
    assert env.properties == {"nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 80_real",
                              "x86_64 :: level :: v3"}
    # MK-4: filtering never removes a whole feature of a compatible wheel
    assert env.features == {"nvidia :: cuda_version_lower_bound", "nvidia :: sm_arch", "x86_64 :: level"}
    assert env.namespaces == {"nvidia", "x86_64"}


def test_a_feature_the_target_does_not_support_keeps_every_declared_value():
    # --variant for another machine, or an installed wheel whose provider no longer answers
    no_gpu = {"x86_64": {"level": ("v3", "v2", "v1")}}
    env = VariantEnvironment.for_wheel("cu128", DECLARED, no_gpu)
    assert env.properties == {"nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 80_real",
                              "nvidia :: sm_arch :: 90_real", "x86_64 :: level :: v3"}
    assert env.namespaces == {"nvidia", "x86_64"}
    # only the unsupported feature: the supported one is still filtered
    sm75 = {"nvidia": {"cuda_version_lower_bound": ("12.8",), "sm_arch": ("75_real",)}, "x86_64": {"level": ("v3",)}}
    env = VariantEnvironment.for_wheel("cu128", DECLARED, sm75)
    assert "nvidia :: sm_arch :: 90_real" in env.properties
    assert "nvidia :: cuda_version_lower_bound :: 12.8" in env.properties


def test_without_a_supported_set_every_declared_property_counts():
    env = VariantEnvironment.for_wheel("cu128", DECLARED)
    assert "nvidia :: sm_arch :: 90_real" in env.properties


def test_null_and_non_variant_values():
    null = VariantEnvironment.for_wheel("null", DECLARED, A100)
    assert (null.label, null.properties, null.features, null.namespaces) == ("null", set(), set(), set())
    assert (NON_VARIANT.label, NON_VARIANT.properties) == ("", frozenset())
    # MK-5 (825): ordinary operators on empty values, so "not in" is true
    assert compare("variant_namespaces", "not in", "nvidia", False, NON_VARIANT)
    assert compare("variant_label", "==", "", True, NON_VARIANT)


@pytest.mark.parametrize("text", ["a::b::c", " a :: b :: c ", "a  ::b::  c"])
def test_mk3_whitespace_around_separators_is_ignored(text):
    assert normalize_item(text) == "a :: b :: c"
    assert compare("variant_properties", "in", text, False, VariantEnvironment("x", ["a :: b :: c"]))


@pytest.mark.parametrize(
    "op, literal, left, expected",
    [("==", "cu128", True, True), ("!=", "null", True, True), ("==", "cu126", True, False),
     ("in", "cu128 cu129", True, True), ("not in", "cu12", False, False), ("==", "cu128", False, True)],
)
def test_mk2_label_takes_string_operators(op, literal, left, expected):
    assert compare("variant_label", op, literal, left, VariantEnvironment("cu128")) is expected


def test_mk2_label_compares_as_a_string_never_as_a_version():
    # packaging 26 (pip 26's) compares only python_version, python_full_version,
    # implementation_version and platform_release as versions; any other string marker as text
    label = VariantEnvironment("12.8")
    assert compare("variant_label", "<", "12.10", True, label) is False
    assert compare("variant_label", "!=", "12.8.0", True, label) is True
    assert compare("variant_label", "!=", "v4", True, VariantEnvironment("null")) is True
    for op in ("===", "~="):
        with pytest.raises(InvalidVariantComparison):
            compare("variant_label", op, "12.8", True, label)


@pytest.mark.parametrize("op, left", [("==", True), ("in", True), ("==", False), ("~=", False)])
def test_mk2_sets_take_only_membership(op, left):
    with pytest.raises(InvalidVariantComparison):
        compare("variant_features", op, "a :: b", left, VariantEnvironment("x", ["a :: b :: c"]))


def test_uses_variant_markers():
    assert uses_variant_markers(['a ; variant_label == "x"'])
    assert not uses_variant_markers(["my_variant_labels>=1", "variant_labelx"])
    assert not uses_variant_markers(["numpy>=1", 'b ; python_version < "3.10"'])


@pytest.mark.parametrize(
    "text",
    ['cuda-lib ; variant_label == "cu128"', 'k ; "nvidia::sm_arch::90_real" in variant_properties',
     'k ; "nvidia :: sm_arch" not in variant_features and python_version >= "3.9"',
     'k[extra]>=1 ; "nvidia" in variant_namespaces', "plain>=2"],
)
def test_check_requirement_accepts(text):
    assert check_requirement(f"  {text} ") == text


@pytest.mark.parametrize(
    "text, why",
    [('k ; variant_properties == "a :: b :: c"', "are sets"), ('k ; "a :: b" in variant_properties', "invalid variant property"),
     ('k ; "a" in variant_features', "invalid variant feature"), ('k ; "A B" in variant_namespaces', "namespace"),
     ('k ; variant_label ==', "variant_*"), ("", "empty")],
)
def test_check_requirement_rejects_with_a_reason(text, why):
    with pytest.raises(InvalidVariantRequirement, match=why.replace("*", r"\*")):
        check_requirement(text)


def test_marker_name_pattern_is_compiled_once_and_on_first_use():
    import subprocess
    import sys

    code = (
        "import pip_variants.variant_markers as vm\n"
        "assert vm.marker_name_re.cache_info().currsize == 0, 'compiled at import'\n"
        "assert vm.marker_name_re().pattern == vm.MARKER_NAME_PATTERN\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_marker_name_pattern_finds_the_four_names_only():
    from pip_variants import variant_markers as vm

    for name in vm.MARKER_NAMES:
        assert vm.marker_name_re().fullmatch(name)
    assert [m.group() for m in vm.marker_name_re().finditer('a ; variant_labels == "x" or variant_features')] == [
        "variant_features"
    ]
    with pytest.raises(AttributeError):
        vm.NO_SUCH_NAME  # noqa: B018
