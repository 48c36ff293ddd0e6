"""The selection engine: one object that the pip hooks and the CLI ask.

``VariantEngine.select(project, version, metadata, labels)`` resolves what the
target supports (:mod:`pip_variants.support`), ranks the labels
(:mod:`pip_variants.selection`) and applies the user's explicit choice. Pure
Python, no pip imports: pip's objects stay in :mod:`pip_variants._pip`.
"""

from __future__ import annotations

from dataclasses import field, replace
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterable, Iterator, Mapping, Optional, Sequence, Tuple

from ._record import record
from .filename import NULL_LABEL, canonicalize_name
from .metadata import VariantMetadata
from .properties import Supported, format_property_set
from .selection import (PROFILE_HOLDER, Preferences, Ranking, Rejection, find_incompatibility, held_by_profile,
                        matching_properties, rank_variants)
from .support import NamespaceSupport, PluginInstaller, StrictVariantError, SupportResolver, SupportSettings

if TYPE_CHECKING:  # abi.py is imported only for a release with an ABI namespace
    from .abi import AbiRequirement, AbiSource

__all__ = [
    "VariantSettings",
    "VariantEngine",
    "Selection",
    "VariantError",
    "VariantLabelNotFound",
    "StrictVariantError",
    "parse_forced",
    "parse_excluded",
    "parse_allowed_plugins",
    "as_answered",
]


class VariantError(Exception):
    """A user-facing variant error (pip reports it without a traceback)."""


class VariantLabelNotFound(VariantError):
    def __init__(self, project: str, version: str, label: str, available: Sequence[str]) -> None:
        self.project, self.version, self.label, self.available = project, version, label, tuple(available)
        super().__init__(self.worded(f"--variant {project}={label}"))

    def worded(self, option: str) -> str:
        """The message, naming the request as ``option`` (an option or a variable) put it."""
        offered = ", ".join(sorted(self.available)) or "none"
        return (f"{self.project} {self.version} has no variant labelled {self.label!r} "
                f"(requested with {option}); available labels: {offered}")


def _name_label_pairs(items: Iterable[str], option: str) -> Iterator[Tuple[str, str]]:
    from .filename import LABEL_RE

    for item in items:
        for word in item.split():
            name, sep, label = word.partition("=")
            if not sep or not name or not LABEL_RE.match(label):
                why = "expected NAME=LABEL, e.g. torch=cu128"
                if sep and name and label and LABEL_RE.match(label.lower()):
                    why = f"a variant label is lower case ({name}={label.lower()})"
                elif sep and name and label:
                    why = "a variant label has only the characters 0-9, a-z, '_' and '.'"
                raise VariantError(f"invalid {option} value {word!r}: {why}")
            yield canonicalize_name(name), label


def parse_forced(items: Iterable[str]) -> Dict[str, str]:
    """``["torch=cu128", "numpy=x86_64_v3"]`` -> ``{"torch": "cu128", ...}``."""
    return dict(_name_label_pairs(items, "--variant"))


def parse_excluded(items: Iterable[str]) -> Dict[str, Tuple[str, ...]]:
    """``--variant-exclude`` values: ``["torch=cu126 torch=cu128"]`` -> ``{"torch": ("cu126", "cu128")}``."""
    out: Dict[str, Tuple[str, ...]] = {}
    for name, label in _name_label_pairs(items, "--variant-exclude"):
        if label not in out.get(name, ()):
            out[name] = out.get(name, ()) + (label,)
    return out


#: NAME (PEP 508) or NAME==VERSION (one exact version)
_PLUGIN_ALLOWANCE = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:==[A-Za-z0-9][A-Za-z0-9.+!_-]*)?"


def parse_allowed_plugins(items: Iterable[str]) -> Tuple[str, ...]:
    """``--allow-variant-plugin`` values: ``NAME`` or ``NAME==VERSION``, nothing else.

    A range or an extra would not mean what it says (the metadata's own
    requirement decides the range), so it is refused rather than ignored."""
    import re  # (only where the option is given)

    from packaging.version import InvalidVersion, Version

    for item in items:
        text = item.strip()
        version = text.partition("==")[2]
        try:
            valid = bool(re.fullmatch(_PLUGIN_ALLOWANCE, text)) and (not version or bool(Version(version)))
        except InvalidVersion:
            valid = False
        if not valid:
            head = re.split(r"[^A-Za-z0-9._-]", text, maxsplit=1)[0]
            hint = f"; to trust any version the metadata allows: --allow-variant-plugin {head}" if head else ""
            raise VariantError(f"invalid --allow-variant-plugin value {item!r}: expected NAME or NAME==VERSION "
                               f"(one exact version){hint}")
    return tuple(items)


