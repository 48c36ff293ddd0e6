"""Installed variant wheels: what ``*.dist-info/variant.json`` says, and whether it still fits.

A variant wheel carries its ``variant.json`` in its ``.dist-info`` directory
(PEP 825), and pip installs that directory as it is: so the installed
environment itself says which variant of each distribution is there. This
module reads it (no pip, no network) for ``pip show`` / ``pip inspect`` /
``pip list -v`` (the hooks in :mod:`pip_variants._pip.show`) and for
``pip-variants check``, which asks whether each installed variant still fits
the machine (a driver downgrade under a CUDA build, an image moved to another
host).

A wheel without a label is a non-variant wheel even when it carries a
``variant.json`` (PEP 825; a labelled build copied to a plain name for older
installers keeps its file). pip-variants marks such an install with a
:data:`NON_VARIANT_FILE` in its ``.dist-info`` (listed in ``RECORD``), and every
reader here and in the pip hooks then sees a non-variant distribution.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from ._install_mark import NON_VARIANT_FILE
from .filename import canonicalize_name

__all__ = [
    "InstalledVariant",
    "CheckResult",
    "CheckReport",
    "VARIANT_JSON",
    "NON_VARIANT_FILE",
    "read_installed_variant",
    "find_dist_info",
    "variant_of",
    "iter_installed_variants",
    "check_installed",
    "reinstall_command",
]

VARIANT_JSON = "variant.json"


@dataclass(frozen=True)
class InstalledVariant:
    """One installed distribution's variant, as its ``variant.json`` describes it."""

    name: str
    version: str
    label: str
    #: ``namespace :: feature :: value`` strings, in the file's order
    properties: Tuple[str, ...]
    dist_info: str
    #: the parsed :class:`~pip_variants.metadata.VariantMetadata` (``None`` if unreadable)
    metadata: Any = field(default=None, compare=False, repr=False)
    #: why ``variant.json`` could not be read, or ``None``
    error: Optional[str] = None

    def describe(self) -> str:
        """``cu128 (nvidia :: cuda_version_lower_bound :: 12.8, ...)``: the ``Variant:`` line."""
        if self.error:
            return f"{self.label} (unreadable variant.json: {self.error})"
        if not self.properties:
            return f"{self.label} (no properties)"
        return f"{self.label} ({', '.join(self.properties)})"

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"label": self.label, "properties": list(self.properties)}
        if self.error:
            out["error"] = self.error
        return out


def _name_version(dist_info: str) -> Tuple[str, str]:
    stem = os.path.basename(dist_info.rstrip("/\\"))[: -len(".dist-info")]
    name, _, version = stem.partition("-")
    return name, version


