"""Built-in ``x86_64`` provider: the ``level`` feature of x86-64-variant-provider.

Emits ``level`` = the highest x86-64 psABI microarchitecture level this CPU
supports, then every lower one (``["v3", "v2", "v1"]``), as uv's vendored copy
does (PROVIDERS.md §2.4). The per-extension features of the WheelNext plugin
are not emitted, so such properties are unsupported, like in uv.

Detection must be cheap because it may run on every pip start: on Linux we
read the ``flags`` line of the first block of ``/proc/cpuinfo`` (~0.1 ms)
instead of ``cpuinfo.get_cpu_info()``, which forks a CPUID subprocess and runs
external tools (~1 s).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Tuple

from pip_variants.providers._host import cpu_cache_inputs, current_machine
from pip_variants.providers.base import FeatureConfig, choice_override

__all__ = [
    "X8664Provider",
    "LEVELS",
    "LEVEL_FLAGS",
    "OVERRIDE_ENV",
    "DEFAULT_LEVEL",
    "normalize_flags",
    "level_from_flags",
    "levels_from",
    "read_proc_cpuinfo_flags",
    "detect_flags",
    "is_x86_64",
    "current_machine",
]

logger = logging.getLogger(__name__)

NAMESPACE = "x86_64"
FEATURE = "level"
OVERRIDE_ENV = "PIP_VARIANTS_X86_64_LEVEL"
PROC_CPUINFO = "/proc/cpuinfo"

LEVELS: Tuple[str, ...] = ("v1", "v2", "v3", "v4")
# Without CPU information uv assumes v2 (the baseline of current distributions).
DEFAULT_LEVEL = "v2"

_V2 = frozenset({"cx16", "lahf_lm", "popcnt", "sse3", "ssse3", "sse4_1", "sse4_2"})
_V3 = _V2 | {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "lzcnt", "movbe"}
_V4 = _V3 | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}
# Flags each level needs, cumulative (x86-64 psABI). v1 is the x86-64 baseline.
LEVEL_FLAGS: Dict[str, FrozenSet[str]] = {"v1": frozenset(), "v2": _V2, "v3": _V3, "v4": _V4}

# Other spellings of the same CPUID bits: Linux names SSE3 "pni" and LZCNT
# "abm"; macOS sysctl (lower-cased by py-cpuinfo) says "sse4.1", "avx1.0",
# "lahf", "cmpxchg16b".
_ALIASES = {
    "pni": "sse3",
    "abm": "lzcnt",
    "lahf": "lahf_lm",
    "avx1_0": "avx",
    "cmpxchg16b": "cx16",
}

_X86_64_MACHINES = frozenset({"x86_64", "amd64", "x64", "em64t"})


def normalize_flags(flags: Iterable[str]) -> FrozenSet[str]:
    """Lower-case, ``.``→``_`` and map aliases, keeping the original too."""
    out = set()
    for flag in flags:
        name = flag.strip().lower().replace(".", "_")
        if not name:
            continue
        out.add(name)
        alias = _ALIASES.get(name)
        if alias:
            out.add(alias)
    return frozenset(out)


def level_from_flags(flags: Iterable[str]) -> str:
    """The highest level whose flags are all present."""
    have = normalize_flags(flags)
    best = "v1"
    for level in LEVELS:
        if LEVEL_FLAGS[level] <= have:
            best = level
        else:
            break  # levels are cumulative: a gap ends the walk
    return best


def levels_from(level: str) -> List[str]:
    """``"v3"`` → ``["v3", "v2", "v1"]``."""
    return list(reversed(LEVELS[: LEVELS.index(level) + 1]))


def is_x86_64(machine: Optional[str] = None) -> bool:
    """Whether this interpreter runs as x86-64 (not i686, not arm64)."""
    name = (machine if machine is not None else current_machine()).lower()
    # A 32-bit interpreter on a 64-bit kernel reports x86_64 too.
    return name in _X86_64_MACHINES and sys.maxsize > 2**32


def read_proc_cpuinfo_flags(path: str = PROC_CPUINFO) -> Optional[FrozenSet[str]]:
    """The ``flags`` of the first processor in a Linux ``/proc/cpuinfo``.

    Only the first block is read: all cores of an x86 system share one ISA,
    and the kernel renders the file lazily, so stopping early saves time on
    many-core machines. ``None`` when the file or the line is missing, or
    the line is empty.
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break  # end of the first processor block
                key, sep, value = line.partition(":")
                if sep and key.strip() == "flags":
                    # an empty line says nothing about the CPU (uv then assumes the default, v2)
                    return normalize_flags(value.split()) if value.strip() else None
    except OSError:
        return None
    return None


