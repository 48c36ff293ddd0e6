"""Built-in ``nvidia`` provider: a reimplementation of nvidia-variant-provider 0.0.2.

It emits, best first (PROVIDERS.md §2.3):

* ``cuda_version_lower_bound``: driver CUDA version ``M.m`` down to ``11`` — a
  wheel tagged ``v`` needs a driver with CUDA >= ``v``;
* ``cuda_version_upper_bound``: ``15.20`` down to ``M.(m+1)`` — a wheel tagged
  ``v`` needs a driver with CUDA < ``v`` (loosest bound first);
* ``sm_arch`` (multi-value): CMake ``CUDA_ARCHITECTURES`` tokens for the
  highest compute capability among the GPUs.

The value lists must match the published plugin exactly, since wheels are
tagged against them; the golden tests pin them.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, Dict, List, Mapping, Optional, Tuple

from pip_variants.providers._host import boot_id, stat_signature
from pip_variants.providers.base import FeatureConfig, ProviderError

from .._record import record

__all__ = [
    "NvidiaProvider",
    "FORCE_CUDA_ENV",
    "FORCE_SM_ENV",
    "all_configs",
    "lower_bound_values",
    "upper_bound_values",
    "sm_arch_values",
    "parse_cuda_version",
    "parse_sm_arch",
    "MAX_LOWER_BOUND_VALUES",
    "configs_for",
    "query_nvml",
    "NvmlInfo",
]

logger = logging.getLogger(__name__)

NAMESPACE = "nvidia"
FORCE_CUDA_ENV = "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION"
FORCE_SM_ENV = "NV_VARIANT_PROVIDER_FORCE_SM_ARCH"

# Constants of nvidia-variant-provider 0.0.2.
MIN_MAJOR, MAX_MAJOR = 11, 15
MIN_MINOR, MAX_MINOR = 0, 20
MIN_CC = (5, 0)
SM_MAJORS = range(12, 4, -1)  # catalogue only: 12 .. 5
# uv refuses absurd forced versions (e.g. ``12.2000``) rather than emitting
# thousands of values; we follow it so both tools agree (PROVIDERS.md §7 test 6).
MAX_LOWER_BOUND_VALUES = 1024

LOWER = "cuda_version_lower_bound"
UPPER = "cuda_version_upper_bound"
SM = "sm_arch"

Version2 = Tuple[int, int]

# Files whose presence means an NVIDIA kernel driver (or WSL's GPU bridge) may
# be there. Without any of them NVML cannot work, so we skip importing it.
_DRIVER_HINT_PATHS = (
    "/sys/module/nvidia",
    "/proc/driver/nvidia",
    "/dev/nvidiactl",
    "/dev/dxg",  # WSL2: NVML works through the host driver, no kernel module
    "/sys/module/nvgpu",  # Tegra/Jetson integrated GPUs
)
_KERNEL_VERSION_FILES = ("/sys/module/nvidia/version", "/proc/driver/nvidia/version")
_GPU_DIR = "/proc/driver/nvidia/gpus"
if sys.platform == "win32":
    _NVML_LIBRARY_FILES: Tuple[str, ...] = (
        os.path.join(os.environ.get("WINDIR", r"C:\Windows"), "System32", "nvml.dll"),
        os.path.join(
            os.environ.get("ProgramFiles", r"C:\Program Files"),
            "NVIDIA Corporation",
            "NVSMI",
            "nvml.dll",
        ),
    )
else:
    # WSL2 has no kernel module: the host driver's files change on updates.
    _NVML_LIBRARY_FILES = ("/usr/lib/wsl/lib/libnvidia-ml.so.1",)


# --------------------------------------------------------------------------- values


def _fmt(major: int, minor: Optional[int]) -> str:
    return f"{major}" if minor is None else f"{major}.{minor}"


def lower_bound_values(driver: Version2) -> List[str]:
    """``M.m … M.0, M``, then ``k.20 … k.0, k`` for k = M-1 … 11.

    A bare major ranks just below its ``.0`` form: ``12`` is 12.0 but was
    published as the loosest 12.x requirement. Raises ProviderError past
    :data:`MAX_LOWER_BOUND_VALUES` values.
    """
    major, minor = driver
    if major < MIN_MAJOR:
        return []
    count = (minor + 2) + (major - MIN_MAJOR) * (MAX_MINOR + 2)
    if count > MAX_LOWER_BOUND_VALUES:
        raise ProviderError(
            NAMESPACE,
            f"CUDA driver version {major}.{minor} would need {count} "
            f"cuda_version_lower_bound values (limit {MAX_LOWER_BOUND_VALUES})",
        )
    out: List[str] = []
    for k in range(major, MIN_MAJOR - 1, -1):
        top = minor if k == major else MAX_MINOR
        out.extend(_fmt(k, m) for m in range(top, MIN_MINOR - 1, -1))
        out.append(_fmt(k, None))
    return out


def upper_bound_values(driver: Version2) -> List[str]:
    """``k.20 … k.0, k`` for k = 15 … M+1, then ``M.20 … M.(m+1)``.

    The driver's own bare major is never included: ``< 12`` excludes 12.x.
    """
    major, minor = driver
    if major > MAX_MAJOR:
        return []
    out: List[str] = []
    for k in range(MAX_MAJOR, major, -1):
        out.extend(_fmt(k, m) for m in range(MAX_MINOR, MIN_MINOR - 1, -1))
        out.append(_fmt(k, None))
    out.extend(_fmt(major, m) for m in range(MAX_MINOR, minor, -1))
    return out


def sm_arch_values(cc: Version2) -> List[str]:
    """``{a}{b}_real … {a}0_real, {a}0_virtual``; empty below CC 5.0.

    Only PTX of the device's own major is claimed, like the plugin (real CUDA
    could JIT older-major PTX, but wheels are not tagged that way).
    """
    major, minor = cc
    if (major, minor) < MIN_CC:
        return []
    return [f"{major}{m}_real" for m in range(minor, -1, -1)] + [f"{major}0_virtual"]


def all_configs() -> List[FeatureConfig]:
    """The plugin's full catalogue (``get_all_configs``), for build-time validation."""
    cuda = tuple(
        _fmt(major, minor)
        for major in range(MAX_MAJOR, MIN_MAJOR - 1, -1)
        for minor in [*range(MAX_MINOR, MIN_MINOR - 1, -1), None]
    )
    sm = tuple(
        f"{a}{b}_{kind}" for kind in ("real", "virtual") for a in SM_MAJORS for b in range(9, -1, -1)
    )
    return [
        FeatureConfig(LOWER, cuda),
        FeatureConfig(UPPER, cuda),
        FeatureConfig(SM, sm, multi_value=True),
    ]


