"""Helpers for the CLI tests: run ``python -m pip_variants`` as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Mapping, Optional

import pytest

from clihelpers import _SCRUB_PREFIXES, cli_env  # noqa: E402


@pytest.fixture
def run_cli(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess]:
    """``run_cli("platform", "--json", env={...})``: the CLI in a subprocess."""

    def run(*args: str, env: Optional[Mapping[str, Optional[str]]] = None, timeout: float = 120,
            cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "pip_variants", *args],
            capture_output=True, text=True, env=cli_env(tmp_path, env), timeout=timeout,
            cwd=str(cwd or tmp_path),
        )

    return run


@pytest.fixture
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The same isolation for in-process tests."""
    for k in list(os.environ):
        if k.startswith(_SCRUB_PREFIXES):
            monkeypatch.delenv(k)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_VARIANTS_CACHE_DIR", str(tmp_path / "variants-cache"))
    return tmp_path
