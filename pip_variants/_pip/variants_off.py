"""BC-1: say what ``--no-variants`` leaves out (PEP 817: an installer that
ignores variant wheels SHOULD say so when that makes it pick an older version,
and give a clear error when nothing is installable).

With variants off for the command (``--no-variants``, or ``no-variants = true``
in pip.conf), pip drops labelled wheel links as stock pip does: their names are
invalid to it. The finder hook (H2) hands those links here first; this module
notes, per project, the versions among them that pip would otherwise take
(tags, ``Requires-Python``, yanked, ``--uploaded-prior-to``), and H4 compares
them with what pip found without them: one warning per project when the
newest release the requirement allows is only available as variant wheels.
Loaded only where variants are off by option; ``PIP_NO_VARIANTS`` keeps
pip-variants out of the process altogether.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Set

from . import _compat, messages
from .state import STATE, turned_off_by
from .wheel import split_label

__all__ = ["note_links", "say_what_was_left_out", "set_in_configuration", "say_cross_target",
           "note_cross_target_folder"]


def _labelled_versions(link_evaluator: Any, links: Iterable[Any]) -> Set[Any]:
    """The versions ``links``' labelled wheels offer that pip would otherwise
    consider: the checks of pip's ``LinkEvaluator`` that a wheel's name allows."""
    from pip._internal.models.wheel import Wheel
    from pip._internal.utils.packaging import check_requires_python
    from pip._vendor.packaging.specifiers import InvalidSpecifier

    formats = getattr(link_evaluator, "_formats", None)
    if formats is not None and "binary" not in formats:
        return set()  # --no-binary: pip takes no wheel of the project, variant or not
    canonical = _compat.canonical_name(str(getattr(link_evaluator, "project_name", "")))
    target = getattr(link_evaluator, "_target_python", None)
    ignore_requires_python = bool(getattr(link_evaluator, "_ignore_requires_python", False))
    uploaded_prior_to = getattr(link_evaluator, "_uploaded_prior_to", None)  # pip 26.0+
    tags: Optional[List[Any]] = None
    versions: Set[Any] = set()
    for link in links:
        filename = getattr(link, "filename", "")
        if not filename.endswith(".whl"):
            continue
        plain, label = split_label(filename)
        if plain is None or label is None:
            continue
        try:
            wheel = Wheel(plain)
            if _compat.canonical_name(wheel.name) != canonical:
                continue
            if tags is None:
                tags = list(_compat.target_tags(target)) if target is not None else []
            if not wheel.supported(tags):
                continue
            if getattr(link, "is_yanked", False):
                continue  # the resolver would pass over it too (install's finder allows yanked links)
            if uploaded_prior_to is not None and not getattr(link, "is_file", False):
                upload_time = getattr(link, "upload_time", None)
                if upload_time is None or upload_time >= uploaded_prior_to:
                    continue  # --uploaded-prior-to: pip would refuse this link
            requires_python = getattr(link, "requires_python", None)
            if requires_python and not ignore_requires_python and target is not None:
                try:
                    if not check_requires_python(requires_python, target.py_version_info):
                        continue
                except InvalidSpecifier:
                    pass  # pip ignores a Requires-Python it cannot read, and so do we
            versions.add(_compat.Version(wheel.version))
        except Exception:  # pip would skip this link too (a bad name or version)
            continue
    return versions


def note_links(link_evaluator: Any, links: List[Any]) -> None:
    """Remember the versions ``links``' labelled wheels offer (H2)."""
    versions = _labelled_versions(link_evaluator, links)
    if versions:
        canonical = _compat.canonical_name(str(link_evaluator.project_name))
        STATE.left_out_by_no_variants.setdefault(canonical, set()).update(versions)


def set_in_configuration(parser: Any) -> bool:
    """Does pip's configuration (files, not the command line) turn variants off?

    Read from the configuration ``parser`` has already loaded, as pip reads it
    for the command (global, then the command's section); never re-parses
    options, whose callbacks would overwrite what the command line said.
    """
    value = None
    try:
        from pip._internal.utils.misc import strtobool

        for key, val in parser._get_ordered_configuration_items():
            if key == "no-variants":
                value = val
        return value is not None and bool(strtobool(str(value)))
    except Exception:
        return False


