"""The provider contract: what detection hands to selection.

A *provider* answers one question for one namespace: which features and values
does this target support, **ordered most preferred first**? Features earlier in
the returned list outrank later ones; within a feature, earlier values outrank
later ones. A feature that is missing, or present with no values, is
unsupported; an empty list means nothing in the namespace is supported.

Built-in providers (``nvidia``, ``x86_64``, ``aarch64``, ``tpu``), installed
third-party plugins, static metadata entries and saved profiles all end up as
``(namespace, [FeatureConfig, ...])`` for :mod:`pip_variants.selection`.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Protocol, Sequence, Tuple, runtime_checkable

from .._record import record

__all__ = [
    "FeatureConfig",
    "Provider",
    "ProviderError",
    "configs_to_supported",
    "choice_override",
]


@record
class FeatureConfig:
    """One feature a provider supports, with its values best first."""

    name: str
    values: Tuple[str, ...]
    multi_value: bool = False

    def to_json(self) -> dict:
        return {"name": self.name, "values": list(self.values), "multi_value": self.multi_value}


class ProviderError(Exception):
    """A provider could not say what is supported (it crashed, timed out, or
    returned data breaking the grammar). Callers treat its namespace as
    unsupported, with one warning naming ``provider``."""

    def __init__(self, provider: str, message: str) -> None:
        super().__init__(f"variant provider {provider}: {message}")
        self.provider = provider
        self.message = message


@runtime_checkable
class Provider(Protocol):
    """A provider built into pip-variants (a reimplementation of a published plugin).

    ``namespace``: the namespace it governs.
    ``packages``: canonical (PEP 503) names of the published plugin packages it
    stands in for; a metadata entry whose first ``requires`` item names one of
    them, with a version range that admits one of ``versions``, is served by
    this provider (PROVIDERS.md §3.3 step 4).
    ``versions``: per package, the published releases whose answers it
    reproduces (final releases, e.g. ``"0.0.2"``); a range that admits none of
    them asks for a plugin this is not, which then goes the way of any other plugin.
    ``plugin_apis``: the published endpoints (``module:Object`` or ``module``)
    it stands in for.
    ``partly_for`` (optional): packages whose plugin answers more than this
    provider does (``all_configs`` lists what it answers). A release using more
    goes to that plugin where it is installed or allowed.
    """

    namespace: str
    packages: Tuple[str, ...]
    versions: Mapping[str, Tuple[str, ...]]
    plugin_apis: Tuple[str, ...]

    def supported_configs(self) -> List[FeatureConfig]:
        """Features and values supported here, most preferred first.

        Raises :class:`ProviderError` on invalid overrides or detection failure.
        """

    def cache_inputs(self) -> Dict[str, str]:
        """Everything the result depends on (driver, devices, CPU, override
        variables), cheap to compute: the persistent cache is keyed by it.
        Return an empty dict to disable caching for this provider."""


def configs_to_supported(configs: Sequence[FeatureConfig]) -> Dict[str, Tuple[str, ...]]:
    """``[FeatureConfig]`` to ``{feature: values}`` (order kept; empty features dropped)."""
    out: Dict[str, Tuple[str, ...]] = {}
    for cfg in configs:
        if cfg.values and cfg.name not in out:
            out[cfg.name] = tuple(cfg.values)
    return out


def choice_override(
    variable: str, choices: Sequence[str], namespace: str, aliases: Optional[Mapping[str, str]] = None
) -> Optional[str]:
    """Read an override variable that names one of ``choices`` (case-insensitive).

    Empty or unset means no override, like the NVIDIA variables; anything
    else outside ``choices`` is a :class:`ProviderError` naming the variable.
    """
    import os

    raw = os.environ.get(variable, "").strip()
    if not raw:
        return None
    value = raw.lower()
    value = (aliases or {}).get(value, value)
    if value not in choices:
        raise ProviderError(namespace, f"{variable}={raw!r} is not one of {', '.join(choices)}")
    return value
