"""Driving uv, the reference peer, for differential tests.

uv 0.13.9+ reads wheel variants behind ``--preview-features wheel-variants``;
its choice is read from its resolver log (``Selecting: pkg==1.0 [...] (file)``)
of a ``uv pip install --dry-run``. ``PIP_VARIANTS_TEST_UV`` names another binary.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from typing import Optional, Tuple

import pytest

from .venvs import scrubbed_env

__all__ = ["UV", "MIN_UV", "uv_version", "require_uv", "uv_pick"]

UV = os.environ.get("PIP_VARIANTS_TEST_UV") or shutil.which("uv")
MIN_UV = (0, 13, 9)


def uv_version() -> Optional[Tuple[int, ...]]:
    if not UV:
        return None
    try:
        out = subprocess.run([UV, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(x) for x in match.groups()) if match else None


def require_uv() -> str:
    """The uv binary, or skip the test: uv missing or older than variant support."""
    version = uv_version()
    if version is None:
        pytest.skip("uv is not on PATH")
    if version < MIN_UV:
        pytest.skip(
            f"uv {'.'.join(map(str, version))} predates wheel-variant support "
            f"checked here ({'.'.join(map(str, MIN_UV))})"
        )
    return str(UV)


def uv_pick(uv: str, python, index, requirement: str, **env) -> str:
    """The file uv would install for ``requirement`` from ``index`` (a LocalIndex or anything with ``.url``)."""
    cmd = [
        uv, "pip", "install", "--no-config", "--no-cache", "--preview-features", "wheel-variants",
        "--dry-run", "-v", "--python", str(python), "--index-url", index.url, requirement,
    ]
    with tempfile.TemporaryDirectory(prefix="pv-uv-") as tmp:
        proc = subprocess.run(
            cmd,
            env=scrubbed_env(env, tmp=tmp),
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
    name = re.escape(requirement)
    found = re.findall(rf"Selecting: {name}==\S+ \[[^\]]*\] \(([^)]+)\)", proc.stderr)
    assert proc.returncode == 0 and found, (
        f"uv failed or logged no selection\n{' '.join(cmd)}\n"
        f"{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    )
    return found[-1]
