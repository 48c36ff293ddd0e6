"""Variant selection: compatibility and ordering (PEP 825 §Variant ordering).

Given a release's :class:`~pip_variants.metadata.VariantMetadata` and what the
target supports (``{namespace: {feature: (value, ...)}}``, best first), this
module filters and ranks the labels. Pure and deterministic; imports no pip.

Ranking: compatible variants by their sorted best-value keys
``(namespace index, feature index, value index)``; a key list that extends
another wins; exact ties go to the lexically smaller label. ``null`` (no
properties) therefore comes last among the variants, and the non-variant
wheels come after it (that last step is the caller's).
"""

from __future__ import annotations

from dataclasses import field, replace
from itertools import chain
from typing import AbstractSet, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ._record import record
from .metadata import VariantMetadata
from .properties import PropertySet, Supported

__all__ = [
    "Preferences",
    "Rejection",
    "Ranking",
    "find_incompatibility",
    "held_by_profile",
    "matching_properties",
    "PROFILE_HOLDER",
    "rank_variants",
    "orders_for",
]

_INF = float("inf")
_LAST = ((_INF, _INF, _INF),)


@record
class Preferences:
    """User ordering overrides (variantlib's ``variants.toml`` shape).

    They reorder the compatible set only; they never make a variant compatible.
    """

    namespaces: Tuple[str, ...] = ()
    features: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)
    properties: Mapping[str, Mapping[str, Tuple[str, ...]]] = field(default_factory=dict)


@record
class Rejection:
    """Why a label is not installable here."""

    label: str
    reason: str  # "unsupported", "not-in-metadata", "invalid", "excluded"
    namespace: str = ""
    feature: str = ""
    declared: Tuple[str, ...] = ()
    supported: Tuple[str, ...] = ()
    detail: str = ""
    #: whose support ``supported`` is: this machine, or the profile standing in for it
    holder: str = "this machine"

    def __str__(self) -> str:
        if self.reason != "unsupported":
            return self.detail or self.reason
        needs = " or ".join(f"{self.namespace} :: {self.feature} :: {v}" for v in self.declared)
        if self.supported:
            shown = ", ".join(self.supported[:6]) + (", ..." if len(self.supported) > 6 else "")
            have = f"{self.holder} supports {shown}"
        else:
            have = self.detail or f"{self.holder} supports no '{self.namespace} :: {self.feature}'"
        return f"needs {needs}; {have}"


@record
class Ranking:
    """Compatible labels best first (``null`` last if present) and the rejected ones."""

    order: Tuple[str, ...]
    rejected: Mapping[str, Rejection]

    @property
    def best(self) -> Optional[str]:
        return self.order[0] if self.order else None


#: :attr:`Rejection.holder` where a variant profile answered the namespace
PROFILE_HOLDER = "the variant profile"


def held_by_profile(rejection: Rejection, namespaces: AbstractSet[str]) -> Rejection:
    """``rejection`` worded as the profile's where its namespace is one of the
    ``namespaces`` a ``--variant-profile`` answered (not this machine's support)."""
    if rejection.reason == "unsupported" and rejection.namespace in namespaces:
        return replace(rejection, holder=PROFILE_HOLDER)
    return rejection


def find_incompatibility(label: str, props: PropertySet, supported: Supported) -> Optional[Rejection]:
    """The first declared feature none of whose values is supported, or ``None``.

    PR-1: every declared feature needs at least one supported value (AND across
    features, OR within one). A variant with no properties is always compatible.
    """
    for ns, features in props.items():
        ns_supported = supported.get(ns, {})
        for feature, values in features.items():
            have = tuple(ns_supported.get(feature, ()))
            # A variant declares one or two values; the supported list can be a hundred long.
            if not any(value in have for value in values):
                return Rejection(label, "unsupported", ns, feature, tuple(values), have)
    return None


def matching_properties(props: PropertySet, supported: Supported) -> PropertySet:
    """``props`` with each feature's values cut to those ``supported`` holds.

    What made a chosen variant fit: of a wheel built for ``gfx1030 ... gfx942``
    a machine with an MI300X matched ``gfx942``. A feature none of whose
    values is supported (a build forced with ``--variant``) keeps them all.
    """
    matched: Dict[str, Dict[str, Tuple[str, ...]]] = {}
    for ns, features in props.items():
        ns_supported = supported.get(ns, {})
        for feature, values in features.items():
            have = ns_supported.get(feature, ())
            kept = tuple(value for value in values if value in have)
            matched.setdefault(ns, {})[feature] = kept or tuple(values)
    return matched


