"""Built-in ``aarch64`` provider: the ``version`` feature of aarch64-variant-provider.

Emits ``version`` = the detected Arm architecture version and every lower one,
among ``8.4a, 8.3a, 8.2a, 8.1a, 8a`` (capped at 8.4a like uv; PROVIDERS.md §2.5).

Linux: each core's model (``CPU implementer``/``CPU part``) gives a floor
from a table (unknown cores: 8a); the lowest floor over all cores is taken
(big.LITTLE systems run code on either kind), then raised while the kernel
reports every HWCAP that the next version makes mandatory on all cores.
macOS: the same walk over the ``hw.optional`` feature flags of sysctl (Apple
M1-M4 have every flag up to 8.4a, as uv says); an "Apple M" chip whose flags
cannot be read is 8.4a too. Windows on Arm: 8a, as uv.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from pip_variants.providers.base import FeatureConfig, choice_override

__all__ = [
    "AArch64Provider",
    "VERSIONS",
    "OVERRIDE_ENV",
    "DEFAULT_VERSION",
    "Core",
    "parse_proc_cpuinfo",
    "version_from_cores",
    "versions_from",
    "is_aarch64",
    "current_machine",
]

logger = logging.getLogger(__name__)

NAMESPACE = "aarch64"
FEATURE = "version"
OVERRIDE_ENV = "PIP_VARIANTS_AARCH64_VERSION"
PROC_CPUINFO = "/proc/cpuinfo"

VERSIONS: Tuple[str, ...] = ("8a", "8.1a", "8.2a", "8.3a", "8.4a")  # ascending
DEFAULT_VERSION = "8a"

# HWCAP names (as in /proc/cpuinfo "Features") that become mandatory with each
# version; checking only these avoids trusting optional extensions.
_NEW_HWCAPS: Mapping[str, FrozenSet[str]] = {
    "8.1a": frozenset({"atomics", "asimdrdm", "crc32"}),  # LSE, RDM
    "8.2a": frozenset({"dcpop"}),  # DC CVAP
    "8.3a": frozenset({"jscvt", "fcma", "lrcpc"}),
    "8.4a": frozenset({"dit", "uscat", "ilrcpc", "flagm"}),  # DIT, LSE2, LRCPC2, FlagM
}

# (implementer, part) → architecture version the core implements (capped).
_CORE_VERSIONS: Mapping[Tuple[int, int], str] = {
    # Arm Ltd
    **{(0x41, p): "8a" for p in (0xD02, 0xD03, 0xD04, 0xD07, 0xD08, 0xD09)},  # A34..A73
    **{
        (0x41, p): "8.2a"
        for p in (0xD05, 0xD06, 0xD0A, 0xD0B, 0xD0C, 0xD0D, 0xD0E, 0xD41, 0xD42, 0xD43,
                  0xD44, 0xD4A, 0xD4B, 0xD4C)
    },  # A55, A65, A75, A76, Neoverse N1, A77, A78, X1, Neoverse E1 ...
    **{
        (0x41, p): "8.4a"
        for p in (0xD40, 0xD46, 0xD47, 0xD48, 0xD49, 0xD4D, 0xD4E, 0xD4F, 0xD80, 0xD81,
                  0xD82, 0xD84, 0xD85, 0xD87, 0xD8E)
    },  # Neoverse V1/N2/V2/V3/N3, A510+, X2+ (Armv9 is >= 8.5)
    (0x42, 0x516): "8.1a",  # Broadcom Vulcan
    (0x43, 0x0A1): "8a",  # Cavium ThunderX
    (0x43, 0x0A2): "8a",
    (0x43, 0x0A3): "8a",
    (0x43, 0x0AF): "8.1a",  # ThunderX2
    (0x43, 0x0B8): "8.3a",  # ThunderX3
    (0x46, 0x001): "8.2a",  # Fujitsu A64FX
    (0x48, 0xD01): "8.2a",  # HiSilicon Kunpeng 920 (TaiShan v110)
    (0x4E, 0x003): "8a",  # NVIDIA Denver 2
    (0x4E, 0x004): "8.2a",  # NVIDIA Carmel
    (0x50, 0x000): "8a",  # APM X-Gene
    (0x51, 0x800): "8a",  # Qualcomm Kryo 2xx (A73/A53 based)
    (0x51, 0x801): "8a",
    (0x51, 0x802): "8.2a",  # Kryo 3xx/4xx (A75/A76/A55 based)
    (0x51, 0x803): "8.2a",
    (0x51, 0x804): "8.2a",
    (0x51, 0x805): "8.2a",
    (0x51, 0xC00): "8a",  # Falkor
    (0x51, 0x001): "8.4a",  # Oryon
    (0x6D, 0xD49): "8.4a",  # Microsoft Azure Cobalt 100 (Neoverse N2)
}
# Implementers whose every server/desktop core is at least 8.4a.
_IMPLEMENTER_VERSIONS: Mapping[int, str] = {
    0x61: "8.4a",  # Apple M-series (Asahi Linux)
    0xC0: "8.4a",  # Ampere's own cores (AmpereOne); Altra reports Arm's N1
}

_AARCH64_MACHINES = frozenset({"aarch64", "arm64", "aarch64_be", "armv8b", "armv8l"})


@dataclass(frozen=True)
class Core:
    """One ``processor`` block of ``/proc/cpuinfo``."""

    implementer: Optional[int]
    part: Optional[int]
    features: FrozenSet[str]


def _int(text: str) -> Optional[int]:
    try:
        return int(text.strip(), 0)
    except ValueError:
        return None


def parse_proc_cpuinfo(text: str) -> List[Core]:
    """The cores of an arm64 Linux ``/proc/cpuinfo`` (blocks split by blank lines)."""
    cores: List[Core] = []
    for block in text.split("\n\n"):
        fields: Dict[str, str] = {}
        for line in block.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                fields[key.strip().lower()] = value.strip()
        if "features" not in fields and "cpu part" not in fields:
            continue  # e.g. a trailing "Hardware" block
        cores.append(
            Core(
                implementer=_int(fields["cpu implementer"]) if "cpu implementer" in fields else None,
                part=_int(fields["cpu part"]) if "cpu part" in fields else None,
                features=frozenset(fields.get("features", "").lower().split()),
            )
        )
    return cores


def _core_floor(core: Core) -> str:
    if core.implementer is not None:
        if core.part is not None:
            known = _CORE_VERSIONS.get((core.implementer, core.part))
            if known:
                return known
        known = _IMPLEMENTER_VERSIONS.get(core.implementer)
        if known:
            return known
    return DEFAULT_VERSION


def version_from_cores(cores: Sequence[Core]) -> str:
    """Lowest per-core floor, then walk up while all cores have the next HWCAPs."""
    if not cores:
        return DEFAULT_VERSION
    index = min(VERSIONS.index(_core_floor(c)) for c in cores)
    common = frozenset.intersection(*(c.features for c in cores))
    while index + 1 < len(VERSIONS) and _NEW_HWCAPS[VERSIONS[index + 1]] <= common:
        index += 1
    return VERSIONS[index]


def versions_from(version: str) -> List[str]:
    """``"8.2a"`` → ``["8.2a", "8.1a", "8a"]``."""
    return list(reversed(VERSIONS[: VERSIONS.index(version) + 1]))


def current_machine() -> str:
    """The machine name, as ``platform.machine()`` gives it."""
    # On POSIX platform.machine() is os.uname().machine; skipping the platform
    # import saves a millisecond or two at start-up.
    if hasattr(os, "uname"):
        return os.uname().machine
    import platform

    return platform.machine()


def is_aarch64(machine: Optional[str] = None) -> bool:
    """Whether this interpreter runs as 64-bit Arm."""
    name = (machine if machine is not None else current_machine()).lower()
    return name in _AARCH64_MACHINES and sys.maxsize > 2**32


# macOS names the same Arm features in sysctl (``hw.optional.arm.FEAT_*``, and
# the older ``hw.optional.armv8_*`` names): mapped to the HWCAP names above.
_MACOS_FEATURES: Mapping[str, Tuple[str, ...]] = {
    "atomics": ("hw.optional.arm.FEAT_LSE", "hw.optional.armv8_1_atomics"),
    "asimdrdm": ("hw.optional.arm.FEAT_RDM",),
    "crc32": ("hw.optional.armv8_crc32", "hw.optional.arm.FEAT_CRC32"),
    "dcpop": ("hw.optional.arm.FEAT_DPB",),
    "jscvt": ("hw.optional.arm.FEAT_JSCVT",),
    "fcma": ("hw.optional.arm.FEAT_FCMA", "hw.optional.armv8_3_compnum"),
    "lrcpc": ("hw.optional.arm.FEAT_LRCPC",),
    "dit": ("hw.optional.arm.FEAT_DIT",),
    "uscat": ("hw.optional.arm.FEAT_LSE2",),
    "ilrcpc": ("hw.optional.arm.FEAT_LRCPC2",),
    "flagm": ("hw.optional.arm.FEAT_FlagM",),
}


def macos_features() -> FrozenSet[str]:
    """The HWCAP names whose macOS sysctl flag is 1 (Apple M1-M4 have all of them)."""
    from pip_variants.providers._darwin import sysctl_int

    return frozenset(
        hwcap for hwcap, names in _MACOS_FEATURES.items() if any(sysctl_int(n) == 1 for n in names)
    )


def _macos_version() -> str:
    """The feature flags decide, walking up as on Linux; an "Apple M" chip whose
    flags cannot be read is 8.4a, as uv and the plugin say for M1-M5."""
    from pip_variants.providers._darwin import sysctl_str

    version = version_from_cores([Core(None, None, macos_features())])
    if version == DEFAULT_VERSION:
        brand = sysctl_str("machdep.cpu.brand_string") or ""
        if brand.startswith("Apple M"):
            return "8.4a"
    return version


def detect_version(proc_cpuinfo: str = PROC_CPUINFO) -> str:
    """The Arm version of this machine, best effort (default 8a)."""
    if sys.platform == "darwin":
        return _macos_version()
    try:
        with open(proc_cpuinfo, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return DEFAULT_VERSION  # Windows on Arm, or no /proc: uv also says 8a
    return version_from_cores(parse_proc_cpuinfo(text))


def _override() -> Optional[str]:
    return choice_override(OVERRIDE_ENV, VERSIONS, NAMESPACE, aliases={"8.0a": "8a"})


class AArch64Provider:
    """Built-in stand-in for ``provider-variant-aarch64`` / ``aarch64-variant-provider``."""

    namespace = NAMESPACE
    packages: Tuple[str, ...] = ("provider-variant-aarch64", "aarch64-variant-provider")
    #: provider-variant-aarch64 0.0.1 (version), aarch64-variant-provider 0.2.0 (uv's)
    versions: Mapping[str, Tuple[str, ...]] = {"provider-variant-aarch64": ("0.0.1",),
                                               "aarch64-variant-provider": ("0.2.0",)}
    #: WheelNext's plugin also has one feature per CPU extension (value ``on``)
    #: and versions past 8.4a; only ``version`` up to 8.4a is answered here
    partly_for: Tuple[str, ...] = ("provider-variant-aarch64",)
    plugin_apis: Tuple[str, ...] = (
        "provider_variant_aarch64.plugin:AArch64Plugin",
        "provider_variant_aarch64",
        "aarch64_variant_provider",
    )

    def __init__(self, *, proc_cpuinfo: str = PROC_CPUINFO, machine: Optional[str] = None) -> None:
        self._proc_cpuinfo = proc_cpuinfo
        self._machine = machine

    def supported_configs(self) -> List[FeatureConfig]:
        # Like the x86_64 override, an explicit target wins over the host.
        version = _override()
        if version is None:
            if not is_aarch64(self._machine):
                return []
            version = detect_version(self._proc_cpuinfo)
        return [FeatureConfig(FEATURE, tuple(versions_from(version)))]

    def all_configs(self) -> List[FeatureConfig]:
        return [FeatureConfig(FEATURE, tuple(reversed(VERSIONS)))]

    def cache_inputs(self) -> Dict[str, str]:
        from pip_variants.providers.cache import host_fingerprint

        inputs = host_fingerprint()
        inputs["machine"] = self._machine if self._machine is not None else current_machine()
        inputs["proc_cpuinfo"] = self._proc_cpuinfo
        inputs[OVERRIDE_ENV] = os.environ.get(OVERRIDE_ENV, "")
        return inputs
