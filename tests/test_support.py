"""The provider ladder (PROVIDERS.md §3.3) and engine-level behaviours."""

import json
import sys
from pathlib import Path
from typing import Optional

import pytest

from pip_variants.engine import VariantEngine, VariantLabelNotFound, VariantSettings, parse_forced, VariantError
from pip_variants.metadata import parse_metadata
from pip_variants.profile import load_profile
from pip_variants.providers.base import ProviderError
from pip_variants.support import StrictVariantError, SupportResolver, SupportSettings

V020 = "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json"
NVIDIA = {"requires": ["nvidia-variant-provider>=0.0.1,<1"], "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin"}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for var in ("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH",
                "PIP_VARIANTS_X86_64_LEVEL", "TPU_VARIANT_PROVIDER_FORCE_PRESENT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PIP_VARIANTS_CACHE_DIR", str(tmp_path / "cache"))


def release(providers, variants, namespaces=None):
    return parse_metadata({
        "$schema": V020,
        "default-priorities": {"namespace": namespaces or list(providers)},
        "providers": providers,
        "variants": variants,
    }, "pkg-1.0-variants.json")


CUDA = release({"nvidia": NVIDIA}, {
    "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
    "cu124": {"nvidia": {"cuda_version_lower_bound": ["12.4"]}},
    "cu12": {"nvidia": {"cuda_version_lower_bound": ["12"]}},
})


@pytest.mark.parametrize("driver, expected", [
    ("12.4", ["cu124", "cu12"]),        # PROVIDERS.md §7 test 1
    ("12.8", ["cu126", "cu124", "cu12"]),  # test 2
    ("12", ["cu12"]),
    ("11.8", []),
    ("16.0", ["cu126", "cu124", "cu12"]),  # overrides are not range-checked
])
def test_cuda_driver_override(monkeypatch, driver, expected):
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", driver)
    assert list(VariantEngine().select("pkg", "1.0", CUDA).order) == expected


def test_invalid_override_is_a_warning_not_a_crash(monkeypatch):
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "abc")
    sel = VariantEngine().select("pkg", "1.0", CUDA)
    assert sel.order == ()
    assert any("nvidia" in n for n in sel.notices)


def test_invalid_override_strict_is_fatal(monkeypatch):
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "abc")
    engine = VariantEngine(VariantSettings(support=SupportSettings(strict=True)))
    with pytest.raises(StrictVariantError):
        engine.select("pkg", "1.0", CUDA)


def test_sm_arch_override(monkeypatch):  # test 4
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.8")
    md = release({"nvidia": NVIDIA}, {
        "sm90": {"nvidia": {"sm_arch": ["90_real"]}}, "sm89": {"nvidia": {"sm_arch": ["89_real"]}},
        "sm86": {"nvidia": {"sm_arch": ["86_real"]}}, "sm80v": {"nvidia": {"sm_arch": ["80_virtual"]}}})
    for cc, expected in [("8.9", ["sm89", "sm86", "sm80v"]), ("9.0", ["sm90"]), ("8.0", ["sm80v"]),
                         ("10.0", []), ("7.5", [])]:
        monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_SM_ARCH", cc)
        assert list(VariantEngine().select("pkg", "1.0", md).order) == expected, cc


def test_static_optional_needs_enabling():  # test 12 / §11 behaviour 16
    md = release({"dbg": {"static-properties": {"build": ["debug"]}, "optional": True}},
                 {"d": {"dbg": {"build": ["debug"]}}})
    sel = VariantEngine().select("pkg", "1.0", md)
    assert sel.order == ()
    assert any("--variant-enable dbg" in n for n in sel.notices)
    enabled = VariantEngine(VariantSettings(support=SupportSettings(enabled_optional=("dbg",))))
    assert enabled.select("pkg", "1.0", md).order == ("d",)


def test_an_optional_namespace_is_mentioned_only_where_enabling_it_could_change_the_choice(monkeypatch):
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.8")
    md = release({"nvidia": NVIDIA, "dbg": {"static-properties": {"build": ["debug"]}, "optional": True}},
                 {"cu": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
                  "d": {"dbg": {"build": ["debug"]}}, "null": {}})
    sel = VariantEngine().select("pkg", "1.0", md)
    assert sel.order == ("cu", "null")
    assert sel.notices == ()  # 'cu' outranks 'd' anyway: nvidia comes first
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "11.8")
    sel = VariantEngine().select("pkg", "1.0", md)
    assert sel.order == ("null",)
    assert any("--variant-enable dbg" in n for n in sel.notices)
    forced = VariantEngine(VariantSettings(forced={"pkg": "null"})).select("pkg", "1.0", md)
    assert forced.notices == ()  # the user chose


