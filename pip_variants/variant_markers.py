"""Variant environment markers (WHEEL-VARIANTS §8, PEP 825): values and comparisons.

Pure functions over the spec model; no pip imports. :mod:`pip_variants._pip.markers`
teaches pip's vendored ``packaging`` to parse the four names and asks this
module what each comparison that names one of them is worth.

Values (variant wheel / ``null`` variant / non-variant wheel):

* ``variant_label``: the label / ``"null"`` / ``""``;
* ``variant_properties``: the declared properties the target supports (825; a
  feature the target does not support keeps all its values, see
  :meth:`VariantEnvironment.for_wheel`) / ∅ / ∅;
* ``variant_features``, ``variant_namespaces``: derived from those / ∅ / ∅.
"""

from __future__ import annotations

import functools
import re
from typing import AbstractSet, Callable, Dict, FrozenSet, Iterable, Mapping, Optional

from .properties import PropertySet, Supported

__all__ = [
    "LABEL",
    "SET_MARKERS",
    "MARKER_NAMES",
    "MARKER_NAME_PATTERN",
    "marker_name_re",
    "VariantEnvironment",
    "NON_VARIANT",
    "InvalidVariantComparison",
    "normalize_item",
    "compare",
    "uses_variant_markers",
    "InvalidVariantRequirement",
    "check_requirement",
]

LABEL = "variant_label"
SET_MARKERS = ("variant_properties", "variant_features", "variant_namespaces")
MARKER_NAMES = frozenset((LABEL,) + SET_MARKERS)
#: a variant marker name in a ``Requires-Dist`` line, as the source of
#: :func:`marker_name_re` (a string: importing this module compiles nothing for it)
MARKER_NAME_PATTERN = r"\bvariant_(?:label|properties|features|namespaces)\b"


@functools.lru_cache(maxsize=None)
def marker_name_re() -> "re.Pattern[str]":
    """Finds a variant marker name in a ``Requires-Dist`` line (cheap pre-check);
    compiled on first use."""
    return re.compile(MARKER_NAME_PATTERN)


@functools.lru_cache(maxsize=None)
def _separator_re() -> "re.Pattern[str]":
    return re.compile(r"\s*::\s*")


class InvalidVariantComparison(ValueError):
    """A comparison the field type does not define (MK-2), e.g. ``variant_properties == "x"``."""


def normalize_item(text: str) -> str:
    """MK-3: whitespace around ``::`` is not significant (``"a::b::c"`` is ``"a :: b :: c"``)."""
    return _separator_re().sub(" :: ", text.strip())


class VariantEnvironment:
    """The values of the four markers for one chosen wheel."""

    __slots__ = ("label", "properties", "features", "namespaces")

    def __init__(self, label: str, properties: Iterable[str] = ()) -> None:
        self.label = label
        props = frozenset(normalize_item(p) for p in properties)
        self.properties: FrozenSet[str] = props
        # MK-4: derived from the properties, which for_wheel never filters down
        # to nothing within a feature.
        self.features: FrozenSet[str] = frozenset(p.rsplit(" :: ", 1)[0] for p in props)
        self.namespaces: FrozenSet[str] = frozenset(p.split(" :: ", 1)[0] for p in props)

    @classmethod
    def for_wheel(cls, label: str, declared: PropertySet, supported: Optional[Supported] = None) -> "VariantEnvironment":
        """A variant wheel's values: its declared properties, filtered to what
        ``supported`` holds (PEP 825); all declared ones when ``supported`` is
        ``None`` (PEP 817).

        A feature none of whose values ``supported`` holds keeps them all (MK-4:
        filtering never removes a whole feature). Only a wheel the target was not
        seen to support has one: a ``--variant`` choice made for another
        machine, or an installed wheel whose provider no longer answers (a
        plugin removed, a GPU taken out). Its dependencies are then those of the
        machine it was chosen for."""
        if label == "null":
            return cls(label)
        out = []
        for ns, features in declared.items():
            for feature, values in features.items():
                allowed = None if supported is None else supported.get(ns, {}).get(feature, ())
                if allowed is not None and not any(value in allowed for value in values):
                    allowed = None
                for value in values:
                    if allowed is None or value in allowed:
                        out.append(f"{ns} :: {feature} :: {value}")
        return cls(label, out)

    def value(self, name: str) -> "str | AbstractSet[str]":
        if name == LABEL:
            return self.label
        return {"variant_properties": self.properties, "variant_features": self.features,
                "variant_namespaces": self.namespaces}[name]

    def as_dict(self) -> Dict[str, object]:
        return {LABEL: self.label, "variant_properties": sorted(self.properties),
                "variant_features": sorted(self.features), "variant_namespaces": sorted(self.namespaces)}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VariantEnvironment) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        return f"VariantEnvironment({self.label!r}, {sorted(self.properties)!r})"


