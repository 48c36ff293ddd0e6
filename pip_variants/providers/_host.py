"""Small, never-raising readers of the host that several built-ins share."""

from __future__ import annotations

import os
import sys
from typing import Dict, Optional

__all__ = ["boot_id", "cpu_cache_inputs", "current_machine", "host_fingerprint", "read_hex", "stat_signature"]


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


def boot_id() -> str:
    """What changes at every boot: the kernel's boot id (Linux), the boot
    session's UUID (macOS), the minute Windows started; ``""`` if unknown."""
    try:
        if sys.platform == "darwin":
            from pip_variants.providers._darwin import sysctl_str

            return sysctl_str("kern.bootsessionuuid") or ""
        if os.name == "nt":
            import ctypes
            import time

            uptime = ctypes.windll.kernel32.GetTickCount64  # type: ignore[attr-defined]
            uptime.restype = ctypes.c_ulonglong
            # Minutes, not seconds: two reads in one boot must agree despite clock jitter.
            return f"up-since-{round((time.time() - uptime() / 1000) / 60)}"
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            return f.read().strip()
    except Exception:  # noqa: BLE001 - no such file, no ctypes, another libc: unknown
        return ""


def current_machine() -> str:
    """The machine name, as ``platform.machine()`` gives it."""
    # On POSIX platform.machine() is os.uname().machine; skipping the platform
    # import saves a millisecond or two at start-up.
    if hasattr(os, "uname"):
        return os.uname().machine
    import platform

    return platform.machine()


def _hostname() -> str:
    # os.uname() avoids importing socket (a few ms at start-up) on POSIX.
    if hasattr(os, "uname"):
        return os.uname().nodename
    try:
        import socket

        return socket.gethostname()
    except OSError:
        return ""


def host_fingerprint() -> Dict[str, str]:
    """Cheap identity of this boot of this host, for CPU-derived results.

    The CPU cannot change without a reboot, and a home directory shared
    between hosts must not share results, so boot id plus host name stand in
    for re-probing the CPU.
    """
    return {"platform": sys.platform, "host": _hostname(), "boot_id": boot_id()}


def cpu_cache_inputs(machine: Optional[str], proc_cpuinfo: str, override_env: str) -> Dict[str, str]:
    """The cache inputs of a CPU provider (``x86_64``, ``aarch64``).

    The CPU cannot change without a reboot, so the boot id (and host name, for
    shared home directories) stands in for re-reading it; ``machine`` is the
    provider's fixed machine name (``None``: this host's), ``override_env`` the
    variable that forces its answer.
    """
    inputs = host_fingerprint()
    inputs["machine"] = machine if machine is not None else current_machine()
    inputs["proc_cpuinfo"] = proc_cpuinfo
    inputs[override_env] = os.environ.get(override_env, "")
    return inputs
