"""Release metadata made of several documents (PEP 825 step 5; IX-3/IX-4).

The ``variant.json`` of each wheel where the index serves no ``variants.json``,
a folder's saved file with a new wheel's, or several sources' files of one
release: combined into one :class:`~pip_variants.metadata.VariantMetadata`,
or refused when they conflict. Imports nothing from pip.
"""

from __future__ import annotations

from typing import Dict, Sequence, Tuple

from .metadata import InvalidVariantMetadata, ProviderInfo, VariantMetadata, one_is_prefix
from .properties import PropertySet

__all__ = ["merge_metadata"]


def merge_metadata(parts: Sequence[VariantMetadata], source: str) -> VariantMetadata:
    """Combine per-wheel metadata into release metadata (PEP 825 step 5; IX-3/IX-4)."""
    if not parts:
        raise InvalidVariantMetadata(source, "nothing to merge")
    namespaces: Tuple[str, ...] = ()
    variants: Dict[str, PropertySet] = {}
    providers: Dict[str, ProviderInfo] = {}
    feature_prio: Dict[str, Tuple[str, ...]] = {}
    property_prio: Dict[str, Dict[str, Tuple[str, ...]]] = {}
    invalid: Dict[str, str] = {}
    for md in parts:
        if not one_is_prefix(namespaces, md.namespaces):
            raise InvalidVariantMetadata(
                source,
                f"{md.source}: namespace priorities {list(md.namespaces)} conflict with {list(namespaces)}",
            )
        if len(md.namespaces) > len(namespaces):
            namespaces = md.namespaces
        for label, props in md.variants.items():
            if (label in variants and variants[label] != props) or label in invalid:
                raise InvalidVariantMetadata(source, f"{md.source}: label {label!r} has conflicting properties")
            variants[label] = props
        for label in md.invalid_labels:
            if label in variants:  # valid in one part, invalid in another: not the same variant
                raise InvalidVariantMetadata(source, f"{md.source}: label {label!r} has conflicting properties")
        for ns, info in md.providers.items():
            if ns in providers and providers[ns] != info:
                raise InvalidVariantMetadata(source, f"{md.source}: provider for {ns!r} conflicts")
            providers[ns] = info
        for ns, feats in md.feature_priorities.items():
            if feature_prio.setdefault(ns, feats) != feats:
                raise InvalidVariantMetadata(source, f"{md.source}: feature priorities of {ns!r} conflict")
        for ns, values_by_feature in md.property_priorities.items():
            for f, vals in values_by_feature.items():
                if property_prio.setdefault(ns, {}).setdefault(f, vals) != vals:
                    raise InvalidVariantMetadata(
                        source, f"{md.source}: value priorities of {ns} :: {f} conflict"
                    )
        invalid.update(md.invalid_labels)
    schema = max(md.schema for md in parts)
    return VariantMetadata(
        source=source,
        schema=schema,
        namespaces=namespaces,
        variants=variants,
        providers=providers,
        feature_priorities=feature_prio,
        property_priorities=property_prio,
        invalid_labels=invalid,
    )
