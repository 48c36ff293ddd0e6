"""End-to-end: real pip installs torch 2.9.0 (stand-in wheels, its real variants.json)
on faked AMD, Intel and mixed machines through the built-in amd and intel providers.

AMD machines are faked below the provider: a KFD sysfs tree (pointed to by the
private test variable ``PIP_VARIANTS_TEST_SYSFS_ROOT``) and a ROCm folder
(``ROCM_PATH``, which the reference plugin honours too). Intel machines use the
same fake ``/sys`` for their PCI display device and a stand-in Level Zero
loader compiled from tests/data/fake_ze_loader.c, found through
``LD_LIBRARY_PATH``: the provider's real ctypes path runs inside pip. Without a
C compiler those tests are skipped; the override-variable tests still run.

These tests do not depend on the pip release: they run only in the newest pip
environment.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.fakehw import (
    build_fake_ze_loader,
    kfd_tree,
    pci_display_device,
    real_gpu_host,
    rocm_tree,
    ze_devices,
    ze_devices_env,
)
from support.pips import newest_pip_only
from support.venvs import pick, run_pip

pytestmark = [
    pytest.mark.e2e,
    newest_pip_only("provider behaviour does not depend on the pip release: newest pip env only"),
]

TORCH_JSON = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "torch-2.9.0-variants.json").read_text()
)
TAG = "py3-none-any"


def torch_file(label: str) -> str:
    return f"torch-2.9.0-{TAG}-{label}.whl"


@pytest.fixture
def torch_index(index, publish):
    publish("torch", "2.9.0", TORCH_JSON)
    return index


@pytest.fixture
def amd_host(tmp_path):
    def build(gpus, rocm=None):
        env = {"PIP_VARIANTS_TEST_SYSFS_ROOT": str(kfd_tree(tmp_path / "sys", gpus))}
        env["ROCM_PATH"] = str(rocm_tree(tmp_path / "rocm", rocm) if rocm else tmp_path / "no-rocm")
        return env

    return build


def test_forced_mi300x_rocm_6_4_1_installs_rocm64(variant_venv, torch_index, tmp_path):
    env = {
        "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH": "gfx942",
        "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION": "6.4.1",
    }
    chosen, _, stderr = pick(variant_venv, torch_index, "torch==2.9.0", **env)
    assert chosen == torch_file("rocm6.4"), stderr
    # And a real install (into a target directory) unpacks that wheel.
    target = tmp_path / "target"
    run_pip(
        variant_venv,
        "install",
        "--index-url",
        torch_index.url,
        "--target",
        str(target),
        "torch==2.9.0",
        env=env,
    )
    assert 'VARIANT = "rocm6.4"' in (target / "torch" / "__init__.py").read_text()
    assert "Traceback" not in stderr


def test_forced_intel_ip_installs_xpu(variant_venv, torch_index):
    chosen, _, stderr = pick(
        variant_venv, torch_index, "torch==2.9.0", INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP="12.55.8"
    )
    assert chosen == torch_file("xpu"), stderr


@pytest.mark.skipif(real_gpu_host(), reason="a real GPU would answer too")
def test_detected_mi300x_with_rocm_6_4_installs_rocm64(variant_venv, torch_index, amd_host):
    chosen, _, stderr = pick(
        variant_venv, torch_index, "torch==2.9.0", **amd_host(["gfx942"], "6.4.1-120")
    )
    assert chosen == torch_file("rocm6.4"), stderr


@pytest.mark.skipif(real_gpu_host(), reason="a real GPU would answer too")
def test_detected_mi300x_with_rocm_6_2_gets_null(variant_venv, torch_index, amd_host):
    chosen, _, stderr = pick(
        variant_venv, torch_index, "torch==2.9.0", **amd_host(["gfx942"], "6.2.4")
    )
    assert chosen == torch_file("null"), stderr
    assert "Traceback" not in stderr


def test_intel_igpu_plus_t4_installs_cuda(variant_venv, torch_index):
    chosen, _, stderr = pick(
        variant_venv,
        torch_index,
        "torch==2.9.0",
        INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP="12.71.4",
        NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION="12.8",
        NV_VARIANT_PROVIDER_FORCE_SM_ARCH="7.5",
    )
    assert chosen in (torch_file("cu126"), torch_file("cu128")), stderr


def test_intel_beats_amd_by_torch_priorities(variant_venv, torch_index, amd_host):
    env = amd_host(["gfx1100"], "6.4.1")
    chosen, _, stderr = pick(
        variant_venv,
        torch_index,
        "torch==2.9.0",
        INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP="20.4.4",
        **env,
    )
    assert chosen == torch_file("xpu"), stderr


def test_bad_forced_rocm_version_is_one_warning_not_a_crash(variant_venv, torch_index):
    chosen, _, stderr = pick(
        variant_venv,
        torch_index,
        "torch==2.9.0",
        AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH="gfx942",
        AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION="six",
    )
    assert chosen == torch_file("null"), stderr
    assert "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION" in stderr and "Traceback" not in stderr


@pytest.mark.skipif(real_gpu_host(), reason="a real GPU would answer too")
def test_explain_names_the_amd_and_intel_providers(variant_venv, torch_index, amd_host):
    from support.venvs import run_python

    env = {**amd_host(["gfx942"], "6.2.4"), "INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP": "12.70.4"}
    proc = run_python(
        variant_venv,
        "-m",
        "pip_variants",
        "explain",
        "torch==2.9.0",
        "--index-url",
        torch_index.url,
        env=env,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    out = proc.stdout
    assert "null" in out and "rocm_version" in out and "device_ip" in out, out
    assert "amd (from builtin:amd)" in out and "intel (from builtin:intel)" in out
    assert "needs amd :: rocm_version :: 6.4; this machine supports 6.2" in out


@pytest.fixture(scope="module")
def ze_loader_dir(tmp_path_factory):
    built = build_fake_ze_loader(tmp_path_factory.mktemp("ze-loader"))
    if built is None:
        pytest.skip("no C compiler (or not Linux) to build the stand-in Level Zero loader")
    return built.parent


@pytest.fixture
def intel_host(tmp_path, ze_loader_dir):
    """``intel_host(["12.56.5"], sys_root=...)`` → environment for pip on that machine."""

    def build(ips, sys_root=None):
        root = Path(sys_root) if sys_root else tmp_path / "sys"
        pci_display_device(root, "0000:00:02.0")
        return {
            "PIP_VARIANTS_TEST_SYSFS_ROOT": str(root),
            "LD_LIBRARY_PATH": str(ze_loader_dir),
            "FAKE_ZE_DEVICES": ze_devices_env(ze_devices(ips)),
        }

    return build


@pytest.mark.skipif(real_gpu_host(), reason="a real GPU would answer too")
def test_detected_arc_a380_installs_xpu(variant_venv, torch_index, intel_host):
    # Own IP 12.56.5 is not in torch's list; Level Zero detection adds its base IP 12.55.8.
    chosen, _, stderr = pick(variant_venv, torch_index, "torch==2.9.0", **intel_host(["12.56.5"]))
    assert chosen == torch_file("xpu"), stderr


@pytest.mark.skipif(real_gpu_host(), reason="a real GPU would answer too")
def test_detected_meteor_lake_u_gets_null(variant_venv, torch_index, intel_host):
    chosen, _, stderr = pick(variant_venv, torch_index, "torch==2.9.0", **intel_host(["12.70.4"]))
    assert chosen == torch_file("null"), stderr


def test_detected_intel_igpu_plus_t4_installs_cuda(variant_venv, torch_index, intel_host):
    env = {
        **intel_host(["12.71.4"]),
        "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8",
        "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "7.5",
    }
    chosen, _, stderr = pick(variant_venv, torch_index, "torch==2.9.0", **env)
    assert chosen in (torch_file("cu126"), torch_file("cu128")), stderr


@pytest.mark.skipif(real_gpu_host(), reason="a real GPU would answer too")
def test_detected_intel_and_amd_every_provider_answers(
    variant_venv, torch_index, tmp_path, intel_host
):
    from support.venvs import run_python

    sys_root = kfd_tree(tmp_path / "sys", ["gfx942"])
    env = {
        **intel_host(["20.4.4"], sys_root=sys_root),
        "ROCM_PATH": str(rocm_tree(tmp_path / "rocm", "6.4.1")),
    }
    chosen, _, stderr = pick(variant_venv, torch_index, "torch==2.9.0", **env)
    assert chosen == torch_file("xpu"), stderr
    proc = run_python(variant_venv, "-m", "pip_variants", "platform", "--json", env=env)
    data = json.loads(proc.stdout)
    assert data["amd"] == {"gfx_arch": ["gfx942"], "rocm_version": ["6.4"]}
    assert data["intel"] == {"device_ip": ["20.4.4", "20.1.0"]}
