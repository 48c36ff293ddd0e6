"""Variant properties: ``namespace :: feature :: value`` (PEP 817 / PEP 825).

Pure functions over small immutable values; imports nothing from pip.
"""

from __future__ import annotations

import functools
import re
from typing import Dict, Iterable, Iterator, Mapping, Sequence, Tuple

from ._charset import LOWER_DIGITS_UNDERSCORE, Charset
from ._record import record

__all__ = [
    "NAMESPACE_RE",
    "FEATURE_RE",
    "VALUE_RE",
    "InvalidVariantProperty",
    "VariantFeature",
    "VariantProperty",
    "PropertySet",
    "Supported",
    "validate_namespace",
    "validate_feature",
    "validate_value",
    "iter_properties",
    "normalize_property_set",
]

NAMESPACE_RE = Charset(LOWER_DIGITS_UNDERSCORE, r"^[a-z0-9_]+$")
FEATURE_RE = NAMESPACE_RE
VALUE_RE = Charset(LOWER_DIGITS_UNDERSCORE + ".", r"^[a-z0-9_.]+$")


@functools.lru_cache(maxsize=None)
def _property_re() -> "re.Pattern[str]":
    # Compiled on first use: variant metadata spells properties as JSON keys.
    return re.compile(
        r"^\s*(?P<ns>[^:\s]+)\s*::\s*(?P<feature>[^:\s]+)(?:\s*::\s*(?P<value>[^:\s]+))?\s*$"
    )

#: ``{namespace: {feature: (value, ...)}}``: the properties of one variant.
PropertySet = Mapping[str, Mapping[str, Tuple[str, ...]]]

#: ``{namespace: {feature: (value, ...)}}`` with features and values ordered
#: most preferred first: what a machine (or a profile) supports.
Supported = Mapping[str, Mapping[str, Tuple[str, ...]]]


class InvalidVariantProperty(ValueError):
    """A namespace, feature or value breaks the PEP 825 property grammar."""


def _check(regex: Charset, kind: str, text: object) -> str:
    if not isinstance(text, str) or not regex.match(text):
        raise InvalidVariantProperty(
            f"invalid variant {kind} {text!r}: must match {regex.pattern}"
        )
    return text


def validate_namespace(text: object) -> str:
    return _check(NAMESPACE_RE, "namespace", text)


def validate_feature(text: object) -> str:
    return _check(FEATURE_RE, "feature name", text)


def validate_value(text: object) -> str:
    return _check(VALUE_RE, "feature value", text)


@record(order=True)
class VariantFeature:
    namespace: str
    feature: str

    def __str__(self) -> str:
        return f"{self.namespace} :: {self.feature}"

    @classmethod
    def parse(cls, text: str) -> "VariantFeature":
        m = _property_re().match(text)
        if not m or m.group("value") is not None:
            raise InvalidVariantProperty(
                f"invalid variant feature {text!r}: expected 'namespace :: feature'"
            )
        return cls(validate_namespace(m.group("ns")), validate_feature(m.group("feature")))


@record(order=True)
class VariantProperty:
    namespace: str
    feature: str
    value: str

    def __str__(self) -> str:
        return f"{self.namespace} :: {self.feature} :: {self.value}"

    @classmethod
    def parse(cls, text: str) -> "VariantProperty":
        """Parse ``ns :: feature :: value``; any whitespace around ``::`` is accepted."""
        m = _property_re().match(text) if isinstance(text, str) else None
        if not m or m.group("value") is None:
            raise InvalidVariantProperty(
                f"invalid variant property {text!r}: expected 'namespace :: feature :: value'"
            )
        return cls(
            validate_namespace(m.group("ns")),
            validate_feature(m.group("feature")),
            validate_value(m.group("value")),
        )


def iter_properties(props: PropertySet) -> Iterator[VariantProperty]:
    for ns, features in props.items():
        for feature, values in features.items():
            for value in values:
                yield VariantProperty(ns, feature, value)


def normalize_property_set(
    props: Iterable[VariantProperty],
) -> Dict[str, Dict[str, Tuple[str, ...]]]:
    """Group properties into the JSON shape; value lists sorted (PEP 825: a set)."""
    out: Dict[str, Dict[str, set]] = {}
    for p in props:
        out.setdefault(p.namespace, {}).setdefault(p.feature, set()).add(p.value)
    return {
        ns: {f: tuple(sorted(vals)) for f, vals in sorted(feats.items())}
        for ns, feats in sorted(out.items())
    }


def format_property_set(props: PropertySet) -> Sequence[str]:
    return [str(p) for p in iter_properties(props)]
