"""BC-1: say what ``--no-variants`` leaves out (PEP 817: an installer that
ignores variant wheels SHOULD say so when that makes it pick an older version,
and give a clear error when nothing is installable).

With variants off for the command (``--no-variants``, or ``no-variants = true``
in pip.conf), pip drops labelled wheel links as stock pip does: their names are
invalid to it. The finder hook (H2) hands those links here first; this module
notes, per project, the newest version among them that pip would otherwise
take (tags, ``Requires-Python``, yanked), and H4 compares it with what pip
found without them: one warning per project when the newest release is only
available as variant wheels. Loaded only where variants are off by option;
``PIP_NO_VARIANTS`` keeps pip-variants out of the process altogether.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional

from . import _compat, messages
from .state import STATE
from .wheel import split_label

__all__ = ["note_links", "say_what_was_left_out"]


def _newest_labelled(link_evaluator: Any, links: Iterable[Any]) -> Optional[Any]:
    from pip._internal.models.wheel import Wheel
    from pip._internal.utils.packaging import check_requires_python

    formats = getattr(link_evaluator, "_formats", None)
    if formats is not None and "binary" not in formats:
        return None  # --no-binary: pip takes no wheel of the project, variant or not
    canonical = _compat.canonical_name(str(getattr(link_evaluator, "project_name", "")))
    target = getattr(link_evaluator, "_target_python", None)
    ignore_requires_python = bool(getattr(link_evaluator, "_ignore_requires_python", False))
    tags: Optional[List[Any]] = None
    newest = None
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
            requires_python = getattr(link, "requires_python", None)
            if requires_python and not ignore_requires_python and target is not None:
                if not check_requires_python(requires_python, target.py_version_info):
                    continue
            version = _compat.Version(wheel.version)
        except Exception:  # pip would skip this link too (a bad name, version or Requires-Python)
            continue
        if newest is None or version > newest:
            newest = version
    return newest


def note_links(link_evaluator: Any, links: List[Any]) -> None:
    """Remember the newest version only ``links``' labelled wheels offer (H2)."""
    newest = _newest_labelled(link_evaluator, links)
    if newest is None:
        return
    canonical = _compat.canonical_name(str(link_evaluator.project_name))
    known = STATE.left_out_by_no_variants.get(canonical)
    if known is None or newest > known:
        STATE.left_out_by_no_variants[canonical] = newest


def _prereleases(evaluator: Any, name: str) -> Optional[bool]:
    """What pip's evaluator passes as ``prereleases`` (None: the specifier decides)."""
    control = getattr(evaluator, "_release_control", None)  # 26.0+
    if control is not None:
        allowed = control.allows_prereleases(_compat.canonical_name(name))
        return None if allowed is None else bool(allowed)
    return True if getattr(evaluator, "_allow_all_prereleases", False) else None


def say_what_was_left_out(evaluator: Any, applicable: List[Any]) -> None:
    """Warn when the newest version the requirement allows has only variant
    wheels, which variants off left out (H4, on pip's applicable candidates)."""
    name = str(getattr(evaluator, "_project_name", ""))
    newest = STATE.left_out_by_no_variants.get(_compat.canonical_name(name))
    if newest is None:
        return
    best = max((candidate.version for candidate in applicable), default=None)
    if best is not None and best >= newest:
        return
    specifier = getattr(evaluator, "_specifier", None)
    if specifier is not None and not specifier.contains(str(newest), prereleases=_prereleases(evaluator, name)):
        return
    what = f"pip-variants: {name} {newest} has only variant wheels for this platform, and variants are off (--no-variants)"
    if best is None:
        messages.warn_once(f"{what}: no other build of {name} fits. Drop --no-variants to install {name} {newest}")
    else:
        messages.warn_once(f"{what}: pip takes {name} {best} instead. Drop --no-variants to install {name} {newest}")