def test_a_build_needing_two_optional_namespaces_keeps_both_notices():
    static = {f"{ns}": {"static-properties": {"f": ["x"]}, "optional": True} for ns in ("a", "b")}
    md = release({**static, "c": {"static-properties": {"f": ["x"]}}},
                 {"ab": {"a": {"f": ["x"]}, "b": {"f": ["x"]}}, "c": {"c": {"f": ["x"]}}, "null": {}},
                 namespaces=["a", "b", "c"])
    sel = VariantEngine().select("pkg", "1.0", md)
    assert sel.order == ("c", "null")
    assert sorted(n.split("'")[1] for n in sel.notices) == ["a", "b"]
    both = VariantEngine(VariantSettings(support=SupportSettings(enabled_optional=("a", "b"))))
    assert both.select("pkg", "1.0", md).order[0] == "ab"


def test_untrusted_plugin_is_never_run():  # test 13 / §11 behaviour 22
    md = release({"fictional": {"requires": ["provider-fictional-hw"]}},
                 {"hw": {"fictional": {"tech": ["x"]}}, "null": {}})
    calls = []
    engine = VariantEngine(plugin_installer=lambda reqs: calls.append(reqs) or "/nowhere")
    sel = engine.select("pkg", "1.0", md)
    assert sel.order == ("null",)
    assert calls == []
    assert any("--allow-variant-plugin provider-fictional-hw" in n for n in sel.notices)


@pytest.mark.parametrize("entry", [
    {"requires": ["nvidia-variant-provider>=5"]},
    {"requires": ["nvidia-variant-provider==0.0.1"], "plugin-api": "other_module:Plugin"},
])
def test_a_plugin_release_the_builtin_is_not_stands_untrusted(monkeypatch, entry):  # test 14, PV-16
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.8")
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "9.0")
    md = release({"nvidia": entry}, {"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}, "null": {}})
    calls = []
    sel = VariantEngine(plugin_installer=lambda reqs: calls.append(reqs) or "/nowhere").select("pkg", "1.0", md)
    assert sel.order == ("null",) and calls == []
    assert any("--allow-variant-plugin nvidia-variant-provider" in n for n in sel.notices), sel.notices
    served = release({"nvidia": {"requires": ["nvidia-variant-provider>=0.0.2,<1.0.0"]}},
                     {"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}, "null": {}})
    assert VariantEngine().select("pkg", "1.0", served).order == ("cu128", "null")


def test_builtin_abi_dependency_is_answered_by_the_abi_provider():  # test 16, now implemented
    md = release({"abi": {"builtin": "abi_dependency"}}, {"t29": {"abi": {"torch": ["2.9"]}}})
    sel = VariantEngine().select("pkg", "1.0", md)
    assert sel.order == ("t29",) and not sel.notices  # torch absent here: the resolver chooses
    assert [str(r) for r in sel.abi["t29"]] == ["torch==2.9.*"]


def test_unknown_builtin_is_skipped_with_notice():
    md = release({"abi": {"builtin": "gpu_magic"}}, {"t29": {"abi": {"torch": ["2.9"]}}})
    sel = VariantEngine().select("pkg", "1.0", md)
    assert sel.order == () and any("gpu_magic" in n for n in sel.notices)


@pytest.mark.parametrize("entry, words", [
    ({"requires": ["blas-provider>=1 garbage"], "plugin-api": "blas_provider:P"}, "no usable 'requires' entry"),
    ({"requires": ["blas-provider"], "enable-if": "'cuda' in extras"}, "UndefinedEnvironmentName"),
    ({"requires": ["blas-provider==1..2"], "plugin-api": "blas_provider:P"}, "cannot be used"),
])
def test_an_unusable_provider_entry_turns_off_its_namespace_only(entry, words):
    """Bad 'requires' or 'enable-if' text in an index's file: that namespace is
    skipped with a notice, never an exception that would switch pip-variants off."""
    md = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
        "default-priorities": {"namespace": ["blas_lapack", "nvidia"]},
        "providers": {"blas_lapack": entry, "nvidia": NVIDIA},
        "variants": {"ob": {"blas_lapack": {"library": ["openblas"]}}},
    }, "pkg-1.0-variants.json")
    resolver = SupportResolver(SupportSettings())
    answer = resolver.namespace_support(md.provider("blas_lapack"))
    assert answer.source in ("failed", "disabled") and not answer.features
    assert words in (answer.notice or ""), answer
    assert resolver.namespace_support(md.provider("nvidia")).source == "builtin:nvidia"  # the rest goes on


@pytest.mark.parametrize("entry, words", [
    ({"requires": ["blas-provider>=1 garbage"], "plugin-api": "blas_provider:P"}, "no usable 'requires' entry"),
    ({"requires": ["blas-provider; sys_platform == 'no-such-os'"], "plugin-api": "blas_provider:P"},
     "excluded by its marker"),
    ({"requires": ["blas-provider==1..2"], "plugin-api": "blas_provider:P"}, "cannot be used"),
    ({"requires": ["blas-provider @ https://example.invalid/p.tar.gz"]}, "not installed and not trusted"),
])
def test_strict_makes_an_unusable_provider_entry_an_error(entry, words):
    """§3.6: --variant-strict turns every provider that cannot answer into an error."""
    md = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
        "default-priorities": {"namespace": ["blas_lapack"]},
        "providers": {"blas_lapack": entry},
        "variants": {"ob": {"blas_lapack": {"library": ["openblas"]}}},
    }, "pkg-1.0-variants.json")
    with pytest.raises(StrictVariantError, match=words) as info:
        SupportResolver(SupportSettings(strict=True)).namespace_support(md.provider("blas_lapack"))
    assert "skipped" not in str(info.value)  # an error says what is wrong, not what a fallback would do
    lenient = SupportResolver(SupportSettings()).namespace_support(md.provider("blas_lapack"))
    assert lenient.source in ("failed", "untrusted") and "skipped" in (lenient.notice or "")


