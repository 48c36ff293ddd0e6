"""H18: variant environment markers in ``Requires-Dist`` (WHEEL-VARIANTS §8, PIP-HOOKS §6.11).

``Requires-Dist: cuda-lib ; variant_label == "cu128"`` and
``"nvidia :: sm_arch :: 90_real" in variant_properties`` are invalid to
stock pip. Three patches make them work, all undone by ``uninstall()``:

* **parsing**: pip's vendored tokenizer (packaging 22+, pip 24.1+) learns
  the four names. Only ``Tokenizer.__init__`` is wrapped, so that a
  tokenizer built with packaging's ``DEFAULT_RULES`` uses a copy whose
  ``VARIABLE`` rule also matches them; the shared dict is never changed.
  Metadata that stock pip rejects now parses; nothing that parsed before
  reads differently.
* **evaluating**: ``Marker.evaluate`` hands a marker that names a variant
  marker to :mod:`pip_variants.variant_markers` (set semantics, MK-3
  whitespace, PEP 825 values) and every other comparison in it to the
  unpatched ``evaluate``, one comparison at a time. Markers without
  variant names take the stock path untouched.
* **scoping**: the values come from the distribution whose dependencies
  are being listed, and only while they are listed: the resolver's
  candidates (``iter_dependencies``) use the label chosen during selection
  and the supported set computed then (MK-1); any other caller of a
  distribution's ``iter_dependencies`` (``pip check``, ``pip show``, pip's
  metadata checks) uses the ``variant.json`` in its ``.dist-info``, its
  properties filtered by what ``STATE.target_support`` says the target supports (the
  command's engine; this machine's providers for ``pip check``; every
  declared property where variants are off for the command). Outside
  those calls a variant marker sees the non-variant values (``""``, ∅).
  The requirements listed come out without their variant markers (copies):
  pip evaluates a dependency's marker again later, out of that scope
  (``match_markers``, ``pip check``, the legacy resolver), and the decision
  was already made for the right wheel.

Markers never influence selection: nothing here runs before a wheel was
chosen. On pip 23.2–24.0 (vendored packaging 21.3, a pyparsing grammar)
dependencies using variant markers cannot be parsed: they are left out, with
one warning naming the pip release and the project, instead of pip crashing.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, Dict, Iterator, List, Optional

from . import _compat, _patching, messages
from .state import STATE

__all__ = ["patch", "patch_candidates", "wrap_candidate_iter_dependencies", "current_environment", "variant_scope", "supported"]


def _names_variant(line: str) -> bool:
    """Does a ``Requires-Dist`` line use a variant marker? Only its marker
    (after ``;``) counts: a project or an extra may be named ``variant_label``.
    (variant_markers and its pattern are loaded only for lines that could.)"""
    marker = line.partition(";")[2]
    if "variant_" not in marker:
        return False
    from ..variant_markers import marker_name_re

    # an extra is tested as a quoted string (extra == "variant_label"): not a name
    return marker_name_re().search(re.sub(r"'[^']*'|\"[^\"]*\"", "", marker)) is not None


def _is_marker_name(value: Any) -> bool:
    # Every variant marker name starts with "variant_": stock markers import nothing.
    if not (isinstance(value, str) and value.startswith("variant_")):
        return False
    from ..variant_markers import MARKER_NAMES

    return value in MARKER_NAMES


class _Lazy:
    """An environment computed the first time a variant marker needs it:
    most dependency lists never name one."""

    __slots__ = ("_make", "_env")

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._env: Any = None

    def get(self) -> Any:
        if self._env is None:
            try:
                self._env = self._make()
            except Exception as exc:
                messages.internal_error("variant markers (reading the chosen variant)", exc)
                from ..variant_markers import NON_VARIANT

                self._env = NON_VARIANT
        return self._env


#: innermost last; pip resolves in one thread
_stack: List[_Lazy] = []


def current_environment() -> Any:
    """The ``VariantEnvironment`` whose dependencies are being listed now."""
    if _stack:
        return _stack[-1].get()
    from ..variant_markers import NON_VARIANT

    return NON_VARIANT


def variant_scope(make: Callable[[], Iterator[Any]], scope: _Lazy) -> Iterator[Any]:
    """Run the (possibly lazy) iterator ``make()`` with ``scope`` active,
    only while its own code runs: pip's resolver pulls dependencies lazily."""
    _stack.append(scope)
    try:
        it = iter(make())
    finally:
        _stack.pop()
    while True:
        _stack.append(scope)
        try:
            item = next(it)
        except StopIteration:
            return
        finally:
            _stack.pop()
        yield item


