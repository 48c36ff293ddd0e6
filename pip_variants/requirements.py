"""Project names and provider ``requires`` entries, cheaply.

Selection runs inside every variant-aware pip: for the common entries (a name
and a version range, no marker) importing :mod:`packaging` would cost more than
the rest of the selection. Markers, URLs and odd spellings go to packaging.
"""

from __future__ import annotations

import functools
import re
from typing import Iterator, Mapping, Optional, Sequence, Tuple

from .filename import canonicalize_name

__all__ = [
    "canonicalize_name",
    "requirement_name",
    "active_requirements",
    "first_active_requirement",
    "admits_any",
]


@functools.lru_cache(maxsize=None)
def _simple_re() -> "re.Pattern[str]":
    """A name, optional extras, then a version range or nothing: no marker, no URL.
    Compiled on first use: most pip runs only canonicalize names."""
    clause = r"(?:===|~=|==|!=|<=|>=|<|>)\s*[A-Za-z0-9.*+!_-]+"
    return re.compile(
        r"^\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*"
        rf"(?P<spec>{clause}(?:\s*,\s*{clause})*)?\s*$"
    )


_OPERATORS = ("===", "~=", "==", "!=", "<=", ">=", "<", ">")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_VERSION_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.*+!_-")


def _operator(clause: str) -> Optional[str]:
    """The PEP 440 operator ``clause`` (stripped) starts with, if any."""
    return next((o for o in _OPERATORS if clause.startswith(o)), None)


def _split_by_hand(text: str) -> Optional[Tuple[str, str]]:
    """``(name, range)`` of ``NAME`` or ``NAME RANGE`` without extras, read without
    the regex (compiling it costs a pip run about 1 ms); ``None``: ask the regex."""
    stripped = text.strip()
    end = 0
    while end < len(stripped) and stripped[end] in _NAME_CHARS:
        end += 1
    name, spec = stripped[:end], stripped[end:].strip()
    if not name or not name[0].isalnum() or not name[-1].isalnum():
        return None
    if spec:
        for clause in spec.split(","):
            clause = clause.strip()
            op = _operator(clause)
            version = clause[len(op):].strip() if op is not None else ""
            if not version or not set(version) <= _VERSION_CHARS:
                return None
    return name, spec


def _split(text: str) -> Optional[Tuple[str, str]]:
    """``(name, version range)`` of a requirement with no marker and no URL, else ``None``."""
    simple = _split_by_hand(text)
    if simple is not None:
        return simple
    m = _simple_re().match(text)
    return (m.group("name"), m.group("spec") or "") if m else None


def _parsed(text: str):
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def requirement_name(text: str) -> Optional[str]:
    """The canonical project name of a PEP 508 requirement, ``None`` if invalid."""
    simple = _split(text)
    if simple is not None:
        return canonicalize_name(simple[0])
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
        if _split(text) is not None:
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


def _release(text: str) -> Optional[Tuple[int, ...]]:
    """``"1.2.0"`` -> ``(1, 2, 0)``; ``None`` for anything but a plain release number."""
    parts = text.split(".")
    if not all(part.isdigit() and part.isascii() for part in parts):
        return None
    return tuple(int(part) for part in parts)


def _padded(a: Tuple[int, ...], b: Tuple[int, ...]) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)), b + (0,) * (width - len(b))


def _clause_admits(clause: str, version: Tuple[int, ...]) -> Optional[bool]:
    """PEP 440 for one clause and a final release; ``None`` where only packaging can tell
    (pre-, post-, dev- or local versions in the clause, ``===``, an epoch)."""
    clause = clause.strip()
    op = _operator(clause)
    if op is None or op == "===":
        return None
    target = clause[len(op):].strip()
    wildcard = target.endswith(".*")
    bound = _release(target[:-2] if wildcard else target)
    if bound is None:
        return None
    if wildcard:
        if op not in ("==", "!="):
            return None
        head = _padded(version, bound)[0][: len(bound)]
        return (head == bound) == (op == "==")
    mine, theirs = _padded(version, bound)
    if op == "~=":
        if len(bound) < 2:
            return None
        prefix = bound[:-1]
        return mine >= theirs and _padded(version, prefix)[0][: len(prefix)] == prefix
    return {
        "==": mine == theirs,
        "!=": mine != theirs,
        ">=": mine >= theirs,
        "<=": mine <= theirs,
        ">": mine > theirs,
        "<": mine < theirs,
    }[op]


@functools.lru_cache(maxsize=256)
def admits_any(text: str, versions: Tuple[str, ...]) -> bool:
    """Does requirement ``text``'s version range admit one of ``versions`` (final
    releases such as ``"0.0.2"``)? No range admits every version.

    Plain ranges (``>=0.0.2,<1.0.0``) are read here: importing
    ``packaging.specifiers`` costs a pip run some 20 ms. Anything else goes to packaging.
    """
    simple = _split(text)
    if simple is not None:
        spec = simple[1]
    else:
        req = _parsed(text)
        spec = str(req.specifier) if req is not None else ""
    if not spec.strip():
        return True
    clauses = spec.split(",")
    for text_version in versions:
        version = _release(text_version)
        answers = [_clause_admits(c, version) for c in clauses] if version is not None else [None]
        if None in answers:
            from packaging.specifiers import InvalidSpecifier, SpecifierSet

            try:
                if SpecifierSet(spec).contains(text_version, prereleases=True):
                    return True
            except InvalidSpecifier:  # names no version at all
                return False
        elif all(answers):
            return True
    return False