def _merged(*orders: Iterable[str]) -> List[str]:
    """Every item once, where it first appears (orders can be a hundred values long)."""
    return list(dict.fromkeys(chain.from_iterable(orders)))


def _positions(*orders: Iterable[str]) -> Dict[str, int]:
    """``{item: index}`` in :func:`_merged` order."""
    return {item: i for i, item in enumerate(_merged(*orders))}


def _namespace_order(metadata: VariantMetadata, prefs: Preferences) -> List[str]:
    namespaces = _merged(prefs.namespaces, metadata.namespaces)
    for ns in metadata.used_namespaces:
        if ns not in namespaces:  # only abi_dependency can be unlisted; variantlib ranks it last
            namespaces.append(ns)
    return namespaces


def _feature_orders(metadata: VariantMetadata, prefs: Preferences, ns: str,
                    ns_supported: Mapping[str, Sequence[str]]) -> Tuple[Iterable[str], ...]:
    """The orders a namespace's features are ranked by, highest authority first."""
    return prefs.features.get(ns, ()), metadata.feature_priorities.get(ns, ()), ns_supported


def _value_orders(metadata: VariantMetadata, prefs: Preferences, ns: str, feature: str,
                  supported_values: Sequence[str]) -> Tuple[Iterable[str], ...]:
    """The orders a feature's values are ranked by, highest authority first."""
    return (
        prefs.properties.get(ns, {}).get(feature, ()),
        metadata.property_priorities.get(ns, {}).get(feature, ()),
        supported_values,
    )


def orders_for(
    metadata: VariantMetadata, supported: Supported, prefs: Preferences = Preferences()
) -> Tuple[List[str], Dict[str, List[str]], Dict[str, Dict[str, List[str]]]]:
    """Namespace, feature and value orders: user first, then the package's
    ``default-priorities`` overrides, then the provider's own order."""
    namespaces = _namespace_order(metadata, prefs)
    features: Dict[str, List[str]] = {}
    values: Dict[str, Dict[str, List[str]]] = {}
    for ns in namespaces:
        ns_supported = supported.get(ns, {})
        features[ns] = _merged(*_feature_orders(metadata, prefs, ns, ns_supported))
        values[ns] = {
            f: _merged(*_value_orders(metadata, prefs, ns, f, ns_supported.get(f, ())))
            for f in features[ns]
        }
    return namespaces, features, values


def rank_variants(
    metadata: VariantMetadata,
    supported: Supported,
    labels: Optional[Iterable[str]] = None,
    prefs: Preferences = Preferences(),
    exclude: Iterable[str] = (),
) -> Ranking:
    """Filter and order ``labels`` (default: every label in ``metadata``)."""
    wanted = list(metadata.variants) if labels is None else list(dict.fromkeys(labels))
    excluded = set(exclude)
    # The orders of :func:`orders_for`, as positions, and only for the features
    # the variants declare: a provider may support a hundred values of another.
    ns_index = {ns: i for i, ns in enumerate(_namespace_order(metadata, prefs))}
    feature_index: Dict[str, Dict[str, int]] = {}
    value_index: Dict[Tuple[str, str], Dict[str, int]] = {}

    rejected: Dict[str, Rejection] = {}
    keyed: List[Tuple[Tuple[Tuple[float, float, float], ...], str]] = []
    for label in wanted:
        if label in metadata.invalid_labels:
            rejected[label] = Rejection(label, "invalid", detail=metadata.invalid_labels[label])
            continue
        if label not in metadata.variants:
            rejected[label] = Rejection(
                label, "not-in-metadata", detail=f"label {label!r} is not listed in {metadata.source}"
            )
            continue
        props = metadata.variants[label]
        problem = find_incompatibility(label, props, supported)
        if problem is not None:
            rejected[label] = problem
            continue
        if label in excluded:
            rejected[label] = Rejection(label, "excluded", detail=f"label {label!r} excluded by the user")
            continue
        keys = []
        for ns, feats in props.items():
            ns_supported = supported[ns]
            positions = feature_index.get(ns)
            if positions is None:
                positions = feature_index[ns] = _positions(
                    *_feature_orders(metadata, prefs, ns, ns_supported)
                )
            for feature, declared in feats.items():
                order = value_index.get((ns, feature))
                if order is None:
                    order = value_index[(ns, feature)] = _positions(
                        *_value_orders(metadata, prefs, ns, feature, ns_supported[feature])
                    )
                have = ns_supported[feature]
                best = min(order[v] for v in declared if v in have)
                keys.append((ns_index[ns], positions[feature], best))
        keyed.append((tuple(sorted(keys)) + _LAST, label))
    keyed.sort()
    return Ranking(tuple(label for _, label in keyed), rejected)