_VENDORED: List[Any] = []


def supported() -> Optional[_compat.VendoredMarkers]:
    """Can this pip parse variant markers (pip 24.1+, not debundled)?"""
    if not _VENDORED:
        _VENDORED.append(_compat.vendored_markers())
    return _VENDORED[0]


# -- values ----------------------------------------------------------------------------


def _installed_environment(dist: Any) -> Any:
    """A distribution's own ``variant.json`` (PEP 825 keeps it in ``.dist-info``),
    its properties filtered to what the target supports, as at selection (MK-1):
    the same dependencies before and after the install, and on the next one."""
    from ..variant_markers import NON_VARIANT, VariantEnvironment
    from .wheel_install import installed_variant_json

    text = installed_variant_json(dist)
    if not text:
        return NON_VARIANT
    from ..metadata import InvalidVariantMetadata, load_metadata

    try:
        md = load_metadata(text, f"variant.json of {getattr(dist, 'canonical_name', 'a distribution')}")
    except InvalidVariantMetadata as exc:
        messages.warn_once(f"pip-variants: {exc}; its variant markers see a non-variant wheel")
        return NON_VARIANT
    if len(md.variants) != 1:
        return NON_VARIANT
    (label, props), = md.variants.items()
    return VariantEnvironment.for_wheel(label, props, _target_support(md) if props else None)


def _target_support(metadata: Any) -> Any:
    """What the target supports for an installed wheel's namespaces: the
    command's engine (``install``, ``download``, ``wheel``), otherwise this
    machine's providers through the detection cache (``pip check``, ``pip
    show``); ``None`` (every declared value counts) when they cannot say."""
    try:
        if STATE.target_support is None:
            resolver = _machine_resolver()
            STATE.target_support = lambda md: resolver.supported_for(md)[0]
        return STATE.target_support(metadata)
    except Exception as exc:  # a provider failed: the declared values, as before
        messages.debug(f"pip-variants: variant markers of an installed wheel see every declared value ({exc})")
        return None


def _machine_resolver() -> Any:
    """This machine's providers, for commands that select nothing (``pip
    check``); ``PIP_VARIANT_PROFILE`` describes the target instead where set."""
    import os

    from ..support import SupportResolver

    return SupportResolver.for_profile_path(os.environ.get("PIP_VARIANT_PROFILE", "").strip())


def _candidate_environment(candidate: Any) -> Any:
    from ..variant_markers import NON_VARIANT, VariantEnvironment
    from .context import label_of

    base = getattr(candidate, "base", None)
    if base is not None:  # ExtrasCandidate
        return _candidate_environment(base)
    link = getattr(candidate, "source_link", None) or getattr(candidate, "_link", None)
    if link is not None:
        label = label_of(link)
        if label is None:
            return NON_VARIANT
        chosen = STATE.chosen.get(link.url_without_fragment)
        if chosen is not None and chosen.label == label:
            from ..properties import VariantProperty

            declared: dict = {}
            for text in chosen.properties:
                p = VariantProperty.parse(text)
                declared.setdefault(p.namespace, {}).setdefault(p.feature, []).append(p.value)
            return VariantEnvironment.for_wheel(label, declared, chosen.supported)
    return _installed_environment(candidate.dist)


# -- patches ---------------------------------------------------------------------------


