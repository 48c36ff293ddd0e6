"""Built-in ``intel`` provider: a reimplementation of intel-variant-provider 0.0.3.

One feature, ``device_ip`` (multi-value): the graphics IP version
(``architecture.release.revision``) of each Intel GPU, as Level Zero reports
it, each followed by its base ("compat") IP from the plugin's table, repeats
dropped, then everything the table does not know dropped
(PROVIDERS-AMD-INTEL.md §2.2-§2.4). Order is Level Zero's enumeration order.

Level Zero is reached with :mod:`ctypes` (``libze_loader.so.1``, or
``%WINDIR%\\System32\\ze_loader.dll``), never a subprocess. The query runs in
a worker thread with a time bound: a broken driver stack must not hang pip.
No loader, no Intel GPU, a timeout or any error: nothing supported.

``INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP`` replaces detection with that one
IP, without compat expansion, kept only if the table knows it (as the plugin);
an IP the table does not know is a :class:`ProviderError` (one warning).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from pip_variants.providers._host import read_hex, stat_signature
from pip_variants.providers.base import FeatureConfig, ProviderError

__all__ = [
    "IntelProvider",
    "DEVICE_TABLE",
    "FORCE_DEVICE_IP_ENV",
    "decode_ip",
    "device_ips",
    "query_level_zero",
    "level_zero_library",
    "INTEL_VENDOR_ID",
]

logger = logging.getLogger(__name__)

NAMESPACE = "intel"
FEATURE = "device_ip"
FORCE_DEVICE_IP_ENV = "INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP"
INTEL_VENDOR_ID = 0x8086
#: Seconds the Level Zero query may take before we give up on it.
QUERY_TIMEOUT = 10.0

#: intel-variant-provider 0.0.3's table: IP → compat IP (None: no base), in
#: table order (newest platform first; ``get_all_configs`` order).
DEVICE_TABLE: Mapping[str, Optional[str]] = {
    "30.1.0": "30.0.4",  # ptl-u
    "30.0.4": None,  # ptl-h
    "20.4.4": "20.1.0",  # lnl-m
    "20.2.0": "20.1.0",  # bmg-g31
    "20.1.0": None,  # bmg-g21
    "12.74.4": None,  # arl-h
    "12.71.4": "12.70.4",  # mtl-h
    "12.70.4": None,  # mtl-u, arl-u, arl-s
    "12.60.7": None,  # pvc
    "12.57.0": "12.55.8",  # acm-g12, dg2-g12
    "12.56.5": "12.55.8",  # acm-g11, dg2-g11, ats-m75
    "12.55.8": None,  # acm-g10, dg2-g10, ats-m150
    "12.10.0": None,  # dg1
    "12.4.0": None,  # adl-n
    "12.3.0": None,  # adl-p, rpl-p
    "12.2.0": None,  # adl-s, rpl-s
    "12.1.0": None,  # rkl
    "12.0.0": None,  # tgllp, tgl
}

# Level Zero constants (ze_api.h).
_ZE_RESULT_SUCCESS = 0
_ZE_INIT_FLAG_GPU_ONLY = 1
_ZE_INIT_DRIVER_TYPE_FLAG_GPU = 1
_ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC = 0x00020021
_ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES = 0x3
_ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT_PROPERTIES = 0x1000F

#: Linux directories where distributions and Intel's packages put the loader
#: (for the cache key: a stat, not a dlopen).
_LINUX_LIB_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/lib",
    "/opt/intel/oneapi/lib",
)
_PCI_DEVICES = "/sys/bus/pci/devices"
#: Test-only (private), shared with the amd provider: a directory standing in
#: for ``/sys``, so end-to-end tests can fake an Intel PCI device inside pip.
SYSFS_ROOT_ENV = "PIP_VARIANTS_TEST_SYSFS_ROOT"
_UNSET = "<unset>"


def decode_ip(raw: int) -> str:
    """32-bit ``ipVersion`` → ``"architecture.release.revision"``.

    Bits 0-5 revision, 6-13 reserved, 14-21 release, 22-31 architecture
    (compute-runtime ``hw_ip_version.h``): ``0x030dc008`` → ``12.55.8``.
    """
    return f"{(raw >> 22) & 0x3FF}.{(raw >> 14) & 0xFF}.{raw & 0x3F}"


def device_ips(devices: Sequence[Tuple[int, int]]) -> List[str]:
    """``[(vendor_id, ipVersion)]`` in enumeration order → the supported list.

    Own IP then compat IP per Intel device, first occurrence kept, then
    IPs unknown to the table dropped (they get no compat expansion either).
    """
    candidates: List[str] = []
    for vendor, raw in devices:
        if vendor != INTEL_VENDOR_ID:
            continue
        ip = decode_ip(raw)
        for value in (ip, DEVICE_TABLE.get(ip)):
            if value is not None and value not in candidates:
                candidates.append(value)
    known = [ip for ip in candidates if ip in DEVICE_TABLE]
    for ip in candidates:
        if ip not in DEVICE_TABLE:
            logger.debug("intel: device IP %s is not in intel-variant-provider 0.0.3's table", ip)
    return known


def level_zero_library() -> str:
    """What the plugin loads: a name for the dynamic linker, or Windows' absolute path."""
    if sys.platform == "win32":
        return os.path.join(os.environ.get("WINDIR", "C:/Windows"), "System32", "ze_loader.dll")
    return "libze_loader.so.1"


