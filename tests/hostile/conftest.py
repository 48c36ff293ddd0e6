"""Shared pieces of the hostile suite (issue 5).

Every case here feeds pip-variants something an index, a plugin or the
machine should never give it, and checks the promise of the README: a clear
message naming the file, URL or plugin; an install that succeeds with the
best safe choice or fails cleanly; nothing half installed; never a traceback.

Each test module keeps its own small helpers (``PLAIN``, ``vfile``,
``assert_no_crash``), as the other e2e modules do; the shared fixtures are:

* ``make_plugin``: build a tiny provider-plugin distribution, registered in
  the ``variant_plugins`` entry-point group;
* ``readonly``: a context manager giving a command prefix under which some
  directories are read-only (``chmod`` for ordinary users; a private
  read-only bind mount for root, whom permissions do not stop).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Mapping, Optional, Sequence

import pytest

from support.wheels import build_wheel, normalize_name

# -- provider plugins ------------------------------------------------------------------


def _plugin_wheel(
    out_dir,
    dist: str,
    source: str,
    *,
    namespace: Optional[str] = None,
    version: str = "1.0",
    register: bool = True,
    extra_files: Optional[Mapping[str, str]] = None,
) -> Path:
    """A plugin distribution ``dist`` whose module ``<dist>.plugin`` is ``source``
    (dedented); ``<dist>.plugin:Plugin`` is registered in ``variant_plugins``."""
    module = normalize_name(dist)
    files = {f"{module}/plugin.py": textwrap.dedent(source)}
    if register:
        files[f"{module}-{version}.dist-info/entry_points.txt"] = (
            f"[variant_plugins]\n{namespace or module} = {module}.plugin:Plugin\n"
        )
    files.update(extra_files or {})
    return build_wheel(out_dir, dist, version, files=files)


@pytest.fixture(scope="session")
def make_plugin():
    """``make_plugin(out_dir, dist, source, *, namespace=None, version="1.0",
    register=True, extra_files=None) -> Path``: a plugin wheel whose module
    ``<dist>.plugin`` is ``source`` and whose endpoint is ``<dist>.plugin:Plugin``."""
    return _plugin_wheel


# -- read-only directories -------------------------------------------------------------


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


_BIND_PROBE: Optional[bool] = None


def _bind_mounts_work(tmp: Path) -> bool:
    """Can this root process make a private read-only bind mount?"""
    global _BIND_PROBE
    if _BIND_PROBE is None:
        probe = tmp / "ro-probe"
        probe.mkdir(exist_ok=True)
        try:
            proc = subprocess.run(
                [
                    "unshare",
                    "-m",
                    "sh",
                    "-c",
                    'mount --bind -o ro "$1" "$1" && ! touch "$1/x" 2>/dev/null',
                    "sh",
                    str(probe),
                ],
                capture_output=True,
                timeout=30,
            )
            _BIND_PROBE = proc.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _BIND_PROBE = False
    return _BIND_PROBE


@contextmanager
def _readonly_command(dirs: Sequence[Path], tmp: Path) -> Iterator[List[str]]:
    """Yield a command prefix under which every directory in ``dirs`` is read-only.

    Ordinary users: the directories are ``chmod a-w`` for the duration (and
    restored). Root: ``unshare -m`` plus a read-only bind mount, private to
    the command (the file system really is read-only, ``EROFS``). Skips the
    test when neither works (e.g. Windows, or root without mount rights).
    """
    if sys.platform == "win32":
        pytest.skip("POSIX permissions needed")
    if not _is_root():
        modes = {d: d.stat().st_mode for d in dirs}
        for d in dirs:
            d.chmod(stat.S_IMODE(modes[d]) & ~0o222)
        try:
            yield []
        finally:
            for d, mode in modes.items():
                d.chmod(stat.S_IMODE(mode))
        return
    if not shutil.which("unshare") or not _bind_mounts_work(tmp):
        pytest.skip("running as root without the right to make a read-only bind mount")
    script = " && ".join(
        f'mount --bind -o ro "${{{i}}}" "${{{i}}}"' for i in range(1, len(dirs) + 1)
    )
    script += f' && shift {len(dirs)} && exec "$@"'
    yield ["unshare", "-m", "sh", "-c", script, "sh", *(str(d) for d in dirs)]


@pytest.fixture
def readonly(tmp_path):
    """``with readonly([dir, ...]) as prefix:`` run ``prefix + command`` and those
    directories are read-only for it (see :func:`_readonly_command`)."""

    def factory(dirs: Sequence[Path]):
        return _readonly_command([Path(d) for d in dirs], tmp_path)

    return factory