# --------------------------------------------------------------------------- overrides


def parse_cuda_version(text: str) -> Version2:
    """A PEP 440 version (``12.8``, ``12``, ``12.8.1``) to ``(major, minor)``."""
    # Imported here: packaging.version costs milliseconds and is only needed
    # when the override is set.
    from packaging.version import InvalidVersion, Version

    try:
        release = Version(text).release
    except InvalidVersion:
        raise ProviderError(
            NAMESPACE, f"{FORCE_CUDA_ENV}={text!r} is not a valid version"
        ) from None
    return release[0], (release[1] if len(release) > 1 else 0)


def parse_sm_arch(text: str) -> Version2:
    """``major.minor`` (``8.9``, ``10.0``) to a tuple; ``89`` or ``9`` is invalid.

    Each part is a number from 0 to 255, a leading ``+`` allowed (the plugin
    reads each with ``int()``, uv as a byte): a larger minor would claim that
    many ``sm_arch`` values.
    """
    parts = [part[1:] if part.startswith("+") else part for part in text.strip().split(".")]
    if len(parts) != 2 or not all(part.isdecimal() and int(part) <= 255 for part in parts):
        raise ProviderError(
            NAMESPACE,
            f"{FORCE_SM_ENV}={text!r} is not of the form MAJOR.MINOR, each from 0 to 255 (e.g. 8.9)",
        )
    return int(parts[0]), int(parts[1])


def _env(name: str) -> Optional[str]:
    value = os.environ.get(name)
    # An empty value counts as unset, as in the plugin and uv.
    return value if value and value.strip() else None


# --------------------------------------------------------------------------- detection


@record
class NvmlInfo:
    """What NVML reported: driver CUDA version and highest compute capability."""

    driver: Optional[Version2] = None
    cc: Optional[Version2] = None