def _wrap_tokenizer_init(vm: _compat.VendoredMarkers) -> Callable[[Any], Any]:
    rules = vm.default_rules
    extended: Dict[str, Any] = {}
    failed: List[BaseException] = []

    def extend() -> Dict[str, Any]:
        # Compiled on the first marker pip parses, not when pip starts.
        from ..variant_markers import MARKER_NAME_PATTERN

        stock = rules["VARIABLE"]
        pattern = stock if isinstance(stock, str) else stock.pattern
        flags = re.VERBOSE if isinstance(stock, str) else stock.flags
        out = dict(rules)
        out["VARIABLE"] = re.compile(
            r"(?:" + MARKER_NAME_PATTERN + r")|(?:" + pattern + r")", flags
        )
        return out

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def __init__(self: Any, source: str, *args: Any, **kwargs: Any) -> None:
            # Without "variant_" in the text the stock rules tokenize it the same:
            # most requirements never pay for the extended rule (or its compile).
            if "variant_" in source and kwargs.get("rules") is rules and not STATE.stepped_aside:
                if not extended and not failed:
                    try:
                        extended.update(extend())
                    except Exception as exc:  # a module of ours gone: pip's own rules
                        failed.append(exc)
                        messages.internal_error("Tokenizer.__init__", exc)
                if extended:
                    kwargs["rules"] = extended
            original(self, source, *args, **kwargs)

        return __init__

    return make


def _mentions(tree: Any, variable: Any) -> bool:
    for item in tree:
        if isinstance(item, list):
            if _mentions(item, variable):
                return True
        elif isinstance(item, tuple):
            for node in (item[0], item[2]):
                if isinstance(node, variable) and _is_marker_name(node.value):
                    return True
    return False


def _is_pip_marker_error(exc: Exception) -> bool:
    """Errors pip's vendored packaging raises for a marker (e.g. an undefined
    environment name): they belong to pip, not to a bug of ours."""
    return type(exc).__module__.startswith("pip._vendor.packaging")


def _wrap_evaluate(vm: _compat.VendoredMarkers) -> Callable[[Any], Any]:
    marker_cls, variable = vm.marker_cls, vm.variable_cls

    def make(original: Callable[..., Any]) -> Callable[..., Any]:
        def evaluate(self: Any, environment: Any = None, *args: Any, **kwargs: Any) -> bool:
            try:
                tree = getattr(self, "_markers", None)
                ours = bool(tree) and not STATE.stepped_aside and _mentions(tree, variable)
            except Exception as exc:  # an unexpected tree shape: pip decides alone
                messages.internal_error("Marker.evaluate", exc)
                ours = False
            if not ours:
                return bool(original(self, environment, *args, **kwargs))
            try:
                from ..variant_markers import MARKER_NAMES, InvalidVariantComparison, compare

                env = current_environment()
            except Exception as exc:  # a module of ours gone: pip decides alone
                messages.internal_error("Marker.evaluate", exc)
                return bool(original(self, environment, *args, **kwargs))

            def atom(item: Any) -> bool:
                lhs, op, rhs = item
                if isinstance(lhs, variable) and lhs.value in MARKER_NAMES:
                    return compare(lhs.value, str(op.value), str(rhs.value), True, env)
                if isinstance(rhs, variable) and rhs.value in MARKER_NAMES:
                    return compare(rhs.value, str(op.value), str(lhs.value), False, env)
                single = marker_cls.__new__(marker_cls)
                single._markers = [item]
                return bool(original(single, environment, *args, **kwargs))

            def walk(items: Any) -> bool:
                groups: List[List[bool]] = [[]]
                for item in items:
                    if isinstance(item, list):
                        groups[-1].append(walk(item))
                    elif isinstance(item, tuple):
                        groups[-1].append(atom(item))
                    elif item == "or":
                        groups.append([])
                return any(all(g) for g in groups)

            try:
                return walk(tree)
            except InvalidVariantComparison as exc:
                messages.warn_once(f"pip-variants: invalid variant marker {str(self)!r} ({exc}); taken as false")
                return False
            except Exception as exc:
                if _is_pip_marker_error(exc):
                    raise  # pip's own verdict on the non-variant part, as stock pip gives it
                messages.internal_error("Marker.evaluate", exc)
                return bool(original(self, environment, *args, **kwargs))

        return evaluate

    return make