#: what a non-variant wheel (and every wheel under ``--no-variants``) sees (MK-5, 825)
NON_VARIANT = VariantEnvironment("")

_STRING_OPS: Mapping[str, Callable[[str, str], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def compare(name: str, op: str, literal: str, variable_on_left: bool, env: VariantEnvironment) -> bool:
    """One marker comparison naming variant marker ``name`` (MK-2).

    ``variant_label`` takes the string operators; the three sets take only
    ``"item" in SET`` / ``"item" not in SET``. Anything else raises
    :class:`InvalidVariantComparison`.
    """
    if name == LABEL:
        fn = _STRING_OPS.get(op)
        if fn is None:
            raise InvalidVariantComparison(f"{op!r} is not defined for {LABEL}")
        return fn(env.label, literal) if variable_on_left else fn(literal, env.label)
    if name not in MARKER_NAMES:
        raise InvalidVariantComparison(f"{name!r} is not a variant marker")
    if variable_on_left or op not in ("in", "not in"):
        raise InvalidVariantComparison(
            f"{name} is a set: use '\"ITEM\" in {name}' or '\"ITEM\" not in {name}'"
        )
    found = normalize_item(literal) in env.value(name)
    return found if op == "in" else not found


def uses_variant_markers(requires_dist: Iterable[str]) -> bool:
    search = marker_name_re().search
    return any(search(line) for line in requires_dist)


class InvalidVariantRequirement(ValueError):
    """A ``Requires-Dist`` value a publisher gave is not valid (with variant markers allowed)."""


@functools.lru_cache(maxsize=None)
def _set_use_re() -> "re.Pattern[str]":
    return re.compile(
        r"""(?P<lit>"[^"]*"|'[^']*')\s+(?:not\s+)?in\s+(?P<name>variant_(?:properties|features|namespaces))\b"""
    )


def check_requirement(text: str) -> str:
    """Validate a dependency specifier that may use variant markers; returns it stripped.

    Stock :mod:`packaging` cannot parse the four names, so each is checked
    here (MK-2: sets only as ``"ITEM" in SET``, items of the right shape) and
    then replaced by a string variable packaging knows, for the syntax check.
    """
    from packaging.requirements import InvalidRequirement, Requirement

    from .properties import InvalidVariantProperty, VariantFeature, VariantProperty, validate_namespace

    text = text.strip()
    if not text:
        raise InvalidVariantRequirement("empty requirement")
    set_uses = list(_set_use_re().finditer(text))
    all_set_names = re.findall(r"\bvariant_(?:properties|features|namespaces)\b", text)
    if len(set_uses) != len(all_set_names):
        raise InvalidVariantRequirement(
            f"{text!r}: variant_properties, variant_features and variant_namespaces are sets; "
            'use them only as \'"ITEM" in variant_properties\' or \'"ITEM" not in ...\''
        )
    for m in set_uses:
        item, name = m.group("lit")[1:-1], m.group("name")
        try:
            if name == "variant_properties":
                VariantProperty.parse(item)
            elif name == "variant_features":
                VariantFeature.parse(item)
            else:
                validate_namespace(item.strip())
        except InvalidVariantProperty as exc:
            raise InvalidVariantRequirement(f"{text!r}: {exc}") from None
    stand_in = marker_name_re().sub("platform_release", text)
    try:
        Requirement(stand_in)
    except InvalidRequirement as exc:
        raise InvalidVariantRequirement(f"{text!r}: {exc}".replace("platform_release", "variant_*")) from None
    return text
