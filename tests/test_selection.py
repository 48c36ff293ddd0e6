"""WHEEL-VARIANTS.md §11 and PROVIDERS.md §5/§7 ordering behaviours, at the selection level."""

import pytest

from pip_variants.metadata import parse_metadata
from pip_variants.selection import Preferences, find_incompatibility, rank_variants

V020 = "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json"


def md(namespaces, variants, **extra):
    doc = {"$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.0.json",
           "default-priorities": {"namespace": namespaces}, "variants": variants}
    doc["default-priorities"].update(extra)
    return parse_metadata(doc, "test-variants.json")


def order(metadata, supported, **kw):
    return list(rank_variants(metadata, supported, **kw).order)


def test_single_value_miss():  # 5
    m = md(["simd"], {"a": {"simd": {"level": ["v4"]}}, "null": {}})
    r = rank_variants(m, {"simd": {"level": ("v3", "v2", "v1")}})
    assert r.order == ("null",)
    assert str(r.rejected["a"]) == "needs simd :: level :: v4; this machine supports v3, v2, v1"
    # a profile standing in for the machine is named as what supports (its namespaces only)
    from pip_variants.selection import held_by_profile

    assert str(held_by_profile(r.rejected["a"], {"simd"})) == \
        "needs simd :: level :: v4; the variant profile supports v3, v2, v1"
    assert held_by_profile(r.rejected["a"], {"other"}) == r.rejected["a"]


def test_multi_value_or():  # 6
    m = md(["acme"], {"a": {"acme": {"arch": ["a100", "h100"]}}})
    assert order(m, {"acme": {"arch": ("h100",)}}) == ["a"]


def test_and_across_features():  # 7
    m = md(["acme"], {"a": {"acme": {"rt": ["2"], "arch": ["x"]}}})
    r = rank_variants(m, {"acme": {"rt": ("2", "1")}})
    assert r.order == ()
    assert r.rejected["a"].feature == "arch"
    assert "supports no 'acme :: arch'" in str(r.rejected["a"])


def test_namespace_priority_beats_value_quality():  # 8
    m = md(["gpu", "simd"], {"a": {"gpu": {"rt": ["1"]}}, "b": {"simd": {"level": ["v4"]}}})
    assert order(m, {"gpu": {"rt": ("3", "2", "1")}, "simd": {"level": ("v4", "v3")}}) == ["a", "b"]


def test_value_preference():  # 9
    m = md(["gpu"], {"r2": {"gpu": {"rt": ["2"]}}, "r3": {"gpu": {"rt": ["3"]}}})
    assert order(m, {"gpu": {"rt": ("3", "2", "1")}}) == ["r3", "r2"]


def test_best_value_of_multi_value_feature():  # 10
    m = md(["acme"], {"p": {"acme": {"arch": ["x", "y"]}}, "q": {"acme": {"arch": ["x"]}}})
    assert order(m, {"acme": {"arch": ("y", "x")}}) == ["p", "q"]


def test_prefix_rule_longer_wins():  # 11
    m = md(["n1", "n2"], {"s": {"n1": {"f": ["a"]}}, "l": {"n1": {"f": ["a"]}, "n2": {"g": ["b"]}}})
    assert order(m, {"n1": {"f": ("a",)}, "n2": {"g": ("b",)}}) == ["l", "s"]


@pytest.mark.parametrize("first", ["beta", "alpha"])
def test_label_tie_break_ascending(first):  # 12, in both file orders
    variants = {"beta": {"n": {"f": ["a"]}}, "alpha": {"n": {"f": ["a", "b"]}}}
    if first == "alpha":
        variants = dict(reversed(list(variants.items())))
    m = md(["n"], variants)
    assert order(m, {"n": {"f": ("a", "b")}}) == ["alpha", "beta"]


def test_null_last_and_alone_when_nothing_fits():  # 13
    m = md(["gpu"], {"gpu1": {"gpu": {"rt": ["9"]}}, "null": {}})
    assert order(m, {}) == ["null"]


def test_feature_override_v003():  # 20
    m = md(["n"], {"a": {"n": {"f": ["1"]}}, "b": {"n": {"g": ["1"]}}}, feature={"n": ["g"]})
    assert order(m, {"n": {"f": ("1",), "g": ("1",)}}) == ["b", "a"]
    m2 = md(["n"], {"a": {"n": {"f": ["1"]}}, "b": {"n": {"g": ["1"]}}})
    assert order(m2, {"n": {"f": ("1",), "g": ("1",)}}) == ["a", "b"]