def _wrap_dist_iter_dependencies(original: Callable[..., Any], *, cached_by_backend: bool = False) -> Callable[..., Any]:
    """``cached_by_backend``: pkg_resources evaluates every marker once per
    distribution and caches the result (its ``_dep_map``, first built when
    pip merely lists the extras, outside any scope), so a distribution whose
    metadata names variant markers is read from ``Requires-Dist`` here."""

    def iter_dependencies(self: Any, extras: Any = ()) -> Any:
        try:
            made = _with_variant_markers(self, extras, original, cached_by_backend)
        except Exception as exc:  # a module of ours gone, a bug: pip's own list
            messages.internal_error("Distribution.iter_dependencies", exc)
            made = None
        # pip's own call stays outside the try: its errors are pip's to report
        return original(self, extras) if made is None else made

    return iter_dependencies


def _with_variant_markers(dist: Any, extras: Any, original: Callable[..., Any], cached_by_backend: bool) -> Any:
    """The requirements as pip-variants reads them, or ``None``: pip's own
    (``original`` is only called lazily, by the iterator returned)."""
    vm = supported()
    if vm is None:
        return _without_variant_markers(dist, extras)
    # A resolver candidate may already have set the values (the chosen wheel's).
    scope = _stack[-1] if _stack else _Lazy(lambda: _installed_environment(dist))
    make: Callable[[], Any] = lambda: original(dist, extras)  # noqa: E731
    if cached_by_backend:
        raw = _raw_requires(dist)
        if raw is not None and any(_names_variant(line) for line in raw):
            make = lambda: _requirements(raw, extras, keep_variant=True)  # noqa: E731
    return _decided(variant_scope(make, scope), vm.variable_cls)


def _raw_requires(dist: Any) -> Optional[List[str]]:
    try:
        return list(dist.metadata.get_all("Requires-Dist") or [])
    except Exception:
        return None


def _requirements(raw: List[str], extras: Any, *, keep_variant: bool) -> List[Any]:
    """pip's own reading of ``Requires-Dist`` (its importlib backend's rules)."""
    from pip._vendor.packaging.requirements import Requirement

    contexts = [{"extra": e} for e in extras]
    out = []
    for line in raw:
        if not keep_variant and _names_variant(line):
            continue
        req = Requirement(line.strip())
        if not req.marker:
            out.append(req)
        elif not extras and req.marker.evaluate({"extra": ""}):
            out.append(req)
        elif any(req.marker.evaluate(c) for c in contexts):
            out.append(req)
    return out


def _decided(requirements: Iterator[Any], variable: type) -> Iterator[Any]:
    """The requirements with their variant markers dropped once they held.

    pip evaluates a dependency's marker again later (``match_markers`` when
    it builds the requirement, ``pip check``'s missing-dependency test, the
    legacy resolver), outside the scope of the distribution it came from.
    A requirement listed here already passed for that distribution, so a
    copy without the marker carries exactly that decision. pip's parsed
    requirements are cached and shared: only copies are changed.
    """
    import copy

    for req in requirements:
        marker = getattr(req, "marker", None)
        if marker is not None and _mentions(getattr(marker, "_markers", ()), variable):
            req = copy.copy(req)
            req.marker = None
        yield req