def _project_name(dist_info: str) -> str:
    """The project's name as its METADATA spells it (``demo-tensor``, as pip shows
    it; the folder says ``demo_tensor``), else the folder's."""
    name = _name_version(dist_info)[0]
    try:
        with open(os.path.join(dist_info, "METADATA"), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.strip():
                    break  # the end of the headers
                if line[:5].lower() == "name:":
                    return line[5:].strip() or name
    except OSError:
        pass
    return name


def read_installed_variant(dist_info: str) -> Optional[InstalledVariant]:
    """The variant of the distribution installed as ``dist_info``; ``None`` when it has none.

    Never raises for a bad file: an unreadable ``variant.json`` gives a result
    with ``error`` set and label ``?``, so callers can show it.
    """
    path = os.path.join(dist_info, VARIANT_JSON)
    unreadable: Optional[OSError] = None
    try:
        with open(path, "rb") as fh:
            content = fh.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        unreadable = exc
    if os.path.exists(os.path.join(dist_info, NON_VARIANT_FILE)):
        return None
    name, version = _project_name(dist_info), _name_version(dist_info)[1]
    if unreadable is not None:
        return InstalledVariant(name, version, "?", (), dist_info,
                                error=f"{path}: {unreadable.strerror or unreadable}")
    from .metadata import InvalidVariantMetadata, load_metadata
    from .properties import format_property_set

    try:
        md = load_metadata(content, path)
    except InvalidVariantMetadata as exc:
        return InstalledVariant(name, version, "?", (), dist_info, error=str(exc))
    labels = list(md.variants) + list(md.invalid_labels)
    if len(labels) != 1 or labels[0] not in md.variants:
        return InstalledVariant(
            name, version, labels[0] if len(labels) == 1 else "?", (), dist_info, md,
            error=f"{path}: describes {labels or 'no labels'}, not exactly one variant",
        )
    label = labels[0]
    props = tuple(format_property_set(md.variants[label]))
    return InstalledVariant(name, version, label, props, dist_info, md)


def find_dist_info(location: str, name: str, version: Optional[str] = None) -> Optional[str]:
    """The ``*.dist-info`` directory of ``name`` in ``location``.

    With ``version``, a directory of that version is preferred; another version
    of the name is still returned when it is the only one (the directory name
    keeps the wheel's spelling, which may differ from the metadata's, e.g.
    ``1.0`` and ``1.0.0``).
    """
    want = canonicalize_name(name)
    try:
        entries = sorted(os.listdir(location))
    except OSError:
        return None
    found = []
    for entry in entries:
        if not entry.endswith(".dist-info"):
            continue
        ename, eversion = _name_version(entry)
        if canonicalize_name(ename) != want:
            continue
        if version is None or eversion == version:
            return os.path.join(location, entry)
        found.append(entry)
    return os.path.join(location, found[0]) if len(found) == 1 else None


def variant_of(location: Optional[str], name: str, version: Optional[str] = None) -> Optional[InstalledVariant]:
    """The variant of ``name`` installed in ``location`` (a site-packages directory), if any."""
    if not location:
        return None
    dist_info = find_dist_info(location, name, version)
    return read_installed_variant(dist_info) if dist_info else None


def iter_installed_variants(paths: Optional[Sequence[str]] = None) -> Iterator[InstalledVariant]:
    """Every distribution on ``paths`` (default ``sys.path``) that carries ``variant.json``.

    The first distribution of a name wins, as for imports; a directory listing
    and one ``stat`` per distribution, nothing else is read for the others.
    """
    seen = set()
    for location in (sys.path if paths is None else paths):
        location = location or os.getcwd()
        try:
            entries = sorted(os.listdir(location))
        except OSError:
            continue
        for entry in entries:
            if not entry.endswith(".dist-info"):
                continue
            key = canonicalize_name(_name_version(entry)[0])
            if key in seen:
                continue
            seen.add(key)
            found = read_installed_variant(os.path.join(location, entry))
            if found is not None:
                yield found


# ------------------------------------------------------------------------- check


@dataclass(frozen=True)
class CheckResult:
    """Whether one installed variant still fits the machine (or the profile)."""

    variant: InstalledVariant
    #: "fits", "does-not-fit", "unknown" (a provider could not answer, or bad variant.json)
    status: str
    reason: str = ""
    #: the first property that no longer fits, as :class:`~pip_variants.selection.Rejection`
    rejection: Any = None

    def to_dict(self) -> Dict[str, Any]:
        v = self.variant
        out: Dict[str, Any] = {
            "name": v.name,
            "version": v.version,
            "label": v.label,
            "properties": list(v.properties),
            "status": self.status,
            "dist_info": v.dist_info,
        }
        if self.reason:
            out["reason"] = self.reason
        r = self.rejection
        if r is not None and getattr(r, "reason", "") == "unsupported":
            out["property"] = {"namespace": r.namespace, "feature": r.feature,
                               "needs": list(r.declared), "supported": list(r.supported)}
        return out


@dataclass(frozen=True)
class CheckReport:
    results: Tuple[CheckResult, ...]
    command: Optional[str]
    target: str

    @property
    def not_fitting(self) -> List[CheckResult]:
        return [r for r in self.results if r.status == "does-not-fit"]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "target": self.target,
            "installed_variants": len(self.results),
            "not_fitting": len(self.not_fitting),
            "results": [r.to_dict() for r in self.results],
            "reinstall_command": self.command,
        }


_UNANSWERED = ("untrusted", "failed")


def _check_one(variant: InstalledVariant, resolver: Any) -> CheckResult:
    from .filename import NULL_LABEL
    from .engine import as_answered
    from .selection import find_incompatibility

    if variant.error or variant.metadata is None:
        return CheckResult(variant, "unknown", variant.error or "variant.json unreadable")
    if variant.label == NULL_LABEL:
        return CheckResult(variant, "fits", "the null variant fits every machine")
    md = variant.metadata
    supported, answers = resolver.supported_for(md)
    rejection = find_incompatibility(variant.label, md.variants[variant.label], supported)
    if rejection is None:
        return CheckResult(variant, "fits")
    answer = next((a for a in answers if a.namespace == rejection.namespace), None)
    if answer is not None and answer.source in _UNANSWERED:
        # No provider could say what this machine supports: not evidence of a misfit.
        why = answer.notice or f"no provider answered for namespace {rejection.namespace!r}"
        return CheckResult(variant, "unknown", why, rejection)
    rejection = as_answered(rejection, answers)  # an ABI dependency: the version there; a profile's answer
    return CheckResult(variant, "does-not-fit", str(rejection), rejection)