def parse_namespaces(items: Iterable[str], option: str, *, also: Tuple[str, ...] = ()) -> Tuple[str, ...]:
    """``--variant-disable`` / ``--variant-enable`` values (``also``: other words the option takes)."""
    from .properties import NAMESPACE_RE

    for item in items:
        if item in also or NAMESPACE_RE.match(item):
            continue
        fix = item.strip().lower().replace("-", "_")
        hint = f"; did you mean {fix!r}?" if NAMESPACE_RE.match(fix) else ""
        raise VariantError(f"invalid {option} value {item!r}: a variant namespace has only the characters "
                           f"a-z, 0-9 and '_'{hint}")
    return tuple(items)


@record
class VariantSettings:
    enabled: bool = True
    forced: Mapping[str, str] = field(default_factory=dict)
    preferences: Preferences = Preferences()
    excluded: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)
    support: SupportSettings = SupportSettings()


@record
class Selection:
    """The outcome for one release: the labels to try, best first."""

    project: str
    version: str
    metadata: VariantMetadata
    ranking: Ranking
    supported: Supported
    answers: Tuple[NamespaceSupport, ...]
    forced: Optional[str] = None
    forced_problem: Optional[Rejection] = None
    #: label -> what its ABI-dependency properties require of the resolver
    abi: Mapping[str, Tuple[AbiRequirement, ...]] = field(default_factory=dict)
    #: namespaces whose notice goes unsaid (``pip-variants explain`` still
    #: lists them): optional ones left off that could not change the choice,
    #: and those the user turned off (``--variant-disable``: asked for, not news)
    quiet: Tuple[str, ...] = ()

    @property
    def abi_sources(self) -> Tuple[AbiSource, ...]:
        return tuple(s for a in self.answers for s in a.abi_sources)

    @property
    def order(self) -> Tuple[str, ...]:
        return (self.forced,) if self.forced is not None else self.ranking.order

    @property
    def rejected(self) -> Mapping[str, Rejection]:
        if self.forced is None:
            return self.ranking.rejected
        others = {l: r for l, r in self.ranking.rejected.items() if l != self.forced}
        for label in self.ranking.order:
            if label != self.forced:
                others[label] = Rejection(label, "excluded", detail=f"--variant chose {self.forced!r}")
        return others

    def rank(self, label: Optional[str]) -> int:
        """Sort value for pip: higher is better; non-variant 0; a label not allowed -1."""
        if label is None:
            return 0
        order = self.order
        if label not in order:
            return -1
        return 1 + len(order) - order.index(label)

    @property
    def notices(self) -> Tuple[str, ...]:
        return tuple(a.notice for a in self.answers if a.notice and a.namespace not in self.quiet)

    def describe(self, label: str, version: Optional[str] = None) -> str:
        """``torch 2.9.0: variant cu128 (nvidia :: sm_arch :: 90_real, ...)``
        (``version``: as the wheel spells it, where not as the release's key does)."""
        # What this target matched, not every GPU or CPU level the build also serves.
        shown = format_property_set(matching_properties(self.metadata.variants.get(label, {}), self.supported))
        if label == NULL_LABEL:
            why = "the null variant"
            if self.forced != label and not any(l != NULL_LABEL for l in self.order):
                # Where others fit, something after the ranking (hash pins) set them aside.
                rejected = self.ranking.rejected.values()
                excluded = any(r.reason == "excluded" for r in rejected)
                unfit = [r.holder for r in rejected if r.reason == "unsupported"]
                holder = unfit[0] if unfit else PROFILE_HOLDER if _profiled(self.answers) else "this machine"
                if not rejected:
                    why += ": the only variant on offer"
                elif excluded and not unfit:
                    why += ": --variant-exclude left out every other variant"
                elif excluded:
                    why += f": no other variant fits {holder} or was left by --variant-exclude"
                else:
                    why += f": no other variant fits {holder}"
        else:
            why = ", ".join(shown[:4]) + (", ..." if len(shown) > 4 else "")
        extra = " (chosen with --variant)" if self.forced == label else ""
        return f"{self.project} {version or self.version}: variant {label} ({why}){extra}"


