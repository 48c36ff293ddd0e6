"""Differential: pip-variants' choice against uv's (``--preview-features wheel-variants``).

uv 0.13.9 parses only the 0.2.0 structure, vendors the nvidia, tpu, x86_64 and
aarch64 providers, and never runs plugins (PROVIDERS.md §6). For 0.2.0
metadata with static providers, NVIDIA through its override variables, TPU
through its override and x86_64 from this machine's CPU, both installers must
pick the same file; also on torch 2.9's published variant lists, and for a
release of variant wheels and an sdist where no variant fits.

uv's choice is read from its resolver log (``Selecting: pkg==1.0 [...] (file)``)
of a ``uv pip install --dry-run``. Skipped when ``uv`` is not on PATH
(``PIP_VARIANTS_TEST_UV`` names another binary).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.fakehw import real_gpu_host
from support.pips import newest_pip_only
from support.uv import require_uv, uv_pick
from support.venvs import pick
from support.wheels import (
    FICTIONAL_PROVIDER,
    NVIDIA_PROVIDER,
    TPU_PROVIDER,
    X86_64_PROVIDER,
    build_sdist,
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
    # The real CPU, read by both installers (no override variable is shared).
    "x86_64-levels": (
        _meta(
            ["x86_64"],
            {"x86_64": X86_64_PROVIDER},
            {**{f"x86_64_{lvl}": {"x86_64": {"level": [lvl]}} for lvl in ("v1", "v2", "v3", "v4")}, "null": {}},
        ),
        {},
    ),
    "x86_64-multi-value": (
        _meta(
            ["x86_64"],
            {"x86_64": X86_64_PROVIDER},
            {"v2_or_v4": {"x86_64": {"level": ["v2", "v4"]}}, "v3": {"x86_64": {"level": ["v3"]}}},
        ),
        {},
    ),
    "tpu-present": (
        _meta(
            ["tpu"],
            {"tpu": TPU_PROVIDER},
            {"tpu": {"tpu": {"present": ["true"]}}, "cpu": {"tpu": {"present": ["false"]}}},
        ),
        {"TPU_VARIANT_PROVIDER_FORCE_PRESENT": "yes"},
    ),
    # only the exact words count: padded, the value means absent to both
    "tpu-padded-override": (
        _meta(
            ["tpu"],
            {"tpu": TPU_PROVIDER},
            {"tpu": {"tpu": {"present": ["true"]}}, "cpu": {"tpu": {"present": ["false"]}}},
        ),
        {"TPU_VARIANT_PROVIDER_FORCE_PRESENT": " yes"},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_choice_as_uv(uv_binary, variant_venv, stock_venv, publish, index, case):
    data, env = CASES[case]
    publish("pkg", "1.0", data)
    theirs = uv_pick(uv_binary, stock_venv.python, index, "pkg", **env)
    ours, _, stderr = pick(variant_venv, index, "pkg", **env)
    assert ours == theirs, f"pip-variants chose {ours}, uv chose {theirs}\n{stderr}"


# -- torch 2.9's published variant lists --------------------------------------------------
#
# tests/data holds torch 2.9.0's index file as published (schema 0.0.2, which uv 0.13.9
# does not read). Written as 0.2.0 by pip-variants' own writer, its variants and their
# property lists are unchanged. Selection does not depend on the pip release: these run
# with the newest pip only.

_TORCH_FILE = Path(__file__).resolve().parents[1] / "data" / "torch-2.9.0-variants.json"
_newest_only = newest_pip_only("selection does not depend on the pip release: newest pip env only")
_FORCE_D, _FORCE_SM = "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH"


def _torch_020(nvidia_entry=None) -> dict:
    from pip_variants.metadata import load_metadata
    from pip_variants.metadata_write import dumps

    data = json.loads(dumps(load_metadata(_TORCH_FILE.read_bytes(), _TORCH_FILE.name)))
    if nvidia_entry is not None:
        data["providers"]["nvidia"] = nvidia_entry
    return data


@_newest_only
@pytest.mark.skipif(real_gpu_host(), reason="uv does not read AMD GPUs, pip-variants does")
@pytest.mark.parametrize(
    "driver, sm",
    [("12.8", "9.0"), ("13.0", "10.0"), ("12.6", "5.0"), ("12.8", "12.0"), ("13.0", "7.0"),
     ("12.2", "7.5"), ("11.8", "8.6"), (None, None)],
)
def test_same_choice_as_uv_on_torch_2_9(uv_binary, variant_venv, stock_venv, publish, index, driver, sm):
    """torch's own variant lists, with the nvidia entry in the form uv's built-in
    serves (``nvidia-variant-provider>=0.0.1,<1`` and its plugin-api)."""
    publish("torch", "2.9.0", _torch_020(NVIDIA_PROVIDER))
    env = {_FORCE_D: driver, _FORCE_SM: sm}
    theirs = uv_pick(uv_binary, stock_venv.python, index, "torch", **env)
    ours, _, stderr = pick(variant_venv, index, "torch", **env)
    assert ours == theirs, f"pip-variants chose {ours}, uv chose {theirs}\n{stderr}"


@_newest_only
def test_known_difference_torch_provider_range(uv_binary, variant_venv, stock_venv, publish, index):
    """torch's entry asks for ``nvidia-variant-provider>=0.0.2,<1.0.0``. uv 0.13.9 uses
    its built-in only for ranges that admit 0.0.1, the version it reimplements, so it
    skips the namespace and installs ``null``. pip-variants' built-in serves the
    package whatever the range (its lists are those of 0.0.2, identical to 0.0.1's):
    the CUDA build. Documented in reference.md (Built-in providers)."""
    data = _torch_020()
    assert data["providers"]["nvidia"]["requires"] == ["nvidia-variant-provider>=0.0.2,<1.0.0"]
    publish("torch", "2.9.0", data)
    env = {_FORCE_D: "12.8", _FORCE_SM: "9.0"}
    assert uv_pick(uv_binary, stock_venv.python, index, "torch", **env) == "torch-2.9.0-py3-none-any-null.whl"
    ours, _, stderr = pick(variant_venv, index, "torch", **env)
    assert ours == "torch-2.9.0-py3-none-any-cu126.whl", stderr


# -- variant wheels and an sdist, no plain wheel (flash-attn's shape) -------------------

_CU128_ONLY = _meta(
    ["nvidia"], {"nvidia": NVIDIA_PROVIDER}, {"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}}
)


@pytest.mark.parametrize("driver, expected", [("12.8", "pkg-1.0-py3-none-any-cu128.whl"), (None, "pkg-1.0.tar.gz")])
def test_sdist_when_no_variant_fits(uv_binary, variant_venv, stock_venv, publish, index, dist, driver, expected):
    """A release of variant wheels and a source distribution: where no variant fits,
    both installers build from source, and pip-variants says why."""
    if driver is None and real_gpu_host():
        pytest.skip("a real GPU would fit the variant")
    publish("pkg", "1.0", _CU128_ONLY, plain=False)
    index.add_files("pkg", [build_sdist(dist / "sdist", "pkg", "1.0")])
    env = {_FORCE_D: driver, _FORCE_SM: None}
    theirs = uv_pick(uv_binary, stock_venv.python, index, "pkg", **env)
    ours, _, stderr = pick(variant_venv, index, "pkg", **env)
    assert ours == theirs == expected, f"pip-variants chose {ours}, uv chose {theirs}\n{stderr}"
    if driver is None:
        assert "installing the source distribution of pkg 1.0" in stderr, stderr