def _ze_structs():
    import ctypes

    class InitDriverTypeDesc(ctypes.Structure):
        _fields_ = [
            ("stype", ctypes.c_uint32),
            ("pNext", ctypes.c_void_p),
            ("flags", ctypes.c_uint32),
        ]

    class IpVersionExt(ctypes.Structure):
        _fields_ = [
            ("stype", ctypes.c_uint32),
            ("pNext", ctypes.c_void_p),
            ("ipVersion", ctypes.c_uint32),
        ]

    u32, u64 = ctypes.c_uint32, ctypes.c_uint64

    class DeviceProperties(ctypes.Structure):
        _fields_ = [
            ("stype", u32),
            ("pNext", ctypes.c_void_p),
            ("type", u32),
            ("vendorId", u32),
            ("deviceId", u32),
            ("flags", u32),
            ("subdeviceId", u32),
            ("coreClockRate", u32),
            ("maxMemAllocSize", u64),
            ("maxHardwareContexts", u32),
            ("maxCommandQueuePriority", u32),
            ("numThreadsPerEU", u32),
            ("physicalEUSimdWidth", u32),
            ("numEUsPerSubslice", u32),
            ("numSubslicesPerSlice", u32),
            ("numSlices", u32),
            ("timerResolution", u64),
            ("timestampValidBits", u32),
            ("kernelTimestampValidBits", u32),
            ("uuid", ctypes.c_uint8 * 16),
            ("name", ctypes.c_char * 256),
        ]

    return InitDriverTypeDesc, IpVersionExt, DeviceProperties


class _ZeError(Exception):
    pass


def _check(result: int, call: str) -> None:
    if result != _ZE_RESULT_SUCCESS:
        raise _ZeError(f"{call} returned 0x{result & 0xFFFFFFFF:x}")


def _drivers(lib, ctypes) -> list:
    count = ctypes.c_uint32(0)
    InitDesc, _, _ = _ze_structs()
    if hasattr(lib, "zeInitDrivers"):  # Level Zero API 1.10+
        desc = InitDesc(
            _ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC, None, _ZE_INIT_DRIVER_TYPE_FLAG_GPU
        )
        _check(lib.zeInitDrivers(ctypes.byref(count), None, ctypes.byref(desc)), "zeInitDrivers")
        handles = (ctypes.c_void_p * count.value)()
        if count.value:
            _check(
                lib.zeInitDrivers(ctypes.byref(count), handles, ctypes.byref(desc)), "zeInitDrivers"
            )
        return list(handles)[: count.value]
    _check(lib.zeInit(_ZE_INIT_FLAG_GPU_ONLY), "zeInit")
    _check(lib.zeDriverGet(ctypes.byref(count), None), "zeDriverGet")
    handles = (ctypes.c_void_p * count.value)()
    if count.value:
        _check(lib.zeDriverGet(ctypes.byref(count), handles), "zeDriverGet")
    return list(handles)[: count.value]


