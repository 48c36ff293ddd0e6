"""Persistent cache of provider results, so detection costs ~nothing per pip run.

NVML initialisation or a CPU probe can take tens of milliseconds; the cache
replaces them by one small JSON read. Each namespace has its own file::

    {"key": "<sha256>", "namespace": "nvidia", "configs": [{"name": ..., "values": [...], "multi_value": ...}]}

``key`` hashes the provider's cheap :meth:`cache_inputs` (driver version,
device list, boot id, override variables...), the pip-variants version and
the provider class, so any change of those recomputes. The cache is an
optimisation only: every failure to read or write it is silent and falls back
to asking the provider. Provider errors are never cached (they may be
transient, and the user should see them every time until fixed).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import sys
from pathlib import Path
from typing import List, Optional, Union

from pip_variants.properties import NAMESPACE_RE
from pip_variants.providers._host import host_fingerprint
from pip_variants.providers.base import FeatureConfig, Provider

__all__ = [
    "cached_supported_configs",
    "cache_dir",
    "clear_cache",
    "cache_key",
    "cache_file",
    "host_fingerprint",
    "NO_CACHE_ENV",
    "CACHE_DIR_ENV",
]

logger = logging.getLogger(__name__)

NO_CACHE_ENV = "PIP_VARIANTS_NO_CACHE"
CACHE_DIR_ENV = "PIP_VARIANTS_CACHE_DIR"
_APP = "pip-variants"
_SUBDIR = "providers"
_FORMAT = 1  # bump when the file layout changes
_TRUE_WORDS = frozenset({"1", "true", "yes", "on"})

PathLike = Union[str, "os.PathLike[str]"]


def _default_cache_dir() -> Path:
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(os.path.expanduser(override))
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(
            os.path.expanduser("~"), "AppData", "Local"
        )
        return Path(base, _APP, "Cache")
    if sys.platform == "darwin":
        return Path(os.path.expanduser("~"), "Library", "Caches", _APP)
    xdg = os.environ.get("XDG_CACHE_HOME")
    # The XDG spec says relative paths are invalid and must be ignored.
    if xdg and os.path.isabs(xdg):
        return Path(xdg, _APP)
    return Path(os.path.expanduser("~"), ".cache", _APP)


def cache_dir() -> Path:
    """The pip-variants cache directory (it may not exist yet)."""
    return _default_cache_dir()


def _providers_dir(base: Optional[PathLike]) -> Path:
    return Path(base if base is not None else _default_cache_dir()) / _SUBDIR


def cache_file(namespace: str, base: Optional[PathLike] = None) -> Path:
    """Where the result for ``namespace`` is stored."""
    return _providers_dir(base) / f"{namespace}.json"


def _cache_disabled() -> bool:
    return os.environ.get(NO_CACHE_ENV, "").strip().lower() in _TRUE_WORDS


def cache_key(provider: Provider) -> Optional[str]:
    """The key for ``provider``'s current inputs; None disables caching.

    None when :meth:`cache_inputs` is empty (the provider opted out) or fails.
    """
    try:
        inputs = provider.cache_inputs()
    except Exception as exc:  # a broken probe must not break detection
        logger.debug("cache: %s.cache_inputs() failed: %s", provider.namespace, exc)
        return None
    if not inputs:
        return None
    from pip_variants import __version__

    cls = type(provider)
    material = {
        "format": _FORMAT,
        "inputs": {str(k): str(v) for k, v in inputs.items()},
        "pip_variants": __version__,
        "provider": f"{cls.__module__}.{cls.__qualname__}",
    }
    blob = json.dumps(material, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _decode(data: object, key: str, namespace: str) -> Optional[List[FeatureConfig]]:
    """The configs in a parsed cache file, or None if it is stale or malformed."""
    if not isinstance(data, dict) or data.get("key") != key or data.get("namespace") != namespace:
        return None
    raw = data.get("configs")
    if not isinstance(raw, list):
        return None
    out: List[FeatureConfig] = []
    for item in raw:
        if not isinstance(item, dict):
            return None
        name, values, multi = item.get("name"), item.get("values"), item.get("multi_value", False)
        if (
            not isinstance(name, str)
            or not isinstance(values, list)
            or not all(isinstance(v, str) for v in values)
            or not isinstance(multi, bool)
        ):
            return None
        out.append(FeatureConfig(name, tuple(values), multi))
    return out


#: No entry this module writes comes near this; anything bigger is not ours.
_MAX_ENTRY_BYTES = 1 << 20


def _load(path: Path, key: str, namespace: str) -> Optional[List[FeatureConfig]]:
    """The cached answer, or ``None``: the cache is only ever a shortcut, so a
    missing, foreign or corrupt entry (a FIFO, a huge or deeply nested file)
    reads as a miss, without blocking or a message."""
    try:
        # O_NONBLOCK: opening a FIFO for reading would wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_ENTRY_BYTES:
            os.close(fd)  # a directory or a FIFO: open() below would refuse it and leak fd
            return None
        with open(fd, "rb") as f:
            data = json.loads(f.read(_MAX_ENTRY_BYTES + 1))
    except (OSError, ValueError, RecursionError):  # unreadable, truncated, not JSON, bad UTF-8, too deep
        return None
    return _decode(data, key, namespace)


def _store(path: Path, key: str, namespace: str, configs: List[FeatureConfig]) -> None:
    """Write atomically: readers see the old file or the new one, never a mix."""
    payload = json.dumps(
        {"key": key, "namespace": namespace, "configs": [c.to_json() for c in configs]},
        separators=(",", ":"),
    ).encode("utf-8")
    tmp: Optional[str] = None
    try:
        import tempfile  # only needed on a miss; a few ms to import

        path.parent.mkdir(parents=True, exist_ok=True)
        # The temporary file lives in the same directory so os.replace is a
        # rename within one file system (atomic on POSIX and Windows).
        fd, tmp = tempfile.mkstemp(dir=str(path.parent), prefix=f".{namespace}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:  # read-only, full disk, Windows sharing violation...
        logger.debug("cache: cannot write %s: %s", path, exc)
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def cached_supported_configs(
    provider: Provider,
    *,
    cache_dir: Optional[PathLike] = None,
    use_cache: bool = True,
) -> List[FeatureConfig]:
    """``provider.supported_configs()``, served from the persistent cache when fresh.

    Raises whatever the provider raises (ProviderError); never raises because
    of the cache itself.
    """
    key = cache_key(provider) if use_cache and not _cache_disabled() else None
    # The namespace names a file: anything but the PEP 825 grammar is not cached.
    if key is None or not NAMESPACE_RE.fullmatch(provider.namespace):
        return list(provider.supported_configs())
    path = cache_file(provider.namespace, cache_dir)
    hit = _load(path, key, provider.namespace)
    if hit is not None:
        return hit
    configs = list(provider.supported_configs())  # ProviderError propagates, uncached
    _store(path, key, provider.namespace, configs)
    return configs


def clear_cache(cache_dir: Optional[PathLike] = None) -> int:
    """Delete every cached provider result; returns how many files were removed."""
    removed = 0
    folder = _providers_dir(cache_dir)
    try:
        entries = list(folder.iterdir())
    except OSError:
        return 0
    for entry in entries:
        if entry.suffix in (".json", ".tmp"):
            try:
                entry.unlink()
                removed += 1
            except OSError:
                pass
    return removed
