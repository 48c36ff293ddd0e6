"""--variant-config: variantlib's variants.toml priorities (WHEEL-VARIANTS.md §7.2, CFG-6)."""

import json

import pytest

from pip_variants.engine import VariantEngine, VariantSettings
from pip_variants.metadata import parse_metadata
from pip_variants.selection import Preferences
from pip_variants.variant_config import InvalidVariantConfig, load_variant_config, parse_variant_config

TOML = """\
namespace_priorities = ["x86_64", "nvidia"]
feature_priorities.nvidia = ["sm_arch"]
property_priorities.x86_64.level = ["v4"]
property_priorities.blas.lib = ["mkl", "openblas"]
"""


def test_reads_variantlibs_format(tmp_path):
    path = tmp_path / "variants.toml"
    path.write_text(TOML)
    config = load_variant_config(str(path))
    assert config.preferences == Preferences(
        ("x86_64", "nvidia"), {"nvidia": ("sm_arch",)},
        {"x86_64": {"level": ("v4",)}, "blas": {"lib": ("mkl", "openblas")}},
    )
    assert config.enable_optional == ()


def test_json_and_enable_optional(tmp_path):
    path = tmp_path / "prefs.json"
    path.write_text(json.dumps({"namespace_priorities": ["blas"], "enable_optional_plugins": True}))
    config = load_variant_config(str(path))
    assert config.preferences.namespaces == ("blas",) and config.enable_optional == (":all:",)
    assert parse_variant_config({"enable_optional_plugins": ["dbg"]}).enable_optional == ("dbg",)
    assert parse_variant_config({}).preferences == Preferences()


def test_variantlibs_own_template_with_empty_lists_is_read(tmp_path):
    path = tmp_path / "variants.toml"  # as variantlib's variants.dist.toml writes them
    path.write_text("namespace_priorities = [ ]\nfeature_priorities = [ ]\nproperty_priorities = [ ]\n")
    assert load_variant_config(str(path)).preferences == Preferences()


@pytest.mark.parametrize("data, words", [
    ({"namespace_priority": ["x"]}, "unknown keys ['namespace_priority']"),
    ({"namespace_priorities": "x86_64"}, "namespace_priorities must be a list"),
    ({"namespace_priorities": ["X86"]}, "namespace_priorities must be a list of namespaces"),
    ({"feature_priorities": ["sm_arch"]}, "feature_priorities must be a table"),
    ({"feature_priorities": {"nvidia": "sm_arch"}}, "feature_priorities.nvidia must be a list"),
    ({"property_priorities": {"x86_64": ["v4"]}}, "property_priorities.x86_64 must be a table"),
    ({"property_priorities": {"x86_64": {"level": ["V4!"]}}}, "property_priorities.x86_64.level must be a list"),
    ({"enable_optional_plugins": "yes"}, "enable_optional_plugins must be a list"),
    ([], "top level must be a table"),
])
def test_bad_documents_name_the_key(data, words):
    with pytest.raises(InvalidVariantConfig, match=r"^variant config cfg\.toml: ") as info:
        parse_variant_config(data, "cfg.toml")
    assert words in str(info.value)


def test_unreadable_files_name_the_file(tmp_path):
    with pytest.raises(InvalidVariantConfig, match="missing.toml: cannot be read"):
        load_variant_config(str(tmp_path / "missing.toml"))
    broken = tmp_path / "broken.toml"
    broken.write_text("namespace_priorities = [")
    with pytest.raises(InvalidVariantConfig, match="broken.toml: not valid TOML"):
        load_variant_config(str(broken))


# WHEEL-VARIANTS.md §6.4's example (P1): the user's namespace order goes first (§11 #21)
P1 = {
    "$schema": "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json",
    "default-priorities": {"namespace": ["nvidia", "x86_64", "blas"]},
    "providers": {
        "nvidia": {"static-properties": {"cuda_version_lower_bound": ["12.8", "12.6"]}},
        "x86_64": {"static-properties": {"level": ["v4", "v3"]}},
        "blas": {"static-properties": {"lib": ["mkl", "openblas"]}},
    },
    "variants": {
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}},
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
        "v4_mkl": {"x86_64": {"level": ["v4"]}, "blas": {"lib": ["mkl"]}},
        "v3_openblas": {"x86_64": {"level": ["v3"]}, "blas": {"lib": ["openblas"]}},
        "v3": {"x86_64": {"level": ["v3"]}},
        "null": {},
    },
}


def _order(config_text, tmp_path):
    path = tmp_path / "variants.toml"
    path.write_text(config_text)
    settings = VariantSettings(preferences=load_variant_config(str(path)).preferences)
    return VariantEngine(settings).select("pkg", "1.0", parse_metadata(P1, "pkg-1.0-variants.json")).order


def test_user_namespace_order_comes_first(tmp_path):
    assert _order("", tmp_path) == ("cu128", "cu126", "v4_mkl", "v3_openblas", "v3", "null")
    assert _order('namespace_priorities = ["x86_64"]\n', tmp_path) == (
        "v4_mkl", "v3_openblas", "v3", "cu128", "cu126", "null")


def test_user_property_order_goes_before_the_packages(tmp_path):
    # "v5" is no value of the package's: it adds nothing, v3 now ranks first among the levels
    assert _order('property_priorities.x86_64.level = ["v5", "v3"]\n', tmp_path) == (
        "cu128", "cu126", "v3_openblas", "v3", "v4_mkl", "null")
