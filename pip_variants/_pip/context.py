"""Per-finder variant state: the ``variants.json`` registry, fetching, selection.

H8 attaches a :class:`FinderContext` to each ``PackageFinder`` built by
``install``/``download``/``wheel``/``lock``; H3 hands it to every
``CandidateEvaluator`` that finder makes (as :class:`EvaluatorContext`). A
finder without one (pip-tools, the self-version check, ``pip list``) keeps
stock behaviour: variant wheels stay incompatible.

The pip objects seen here are duck-typed (``Link``, ``InstallationCandidate``,
``PipSession``): nothing is imported from pip but through :mod:`._compat`.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

from . import _compat, messages
from .state import STATE, ChosenVariant, release_key
from .wheel import split_label

if TYPE_CHECKING:  # the selection core is imported when a variant shows up
    from ..engine import Selection, VariantEngine, VariantLabelNotFound
    from ..metadata import VariantMetadata
    from .background import Background

__all__ = ["ATTR", "FinderContext", "EvaluatorContext", "Outcome", "label_of", "redact", "filename_module"]

#: Attribute name on ``PackageFinder`` and ``CandidateEvaluator`` instances
#: (neither class has ``__slots__`` in any supported release).
ATTR = "_pip_variants"

_label_cache: Dict[str, Optional[str]] = {}


def filename_module() -> Any:
    """:mod:`pip_variants.filename`, imported on first use (every pip command
    imports the hook modules; most never look at a variant name)."""
    # Absolute, unlike the rest of this package: a relative import statement
    # also runs importlib's Python code (``__spec__.parent``) on every call.
    import pip_variants.filename as filename

    return filename


def label_of(link: Any) -> Optional[str]:
    """The PEP 825 label of a wheel link, ``None`` for anything else."""
    url = link.url
    try:
        return _label_cache[url]
    except KeyError:
        pass
    label: Optional[str] = None
    filename = link.filename
    # Four dashes is a plain wheel name: decided without importing the spec model.
    if filename.endswith(".whl") and filename.count("-") != 4:
        label = split_label(filename)[1]  # a malformed label: no label (pip rejects the name)
    _label_cache[url] = label
    return label


def redact(url: str) -> str:
    from pip._internal.utils.misc import redact_auth_from_url

    return redact_auth_from_url(url)


def _newer(current: Optional[Tuple[Any, Any]], version: str, link: Any) -> Optional[Tuple[Any, Any]]:
    from pip._vendor.packaging.version import InvalidVersion, Version

    try:
        parsed = Version(version)
    except InvalidVersion:
        return current
    return (parsed, link) if current is None or parsed > current[0] else current


def link_is_remote(link: Any) -> bool:
    return link.url.startswith(("http://", "https://"))


class Outcome:
    """Variant selection for one (source, project, version)."""

    def __init__(self, metadata: "Optional[VariantMetadata]" = None, json_url: Optional[str] = None) -> None:
        self.selection: Optional[Selection] = None
        self.metadata = metadata
        self.json_url = json_url
        self.json_bytes: Optional[bytes] = None
        #: why every variant wheel of the group is ignored (missing/bad metadata)
        self.problem: Optional[str] = None
        #: ``--variant`` names a label this release does not have
        self.forced_missing: Optional[VariantLabelNotFound] = None
        #: link URL -> why that one wheel is ignored (its variant.json is bad)
        self.dropped_links: Dict[str, str] = {}
        #: another source of the release has other builds that fit, this one only
        #: its null build: that ranks below all of theirs (:meth:`FinderContext._reconcile`)
        self.null_ranks_last = False
        #: another source of the release describes its variants otherwise (``problem`` says how)
        self.conflict = False

    def rank(self, label: str) -> int:
        if self.selection is None:
            return -1
        rank = self.selection.rank(label)
        return 1 if self.null_ranks_last and rank > 0 else rank

    def fits(self, link: Any) -> bool:
        """This variant wheel of the release is one to offer (valid, compatible)."""
        return link.url not in self.dropped_links and self.rank(label_of(link) or "") > 0


class _Fetched:
    __slots__ = ("metadata", "content", "problem")

    def __init__(self, metadata: "Optional[VariantMetadata]", content: Optional[bytes],
                 problem: Optional[str]) -> None:
        self.metadata, self.content, self.problem = metadata, content, problem


def _register_abi_builds(selection: Any) -> None:
    """A release with ABI builds, whichever build is taken (a build without a
    label too): what the resolver's reports (H14, H17) name."""
    if selection.abi_sources:
        from .abi_builds import register_builds

        register_builds(selection.project, selection.version, selection.metadata)


