"""Every difference between pip releases that the hooks care about, in one place.

PIP-HOOKS §5–§6. Feature detection where a feature can be seen (an attribute,
a class), the release number only where it cannot. Nothing else in
:mod:`pip_variants._pip` asks which pip it runs on.
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterable, List, Optional, Tuple

__all__ = [
    "PIP_VERSION",
    "TESTED_RANGE",
    "in_tested_range",
    "newer_than_tested",
    "tested_range_text",
    "TESTED_MAX_ENV",
    "InstallationError",
    "MetadataInconsistent",
    "UnsupportedWheel",
    "Version",
    "InvalidVersion",
    "canonical_name",
    "normalize_version",
    "has_lazy_build_tag",
    "has_scan_directory",
    "applicable_candidates",
    "target_tags",
    "cross_target_options",
    "get_runnable_pip",
    "link_source",
    "MetadataInvalid",
    "make_requirements",
    "VendoredMarkers",
    "vendored_markers",
    "debundled",
    "pip_release",
]


def _release(text: str) -> Tuple[int, ...]:
    out = []
    for part in text.split("."):
        digits = len(part) - len(part.lstrip("0123456789"))
        if not digits:
            break
        out.append(int(part[:digits]))
    return tuple(out)


def _pip_version() -> Tuple[int, ...]:
    import pip

    return _release(getattr(pip, "__version__", "0"))


#: Test knob, not a user setting: caps the top of the tested range (it can only
#: lower it), so the test suite can treat the newest pip as "untested" and
#: prove the shape checks of ``_pip/shape.py`` against real pip.
TESTED_MAX_ENV = "PIP_VARIANTS_TESTED_PIP_MAX"


def _tested_range() -> Tuple[Tuple[int, int], Tuple[int, int]]:
    low, high = (23, 2), (26, 3)
    cap = _release(os.environ.get(TESTED_MAX_ENV, "").strip())
    if len(cap) >= 2 and cap[:2] < high:
        high = (cap[0], cap[1])
    return low, high


PIP_VERSION = _pip_version()
TESTED_RANGE = _tested_range()


def in_tested_range(version: Tuple[int, ...] = PIP_VERSION) -> bool:
    return TESTED_RANGE[0] <= tuple(version[:2]) <= TESTED_RANGE[1]


def newer_than_tested(version: Tuple[int, ...] = PIP_VERSION) -> bool:
    """A release after the tested range: hooks patch only what has the expected shape."""
    return tuple(version[:2]) > TESTED_RANGE[1]


def tested_range_text() -> str:
    (a, b), (c, d) = TESTED_RANGE
    return f"{a}.{b}\u2013{c}.{d}"


# `pip._internal.exceptions` is a module up to 26.2 and a package re-exporting
# these names on `main`: import them from the package path only (§5.1).
from pip._internal.exceptions import InstallationError, MetadataInconsistent, UnsupportedWheel

try:  # 24.1+: invalid metadata makes pip skip a version
    from pip._internal.exceptions import MetadataInvalid  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - 23.2-24.0

    class MetadataInvalid(Exception):  # type: ignore[no-redef]
        """Never raised by these releases."""

# pip compares its candidates' versions with its vendored packaging; never mix
# them with top-level packaging objects (§6.12).
from pip._vendor.packaging.version import InvalidVersion, Version

_CANON_RE = re.compile(r"[-_.]+")


def canonical_name(name: str) -> str:
    """PEP 503 normalisation, as :func:`pip_variants.filename.canonicalize_name`:
    every pip run imports this module, variants or not, and must not pay for
    importing the spec model."""
    return _CANON_RE.sub("-", name).lower()


def normalize_version(text: str, canonical: str) -> Optional[str]:
    """:func:`.state.release_key` of a version in a file name, or None if invalid."""
    from .state import release_key

    try:
        return release_key(canonical, Version(text))
    except InvalidVersion:
        return None


def has_lazy_build_tag(wheel_cls: type) -> bool:
    """25.1–25.2: ``build_tag`` is a property re-matching ``self.filename`` (§6.1)."""
    return isinstance(wheel_cls.__dict__.get("build_tag"), property)


def has_scan_directory() -> bool:
    """24.0+: ``_FlatDirectoryToUrls._scan_directory`` filters find-links dirs (§6.5)."""
    from pip._internal.index import sources

    cls = getattr(sources, "_FlatDirectoryToUrls", None)
    return cls is not None and "_scan_directory" in cls.__dict__


def applicable_candidates(result: Any) -> List[Any]:
    """``BestCandidateResult``: ``iter_applicable()`` up to 24.x, a dataclass field from 25.0."""
    if hasattr(result, "applicable_candidates"):
        return list(result.applicable_candidates)
    return list(result.iter_applicable())


def target_tags(target_python: Any) -> Iterable[Any]:
    """``get_tags()`` in 23.2, ``get_unsorted_tags()`` from 24.0."""
    getter = getattr(target_python, "get_unsorted_tags", None) or target_python.get_tags
    return getter()


def cross_target_options(target_python: Any) -> List[str]:
    """The pip options that point selection at another machine (§6.10)."""
    if target_python is None:
        return []
    found = []
    if getattr(target_python, "platforms", None):
        found.append("--platform")
    if getattr(target_python, "_given_py_version_info", None):
        found.append("--python-version")
    if getattr(target_python, "abis", None):
        found.append("--abi")
    if getattr(target_python, "implementation", None):
        found.append("--implementation")
    return found


def get_runnable_pip() -> str:
    """Where a child ``python <this> install ...`` runs this very pip (zipapp included).

    In ``build_env`` up to 26.1, in ``utils.misc`` from 26.2.
    """
    try:
        from pip._internal.utils.misc import get_runnable_pip as _get  # type: ignore[attr-defined]
    except ImportError:
        from pip._internal.build_env import get_runnable_pip as _get  # type: ignore[no-redef,attr-defined]
    return str(_get())


def link_source(link: Any) -> str:
    """Which listing a link came from: the page URL, else its directory.

    ``comes_from`` is the page URL string for index and find-links pages in
    every release; links made from find-links directories and local files
    have none.
    """
    comes_from = getattr(link, "comes_from", None)
    if comes_from:
        url = getattr(comes_from, "url", comes_from)
        return str(url).split("#", 1)[0]
    return link.url_without_fragment.rsplit("/", 1)[0]


def make_requirements(factory: Any, spec: str, comes_from: Any) -> List[Any]:
    """Resolver requirements for one PEP 508 string: ``make_requirement_from_spec``
    (one or ``None``) up to 23.x, ``make_requirements_from_spec`` (an iterator) later."""
    plural = getattr(factory, "make_requirements_from_spec", None)
    if plural is not None:
        return list(plural(spec, comes_from))
    req = factory.make_requirement_from_spec(spec, comes_from)
    return [req] if req is not None else []
class VendoredMarkers:
    """What the variant-marker hook needs from pip's vendored ``packaging``."""

    __slots__ = ("tokenizer_cls", "default_rules", "marker_cls", "variable_cls")

    # Any: classes of pip's vendored packaging, whose types differ by pip release
    def __init__(self, tokenizer_cls: Any, default_rules: Any, marker_cls: Any, variable_cls: Any) -> None:
        self.tokenizer_cls = tokenizer_cls
        self.default_rules = default_rules
        self.marker_cls = marker_cls
        self.variable_cls = variable_cls