def test_strict_untrusted_notices_lose_only_the_fallback_words():
    """Each untrusted reason keeps its hint in strict mode and drops "its variants are skipped"."""
    md = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
        "default-priorities": {"namespace": ["blas_lapack", "other"]},
        "providers": {
            "blas_lapack": {"requires": ["blas-provider", "evil-pkg"], "plugin-api": "blas_provider:P"},
            "other": {"requires": ["other-provider @ https://example.invalid/p.tar.gz"],
                      "plugin-api": "other_provider:P"},
        },
        "variants": {"ob": {"blas_lapack": {"library": ["openblas"]}}, "o": {"other": {"f": ["v"]}}},
    }, "pkg-1.0-variants.json")
    settings = dict(allowed_plugins=("blas-provider", "other-provider"))
    installer = lambda requirements: pytest.fail("nothing may be installed")  # noqa: E731
    lenient = SupportResolver(SupportSettings(**settings), installer)
    strict = SupportResolver(SupportSettings(strict=True, **settings), installer)
    for ns, reason, hint in (
        ("blas_lapack", "also needs evil-pkg, which is not trusted", "; to allow it, pass --allow-variant-plugin evil-pkg"),
        ("other", "not from an index: pip-variants installs plugins only from the install's own indexes",
         "; install the plugin yourself to use it"),
    ):
        notice = lenient.namespace_support(md.provider(ns)).notice or ""
        assert notice.endswith(f"{reason}, so its variants are skipped{hint}"), notice
        with pytest.raises(StrictVariantError) as info:
            strict.namespace_support(md.provider(ns))
        assert str(info.value).endswith(reason + hint), str(info.value)


def test_enable_if_evaluated_against_target_environment():  # §11 behaviour 17
    md = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
        "default-priorities": {"namespace": ["x86_64"]},
        "providers": {"x86_64": {"requires": ["provider-variant-x86-64"], "enable-if": "platform_machine == 'x86_64'"}},
        "variants": {"v1": {"x86_64": {"level": ["v1"]}}},
    }, "x")
    aarch64 = SupportSettings(marker_environment={"platform_machine": "aarch64"})
    resolver = SupportResolver(aarch64)
    answer = resolver.namespace_support(md.provider("x86_64"))
    assert answer.source == "disabled" and not answer.features


def test_v011_uses_registry_and_unknown_namespace_is_unsupported(monkeypatch):  # §11 behaviour 25b
    monkeypatch.setenv("PIP_VARIANTS_X86_64_LEVEL", "v3")
    md = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
        "default-priorities": {"namespace": ["x86_64", "simd"]},
        "variants": {"v3": {"x86_64": {"level": ["v3"]}}, "s": {"simd": {"level": ["v2"]}}, "null": {}},
    }, "x")
    assert VariantEngine().select("pkg", "1.0", md).order == ("v3", "null")


