"""Differential: pip-variants' choice against uv's (``--preview-features wheel-variants``).

uv 0.13.9 parses only the 0.2.0 structure, vendors the nvidia, tpu, x86_64 and
aarch64 providers, and never runs plugins (PROVIDERS.md §6). For 0.2.0
metadata with static providers, NVIDIA through its override variables and
TPU through its override, both installers must pick the same file.

uv's choice is read from its resolver log (``Selecting: pkg==1.0 [...] (file)``)
of a ``uv pip install --dry-run``. Skipped when ``uv`` is not on PATH
(``PIP_VARIANTS_TEST_UV`` names another binary).
"""

from __future__ import annotations

import pytest

from support.uv import require_uv, uv_pick
from support.venvs import pick
from support.wheels import (
    FICTIONAL_PROVIDER,
    NVIDIA_PROVIDER,
    TPU_PROVIDER,
    static_provider,
    variants_json,
)

pytestmark = [pytest.mark.e2e, pytest.mark.uv]

@pytest.fixture(scope="module")
def uv_binary():
    return require_uv()


def _meta(namespaces, providers, variants):
    return variants_json(
        "pkg", "1.0", namespaces=namespaces, providers=providers, variants=variants
    )


CASES = {
    "static-best-value": (
        _meta(
            ["blas_lapack"],
            {"blas_lapack": static_provider({"library": ["openblas", "mkl", "accelerate"]})},
            {
                "accelerate": {"blas_lapack": {"library": ["accelerate"]}},
                "mkl": {"blas_lapack": {"library": ["mkl"]}},
                "openblas_or_accelerate": {"blas_lapack": {"library": ["accelerate", "openblas"]}},
            },
        ),
        {},
    ),
    "namespace-priority": (
        _meta(
            ["gpu", "simd"],
            {
                "gpu": static_provider({"rt": ["3", "2", "1"]}),
                "simd": static_provider({"level": ["v4", "v3"]}),
            },
            {"a": {"gpu": {"rt": ["1"]}}, "b": {"simd": {"level": ["v4"]}}},
        ),
        {},
    ),
    "feature-order": (
        _meta(
            ["n"],
            {"n": static_provider({"f": ["1"], "g": ["1"]}, feature_order=["g", "f"])},
            {"a": {"n": {"f": ["1"]}}, "b": {"n": {"g": ["1"]}}},
        ),
        {},
    ),
    "prefix-rule": (
        _meta(
            ["n1", "n2"],
            {"n1": static_provider({"f": ["a"]}), "n2": static_provider({"g": ["b"]})},
            {"s": {"n1": {"f": ["a"]}}, "l": {"n1": {"f": ["a"]}, "n2": {"g": ["b"]}}},
        ),
        {},
    ),
    "label-tie-break": (
        _meta(
            ["n"],
            {"n": static_provider({"f": ["a", "b"]})},
            {"beta": {"n": {"f": ["a"]}}, "alpha": {"n": {"f": ["a", "b"]}}},
        ),
        {},
    ),
    "null-over-plain": (
        _meta(
            ["gpu"],
            {"gpu": static_provider({"rt": ["1"]})},
            {"gpu2": {"gpu": {"rt": ["2"]}}, "null": {}},
        ),
        {},
    ),
    "optional-static": (
        _meta(
            ["dbg"],
            {"dbg": static_provider({"build": ["debug"]}, optional=True)},
            {"d": {"dbg": {"build": ["debug"]}}},
        ),
        {},
    ),
    "untrusted-plugin": (
        _meta(
            ["fictional_hw"],
            {"fictional_hw": FICTIONAL_PROVIDER},
            {"hw1": {"fictional_hw": {"tech": ["x1"]}}, "null": {}},
        ),
        {},
    ),
    "nvidia-12.4": (
        _meta(
            ["nvidia"],
            {"nvidia": NVIDIA_PROVIDER},
            {
                "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
                "cu124": {"nvidia": {"cuda_version_lower_bound": ["12.4"]}},
                "cu12": {"nvidia": {"cuda_version_lower_bound": ["12"]}},
            },
        ),
        {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.4"},
    ),
    "nvidia-sm-8.9": (
        _meta(
            ["nvidia"],
            {"nvidia": NVIDIA_PROVIDER},
            {
                "sm90": {"nvidia": {"sm_arch": ["90_real"]}},
                "sm89": {"nvidia": {"sm_arch": ["89_real"]}},
                "sm80v": {"nvidia": {"sm_arch": ["80_virtual"]}},
            },
        ),
        {
            "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8",
            "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "8.9",
        },
    ),
    "nvidia-upper-12.4": (
        _meta(
            ["nvidia"],
            {"nvidia": NVIDIA_PROVIDER},
            {
                "ub125": {"nvidia": {"cuda_version_upper_bound": ["12.5"]}},
                "ub124": {"nvidia": {"cuda_version_upper_bound": ["12.4"]}},
                "ub13": {"nvidia": {"cuda_version_upper_bound": ["13"]}},
            },
        ),
        {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.4"},
    ),
    "tpu-present": (
        _meta(
            ["tpu"],
            {"tpu": TPU_PROVIDER},
            {"tpu": {"tpu": {"present": ["true"]}}, "cpu": {"tpu": {"present": ["false"]}}},
        ),
        {"TPU_VARIANT_PROVIDER_FORCE_PRESENT": "yes"},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_choice_as_uv(uv_binary, variant_venv, stock_venv, publish, index, case):
    data, env = CASES[case]
    publish("pkg", "1.0", data)
    theirs = uv_pick(uv_binary, stock_venv.python, index, "pkg", **env)
    ours, _, stderr = pick(variant_venv, index, "pkg", **env)
    assert ours == theirs, f"pip-variants chose {ours}, uv chose {theirs}\n{stderr}"
