"""End-to-end: build dependencies are variant-aware too.

A CUDA extension built from source (``pip install ./ext``, an sdist) lists torch
in ``[build-system] requires``; with build isolation pip installs it into a
temporary build environment through a child pip (in process with pip 26.0's
``--use-feature=inprocess-build-deps``). Either must pick the build a plain
install picks, and follow the user's options. pip 26.2's
``--use-feature=venv-isolation`` builds in a fresh venv without pip-variants:
the plain build, as documented. The source tree here has an in-tree backend
(``support.wheels.source_tree_files``) that writes which build of ``pkg`` it saw
into the wheel it builds; ``pip wheel`` builds it against the loopback index.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from support.venvs import index_args, run_pip
from support.wheels import BLAS_RELEASE, source_tree_files

pytestmark = pytest.mark.e2e

# The build of pkg the backend sees: the label in its variant.json, or "plain".
_SEEN = """\
def _seen():
    text = importlib.metadata.distribution("pkg").read_text("variant.json")
    return "plain" if text is None else next(iter(json.loads(text)["variants"]))
"""


@pytest.fixture
def source_tree(tmp_path) -> Path:
    tree = tmp_path / "ext"
    tree.mkdir()
    files = source_tree_files("ext", "1.0", '{"ext_built_with.txt": _seen()}', requires=["pkg"], prelude=_SEEN)
    for rel, text in files.items():
        (tree / rel).write_text(text)
    return tree


def _pip_at_least(venv, major: int, minor: int) -> bool:
    return tuple(int(part) for part in venv.pip_version.split(".")[:2]) >= (major, minor)


def _built_against(venv, index, tree: Path, out: Path, *options: str) -> str:
    proc = run_pip(venv, "wheel", "--no-deps", "-w", out, *index_args(index), *options, tree)
    assert "Traceback" not in proc.stderr, proc.stderr
    with zipfile.ZipFile(out / "ext-1.0-py3-none-any.whl") as wheel:
        return wheel.read("ext_built_with.txt").decode()


@pytest.mark.parametrize(
    "options, expected",
    [
        ((), "ob"),  # what `pip install pkg` picks here (openblas first)
        (("--variant", "pkg=mkl"), "mkl"),  # the user's options reach the child pip
        (("--no-variants",), "plain"),
    ],
)
def test_build_dependencies_get_the_variant(variant_venv, publish, index, source_tree, tmp_path, options, expected):
    publish("pkg", "1.0", BLAS_RELEASE)
    assert _built_against(variant_venv, index, source_tree, tmp_path / "wheels", *options) == expected


@pytest.mark.parametrize("options, expected", [((), "ob"), (("--variant", "pkg=mkl"), "mkl")])
def test_in_process_build_dependencies_get_the_variant(
    variant_venv, publish, index, source_tree, tmp_path, options, expected
):
    if not _pip_at_least(variant_venv, 26, 0):
        pytest.skip("--use-feature=inprocess-build-deps is new in pip 26.0")
    publish("pkg", "1.0", BLAS_RELEASE)
    seen = _built_against(variant_venv, index, source_tree, tmp_path / "wheels",
                          "--use-feature=inprocess-build-deps", *options)
    assert seen == expected


def test_venv_isolation_builds_without_variants(variant_venv, publish, index, source_tree, tmp_path):
    """pip 26.2's venv isolation builds in a fresh venv that has no pip-variants:
    the plain build, as documented (troubleshooting, user guide)."""
    if not _pip_at_least(variant_venv, 26, 2):
        pytest.skip("--use-feature=venv-isolation is new in pip 26.2")
    publish("pkg", "1.0", BLAS_RELEASE)
    seen = _built_against(variant_venv, index, source_tree, tmp_path / "wheels", "--use-feature=venv-isolation")
    assert seen == "plain"