def test_profile_replaces_detection(tmp_path):  # test 15
    profile = tmp_path / "gpu.json"
    profile.write_text(json.dumps({"nvidia": {"cuda_version_lower_bound": ["12.8", "12.6"],
                                              "sm_arch": ["90_real", "90_virtual"]}}))
    md = release({"nvidia": NVIDIA, "blas": {"static-properties": {"lib": ["openblas"]}}}, {
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["90_real"]}},
        "ob": {"blas": {"lib": ["openblas"]}}})
    settings = SupportSettings(profile=load_profile(str(profile)), profile_source=str(profile))
    sel = VariantEngine(VariantSettings(support=settings)).select("pkg", "1.0", md)
    assert sel.order == ("cu128", "ob")  # static entries still win over the profile (step 2)
    # what the profile lacks is said as the profile's, not this machine's
    md = release({"nvidia": NVIDIA}, {"cu130": {"nvidia": {"cuda_version_lower_bound": ["13.0"]}}, "null": {}})
    sel = VariantEngine(VariantSettings(support=settings)).select("pkg", "1.0", md)
    assert str(sel.ranking.rejected["cu130"]).endswith("; the variant profile supports 12.8, 12.6")
    assert sel.describe("null").endswith("(the null variant: no other variant fits the variant profile)")
    only_null = release({"nvidia": NVIDIA}, {"null": {}})
    sel = VariantEngine(VariantSettings(support=settings)).select("pkg", "1.0", only_null)
    assert sel.describe("null").endswith("(the null variant: the only variant on offer)")


def test_forced_label():
    md = release({"s": {"static-properties": {"f": ["a"]}}}, {"a": {"s": {"f": ["a"]}}, "b": {"s": {"f": ["b"]}}})
    engine = VariantEngine(VariantSettings(forced=parse_forced(["PKG=b"])))
    sel = engine.select("pkg", "1.0", md)
    assert sel.order == ("b",) and sel.forced_problem is not None
    assert "chosen with --variant" in sel.describe("b")
    null = release({"s": {"static-properties": {"f": ["a"]}}}, {"a": {"s": {"f": ["a"]}}, "null": {}})
    line = VariantEngine(VariantSettings(forced={"pkg": "null"})).select("pkg", "1.0", null).describe("null")
    assert line == "pkg 1.0: variant null (the null variant) (chosen with --variant)"  # "a" fits: no "nothing fits"
    with pytest.raises(VariantLabelNotFound, match="available labels: a, b"):
        VariantEngine(VariantSettings(forced={"pkg": "zzz"})).select("pkg", "1.0", md)
    with pytest.raises(VariantError, match="NAME=LABEL"):
        parse_forced(["torch"])


def test_describe_line():
    md = release({"s": {"static-properties": {"f": ["a"]}}}, {"a": {"s": {"f": ["a"]}}, "null": {}})
    sel = VariantEngine().select("torch", "2.9.0", md)
    assert sel.describe("a") == "torch 2.9.0: variant a (s :: f :: a)"
    assert sel.rank("a") > sel.rank("null") > sel.rank(None) > sel.rank("zzz")
    # "a" fits: where null is still taken (hash pins set "a" aside), it is not for want of a fit
    assert sel.describe("null") == "torch 2.9.0: variant null (the null variant)"
    unfit = release({"s": {"static-properties": {"f": ["a"]}}}, {"b": {"s": {"f": ["b"]}}, "null": {}})
    assert VariantEngine().select("t", "1", unfit).describe("null").endswith(
        "(the null variant: no other variant fits this machine)")
    excluded = VariantEngine(VariantSettings(excluded={"t": ("a",)})).select("t", "1", md)
    assert excluded.describe("null").endswith("(the null variant: --variant-exclude left out every other variant)")
    both = release({"s": {"static-properties": {"f": ["a"]}}}, {"a": {"s": {"f": ["a"]}}, "b": {"s": {"f": ["b"]}},
                                                               "null": {}})
    assert VariantEngine(VariantSettings(excluded={"t": ("a",)})).select("t", "1", both).describe("null").endswith(
        "no other variant fits this machine or was left by --variant-exclude)")


@pytest.mark.parametrize("value, why", [
    ("torch=CU128", r"a variant label is lower case \(torch=cu128\)"),
    ("torch=cu-128", "only the characters 0-9, a-z, '_' and '.'"),
    ("torch", "expected NAME=LABEL"),
    ("=cu128", "expected NAME=LABEL"),
])
def test_a_bad_variant_value_says_what_is_wrong(value, why):
    with pytest.raises(VariantError, match=why):
        parse_forced([value])


@pytest.mark.parametrize("value, why", [
    ("NVIDIA", "invalid --variant-disable value 'NVIDIA': .* did you mean 'nvidia'"),
    ("blas-lapack", "did you mean 'blas_lapack'"),
    ("nvidia::sm", r"only the characters a-z, 0-9 and '_'$"),
])
def test_a_bad_namespace_value_says_what_is_wrong(value, why):
    from pip_variants.engine import parse_namespaces

    with pytest.raises(VariantError, match=why):
        parse_namespaces([value], "--variant-disable")
    assert parse_namespaces(["nvidia", ":all:"], "--variant-enable", also=(":all:",)) == ("nvidia", ":all:")