def _level_zero_devices(library: str) -> List[Tuple[int, int]]:
    """``[(vendorId, ipVersion)]`` of every root device, in Level Zero order.

    A driver or device that fails is skipped (logged): one misbehaving GPU
    must not hide the others (the reference plugin keeps what it found before
    a failure). Raises when Level Zero itself cannot be loaded or initialised.
    """
    import ctypes

    lib = ctypes.CDLL(library)
    _, IpExt, Props = _ze_structs()
    out: List[Tuple[int, int]] = []
    for driver in _drivers(lib, ctypes):
        try:
            count = ctypes.c_uint32(0)
            _check(lib.zeDeviceGet(ctypes.c_void_p(driver), ctypes.byref(count), None), "zeDeviceGet")
            devices = (ctypes.c_void_p * count.value)()
            if count.value:
                _check(
                    lib.zeDeviceGet(ctypes.c_void_p(driver), ctypes.byref(count), devices),
                    "zeDeviceGet",
                )
        except _ZeError as exc:
            logger.debug("intel: skipping a Level Zero driver: %s", exc)
            continue
        for device in list(devices)[: count.value]:
            ext = IpExt(_ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT_PROPERTIES, None, 0)
            props = Props()
            props.stype = _ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES
            props.pNext = ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p)
            try:
                _check(
                    lib.zeDeviceGetProperties(ctypes.c_void_p(device), ctypes.byref(props)),
                    "zeDeviceGetProperties",
                )
            except _ZeError as exc:
                logger.debug("intel: skipping a Level Zero device: %s", exc)
                continue
            out.append((int(props.vendorId), int(ext.ipVersion)))
    return out


class LevelZeroTimeout(Exception):
    """The Level Zero driver did not answer in time (not cached: it may next time)."""


#: the abandoned thread of a query that timed out, if any
_hung_worker: Optional[Any] = None


