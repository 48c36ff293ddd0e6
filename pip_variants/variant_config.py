"""User priorities in variantlib's ``variants.toml`` format (``--variant-config FILE``).

The priorities reorder the variants this machine supports; they never make
one supported (WHEEL-VARIANTS.md §7.2, CFG-6). ``enable_optional_plugins`` is
the exception, on purpose: like ``--variant-enable`` it turns on providers a
release marks optional. Every key is optional::

    namespace_priorities = ["x86_64", "nvidia"]          # namespaces, most preferred first
    feature_priorities.nvidia = ["sm_arch"]              # per namespace: features first
    property_priorities.x86_64.level = ["v4"]            # per feature: values first
    enable_optional_plugins = ["dbg"]                    # or true: every optional namespace

Each list goes in front of the package's own order (then the providers'
order), as variantlib merges them. Unlike variantlib, pip-variants reads the
file only when it is named (``--variant-config``, ``PIP_VARIANT_CONFIG`` or the
pip.conf key ``variant-config``): a ``variants.toml`` lying in the current
folder does not change what pip installs. JSON of the same shape is read too
(a name ending in ``.json``).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Tuple

from ._record import record
from .profile import read_data_file
from .properties import FEATURE_RE, NAMESPACE_RE, VALUE_RE
from .selection import Preferences

__all__ = ["InvalidVariantConfig", "VariantConfig", "load_variant_config", "parse_variant_config"]

_KEYS = ("namespace_priorities", "feature_priorities", "property_priorities", "enable_optional_plugins")


class InvalidVariantConfig(ValueError):
    """A ``--variant-config`` file cannot be used; the message names the file and the key."""


@record
class VariantConfig:
    """What a ``variants.toml`` says: ordering overrides, and optional namespaces to enable."""

    preferences: Preferences = Preferences()
    #: namespaces whose optional provider is enabled; ``(":all:",)`` for every one
    enable_optional: Tuple[str, ...] = ()


def _fail(source: str, message: str) -> InvalidVariantConfig:
    return InvalidVariantConfig(f"variant config {source}: {message}")


def _names(source: str, key: str, raw: Any, pattern: Any, what: str) -> Tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(v, str) and pattern.match(v) for v in raw):
        raise _fail(source, f"{key} must be a list of {what} matching {pattern.pattern}")
    return tuple(dict.fromkeys(raw))


def _table(source: str, key: str, raw: Any) -> Mapping[str, Any]:
    if isinstance(raw, list) and not raw:
        return {}  # variantlib's own template writes "feature_priorities = [ ]" (and reads it)
    if not isinstance(raw, Mapping):
        raise _fail(source, f"{key} must be a table")
    for name in raw:
        if not isinstance(name, str) or not NAMESPACE_RE.match(name):
            raise _fail(source, f"{key}: invalid namespace {name!r}")
    return raw


def parse_variant_config(data: Any, source: str = "<variant config>") -> VariantConfig:
    """Check and read the document of a ``variants.toml``."""
    if not isinstance(data, Mapping):
        raise _fail(source, "top level must be a table")
    unknown = sorted(str(k) for k in data if k not in _KEYS)
    if unknown:
        raise _fail(source, f"unknown keys {unknown} (known: {', '.join(_KEYS)})")
    namespaces = _names(source, "namespace_priorities", data.get("namespace_priorities", []),
                        NAMESPACE_RE, "namespaces")
    features: Dict[str, Tuple[str, ...]] = {}
    for ns, raw in _table(source, "feature_priorities", data.get("feature_priorities", {})).items():
        features[ns] = _names(source, f"feature_priorities.{ns}", raw, FEATURE_RE, "features")
    properties: Dict[str, Dict[str, Tuple[str, ...]]] = {}
    for ns, raw in _table(source, "property_priorities", data.get("property_priorities", {})).items():
        if not isinstance(raw, Mapping):
            raise _fail(source, f"property_priorities.{ns} must be a table of features")
        values: Dict[str, Tuple[str, ...]] = {}
        for feature, listed in raw.items():
            if not isinstance(feature, str) or not FEATURE_RE.match(feature):
                raise _fail(source, f"property_priorities.{ns}: invalid feature {feature!r}")
            values[feature] = _names(source, f"property_priorities.{ns}.{feature}", listed, VALUE_RE, "values")
        properties[ns] = values
    enable = data.get("enable_optional_plugins", False)
    if isinstance(enable, bool):
        enabled: Tuple[str, ...] = (":all:",) if enable else ()
    else:
        enabled = _names(source, "enable_optional_plugins", enable, NAMESPACE_RE, "namespaces (or true)")
    return VariantConfig(Preferences(namespaces, features, properties), enabled)


def load_variant_config(path: str) -> VariantConfig:
    """Read ``path`` (TOML; JSON when the name ends in ``.json``)."""
    return parse_variant_config(read_data_file(path, _fail, toml=not path.endswith(".json")), path)