def test_check_wheel_forced_only_for_its_project():
    md = release({"s": {"static-properties": {"f": ["a"]}}}, {"b": {"s": {"f": ["b"]}}})
    engine = VariantEngine(VariantSettings(forced={"other": "b"}))
    assert engine.check_wheel("pkg", md, "b") is not None
    assert VariantEngine(VariantSettings(forced={"pkg": "b"})).check_wheel("PKG", md, "b") is None
    assert engine.check_wheel("pkg", md, "zzz").reason == "invalid"


def test_a_plugin_answer_is_not_kept_across_processes(tmp_path, monkeypatch):
    """What a third-party plugin reads is unknown (here: a variable of its
    own), so its answer is asked again by the next process, never read from
    the persistent cache."""
    from pip_variants.providers.cache import cache_file, cached_supported_configs
    from pip_variants.support import _PluginProvider

    (tmp_path / "envplug.py").write_text(
        "import os\n"
        "def get_supported_configs():\n"
        "    return [{'name': 'arch', 'values': [os.environ['ENVPLUG_ARCH']], 'multi_value': False}]\n"
    )
    answers = []
    for arch in ("a1", "a2"):
        monkeypatch.setenv("ENVPLUG_ARCH", arch)
        monkeypatch.setattr(_PluginProvider, "_answers", {})  # the next process
        plugin = _PluginProvider("hw", "envplug", "envplug", "1.0", sys.executable, (str(tmp_path),), 30)
        answers.append([tuple(c.values) for c in cached_supported_configs(plugin)])
    assert answers == [[("a1",)], [("a2",)]]
    assert not cache_file("hw").exists()


def test_a_plugin_is_asked_once_per_process_whatever_namespace_asks(tmp_path):
    """One plugin for several namespaces (the index decides how many): a plugin
    that hangs costs its timeout once, not once per namespace."""
    from pip_variants.support import _PluginProvider

    runs = tmp_path / "runs.txt"
    (tmp_path / "countplug.py").write_text(
        "def get_supported_configs():\n"
        f"    open({str(runs)!r}, 'a').write('run\\n')\n"
        "    return [{'name': 'arch', 'values': ['x1'], 'multi_value': False}]\n"
    )
    for ns in ("hw_a", "hw_b", "hw_c"):
        plugin = _PluginProvider(ns, "countplug", "countplug", "1.0", sys.executable, (str(tmp_path),), 30)
        assert [tuple(c.values) for c in plugin.supported_configs()] == [("x1",)]
    assert runs.read_text().splitlines() == ["run"]


def _installed(site: Path, name: str, module_source: Optional[str] = None) -> None:
    module = name.replace("-", "_")
    info = site / f"{module}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    record = f"{module}-1.0.dist-info/METADATA,,\n"
    if module_source is not None:
        (site / f"{module}.py").write_text(module_source)
        record += f"{module}.py,,\n"
    (info / "RECORD").write_text(record)


def test_the_endpoint_may_live_in_any_requires_distribution_and_on_pythonpath(tmp_path, monkeypatch):
    """PV-3 ties only the default endpoint to the first entry: a plugin-api in
    another installed one runs too (as variantlib runs it). Found on this
    process's path only (PYTHONPATH), the child started with -I still finds it."""
    from pip_variants.metadata import parse_metadata

    site = tmp_path / "on-pythonpath"
    _installed(site, "provider-helper")
    _installed(site, "provider-fict-e", "def get_supported_configs():\n"
                                        "    return [{'name': 'k', 'values': ['e2', 'e1'], 'multi_value': False}]\n")
    monkeypatch.syspath_prepend(str(site))
    md = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/v0.2.0.json",
        "default-priorities": {"namespace": ["fict_e"]},
        "providers": {"fict_e": {"requires": ["provider-helper", "provider-fict-e"], "plugin-api": "provider_fict_e"}},
        "variants": {"ey": {"fict_e": {"k": ["e1"]}}},
    })
    supported, answers = SupportResolver().supported_for(md)
    assert answers[0].source == "plugin:provider_fict_e", answers[0].notice
    assert supported["fict_e"] == {"k": ("e2", "e1")}
    # an endpoint no requires distribution ships stays refused, and the notice names them all
    md.providers["fict_e"] = md.providers["fict_e"].__class__(
        "fict_e", requires=("provider-helper", "provider-fict-e"), plugin_api="unittest.mock")
    supported, answers = SupportResolver().supported_for(md)
    assert supported.get("fict_e", {}) == {}
    assert ("plugin-api 'unittest.mock' is not part of any of its 'requires' distributions "
            "(provider-helper, provider-fict-e)") in answers[0].notice