def _prereleases(evaluator: Any, name: str) -> Optional[bool]:
    """What pip's evaluator passes as ``prereleases`` (None: the specifier decides)."""
    control = getattr(evaluator, "_release_control", None)  # 26.0+
    if control is not None:
        allowed = control.allows_prereleases(_compat.canonical_name(name))
        return None if allowed is None else bool(allowed)
    return True if getattr(evaluator, "_allow_all_prereleases", False) else None


def say_what_was_left_out(evaluator: Any, candidates: List[Any], applicable: List[Any]) -> None:
    """Warn when the newest version the requirement allows has only variant
    wheels, which variants off left out (H4, on pip's found and applicable
    candidates).

    The labelled versions join the versions pip found, and pip's own filter
    (its specifier, its prerelease rule) runs over them all: a prerelease that
    pip would pass over next to a final release is not worth a word.
    """
    name = str(getattr(evaluator, "_project_name", ""))
    labelled = STATE.left_out_by_no_variants.get(_compat.canonical_name(name))
    if not labelled:
        return
    found = set(filter(None, (_parsed(candidate.version) for candidate in candidates)))
    only_labelled = labelled - found
    if not only_labelled:
        return
    specifier = getattr(evaluator, "_specifier", None)
    allowed = sorted(found | labelled)
    if specifier is not None:
        allowed = list(specifier.filter(allowed, prereleases=_prereleases(evaluator, name)))
    newest = max((version for version in allowed if version in only_labelled), default=None)
    if newest is None:
        return
    # What pip takes (yanked files last, --prefer-binary), not merely the highest version.
    chosen = evaluator.sort_best_candidate(applicable) if applicable else None
    best = None if chosen is None else _parsed(chosen.version)
    # A best outside ``allowed`` is one pip takes only because the variant wheels are
    # missing (say, a prerelease that a final variant release would have outranked).
    if best is not None and best in allowed and best >= newest:
        return
    if STATE.off_by_option:
        how, fix = turned_off_by()
        if STATE.no_variants_in_configuration:
            fix += " (pip config debug shows where)"
        off, platform = f"variants are off ({how})", "this platform"
        # Whether one fits is not known here (nothing is detected with variants off).
        way_back = f" {fix} to install {name} {newest} (if one of its variant wheels fits this machine)"
    else:
        cross = ", ".join(STATE.cross_target)
        verb = "select" if len(STATE.cross_target) > 1 else "selects"
        off, platform = f"variant wheels are ignored ({cross} {verb} for another machine)", "the target platform"
        way_back = ""  # the cross-target warning, said before, gives the way to select for that machine
    what = f"pip-variants: {name} {newest} has only variant wheels for {platform}, and {off}"
    if chosen is None:
        messages.warn_once(f"{what}: no other build of {name} fits.{way_back}")
    else:
        messages.warn_once(f"{what}: pip takes {name} {chosen.version} instead.{way_back}")


def _parsed(version: Any) -> Optional[Any]:
    """``version`` as a PEP 440 ``Version``; ``None`` for what is not one (pip
    23.2 may still hand a ``LegacyVersion`` of an old sdist name)."""
    try:
        return _compat.Version(str(version))
    except Exception:
        return None


def say_cross_target(project: str, filenames: Iterable[str]) -> None:
    """``--platform`` and the like without ``--variant`` or a profile: variant
    wheels are ignored, which one warning says once ``project``'s links (or a
    find-links folder scanned before, :func:`note_cross_target_folder`) have one
    of its variant wheels; another project's in the same folder is no concern."""
    note = STATE.cross_target_note
    if note is None:
        return
    try:
        from pip._vendor.packaging.utils import canonicalize_name

        wanted = canonicalize_name(project)
        met = wanted in STATE.cross_target_projects or wanted in _labelled_projects(filenames)
    except Exception as exc:  # a notice only: never worth stopping pip for
        messages.debug("pip-variants: cross-target notice not said: %r", exc)
        return
    if met:
        STATE.cross_target_note = None
        messages.warn_once(note)


def note_cross_target_folder(filenames: Iterable[str]) -> None:
    """pip 24.0+ drops a find-links folder's variant wheels when it scans the
    folder, before any project's links are evaluated: remember whose they were."""
    STATE.cross_target_projects.update(_labelled_projects(filenames))


def _labelled_projects(filenames: Iterable[str]) -> Set[str]:
    from pip._vendor.packaging.utils import canonicalize_name

    return {canonicalize_name(name.split("-", 1)[0]) for name in filenames
            if name.endswith(".whl") and split_label(name)[1] is not None}