def _driver_may_be_present() -> bool:
    if sys.platform == "darwin":
        return False  # CUDA has not supported macOS since 10.13; don't load pynvml
    if sys.platform != "linux":
        return True  # Windows has NVML without these files
    return any(os.path.exists(p) for p in _DRIVER_HINT_PATHS)


def _decode_cuda_int(value: int) -> Version2:
    # NVML encodes CUDA 12.8 as 12080.
    return value // 1000, (value % 1000) // 10


#: How long NVML may take to answer: a wedged driver can block ``nvmlInit`` forever,
#: while a healthy multi-GPU host without the persistence daemon may take several seconds.
QUERY_TIMEOUT = 30.0
_FORCE_HINT = ("or set NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION and NV_VARIANT_PROVIDER_FORCE_SM_ARCH "
               "to skip detection")
_hung_worker: Optional[Any] = None


def query_nvml(timeout: float = QUERY_TIMEOUT) -> NvmlInfo:
    """Ask NVML for the driver CUDA version and the highest compute capability.

    A missing library, an NVMLError or a driver that is not loaded yields
    empty fields: the machine then simply supports nothing here. A broken
    ``nvidia-ml-py`` (its import raises, or it calls ``sys.exit``) and an NVML
    that does not answer within ``timeout`` seconds raise :class:`ProviderError`
    (one warning saying what to do; the empty answer is not cached). The query
    runs in a daemon thread, so a hang costs ``timeout``, not the pip run.
    """
    import threading

    global _hung_worker
    if not _driver_may_be_present():
        return NvmlInfo()
    if _hung_worker is not None and _hung_worker.is_alive():
        raise ProviderError("builtin:nvidia", "NVML is still not answering (an earlier query hangs); "
                            + _FORCE_HINT)
    result: Dict[str, Any] = {}

    def work() -> None:
        try:
            result["info"] = _query_nvml_now()
        except BaseException as exc:  # SystemExit from the library too: never out of this thread
            result["error"] = exc

    worker = threading.Thread(target=work, name="pip-variants-nvml", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        _hung_worker = worker
        raise ProviderError("builtin:nvidia", f"NVML did not answer within {timeout:.0f} s (is the GPU "
                            f"driver stuck? 'nvidia-smi' would hang too); " + _FORCE_HINT)
    error = result.get("error")
    if isinstance(error, ProviderError):
        raise error
    if error is not None:
        raise ProviderError("builtin:nvidia", f"NVML failed: {type(error).__name__}: {error}; " + _FORCE_HINT)
    return result["info"]


def _query_nvml_now() -> NvmlInfo:
    try:
        import pynvml  # nvidia-ml-py; lazy: loading it costs ~10 ms
    except ImportError:
        logger.debug("nvidia: pynvml is not importable")
        return NvmlInfo()
    except BaseException as exc:  # a broken install: its import raises, or exits
        raise ProviderError(
            "builtin:nvidia",
            f"nvidia-ml-py is broken: 'import pynvml' raised {type(exc).__name__}: {exc}; reinstall it "
            f"(python -m pip install --force-reinstall nvidia-ml-py), " + _FORCE_HINT,
        ) from None
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # NVMLError_LibraryNotFound, DriverNotLoaded, ...
        logger.debug("nvidia: NVML unavailable: %s", exc)
        return NvmlInfo()
    try:
        # The GPUs are listed even without a driver CUDA version: a forced
        # version still wants the detected compute capability.
        return NvmlInfo(_nvml_driver(pynvml), _nvml_highest_cc(pynvml))
    finally:
        try:
            pynvml.nvmlShutdown()
        except Exception:
            pass


def _nvml_driver(nvml: Any) -> Optional[Version2]:
    for name in ("nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"):
        func = getattr(nvml, name, None)
        if func is None:
            continue
        try:
            return _decode_cuda_int(int(func()))
        except Exception as exc:
            logger.debug("nvidia: %s failed: %s", name, exc)
    return None


def _nvml_highest_cc(nvml: Any) -> Optional[Version2]:
    try:
        count = int(nvml.nvmlDeviceGetCount())
    except Exception as exc:
        logger.debug("nvidia: cannot list GPUs: %s", exc)
        return None
    best: Optional[Version2] = None
    for index in range(count):
        try:
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
            major, minor = nvml.nvmlDeviceGetCudaComputeCapability(handle)
            cc = (int(major), int(minor))
        except Exception as exc:  # one bad device must not hide the others
            logger.debug("nvidia: GPU %d: %s", index, exc)
            continue
        if best is None or cc > best:
            best = cc
    return best


# --------------------------------------------------------------------------- provider


def configs_for(driver: Optional[Version2], cc: Optional[Version2], *, forced: bool) -> List[FeatureConfig]:
    """The supported list for a driver CUDA version and compute capability.

    ``forced``: the driver version came from the override, which skips the
    supported-range check.
    """
    if driver is None:
        return []
    if not forced and not ((MIN_MAJOR, MIN_MINOR) <= driver <= (MAX_MAJOR, MAX_MINOR)):
        logger.warning(
            "nvidia: CUDA driver version %d.%d is outside %d.%d-%d.%d; "
            "NVIDIA variants are disabled",
            *driver, MIN_MAJOR, MIN_MINOR, MAX_MAJOR, MAX_MINOR,
        )
        return []
    out: List[FeatureConfig] = []
    lower = lower_bound_values(driver)
    if lower:
        out.append(FeatureConfig(LOWER, tuple(lower)))
    upper = upper_bound_values(driver)
    if upper:
        out.append(FeatureConfig(UPPER, tuple(upper)))
    if cc is not None:
        sm = sm_arch_values(cc)
        if sm:
            out.append(FeatureConfig(SM, tuple(sm), multi_value=True))
        else:
            logger.warning(
                "nvidia: compute capability %d.%d is below %d.%d; sm_arch is unsupported",
                *cc, *MIN_CC,
            )
    return out


def _read_first_line(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.readline().strip()
    except OSError:
        return ""


class NvidiaProvider:
    """Built-in stand-in for ``nvidia-variant-provider`` (see module docstring)."""

    namespace = NAMESPACE
    packages: Tuple[str, ...] = ("nvidia-variant-provider",)
    #: nvidia-variant-provider 0.0.1 and 0.0.2 emit the same lists
    versions: Mapping[str, Tuple[str, ...]] = {"nvidia-variant-provider": ("0.0.1", "0.0.2")}
    plugin_apis: Tuple[str, ...] = ("nvidia_variant_provider.plugin:NvidiaVariantPlugin",)

    def supported_configs(self) -> List[FeatureConfig]:
        # Validate both overrides first: an invalid one disables the whole
        # provider (PROVIDERS.md §7 test 4), whatever the other inputs are.
        force_d = _env(FORCE_CUDA_ENV)
        force_cc = _env(FORCE_SM_ENV)
        driver = parse_cuda_version(force_d) if force_d is not None else None
        cc = parse_sm_arch(force_cc) if force_cc is not None else None
        driver_forced = driver is not None
        if driver is None or cc is None:  # only touch NVML for what is not forced
            info = query_nvml()
            if driver is None:
                driver = info.driver
            if cc is None:
                cc = info.cc
        # No driver and no D override: nothing, even with a forced SM.
        return configs_for(driver, cc, forced=driver_forced)

    def all_configs(self) -> List[FeatureConfig]:
        return all_configs()

    def cache_inputs(self) -> Dict[str, str]:
        # Cheap stand-ins for what NVML would report: the kernel driver version
        # changes with every driver update, the GPU directory with the GPU set.
        kernel = ""
        for path in _KERNEL_VERSION_FILES:
            kernel = _read_first_line(path)
            if kernel:
                break
        try:
            gpus = ",".join(sorted(os.listdir(_GPU_DIR)))
        except OSError:
            # No GPU list to read (Windows, a container without it): another
            # GPU under the same driver comes with a reboot at least.
            gpus = f"boot {boot_id()}"
        return {
            "platform": sys.platform,
            "kernel_driver": kernel,
            "gpus": gpus,
            "hints": "".join("1" if os.path.exists(p) else "0" for p in _DRIVER_HINT_PATHS),
            "nvml_libs": ";".join(stat_signature(p) for p in _NVML_LIBRARY_FILES),
            FORCE_CUDA_ENV: os.environ.get(FORCE_CUDA_ENV, ""),
            FORCE_SM_ENV: os.environ.get(FORCE_SM_ENV, ""),
        }