def test_an_installed_plugin_whose_dependency_is_only_on_pythonpath_runs(tmp_path, monkeypatch):
    """HPC module systems and pip install --target put a plugin's declared
    dependency on PYTHONPATH only: the runner (python -I) finds it there too."""
    from pip_variants.support import _PluginProvider

    site, target = tmp_path / "site", tmp_path / "target"
    _installed(site, "provider-fict-p", "import ppdep\n"
                                        "def get_supported_configs():\n"
                                        "    return [{'name': 'k', 'values': ppdep.VALUES, 'multi_value': False}]\n")
    _installed(target, "ppdep", "VALUES = ['p2', 'p1']\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(target))
    monkeypatch.setattr(_PluginProvider, "_answers", {})  # a fresh process
    md = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/v0.2.0.json",
        "default-priorities": {"namespace": ["fict_p"]},
        "providers": {"fict_p": {"requires": ["provider-fict-p"]}},
        "variants": {"p1": {"fict_p": {"k": ["p1"]}}},
    })
    supported, answers = SupportResolver().supported_for(md)
    assert answers[0].source == "plugin:provider_fict_p", answers[0].notice
    assert supported["fict_p"] == {"k": ("p2", "p1")}


def test_an_endpoint_registered_as_an_entry_point_is_found_beside_a_malformed_one(tmp_path, monkeypatch):
    from pip_variants.support import _ships_endpoint

    site = tmp_path / "site"
    _installed(site, "provider-ep")
    (site / "provider_ep-1.0.dist-info" / "entry_points.txt").write_text(
        "[console_scripts]\nbad = not a valid ref\na line without an equals sign\n\n"
        "[variant_plugins]\nmine = helper_mod : Plugin\n")
    monkeypatch.syspath_prepend(str(site))
    assert _ships_endpoint("provider-ep", "helper_mod:Plugin")
    assert not _ships_endpoint("provider-ep", "other_mod:Plugin")


def test_an_installed_plugin_outside_the_requires_range_is_not_called_missing(tmp_path, monkeypatch):
    from pip_variants.metadata import parse_metadata

    site = tmp_path / "site"
    _installed(site, "provider-fict-a", "def get_supported_configs():\n    return []\n")
    monkeypatch.syspath_prepend(str(site))
    md = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/v0.2.0.json",
        "default-priorities": {"namespace": ["fict_a"]},
        "providers": {"fict_a": {"requires": ["provider-fict-a>=2"]}},
        "variants": {"a": {"fict_a": {"k": ["a"]}}},
    })
    _, answers = SupportResolver().supported_for(md)
    assert answers[0].source == "untrusted"
    assert ("variant provider 'provider-fict-a' for namespace 'fict_a' is installed as 1.0, but the release needs "
            "provider-fict-a>=2") in answers[0].notice
    assert 'pip install "provider-fict-a>=2"' in answers[0].notice  # quoted as every shell reads it


def test_an_editable_plugin_without_an_entry_point_is_refused_with_what_to_do(tmp_path, monkeypatch):
    """An editable install lists no module files: nothing ties the module an
    index names to it, so it is refused, and the warning says how to register it."""
    import json

    from pip_variants.metadata import parse_metadata

    project = tmp_path / "acme-project"
    (project / "acme_variant_provider").mkdir(parents=True)
    (project / "acme_variant_provider" / "__init__.py").write_text("")
    (project / "acme_variant_provider" / "plugin.py").write_text("class AcmePlugin: pass\n")
    info = tmp_path / "site" / "acme_variant_provider-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-variant-provider\nVersion: 1.0\n")
    (info / "RECORD").write_text("_acme_variant_provider.pth,,\nacme_variant_provider-1.0.dist-info/METADATA,,\n")
    (info / "direct_url.json").write_text(json.dumps({"url": project.as_uri(), "dir_info": {"editable": True}}))
    monkeypatch.syspath_prepend(str(project))  # what the editable .pth does
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    md = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/v0.2.0.json",
        "default-priorities": {"namespace": ["acme"]},
        "providers": {"acme": {"requires": ["acme-variant-provider"],
                               "plugin-api": "acme_variant_provider.plugin:AcmePlugin"}},
        "variants": {"a1": {"acme": {"arch": ["a1"]}}},
    })
    supported, answers = SupportResolver().supported_for(md)
    assert supported.get("acme", {}) == {} and answers[0].source == "untrusted"
    assert "is not part of 'acme-variant-provider' (an editable install lists none" in answers[0].notice
    assert "'variant_plugins' entry-point group" in answers[0].notice


