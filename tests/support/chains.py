"""Stand-in releases for dependency chains (issue 9): variant markers and ABI dependencies.

Shared by ``tests/e2e/test_markers_e2e.py``, ``test_abi_e2e.py``,
``test_chain_e2e.py`` and ``benchmarks/bench_chain.py``:

* :data:`H100`: the fake machine (CUDA 12.8 driver, sm 9.0);
* :data:`TORCH`: ``torch-like`` with ``cu126``, ``cu128`` and ``null``;
* :func:`abi_release`: an ``attn-like``-style release whose variants carry
  ``abi_dependency :: torch_like :: V`` (either spelling);
* :func:`markers_supported`, :func:`assert_marker_warnings`: what the pip
  under test does with variant markers (pip 24.1+ evaluates them; 23.2-24.0
  leave those dependencies out with one warning per release);
* :func:`installed_files`: ``{project: wheel file name}`` of a ``--report``.
"""

from __future__ import annotations

import re
from typing import Dict, Mapping, Sequence, Tuple

from .wheels import NVIDIA_PROVIDER, variants_json

__all__ = [
    "H100",
    "TORCH",
    "MARKER_WARNING",
    "abi_release",
    "pip_release",
    "markers_supported",
    "installed_files",
    "assert_marker_warnings",
]

H100 = {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0"}

TORCH = variants_json(
    "torch-like", "2.9.0",
    namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER},
    variants={
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["90_real"]}},
        "null": {},
    },
)

#: the documented fallback of pip 23.2-24.0 (docs/index.md)
MARKER_WARNING = "has dependencies with variant environment markers"


def abi_release(labels: Mapping[str, Sequence[str]], builtin: bool = False, abi: bool = True) -> dict:
    """``{label: [torch_like values]}`` as variants: the PD spelling (the
    literal namespace, unlisted, next to a CUDA property real builds also
    carry) or the P850 ``{"builtin": "abi_dependency"}`` entry. ``abi=False``:
    the same labels and CUDA properties without any ABI property (the
    benchmark's reference)."""
    if builtin:
        return variants_json(
            "x", "1", namespaces=["abi"], providers={"abi": {"builtin": "abi_dependency"}},
            variants={label: {"abi": {"torch_like": list(vals)}} for label, vals in labels.items()},
        )
    variants: Dict[str, dict] = {}
    for label, vals in labels.items():
        props: dict = {"nvidia": {"cuda_version_lower_bound": ["12.6"]}}
        if abi:
            props["abi_dependency"] = {"torch_like": list(vals)}
        variants[label] = props
    return variants_json("x", "1", namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER}, variants=variants)


def pip_release(venv) -> Tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", venv.pip_version)[:2])


def markers_supported(venv) -> bool:
    return pip_release(venv) >= (24, 1)


def installed_files(report: Mapping) -> Dict[str, str]:
    """``{project name: wheel file name}`` of everything a ``--report`` installs."""
    out = {}
    for item in report["install"]:
        url = item["download_info"]["url"]
        out[item["metadata"]["name"]] = url.rsplit("/", 1)[-1]
    return out


def assert_marker_warnings(stderr: str, venv, *releases: str) -> None:
    """No traceback; on a pip that cannot read variant markers, exactly one
    warning per release (``"torch-like 2.9.0"``) naming the pip release, and
    none on a pip that can."""
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    if markers_supported(venv):
        assert "variant environment markers" not in stderr, stderr
        return
    assert stderr.count("variant environment markers") == len(releases), stderr
    assert f"pip {venv.pip_version}" in stderr, stderr
    for release in releases:
        assert stderr.count(f"{release} {MARKER_WARNING}") == 1, (release, stderr)
