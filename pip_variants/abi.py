"""The ABI-dependency provider (PROVIDERS.md §2.7, WHEEL-VARIANTS.md §2.4).

``abi_dependency :: torch :: 2.9`` (or the same property in any namespace
declared ``{"builtin": "abi_dependency"}``) means "built against torch
2.9.*": the variant fits only a torch release matching ``==2.9.*``. A value
has at most three release components; several values of one feature are a
union.

Where the version of the dependency comes from, first rule wins
(:meth:`AbiContext.source_for`):

1. ``VARIANT_ABI_DEPENDENCY=torch==2.9.0,...`` (variantlib's variable);
2. the target profile's ``abi_dependency`` namespace (``--variant-profile``);
3. the version installed in the target environment, unless the pip command
   names the project (a requirement, a constraint) or may change every
   installed version (``--upgrade-strategy eager``, ``--force-reinstall``,
   either without ``--no-deps``): fixed;
4. otherwise the resolver chooses: every declared value is acceptable, the
   newest first, and the chosen wheel carries the requirement ``NAME==V.*``
   so that the pair the resolver settles on is consistent. Where the command
   names an installed project without upgrading it (no ``--upgrade``, or only
   a constraint under it), pip keeps that version if it can: the builds for it
   come first.

Pure: imports no pip, and not even ``packaging``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from .filename import canonicalize_name, is_project_name

__all__ = [
    "ABI_DEPENDENCY",
    "ENV_VARIABLE",
    "AbiSource",
    "AbiRequirement",
    "AbiContext",
    "feature_project",
    "parse_value",
    "value_matches",
    "parse_override",
    "supported_values",
    "requirements_for",
]

ABI_DEPENDENCY = "abi_dependency"
ENV_VARIABLE = "VARIANT_ABI_DEPENDENCY"

_VALUE_RE = re.compile(r"^\d+(\.\d+){0,2}$")

#: origins whose version binds the chosen wheel to a requirement on the dependency
BINDING_ORIGINS = ("installed", "resolver")


def feature_project(feature: str) -> str:
    """``torch_like`` -> ``torch-like``: the feature is the normalised name with ``_``."""
    return canonicalize_name(feature)


def parse_value(value: str) -> Optional[Tuple[int, ...]]:
    """``"2.9"`` -> ``(2, 9)``; ``None`` for anything but 1-3 numeric components."""
    if not _VALUE_RE.match(value):
        return None
    return tuple(int(p) for p in value.split("."))


# PEP 440, as far as a prefix match needs it: epoch, release, then any
# pre/post/dev suffix and local label (which ``==V.*`` ignores). A regular
# expression instead of ``packaging.version``: pip runs this in-process, and
# the import would cost more than every comparison of a release together.
_VERSION_RE = re.compile(
    r"^\s*v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?\d*)?"
    r"(?:-\d+|[-_.]?(?:post|rev|r)[-_.]?\d*)?"
    r"(?:[-_.]?dev[-_.]?\d*)?"
    r"(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?\s*$",
    re.IGNORECASE,
)


def _release(version: str) -> Optional[Tuple[int, ...]]:
    m = _VERSION_RE.match(version)
    if m is None or int(m.group("epoch") or 0) != 0:  # PROVIDERS.md §2.7: other epochs are unsupported
        return None
    return tuple(int(p) for p in m.group("release").split("."))


def value_matches(value: str, version: str) -> bool:
    """Does ``version`` match ``=={value}.*``? (``2.0`` matches ``2``, not ``2.1``.)"""
    prefix = parse_value(value)
    release = _release(version)
    if prefix is None or release is None:
        return False
    padded = tuple(release) + (0,) * max(0, len(prefix) - len(release))
    return padded[: len(prefix)] == prefix


def parse_override(text: str) -> Tuple[Dict[str, str], List[str]]:
    """``"torch==2.9.0, numpy==2.1"`` -> ``({"torch": "2.9.0", ...}, problems)``.

    Malformed entries are skipped and named in ``problems`` (variantlib warns
    and skips them too).
    """
    out: Dict[str, str] = {}
    problems: List[str] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, version = item.partition("==")
        name, version = name.strip(), version.strip()
        if not sep or not is_project_name(name) or _release(version) is None:
            problems.append(f"{ENV_VARIABLE}: ignoring {item!r} (expected NAME==VERSION, e.g. torch==2.9.0)")
            continue
        out[canonicalize_name(name)] = version
    return out, problems


def _sort_key(value: str) -> Tuple[Tuple[int, ...], int, int, str]:
    # Total: "1" and "01" parse alike, and the order of a set must not choose
    # between them (it changes with PYTHONHASHSEED). The shortest spelling,
    # the one variantlib's exact string match accepts, ranks as the better.
    parsed = parse_value(value) or ()
    return parsed, len(parsed), -len(value), value


def supported_values(declared: Iterable[str], version: Optional[str],
                     preferred: Optional[str] = None) -> Tuple[str, ...]:
    """The supported list for one dependency, best first.

    With a fixed ``version``: the declared values it matches, least specific
    first (variantlib offers ``X``, ``X.Y``, ``X.Y.Z`` in that order). With
    ``None`` (the resolver chooses): every valid declared value, newest first,
    so the newest build is tried first and older ones on backtracking; those
    matching ``preferred`` (a version pip keeps if it can) come before the rest.
    """
    values = sorted({v for v in declared if parse_value(v) is not None}, key=_sort_key)
    if version is None:
        newest_first = tuple(reversed(values))
        if preferred is None:
            return newest_first
        first = supported_values(values, preferred)
        return first + tuple(v for v in newest_first if v not in first)
    hits = [v for v in values if value_matches(v, version)]
    hits.sort(key=lambda v: (len(parse_value(v) or ()), len(v), v))
    return tuple(hits)


@dataclass(frozen=True)
class AbiSource:
    """Where the version of one ABI dependency came from."""

    project: str  # canonical name
    version: Optional[str]  # None: the resolver chooses
    origin: str  # "VARIANT_ABI_DEPENDENCY", "profile", "installed", "resolver"
    #: the resolver chooses, but pip keeps this installed version if it can
    preferred: Optional[str] = None

    @property
    def binds(self) -> bool:
        """Does the chosen wheel carry ``NAME==V.*`` for the resolver?"""
        return self.origin in BINDING_ORIGINS

    def describe(self) -> str:
        if self.origin == "resolver" and self.preferred is not None:
            return (f"{self.project}: the version pip resolves (the builds for the installed "
                    f"{self.preferred} first, as pip keeps it if it can; then the others, newest first)")
        if self.origin == "resolver":
            return f"{self.project}: the version pip resolves (any build offered, newest first)"
        if self.origin == "installed":
            return f"{self.project} {self.version} (installed in the target environment)"
        if self.origin == "profile":
            return f"{self.project} {self.version} (from the variant profile)"
        return f"{self.project} {self.version} (from {ENV_VARIABLE})"


@dataclass(frozen=True)
class AbiRequirement:
    """``NAME`` must match one of ``values`` (each ``==V.*``)."""

    project: str
    values: Tuple[str, ...]

    def contains(self, version: str) -> bool:
        return any(value_matches(v, version) for v in self.values)

    def specifier(self) -> Optional[str]:
        """One PEP 440 specifier equal to the union, or ``None`` when none exists.

        A single value, or values nested in the widest one (``2`` and
        ``2.9``), is ``==W.*``; disjoint values (``2.7`` and ``2.9``) have no
        single-specifier form.
        """
        parsed = sorted((parse_value(v) or () for v in self.values), key=len)
        if not parsed or not parsed[0]:
            return None
        widest = parsed[0]
        if all(p[: len(widest)] == widest for p in parsed):
            return "==" + ".".join(str(i) for i in widest) + ".*"
        return None

    def __str__(self) -> str:
        spec = self.specifier()
        if spec is not None:
            return f"{self.project}{spec}"
        return " or ".join(f"{self.project}=={v}.*" for v in self.values)


def requirements_for(props: Mapping[str, Sequence[str]]) -> Tuple[AbiRequirement, ...]:
    """The requirements one variant's ABI features stand for."""
    return tuple(AbiRequirement(feature_project(f), tuple(vals)) for f, vals in props.items())


