"""Installed builds pip kept although another one was selected or forced.

pip never replaces an installed version with another build of it: without a
word, a machine keeps the CPU build it had before its GPU arrived, or the
build a ``--variant`` was meant to replace. Both resolvers report here after
resolving (:mod:`.abi_resolution` for resolvelib, :mod:`.legacy_resolver` for
``--use-deprecated=legacy-resolver``), from what they kept installed.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from . import messages
from .context import FinderContext
from .state import variant_option

__all__ = ["report_kept", "report_kept_builds", "report_options_that_named_nothing"]


def report_kept(ctx: FinderContext, kept_dists: Mapping[str, Any], resolved: Set[str], installed: Set[str]) -> None:
    """``kept_dists``: canonical name -> the installed distribution the resolver
    kept; ``resolved``: every project of the result; ``installed``: the target
    environment's projects. Compares each kept build with what was selected or
    forced for its version, then reports (:func:`report_kept_builds`)."""
    kept: Dict[str, Tuple[str, Optional[str], str]] = {}
    for name, dist in kept_dists.items():
        dist_version = getattr(dist, "version", None)
        version = str(dist_version or "")
        want = ctx.forced.get(name) or ctx.chosen.get((name, dist_version))
        if want is None or getattr(dist, "editable", False) or getattr(dist, "direct_url", None) is not None:
            continue  # nothing asked for, or the user's own checkout or file
        from ..installed import variant_of  # only for a kept installation

        variant = variant_of(getattr(dist, "location", None), name, version or None)
        have = variant.label if variant is not None else None
        if have != want and not (have is None and want == "null" and name not in ctx.forced):
            # (a plain wheel for the null variant is no reason to reinstall)
            kept[name] = (version, have, want)
    if kept or ctx.forced:
        report_kept_builds(ctx, kept, resolved, installed)
    if ctx.engine_made:
        report_options_that_named_nothing(ctx, resolved, installed)


def report_kept_builds(ctx: FinderContext, kept: Dict[str, Tuple[str, Optional[str], str]],
                       resolved: Set[str], installed: Set[str]) -> None:
    """After a resolution: builds pip kept installed although another was asked
    for, and ``--variant NAME=LABEL`` choices that chose nothing.

    ``kept``: canonical name -> (version, the installed build's label or
    ``None`` for a non-variant wheel, the label ``--variant`` or the selection
    wanted). pip never replaces an installed version with another build of
    it, so without a word the machine keeps a build it was not meant to get.
    A forced name that is neither resolved nor installed, a slip away from a
    project of this install, is most likely a typo. Anything else stays quiet
    but for ``-v``: ``PIP_VARIANT`` or pip.conf may well name projects a given
    run does not need, so the environment's other projects are never suggested.
    """
    for name, (version, have, want) in sorted(kept.items()):
        installed_build = ("not a variant wheel" if have is None else
                           "a variant.json that cannot be read" if have == "?" else f"variant {have}")
        replace = (f"to replace it, run the same pip command for {name}=={version} with "
                   "--force-reinstall --no-deps, then once more without those two options "
                   "(for what the new build depends on)")
        if ctx.forced.get(name) == want:
            messages.warn_once(
                f"pip-variants: {variant_option(name, want)} was not applied: pip kept the installed "
                f"{name} {version} ({installed_build}); {replace}"
            )
        else:
            messages.warn_once(
                f"pip-variants: pip kept the installed {name} {version} ({installed_build}), "
                f"though variant {want} is the one selected for it; {replace}"
            )
    for name, label in sorted(ctx.forced.items()):
        option = variant_option(name, label)
        if name in ctx.looked_up or name in resolved:
            continue
        near = None if name in installed else _near_name(name, ctx.looked_up | resolved)
        if near is not None:
            messages.warn_once(
                f"pip-variants: {option} was not applied: no project named {name!r} is part of "
                f"this install; did you mean {near!r}?"
            )
        else:
            messages.verbose("pip-variants: %s was not applied: no project named %r is part of this install%s",
                             option, name, " (it is installed; this install does not need it)"
                             if name in installed else "")


def report_options_that_named_nothing(ctx: FinderContext, resolved: Set[str], installed: Set[str]) -> None:
    """``--variant-exclude NAME=...``, ``--variant-disable NS`` and ``--variant-enable NS``
    a slip away from a project or namespace of this install changed nothing: most
    likely a typo (``nvida``), worth a warning as a ``--variant`` one is. Names far
    from anything stay quiet: pip.conf may well name what a given run does not need."""
    settings = ctx.engine.settings
    for name in sorted(settings.excluded):
        if name in ctx.looked_up or name in resolved or name in installed:
            continue
        near = _near_name(name, ctx.looked_up | resolved)
        if near is not None:
            messages.warn_once(f"pip-variants: --variant-exclude {name}=... excluded nothing: no project named "
                               f"{name!r} is part of this install; did you mean {near!r}?")
    support = settings.support
    for option, namespaces in (("--variant-disable", support.disabled),
                               ("--variant-enable", support.enabled_optional)):
        for ns in dict.fromkeys(namespaces):
            if ns in ctx.namespaces_seen:
                continue
            near = _near_name(ns, ctx.namespaces_seen)
            if near is not None:
                messages.warn_once(f"pip-variants: {option} {ns} changed nothing: no release of this install "
                                   f"has a namespace {ns!r}; did you mean {near!r}?")


def _near_name(name: str, names: Set[str]) -> Optional[str]:
    """The one name a slip of the keyboard away (``pgk``, ``tourch``), not a
    longer or shorter relative (``torch`` and ``torchvision``, ``jax`` and ``jaxlib``)."""
    limit = 1 if len(name) < 8 else 2
    near = sorted(
        other for other in names
        if not (other.startswith(name) or name.startswith(other)) and _edits(name, other, limit) <= limit
    )
    return near[0] if len(near) == 1 else None


def _edits(a: str, b: str, limit: int) -> int:
    """Insertions, deletions, substitutions and swaps of neighbours turning
    ``a`` into ``b`` (optimal string alignment), or ``limit + 1`` once above ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: List[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        before, row = row, current
    return min(row[-1], limit + 1)
