"""The built-in provider registry and detect()."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pip_variants.providers import builtin, detect as detect_mod
from pip_variants.providers.aarch64 import AArch64Provider
from pip_variants.providers.amd import AmdProvider
from pip_variants.providers.base import FeatureConfig, Provider, ProviderError
from pip_variants.providers.builtin import BUILTIN_PROVIDERS, all_builtin_providers, builtin_for
from pip_variants.providers.detect import detect
from pip_variants.providers.intel import IntelProvider
from pip_variants.providers.nvidia import NvidiaProvider
from pip_variants.providers.tpu import TpuProvider
from pip_variants.providers.x86_64 import X8664Provider


def test_registry_names() -> None:
    assert list(BUILTIN_PROVIDERS) == ["nvidia", "x86_64", "aarch64", "tpu", "amd", "intel"]


def test_all_builtin_providers() -> None:
    providers = all_builtin_providers()
    assert [p.namespace for p in providers] == ["nvidia", "x86_64", "aarch64", "tpu", "amd", "intel"]
    assert [type(p) for p in providers] == [
        NvidiaProvider, X8664Provider, AArch64Provider, TpuProvider, AmdProvider, IntelProvider,
    ]
    for p in providers:
        assert isinstance(p, Provider)
        assert p.packages and p.plugin_apis


def test_import_is_lazy() -> None:
    code = (
        "import sys\n"
        "import pip_variants.providers.builtin as b\n"
        "b.builtin_for('nvidia')\n"
        "b.all_builtin_providers()\n"
        "bad = [m for m in ('pynvml', 'cpuinfo', 'pip') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("namespace", ["nvidia", "x86_64", "aarch64", "tpu", "amd", "intel"])
def test_no_provider_info_matches_by_namespace(namespace) -> None:
    provider = builtin_for(namespace)
    assert provider is not None and provider.namespace == namespace


def test_unknown_namespace() -> None:
    assert builtin_for("ascend") is None
    assert builtin_for("ascend", ["huawei-ascend-variant-provider"]) is None
    # Same namespace, another package (AMD's rocm-bootstrap): not the built-in.
    assert builtin_for("amd", ["rocm-bootstrap"]) is None


@pytest.mark.parametrize(
    "namespace, requires",
    [
        ("nvidia", ["nvidia-variant-provider>=0.0.1,<1"]),
        ("nvidia", ["nvidia-variant-provider==0.0.2"]),
        ("nvidia", ["Nvidia_Variant.Provider"]),
        ("nvidia", ["nvidia-variant-provider[extra]>=0.0.1"]),
        ("x86_64", ["provider-variant-x86-64>=0.0.1"]),
        ("x86_64", ["x86_64-variant-provider>=0.2"]),
        ("x86_64", ["Provider.Variant_x86-64 >=0.0.1"]),
        ("aarch64", ["provider-variant-aarch64"]),
        ("aarch64", ["aarch64-variant-provider>=0.2"]),
        ("tpu", ["tpu-variant-provider>=0.1"]),
        ("nvidia", ["nvidia-variant-provider; python_version >= '3'", "something-else"]),
        ("nvidia", ["other-provider; python_version < '3'", "nvidia-variant-provider"]),
        ("nvidia", ["not a requirement !!", "nvidia-variant-provider"]),
    ],
)
def test_matches_by_package(namespace, requires) -> None:
    provider = builtin_for(namespace, requires)
    assert provider is not None and provider.namespace == namespace


@pytest.mark.parametrize(
    "namespace, requires",
    [
        ("nvidia", ["nvidia-variant-provider2"]),
        ("nvidia", ["x86-64-variant-provider"]),  # right package, wrong namespace
        ("x86_64", ["nvidia-variant-provider"]),
        ("nvidia", ["something-else", "nvidia-variant-provider"]),  # only the first counts
        ("nvidia", ["nvidia-variant-provider; python_version < '3'"]),
        ("tpu", ["tpu-variant-provider; platform_machine == 'no-such-machine'"]),
    ],
)
def test_no_match_by_package(namespace, requires) -> None:
    assert builtin_for(namespace, requires) is None


@pytest.mark.parametrize(
    "namespace, requires, api",
    [
        # a release this reimplementation does not stand for (PV-16; uv skips these too)
        ("nvidia", ["nvidia-variant-provider>=5"], None),
        ("nvidia", ["nvidia-variant-provider>=5"], "nvidia_variant_provider.plugin:NvidiaVariantPlugin"),
        ("nvidia", ["nvidia-variant-provider==0.0.3"], None),
        ("x86_64", ["x86_64-variant-provider>=0.3"], None),
        ("tpu", ["tpu-variant-provider<0.1"], None),
        ("intel", ["intel-variant-provider==0.0.1"], None),
        # each package's own releases: uv's x86-64 package never had 0.0.1, WheelNext's never 0.2.1
        ("x86_64", ["x86-64-variant-provider==0.0.1"], None),
        ("x86_64", ["provider-variant-x86-64==0.2.1"], None),
        ("aarch64", ["provider-variant-aarch64>=0.2"], None),
        ("nvidia", ["nvidia-variant-provider~=1.0; python_version >= '3'"], None),
        # an endpoint outside the package: another plugin under a borrowed name
        ("nvidia", ["nvidia-variant-provider==0.0.1"], "other_module:Plugin"),
        # another object in the plugin's own modules: not the plugin reproduced (uv skips these too)
        ("x86_64", ["x86-64-variant-provider>=0.2"], "x86_64_variant_provider:Plugin"),
        ("x86_64", ["x86-64-variant-provider>=0.2"], "x86_64_variant_provider.plugin:X8664Plugin"),
        ("tpu", ["tpu-variant-provider"], "tpu_variant_provider.other:Plugin"),
    ],
)
def test_a_version_or_endpoint_it_does_not_stand_for(namespace, requires, api) -> None:
    assert builtin_for(namespace, requires, api) is None


@pytest.mark.parametrize(
    "namespace, requires",
    [
        ("nvidia", ["nvidia-variant-provider>=0.0.2,<1.0.0"]),  # torch 2.9.0 on the WheelNext index
        ("amd", ["amd-variant-provider>=0.0.2,<1.0.0"]),
        ("intel", ["intel-variant-provider>=0.0.2,<1.0.0"]),
        ("nvidia", ["nvidia-variant-provider==0.0.*"]),
        ("nvidia", ["nvidia-variant-provider!=0.0.2"]),  # 0.0.1 answers alike
        ("aarch64", ["aarch64-variant-provider~=0.2.0"]),
        ("tpu", ["tpu-variant-provider===0.1.0"]),  # packaging reads what the quick path does not
    ],
)
def test_ranges_it_stands_for(namespace, requires) -> None:
    assert builtin_for(namespace, requires) is not None


@pytest.mark.parametrize(
    "namespace, api",
    [
        ("nvidia", "nvidia_variant_provider.plugin:NvidiaVariantPlugin"),
        ("nvidia", "nvidia_variant_provider.plugin : NvidiaVariantPlugin"),
        ("nvidia", "  nvidia_variant_provider.plugin:  NvidiaVariantPlugin "),
        ("x86_64", "provider_variant_x86_64.plugin:X8664Plugin"),
        ("x86_64", "provider_variant_x86_64"),
        ("x86_64", "x86_64_variant_provider"),
        ("aarch64", "provider_variant_aarch64.plugin:AArch64Plugin"),
        ("aarch64", "aarch64_variant_provider"),
        ("tpu", "tpu_variant_provider.plugin:TpuVariantPlugin"),
    ],
)
def test_matches_by_plugin_api(namespace, api) -> None:
    # An unknown package in requires: the endpoint alone identifies the provider.
    assert builtin_for(namespace, ["vendored-fork>=1"], api) is not None
    assert builtin_for(namespace, (), api) is not None


@pytest.mark.parametrize(
    "namespace, api",
    [
        ("nvidia", "nvidia_variant_provider"),
        ("nvidia", "nvidia_variant_provider.plugin:Other"),
        ("tpu", "tpu_variant_provider"),
        ("x86_64", "provider_variant_aarch64"),
    ],
)
def test_no_match_by_plugin_api(namespace, api) -> None:
    assert builtin_for(namespace, ["unrelated"], api) is None


def test_package_match_wins_over_other_api() -> None:
    assert builtin_for("nvidia", ["nvidia-variant-provider"], "nvidia_variant_provider") is not None


# ------------------------------------------------------------------- detect()


def test_detect_all(monkeypatch, mocker) -> None:
    mocker.patch.dict(sys.modules, {"pynvml": None})
    monkeypatch.setenv("TPU_VARIANT_PROVIDER_FORCE_PRESENT", "1")
    monkeypatch.setenv("INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP", "12.55.8")
    result = detect()
    assert list(result) == ["nvidia", "x86_64", "aarch64", "tpu", "amd", "intel"]
    assert result["intel"] == [FeatureConfig("device_ip", ("12.55.8",), multi_value=True)]
    assert result["nvidia"] == []
    assert result["tpu"] == [FeatureConfig("present", ("true",))]
    assert all(isinstance(v, list) for v in result.values())


def test_detect_subset_and_unknown() -> None:
    result = detect(["tpu", "ascend", "tpu"])
    assert list(result) == ["tpu"]


def test_detect_forced_nvidia(monkeypatch) -> None:
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.8")
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "7.5")
    configs = detect(["nvidia"])["nvidia"]
    assert [c.name for c in configs] == ["cuda_version_lower_bound", "cuda_version_upper_bound", "sm_arch"]
    assert configs[2].values[0] == "75_real"


def test_detect_error_is_returned_not_raised(monkeypatch) -> None:
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "89")
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.8")
    result = detect()
    assert isinstance(result["nvidia"], ProviderError)
    assert isinstance(result["x86_64"], list)


def test_detect_wraps_unexpected_exceptions(mocker) -> None:
    mocker.patch.object(TpuProvider, "supported_configs", side_effect=ZeroDivisionError("boom"))
    result = detect(["tpu"], use_cache=False)
    assert isinstance(result["tpu"], ProviderError) and result["tpu"].provider == "builtin:tpu"
    assert str(result["tpu"]) == "variant provider builtin:tpu: ZeroDivisionError: boom"  # as in a pip run


def test_detect_uses_cache(mocker) -> None:
    spy = mocker.spy(TpuProvider, "supported_configs")
    first = detect(["tpu"])
    second = detect(["tpu"])
    assert first == second
    assert spy.call_count == 1
    detect(["tpu"], use_cache=False)
    assert spy.call_count == 2


def test_detect_cache_follows_env(monkeypatch) -> None:
    monkeypatch.setenv("TPU_VARIANT_PROVIDER_FORCE_PRESENT", "yes")
    assert detect(["tpu"])["tpu"][0].values == ("true",)
    monkeypatch.setenv("TPU_VARIANT_PROVIDER_FORCE_PRESENT", "no")
    assert detect(["tpu"])["tpu"][0].values == ("false",)


def test_detect_module_exports() -> None:
    assert detect_mod.__all__ == ["detect", "DetectionResult"]
    assert set(builtin.__all__) >= {"BUILTIN_PROVIDERS", "builtin_for", "all_builtin_providers"}


@pytest.mark.parametrize(
    "api",
    [
        "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
        "nvidia_variant_provider.plugin : NvidiaVariantPlugin",
        " nvidia_variant_provider.plugin\t:NvidiaVariantPlugin ",
    ],
)
def test_plugin_api_spacing_around_the_colon_is_ignored(api):
    assert builtin_for("nvidia", plugin_api=api) is not None
    assert builtin_for("nvidia", plugin_api=api.replace("Nvidia", "Other")) is None