def _installed_versions() -> Dict[str, str]:
    """Canonical name -> version of the running environment's distributions."""
    from importlib import metadata as md  # distributions() and .version: enough on 3.9 too

    out: Dict[str, str] = {}
    for dist in md.distributions():
        try:
            name = dist.metadata["Name"]
            if name and dist.version:
                out.setdefault(canonicalize_name(name), dist.version)
        except Exception:  # a broken dist-info must not stop selection
            continue
    return out


@dataclass
class AbiContext:
    """The inputs of the ABI provider for one pip command (mutable: the
    resolver hook fills in the target environment and the named projects once
    pip has parsed the requirements)."""

    overrides: Dict[str, str] = field(default_factory=dict)
    profile: Dict[str, str] = field(default_factory=dict)
    #: canonical name -> installed version; ``None``: read the running environment
    installed: Optional[Dict[str, str]] = None
    #: projects the command names (requirements, constraints): their version is the resolver's
    named: Set[str] = field(default_factory=set)
    #: ``--upgrade-strategy eager``, ``--force-reinstall`` (without ``--no-deps``): every
    #: installed version may change
    all_changing: bool = False
    #: named projects whose installed version pip keeps if it can (no ``--upgrade``,
    #: or only constrained under it)
    kept: Set[str] = field(default_factory=set)
    problems: List[str] = field(default_factory=list)
    installed_reader: Callable[[], Dict[str, str]] = _installed_versions

    @classmethod
    def from_environment(cls, environ: Optional[Mapping[str, str]] = None,
                         profile: Optional[Mapping[str, Mapping[str, Sequence[str]]]] = None) -> "AbiContext":
        env = os.environ if environ is None else environ
        overrides, problems = parse_override(env.get(ENV_VARIABLE, ""))
        return cls(overrides=overrides, profile=profile_versions(profile), problems=problems)

    def bind(self, installed: Callable[[], Dict[str, str]], named: Iterable[str],
             all_changing: bool = False, kept: Iterable[str] = ()) -> None:
        """The target environment (read on first use), the projects the command
        names, and how it treats what is installed."""
        self.installed = None
        self.installed_reader = installed
        self.named = {canonicalize_name(n) for n in named}
        self.all_changing = all_changing
        self.kept = {canonicalize_name(n) for n in kept}

    def source_for(self, feature: str) -> AbiSource:
        name = feature_project(feature)
        if name in self.overrides:
            return AbiSource(name, self.overrides[name], ENV_VARIABLE)
        if name in self.profile:
            return AbiSource(name, self.profile[name], "profile")
        if self.installed is None:
            self.installed = self.installed_reader()
        version = self.installed.get(name)
        if version is not None and not self.all_changing:
            if name not in self.named:
                return AbiSource(name, version, "installed")
            if name in self.kept:
                return AbiSource(name, None, "resolver", preferred=version)
        return AbiSource(name, None, "resolver")


def profile_versions(profile: Optional[Mapping[str, Mapping[str, Sequence[str]]]]) -> Dict[str, str]:
    """A profile's ``abi_dependency`` namespace: ``{feature: [version]}`` (first value)."""
    out: Dict[str, str] = {}
    for feature, values in ((profile or {}).get(ABI_DEPENDENCY) or {}).items():
        for value in values:
            if _release(value) is not None:
                out[feature_project(feature)] = value
                break
    return out
