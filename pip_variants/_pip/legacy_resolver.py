"""H21: ``--use-deprecated=legacy-resolver`` reports the builds it kept.

The legacy resolver keeps an installed version without asking the finder
again, whatever build it is, as resolvelib does; after ``Resolver.resolve``
the requirements still ``satisfied_by`` an installed distribution are the
ones kept (those to be replaced have lost it). They get the same warnings as
under resolvelib (:mod:`.kept`): without them the chosen-variant line reads as
if that build were being installed.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Set

from . import _compat, _patching, messages
from .state import selecting

__all__ = ["patch"]


def _wrap_resolve(original: Callable[..., Any]) -> Callable[..., Any]:
    def resolve(self: Any, root_reqs: Any, *args: Any, **kwargs: Any) -> Any:
        requirement_set = original(self, root_reqs, *args, **kwargs)
        _check_kept_builds(self, requirement_set)
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


def _installed_projects() -> Set[str]:
    from pip._internal.metadata import get_default_environment

    return {_compat.canonical_name(str(dist.canonical_name))
            for dist in get_default_environment().iter_installed_distributions(local_only=False)}


def patch(module: Any) -> None:
    _patching.patch(module.Resolver, "resolve", _wrap_resolve)