def _profiled(answers: Iterable[NamespaceSupport]) -> FrozenSet[str]:
    """The namespaces a ``--variant-profile`` answered (the others: this machine, the release, ...)."""
    return frozenset(a.namespace for a in answers if a.source == "profile")


def as_answered(rejection: Rejection, answers: Sequence[NamespaceSupport]) -> Rejection:
    """``rejection`` worded by who answered its namespace, not "this machine":
    the user who turned it off (``--variant-disable``, an optional namespace),
    the version of an ABI dependency that was seen, or the variant profile."""
    if rejection.reason != "unsupported":
        return rejection
    answer = next((a for a in answers if a.namespace == rejection.namespace), None)
    if answer is not None and answer.source == "disabled" and answer.notice:
        return replace(rejection, supported=(), detail=answer.notice)
    if answer is not None and answer.abi_sources:
        project = canonicalize_name(rejection.feature)
        source = next((s for s in answer.abi_sources if s.project == project and s.version is not None), None)
        if source is not None:
            return replace(rejection, supported=(), detail=source.describe())
    return held_by_profile(rejection, _profiled(answers))


def _static_view(metadata: VariantMetadata, rejection: Rejection, supported: Supported) -> Rejection:
    """A label rejected by a namespace whose support is the release's own static
    list: the release contradicts itself, this machine is not the reason."""
    info = metadata.providers.get(rejection.namespace) if rejection.reason == "unsupported" else None
    if info is None or info.static_properties is None:
        return rejection
    static = dict(info.static_properties)
    if {f: tuple(v) for f, v in supported.get(rejection.namespace, {}).items()} != static:
        return rejection  # disabled, optional or enable-if false: not the static list's doing
    listed = ", ".join(static.get(rejection.feature, ())) or "nothing"
    return replace(rejection, supported=(), detail=(
        f"the release's own static properties list {listed} for '{rejection.namespace} :: {rejection.feature}' "
        "(its metadata contradicts itself)"))


def _abi_requirements(metadata: VariantMetadata, ranking: Ranking, answers: Sequence[NamespaceSupport],
                      forced: Optional[str]) -> Dict[str, Tuple[AbiRequirement, ...]]:
    """What the allowed labels require of their ABI dependencies (their
    rejections say which version was seen: :func:`as_answered`)."""
    from .abi import requirements_for

    sources = {(a.namespace, s.project): s for a in answers for s in a.abi_sources}
    namespaces = {a.namespace for a in answers}
    abi: Dict[str, Tuple[AbiRequirement, ...]] = {}
    for label in ranking.order + ((forced,) if forced else ()):
        props = metadata.variants.get(label, {})
        reqs: Tuple[AbiRequirement, ...] = ()
        for ns in namespaces:
            binding = {f: v for f, v in props.get(ns, {}).items()
                       if (src := sources.get((ns, canonicalize_name(f)))) is not None and src.binds}
            reqs += requirements_for(binding)
        if reqs:
            abi[label] = reqs
    return abi