def _without_variant_markers(dist: Any, extras: Any) -> Optional[List[Any]]:
    """pip 23.2–24.0: leave out what pip cannot parse, with one warning, instead
    of crashing; ``None`` (pip's own list) where nothing names a variant marker."""
    raw = _raw_requires(dist)
    if raw is None:
        return None
    skipped = [line.strip() for line in raw if _names_variant(line)]
    if not skipped:
        return None
    wanted = {_compat.canonical_name(str(e)) for e in (extras or ())}
    # a dependency of an extra nobody asked for is left out anyway: not worth a word
    said = [line for line in skipped if not _extras_named(line) or _extras_named(line) & wanted]
    from pip._vendor.packaging.requirements import InvalidRequirement

    try:
        kept = _requirements(raw, extras, keep_variant=False)
    except InvalidRequirement:
        return None  # broken for other reasons too: pip's own handling
    except Exception as exc:
        if _is_pip_marker_error(exc):
            return None  # (an undefined environment name): pip's own verdict
        raise
    name = dist.metadata.get("Name") or getattr(dist, "canonical_name", "?")
    version = dist.metadata.get("Version") or ""
    # pip asks for a release's dependencies without extras, then with them:
    # the second warning names only what the first did not
    reported = STATE.unread_markers_said.setdefault((_compat.canonical_name(str(name)), version), set())
    names: List[str] = []
    for line in said:
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
        if m and m.group(1) not in names and m.group(1) not in reported:
            names.append(m.group(1))
    also = "also " if reported and names else ""
    reported.update(names)
    if _compat.debundled():
        why = (f"which this debundled pip {_compat.pip_release()} cannot read (pip-variants does not "
               "change the system's packaging it uses)")
        fix = "Use a pip with its own vendored packaging (python -m pip install --upgrade pip in a venv)"
    else:
        why = f"which pip {_compat.pip_release()} cannot read (it needs pip 24.1 or newer)"
        fix = "Upgrade pip: python -m pip install --upgrade pip"
    if names:
        messages.warn_once(
            f"pip-variants: {name} {version} {also}has dependencies with variant environment markers "
            f"({', '.join(names)}), {why}; pip leaves those dependencies out. {fix}"
        )
    return kept


@functools.lru_cache(maxsize=None)
def _extra_test() -> "re.Pattern[str]":
    # Compiled on first use: only releases with variant markers get here.
    return re.compile(r"""\bextra\s*==\s*["']([^"']+)["']""")


def _extras_named(line: str) -> "set[str]":
    """The extras a ``Requires-Dist`` line's marker tests for (``extra == "gpu"``)."""
    return {_compat.canonical_name(m) for m in _extra_test().findall(line.partition(";")[2])}


def wrap_candidate_iter_dependencies(original: Callable[..., Any]) -> Callable[..., Any]:
    def iter_dependencies(self: Any, with_requires: bool) -> Any:
        if supported() is None:
            return original(self, with_requires)
        return variant_scope(lambda: original(self, with_requires), _Lazy(lambda: _candidate_environment(self)))

    return iter_dependencies


def _teach_packaging() -> None:
    vm = supported()
    if vm is None:
        return
    _patching.patch(vm.tokenizer_cls, "__init__", _wrap_tokenizer_init(vm))
    _patching.patch(vm.marker_cls, "evaluate", _wrap_evaluate(vm))


def patch_candidates(module: Any) -> None:
    """The resolver's candidates (called by the ``candidates`` hook, H12).

    ``_InstallRequirementBackedCandidate.iter_dependencies`` is also wrapped by
    the ABI hook (H15): the candidates hook patches it once with both wrappers,
    :func:`wrap_candidate_iter_dependencies` innermost."""
    for cls_name in ("AlreadyInstalledCandidate", "ExtrasCandidate"):
        cls = getattr(module, cls_name, None)
        if cls is not None:
            _patching.patch(cls, "iter_dependencies", wrap_candidate_iter_dependencies)
    _teach_packaging()


def _abi_builds(original: Callable[..., Any]) -> Callable[..., Any]:
    """H15's wrapper of a distribution's requirements, its module loaded the
    first time pip asks for them (``pip list`` and ``freeze`` never do)."""
    wrapped: List[Callable[..., Any]] = []

    def iter_dependencies(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not wrapped:
            from .abi_resolution import wrap_dist_iter_dependencies

            wrapped.append(wrap_dist_iter_dependencies(original))
        return wrapped[0](self, *args, **kwargs)

    return iter_dependencies


def patch(module: Any) -> None:
    """The metadata backends: ``importlib._dists``, ``pkg_resources``."""
    cls = getattr(module, "Distribution", None)
    if cls is not None:
        cached = module.__name__.endswith(".pkg_resources")
        # The ABI hook (H15) adds an installed ABI build's requirement after
        # the markers were evaluated: one patch holds both.
        _patching.patch(cls, "iter_dependencies", lambda original: _abi_builds(
            _wrap_dist_iter_dependencies(original, cached_by_backend=cached)))
    _teach_packaging()
