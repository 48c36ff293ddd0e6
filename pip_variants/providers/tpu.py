"""Built-in ``tpu`` provider: a reimplementation of tpu-variant-provider 0.1.0.

One feature, ``present``, with exactly one value: ``true`` on a host with a
Google TPU, else ``false`` — so a ``present=false`` wheel is incompatible on
TPU hosts, as in the plugin (PROVIDERS.md §2.6).
"""

from __future__ import annotations

import os
import sys
from typing import Dict, FrozenSet, List, Mapping, Tuple

from pip_variants.providers._host import read_hex
from pip_variants.providers.base import FeatureConfig

__all__ = [
    "TpuProvider",
    "FORCE_PRESENT_ENV",
    "GOOGLE_VENDOR_ID",
    "TPU_DEVICE_IDS",
    "scan_pci_for_tpu",
    "force_present",
]

NAMESPACE = "tpu"
FEATURE = "present"
FORCE_PRESENT_ENV = "TPU_VARIANT_PROVIDER_FORCE_PRESENT"
PCI_DEVICES = "/sys/bus/pci/devices"

GOOGLE_VENDOR_ID = 0x1AE0
# The plugin's list (PROVIDERS.md §2.6): 0x0027 v3, 0x005e v4, 0x0062 v5p,
# 0x0063 v5e, 0x006f v6e, 0x0076 7x, and 0x0056, 0x0083, 0x007c.
TPU_DEVICE_IDS: FrozenSet[int] = frozenset(
    {0x0027, 0x0056, 0x005E, 0x0062, 0x0063, 0x006F, 0x0076, 0x0083, 0x007C}
)
_TRUE_WORDS = frozenset({"1", "true", "yes"})
_UNSET = "<unset>"


def force_present(value: str) -> bool:
    """``1``/``true``/``yes`` in any case → True; anything else, even empty or
    padded with spaces (``" yes"``) → False, as the plugin and uv read it."""
    return value.lower() in _TRUE_WORDS


def scan_pci_for_tpu(root: str = PCI_DEVICES) -> bool:
    """Whether any PCI device under ``root`` is a Google TPU."""
    try:
        entries = os.listdir(root)
    except OSError:
        return False
    for entry in entries:
        dev = os.path.join(root, entry)
        if read_hex(os.path.join(dev, "vendor")) != GOOGLE_VENDOR_ID:
            continue
        if read_hex(os.path.join(dev, "device")) in TPU_DEVICE_IDS:
            return True
    return False


class TpuProvider:
    """Built-in stand-in for ``tpu-variant-provider``."""

    namespace = NAMESPACE
    packages: Tuple[str, ...] = ("tpu-variant-provider",)
    versions: Mapping[str, Tuple[str, ...]] = {"tpu-variant-provider": ("0.1.0",)}
    plugin_apis: Tuple[str, ...] = ("tpu_variant_provider.plugin:TpuVariantPlugin",)

    def __init__(self, *, pci_root: str = PCI_DEVICES) -> None:
        self._pci_root = pci_root

    def _present(self) -> bool:
        forced = os.environ.get(FORCE_PRESENT_ENV)
        if forced is not None:  # set, even to "": the variable decides
            return force_present(forced)
        if not sys.platform.startswith("linux"):
            return False
        return scan_pci_for_tpu(self._pci_root)

    def supported_configs(self) -> List[FeatureConfig]:
        return [FeatureConfig(FEATURE, ("true" if self._present() else "false",))]

    def all_configs(self) -> List[FeatureConfig]:
        return [FeatureConfig(FEATURE, ("true", "false"))]

    def cache_inputs(self) -> Dict[str, str]:
        # The set of PCI addresses changes when a device appears or goes;
        # listing it is far cheaper than reading every vendor file.
        try:
            devices = ",".join(sorted(os.listdir(self._pci_root)))
        except OSError:
            devices = ""
        return {
            "platform": sys.platform,
            "pci_root": self._pci_root,
            "pci_devices": devices,
            # Empty and unset differ here: empty forces "false".
            FORCE_PRESENT_ENV: os.environ.get(FORCE_PRESENT_ENV, _UNSET),
        }
