"""The ABI-dependency provider (PROVIDERS.md §2.7): values, sources, selection."""

import pytest

from pip_variants.abi import (
    AbiContext,
    AbiRequirement,
    feature_project,
    parse_override,
    parse_value,
    profile_versions,
    supported_values,
    value_matches,
)
from pip_variants.engine import VariantEngine, VariantSettings
from pip_variants.metadata import parse_metadata
from pip_variants.support import SupportSettings

V020 = "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json"


@pytest.mark.parametrize("value, version, fits", [
    ("2", "2.9.1", True), ("2.9", "2.9.0", True), ("2.9", "2.9.0rc1", True), ("2.9", "2.10.0", False),
    ("2.8.0", "2.8", True), ("2.8.0", "2.8.0.post1", True), ("2.9", "2.9.0+cu128", True), ("2.0", "2", True), ("2.0", "2.1", False),
    ("2.9", "1!2.9.0", False),  # other epochs are unsupported
    ("2.9.0.1", "2.9.0.1", False),  # at most three components
    ("v2", "2.0", False), ("2.9", "not a version", False),
])
def test_value_matches_like_a_prefix_specifier(value, version, fits):
    assert value_matches(value, version) is fits


def test_parse_value_and_feature_names():
    assert parse_value("2.9") == (2, 9) and parse_value("2.9.x") is None and parse_value("") is None
    assert feature_project("torch_like") == "torch-like" == feature_project("Torch.Like")


def test_override_variable_is_parsed_and_bad_entries_named():
    versions, problems = parse_override(" torch==2.9.0, Numpy_Lib==2.1 ,broken, x==nope,")
    assert versions == {"torch": "2.9.0", "numpy-lib": "2.1"}
    assert len(problems) == 2 and "'broken'" in problems[0] and "VARIANT_ABI_DEPENDENCY" in problems[0]


def test_supported_values_fixed_and_resolver_order():
    declared = ["2.9", "2", "2.8", "2.9.1", "bogus"]
    # fixed: matching values, least specific first (variantlib's X, X.Y, X.Y.Z)
    assert supported_values(declared, "2.9.1") == ("2", "2.9", "2.9.1")
    assert supported_values(declared, "3.0") == ()
    # the resolver chooses: every valid value, newest first
    assert supported_values(declared, None) == ("2.9.1", "2.9", "2.8", "2")


@pytest.mark.parametrize("values, spec", [
    (("2.9",), "==2.9.*"), (("2", "2.9"), "==2.*"), (("2.8", "2.9"), None),
])
def test_requirement_specifier_is_exact_or_absent(values, spec):
    req = AbiRequirement("torch", values)
    assert req.specifier() == spec
    assert req.contains("2.9.0") and not req.contains("3.0")


def test_union_requirement_text():
    assert str(AbiRequirement("torch", ("2.8", "2.9"))) == "torch==2.8.* or torch==2.9.*"


def test_source_ladder_override_profile_installed_resolver():
    ctx = AbiContext.from_environment(
        {"VARIANT_ABI_DEPENDENCY": "torch==2.7.1"},
        profile={"abi_dependency": {"numpy": ["2.1.0"], "scipy": ["nope", "1.14"]}},
    )
    ctx.bind(lambda: {"torch": "2.9.0", "jax": "0.4.30", "cupy": "13.0"}, named=["CuPy"])
    assert (ctx.source_for("torch").version, ctx.source_for("torch").origin) == ("2.7.1", "VARIANT_ABI_DEPENDENCY")
    assert ctx.source_for("numpy").origin == "profile"
    assert ctx.source_for("scipy").version == "1.14"
    jax = ctx.source_for("jax")
    assert (jax.version, jax.origin, jax.binds) == ("0.4.30", "installed", True)
    assert "installed" in jax.describe()
    # named in the command, or absent: the resolver's choice
    assert ctx.source_for("cupy").origin == "resolver" and ctx.source_for("absent").version is None
    ctx.bind(lambda: {"jax": "0.4.30"}, named=[], all_changing=True)
    assert ctx.source_for("jax").origin == "resolver"
    # named without --upgrade: still the resolver's, but pip keeps the installed version if it can
    ctx.bind(lambda: {"jax": "0.4.30"}, named=["jax"], kept=["jax"])
    jax = ctx.source_for("jax")
    assert (jax.version, jax.origin, jax.preferred, jax.binds) == (None, "resolver", "0.4.30", True)
    assert "installed 0.4.30 first" in jax.describe()
    ctx.bind(lambda: {"jax": "0.4.30"}, named=["jax"], all_changing=True, kept=["jax"])
    assert ctx.source_for("jax").preferred is None


def test_preferred_values_come_first_then_newest():
    declared = ["2.7", "2.8", "2.9", "2", "2.8.1"]
    assert supported_values(declared, None) == ("2.9", "2.8.1", "2.8", "2.7", "2")
    assert supported_values(declared, None, preferred="2.8.1") == ("2", "2.8", "2.8.1", "2.9", "2.7")
    assert supported_values(declared, None, preferred="3.0") == ("2.9", "2.8.1", "2.8", "2.7", "2")


def test_profile_versions_ignores_other_namespaces():
    assert profile_versions({"nvidia": {"sm_arch": ["90_real"]}}) == {}
    assert profile_versions(None) == {}