class FinderContext:
    """Variant state of one ``PackageFinder``.

    The engine is built on first use: a pip run that meets no variant wheel
    never imports the selection core.
    """

    def __init__(self, engine: "Union[Callable[[], VariantEngine], VariantEngine]", session: Any, *,
                 command: str = "install", forced: Optional[Dict[str, str]] = None) -> None:
        self._engine = engine
        #: ``--variant`` choices, canonical name -> label (known without the engine)
        self.forced: Dict[str, str] = dict(forced or {})
        self.session = session
        self.command = command
        #: (source, canonical name, normalised version) -> the variants.json Link
        self.registry: Dict[Tuple[str, str, str], Any] = {}
        self._outcomes: Dict[Tuple[str, str, str], Outcome] = {}
        self._fetched: Dict[str, _Fetched] = {}
        self._background: "Optional[Background]" = None
        #: canonical name -> look-ahead page jobs (H19)
        self.lookahead: Dict[str, List[Any]] = {}
        #: projects whose pages pip itself has read (H2): nothing to look ahead at
        self.pages_seen: Set[str] = set()
        #: pip reads more than one index or find-links source per project (H8)
        self.several_sources = False
        #: pip's ``SearchScope`` (H8): where ``pip-variants explain`` must look too
        self.search_scope: Any = None
        #: open every local variant wheel at selection to check it against the
        #: index file (the legacy resolver, which never calls H12); otherwise
        #: H12 checks the one pip takes
        self.check_local_wheels = False
        #: the target is another machine that only ``--variant`` describes (H8):
        #: the projects it names get their label, all others stay stock
        self.only_forced = False
        #: a --variant-profile stands in for this machine (for how messages name it)
        self.profile = False
        #: the options that changed what is chosen, for the explain hint:
        #: (option, value or "", the project it is for or None for every one)
        self.choice_options: List[Tuple[str, str, Optional[str]]] = []
        #: projects pip asked the finder about (H3): ``--variant`` names no other
        self.looked_up: Set[str] = set()
        #: the namespaces of the releases' index files read: what ``--variant-disable``
        #: and ``--variant-enable`` can name (a near miss is most likely a typo)
        self.namespaces_seen: Set[str] = set()
        #: (canonical name, pip's ``Version``) -> the label H4 chose for the newest
        #: release (not ABI-dependent ones): a kept installation of another build
        #: is said. ``Version`` keys: ``1.0`` (a file name) is ``1.0.0`` (its METADATA)
        self.chosen: Dict[Tuple[str, Any], str] = {}

    def explain_command(self, project: str) -> str:
        """``pip-variants explain PROJECT`` with this command's sources, so that it
        looks where pip looked. Credentials are left out, not masked: a masked
        password would be sent, where pip's keyring or netrc has the real one."""
        from pip._internal.utils.misc import build_netloc, remove_auth_from_url

        from .._display import shell_word

        words = ["pip-variants", "explain", project]
        if self.search_scope is None:
            return " ".join(shell_word(word) for word in words + self._choice_words(project))
        indexes = list(getattr(self.search_scope, "index_urls", None) or ())
        if not indexes:
            words.append("--no-index")
        elif indexes[0].rstrip("/") != "https://pypi.org/simple":
            words += ["--index-url", remove_auth_from_url(indexes[0])]
        for url in indexes[1:]:
            words += ["--extra-index-url", remove_auth_from_url(url)]
        for place in getattr(self.search_scope, "find_links", None) or ():
            words += ["--find-links", remove_auth_from_url(place)]
        for host, port in getattr(self.session, "pip_trusted_origins", None) or ():
            words += ["--trusted-host", build_netloc(host, port)]
        return " ".join(shell_word(word) for word in words + self._choice_words(project))

    def _choice_words(self, project: str) -> List[str]:
        """What this command chose with (a profile, --variant, ...): explain must choose alike."""
        words: List[str] = []
        for option, value, of in self.choice_options:
            if of is None or of == _compat.canonical_name(project):
                words += [option, value] if value else [option]
        return words

    @property
    def engine_made(self) -> bool:
        """Was the engine built (a release with variant wheels was met)?"""
        return not callable(self._engine)

    @property
    def engine(self) -> "VariantEngine":
        if callable(self._engine):
            self._engine = self._engine()
        return self._engine

    # -- H2: collecting index files ------------------------------------------------

    def peel_index_files(self, project_name: str, links: Iterable[Any]) -> List[Any]:
        """Record this project's ``*-variants.json`` links; return the other links."""
        canonical = _compat.canonical_name(project_name)
        self.pages_seen.add(canonical)
        rest = []
        newest: Optional[Tuple[Any, Any]] = None
        for link in links:
            # Cheap test on the raw URL first: most links are wheels and sdists.
            if "-variants.json" not in link.url:
                rest.append(link)
                continue
            filename = link.filename
            if filename.endswith("-variants.json"):
                parsed = filename_module().parse_variants_json_filename(filename)
                if parsed is not None and _compat.canonical_name(parsed[0]) == canonical:
                    version = _compat.normalize_version(parsed[1], canonical)
                    if version is not None:
                        key = (_compat.link_source(link), canonical, version)
                        # First listing wins, like pip's own link de-duplication.
                        known = self.registry.setdefault(key, link)
                        if known is not link and known.filename != filename:
                            messages.warn_once(
                                f"pip-variants: {redact(key[0])} lists two index files for {project_name} "
                                f"{version}: {known.filename} and {filename}; using the first. Ask its "
                                "publisher to keep one ('pip-variants index --check' finds them)")
                        if self.several_sources:
                            newest = _newer(newest, version, self.registry[key])
                        continue
            rest.append(link)
        if (newest is not None and link_is_remote(newest[1]) and not self.is_stored(newest[1])
                and (not self.only_forced or canonical in self.forced)):
            # pip reads the next source's page meanwhile: the newest release's
            # file is the one H4 is sure to want.
            self.background.submit(newest[1].url_without_fragment, self.download_work(newest[1], canonical))
        return rest

    # -- H4: one release from one source -------------------------------------------

    def outcome(self, project: str, version: str, source: str, candidates: Sequence[Any]) -> Outcome:
        """Select among ``candidates`` (the labelled wheels of one release and source)."""
        key = (source, _compat.canonical_name(project), version)
        cached = self._outcomes.get(key)
        if cached is not None:
            return cached
        out = self._compute(project, version, key, candidates)
        self._outcomes[key] = out
        return out

    def known_outcome(self, source: str, canonical: str, version: str) -> Optional[Outcome]:
        return self._outcomes.get((source, canonical, version))

    def outcomes_across_sources(self, project: str, version: str, groups: Mapping[str, Sequence[Any]],
                                *, in_use: bool = True) -> Dict[str, Outcome]:
        """The outcome of each source (listing URL -> its labelled candidates)
        of one release, reconciled where several sources have variants that fit.

        Labels and namespaces of different indexes need not mean the same thing
        (PEP 825, "several sources"). Where only one source has variants that
        fit, its ranking stands: those wheels come before every non-variant
        wheel. Where several do, their metadata are merged under the rules a
        release's own files obey (IX-3/IX-4) and one ranking over all their
        labels replaces each source's own: ranks of separate rankings cannot be
        compared. Where they conflict, the release's variant wheels are ignored
        (the caller reports why) and its non-variant wheels remain; with
        ``--variant-strict`` that is an error once the release is ``in_use``
        (not merely looked at for ``--variant`` or ``explain``; WHEEL-VARIANTS
        App. B 7).
        """
        outcomes = {source: self.outcome(project, version, source, cands) for source, cands in groups.items()}
        if in_use and STATE.strict:
            for out in outcomes.values():
                if out.metadata is None and out.problem:  # no index file to go by: its wheels are ignored
                    from .errors import VariantInstallationError

                    raise VariantInstallationError(
                        f"pip-variants: {out.problem}; its variant wheels cannot be used "
                        "(--variant-strict makes this an error)"
                    )
        if len(outcomes) > 1:
            self._reconcile(project, version, groups, outcomes)
            if in_use:
                for out in outcomes.values():
                    if out.conflict and self.engine.settings.support.strict:
                        from .errors import VariantInstallationError

                        raise VariantInstallationError(
                            f"pip-variants: {out.problem}; use one index or find-links source for "
                            f"{project} (--variant-strict makes this an error)"
                        )
        return outcomes

    def _reconcile(self, project: str, version: str, groups: Mapping[str, Sequence[Any]],
                   outcomes: Dict[str, Outcome]) -> None:
        # A source has variants that fit only if it has a selection, hence metadata.
        fitting = [source for source, cands in groups.items()
                   if any(outcomes[source].fits(cand.link) for cand in cands)]
        if len(fitting) < 2:
            return  # one source with variants that fit
        # A null build has no properties: it disagrees with nothing, and ranks
        # below every build that fits. Sources whose only fitting build is null
        # (a CUDA index and a ROCm index, each with its CPU build) are no
        # conflict: their null ranks last, under the others' builds.
        fitting_null = [source for source in fitting
                        if all(label_of(cand.link) == "null" for cand in groups[source]
                               if outcomes[source].fits(cand.link))]
        only_null = len(fitting_null) == len(fitting)
        for source in fitting:  # set afresh: a later call may see more of a source's builds
            outcomes[source].null_ranks_last = source in fitting_null and not only_null
        if only_null:
            return  # null builds only: each as good as another, as stock pip sees equal files
        fitting = [source for source in fitting if source not in fitting_null]
        if len(fitting) < 2 or all(outcomes[s].selection is outcomes[fitting[0]].selection for s in fitting):
            return  # one source with other builds that fit, or reconciled before
        from pip_variants.engine import VariantLabelNotFound
        from pip_variants.metadata import InvalidVariantMetadata
        from pip_variants.metadata_merge import merge_metadata

        shown = ", ".join(redact(s) for s in fitting)
        try:
            parts: List[VariantMetadata] = [outcomes[s].metadata for s in fitting]  # type: ignore[misc]
            merged = merge_metadata(parts, f"{project} {version} from {shown}")
        except InvalidVariantMetadata as exc:
            problem = f"the variant metadata of {project} {version} on {shown} do not agree ({exc.message})"
            for source in fitting + fitting_null:  # non-variant wheels only, as documented
                outcomes[source].selection = None
                outcomes[source].problem = problem
                outcomes[source].conflict = True
            return
        labels: List[str] = []
        for source in fitting:
            dropped = outcomes[source].dropped_links
            for cand in groups[source]:
                label = label_of(cand.link)
                if label is not None and cand.link.url not in dropped and label not in labels:
                    labels.append(label)
        try:
            selection = self.engine.select(project, version, merged, labels)
        except VariantLabelNotFound:
            # --variant names a label of none of them: each source's own answer says so.
            return
        _register_abi_builds(selection)
        for source in fitting:
            outcomes[source].selection = selection

    def _compute(self, project: str, version: str, key: Tuple[str, str, str], candidates: Sequence[Any]) -> Outcome:
        # Absolute imports in the per-release paths: see filename_module.
        from pip_variants.engine import VariantLabelNotFound
        from pip_variants.metadata import InvalidVariantMetadata, check_consistency, load_wheel_metadata

        source = key[0]
        out = Outcome()
        json_link = self.registry.get(key)
        locals_ = [c for c in candidates if c.link.is_file]
        if json_link is not None:
            out.json_url = redact(json_link.url_without_fragment)
            fetched = self._fetch(json_link, project)
            if fetched.metadata is None:
                out.problem = fetched.problem
                return out
            out.metadata, out.json_bytes = fetched.metadata, fetched.content
            # Each wheel is checked against the index file (IX-3) once pip has
            # read it (H12): a wheelhouse of torch wheels is not opened for labels
            # that do not fit. `pip-variants explain` shows every wheel's problem.
            eager = self.check_local_wheels or os.environ.get("PIP_VARIANTS_EXPLAIN_FILE")
            for cand in locals_ if eager else ():
                label = label_of(cand.link)
                try:
                    wheel_md = load_wheel_metadata(cand.link.file_path, label or "")
                    why = check_consistency(fetched.metadata, wheel_md, label or "")
                except (InvalidVariantMetadata, OSError, zipfile.BadZipFile, KeyError) as exc:
                    why = str(exc)
                if why:
                    out.dropped_links[cand.link.url] = why
        elif candidates and len(locals_) == len(candidates):
            # PEP 825: a source that is not an index may describe its variants
            # only inside the wheels.
            parts = []
            for cand in locals_:
                label = label_of(cand.link) or ""
                try:
                    parts.append(load_wheel_metadata(cand.link.file_path, label))
                except (InvalidVariantMetadata, OSError, zipfile.BadZipFile, KeyError) as exc:
                    out.dropped_links[cand.link.url] = str(exc)
            if not parts:
                out.problem = (
                    f"no usable variant.json in the variant wheels of {project} {version} in {redact(source)}"
                )
                return out
            from pip_variants.metadata_merge import merge_metadata

            try:
                out.metadata = merge_metadata(parts, f"{redact(source)} (variant.json of the wheels)")
            except InvalidVariantMetadata as exc:
                out.problem = f"conflicting variant metadata in the wheels of {project} {version}: {exc}"
                return out
        else:
            fn = filename_module()
            expected = fn.variants_json_filename(fn.parse_wheel_filename(candidates[0].link.filename).name, version)
            out.problem = (
                f"{project} {version} has variant wheels on {redact(source)} but no {expected}"
            )
            return out
        self.namespaces_seen.update(out.metadata.namespaces)
        labels = []
        for cand in candidates:
            label = label_of(cand.link)
            if label is not None and cand.link.url not in out.dropped_links and label not in labels:
                labels.append(label)
        from pip_variants.metadata import warn_long_labels

        for label in warn_long_labels(out.metadata):
            if label in labels:  # valid under PEP 825; the 0.0.x formats allowed 16 characters
                messages.warn_once(
                    f"pip-variants: {project} {version}: label {label!r} is longer than the 16 "
                    f"characters its metadata format (0.0.x) allows; accepted as PEP 825 does"
                )
        try:
            out.selection = self.engine.select(project, version, out.metadata, labels)
        except VariantLabelNotFound as exc:
            out.forced_missing = exc
        else:
            _register_abi_builds(out.selection)
        return out

    # -- fetching -----------------------------------------------------------------

    @property
    def pool(self) -> "Optional[Background]":
        """The fetch pool if one was made."""
        return self._background

    @property
    def background(self) -> "Background":
        """The command's fetch pool (made on first use)."""
        if self._background is None:
            from .background import Background

            self._background = Background(self.session)
        return self._background

    def download_work(self, link: Any, canonical: str) -> Callable[[Any], bytes]:
        """``work(session)`` for the pool: the capped bytes of ``link``."""
        from ..metadata import MAX_METADATA_BYTES
        from .fetch import download, read_capped

        return lambda session: download(session, link, canonical, read_capped, MAX_METADATA_BYTES)

    def is_stored(self, link: Any) -> bool:
        """A pinned index file is in the store: reading it needs no request, no thread."""
        import os

        from .fetch import cache_path, link_digest

        hash_name, expected = link_digest(link)
        if not (hash_name and expected):
            return False
        path = cache_path(self.session, link.url_without_fragment, hash_name, expected)
        return path is not None and os.path.isfile(path)

    def prefetch(self, project: str, releases: Sequence[Tuple[str, str]]) -> None:
        """Fetch the index files of several ``(version, source)`` releases at
        once (newest first): H4 needs every one before pip can go on. The newest
        comes on pip's thread (credentials, prompts, keyring happen there) while
        the pool fetches the others."""
        canonical = _compat.canonical_name(project)
        links = []
        for version, source in releases:
            link = self.registry.get((source, canonical, version))
            if link is not None and link.url_without_fragment not in self._fetched and link not in links:
                links.append(link)
        if len(links) < 2:
            return
        for link in links[1:]:
            if not self.is_stored(link):
                self.background.submit(link.url_without_fragment, self.download_work(link, canonical))
        for link in links:
            self._fetch(link, project)

    def _from_background(self, link: Any, canonical: str) -> Tuple[Optional[bytes], Optional[Exception]]:
        """What a background job got for ``link``: ``(None, None)`` when pip's
        thread has to fetch it itself (no job, cancelled, 401/403, other bytes
        than the page now says)."""
        pool = self._background
        if pool is None:
            return None, None
        url = link.url_without_fragment
        job = pool.job(url)
        if job is None:
            # A look-ahead may still be reading this project's page.
            for page in self.lookahead.get(canonical, ()):
                pool.wait(page, replay=False)
            job = pool.job(url)
            if job is None:
                return None, None
        from .background import Cancelled, needs_pip_thread

        if pool.steal(job):  # queued behind others: quicker on this thread
            return None, None
        pool.wait(job)
        if job.error is not None:
            if isinstance(job.error, Exception) and not isinstance(job.error, Cancelled) \
                    and not needs_pip_thread(job.error):
                return None, job.error
            return None, None
        content = job.value
        from .fetch import link_digest

        hash_name, expected = link_digest(link)
        if hash_name and expected:
            try:
                if hashlib.new(hash_name, content).hexdigest() != expected:
                    return None, None  # fetched from an older listing: ask again
            except (ValueError, TypeError):
                pass
        return content, None

    def _fetch(self, link: Any, project: str = "") -> _Fetched:
        url = link.url_without_fragment
        done = self._fetched.get(url)
        if done is not None:
            return done
        shown = redact(url)
        canonical = _compat.canonical_name(project) if project else ""
        content, error = self._from_background(link, canonical)
        if content is None and error is None:
            try:
                content = self.download_work(link, canonical)(self.session)
            except Exception as exc:  # requests / urllib3 / OSError: all mean "missing"
                error = exc
        if error is not None or content is None:
            from .fetch import describe_failure

            result = _Fetched(None, None, f"could not fetch {shown} ({describe_failure(error)})")  # type: ignore[arg-type]
        else:
            result = self._check(link, shown, content)
        self._fetched[url] = result
        return result

    def _check(self, link: Any, shown: str, content: bytes) -> _Fetched:
        from pip_variants.metadata import MAX_METADATA_BYTES, InvalidVariantMetadata, load_metadata

        from .fetch import link_digest

        if len(content) > MAX_METADATA_BYTES:  # cut short by read_capped: no hash can match
            return _Fetched(None, None, f"invalid variant metadata: {shown}: file is over the "
                                        f"{MAX_METADATA_BYTES}-byte limit")
        hash_name, expected = link_digest(link)
        if hash_name and expected:
            try:
                actual = hashlib.new(hash_name, content).hexdigest()
            except ValueError:
                actual = None
            if actual is not None and actual != expected:
                return _Fetched(None, None, f"{shown} does not match its {hash_name} hash from the index")
        try:
            return _Fetched(load_metadata(content, shown), content, None)
        except InvalidVariantMetadata as exc:
            return _Fetched(None, None, f"invalid variant metadata: {exc}")

    # -- H9 / H10 -----------------------------------------------------------------

    def remember(self, link: Any, out: Outcome) -> None:
        from pip_variants.metadata import InvalidVariantMetadata
        from pip_variants.metadata_write import dumps
        from pip_variants.properties import format_property_set

        label = label_of(link)
        if label is None or out.metadata is None:
            return
        props = out.metadata.variants.get(label, {})
        fn = filename_module()
        try:
            parsed = fn.parse_wheel_filename(link.filename)
            name_version: Optional[Tuple[str, str]] = (parsed.name, parsed.version)
        except fn.InvalidVariantFilename:
            name_version = None
        text = None
        if out.json_bytes is None:
            try:
                text = dumps(out.metadata)
            except InvalidVariantMetadata:
                text = None
        abi = out.selection.abi.get(label, ()) if out.selection is not None else ()
        if abi:
            from .abi_builds import register_builds

            STATE.abi_links = True
            register_builds(out.selection.project, out.selection.version,  # type: ignore[union-attr]
                            out.metadata)
        STATE.chosen[link.url_without_fragment] = ChosenVariant(
            abi=abi,
            label=label,
            properties=list(format_property_set(props)),
            variants_json_url=out.json_url,
            json_bytes=out.json_bytes,
            json_text=text,
            name_version=name_version,
            supported=self._supported(out),
            metadata=out.metadata,
        )

    def _supported(self, out: Outcome) -> Any:
        """What the variant markers are evaluated against (MK-1): the set
        selection used; for a direct link (H7), the same engine's answer."""
        if out.selection is not None:
            return out.selection.supported
        if out.metadata is None:
            return None
        try:
            return self.engine.supported_for(out.metadata)[0]
        except Exception:  # a provider failed: markers then see the declared properties
            return None


