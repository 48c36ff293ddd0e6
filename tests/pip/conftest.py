"""Fixtures for the in-process tests of :mod:`pip_variants._pip` against the real pip."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]


#: what configure_finder exports for pip's subprocesses
_EXPORTED = (
    "PIP_NO_VARIANTS", "PIP_VARIANT", "PIP_VARIANT_PROFILE", "PIP_ALLOW_VARIANT_PLUGIN", "PIP_VARIANT_ENABLE",
    "PIP_VARIANT_STRICT", "PIP_VARIANT_EXCLUDE", "PIP_VARIANT_DISABLE", "PIP_VARIANT_CONFIG",
)


@pytest.fixture
def patched(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """Every hook installed on the real pip; everything restored afterwards."""
    import pip_variants._pip as integration

    for name in _EXPORTED:
        monkeypatch.delenv(name, raising=False)
    integration.uninstall()
    integration.install()
    try:
        yield integration
    finally:
        integration.uninstall()
        # configure_finder exports settings for pip's subprocesses
        for name in _EXPORTED:
            os.environ.pop(name, None)


@pytest.fixture
def subprocess_env() -> dict:
    """Environment for ``python -c`` children: the repository first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PYTHONPATH"] = str(REPO)
    env.pop("PYTHONSTARTUP", None)
    return env


@pytest.fixture(scope="session")
def python() -> str:
    return sys.executable


@pytest.fixture
def pkg_dir(tmp_path: Path) -> Path:
    """A find-links folder with the usual ``pkg`` 1.0 release (tests/pip/_helpers.py)."""
    from _helpers import build_pkg

    d = tmp_path / "wheels"
    d.mkdir()
    build_pkg(d)
    return d
