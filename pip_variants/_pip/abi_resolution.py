"""H14–H17: ABI-dependency variants inside pip's resolver.

A variant built against ``torch 2.9`` (``abi_dependency :: torch :: 2.9``) is
only right next to a torch the resolver picks in the same run. The finder
(H4) cannot know that version, so the decision is handed to resolvelib:

H14 ``Resolver.resolve``: before resolution starts, tell the ABI provider the
    target environment's installed versions and which projects the command
    names (their versions are the resolver's to choose, the others stay fixed).
H15 ``_InstallRequirementBackedCandidate.iter_dependencies``: a chosen ABI
    variant carries ``torch==2.9.*`` as one more dependency, so the resolver
    sees a conflict, and backtracks, exactly when the pair would not match.
    A distribution's ``iter_dependencies`` does the same for an installed
    ABI build (read from its ``.dist-info/variant.json``): the resolver keeps
    it only next to its torch, and ``pip check`` names a mismatch.
H16 ``found_candidates._iter_built*``: pip keeps one candidate per version;
    for a release with ABI variants, the best wheel of each distinct ABI
    requirement set (and then the null or plain wheel) of the same version
    is offered too, right after the first one, so the resolver tries another
    build of the same version before an older version.
H17 ``Factory.get_installation_error``: when it still fails, one line names
    the builds that exist and the version being installed.

Every wrapper falls back to stock behaviour on an internal error.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Set, Tuple

from . import _compat, _patching, messages
from .state import STATE, release_key, selecting

def STATE_ENV_READER() -> Dict[str, str]:
    """The running environment's distributions (pip runs inside the target)."""
    from ..abi import _installed_versions

    return _installed_versions()


__all__ = [
    "patch",
    "wrap_iter_dependencies",
    "wrap_dist_iter_dependencies",
    "patch_factory",
    "abi_requirements",
    "installed_abi_requirements",
]


def _requirements_of(link: Any) -> Tuple[Any, ...]:
    chosen = STATE.chosen.get(link.url_without_fragment) if link is not None else None
    return getattr(chosen, "abi", ()) if chosen is not None else ()


def abi_requirements(candidate: Any) -> Tuple[Any, ...]:
    """The :class:`~pip_variants.abi.AbiRequirement` s a candidate's wheel carries."""
    if not STATE.abi_links:
        return ()
    return _requirements_of(_link_of(candidate))


def installed_abi_requirements(dist: Any) -> Tuple[Any, ...]:
    """What an installed ABI build requires, from its ``.dist-info/variant.json``
    (PEP 825 keeps it there). Projects whose version ``VARIANT_ABI_DEPENDENCY``
    or the profile set are left out: there the resolver is not bound either."""
    from .wheel_install import installed_variant_json

    text = installed_variant_json(dist)
    if "abi" not in text:  # most installed variants have no ABI property
        return ()
    from ..abi import AbiContext, feature_project, requirements_for
    from ..metadata import InvalidVariantMetadata, load_metadata

    try:
        md = load_metadata(text, "variant.json")
    except InvalidVariantMetadata:
        return ()
    if len(md.variants) != 1:
        return ()
    (props,) = md.variants.values()
    ctx = STATE.abi_context or (STATE.abi_factory() if STATE.abi_factory is not None
                                else AbiContext.from_environment())
    fixed = set(ctx.overrides) | set(ctx.profile)
    binding: Dict[str, List[str]] = {}
    for ns, features in props.items():
        if not md.is_abi_namespace(ns):
            continue
        for feature, values in features.items():
            if feature_project(feature) not in fixed:
                binding.setdefault(feature, []).extend(values)
    return requirements_for(binding)


# ----------------------------------------------------------------------------- H14