class EvaluatorContext:
    """What H4/H5 need on one ``CandidateEvaluator`` (one project)."""

    def __init__(self, finder: FinderContext, project_name: str) -> None:
        self.finder = finder
        self.project = project_name
        self.canonical = _compat.canonical_name(project_name)
        #: set by H4 when the candidates include labelled wheels; H5 changes
        #: the key shape only then, so releases without variants sort as stock
        self.has_labels = False
        #: id(candidate) -> (candidate, pip's own sort key): H4 sorts again
        #: after selection, and pip's key (which parses the filename) cannot change
        self.pip_keys: Dict[int, Tuple[Any, Any]] = {}
        #: where ``candidate.version`` sat in pip's sort key last time (H5)
        self.version_at = -1
        #: id(candidate) -> (candidate, its release key): see :meth:`release_of`
        self._releases: Dict[int, Tuple[Any, Tuple[str, str]]] = {}

    def release_of(self, candidate: Any) -> Tuple[str, str]:
        """``(version, listing URL)``: the release a candidate belongs to, worked
        out once per candidate (H4 and H5 ask again and again, and ``str()`` of a
        ``Version`` rebuilds the text every time)."""
        known = self._releases.get(id(candidate))
        if known is not None and known[0] is candidate:
            return known[1]
        key = (release_key(self.canonical, candidate.version), _compat.link_source(candidate.link))
        self._releases[id(candidate)] = (candidate, key)
        return key

    def rank(self, candidate: Any) -> int:
        """H5's value: non-variant 0, ``null`` and compatible variants above, else -1."""
        label = label_of(candidate.link)
        if label is None:
            return 0
        version, source = self.release_of(candidate)
        out = self.finder.known_outcome(source, self.canonical, version)
        if out is None or candidate.link.url in out.dropped_links:
            return -1
        return out.rank(label)