def release(pd: bool = True, extra_plain_ns: bool = False):
    if pd:
        doc = {
            "$schema": V020,
            "default-priorities": {"namespace": ["blas"]},
            "providers": {"blas": {"static-properties": {"lib": ["mkl", "openblas"]}}},
            "variants": {
                "t28_mkl": {"blas": {"lib": ["mkl"]}, "abi_dependency": {"torch": ["2.8"]}},
                "t29_mkl": {"blas": {"lib": ["mkl"]}, "abi_dependency": {"torch": ["2.9"]}},
                "t29_ob": {"blas": {"lib": ["openblas"]}, "abi_dependency": {"torch": ["2.9"]}},
                "null": {},
            },
        }
    else:
        doc = {
            "$schema": V020,
            "default-priorities": {"namespace": ["abi", "blas"]},
            "providers": {"abi": {"builtin": "abi_dependency"},
                          "blas": {"static-properties": {"lib": ["mkl", "openblas"]}}},
            "variants": {
                "t28_mkl": {"blas": {"lib": ["mkl"]}, "abi": {"torch": ["2.8"]}},
                "t29_mkl": {"blas": {"lib": ["mkl"]}, "abi": {"torch": ["2.9"]}},
                "t29_ob": {"blas": {"lib": ["openblas"]}, "abi": {"torch": ["2.9"]}},
                "null": {},
            },
        }
    return parse_metadata(doc, "attn-1.0-variants.json")


def engine(installed=None, named=(), env=None, profile=None, kept=()):
    ctx = AbiContext.from_environment(env or {}, profile=profile)
    ctx.bind(lambda: dict(installed or {}), named, kept=kept)
    return VariantEngine(VariantSettings(support=SupportSettings(abi=ctx)))


def test_a_named_installed_version_kept_without_upgrade_ranks_its_builds_first():
    sel = engine({"torch": "2.8.0"}, named=["torch"], kept=["torch"]).select("attn", "1.0", release())
    assert sel.order == ("t28_mkl", "t29_mkl", "t29_ob", "null")  # the others stay, for the resolver
    assert [str(r) for r in sel.abi["t29_mkl"]] == ["torch==2.9.*"]
    # with --upgrade, newest first as before
    sel = engine({"torch": "2.8.0"}, named=["torch"]).select("attn", "1.0", release())
    assert sel.order == ("t29_mkl", "t28_mkl", "t29_ob", "null")


def test_pd_namespace_ranks_last_and_the_resolver_gets_every_build():
    sel = engine().select("attn", "1.0", release())
    # blas first (listed), abi_dependency appended last: newest torch within each blas value
    assert sel.order == ("t29_mkl", "t28_mkl", "t29_ob", "null")
    assert [str(r) for r in sel.abi["t28_mkl"]] == ["torch==2.8.*"]
    assert "null" not in sel.abi
    assert sel.abi_sources[0].origin == "resolver"


def test_p850_builtin_ranks_where_listed():
    sel = engine().select("attn", "1.0", release(pd=False))
    assert sel.order == ("t29_mkl", "t29_ob", "t28_mkl", "null")


def test_installed_version_fixes_the_build_and_still_binds():
    sel = engine(installed={"torch": "2.8.0"}).select("attn", "1.0", release())
    assert sel.order == ("t28_mkl", "null")
    assert [str(r) for r in sel.abi["t28_mkl"]] == ["torch==2.8.*"]
    why = str(sel.rejected["t29_mkl"])
    assert "abi_dependency :: torch :: 2.9" in why and "torch 2.8.0 (installed" in why


def test_named_installed_project_is_the_resolvers_choice():
    sel = engine(installed={"torch": "2.8.0"}, named=["torch"]).select("attn", "1.0", release())
    assert sel.order[:2] == ("t29_mkl", "t28_mkl")


def test_override_fixes_without_binding():
    sel = engine(installed={"torch": "2.9.0"}, env={"VARIANT_ABI_DEPENDENCY": "torch==2.8.3"}).select(
        "attn", "1.0", release())
    assert sel.order == ("t28_mkl", "null") and sel.abi == {}
    assert "VARIANT_ABI_DEPENDENCY" in sel.abi_sources[0].describe()


def test_profile_fixes_without_binding():
    sel = engine(profile={"abi_dependency": {"torch": ["2.9.0"]}}).select("attn", "1.0", release())
    assert sel.order == ("t29_mkl", "t29_ob", "null") and sel.abi == {}


def test_user_can_disable_the_namespace():
    ctx = AbiContext()
    ctx.bind(dict, ())
    eng = VariantEngine(VariantSettings(support=SupportSettings(abi=ctx, disabled=("abi_dependency",))))
    assert eng.select("attn", "1.0", release()).order == ("null",)


@pytest.mark.parametrize("declared", [["1", "01"], ["01", "1"], ["001", "01", "1"]])
def test_supported_values_order_is_total(declared):
    # "1" and "01" parse alike: the order may not come from a set's (PYTHONHASHSEED's)
    assert supported_values(declared, "1.2")[0] == "1"
    assert supported_values(declared, None)[0] == "1"
    assert supported_values(declared, None) == supported_values(sorted(declared, reverse=True), None)