def test_maintainer_property_override():  # 19
    m = md(["simd"], {"v4": {"simd": {"level": ["v4"]}}, "v3": {"simd": {"level": ["v3"]}}},
           property={"simd": {"level": ["v3"]}})
    assert order(m, {"simd": {"level": ("v4", "v3")}}) == ["v3", "v4"]


def test_static_order_and_user_override():  # 18
    m = md(["blas"], {"ob": {"blas": {"lib": ["openblas"]}}, "mk": {"blas": {"lib": ["mkl"]}}})
    sup = {"blas": {"lib": ("openblas", "mkl")}}
    assert order(m, sup) == ["ob", "mk"]
    assert order(m, sup, prefs=Preferences(properties={"blas": {"lib": ("mkl",)}})) == ["mk", "ob"]


def test_user_preferences_never_make_anything_compatible():
    m = md(["simd"], {"v4": {"simd": {"level": ["v4"]}}, "v2": {"simd": {"level": ["v2"]}}})
    prefs = Preferences(properties={"simd": {"level": ("v4",)}})
    assert order(m, {"simd": {"level": ("v3", "v2")}}, prefs=prefs) == ["v2"]


def test_excluded_labels():
    m = md(["simd"], {"v3": {"simd": {"level": ["v3"]}}, "null": {}})
    r = rank_variants(m, {"simd": {"level": ("v3",)}}, exclude=["v3"])
    assert r.order == ("null",) and r.rejected["v3"].reason == "excluded"


def test_labels_not_in_metadata_are_rejected():  # 4
    m = md(["simd"], {"fast": {"simd": {"level": ["v2"]}}})
    r = rank_variants(m, {"simd": {"level": ("v3", "v2")}}, labels=["fast", "slow"])
    assert r.order == ("fast",) and r.rejected["slow"].reason == "not-in-metadata"


def test_providers_worked_example_5_2():
    lower = tuple(f"12.{i}" for i in range(8, -1, -1)) + ("12",)
    sm = tuple(f"8{i}_real" for i in range(9, -1, -1)) + ("80_virtual",)
    m = md(["nvidia", "x86_64"], {
        "a": {"nvidia": {"cuda_version_lower_bound": ["12.6"], "sm_arch": ["89_real"]}, "x86_64": {"level": ["v3"]}},
        "b": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["80_virtual"]}},
        "c": {"x86_64": {"level": ["v3"]}},
        "d": {"nvidia": {"cuda_version_lower_bound": ["12.9"]}},
        "null": {},
    })
    sup = {"nvidia": {"cuda_version_lower_bound": lower, "cuda_version_upper_bound": ("15.20",), "sm_arch": sm},
           "x86_64": {"level": ("v3", "v2", "v1")}}
    r = rank_variants(m, sup)
    assert r.order == ("b", "a", "c", "null")
    assert "d" in r.rejected


def test_static_blas_best_value():  # PROVIDERS.md §7 test 10
    m = md(["blas_lapack"], {"accelerate": {"blas_lapack": {"library": ["accelerate"]}},
                             "mkl": {"blas_lapack": {"library": ["mkl"]}},
                             "openblas_or_accelerate": {"blas_lapack": {"library": ["accelerate", "openblas"]}}})
    sup = {"blas_lapack": {"library": ("openblas", "mkl", "accelerate")}}
    assert order(m, sup) == ["openblas_or_accelerate", "mkl", "accelerate"]


def test_find_incompatibility_null():
    assert find_incompatibility("null", {}, {}) is None


def test_matching_properties_keeps_what_the_machine_matched():
    from pip_variants.selection import matching_properties

    props = {"amd": {"gfx_arch": ("gfx1030", "gfx1100", "gfx942"), "rocm_version": ("6.4",)}}
    supported = {"amd": {"gfx_arch": ("gfx942",), "rocm_version": ("6.4", "6.3")}}
    assert matching_properties(props, supported) == {"amd": {"gfx_arch": ("gfx942",), "rocm_version": ("6.4",)}}
    # nothing supported (a build forced with --variant): the wheel's own values
    assert matching_properties(props, {}) == props
    assert matching_properties({}, supported) == {}