def vendored_markers() -> Optional[VendoredMarkers]:
    """pip's packaging with the tokenizer-based parser, or ``None`` (§6.11).

    From pip 24.1 (vendored packaging 24.1) to 26.x the parser builds
    ``Tokenizer(source, rules=DEFAULT_RULES)`` and a ``Marker`` keeps its tree
    in ``_markers``; pip 23.2–24.0 vendor packaging 21.3, a pyparsing grammar
    that cannot be extended safely. In a debundled pip (Debian),
    ``pip._vendor.packaging`` is the system's packaging, shared with the rest
    of the process: not touched either.
    """
    if debundled():
        return None
    try:
        from pip._vendor.packaging import _parser, _tokenizer, markers  # type: ignore[attr-defined]
    except ImportError:
        return None
    rules = getattr(_tokenizer, "DEFAULT_RULES", None)
    tokenizer = getattr(_tokenizer, "Tokenizer", None)
    marker = getattr(markers, "Marker", None)
    variable = getattr(_parser, "Variable", None)
    if not isinstance(rules, dict) or "VARIABLE" not in rules or None in (tokenizer, marker, variable):
        return None
    if "evaluate" not in marker.__dict__ or "__init__" not in tokenizer.__dict__:
        return None
    return VendoredMarkers(tokenizer, rules, marker, variable)


def debundled() -> bool:
    """``pip._vendor`` defers to the system's packages (Debian and others)."""
    try:
        import pip._vendor as vendor
    except ImportError:  # pragma: no cover
        return False
    return bool(getattr(vendor, "DEBUNDLED", False))


def pip_release() -> str:
    import pip

    return str(getattr(pip, "__version__", "?"))
