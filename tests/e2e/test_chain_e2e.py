"""End-to-end: a dependency chain with variant markers AND ABI variants (issue 9, point 3).

``torch-like`` 2.8.0 / 2.9.0 (cu126, cu128, null, plain) whose wheels depend on
``cuda-lib-cu12 ; variant_label == "cu128"`` and ``cuda-lib-cu12-old ;
variant_label == "cu126"``; ``attn-like`` 1.0 (torch28, torch29, plain) built
against ``torch-like`` (``abi_dependency :: torch_like :: 2.8`` / ``2.9``,
``Requires-Dist: torch-like``) with kernels chosen by a property marker and a
label marker. Both hooks wrap the same ``iter_dependencies``: the markers
must be evaluated for the build the ABI hook settles on, also when the
resolver backtracks from one build of ``attn-like`` 1.0 to the other.

The machine is a fake H100. Markers depend on the pip release (24.1+; older
pips leave those dependencies out with one warning per release), so the
module runs in every pip environment: one index for the whole module.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Dict, Tuple

import pytest

from support.chains import H100, TORCH, abi_release, assert_marker_warnings, installed_files, markers_supported
from support.index import LocalIndex
from support.venvs import index_args, pick, run_pip, run_python
from support.wheels import build_release, build_wheel

pytestmark = pytest.mark.e2e

TORCH_REQUIRES = ['cuda-lib-cu12 ; variant_label == "cu128"', 'cuda-lib-cu12-old ; variant_label == "cu126"']
ATTN_REQUIRES = [
    "torch-like",
    'attn-kernels-t29 ; "abi_dependency :: torch_like :: 2.9" in variant_properties',
    'attn-kernels-t28 ; variant_label == "torch28"',
]
ATTN = abi_release({"torch28": ["2.8"], "torch29": ["2.9"]})
DEPS = ("cuda-lib-cu12", "cuda-lib-cu12-old", "attn-kernels-t28", "attn-kernels-t29")

TORCH28 = "torch_like-2.8.0-py3-none-any-cu128.whl"
TORCH29 = "torch_like-2.9.0-py3-none-any-cu128.whl"
ATTN28 = "attn_like-1.0-py3-none-any-torch28.whl"
ATTN29 = "attn_like-1.0-py3-none-any-torch29.whl"


@pytest.fixture(scope="module")
def chain_index(tmp_path_factory):
    work = tmp_path_factory.mktemp("chain")
    with LocalIndex() as idx:
        for version in ("2.8.0", "2.9.0"):
            idx.add_files("torch-like", build_release(work / f"torch-{version}", "torch-like", version, TORCH,
                                                      requires=TORCH_REQUIRES))
        idx.add_files("attn-like", build_release(work / "attn", "attn-like", "1.0", ATTN, requires=ATTN_REQUIRES))
        for dep in DEPS:
            idx.add_files(dep, [build_wheel(work / "deps", dep, "1.0")])
        yield idx


def install(venv, index, *args: str) -> Tuple[Dict[str, str], str]:
    """A real ``pip install``: ``({project: wheel installed}, stderr)``."""
    with tempfile.TemporaryDirectory(prefix="pv-chain-") as tmp:
        report = Path(tmp) / "report.json"
        proc = run_pip(venv, "install", "--report", report, *index_args(index), *args, env=H100)
        return installed_files(json.loads(report.read_text(encoding="utf-8"))), proc.stderr


def builds(venv) -> Dict[str, str]:
    """``{project: "version label"}`` of what the venv holds (each stand-in
    module records its label)."""
    script = (
        "import importlib, importlib.metadata as m, json\n"
        "out = {}\n"
        f"for name in {['torch-like', 'attn-like', *DEPS]!r}:\n"
        "    try: v = m.version(name)\n"
        "    except m.PackageNotFoundError: continue\n"
        "    out[name] = f\"{v} {importlib.import_module(name.replace('-', '_')).VARIANT}\".strip()\n"
        "print(json.dumps(out))\n"
    )
    proc = run_python(venv, "-c", script)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def assert_check_clean(venv) -> None:
    proc = run_pip(venv, "check", env=H100, check=False)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stdout + proc.stderr


def expect(venv, torch: str, attn: str, *deps: str) -> Dict[str, str]:
    """What the venv must hold: the pair, plus ``deps`` where markers are read."""
    out = {"torch-like": torch, "attn-like": attn}
    if markers_supported(venv):
        out.update({dep: "1.0" for dep in deps})
    return out


def test_attn_alone_installs_the_consistent_trio_with_the_newest_torch(fresh_venv, chain_index):
    """Fresh venv, torch-like absent and unpinned: 2.9.0 cu128, its CUDA
    library, the torch29 build and its kernels."""
    files, err = install(fresh_venv, chain_index, "attn-like")
    assert (files.get("torch-like"), files.get("attn-like")) == (TORCH29, ATTN29), err
    assert_marker_warnings(err, fresh_venv, "torch-like 2.9.0", "attn-like 1.0")
    assert builds(fresh_venv) == expect(fresh_venv, "2.9.0 cu128", "1.0 torch29", "cuda-lib-cu12", "attn-kernels-t29")
    assert_check_clean(fresh_venv)


def test_pinned_torch_picks_torch28_and_the_installed_build_keeps_its_torch(fresh_venv, chain_index):
    """The resolver tries torch29 first, backtracks to torch28: only the kept
    build's marked dependencies are installed. Afterwards the installed
    torch28 build requires torch-like 2.8.*: ``-U`` of both keeps the
    consistent pair (pip does not reinstall the same version with another
    build), pinning torch-like 2.9.0 fails naming the requirement, and
    ``--force-reinstall`` moves both to 2.9."""
    files, err = install(fresh_venv, chain_index, "torch-like==2.8.0", "attn-like")
    assert (files.get("torch-like"), files.get("attn-like")) == (TORCH28, ATTN28), err
    assert_marker_warnings(err, fresh_venv, "torch-like 2.8.0", "attn-like 1.0")
    pair28 = expect(fresh_venv, "2.8.0 cu128", "1.0 torch28", "cuda-lib-cu12", "attn-kernels-t28")
    assert builds(fresh_venv) == pair28
    assert_check_clean(fresh_venv)

    files, err = install(fresh_venv, chain_index, "--upgrade", "torch-like", "attn-like")
    assert "torch-like" not in files and "attn-like" not in files, err
    assert builds(fresh_venv) == pair28
    proc = run_pip(fresh_venv, "install", *index_args(chain_index), "torch-like==2.9.0", "attn-like",
                   env=H100, check=False)
    assert proc.returncode == 1 and "attn-like 1.0 depends on torch-like==2.8.*" in proc.stdout + proc.stderr, (
        proc.stdout + proc.stderr)
    assert "Traceback" not in proc.stderr
    assert builds(fresh_venv) == pair28

    files, err = install(fresh_venv, chain_index, "--upgrade", "--force-reinstall", "torch-like", "attn-like")
    assert (files.get("torch-like"), files.get("attn-like")) == (TORCH29, ATTN29), err
    assert "Traceback" not in err, err
    assert builds(fresh_venv) == expect(fresh_venv, "2.9.0 cu128", "1.0 torch29", "cuda-lib-cu12",
                                        "attn-kernels-t28", "attn-kernels-t29")
    assert_check_clean(fresh_venv)


def test_upgrading_torch_alone_names_the_installed_build_it_breaks(fresh_venv, chain_index):
    """``attn-like`` is not part of ``pip install -U torch-like``: pip upgrades
    torch-like and, as for any pinned dependency, says which installed
    project it breaks; so does ``pip check``."""
    install(fresh_venv, chain_index, "torch-like==2.8.0", "attn-like")
    files, err = install(fresh_venv, chain_index, "--upgrade", "torch-like")
    assert files.get("torch-like") == TORCH29, err
    assert "attn-like 1.0 requires torch-like==2.8.*, but you have torch-like 2.9.0" in err, err
    proc = run_pip(fresh_venv, "check", env=H100, check=False)
    assert proc.returncode == 1 and "attn-like 1.0 has requirement torch-like==2.8.*" in proc.stdout, (
        proc.stdout + proc.stderr)


def test_installed_torch29_decides_and_its_markers_come_from_its_dist_info(fresh_venv, chain_index):
    files, err = install(fresh_venv, chain_index, "torch-like==2.9.0")
    assert files.get("torch-like") == TORCH29, err
    files, err = install(fresh_venv, chain_index, "attn-like")
    assert "torch-like" not in files and files.get("attn-like") == ATTN29, err
    assert "Traceback" not in err and "internal error" not in err, err
    assert builds(fresh_venv) == expect(fresh_venv, "2.9.0 cu128", "1.0 torch29", "cuda-lib-cu12", "attn-kernels-t29")
    assert_check_clean(fresh_venv)


def test_no_variants_installs_plain_wheels_whose_markers_see_no_variant(variant_venv, chain_index):
    """docs/index.md, "Dependencies that depend on the chosen variant": with
    ``--no-variants`` pip installs plain wheels, their markers see ``""`` and
    empty sets (no CUDA library, no kernels) and no ABI requirement binds the
    pair."""
    _, report, err = pick(variant_venv, chain_index, "attn-like", "--no-variants", **H100)
    files = installed_files(report)
    assert files == {
        "torch-like": "torch_like-2.9.0-py3-none-any.whl",
        "attn-like": "attn_like-1.0-py3-none-any.whl",
    }, err
    assert_marker_warnings(err, variant_venv, "torch-like 2.9.0", "attn-like 1.0")
    _, report, err = pick(variant_venv, chain_index, "attn-like", "torch-like==2.8.0", "--no-variants", **H100)
    files = installed_files(report)
    assert files == {
        "torch-like": "torch_like-2.8.0-py3-none-any.whl",
        "attn-like": "attn_like-1.0-py3-none-any.whl",
    }, err