def test_plugin_timeout_comes_from_the_environment_for_every_caller(monkeypatch):
    from pip_variants.support import SupportSettings

    monkeypatch.setenv("PIP_VARIANTS_PLUGIN_TIMEOUT", "2.5")
    assert SupportSettings().plugin_timeout == 2.5  # the CLI's settings, as pip's
    for bad in ("abc", "0", "-1", ""):
        monkeypatch.setenv("PIP_VARIANTS_PLUGIN_TIMEOUT", bad)
        assert SupportSettings().plugin_timeout == 30.0
    assert SupportSettings(plugin_timeout=7).plugin_timeout == 7


def test_strict_makes_an_untrusted_plugin_an_error():  # §11 behaviour 22, strict half
    md = release({"fictional": {"requires": ["provider-fictional-hw"]}},
                 {"hw": {"fictional": {"tech": ["x"]}}, "null": {}})
    engine = VariantEngine(VariantSettings(support=SupportSettings(strict=True)),
                           plugin_installer=lambda reqs: "/nowhere")
    with pytest.raises(StrictVariantError, match="not installed and not trusted; to allow it, pass "
                                                 "--allow-variant-plugin provider-fictional-hw"):
        engine.select("pkg", "1.0", md)
    # where nothing can be installed aside (pip-variants check): install it here, or use a profile
    checking = VariantEngine(VariantSettings(support=SupportSettings(strict=True)))
    with pytest.raises(StrictVariantError, match="install it here to let pip-variants ask it"):
        checking.select("pkg", "1.0", md)
    static = release({"blas": {"static-properties": {"lib": ["mkl"]}}}, {"mkl": {"blas": {"lib": ["mkl"]}}})
    assert engine.select("pkg", "1.0", static).order == ("mkl",)  # nothing to trust: unaffected


def test_a_namespace_no_variant_uses_asks_no_provider():
    # PEP 825 lets default-priorities list a namespace no variant uses: its
    # provider is neither run nor reported, and strict mode has nothing to refuse.
    md = release({"blas": {"static-properties": {"library": ["openblas"]}},
                  "fictional": {"requires": ["provider-fictional-hw"]}},
                 {"ob": {"blas": {"library": ["openblas"]}}, "null": {}})
    for strict in (False, True):
        sel = VariantEngine(VariantSettings(support=SupportSettings(strict=strict))).select("pkg", "1.0", md)
        assert sel.order == ("ob", "null")
        assert [a.namespace for a in sel.answers] == ["blas"]
        assert sel.notices == ()


X86_WHEELNEXT = {"requires": ["provider-variant-x86-64"], "plugin-api": "provider_variant_x86_64.plugin:X8664Plugin"}
X86_UV = {"requires": ["x86-64-variant-provider"]}
X86_VARIANTS = {"bf16": {"x86_64": {"avx512_bf16": ["on"]}}, "v3": {"x86_64": {"level": ["v3"]}}, "null": {}}


def _fake_wheelnext_x86_plugin(folder):
    """What WheelNext's plugin answers on an AVX-512 BF16 machine, as an installed distribution."""
    package = folder / "provider_variant_x86_64"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "plugin.py").write_text(
        "class X8664Plugin:\n"
        "    namespace = 'x86_64'\n"
        "    @staticmethod\n"
        "    def get_supported_configs(known_properties=None):\n"
        "        return [{'name': 'level', 'values': ['v4', 'v3', 'v2', 'v1']},\n"
        "                {'name': 'avx512_bf16', 'values': ['on']}]\n"
    )
    info = folder / "provider_variant_x86_64-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: provider-variant-x86-64\nVersion: 0.0.1\n")
    (info / "RECORD").write_text("provider_variant_x86_64/__init__.py,,\nprovider_variant_x86_64/plugin.py,,\n")
    return str(folder)


