"""End-to-end: build dependencies are variant-aware too.

A CUDA extension built from source (``pip install ./ext``, an sdist) lists torch
in ``[build-system] requires``; with build isolation pip installs it into a
temporary build environment through a child pip (in process with pip 26.0's
``--use-feature=inprocess-build-deps``). Either must pick the build a plain
install picks, and follow the user's options. pip 26.2's
``--use-feature=venv-isolation`` builds in a fresh venv without pip-variants:
the plain build, as documented. The source tree here has an in-tree backend that
writes which build of ``pkg`` it saw into the wheel it builds; ``pip wheel``
builds it against the loopback index.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from support.venvs import index_args, run_pip
from support.wheels import BLAS_RELEASE

pytestmark = pytest.mark.e2e

_PYPROJECT = """\
[build-system]
requires = ["pkg"]
build-backend = "backend"
backend-path = ["."]

[project]
name = "ext"
version = "1.0"
"""

# The build of pkg the backend sees: the label in its variant.json, or "plain".
_BACKEND = '''\
import base64, hashlib, importlib.metadata, json, os, zipfile


def _seen():
    text = importlib.metadata.distribution("pkg").read_text("variant.json")
    return "plain" if text is None else next(iter(json.loads(text)["variants"]))


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "ext-1.0-py3-none-any.whl"
    files = {
        "ext_built_with.txt": _seen(),
        "ext-1.0.dist-info/METADATA": "Metadata-Version: 2.1\\nName: ext\\nVersion: 1.0\\n",
        "ext-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    }
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        for path, text in files.items():
            data = text.encode()
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(data)}")
        record.append("ext-1.0.dist-info/RECORD,,")
        z.writestr("ext-1.0.dist-info/RECORD", "\\n".join(record) + "\\n")
    return name
'''


@pytest.fixture
def source_tree(tmp_path) -> Path:
    tree = tmp_path / "ext"
    tree.mkdir()
    (tree / "pyproject.toml").write_text(_PYPROJECT)
    (tree / "backend.py").write_text(_BACKEND)
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
