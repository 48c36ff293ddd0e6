"""End-to-end selection by the built-in providers (PROVIDERS.md §7, item
numbers in the test names): real pip with pip-variants against a loopback
index, the machine described through each provider's override variables,
never read from the host's hardware.
"""

from __future__ import annotations

import pytest

from support.selection import PLAIN, assert_clean, gpu_host_present, meta, variant_file
from support.venvs import pick
from support.wheels import NVIDIA_PROVIDER, TPU_PROVIDER, X86_64_PROVIDER, static_provider

pytestmark = pytest.mark.e2e


NV_LOWER = {
    "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
    "cu124": {"nvidia": {"cuda_version_lower_bound": ["12.4"]}},
    "cu12": {"nvidia": {"cuda_version_lower_bound": ["12"]}},
}


@pytest.mark.parametrize(
    "driver, expected",
    [
        ("12.4", "cu124"),
        ("12.8", "cu126"),
        ("12", "cu12"),
        ("11.8", None),
        ("16.0", "cu126"),
        ("abc", None),
        ("", None),
    ],
)
def test_providers_1_2_nvidia_cuda_lower_bound(variant_venv, publish, index, driver, expected):
    if driver in ("", "abc") and gpu_host_present():
        pytest.skip("a real NVIDIA driver is present")
    publish("pkg", "1.0", meta(["nvidia"], {"nvidia": NVIDIA_PROVIDER}, NV_LOWER))
    chosen, _, stderr = pick(
        variant_venv, index, "pkg", NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=driver
    )
    assert chosen == (variant_file(expected) if expected else PLAIN), stderr
    assert_clean(stderr)


NV_SM = {
    "sm90": {"nvidia": {"sm_arch": ["90_real"]}},
    "sm89": {"nvidia": {"sm_arch": ["89_real"]}},
    "sm86": {"nvidia": {"sm_arch": ["86_real"]}},
    "sm80v": {"nvidia": {"sm_arch": ["80_virtual"]}},
}


@pytest.mark.parametrize(
    "cc, expected",
    [("8.9", "sm89"), ("9.0", "sm90"), ("8.0", "sm80v"), ("10.0", None), ("7.5", None)],
)
def test_providers_4_nvidia_sm_arch(variant_venv, publish, index, cc, expected):
    publish("pkg", "1.0", meta(["nvidia"], {"nvidia": NVIDIA_PROVIDER}, NV_SM))
    chosen, _, stderr = pick(
        variant_venv,
        index,
        "pkg",
        NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION="12.8",
        NV_VARIANT_PROVIDER_FORCE_SM_ARCH=cc,
    )
    assert chosen == (variant_file(expected) if expected else PLAIN), stderr


@pytest.mark.parametrize("cc, expected", [("8.9", "lb"), ("89", None), ("9", None)])
def test_providers_4_invalid_sm_override_skips_the_provider(
    variant_venv, publish, index, cc, expected
):
    publish(
        "pkg",
        "1.0",
        meta(
            ["nvidia"],
            {"nvidia": NVIDIA_PROVIDER},
            {"lb": {"nvidia": {"cuda_version_lower_bound": ["12.0"]}}},
        ),
    )
    chosen, _, stderr = pick(
        variant_venv,
        index,
        "pkg",
        NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION="12.8",
        NV_VARIANT_PROVIDER_FORCE_SM_ARCH=cc,
    )
    assert chosen == (variant_file(expected) if expected else PLAIN), stderr
    assert_clean(stderr)


NV_UPPER = {
    "ub125": {"nvidia": {"cuda_version_upper_bound": ["12.5"]}},
    "ub124": {"nvidia": {"cuda_version_upper_bound": ["12.4"]}},
    "ub12": {"nvidia": {"cuda_version_upper_bound": ["12"]}},
    "ub13": {"nvidia": {"cuda_version_upper_bound": ["13"]}},
}


@pytest.mark.parametrize("driver, expected", [("12.4", "ub13"), ("12.5", "ub13"), ("13.0", None)])
def test_providers_5_nvidia_upper_bound(variant_venv, publish, index, driver, expected):
    publish("pkg", "1.0", meta(["nvidia"], {"nvidia": NVIDIA_PROVIDER}, NV_UPPER))
    chosen, _, stderr = pick(
        variant_venv, index, "pkg", NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=driver
    )
    assert chosen == (variant_file(expected) if expected else PLAIN), stderr


def test_providers_5_upper_bound_12_4_excludes_tight_bounds(variant_venv, publish, index):
    labels = {k: v for k, v in NV_UPPER.items() if k != "ub13"}
    publish("pkg", "1.0", meta(["nvidia"], {"nvidia": NVIDIA_PROVIDER}, labels))
    chosen, _, stderr = pick(
        variant_venv, index, "pkg", NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION="12.4"
    )
    assert chosen == variant_file("ub125"), stderr


@pytest.mark.parametrize(
    "value, expected",
    [
        ("YES", "tpu"),
        ("1", "tpu"),
        ("true", "tpu"),
        ("no", "cpu"),
        ("", "cpu"),
        (None, "cpu"),
        ("2", "cpu"),
    ],
)
def test_providers_9_tpu_override(variant_venv, publish, index, value, expected):
    publish(
        "pkg",
        "1.0",
        meta(
            ["tpu"],
            {"tpu": TPU_PROVIDER},
            {"tpu": {"tpu": {"present": ["true"]}}, "cpu": {"tpu": {"present": ["false"]}}},
        ),
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg", TPU_VARIANT_PROVIDER_FORCE_PRESENT=value)
    assert chosen == variant_file(expected), stderr


def test_providers_10_static_best_value_beats_label_order(variant_venv, publish, index):
    publish(
        "pkg",
        "1.0",
        meta(
            ["blas_lapack"],
            {"blas_lapack": static_provider({"library": ["openblas", "mkl", "accelerate"]})},
            {
                "accelerate": {"blas_lapack": {"library": ["accelerate"]}},
                "mkl": {"blas_lapack": {"library": ["mkl"]}},
                "openblas_or_accelerate": {"blas_lapack": {"library": ["accelerate", "openblas"]}},
            },
        ),
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("openblas_or_accelerate"), stderr


@pytest.mark.parametrize("kind", ["requires", "static"])
def test_providers_12_optional_provider_is_off_by_default(variant_venv, publish, index, kind):
    if kind == "requires":
        providers = {"nvidia": dict(NVIDIA_PROVIDER, optional=True)}
        variants = {"cu12": {"nvidia": {"cuda_version_lower_bound": ["12"]}}}
        ns = "nvidia"
    else:
        providers = {"dbg": static_provider({"build": ["debug"]}, optional=True)}
        variants = {"d": {"dbg": {"build": ["debug"]}}}
        ns = "dbg"
    publish("pkg", "1.0", meta([ns], providers, variants))
    chosen, _, stderr = pick(
        variant_venv, index, "pkg", NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION="12.8"
    )
    assert chosen == PLAIN, stderr


@pytest.mark.parametrize("level", ["v2", "v3", "v4"])
def test_x86_64_level_override(variant_venv, publish, index, level):
    publish(
        "pkg",
        "1.0",
        meta(
            ["x86_64"],
            {"x86_64": X86_64_PROVIDER},
            {f"x86_64_v{n}": {"x86_64": {"level": [f"v{n}"]}} for n in (1, 2, 3, 4)},
        ),
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg", PIP_VARIANTS_X86_64_LEVEL=level)
    assert chosen == variant_file(f"x86_64_{level}"), stderr
