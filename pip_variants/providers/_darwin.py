"""macOS ``sysctlbyname`` through ctypes: CPU facts without spawning ``sysctl``.

The one place that talks to libc on macOS; the CPU providers call
:func:`sysctl_str` / :func:`sysctl_int`, which tests replace.
"""

from __future__ import annotations

import logging
from typing import Optional

__all__ = ["sysctl_bytes", "sysctl_str", "sysctl_int"]

logger = logging.getLogger(__name__)

_libc = None


def _load_libc():
    global _libc
    if _libc is None:
        import ctypes
        import ctypes.util

        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.dylib", use_errno=True)
    return _libc


def sysctl_bytes(name: str) -> Optional[bytes]:
    """The raw value of sysctl ``name``, or None when it does not exist or fails."""
    try:
        import ctypes

        libc = _load_libc()
        size = ctypes.c_size_t(0)
        key = name.encode("ascii")
        if libc.sysctlbyname(key, None, ctypes.byref(size), None, 0) != 0 or size.value == 0:
            return None
        buf = ctypes.create_string_buffer(size.value)
        if libc.sysctlbyname(key, buf, ctypes.byref(size), None, 0) != 0:
            return None
        return buf.raw[: size.value]
    except Exception as exc:  # not macOS, no libc: the caller falls back
        logger.debug("sysctlbyname(%s) failed: %s", name, exc)
        return None


def sysctl_str(name: str) -> Optional[str]:
    raw = sysctl_bytes(name)
    return raw.split(b"\0", 1)[0].decode("utf-8", "replace") if raw is not None else None


def sysctl_int(name: str) -> Optional[int]:
    raw = sysctl_bytes(name)
    if raw is None or len(raw) not in (4, 8):
        return None
    return int.from_bytes(raw, "little", signed=True)