def test_a_release_using_more_than_the_x86_64_stand_in_answers_asks_the_plugin(monkeypatch, tmp_path):
    """WheelNext's provider-variant-x86-64 also answers one feature per CPU
    extension; the built-in answers 'level' only. A release using an extension
    goes to the plugin where it is allowed (or installed); else the built-in
    answers, and a notice says what that leaves out and how to allow the plugin."""
    monkeypatch.setenv("PIP_VARIANTS_X86_64_LEVEL", "v3")
    md = release({"x86_64": X86_WHEELNEXT}, X86_VARIANTS)
    sel = VariantEngine().select("pkg", "1.0", md)
    assert sel.order == ("v3", "null")
    assert sel.notices[0] == (
        "variants using 'x86_64' properties beyond what pip-variants' built-in stand-in for provider-variant-x86-64 "
        "answers (level v4, v3, v2, v1) are skipped; to have provider-variant-x86-64 itself answer, install it or "
        "pass --allow-variant-plugin provider-variant-x86-64")
    def broken_installer(reqs):
        raise ProviderError("provider-variant-x86-64", "could not be installed: no index")

    allowed = SupportSettings(allowed_plugins=("provider-variant-x86-64",))
    failed = VariantEngine(VariantSettings(support=allowed), plugin_installer=broken_installer).select("pkg", "1.0", md)
    assert failed.order == ("v3", "null")  # the built-in still answers, and the notice says why the plugin did not
    assert "are skipped; provider-variant-x86-64 did not answer (variant provider provider-variant-x86-64: could " \
           "not be installed: no index" in failed.notices[0]
    installs = []
    settings = VariantSettings(support=SupportSettings(allowed_plugins=("provider-variant-x86-64",)))
    engine = VariantEngine(settings, plugin_installer=lambda reqs: installs.append(reqs) or _fake_wheelnext_x86_plugin(tmp_path / "p"))
    sel = engine.select("pkg", "1.0", md)
    assert sel.order == ("v3", "bf16", "null") and sel.notices == ()  # the plugin ranks level first
    assert installs == [["provider-variant-x86-64"]]
    # Within what the built-in answers, or for uv's plugin (level only), the built-in serves, silently.
    level_only = release({"x86_64": X86_WHEELNEXT}, {"v3": {"x86_64": {"level": ["v3"]}}, "null": {}})
    assert engine.select("pkg", "1.0", level_only).answers[0].source == "builtin:x86_64"
    assert installs == [["provider-variant-x86-64"]]
    uv = VariantEngine().select("pkg", "1.0", release({"x86_64": X86_UV}, X86_VARIANTS))
    assert uv.order == ("v3", "null") and uv.notices == ()
    arm = release({"aarch64": {"requires": ["provider-variant-aarch64"]}},
                  {"v9": {"aarch64": {"version": ["9.0a"]}}, "null": {}})  # past the built-in's 8.4a
    monkeypatch.setenv("PIP_VARIANTS_AARCH64_VERSION", "8.2a")
    assert "stand-in for provider-variant-aarch64 answers (version 8.4a, 8.3a, 8.2a, 8.1a, 8a) are skipped" in \
        VariantEngine().select("pkg", "1.0", arm).notices[0]
    monkeypatch.delenv("PIP_VARIANTS_AARCH64_VERSION")
    monkeypatch.setattr("pip_variants.providers.aarch64.is_aarch64", lambda machine=None: False)
    assert VariantEngine().select("pkg", "1.0", arm).notices == ()  # another CPU: nothing to say


def test_a_static_list_that_misses_a_declared_value_is_named_not_the_machine():
    md = release({"blas": {"static-properties": {"lib": ["openblas"]}}},
                 {"ob": {"blas": {"lib": ["openblas"]}}, "mkl": {"blas": {"lib": ["mkl"]}}})
    sel = VariantEngine().select("pkg", "1.0", md)
    assert sel.order == ("ob",)
    assert str(sel.ranking.rejected["mkl"]) == (
        "needs blas :: lib :: mkl; the release's own static properties list openblas for 'blas :: lib' "
        "(its metadata contradicts itself)")
    forced = VariantEngine(VariantSettings(forced={"pkg": "mkl"})).select("pkg", "1.0", md)
    assert "the release's own static properties list openblas" in str(forced.forced_problem)
    # Disabled by the user: neither the static list nor this machine left mkl out.
    off = VariantEngine(VariantSettings(support=SupportSettings(disabled=("blas",)))).select("pkg", "1.0", md)
    assert str(off.ranking.rejected["mkl"]) == "needs blas :: lib :: mkl; variant namespace 'blas' disabled by the user"
    assert str(off.ranking.rejected["ob"]).endswith("; variant namespace 'blas' disabled by the user")
    assert off.notices == ()  # the user asked for it: said in the reasons, not as a warning of every run
    assert off.quiet == ("blas",)


def test_a_requirement_in_a_printed_command_is_quoted_for_the_shell():
    """A ``===`` specifier takes backticks: the index must not get a command run by a paste."""
    md = parse_metadata({
        "$schema": V020,
        "default-priorities": {"namespace": ["evil"]},
        "providers": {"evil": {"requires": ["evilprov===`touch${IFS}PWNED`"]}},
        "variants": {"a": {"evil": {"k": ["a"]}}},
    }, "x")
    _, answers = SupportResolver().supported_for(md)
    assert "'pip install 'evilprov===`touch${IFS}PWNED`''" in answers[0].notice
