"""Built-in ``aarch64`` provider: the ``version`` feature of aarch64-variant-provider.

Emits ``version`` = the detected Arm architecture version and every lower one,
among ``8.4a, 8.3a, 8.2a, 8.1a, 8a`` (capped at 8.4a), deciding as uv's vendored
provider does, so that both install the same wheel on the same machine:

Linux: each core's model (``CPU implementer``/``CPU part``) gives a ceiling
from a table of known server and Apple cores (any other core: 8a); the lowest
ceiling over all cores holds (big.LITTLE systems run code on either kind).
Up to it, the version climbs from 8a only while the kernel reports, on every
core, each HWCAP the next version needs (pointer authentication for 8.3a, the
FP16 and dot-product extensions for 8.4a, ...): a build for a version the
kernel does not fully expose is never chosen.
macOS: "Apple M1" to "M5" are 8.4a; any other chip is 8a. Windows on Arm: 8a.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from pip_variants.providers._host import cpu_cache_inputs, current_machine
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

# The HWCAPs (as /proc/cpuinfo "Features" names them) each version needs on top
# of the ones before it: the kernel's bits that uv checks for that step.
_NEW_HWCAPS: Mapping[str, FrozenSet[str]] = {
    "8.1a": frozenset({"fp", "asimd", "crc32", "atomics", "asimdrdm"}),
    "8.2a": frozenset({"dcpop"}),  # DC CVAP
    "8.3a": frozenset({"jscvt", "fcma", "lrcpc", "paca", "pacg"}),  # and pointer authentication
    "8.4a": frozenset({"fphp", "asimdhp", "asimddp", "asimdfhm", "dit", "uscat", "ilrcpc", "flagm"}),
}


def _apple_parts() -> Dict[Tuple[int, int], str]:
    # M1 (Firestorm/Icestorm), M2 (Avalanche/Blizzard), M3 and M4 cores, as Linux (Asahi) reports them
    ranges = ((0x020, 0x025), (0x028, 0x029), (0x030, 0x035), (0x038, 0x039), (0x042, 0x045),
              (0x048, 0x049), (0x052, 0x055), (0x058, 0x059), (0x062, 0x065), (0x068, 0x069))
    return {(0x61, part): "8.4a" for low, high in ranges for part in range(low, high + 1)}


# (implementer, part) -> the highest version a core reaches; any core not listed is 8a.
_CORE_CEILINGS: Mapping[Tuple[int, int], str] = {
    (0x41, 0xD0C): "8.2a",  # Neoverse N1 (Graviton2, Altra)
    (0x41, 0xD40): "8.4a",  # Neoverse V1 (Graviton3)
    (0x41, 0xD49): "8.4a",  # Neoverse N2
    (0x41, 0xD4F): "8.4a",  # Neoverse V2 (Grace, Graviton4)
    (0x41, 0xD83): "8.4a",  # Neoverse V3AE
    (0x6D, 0xD49): "8.4a",  # Microsoft Azure Cobalt 100 (Neoverse N2)
    (0x42, 0x516): "8.1a",  # Broadcom Vulcan / ThunderX2
    (0x43, 0x0AF): "8.1a",  # Cavium ThunderX2
    (0x46, 0x001): "8.2a",  # Fujitsu A64FX
    (0xC0, 0xAC3): "8.4a",  # AmpereOne
    (0xC0, 0xAC4): "8.4a",  # AmpereOne A
    **_apple_parts(),
}
_APPLE_M_CHIPS = frozenset({"M1", "M2", "M3", "M4", "M5"})

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


def _core_ceiling(core: Core) -> str:
    if core.implementer is None or core.part is None:
        return DEFAULT_VERSION
    return _CORE_CEILINGS.get((core.implementer, core.part), DEFAULT_VERSION)


def version_from_cores(cores: Sequence[Core]) -> str:
    """From 8a up to the lowest core ceiling, while every core has the next HWCAPs."""
    if not cores:
        return DEFAULT_VERSION
    ceiling = min(VERSIONS.index(_core_ceiling(c)) for c in cores)
    common = frozenset.intersection(*(c.features for c in cores))
    index = 0
    while index < ceiling and _NEW_HWCAPS[VERSIONS[index + 1]] <= common:
        index += 1
    return VERSIONS[index]


def versions_from(version: str) -> List[str]:
    """``"8.2a"`` → ``["8.2a", "8.1a", "8a"]``."""
    return list(reversed(VERSIONS[: VERSIONS.index(version) + 1]))


def is_aarch64(machine: Optional[str] = None) -> bool:
    """Whether this interpreter runs as 64-bit Arm."""
    name = (machine if machine is not None else current_machine()).lower()
    return name in _AARCH64_MACHINES and sys.maxsize > 2**32


def _macos_version() -> str:
    """By the chip's name, as uv decides: the feature flags macOS reports differ
    by release (macOS 12 has no FEAT_DIT on an M1), the chips do not."""
    from pip_variants.providers._darwin import sysctl_str

    brand = sysctl_str("machdep.cpu.brand_string") or ""
    model = brand[len("Apple "):].split() if brand.startswith("Apple ") else []
    return "8.4a" if model and model[0] in _APPLE_M_CHIPS else DEFAULT_VERSION


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
        return cpu_cache_inputs(self._machine, self._proc_cpuinfo, OVERRIDE_ENV)
