"""H19: read ahead the pages and index files of the dependencies pip is about to look up.

When the resolver learns a candidate's dependencies it looks each one up in
turn: page, then (for a variant release) ``variants.json``, then the metadata
of the wheel it picks, then the next dependency. The index file sits on that
path: pip cannot pick a wheel, so cannot fetch its metadata, before it has the
file. Called from ``iter_dependencies`` (the ``candidates`` hook composes it with
H15 and H18), this hook hands the background pool, for every dependency but the
first (pip's thread is about to fetch that one itself):

1. the project's page on each index, fetched exactly as pip fetches it
   (pip's ``_get_simple_response``, pip's session and HTTP cache);
2. the ``variants.json`` of the release pip will weigh first: the newest the
   requirement's specifier admits (pip's default pre-release rule) that lists
   a variant wheel for this interpreter and platform (older releases are
   settled only if the resolver gets to them, :mod:`.deferred`).

When pip's thread gets there, the page is in pip's HTTP cache (served as is, or
revalidated with a 304, as the pip release does) and the index file is waiting
in the pool. Only where the look-ahead cannot cost a request stock pip does not
make: a page already in pip's HTTP cache (a warm run) is left alone, and so
is a plain-http page pip does not cache (an untrusted host, which pip may not
read at all); installed projects are skipped (pip may never look them up). A
page read ahead is handed to pip (``process_project_url``), so pip makes no
request of its own for it, with or without a cache. Anything unexpected here
only skips the look-ahead.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from . import _compat, messages
from .context import ATTR, FinderContext, label_of, redact

__all__ = ["look_ahead_from", "look_ahead", "take_page"]


def look_ahead_from(candidate: Any, requirements: List[Any]) -> None:
    """Read ahead for ``candidate``'s requirements but the first (the
    ``candidates`` hook calls this once pip has listed them)."""
    try:
        _look_ahead_from(candidate, requirements)
    except Exception as exc:  # an optimisation: never a reason to fail
        messages.debug("pip-variants: look-ahead skipped: %s: %s", type(exc).__name__, exc)


def _named(requirements: Iterable[Any]) -> List[Tuple[str, Any]]:
    """``(canonical name, specifier)`` of the requirements pip looks up on an index."""
    named = []
    for req in requirements:
        lookup = getattr(req, "get_candidate_lookup", None)
        if lookup is None:
            continue
        _, ireq = lookup()
        if ireq is None or getattr(ireq, "link", None) is not None or getattr(ireq, "req", None) is None:
            continue
        named.append((_compat.canonical_name(ireq.req.name), ireq.req.specifier))
    return named


def _look_ahead_from(candidate: Any, requirements: List[Any]) -> None:
    factory = getattr(candidate, "_factory", None)
    finder = getattr(factory, "_finder", None)
    ctx: Optional[FinderContext] = getattr(finder, ATTR, None)
    if ctx is None or ctx.only_forced or not _hands_pages_over(finder):
        return  # only_forced: most projects stay stock, so their index files are not wanted
    installed = getattr(factory, "_installed_dists", None) or {}
    # pip 26.3 installing from a pylock: those projects never touch an index.
    locked = getattr(finder, "_locked_links", None) or {}
    # --refresh-package (pip 26.3): pip revalidates those pages itself.
    refresh = getattr(ctx.session, "refresh_package", None) or ()
    if ":all:" in refresh:
        return
    todo = [(name, spec) for name, spec in _named(requirements)[1:]
            if name not in installed and name not in locked and name not in refresh]
    for canonical, specifier in todo:
        look_ahead(ctx, finder, canonical, specifier)


def _hands_pages_over(finder: Any) -> bool:
    """H19's page handover is in place: a page pip would not take would be a second request."""
    from ._patching import WRAPPED_MARK

    method = getattr(type(finder), "process_project_url", None)
    return getattr(method, WRAPPED_MARK, None) is not None


def _worth_reading(session: Any, url: str) -> bool:
    """Reading this page ahead costs no request pip would not make.

    With an HTTP cache: only a page the cache holds nothing for (a warm cache
    answers pip without a request, or with a 304 the look-ahead would double).
    Without one (``--no-cache-dir``): HTTPS pages only, which pip reads from
    any host; a plain-http page without a cache is from an untrusted host,
    which pip may refuse to read at all.
    """
    adapter = session.get_adapter(url)
    cache = getattr(adapter, "cache", None)
    controller = getattr(adapter, "controller", None)
    if cache is None or controller is None:
        return url.startswith("https://")
    if not hasattr(cache, "_get_cache_path"):
        return False
    # pip's auth takes user info out of the URL before the request (and its cache key).
    from pip._internal.utils.misc import remove_auth_from_url

    return not os.path.exists(cache._get_cache_path(controller.cache_url(remove_auth_from_url(url))))


def look_ahead(ctx: FinderContext, finder: Any, canonical: str, specifier: Any) -> None:
    """Queue the look-ahead of one project (once per command)."""
    if canonical in ctx.pages_seen or canonical in ctx.lookahead:
        return
    ctx.lookahead[canonical] = []
    jobs: List[Any] = []
    for url in finder.search_scope.get_index_urls_locations(canonical):
        if not url.startswith(("http://", "https://")) or not _worth_reading(ctx.session, url):
            continue
        tags = _tag_strings(ctx, finder)
        messages.debug("pip-variants: reading ahead %s", redact(url))
        job = ctx.background.submit("page " + url, functools.partial(
            _read_page, ctx, url=url, canonical=canonical, specifier=specifier, tags=tags))
        if job is not None:
            jobs.append(job)
    ctx.lookahead[canonical] = jobs