def _windows_flags() -> Optional[FrozenSet[str]]:
    """Flags implied by ``IsProcessorFeaturePresent`` (Windows 10 20H1+ knows AVX*).

    It also reflects whether the OS saves the AVX/AVX-512 register state
    (XCR0), which raw CPUID does not. Every CPU with AVX2 has the other v3
    extensions (BMI1/2, FMA, F16C, LZCNT, MOVBE) and every CPU with SSE4.2 and
    CMPXCHG16B has POPCNT and LAHF in 64-bit mode, so they are inferred.
    Older Windows answers False for unknown ids, which under-reports (safe).
    """
    try:
        import ctypes

        present = ctypes.windll.kernel32.IsProcessorFeaturePresent  # type: ignore[attr-defined]
    except Exception:
        return None
    pf = {
        "sse3": 13, "cx16": 14, "ssse3": 36, "sse4_1": 37, "sse4_2": 38,
        "avx": 39, "avx2": 40, "avx512f": 41,
    }
    have = {name for name, pid in pf.items() if present(pid)}
    if not have & {"ssse3", "sse4_1", "sse4_2", "avx", "avx2", "avx512f"}:
        return None  # ids unknown to this Windows (or a pre-SSSE3 CPU): ask py-cpuinfo
    flags = set(have)
    if _V2 - {"popcnt", "lahf_lm"} <= have:
        flags |= {"popcnt", "lahf_lm"}
        if {"avx", "avx2"} <= have:
            flags |= _V3
            if "avx512f" in have:
                flags |= _V4
    return frozenset(flags)


def _macos_flags() -> Optional[FrozenSet[str]]:
    """The CPUID flags macOS lists in ``machdep.cpu.{features,leaf7_features,extfeatures}``.

    Read with ``sysctlbyname`` (no subprocess). Under Rosetta 2 they describe
    the CPU Rosetta emulates, which is what x86-64 code can use there.
    """
    from pip_variants.providers._darwin import sysctl_str

    words: List[str] = []
    for name in ("machdep.cpu.features", "machdep.cpu.leaf7_features", "machdep.cpu.extfeatures"):
        words += (sysctl_str(name) or "").split()
    return normalize_flags(words) if words else None


def _py_cpuinfo_flags() -> Optional[FrozenSet[str]]:
    """Flags from py-cpuinfo, using its cheapest source for this OS."""
    try:
        # Lazy: importing py-cpuinfo alone costs ~20 ms.
        from cpuinfo import cpuinfo as _cpuinfo
    except Exception:
        return None
    info: dict = {}
    try:
        if sys.platform == "darwin" and hasattr(_cpuinfo, "_get_cpu_info_from_sysctl"):
            # One `sysctl machdep.cpu ...` run instead of the full probe.
            info = _cpuinfo._get_cpu_info_from_sysctl()
        if not info.get("flags"):
            info = _cpuinfo.get_cpu_info()
    except Exception as exc:  # py-cpuinfo is best effort by design
        logger.debug("x86_64: py-cpuinfo failed: %s", exc)
        return None
    flags = info.get("flags") or []
    return normalize_flags(flags) if flags else None


def detect_flags(proc_cpuinfo: str = PROC_CPUINFO) -> Optional[FrozenSet[str]]:
    """CPU flags from the fastest source available, ``None`` if none works.

    On Linux only ``/proc/cpuinfo`` counts, as for uv: where it has no flags (an
    emulator such as qemu-user, a sandbox), both take the default level rather
    than asking CPUID, which may describe a CPU the kernel does not expose."""
    on_linux = sys.platform.startswith("linux")
    if on_linux or os.path.exists(proc_cpuinfo):
        flags = read_proc_cpuinfo_flags(proc_cpuinfo)
        if flags is not None or on_linux:
            return flags
    if sys.platform == "win32":
        flags = _windows_flags()
        if flags is not None:
            return flags
    if sys.platform == "darwin":
        flags = _macos_flags()
        if flags is not None:
            return flags
    return _py_cpuinfo_flags()


def _override() -> Optional[str]:
    return choice_override(OVERRIDE_ENV, LEVELS, NAMESPACE)


class X8664Provider:
    """Built-in stand-in for ``provider-variant-x86-64`` / ``x86-64-variant-provider``."""

    namespace = NAMESPACE
    packages: Tuple[str, ...] = ("provider-variant-x86-64", "x86-64-variant-provider")
    #: provider-variant-x86-64 0.0.1 (level), x86-64-variant-provider 0.2.1 (uv's)
    versions: Mapping[str, Tuple[str, ...]] = {"provider-variant-x86-64": ("0.0.1",),
                                               "x86-64-variant-provider": ("0.2.1",)}
    #: WheelNext's plugin also has one feature per CPU extension (value ``on``);
    #: only ``level`` is answered here
    partly_for: Tuple[str, ...] = ("provider-variant-x86-64",)
    plugin_apis: Tuple[str, ...] = (
        "provider_variant_x86_64.plugin:X8664Plugin",
        "provider_variant_x86_64",
        "x86_64_variant_provider",
    )

    def __init__(self, *, proc_cpuinfo: str = PROC_CPUINFO, machine: Optional[str] = None) -> None:
        self._proc_cpuinfo = proc_cpuinfo
        self._machine = machine

    def supported_configs(self) -> List[FeatureConfig]:
        # The override is an explicit target description (e.g. a profile for
        # another machine), so it applies even on a non-x86 host.
        level = _override()
        if level is None:
            if not is_x86_64(self._machine):
                return []
            flags = detect_flags(self._proc_cpuinfo)
            if flags is None:
                logger.debug("x86_64: no CPU flags available; assuming %s", DEFAULT_LEVEL)
                level = DEFAULT_LEVEL
            else:
                level = level_from_flags(flags)
        return [FeatureConfig(FEATURE, tuple(levels_from(level)))]

    def all_configs(self) -> List[FeatureConfig]:
        return [FeatureConfig(FEATURE, tuple(reversed(LEVELS)))]

    def cache_inputs(self) -> Dict[str, str]:
        return cpu_cache_inputs(self._machine, self._proc_cpuinfo, OVERRIDE_ENV)