def query_level_zero(
    library: Optional[str] = None, timeout: float = QUERY_TIMEOUT
) -> List[Tuple[int, int]]:
    """The Level Zero devices, or ``[]`` when the stack is missing or fails.

    The query runs in a daemon thread: if the driver hangs we give up after
    ``timeout`` seconds, abandon the thread and raise :class:`LevelZeroTimeout`
    (the provider turns it into a warning, and the empty answer is not cached).
    """
    import threading

    global _hung_worker
    if _hung_worker is not None and _hung_worker.is_alive():
        # Never a second zeInit beside a stuck one.
        raise LevelZeroTimeout("Level Zero is still not answering (an earlier query hangs)")
    lib = library or level_zero_library()
    result: Dict[str, Any] = {}

    def work() -> None:
        try:
            result["devices"] = _level_zero_devices(lib)
        except Exception as exc:  # OSError (no loader), _ZeError, anything from the driver
            result["error"] = exc

    worker = threading.Thread(target=work, name="pip-variants-level-zero", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        _hung_worker = worker
        raise LevelZeroTimeout(f"Level Zero did not answer within {timeout:.0f} s")
    if "error" in result:
        logger.debug("intel: Level Zero unavailable (%s): %s", lib, result["error"])
        return []
    return list(result.get("devices", []))


def intel_display_devices(pci_root: str = _PCI_DEVICES) -> Optional[List[str]]:
    """PCI addresses of Intel display-class devices, or None if PCI is not visible."""
    try:
        entries = sorted(os.listdir(pci_root))
    except OSError:
        return None
    out = []
    for entry in entries:
        dev = os.path.join(pci_root, entry)
        if (
            read_hex(os.path.join(dev, "vendor")) == INTEL_VENDOR_ID
            and (read_hex(os.path.join(dev, "class")) >> 16) == 0x03
        ):
            out.append(entry)
    return out


def _library_signatures() -> str:
    if sys.platform == "win32":
        lib = level_zero_library()
        gpu = os.path.join(os.path.dirname(lib), "ze_intel_gpu64.dll")
        return ";".join(stat_signature(p) for p in (lib, gpu))
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
    dirs += list(_LINUX_LIB_DIRS)
    sigs = []
    for d in dirs:
        for name in ("libze_loader.so.1", "libze_intel_gpu.so.1"):
            sig = stat_signature(os.path.join(d, name))
            if sig:
                sigs.append(f"{d}/{name}={sig}")
    return ";".join(sigs)


class IntelProvider:
    """Built-in stand-in for ``intel-variant-provider`` (see module docstring)."""

    namespace = NAMESPACE
    packages: Tuple[str, ...] = ("intel-variant-provider",)
    #: 0.0.2 runs the same detection, but its table lacks Panther Lake's 30.1.0 and
    #: 30.0.4 (it reports nothing there). Served anyway: an entry pinned to 0.0.2
    #: would otherwise go untrusted on every Intel GPU
    versions: Mapping[str, Tuple[str, ...]] = {"intel-variant-provider": ("0.0.2", "0.0.3")}
    plugin_apis: Tuple[str, ...] = ("intel_variant_provider.plugin:IntelVariantPlugin",)

    def __init__(self, *, pci_root: Optional[str] = None) -> None:
        self._pci_root_given = pci_root

    @property
    def _pci_root(self) -> str:
        if self._pci_root_given is not None:
            return self._pci_root_given
        fake_sys = os.environ.get(SYSFS_ROOT_ENV)
        return os.path.join(fake_sys, "bus", "pci", "devices") if fake_sys else _PCI_DEVICES

    def gpus_on_pci(self) -> List[str]:
        """PCI addresses of the Intel display devices (Linux; ``[]`` elsewhere or unreadable)."""
        if not sys.platform.startswith("linux"):
            return []
        return intel_display_devices(self._pci_root) or []

    def _worth_asking(self) -> bool:
        """Skip loading a GPU driver stack on Linux hosts that show no Intel GPU.

        WSL exposes GPUs through ``/dev/dxg``, not PCI, so it is always asked.
        """
        if not sys.platform.startswith("linux") or os.path.exists("/dev/dxg"):
            return True
        found = intel_display_devices(self._pci_root)
        return found is None or bool(found)

    def supported_configs(self) -> List[FeatureConfig]:
        forced = os.environ.get(FORCE_DEVICE_IP_ENV)
        if forced:  # verbatim, no compat expansion (the plugin's rule)
            if forced in DEVICE_TABLE:
                return [FeatureConfig(FEATURE, (forced,), multi_value=True)]
            # The plugin warns and supports nothing; so does a ProviderError
            # (one warning per run, and never cached).
            raise ProviderError(
                NAMESPACE,
                f"{FORCE_DEVICE_IP_ENV}={forced!r} is not a device IP intel-variant-provider "
                f"0.0.3 knows (it takes exactly one, as written in its table: e.g. 12.55.8 or 20.1.0)",
            )
        if not (sys.platform.startswith("linux") or sys.platform == "win32"):
            return []  # the plugin supports Linux and Windows only
        if not self._worth_asking():
            return []
        try:
            devices = query_level_zero()
        except LevelZeroTimeout as exc:
            raise ProviderError(
                NAMESPACE, f"{exc}; no Intel GPU assumed for this run (set "
                f"{FORCE_DEVICE_IP_ENV} to skip detection)"
            ) from None
        ips = device_ips(devices)
        return [FeatureConfig(FEATURE, tuple(ips), multi_value=True)] if ips else []

    def all_configs(self) -> List[FeatureConfig]:
        return [FeatureConfig(FEATURE, tuple(DEVICE_TABLE), multi_value=True)]

    def cache_inputs(self) -> Dict[str, str]:
        # A new GPU or driver changes the PCI device list, the loaded driver
        # libraries or the boot id; each of these is a listdir or a stat.
        from pip_variants.providers._host import host_fingerprint

        inputs = host_fingerprint()
        try:
            pci = ",".join(sorted(os.listdir(self._pci_root)))
        except OSError:
            pci = ""
        inputs.update(
            pci_root=self._pci_root,
            pci_devices=pci,
            libraries=_library_signatures(),
            dxg="1" if os.path.exists("/dev/dxg") else "0",
        )
        for name in (
            FORCE_DEVICE_IP_ENV,
            "ZE_AFFINITY_MASK",
            "ZE_FLAT_DEVICE_HIERARCHY",
            "ZE_ENABLE_PCI_ID_DEVICE_ORDER",
            "LD_LIBRARY_PATH",
        ):
            inputs[name] = os.environ.get(name, _UNSET)
        return inputs