class VariantEngine:
    def __init__(self, settings: VariantSettings = VariantSettings(),
                 plugin_installer: Optional[PluginInstaller] = None) -> None:
        self.settings = settings
        self.resolver = SupportResolver(settings.support, plugin_installer)

    def supported_for(self, metadata: VariantMetadata) -> Tuple[Supported, Tuple[NamespaceSupport, ...]]:
        supported, answers = self.resolver.supported_for(metadata)
        return supported, tuple(answers)

    def select(self, project: str, version: str, metadata: VariantMetadata,
               labels: Optional[Iterable[str]] = None) -> Selection:
        """Rank ``labels`` (default: all in the metadata) for this target.

        Raises :class:`VariantLabelNotFound` when ``--variant`` names a label
        the release does not have, and :class:`StrictVariantError` in strict mode.
        """
        labels = list(metadata.variants) if labels is None else list(labels)
        try:
            supported, answers = self.supported_for(metadata)
        except StrictVariantError as exc:
            raise StrictVariantError(f"{project} {version}: {exc}") from None
        name = canonicalize_name(project)
        ranking = rank_variants(
            metadata, supported, labels, self.settings.preferences, self.settings.excluded.get(name, ())
        )
        forced = self.settings.forced.get(name)
        problem = None
        if forced is not None:
            if forced not in metadata.variants or forced not in labels:
                available = [l for l in labels if l in metadata.variants]
                raise VariantLabelNotFound(project, version, forced, available)
            problem = find_incompatibility(forced, metadata.variants[forced], supported)
            if problem is not None:
                problem = _static_view(metadata, as_answered(problem, answers), supported)
        if ranking.rejected:
            ranking = Ranking(ranking.order, {label: _static_view(metadata, as_answered(rej, answers), supported)
                                              for label, rej in ranking.rejected.items()})
        quiet: Tuple[str, ...] = ()
        if any(a.source == "disabled" and a.notice for a in answers):
            quiet = self._moot_optional_namespaces(metadata, supported, answers, labels, name, ranking, forced)
            quiet += self.disabled_by_user(answers)
        abi: Dict[str, Tuple[AbiRequirement, ...]] = {}
        abi_answers = [a for a in answers if a.abi_sources]
        if abi_answers:
            abi = _abi_requirements(metadata, ranking, abi_answers, forced)
        return Selection(project, version, metadata, ranking, supported, answers, forced, problem, abi, quiet)

    def disabled_by_user(self, answers: Iterable[NamespaceSupport]) -> Tuple[str, ...]:
        """The namespaces of ``answers`` that ``--variant-disable`` turned off."""
        return tuple(a.namespace for a in answers
                     if a.source == "disabled" and a.namespace in self.settings.support.disabled)

    def _moot_optional_namespaces(
        self, metadata: VariantMetadata, supported: Supported, answers: Tuple[NamespaceSupport, ...],
        labels: Sequence[str], name: str, ranking: Ranking, forced: Optional[str],
    ) -> Tuple[str, ...]:
        """The optional namespaces left off whose enabling could not change the
        choice. Under ``--variant`` the user chose: all. Otherwise all are ranked
        as if enabled together and supporting every value their variants declare:
        if the best build stays the same, none matters (where a build lacks a
        namespace's properties, what that namespace's provider answers cannot
        reorder it against builds that have them); if another wins, the
        namespaces it needs matter and the rest do not."""
        off = [a.namespace for a in answers
               if a.source == "disabled" and a.notice and metadata.provider(a.namespace).optional
               and a.namespace not in self.settings.support.disabled]
        if not off or forced is not None:
            return tuple(off)
        optimistic: Dict[str, Mapping[str, Tuple[str, ...]]] = dict(supported)
        for ns in off:
            declared: Dict[str, Tuple[str, ...]] = {}
            for props in metadata.variants.values():
                for feature, values in props.get(ns, {}).items():
                    declared[feature] = tuple(dict.fromkeys(declared.get(feature, ()) + tuple(values)))
            optimistic[ns] = declared
        best = rank_variants(metadata, optimistic, labels, self.settings.preferences,
                             self.settings.excluded.get(name, ())).order[:1]
        if best == ranking.order[:1]:
            return tuple(off)
        needed = metadata.variants.get(best[0], {}) if best else {}
        return tuple(ns for ns in off if ns not in needed)

    def check_wheel(self, project: str, metadata: VariantMetadata, label: str) -> Optional[Rejection]:
        """Is a single local variant wheel of ``project`` usable here? ``None`` when it is.

        A label the user forced for this project with ``--variant`` is accepted
        as an explicit choice, supported or not.
        """
        if label not in metadata.variants:
            return Rejection(label, "invalid", detail=metadata.invalid_labels.get(label, "label not described"))
        if self.settings.forced.get(canonicalize_name(project)) == label:
            return None
        supported, answers = self.supported_for(metadata)
        problem = find_incompatibility(label, metadata.variants[label], supported)
        return None if problem is None else as_answered(problem, answers)