def _wrap_resolve(original: Callable[..., Any]) -> Callable[..., Any]:
    def resolve(self: Any, root_reqs: Any, *args: Any, **kwargs: Any) -> Any:
        # pip 26's in-process build dependencies resolve inside the command's
        # own resolution, with the same finder: theirs is a binding of its own
        # (the build environment), and the command's comes back afterwards.
        nested = STATE.resolve_depth > 0
        outer = _abi_state() if nested else None
        if selecting():
            try:
                factory = self.factory

                def installed() -> Dict[str, str]:
                    # pip's view of the target environment (--prefix, --target, --user included)
                    return {
                        _compat.canonical_name(name): str(dist.version)
                        for name, dist in getattr(factory, "_installed_dists", {}).items()
                    }

                if os.environ.get("PIP_VARIANTS_EXPLAIN_FILE"):
                    # `pip-variants explain` runs pip with --ignore-installed
                    # in the target environment: show what `pip install` would see.
                    installed = STATE_ENV_READER
                named = [_compat.canonical_name(r.name) for r in root_reqs if getattr(r, "name", None)]
                # what the command installs itself (a constraint installs nothing): under
                # --no-deps, an ABI build's dependency counts only if it is one of them
                STATE.abi_required = {_compat.canonical_name(r.name) for r in root_reqs
                                      if getattr(r, "name", None) and not getattr(r, "constraint", False)}
                strategy = getattr(self, "upgrade_strategy", "")
                force = bool(getattr(factory, "_force_reinstall", False))
                # --no-deps: pip touches only the named projects, whatever it may do to them
                eager = (strategy == "eager" or force) and not getattr(self, "ignore_dependencies", False)
                # What pip keeps installed if it can: without --upgrade, every named project;
                # with it (only-if-needed), those only constrained, not requested
                requested = {_compat.canonical_name(r.name) for r in root_reqs
                             if getattr(r, "name", None) and getattr(r, "user_supplied", False)
                             and not getattr(r, "constraint", False)}
                keeps = [] if force else (named if strategy == "to-satisfy-only" else
                                          [n for n in named if n not in requested] if strategy == "only-if-needed"
                                          else [])
                # The engine (and its ABI context) is built when the first
                # variant shows up, usually after this point: keep the binding.
                STATE.abi_binding = (installed, named, eager, keeps)
                if STATE.abi_context is not None:
                    STATE.abi_context.bind(installed, named, eager, keeps)
            except Exception as exc:
                messages.internal_error("Resolver.resolve", exc)
        STATE.resolve_depth += 1
        try:
            result = original(self, root_reqs, *args, **kwargs)
        finally:
            STATE.resolve_depth -= 1
            if outer is not None:
                _restore_abi_state(outer)
            else:
                _close_pool(self)
        if not nested:
            _check_kept_builds(self)
        return result

    return resolve


_BINDING = ("installed", "installed_reader", "named", "all_changing", "kept")


def _abi_state() -> Tuple[Any, ...]:
    ctx = STATE.abi_context
    fields = None if ctx is None else tuple(getattr(ctx, name) for name in _BINDING)
    return STATE.abi_required, STATE.abi_binding, ctx, fields


def _restore_abi_state(saved: Tuple[Any, ...]) -> None:
    try:
        STATE.abi_required, STATE.abi_binding, ctx, fields = saved
        if ctx is not None and fields is not None:
            for name, value in zip(_BINDING, fields):
                setattr(ctx, name, value)
        elif STATE.abi_context is not None and STATE.abi_binding is not None:
            STATE.abi_context.bind(*STATE.abi_binding)  # made during the nested resolution
    except Exception as exc:
        messages.internal_error("Resolver.resolve", exc)


def _finder_context(resolver: Any) -> Any:
    """The :class:`~.context.FinderContext` of the resolver's finder, if any."""
    from .context import ATTR

    return getattr(getattr(getattr(resolver, "factory", None), "_finder", None), ATTR, None)


def _check_kept_builds(resolver: Any) -> None:
    """After the resolution: the variant wheels taken that no line named yet,
    installed builds pip kept although another was forced or chosen, and
    ``--variant`` names that chose nothing (a typo)."""
    factory = getattr(resolver, "factory", None)
    ctx = _finder_context(resolver)
    if ctx is None or not selecting():
        return
    try:
        mapping = getattr(getattr(resolver, "_result", None), "mapping", None)
        if not isinstance(mapping, Mapping):
            return  # a pip that keeps the result elsewhere: say nothing rather than guess
        resolved: Dict[str, Any] = {}
        for candidate in mapping.values():
            build = getattr(candidate, "base", None) or candidate  # an ExtrasCandidate wraps it
            name = getattr(build, "project_name", None)
            if name is not None:
                resolved.setdefault(_compat.canonical_name(str(name)), build)
        _report_taken(ctx, resolved)
        if STATE.abi_builds:
            _report_moved_dependencies(resolved)
        if not (ctx.forced or ctx.chosen or ctx.engine_made):
            return
        from .kept import report_kept

        installed = {_compat.canonical_name(name) for name in getattr(factory, "_installed_dists", {})}
        report_kept(ctx, {name: getattr(build, "dist", None) for name, build in resolved.items()
                          if type(build).__name__ == "AlreadyInstalledCandidate"}, set(resolved), installed)
    except Exception as exc:
        messages.internal_error("Resolver.resolve", exc)


