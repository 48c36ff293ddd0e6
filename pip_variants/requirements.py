"""Project names and provider ``requires`` entries, cheaply.

Selection runs inside every variant-aware pip: for the common entries (a name
and a version range, no marker) importing :mod:`packaging` would cost more than
the rest of the selection. Markers, URLs and odd spellings go to packaging.
"""

from __future__ import annotations

import functools
import re
from typing import Iterator, Mapping, Optional, Sequence

from .filename import canonicalize_name

__all__ = ["canonicalize_name", "requirement_name", "active_requirements", "first_active_requirement"]


@functools.lru_cache(maxsize=None)
def _simple_re() -> "re.Pattern[str]":
    """A name, optional extras, then a version range or nothing: no marker, no URL.
    Compiled on first use: most pip runs only canonicalize names."""
    clause = r"(?:===|~=|==|!=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+"
    return re.compile(
        r"^\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*"
        rf"(?P<spec>{clause}(?:\s*,\s*{clause})*)?\s*$"
    )


def _parsed(text: str):
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def requirement_name(text: str) -> Optional[str]:
    """The canonical project name of a PEP 508 requirement, ``None`` if invalid."""
    m = _simple_re().match(text)
    if m:
        return canonicalize_name(m.group("name"))
    req = _parsed(text)
    return canonicalize_name(req.name) if req is not None else None


def active_requirements(
    requires: Sequence[str], environment: Optional[Mapping[str, str]] = None
) -> Iterator[str]:
    """The entries whose marker holds in ``environment`` (default: here), in order.

    Unparsable entries and markers that cannot be evaluated are skipped: they
    cannot identify a provider.
    """
    for text in requires:
        if _simple_re().match(text):
            yield text
            continue
        req = _parsed(text)
        if req is None:
            continue
        if req.marker is not None:
            try:
                if not req.marker.evaluate(dict(environment) if environment else None):
                    continue
            except Exception:
                continue
        yield text


def first_active_requirement(
    requires: Sequence[str], environment: Optional[Mapping[str, str]] = None
) -> Optional[str]:
    """The first of :func:`active_requirements`: the one that names the provider."""
    return next(active_requirements(requires, environment), None)
