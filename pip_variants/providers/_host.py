"""Small, never-raising readers of the host that several built-ins share."""

from __future__ import annotations

import os

__all__ = ["read_hex", "stat_signature"]


def read_hex(path: str) -> int:
    """A sysfs file holding one hex number (``0x8086``), or -1 if unreadable."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return int(f.read().strip(), 16)
    except (OSError, ValueError):
        return -1


def stat_signature(path: str) -> str:
    """``size:mtime`` of a file, for cache keys (``""`` when it is missing)."""
    try:
        st = os.stat(path)
    except OSError:
        return ""
    return f"{st.st_size}:{st.st_mtime_ns}"