def _report_taken(ctx: Any, resolved: Mapping[str, Any]) -> None:
    """The chosen-variant line of each variant wheel the resolver took that no
    line named: an older release it backtracked to (settled late, :mod:`.deferred`),
    or another build of the same version (ABI builds, H16). The finder's lines
    name the best build of the release pip looked at first; where the resolver
    then took a file without a label of another release, a line says so, or
    the last line about that project would name a release pip does not install."""
    if not messages.info_enabled():
        return
    from .context import label_of

    for name, build in resolved.items():
        link = getattr(build, "source_link", None)
        label = label_of(link) if link is not None else None
        if label is None:
            if link is not None:
                _say_left_behind(name, build)
            continue
        version = release_key(name, build.version)
        if STATE.announced.get((name, version)) == label:
            continue
        out = ctx.known_outcome(_compat.link_source(link), name, version)
        if out is not None and out.selection is not None:
            STATE.announced[(name, version)] = label
            messages.info_once(out.selection.describe(label))


def _report_moved_dependencies(resolved: Mapping[str, Any]) -> None:
    """An installed dependency the command does not name decides the ABI builds
    (rule 2: never moved behind the user's back), yet another requirement of
    this very command moves it: the builds taken were for the version leaving."""
    abi = STATE.abi_context
    installed = getattr(abi, "installed", None) or {}
    if abi is None or not installed:
        return
    from ..abi import value_matches

    for (project, version), deps in sorted(STATE.abi_builds.items()):
        build = resolved.get(project)
        if build is None or release_key(project, build.version) != version:
            continue
        if getattr(build, "source_link", None) is None:
            continue  # an installed build pip keeps: no build was chosen here
        for dep, values in sorted(deps.items()):
            new, old = resolved.get(dep), installed.get(dep)
            if new is None or old is None or str(new.version) == old or abi.source_for(dep).origin != "installed":
                continue
            if any(r.project == dep and r.contains(str(new.version)) for r in abi_requirements(build)):
                continue
            if not any(value_matches(v, str(new.version)) for v in values):
                continue  # no build for the new version either: naming it would not help
            messages.warn_once(
                f"pip-variants: {project} {build.version}: only its builds for the installed {dep} {old} were "
                f"on offer (the command does not name {dep}), but this install replaces {dep} with "
                f"{new.version}, so pip takes {_taken(build)}; name {dep} in the command to get the build "
                f"for {dep} {new.version} (pip install {project} {dep})"
            )


def _taken(build: Any) -> str:
    from .context import label_of

    link = getattr(build, "source_link", None)
    label = label_of(link) if link is not None else None
    return f"variant {label}" if label else "a build without a label"


def _say_left_behind(name: str, build: Any) -> None:
    version = release_key(name, build.version)
    said = [v for (project, v) in STATE.announced if project == name and v != version]
    if said and (name, version) not in STATE.announced:
        STATE.announced[(name, version)] = ""
        messages.info_once(f"{name} {build.version}: not a variant wheel; pip takes this release, "
                           f"not {' or '.join(said)} named above")


def _close_pool(resolver: Any) -> None:
    """Resolution is over: look-aheads that guessed wrong must not run on
    through the downloads and the install (H19)."""
    ctx = _finder_context(resolver)
    pool = getattr(ctx, "pool", None)
    if pool is not None:
        pool.close()


# ----------------------------------------------------------------------------- H15


def wrap_iter_dependencies(original: Callable[..., Any]) -> Callable[..., Any]:
    """H15 (the ``candidates`` hook composes it with the variant markers' wrapper)."""
    def iter_dependencies(self: Any, with_requires: bool) -> Any:
        yield from original(self, with_requires)
        if not STATE.abi_links or not selecting():
            return
        try:
            abis = abi_requirements(self)
            if not with_requires:
                # --no-deps adds nothing, but the command may name the dependency
                # itself (a lock file: torch==2.8.0 next to flash-attn): the pair
                # must match as it does with dependencies.
                abis = tuple(abi for abi in abis if abi.project in STATE.abi_required)
            extra = [
                req
                for abi in abis
                for req in _compat.make_requirements(self._factory, _spec(abi), self._ireq)
            ]
        except Exception as exc:
            messages.internal_error("Candidate.iter_dependencies", exc)
            return
        yield from extra

    return iter_dependencies


