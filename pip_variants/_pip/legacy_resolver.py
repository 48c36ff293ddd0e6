"""H21: ``--use-deprecated=legacy-resolver`` reports the builds it kept.

The legacy resolver keeps an installed version without asking the finder
again, whatever build it is, as resolvelib does; after ``Resolver.resolve``
the requirements still ``satisfied_by`` an installed distribution are the
ones kept (those to be replaced have lost it). They get the same warnings as
under resolvelib (:mod:`.kept`): without them the chosen-variant line reads as
if that build were being installed.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Set

from . import _compat, _patching, messages
from .state import STATE, selecting

__all__ = ["patch"]


def _wrap_resolve(original: Callable[..., Any]) -> Callable[..., Any]:
    def resolve(self: Any, root_reqs: Any, *args: Any, **kwargs: Any) -> Any:
        requirement_set = original(self, root_reqs, *args, **kwargs)
        _check_kept_builds(self, requirement_set)
        if STATE.abi_links:
            _check_abi_pairs(requirement_set)
        return requirement_set

    return resolve


def _check_kept_builds(resolver: Any, requirement_set: Any) -> None:
    from .context import ATTR

    ctx = getattr(getattr(resolver, "finder", None), ATTR, None)
    if ctx is None or not (ctx.forced or ctx.chosen or ctx.engine_made) or not selecting():
        return
    try:
        resolved: Set[str] = set()
        kept: Dict[str, Any] = {}
        for req in requirement_set.all_requirements:
            if not getattr(req, "name", None):
                continue
            name = _compat.canonical_name(str(req.name))
            resolved.add(name)
            if req.satisfied_by is not None:
                kept[name] = req.satisfied_by
        installed = _installed_projects() if ctx.forced else set()  # for the typo check only
        from .kept import report_kept

        report_kept(ctx, kept, resolved, installed)
    except Exception as exc:
        messages.internal_error("legacy Resolver.resolve", exc)


def _check_abi_pairs(requirement_set: Any) -> None:
    """This resolver takes each project's best build as it meets it and never
    goes back: a build for another torch than the one it then chose is
    installed as it is. It is deprecated, so nothing is resolved for it here;
    the mismatched pair is named before pip installs it."""
    try:
        versions: Dict[str, str] = {}
        for req in requirement_set.all_requirements:
            if getattr(req, "name", None):
                version = _version_of(req)
                if version is not None:
                    versions[_compat.canonical_name(str(req.name))] = version
        for req in requirement_set.all_requirements:
            link = getattr(req, "link", None)
            chosen = STATE.chosen.get(link.url_without_fragment) if link is not None else None
            if chosen is None or not chosen.abi or req.satisfied_by is not None:
                continue
            for needed in chosen.abi:
                have = versions.get(needed.project)
                if have is not None and not needed.contains(have):
                    version = versions.get(_compat.canonical_name(str(req.name))) or "?"
                    messages.warn_once(
                        f"pip-variants: {req.name} {version}'s build {chosen.label} needs {needed}, but the legacy "
                        f"resolver chose {needed.project} {have}; it never goes back to another build, so the "
                        "pair will not work together: install without --use-deprecated=legacy-resolver")
    except Exception as exc:
        messages.internal_error("legacy Resolver.resolve", exc)


def _version_of(req: Any) -> Optional[str]:
    """The version the legacy resolver settled on for ``req``: the installed one
    it kept, or the prepared distribution's."""
    if req.satisfied_by is not None:
        return str(req.satisfied_by.version)
    try:
        return str(req.get_dist().version)
    except Exception:  # not prepared (an error elsewhere stops pip anyway)
        return None


def _installed_projects() -> Set[str]:
    from pip._internal.metadata import get_default_environment

    return {_compat.canonical_name(str(dist.canonical_name))
            for dist in get_default_environment().iter_installed_distributions(local_only=False)}


def patch(module: Any) -> None:
    _patching.patch(module.Resolver, "resolve", _wrap_resolve)
