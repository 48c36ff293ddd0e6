"""Writing variant metadata: the document installers read back (PEP 825 / Providers PEP).

Reading, validation and comparison live in :mod:`pip_variants.metadata`;
this module only writes what that module read or a publisher built.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, Optional

from .metadata import ABI_DEPENDENCY, SCHEMA_URLS, InvalidVariantMetadata, ProviderInfo, VariantMetadata

__all__ = ["to_json_dict", "dumps"]


def _provider_to_json(info: ProviderInfo) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    if info.builtin is not None:
        out["builtin"] = info.builtin
    elif info.static_properties is not None:
        out["static-properties"] = {f: list(v) for f, v in info.static_properties}
        if len(info.static_properties) > 1:
            out["feature-order"] = [f for f, _ in info.static_properties]
    elif info.requires:
        out["requires"] = list(info.requires)
        if info.plugin_api is not None:
            out["plugin-api"] = info.plugin_api
    else:
        return {}  # nothing says which provider answers: not writable in 0.2.0
    if info.optional:
        out["optional"] = True
    return out


def _variants_to_json(md: VariantMetadata, keep: Iterable[str]) -> Dict[str, Any]:
    return {
        label: {ns: {f: list(v) for f, v in feats.items()} for ns, feats in md.variants[label].items()}
        for label in sorted(keep)
    }


def _priorities(md: VariantMetadata, namespaces: Iterable[str]) -> Dict[str, Any]:
    """``default-priorities``: the namespace order, and the override lists where
    the metadata has them (0.0.x, 0.1.0; a 0.1.1 file is read without them)."""
    prio: Dict[str, Any] = {"namespace": list(namespaces)}
    if md.feature_priorities:
        prio["feature"] = {ns: list(f) for ns, f in md.feature_priorities.items()}
    if md.property_priorities:
        prio["property"] = {
            ns: {f: list(v) for f, v in feats.items()} for ns, feats in md.property_priorities.items()
        }
    return prio


def _to_json_01x(md: VariantMetadata, keep: Iterable[str]) -> Dict[str, Any]:
    """A 0.1.x document in its own format: it names no providers (installers map
    namespaces through their own registry), so 0.2.0 could not say the same."""
    return {"$schema": SCHEMA_URLS[md.schema], "default-priorities": _priorities(md, md.namespaces),
            "variants": _variants_to_json(md, keep)}


def to_json_dict(md: VariantMetadata, labels: Optional[Iterable[str]] = None) -> Dict[str, Any]:
    """The Providers PEP's 0.2.0 document for ``md`` (optionally only some labels).

    0.2.0 has no ``enable-if``: a 0.0.x entry's condition is dropped (the
    namespace is then asked everywhere; :func:`check_consistency` knows).
    0.1.x metadata names no providers: it keeps its own format unless its only
    namespace without one is the drafts' literal ``abi_dependency`` (and it has
    no 0.1.0 override lists).
    Raises :class:`InvalidVariantMetadata` where a namespace has no provider
    information to write."""
    keep = list(md.variants) if labels is None else [l for l in labels if l in md.variants]
    if (0, 1, 0) <= md.schema < (0, 2, 0) and (md.feature_priorities or md.property_priorities):
        return _to_json_01x(md, keep)  # 0.1.0's override lists: 0.2.0 has no place for them
    namespaces = list(md.namespaces)
    if ABI_DEPENDENCY not in namespaces and any(ABI_DEPENDENCY in md.variants[label] for label in keep):
        # The PEP drafts' literal namespace, unlisted and without a provider: in
        # 0.2.0 every namespace used is listed, so it becomes the built-in
        # provider, ranked last as the drafts rank it (uv refuses the file otherwise).
        namespaces.append(ABI_DEPENDENCY)
    # A 0.1.x file lists the literal abi_dependency namespace without a provider
    # table (and the drafts' files do not list it at all): in 0.2.0 it is the
    # built-in provider.
    providers = {
        ns: _provider_to_json(
            md.provider(ns) if ns != ABI_DEPENDENCY or ns in md.providers else ProviderInfo(ns, builtin=ABI_DEPENDENCY)
        )
        for ns in namespaces
    }
    for ns, entry in providers.items():
        if not entry:
            if (0, 1, 0) <= md.schema < (0, 2, 0):
                return _to_json_01x(md, keep)
            raise InvalidVariantMetadata(md.source, f"no provider information for namespace {ns!r}")
    return {
        "$schema": SCHEMA_URLS[(0, 2, 0)],
        "default-priorities": _priorities(md, namespaces),
        "providers": providers,
        "variants": _variants_to_json(md, keep),
    }


def dumps(md: VariantMetadata, labels: Optional[Iterable[str]] = None) -> str:
    return json.dumps(to_json_dict(md, labels), indent=2, sort_keys=False) + "\n"