def _reads_installed_builds() -> bool:
    """A command that selects variants, or one that finds none (``pip check``,
    ``pip show``); not under ``--no-variants`` (stock pip) nor after a hook failed."""
    s = STATE
    if s.stepped_aside or s.broken:
        return False
    return s.enabled or s.command is None


def wrap_dist_iter_dependencies(original: Callable[..., Any]) -> Callable[..., Any]:
    """H15 for a distribution's own ``iter_dependencies`` (the metadata
    backends): an ABI build lists ``torch==2.8.*`` next to its
    ``Requires-Dist``, read from its ``.dist-info/variant.json``. pip asks
    this of an installed distribution when the resolver keeps it
    (``AlreadyInstalledCandidate``), in ``pip check`` and in the conflict
    warning after an install: an installed build is never silently left
    next to a torch it was not built for. (A wheel being installed lists it
    too; H15 above adds the same requirement, which resolvelib merges.)"""
    def iter_dependencies(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not _reads_installed_builds():
            yield from original(self, *args, **kwargs)
            return
        try:
            builds = _installed_abi_cached(self)
        except Exception as exc:
            messages.internal_error("Distribution.iter_dependencies (ABI builds)", exc)
            builds = ()
        if not builds:
            yield from original(self, *args, **kwargs)
            return
        reqs = list(original(self, *args, **kwargs))
        try:
            merged = _with_abi_requirements(reqs, builds)
        except Exception as exc:
            messages.internal_error("Distribution.iter_dependencies (ABI builds)", exc)
            merged = reqs
        yield from merged

    return iter_dependencies


def _with_abi_requirements(reqs: List[Any], builds: Tuple[Any, ...]) -> List[Any]:
    """``reqs`` with what the installed ABI build requires: merged into the
    package's own requirement of that project where it has a plain one
    (``torch`` becomes ``torch==2.8.*``: ``pip check`` names a missing torch
    once, not once per requirement), else added, spelled as the package
    spells the name (``pip show`` lists names as written)."""
    from pip._vendor.packaging.requirements import Requirement

    out = list(reqs)
    for abi in builds:
        spec = _spec(abi)[len(abi.project):]
        for i, req in enumerate(out):
            name = getattr(req, "name", None)
            if not name or _compat.canonical_name(str(name)) != abi.project:
                continue
            if not getattr(req, "extras", None) and getattr(req, "marker", None) is None \
                    and getattr(req, "url", None) is None:
                specifier = str(getattr(req, "specifier", "") or "")
                out[i] = Requirement(f"{name}{specifier + ',' if specifier else ''}{spec}")
                break
        else:
            spelled = next((str(r.name) for r in reversed(reqs) if getattr(r, "name", None)
                            and _compat.canonical_name(str(r.name)) == abi.project), None)
            out.append(Requirement(_spec(abi, spelled)))
    return out


def _link_of(candidate: Any) -> Any:
    """The wheel link behind a candidate; an ``ExtrasCandidate`` (``pkg[x]``) wraps its base."""
    link = getattr(candidate, "_link", None)
    if link is None:
        link = getattr(getattr(candidate, "base", None), "_link", None)
    return link


_CACHE_ATTR = "_pip_variants_abi"


def _installed_abi_cached(dist: Any) -> Tuple[Any, ...]:
    """:func:`installed_abi_requirements`, read once per distribution object:
    pip asks a distribution for its dependencies several times in one resolution,
    and each ask would otherwise open its ``variant.json`` again. Keyed by the
    ABI context in force (the engine's, once made, knows the profile; without
    one, ``VARIANT_ABI_DEPENDENCY`` is read again, as the uncached path does)."""
    ctx = STATE.abi_context if STATE.abi_context is not None else STATE.abi_factory
    key = (id(ctx), os.environ.get("VARIANT_ABI_DEPENDENCY"))
    cached = getattr(dist, _CACHE_ATTR, None)
    if cached is not None and cached[0] == key:
        return cached[1]
    result = installed_abi_requirements(dist)
    try:
        setattr(dist, _CACHE_ATTR, (key, result))
    except Exception:  # a distribution class with __slots__: read every time
        pass
    return result


def _spec(abi: Any, name: Optional[str] = None) -> str:
    project = name or abi.project
    spec = abi.specifier()
    if spec is not None:
        return f"{project}{spec}"
    # Disjoint values (2.7 or 2.9) have no one-specifier form: the hull is
    # required, a documented over-approximation (docs/architecture.md).
    parts = sorted((tuple(int(p) for p in v.split(".")) for v in abi.values))
    low = parts[0]
    upper = max(p[:-1] + (p[-1] + 1,) for p in parts)
    return f"{project}>={'.'.join(map(str, low))}.dev0,<{'.'.join(map(str, upper))}.dev0"


# ----------------------------------------------------------------------------- H16


def _key(link: Any) -> Optional[Tuple[Tuple[str, Tuple[str, ...]], ...]]:
    reqs = _requirements_of(link)
    return tuple(sorted((r.project, tuple(sorted(r.values))) for r in reqs))


class _Alternates:
    """The finder's infos, read lazily, with the extra builds of each version."""

    def __init__(self, infos: Iterator[Any]) -> None:
        self._infos = infos
        self._list: Optional[List[Any]] = None

    def stream(self) -> Iterator[Any]:
        if self._list is None:
            self._list = list(self._infos)
        if not STATE.deferred:  # nothing deferred: the deferral module stays unloaded
            yield from self._list
            return
        from .deferred import settle

        yield from settle(self._list)

    def after(self, candidate: Any) -> List[Callable[[], Any]]:
        """Builds of ``candidate.version`` with an ABI requirement set not seen
        yet, best first, ending with the first wheel that has none.

        Never after an installed build: pip does not reinstall a build of the
        version already installed, so offering one would leave the installed
        build in place next to a dependency it was not built for."""
        if self._list is None or not STATE.abi_links:
            return []
        link = _link_of(candidate)
        if link is None or not _requirements_of(link):
            return []
        from .deferred import version_infos

        seen: Set[Any] = {_key(link)}
        out: List[Callable[[], Any]] = []
        for _, func in version_infos(self._list, candidate.version):
            other = getattr(func, "keywords", {}).get("link")
            if other is None or other.url == link.url:
                continue
            key = _key(other)
            if key in seen:
                continue
            seen.add(key)
            out.append(func)
            if not key:  # the null or plain wheel: nothing after it is needed
                break
        return out


def _with_alternates(run: Callable[[Iterator[Any]], Iterator[Any]], infos: Iterator[Any]) -> Iterator[Any]:
    alt = _Alternates(infos)
    for cand in run(alt.stream()):
        yield cand
        try:
            extra = alt.after(cand) if selecting() else []
        except Exception as exc:
            messages.internal_error("found_candidates (ABI builds)", exc)
            extra = []
        for func in extra:
            try:
                other = func()
            except _compat.MetadataInvalid:
                continue
            if other is not None:
                yield other


def _wrap_iter_built(original: Callable[..., Any]) -> Callable[..., Any]:
    def _iter_built(infos: Any) -> Any:
        # Not STATE.abi_links: the finder runs (and may record the first ABI
        # build) only once this very iterator reads its first info.
        if not selecting():
            return original(infos)
        return _with_alternates(original, infos)

    return _iter_built


def _wrap_iter_built_with_installed(original: Callable[..., Any]) -> Callable[..., Any]:
    def _iter_built_with(installed: Any, infos: Any) -> Any:
        if not selecting():
            return original(installed, infos)
        return _with_alternates(lambda stream: original(installed, stream), infos)

    return _iter_built_with


# ----------------------------------------------------------------------------- H17


def _join(items: List[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def abi_conflicts(causes: Any, forced: Optional[Mapping[str, str]] = None) -> List[str]:
    """One sentence per ABI release among a ``ResolutionImpossible``'s causes
    (``forced``: ``--variant`` labels by project, which leave one build only)."""
    wanted: Dict[str, List[str]] = {}
    abi_parents: Dict[Tuple[str, str], Set[str]] = {}
    #: dependency -> {installed ABI build: the dependency's version it was built for}
    installed_builds: Dict[str, Dict[str, str]] = {}
    for req, parent in causes:
        name = _compat.canonical_name(str(getattr(req, "project_name", getattr(req, "name", ""))))
        reqs = abi_requirements(parent) if parent is not None else ()
        if any(r.project == name for r in reqs):
            parent_name = _compat.canonical_name(parent.name)
            abi_parents.setdefault((parent_name, release_key(parent_name, parent.version)), set()).add(name)
            continue
        dist = getattr(parent, "dist", None) if type(parent).__name__ == "AlreadyInstalledCandidate" else None
        held_by = [r for r in _installed_abi_cached(dist) if r.project == name] if dist is not None else []
        if held_by:
            built = installed_builds.setdefault(name, {})
            built.setdefault(str(parent.name), " or ".join(held_by[0].values))
            continue
        text = str(req)
        who = "requested" if parent is None else f"required by {parent.name} {parent.version}"
        wanted.setdefault(name, []).append(f"{text} ({who})")
    lines = []
    for (project, version), deps in sorted(abi_parents.items()):
        builds = STATE.abi_builds.get((project, version), {})
        for dep in sorted(deps):
            values = sorted(builds.get(dep, ()), key=lambda v: tuple(int(p) for p in v.split(".")))
            have = f"has builds for {dep} {_join(values)}" if values else f"has builds for other {dep} versions"
            ctx = STATE.abi_context or (STATE.abi_factory() if STATE.abi_factory is not None else None)
            held = ctx is not None and ctx.source_for(dep).origin == "installed"  # (reads what is installed)
            installed = (ctx.installed or {}).get(dep) if ctx is not None else None
            if dep in wanted:
                other = f"{_join(wanted[dep])} is being installed"
                if dep in installed_builds:
                    other += f", but {_installed_builds_hint(dep, installed_builds.pop(dep))}"
                elif held:
                    # Only the build for the installed version was offered: pip-variants
                    # never moves an installed dependency the command does not name.
                    other += (f", but the installed {dep} {installed} is kept unless the command names "
                              f"{dep}: add {dep} to it to let pip replace it")
            elif installed:
                other = f"{dep} {installed} is installed"
            else:
                other = f"no {dep} release fits them"
            label = (forced or {}).get(project)
            why = f"abi_dependency; --variant {project}={label} takes only that build" if label else "abi_dependency"
            lines.append(f"pip-variants: {project} {version} {have} ({why}); {other}")
    for dep, holding in sorted(installed_builds.items()):
        # No build on offer was refused: an installed one pip keeps holds the dependency.
        if dep in wanted:
            lines.append(f"pip-variants: {_join(wanted[dep])} is being installed, but "
                         f"{_installed_builds_hint(dep, holding)}")
    return lines


def _installed_builds_hint(dep: str, builds: Mapping[str, str]) -> str:
    """Naming ``dep`` is not enough: pip keeps an installed build of the same
    version, and that build requires the old ``dep``."""
    names = list(builds)
    one = len(names) == 1
    built = _join([f"{name} (for {dep} {value})" for name, value in builds.items()])
    return (f"the installed {built} {'was' if one else 'were'} built for another {dep} (abi_dependency) and "
            f"pip keeps {'it' if one else 'them'}: add --force-reinstall {dep} {' '.join(names)} to the "
            "command to replace them together")


def _wrap_get_installation_error(original: Callable[..., Any]) -> Callable[..., Any]:
    def get_installation_error(self: Any, e: Any, *args: Any, **kwargs: Any) -> Any:
        # (not only with STATE.abi_links: an installed build pip keeps can be the cause)
        if selecting():
            try:
                from .context import ATTR

                ctx = getattr(getattr(self, "_finder", None), ATTR, None)
                for line in abi_conflicts(getattr(e, "causes", ()), getattr(ctx, "forced", None)):
                    messages.logger.error("%s", messages.shown(line))
            except Exception as exc:
                messages.debug("pip-variants: ABI conflict report failed: %r", exc)
        return original(self, e, *args, **kwargs)

    return get_installation_error


# ----------------------------------------------------------------------------- patching


def patch(module: Any) -> None:
    """``found_candidates`` (H16) or ``resolver`` (H14)."""
    if module.__name__.endswith(".found_candidates"):
        _patching.patch(module, "_iter_built", _wrap_iter_built)
        for name in ("_iter_built_with_prepended", "_iter_built_with_inserted"):
            _patching.patch(module, name, _wrap_iter_built_with_installed)
    elif module.__name__.endswith(".resolver") and hasattr(module, "Resolver"):
        _patching.patch(module.Resolver, "resolve", _wrap_resolve)




def patch_factory(module: Any) -> None:
    _patching.patch(module.Factory, "get_installation_error", _wrap_get_installation_error)