def reinstall_command(results: Iterable[CheckResult], *, profile: Optional[str] = None,
                      target: Optional[str] = None, pip: str = "pip", user: bool = False) -> Optional[str]:
    """The pip command that reinstalls what no longer fits (pip then picks again).

    Into the environment (or the user site, ``user``): ``--force-reinstall
    --no-deps`` replaces only those builds, then the same pins once more
    without those options install what the new builds depend on (a build's
    variant markers may name other dependencies than the old build's).
    Into a ``--target`` folder pip installs the whole tree anyway, in one command.
    """
    # Quoted: name and version come from a dist-info folder's name, which the wheel chose
    pins = [_quote(f"{r.variant.name}=={r.variant.version}") for r in results if r.status == "does-not-fit"]
    if not pins:
        return None
    options = ["--variant-profile", _quote(profile)] if profile else []
    if target:
        return " ".join([pip, "install", "--force-reinstall", "--upgrade", "--target", _quote(target),
                         *options, *pins])
    where = ["--user"] if user else []
    replace = [pip, "install", "--force-reinstall", "--no-deps", *where, *options, *pins]
    complete = [pip, "install", *where, *options, *pins]
    return " ".join(replace) + " && " + " ".join(complete)


def _in_user_site(dist_info: str) -> bool:
    import site

    try:
        user_site = site.getusersitepackages()
    except Exception:  # noqa: BLE001 - an odd site module: no user site to name
        return False
    folder = os.path.dirname(os.path.abspath(dist_info))
    return bool(user_site) and os.path.normcase(folder) == os.path.normcase(os.path.abspath(user_site))


def _quote(text: str) -> str:
    from ._display import shell_word

    return shell_word(text)


def check_installed(
    paths: Optional[Sequence[str]] = None,
    *,
    profile_path: Optional[str] = None,
    target: Optional[str] = None,
    python: str = sys.executable,
    pip: str = "pip",
) -> CheckReport:
    """Check every installed variant on ``paths`` against this machine (or ``profile_path``).

    The reinstall command installs into ``target`` (a ``--target`` folder);
    with several ``paths`` and no ``target``, there is one command per folder
    that holds something to reinstall, joined with ``&&``.

    Uses the built-in providers through the persistent detection cache, and
    only plugins already installed; never the network.
    Raises :class:`~pip_variants.profile.InvalidProfile` for a bad profile.
    """
    # The first of a name wins on sys.path, as imports go; each folder given is checked on its
    # own (a --target folder and an environment may both hold the project).
    variants = (list(iter_installed_variants()) if paths is None
                else [v for path in paths for v in iter_installed_variants([path])])
    results: List[CheckResult] = []
    # Made (and a profile read) even with nothing installed: a bad profile is an error either way.
    if variants or profile_path:
        from .support import SupportResolver

        resolver = SupportResolver.for_profile_path(profile_path or "", python)
        for variant in variants:
            try:
                results.append(_check_one(variant, resolver))
            except Exception as exc:  # noqa: BLE001 - one bad provider must not hide the rest
                results.append(CheckResult(variant, "unknown", f"{type(exc).__name__}: {exc}"))
    where = f"variant profile {profile_path}" if profile_path else "this machine"
    if target is None and paths is not None and len(paths) > 1:
        commands = []
        for folder in paths:
            inside = [r for r in results
                      if os.path.dirname(os.path.abspath(r.variant.dist_info)) == os.path.abspath(folder)]
            command = reinstall_command(inside, profile=profile_path, target=folder, pip=pip)
            if command:
                commands.append(command)
        return CheckReport(tuple(results), " && ".join(commands) or None, where)
    if target is not None:
        return CheckReport(tuple(results), reinstall_command(results, profile=profile_path, target=target, pip=pip),
                           where)
    # A build found in the user site is replaced there: without --user, pip
    # would install the new build into the environment and leave the old one.
    in_user: List[CheckResult] = []
    elsewhere: List[CheckResult] = []
    for result in results:
        (in_user if _in_user_site(result.variant.dist_info) else elsewhere).append(result)
    commands = [c for c in (reinstall_command(elsewhere, profile=profile_path, pip=pip),
                            reinstall_command(in_user, profile=profile_path, pip=pip, user=True)) if c]
    return CheckReport(tuple(results), " && ".join(commands) or None, where)
