"""Older releases are selected when the resolver gets to them, not before.

pip's finder hands H4 every applicable release at once, newest first, and
most installs take the first one. H4 settles releases in pip's order of
preference until one keeps a candidate (the one pip takes), and *defers* the
older ones: their variant wheels stay in the list, unsorted among themselves,
and their ``variants.json`` is neither fetched nor read. The resolver reads
candidates lazily, one version after another (``found_candidates``, H16); when
it reaches a deferred version this module settles it exactly as H4 would have:
fetch, select, drop the wheels that do not fit, order the rest by rank.

So a page listing thirty torch releases costs one index file, and an older
release costs its file only when the resolver backtracks to it.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from . import _compat, messages
from .context import EvaluatorContext, label_of
from .state import STATE, release_key

__all__ = ["Deferred", "defer", "settle"]


class Deferred:
    """One deferred version of one project (all its sources)."""

    __slots__ = ("evaluator", "ctx", "version", "candidates", "order")

    def __init__(self, evaluator: Any, ctx: EvaluatorContext, version: str, candidates: List[Any]) -> None:
        self.evaluator = evaluator
        self.ctx = ctx
        self.version = version
        #: every applicable candidate of the version (plain ones too), pip's order
        self.candidates = candidates
        #: link URLs kept, best first, once settled
        self.order: Optional[List[str]] = None

    def settle(self) -> List[str]:
        if self.order is not None:
            return self.order
        ctx, fctx = self.ctx, self.ctx.finder
        groups: Dict[str, List[Any]] = {}
        for cand in self.candidates:
            if label_of(cand.link) is not None:
                groups.setdefault(_compat.link_source(cand.link), []).append(cand)
        if len(groups) > 1:
            fctx.prefetch(ctx.project, [(self.version, source) for source in groups])
        try:
            outcomes = fctx.outcomes_across_sources(ctx.project, self.version, groups)
        except Exception as exc:  # settled inside pip's resolver: a user error must read as one
            from .errors import as_user_error

            user_error = as_user_error(exc)
            if user_error is None:
                raise
            raise user_error from None
        for problem in dict.fromkeys(out.problem for out in outcomes.values() if out.conflict):
            # H4 says why a release it settles has no variant; for this one nobody else would.
            messages.warn_once(f"pip-variants: {problem}; ignoring its variant wheels")
        keep = []
        for cand in self.candidates:
            if label_of(cand.link) is None:
                keep.append(cand)
                continue
            out = outcomes[_compat.link_source(cand.link)]
            if out.fits(cand.link):
                fctx.remember(cand.link, out)
                keep.append(cand)
        keep.sort(key=self.evaluator._sort_key, reverse=True)
        self.order = [cand.link.url for cand in keep]
        if len(keep) < len(self.candidates):
            messages.debug("pip-variants: %s %s: %d of %d candidates fit", ctx.project, self.version,
                           len(keep), len(self.candidates))
        return self.order


def defer(evaluator: Any, ctx: EvaluatorContext, version: str, candidates: List[Any]) -> None:
    STATE.deferred[(ctx.canonical, version)] = Deferred(evaluator, ctx, version, candidates)


def _key_of(info: Tuple[Any, Any]) -> Optional[Tuple[str, str]]:
    keywords = getattr(info[1], "keywords", None) or {}
    name = keywords.get("name")
    if name is None:
        return None
    canonical = _compat.canonical_name(str(name))
    return canonical, release_key(canonical, info[0])


def _link(info: Tuple[Any, Any]) -> Any:
    return (getattr(info[1], "keywords", None) or {}).get("link")


def _index(infos: Sequence[Tuple[Any, Any]]) -> Dict[Tuple[str, str], Dict[str, Tuple[Any, Any]]]:
    index: Dict[Tuple[str, str], Dict[str, Tuple[Any, Any]]] = {}
    for info in infos:
        key, link = _key_of(info), _link(info)
        if key is not None and link is not None:
            index.setdefault(key, {}).setdefault(link.url, info)
    return index


def settle(infos: Sequence[Tuple[Any, Any]]) -> Iterator[Tuple[Any, Any]]:
    """pip's ``(version, make candidate)`` infos, each deferred version settled
    when the iteration reaches it: its candidates that fit, best first, where
    its first one stood."""
    if not STATE.deferred:
        yield from infos
        return
    index = None
    done = set()
    for info in infos:
        key = _key_of(info)
        deferred = STATE.deferred.get(key) if key is not None else None
        if deferred is None:
            yield info
            continue
        if key in done:
            continue
        done.add(key)
        if index is None:
            index = _index(infos)
        same = index.get(key, {})  # type: ignore[arg-type]
        yield from [same[url] for url in deferred.settle() if url in same]


def version_infos(infos: Sequence[Tuple[Any, Any]], version: Any) -> List[Tuple[Any, Any]]:
    """The infos of one version, settled if it was deferred."""
    same = [info for info in infos if info[0] == version]
    if not same or not STATE.deferred:
        return same
    key = _key_of(same[0])
    deferred = STATE.deferred.get(key) if key is not None else None
    if deferred is None:
        return same
    by_url: Dict[str, Tuple[Any, Any]] = {}
    for info in same:
        link = _link(info)
        if link is not None:
            by_url.setdefault(link.url, info)
    return [by_url[url] for url in deferred.settle() if url in by_url]
