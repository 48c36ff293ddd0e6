"""torch 2.9.0's real variants.json against the built-in amd and intel providers.

The machine is faked below the providers only: a KFD sysfs tree and a ROCm
folder for AMD, the Level Zero ctypes layer for Intel, the NVIDIA override
variables for NVIDIA. Selection, the ladder and the namespace priorities
(torch: nvidia, intel, amd) are the real ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pip_variants.engine import VariantEngine, VariantSettings
from pip_variants.metadata import parse_metadata
from pip_variants.providers import intel, nvidia
from pip_variants.providers.builtin import builtin_for
from pip_variants.support import SupportSettings
from support.fakehw import kfd_tree, rocm_tree, ze_devices

TORCH_JSON = Path(__file__).resolve().parents[1] / "data" / "torch-2.9.0-variants.json"
TORCH = parse_metadata(json.loads(TORCH_JSON.read_text()), TORCH_JSON.name)
LINUX = {"platform_system": "Linux", "sys_platform": "linux"}
T4 = {
    "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8",
    "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "7.5",
}


@pytest.fixture
def machine(tmp_path, monkeypatch, mocker):
    """``machine(amd=[...], rocm="6.4.1", intel=[...], env={...})`` → the best torch label."""
    mocker.patch.object(nvidia, "_driver_may_be_present", return_value=False)
    mocker.patch.object(intel.sys, "platform", "linux")
    mocker.patch.object(intel.IntelProvider, "_worth_asking", return_value=True)
    monkeypatch.setenv("PATH", str(tmp_path))  # no ROCm tools

    def build(amd=(), rocm=None, intel_ips=(), env=None):
        sysfs = kfd_tree(tmp_path / "sys", amd)
        monkeypatch.setenv("PIP_VARIANTS_TEST_SYSFS_ROOT", str(sysfs))
        monkeypatch.setenv(
            "ROCM_PATH", str(rocm_tree(tmp_path / "rocm", rocm) if rocm else tmp_path / "none")
        )
        mocker.patch.object(intel, "_level_zero_devices", return_value=ze_devices(intel_ips))
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        settings = VariantSettings(
            support=SupportSettings(marker_environment=LINUX, use_cache=False)
        )
        return VariantEngine(settings).select("torch", "2.9.0", TORCH)

    return build


def best(selection) -> str:
    return selection.order[0]


def test_forced_mi300x_rocm_6_4_1_gets_rocm64(machine):
    sel = machine(
        env={
            "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH": "gfx942",
            "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION": "6.4.1",
        }
    )
    assert list(sel.order) == ["rocm6.4", "null"]


def test_detected_mi300x_rocm_6_4_gets_rocm64(machine):
    sel = machine(amd=["gfx942"], rocm="6.4.1-120")
    assert list(sel.order) == ["rocm6.4", "null"]
    assert any(a.source == "builtin:amd" for a in sel.answers)


def test_rocm_6_3_gets_rocm63(machine):
    assert best(machine(amd=["gfx90a"], rocm="6.3.4")) == "rocm6.3"


def test_mi300x_with_rocm_6_2_gets_null(machine):
    sel = machine(amd=["gfx942"], rocm="6.2.4")
    assert list(sel.order) == ["null"]
    assert "amd :: rocm_version :: 6.4" in str(sel.rejected["rocm6.4"])


def test_gpu_without_rocm_gets_null(machine):
    assert list(machine(amd=["gfx1100"]).order) == ["null"]


def test_arch_torch_does_not_build_for_gets_null(machine):
    assert list(machine(amd=["gfx1036"], rocm="6.4.0").order) == ["null"]


def test_forced_intel_ip_gets_xpu(machine):
    assert list(machine(env={"INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP": "12.55.8"}).order) == [
        "xpu",
        "null",
    ]


def test_detected_arc_a380_gets_xpu_through_compat(machine):
    # Own IP 12.56.5 is not in torch's list; its compat IP 12.55.8 is.
    sel = machine(intel_ips=["12.56.5"])
    assert list(sel.order) == ["xpu", "null"]


def test_meteor_lake_u_gets_null(machine):
    assert list(machine(intel_ips=["12.70.4"]).order) == ["null"]


def test_intel_igpu_plus_t4_gets_cuda(machine):
    sel = machine(intel_ips=["12.71.4"], env=T4)
    assert best(sel) in ("cu126", "cu128")
    assert sel.order.index("xpu") > sel.order.index(best(sel))
    assert "cu13" not in sel.order  # 13.0 driver needed


def test_intel_igpu_plus_amd_dgpu_gets_xpu_by_priority(machine):
    sel = machine(amd=["gfx1100"], rocm="6.4.1", intel_ips=["12.74.4"])
    assert list(sel.order) == ["xpu", "rocm6.4", "null"]


def test_every_vendor_answers(machine):
    sel = machine(amd=["gfx942"], rocm="6.4.1", intel_ips=["20.1.0"], env=T4)
    assert [a.source for a in sel.answers] == ["builtin:nvidia", "builtin:intel", "builtin:amd"]
    assert list(sel.order)[-3:] == ["xpu", "rocm6.4", "null"]


def test_no_accelerator_gets_null(machine):
    assert list(machine().order) == ["null"]


# -- which entries the built-ins serve ------------------------------------------------------


def test_builtins_serve_the_reference_packages_only():
    assert builtin_for("amd", ["amd-variant-provider>=0.0.2,<1.0.0"]) is not None
    assert builtin_for("amd", [], "amd_variant_provider.plugin:AMDVariantPlugin") is not None
    assert builtin_for("intel", ["intel-variant-provider>=0.0.2,<1.0.0"]) is not None
    # AMD's other provider uses the same namespace with other features: a plugin.
    assert (
        builtin_for(
            "amd", ["rocm-bootstrap>=0.3"], "rocm_bootstrap.variant_provider:AMDVariantPlugin"
        )
        is None
    )
    assert builtin_for("intel", ["some-other-xpu-provider"]) is None
