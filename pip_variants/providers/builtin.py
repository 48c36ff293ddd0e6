"""Registry of the providers built into pip-variants (PROVIDERS.md §3.3 step 4).

Importing this module is cheap: providers are created on first use, and
detection libraries (pynvml, py-cpuinfo, ctypes for Level Zero) are only
imported while detecting.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, List, Mapping, Optional, Sequence

from pip_variants.providers.base import Provider

__all__ = ["BUILTIN_PROVIDERS", "builtin_for", "all_builtin_providers", "get_builtin"]


def _nvidia() -> Provider:
    from pip_variants.providers.nvidia import NvidiaProvider

    return NvidiaProvider()


def _x86_64() -> Provider:
    from pip_variants.providers.x86_64 import X8664Provider

    return X8664Provider()


def _aarch64() -> Provider:
    from pip_variants.providers.aarch64 import AArch64Provider

    return AArch64Provider()


def _tpu() -> Provider:
    from pip_variants.providers.tpu import TpuProvider

    return TpuProvider()


def _amd() -> Provider:
    from pip_variants.providers.amd import AmdProvider

    return AmdProvider()


def _intel() -> Provider:
    from pip_variants.providers.intel import IntelProvider

    return IntelProvider()


#: namespace → factory of the built-in provider for it.
BUILTIN_PROVIDERS: Mapping[str, Callable[[], Provider]] = {
    "nvidia": _nvidia,
    "x86_64": _x86_64,
    "aarch64": _aarch64,
    "tpu": _tpu,
    "amd": _amd,
    "intel": _intel,
}


@lru_cache(maxsize=None)
def get_builtin(namespace: str) -> Optional[Provider]:
    """The (stateless, shared) built-in provider for ``namespace``, if any."""
    factory = BUILTIN_PROVIDERS.get(namespace)
    return factory() if factory is not None else None


def all_builtin_providers() -> List[Provider]:
    """Every built-in provider, in registry order."""
    return [p for p in (get_builtin(ns) for ns in BUILTIN_PROVIDERS) if p is not None]


def _normalize_api(api: str) -> str:
    # `module : Object` and `module:Object` name the same endpoint.
    return ":".join(part.strip() for part in api.split(":"))


def builtin_for(
    namespace: str,
    requires: Sequence[str] = (),
    plugin_api: Optional[str] = None,
    environment: Optional[Mapping[str, str]] = None,
) -> Optional[Provider]:
    """The built-in provider serving a ``providers[namespace]`` entry, or None.

    It serves the entry when the namespace matches and either no provider
    information is given (PEP 825 0.1.x metadata has no providers table), or
    the first applicable ``requires`` item names one of its packages, with a
    version range admitting one of its ``versions`` and no endpoint outside
    that package, or ``plugin_api`` is one of its endpoints (a fork under
    another name). Markers in ``requires`` are evaluated in ``environment``
    (default: this interpreter).

    A range it does not stand for (``nvidia-variant-provider>=5``) or another
    endpoint (``other_module:Plugin``) asks for a plugin this is not
    (PROVIDERS.md §3.3 step 4, §6.2): the entry goes on to the installed or
    allowed plugin, else it is untrusted, as uv skips it.
    """
    provider = get_builtin(namespace)
    if provider is None:
        return None
    if not requires and plugin_api is None:
        return provider
    if requires:
        from pip_variants.requirements import admits_any, first_active_requirement, requirement_name

        first = first_active_requirement(requires, environment)
        name = requirement_name(first) if first is not None else None
        if first is not None and name in provider.packages:
            if not admits_any(first, tuple(provider.versions.get(name, ()))):
                return None
            if plugin_api is not None and not _endpoint_of(provider, plugin_api):
                return None
            return provider
    if plugin_api is not None:
        wanted = _normalize_api(plugin_api)
        if any(_normalize_api(api) == wanted for api in provider.plugin_apis):
            return provider
    return None


def _endpoint_of(provider: Provider, plugin_api: str) -> bool:
    """Is ``plugin_api`` one of the provider's endpoints, or the form derived from
    its package's name (``nvidia_variant_provider``, what an entry without
    ``plugin-api`` gets)? Another object, even in the plugin's own modules, is a
    plugin the built-in does not reproduce (variantlib fails to load it; uv skips it)."""
    wanted = _normalize_api(plugin_api)
    if any(_normalize_api(api) == wanted for api in provider.plugin_apis):
        return True
    return any(wanted == package.replace("-", "_").replace(".", "_") for package in provider.packages)
