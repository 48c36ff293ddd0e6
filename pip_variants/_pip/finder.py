"""H2–H5: ``pip._internal.index.package_finder``.

H2 ``PackageFinder.evaluate_links``: peel ``{name}-{version}-variants.json``
   links off into the finder's registry.
H3 ``PackageFinder.make_candidate_evaluator``: hand the finder's variant state
   to the evaluator (no state: fail closed).
H4 ``CandidateEvaluator.get_applicable_candidates``: drop incompatible variant
   wheels, apply ``--variant NAME=LABEL``, say what was chosen.
H5 ``CandidateEvaluator._sort_key``: insert the variant rank right after
   ``candidate.version`` so that variant order beats tag order (PEP 825).

resolvelib keeps the first candidate of each version that builds, so the
order of the list H4 returns decides the variant: incompatible ones must be
removed, not merely ranked low (PIP-HOOKS §6.6).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from . import _patching, messages
from .context import ATTR, EvaluatorContext, FinderContext, Outcome, label_of
from .errors import VariantInstallationError, as_user_error
from .state import STATE, release_key, selecting, variant_option

__all__ = ["patch", "select_candidates"]


def _without_labels(candidates: List[Any]) -> List[Any]:
    return [c for c in candidates if label_of(c.link) is None]


# ----------------------------------------------------------------------------- H2


def _wrap_evaluate_links(original: Callable[..., Any]) -> Callable[..., Any]:
    def evaluate_links(self: Any, link_evaluator: Any, links: Any) -> Any:
        ctx: Optional[FinderContext] = getattr(self, ATTR, None)
        if ctx is None or not selecting():
            if STATE.off_by_option or STATE.cross_target:
                links = list(links)
                _note_left_out(link_evaluator, links)
            if STATE.cross_target_note is not None:
                from .variants_off import say_cross_target

                links = list(links)
                say_cross_target(link_evaluator.project_name, (getattr(link, "filename", "") for link in links))
            return original(self, link_evaluator, links)
        links = list(links)
        try:
            rest = ctx.peel_index_files(link_evaluator.project_name, links)
        except Exception as exc:
            messages.internal_error("PackageFinder.evaluate_links", exc)
            rest = links
        return original(self, link_evaluator, rest)

    return evaluate_links


def _wrap_process_project_url(original: Callable[..., Any]) -> Callable[..., Any]:
    """H19's other half: what the look-ahead got for a page is what pip's own
    ``fetch_response`` reads (and checks, logs, words), without a request."""

    def process_project_url(self: Any, project_url: Any, *args: Any, **kwargs: Any) -> Any:
        ctx: Optional[FinderContext] = getattr(self, ATTR, None)
        if ctx is None or ctx.pool is None or not selecting():
            return original(self, project_url, *args, **kwargs)
        from .lookahead import ReplaySession, take_page

        url = project_url.url.split("#", 1)[0]
        try:
            page = take_page(ctx, url)
        except Exception as exc:
            messages.debug("pip-variants: look-ahead page unused: %s: %s", type(exc).__name__, exc)
            page = None
        collector = getattr(self, "_link_collector", None)
        session = getattr(collector, "session", None)
        if page is None or collector is None or session is None:
            return original(self, project_url, *args, **kwargs)
        collector.session = ReplaySession(session, url, page)
        try:
            return original(self, project_url, *args, **kwargs)
        finally:
            collector.session = session

    return process_project_url


def _note_left_out(link_evaluator: Any, links: List[Any]) -> None:
    try:
        from .variants_off import note_links

        note_links(link_evaluator, links)
    except Exception as exc:  # a notice only: never worth stopping pip for
        messages.debug("pip-variants: left-out variant wheels not noted: %r", exc)


def _say_left_out(evaluator: Any, candidates: List[Any], applicable: List[Any]) -> None:
    try:
        from .variants_off import say_what_was_left_out

        say_what_was_left_out(evaluator, candidates, applicable)
    except Exception as exc:
        messages.debug("pip-variants: left-out variant wheels not reported: %r", exc)


# ----------------------------------------------------------------------------- H3


def _wrap_make_candidate_evaluator(original: Callable[..., Any]) -> Callable[..., Any]:
    def make_candidate_evaluator(self: Any, *args: Any, **kwargs: Any) -> Any:
        evaluator = original(self, *args, **kwargs)
        ctx: Optional[FinderContext] = getattr(self, ATTR, None)
        if ctx is not None and selecting():
            try:
                name = kwargs.get("project_name", args[0] if args else None)
                evaluator_ctx = EvaluatorContext(ctx, str(name))
                setattr(evaluator, ATTR, evaluator_ctx)
                ctx.looked_up.add(evaluator_ctx.canonical)
            except Exception as exc:
                messages.internal_error("PackageFinder.make_candidate_evaluator", exc)
        return evaluator

    return make_candidate_evaluator


# ----------------------------------------------------------------------------- H4


def _wrap_get_applicable_candidates(original: Callable[..., Any]) -> Callable[..., Any]:
    def get_applicable_candidates(self: Any, candidates: Any) -> Any:
        ctx: Optional[EvaluatorContext] = getattr(self, ATTR, None)
        if ctx is None or not selecting():
            if STATE.labels:
                # H1 lets labelled names through in this process: an evaluator
                # without variant state (or after an internal error) must still
                # never offer them, exactly like stock pip.
                candidates = _without_labels(list(candidates))
            if not STATE.left_out_by_no_variants:
                return original(self, candidates)
            candidates = list(candidates)
            result = original(self, candidates)
            _say_left_out(self, candidates, result)
            return result
        candidates = list(candidates)
        if ctx.finder.only_forced and ctx.canonical not in ctx.finder.forced:
            plain = _without_labels(candidates)
            result = original(self, plain)
            if len(plain) != len(candidates):
                # another machine's download, --variant for other projects: BC-1 as under --no-variants
                STATE.left_out_by_no_variants.setdefault(ctx.canonical, set()).update(
                    c.version for c in candidates if label_of(c.link) is not None)
                _say_left_out(self, plain, result)
            return result
        try:
            ctx.has_labels = any(label_of(c.link) is not None for c in candidates)
        except Exception as exc:
            messages.internal_error("CandidateEvaluator.get_applicable_candidates", exc)
            return original(self, _without_labels(candidates))
        if not ctx.has_labels:
            result = original(self, candidates)
            forced = ctx.finder.forced.get(ctx.canonical)
            if forced is not None and result and all(getattr(c, "locked", False) for c in result):
                # pip 26.3 installing from a pylock.toml: the lock names the one file, the
                # index is never read, so the other builds are not "missing"
                lock = getattr(result[-1].link, "comes_from", None)
                lock = lock if isinstance(lock, str) and lock else "the lock file"
                messages.warn_once(
                    f"pip-variants: {variant_option(ctx.canonical, forced)} does not apply to {ctx.project}: "
                    f"{lock} locks it to {result[-1].link.filename}"
                )
            elif forced is not None and result:
                # --variant names a project that has no variant wheels at all.
                from ..engine import VariantLabelNotFound

                error = VariantLabelNotFound(ctx.project, str(result[-1].version), forced, [])
                raise VariantInstallationError(error.worded(variant_option(ctx.canonical, forced)))
            return result
        result = original(self, candidates)
        try:
            return select_candidates(self, ctx, result)
        except VariantInstallationError:
            raise
        except Exception as exc:
            user_error = as_user_error(exc)
            if user_error is not None:
                raise user_error from None
            messages.internal_error("CandidateEvaluator.get_applicable_candidates", exc)
            return _without_labels(result)

    return get_applicable_candidates


def _holder(outcomes: Sequence[Outcome], profile: bool) -> str:
    """Whose support the variants of ``outcomes`` were refused by (the profile's
    answers or this machine's), for the lines that say nothing fits."""
    for out in outcomes:
        for rejection in (out.selection.rejected.values() if out.selection is not None else ()):
            if rejection.reason == "unsupported":
                return rejection.holder
    from ..selection import PROFILE_HOLDER

    return PROFILE_HOLDER if profile else "this machine"


def _summary(out: Outcome, profile: bool) -> str:
    if out.problem:
        return out.problem
    parts = []
    if out.selection is not None:
        for label, rejection in list(out.selection.rejected.items())[:3]:
            parts.append(f"{label}: {rejection}")
        if len(out.selection.rejected) > 3:
            parts.append("...")
    for url, why in list(out.dropped_links.items())[:2]:
        parts.append(f"{url.rsplit('/', 1)[-1]}: {why}")
    rejected = out.selection.rejected.values() if out.selection is not None else ()
    holder = _holder((out,), profile)
    reasons = {r.reason for r in rejected}
    if reasons == {"excluded"}:
        what = "--variant-exclude left out every variant"
    elif "excluded" in reasons:
        what = f"no variant fits {holder} or was left by --variant-exclude"
    else:
        what = f"no variant fits {holder}"
    return what + (f" ({'; '.join(parts)})" if parts else "")


def _hash_pins() -> Any:
    """:mod:`.hash_pins`, imported in hash-checking mode only (absolute: a
    relative import statement runs importlib's Python code on every call)."""
    import pip_variants._pip.hash_pins as hash_pins

    return hash_pins


def select_candidates(evaluator: Any, ctx: EvaluatorContext, result: List[Any]) -> List[Any]:
    """H4's work on the sorted applicable list: fetch, select, filter, re-sort.

    Releases are settled in pip's order of preference until one keeps a
    candidate; the older ones are deferred to the resolver (:mod:`.deferred`),
    unless ``--variant`` or ``pip-variants explain`` needs all of them now.
    """
    if not result:
        return result
    pinned = bool(getattr(evaluator, "_hashes", None))
    if pinned:
        result = _hash_pins().checked_against_pins(evaluator._hashes, result, ctx.finder.forced.get(ctx.canonical),
                                       ctx.finder.explain_command)
    fctx = ctx.finder
    groups: Dict[Tuple[str, str], List[Any]] = {}
    release_of = ctx.release_of
    for cand in result:
        if label_of(cand.link) is not None:
            groups.setdefault(release_of(cand), []).append(cand)
    forced = fctx.forced.get(ctx.canonical)
    newest = release_of(result[-1])[0]
    outcomes: Dict[Tuple[str, str], Outcome] = {}
    deferred: List[str] = []
    if forced is None and not os.environ.get("PIP_VARIANTS_EXPLAIN_FILE"):
        deferred = _settle_in_order(ctx, result, groups, outcomes)
    else:
        if len(groups) > 1:
            fctx.prefetch(ctx.project, list(reversed(list(groups))))
        by_version: Dict[str, List[Tuple[str, str]]] = {}
        for key in groups:
            by_version.setdefault(key[0], []).append(key)
        for version, keys in by_version.items():
            # Every version is settled here; only the newest is the one pip takes.
            _settle_version(ctx, version, keys, groups, outcomes, in_use=version == newest)

    if pinned and deferred:
        # Settled only if the resolver gets there, which picks among what is left:
        # these keep the up-front check (every unpinned local variant wheel out).
        hashes = evaluator._hashes
        unpinned = {id(c) for c in result
                    if release_of(c)[0] in deferred and _hash_pins().unpinned_local(hashes, c, forced)}
        result = [c for c in result if id(c) not in unpinned]

    def outcome_of(cand: Any) -> Outcome:
        return outcomes[release_of(cand)]

    if forced is None:
        keep = []
        for cand in result:
            if label_of(cand.link) is None or release_of(cand)[0] in deferred or outcome_of(cand).fits(cand.link):
                keep.append(cand)
    else:
        keep = _apply_forced(ctx, forced, result, outcome_of, outcomes, newest, pinned=pinned)
    final = sorted(keep, key=evaluator._sort_key) if keep else keep
    lost: Set[str] = set()
    if pinned:
        final, lost = _hash_pins().unpinned_files_dropped(evaluator._hashes, final, forced, release_of)
    if not selecting():  # a hook failed meanwhile: stock behaviour
        return _without_labels(result)

    for cand in final:
        if label_of(cand.link) is not None and release_of(cand)[0] not in deferred:
            fctx.remember(cand.link, outcome_of(cand))
    if deferred:
        from .deferred import defer

        for version in deferred:
            defer(evaluator, ctx, version, [c for c in result if release_of(c)[0] == version])
    # Builds that fit but whose files the hashes do not pin are no "nothing fits":
    # as for an index's unpinned files, which never reach selection, nothing is said.
    _report(ctx, final, newest, [] if newest in lost else [out for (v, _), out in outcomes.items() if v == newest],
            version_pinned=_pins_a_version(getattr(evaluator, "_specifier", None)),
            hash_pinned=(_hash_pins().pinned_of(evaluator._hashes, result, newest, release_of)
                         if pinned and not final else ()))
    _record_for_explain(ctx, result, outcomes)
    return final


def _settle_in_order(ctx: EvaluatorContext, result: List[Any], groups: Dict[Tuple[str, str], List[Any]],
                     outcomes: Dict[Tuple[str, str], Outcome]) -> List[str]:
    """Settle versions best first until one keeps a candidate; fill ``outcomes``
    and return the versions (with variant wheels) left for later."""
    fctx = ctx.finder
    release_of = ctx.release_of
    versions: List[str] = []
    for cand in reversed(result):  # pip's order of preference
        version = release_of(cand)[0]
        if version not in versions:
            versions.append(version)
    for n, version in enumerate(versions):
        keys = [key for key in groups if key[0] == version]
        if len(keys) > 1:
            fctx.prefetch(ctx.project, keys)
        _settle_version(ctx, version, keys, groups, outcomes)
        if any(_fits(ctx, cand, outcomes) for cand in result if release_of(cand)[0] == version):
            return [v for v in versions[n + 1:] if any(key[0] == v for key in groups)]
    return []


def _settle_version(ctx: EvaluatorContext, version: str, keys: List[Tuple[str, str]],
                    groups: Dict[Tuple[str, str], List[Any]], outcomes: Dict[Tuple[str, str], Outcome],
                    *, in_use: bool = True) -> None:
    """Fill ``outcomes`` for the sources (``keys``) of one version, reconciled across them."""
    by_source = {key[1]: groups[key] for key in keys}
    for source, out in ctx.finder.outcomes_across_sources(ctx.project, version, by_source,
                                                          in_use=in_use).items():
        outcomes[(version, source)] = out


def _fits(ctx: EvaluatorContext, cand: Any, outcomes: Dict[Tuple[str, str], Outcome]) -> bool:
    if label_of(cand.link) is None:
        return True
    return outcomes[ctx.release_of(cand)].fits(cand.link)


def _record_for_explain(ctx: EvaluatorContext, result: List[Any], outcomes: Dict[Tuple[str, str], Outcome]) -> None:
    """``pip-variants explain`` runs pip with PIP_VARIANTS_EXPLAIN_FILE set: leave it a record."""
    path = os.environ.get("PIP_VARIANTS_EXPLAIN_FILE")
    if not path:
        return
    from .. import explain

    groups: Dict[Tuple[str, str], List[Any]] = {}
    for cand in result:
        if cand.link.is_wheel:
            groups.setdefault(ctx.release_of(cand), []).append(cand)
    for (version, source), cands in groups.items():
        out = outcomes.get((version, source))
        explain.record(
            path,
            project=ctx.project,
            version=version,
            source_url=(out.json_url if out else None) or source,
            wheels=[
                {
                    "filename": c.link.filename,
                    "label": label_of(c.link),
                    "tags_fit": True,  # pip dropped tag-incompatible links before this point
                    "problem": out.dropped_links.get(c.link.url) if out else None,
                }
                for c in cands
            ],
            selection=out.selection if out else None,
            metadata_error=(out.problem or (str(out.forced_missing) if out.forced_missing else None)) if out else None,
        )


def _apply_forced(
    ctx: EvaluatorContext,
    forced: str,
    result: List[Any],
    outcome_of: Callable[[Any], Outcome],
    outcomes: Dict[Tuple[str, str], Outcome],
    newest: str,
    *,
    pinned: bool = False,
) -> List[Any]:
    """``--variant NAME=LABEL``: only that label's wheels, in versions that have it."""
    keep = []
    for cand in result:
        if label_of(cand.link) != forced:
            continue
        out = outcome_of(cand)
        if out.selection is not None and out.selection.forced == forced and cand.link.url not in out.dropped_links:
            keep.append(cand)
    if not keep:
        from ..engine import VariantLabelNotFound

        available: List[str] = []
        problems = []
        for (version, _), out in outcomes.items():
            if version != newest:
                continue
            if out.forced_missing is not None:
                available += [lbl for lbl in out.forced_missing.available if lbl not in available]
            elif out.problem:
                problems.append(out.problem)
        error = VariantLabelNotFound(ctx.project, newest, forced, available)
        if pinned:  # pip (or the check above) left out the wheels whose hashes are not pinned
            problems.append("in hash-checking mode, wheels whose hashes are not pinned are not available")
        extra = f" ({'; '.join(dict.fromkeys(problems))})" if problems else ""
        raise VariantInstallationError(f"{error.worded(variant_option(ctx.canonical, forced))}{extra}")
    best = release_key(ctx.canonical, max(keep, key=lambda c: c.version).version)
    if best != newest:
        messages.warn_once(
            f"pip-variants: {ctx.project} {newest} has no variant labelled {forced!r} "
            f"({variant_option(ctx.canonical, forced)}); using {ctx.project} {best} instead"
        )
    return keep


def _pins_a_version(specifier: Any) -> bool:
    """``==1.0`` or ``===1.0``: pip then takes a yanked file (PEP 592)."""
    try:
        return any(s.operator in ("==", "===") and not s.version.endswith(".*") for s in specifier or ())
    except Exception:  # noqa: BLE001 - an unexpected specifier object: say nothing
        return True


def _report(ctx: EvaluatorContext, final: List[Any], newest: str, newest_outcomes: List[Outcome],
            *, version_pinned: bool = False, hash_pinned: Sequence[Any] = ()) -> None:
    """What became of the newest applicable release, then the chosen variant of
    the release pip takes (the newest, or an older one it falls back to).
    ``hash_pinned``: in hash-checking mode, the newest release's files the pins left."""
    project = ctx.project
    profile = ctx.finder.profile

    def why() -> str:  # worded only for a message: most releases have a variant that fits
        return _why(newest_outcomes, profile)

    def holder() -> str:
        return _holder(newest_outcomes, profile)

    for out in newest_outcomes:
        if out.selection is not None:
            for notice in out.selection.notices:
                messages.warn_once(f"pip-variants: {notice}")
    if not final:
        if newest_outcomes:
            messages.warn_once(
                f"pip-variants: no distribution of {project} {newest} fits {holder()} ({why()})."
                f"{_hash_pins().pins_hint(ctx, hash_pinned) if hash_pinned else ''} "
                f"Run '{ctx.finder.explain_command(ctx.canonical)}' for details."
            )
        return
    best = final[-1]
    taken = ctx.release_of(best)[0]
    label = label_of(best.link)
    if taken != newest and newest_outcomes and ctx.canonical not in ctx.finder.forced:
        # (--variant falling back to an older release has said so already.)
        left = [c for c in final if ctx.release_of(c)[0] == newest]
        if left:  # pip ranks an older file first (--prefer-binary): something of newest still fits
            what = "its source distribution" if not any(c.link.is_wheel for c in left) else "its other files"
            messages.warn_once(
                f"pip-variants: {project} {newest}: {why()}; pip prefers {project} {taken} to {what}. "
                f"Run '{ctx.finder.explain_command(ctx.canonical)}' for details."
            )
        else:
            messages.warn_once(
                f"pip-variants: no distribution of {project} {newest} fits {holder()} ({why()}); "
                f"pip will try older versions. Run '{ctx.finder.explain_command(ctx.canonical)}' for details."
            )
    if label is not None:
        _report_chosen(ctx, best, label, taken, version_pinned=version_pinned)
    elif taken == newest and newest_outcomes:
        what = "a non-variant wheel" if best.link.is_wheel else "the source distribution"
        fitting = [c for c in final if label_of(c.link) is not None and ctx.release_of(c)[0] == newest]
        if not fitting:
            messages.warn_once(
                f"pip-variants: {why()}; installing {what} of {project} {newest} instead. "
                f"Run '{ctx.finder.explain_command(ctx.canonical)}' for details."
            )
        elif all(getattr(c.link, "is_yanked", False) for c in fitting):  # pip ranks a yanked file last
            reason = getattr(fitting[-1].link, "yanked_reason", None) or "no reason given"
            messages.warn_once(
                f"pip-variants: the variant wheels of {project} {newest} that fit {holder()} are yanked "
                f"({reason}); installing {what} instead. To install the yanked build anyway: "
                f"'{ctx.canonical}=={newest}' --variant {ctx.canonical}={label_of(fitting[-1].link)}"
            )


def _why(outcomes: List[Outcome], profile: bool = False) -> str:
    """Why the variant wheels of a release were passed over, once per distinct reason
    (worded only when a message needs it: most releases have a variant that fits)."""
    return "; ".join(dict.fromkeys(_summary(out, profile) for out in outcomes))


def _report_chosen(ctx: EvaluatorContext, best: Any, label: str, version: str, *, version_pinned: bool) -> None:
    """The chosen-variant line of the release pip takes, and what ``--variant`` forced on it."""
    project = ctx.project
    chosen = ctx.finder.known_outcome(ctx.release_of(best)[1], ctx.canonical, version)
    if chosen is None or chosen.selection is None:
        return
    if not chosen.selection.abi:
        ctx.finder.chosen[(ctx.canonical, best.version)] = label
    key, version = version, str(best.version)  # said as pip says it ("Would install pkg-1.0")
    if messages.info_enabled():
        messages.info_once(chosen.selection.describe(label, version))
        STATE.announced[(ctx.canonical, key)] = label
    if chosen.selection.forced == label and getattr(best.link, "is_yanked", False) and not version_pinned:
        # pip skips a yanked file unless the version is pinned, and then
        # says only that the version is yanked
        reason = best.link.yanked_reason or "no reason given"
        messages.warn_once(
            f"pip-variants: the {label} wheel of {project} {version} (--variant "
            f"{ctx.canonical}={label}) is yanked ({reason}); pip installs a yanked file only "
            f"when its version is pinned: {ctx.canonical}=={version}"
        )
    problem = chosen.selection.forced_problem
    if problem is not None and chosen.selection.forced == label and not ctx.finder.only_forced:
        abi = chosen.selection.abi.get(label, ())
        # An ABI build brings the version it was built for: say which, as pip may replace it.
        also = f", with {' and '.join(str(r) for r in abi)} as it requires" if abi else ""
        messages.warn_once(
            f"pip-variants: {project} {version}: variant {label} was chosen with --variant, "
            f"but {problem.holder} does not support it ({problem}); taking it anyway{also}"
        )


# ----------------------------------------------------------------------------- H5


def _version_index(key: Tuple[Any, ...], version: Any, hint: int = -1) -> int:
    """Where ``version`` sits in pip's sort key; ``hint``: where it sat last time
    (the shape of the key is the same for every candidate of a pip release)."""
    if 0 <= hint < len(key) and key[hint] is version:
        return hint
    for i, item in enumerate(key):
        # By identity: the version object pip put in the key (PIP-HOOKS §6.3).
        if item is version:
            return i
    raise LookupError("candidate.version not found in pip's sort key")


def _wrap_sort_key(original: Callable[..., Any]) -> Callable[..., Any]:
    def _sort_key(self: Any, candidate: Any) -> Any:
        ctx: Optional[EvaluatorContext] = getattr(self, ATTR, None)
        if ctx is None or not ctx.has_labels or not selecting():
            return original(self, candidate)
        known = ctx.pip_keys.get(id(candidate))
        if known is not None and known[0] is candidate:
            key = known[1]
        else:
            key = original(self, candidate)
            ctx.pip_keys[id(candidate)] = (candidate, key)
        try:
            i = ctx.version_at = _version_index(key, candidate.version, ctx.version_at)
            return key[: i + 1] + (ctx.rank(candidate),) + key[i + 1 :]
        except Exception as exc:
            messages.internal_error("CandidateEvaluator._sort_key", exc)
            return key

    return _sort_key


def patch(module: Any) -> None:
    finder_cls = module.PackageFinder
    evaluator_cls = module.CandidateEvaluator
    _patching.patch(finder_cls, "evaluate_links", _wrap_evaluate_links)
    # Optional: without it (a newer pip may rename it) H19 reads nothing ahead.
    _patching.patch(finder_cls, "process_project_url", _wrap_process_project_url)
    _patching.patch(finder_cls, "make_candidate_evaluator", _wrap_make_candidate_evaluator)
    _patching.patch(evaluator_cls, "get_applicable_candidates", _wrap_get_applicable_candidates)
    _patching.patch(evaluator_cls, "_sort_key", _wrap_sort_key)