def _tag_strings(ctx: FinderContext, finder: Any) -> "frozenset[str]":
    """``py-abi-platform`` of every tag pip accepts here, computed once."""
    cached = getattr(ctx, "_tag_strings", None)
    if cached is None:
        target = getattr(finder, "target_python", None) or getattr(finder, "_target_python", None)
        cached = frozenset(str(tag) for tag in _compat.target_tags(target))
        ctx._tag_strings = cached  # type: ignore[attr-defined]
    return cached


def _fits(filename: str, tags: "frozenset[str]") -> bool:
    from .context import filename_module

    try:
        name = filename_module().parse_wheel_filename(filename)
    except ValueError:
        return False
    return any(
        f"{py}-{abi}-{plat}" in tags
        for py in name.python_tag.split(".")
        for abi in name.abi_tag.split(".")
        for plat in name.platform_tag.split(".")
    )


class Page:
    """What a look-ahead got for a page: pip's response (whatever its status),
    or the exception the request raised."""

    __slots__ = ("response", "error")

    def __init__(self, response: Any, error: Optional[BaseException]) -> None:
        self.response, self.error = response, error


class _Recorder:
    """The worker's session, keeping the response ``_get_simple_response`` got
    even when it then raises (an HTTP error, an unexpected content type)."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self.response: Any = None

    def get(self, url: str, **kwargs: Any) -> Any:
        self.response = self._session.get(url, **kwargs)
        return self.response

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


class ReplaySession:
    """pip's session for one ``fetch_response``: the page URL is answered with
    what the look-ahead got, so that pip's own code checks, logs and words it
    (errors included) as if it had made the request; anything else goes to
    pip's session."""

    def __init__(self, session: Any, url: str, page: Page) -> None:
        self._session = session
        self._url = url
        self._page: Optional[Page] = page

    def get(self, url: str, *args: Any, **kwargs: Any) -> Any:
        page = self._page
        if page is not None and url.split("#", 1)[0] == self._url:
            self._page = None
            if page.error is not None:
                raise page.error
            return page.response
        return self._session.get(url, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def take_page(ctx: FinderContext, url: str) -> Optional[Page]:
    """What the look-ahead got for ``url``, once; ``None`` when pip should
    fetch it itself. The worker's log lines are dropped: pip's thread logs its
    own as it goes through the response."""
    pool = ctx.pool
    if pool is None:
        return None
    job = pool.job("page " + url)
    if job is None or job.served:
        return None
    job.served = True
    if pool.steal(job):  # not started yet: pip's thread is quicker on its own
        return None
    pool.wait(job, replay=False)
    return job.value if job.error is None and isinstance(job.value, Page) else None


def _read_page(ctx: FinderContext, session: Any, *, url: str, canonical: str, specifier: Any,
               tags: "frozenset[str]") -> Page:
    """On a worker: fetch the page as pip does, queue the index file pip will
    want; the page goes to pip's thread (:func:`take_page`)."""
    from pip._internal.index import collector

    recorder = _Recorder(session)
    try:
        response = collector._get_simple_response(url, session=recorder)  # type: ignore[arg-type]
    except Exception as exc:
        return Page(recorder.response, None if recorder.response is not None else exc)
    try:
        _queue_index_file(ctx, collector, response, canonical, specifier, tags)
    except Exception as exc:  # the page itself is fine: pip still gets it
        messages.debug("pip-variants: look-ahead of %s: %s: %s", redact(url), type(exc).__name__, exc)
    return Page(response, None)


def _queue_index_file(ctx: FinderContext, collector: Any, response: Any, canonical: str, specifier: Any,
                      tags: "frozenset[str]") -> None:
    from .context import filename_module

    # Index pages are not cached by link (collect_sources: cache_link_parsing=False).
    links = collector.parse_links(collector._make_index_content(response, cache_link_parsing=False))
    fn = filename_module()
    index_files: Dict[str, Any] = {}
    with_variants: Set[str] = set()
    for link in links:
        filename = link.filename
        if filename.endswith("-variants.json"):
            parsed = fn.parse_variants_json_filename(filename)
            if parsed is not None and _compat.canonical_name(parsed[0]) == canonical:
                version = _compat.normalize_version(parsed[1], canonical)
                if version is not None:
                    index_files.setdefault(version, link)
        elif (filename.endswith(".whl") and not getattr(link, "is_yanked", False)
              and label_of(link) is not None and _fits(filename, tags)):
            version = _compat.normalize_version(filename.split("-")[1], canonical)
            if version is not None:
                with_variants.add(version)
    candidates = [v for v in index_files if v in with_variants]
    from pip._vendor.packaging.version import Version

    # The release pip will weigh first; an older one is fetched if the resolver gets to it.
    for version in sorted(specifier.filter(candidates), key=Version, reverse=True)[:1]:
        link = index_files[version]
        if not ctx.is_stored(link):
            ctx.background.submit(link.url_without_fragment, ctx.download_work(link, canonical))
