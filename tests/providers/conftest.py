"""Fixtures shared by the provider tests."""

from __future__ import annotations

import os
import sys
import types
from typing import Callable, Optional, Sequence, Tuple

import pytest

# Variables that change provider results; each test starts without them.
_ENV_VARS = (
    "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION",
    "NV_VARIANT_PROVIDER_FORCE_SM_ARCH",
    "TPU_VARIANT_PROVIDER_FORCE_PRESENT",
    "PIP_VARIANTS_X86_64_LEVEL",
    "PIP_VARIANTS_AARCH64_VERSION",
    "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH",
    "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION",
    "AMD_PREFERRED_GFX_ARCHS",
    "HSA_OVERRIDE_GFX_VERSION",
    "ROCM_PATH",
    "PIP_VARIANTS_TEST_SYSFS_ROOT",
    "INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP",
    "PIP_VARIANTS_NO_CACHE",
    "PIP_VARIANTS_CACHE_DIR",
)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    for name in _ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    for name in [n for n in os.environ if n.startswith("HSA_OVERRIDE_GFX_VERSION_")]:
        monkeypatch.delenv(name)
    # Never read or write the developer's real cache.
    monkeypatch.setenv("PIP_VARIANTS_CACHE_DIR", str(tmp_path_factory.mktemp("pv-cache")))


class FakeNVMLError(Exception):
    """Stands in for pynvml.NVMLError."""


def make_fake_pynvml(
    mocker,
    *,
    cuda: Optional[int] = 12080,
    ccs: Sequence[Tuple[int, int]] = ((8, 9),),
    init_error: bool = False,
    count_error: bool = False,
    bad_devices: Sequence[int] = (),
) -> types.ModuleType:
    """A module object with the pynvml functions the provider uses."""
    mod = types.ModuleType("pynvml")
    mod.NVMLError = FakeNVMLError  # type: ignore[attr-defined]

    def _raise(*_a, **_k):
        raise FakeNVMLError("boom")

    mod.nvmlInit = mocker.Mock(side_effect=_raise if init_error else None)  # type: ignore[attr-defined]
    mod.nvmlShutdown = mocker.Mock()  # type: ignore[attr-defined]
    mod.nvmlSystemGetCudaDriverVersion_v2 = mocker.Mock(  # type: ignore[attr-defined]
        side_effect=_raise if cuda is None else None, return_value=cuda
    )
    mod.nvmlDeviceGetCount = mocker.Mock(  # type: ignore[attr-defined]
        side_effect=_raise if count_error else None, return_value=len(ccs)
    )
    mod.nvmlDeviceGetHandleByIndex = mocker.Mock(side_effect=lambda i: ("handle", i))  # type: ignore[attr-defined]

    def _cc(handle):
        index = handle[1]
        if index in bad_devices:
            raise FakeNVMLError("device lost")
        return ccs[index]

    mod.nvmlDeviceGetCudaComputeCapability = mocker.Mock(side_effect=_cc)  # type: ignore[attr-defined]
    return mod


@pytest.fixture
def fake_nvml(mocker) -> Callable[..., types.ModuleType]:
    """Install a fake pynvml (and pretend a driver is present); returns the factory."""
    from pip_variants.providers import nvidia

    mocker.patch.object(nvidia, "_driver_may_be_present", return_value=True)

    def install(**kwargs) -> types.ModuleType:
        mod = make_fake_pynvml(mocker, **kwargs)
        mocker.patch.dict(sys.modules, {"pynvml": mod})
        return mod

    return install


@pytest.fixture
def no_nvml(mocker) -> None:
    """pynvml cannot be imported (nvidia-ml-py missing)."""
    from pip_variants.providers import nvidia

    mocker.patch.object(nvidia, "_driver_may_be_present", return_value=True)
    mocker.patch.dict(sys.modules, {"pynvml": None})
