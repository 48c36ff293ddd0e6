"""Getting a ``{name}-{version}-variants.json`` from an index, as cheaply as pip allows.

* A link that carries a hash (``#sha256=...``, PEP 503; ``hashes``, PEP 691)
  names immutable content: it is kept in pip's HTTP cache directory under its
  hash and served from there without a request; the hash is checked on every
  read, and a mismatch (a torn or tampered entry) means a fresh download.
* A link without a hash is fetched like pip fetches index pages in the running
  release: always revalidated up to pip 26.1 (``Cache-Control: max-age=0``), and
  from the releases with ``--refresh-package`` on, revalidated only for the
  projects that option names, otherwise served as the server's cache headers
  allow.

Everything goes through pip's own ``PipSession`` (auth, proxies, certificates,
retries, ``--timeout``, the trusted-host rules for plain-http caching); the
cache directory is the one pip's caching adapter for that URL writes to, so
``--no-cache-dir`` and untrusted plain-http hosts cache nothing here either,
and ``pip cache purge`` removes these entries with pip's own.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from typing import Any, Optional, Tuple

from .._atomic import replacing

__all__ = ["download", "cache_path", "revalidate", "STORE_DIR"]

#: Sub-directory of pip's HTTP cache directory holding verified index files.
STORE_DIR = "pip-variants"

_ACCEPT = "application/json, */*;q=0.1"


def revalidate(session: Any, canonical: str) -> bool:
    """Does pip revalidate this project's index page in this release?"""
    refresh = getattr(session, "refresh_package", None)
    if refresh is None:  # before --refresh-package: every page is revalidated
        return True
    return ":all:" in refresh or canonical in refresh


def _digest(hash_name: str, content: bytes) -> Optional[str]:
    try:
        return hashlib.new(hash_name, content).hexdigest()
    except (ValueError, TypeError):
        return None


def cache_path(session: Any, url: str, hash_name: str, expected: str) -> Optional[str]:
    """Where the verified content of a hashed link lives, ``None`` when pip caches nothing for ``url``."""
    if not hash_name.isalnum() or not expected.isalnum():
        return None
    try:
        adapter = session.get_adapter(url)
    except Exception:
        return None
    directory = getattr(getattr(adapter, "cache", None), "directory", None)
    if not isinstance(directory, str) or not directory:
        return None
    return os.path.join(directory, STORE_DIR, hash_name, expected[:2], expected)


def _read_store(path: str, hash_name: str, expected: str, limit: int) -> Optional[bytes]:
    try:
        with open(path, "rb") as f:
            content = f.read(limit + 1)
    except OSError:
        return None
    if _digest(hash_name, content) == expected:
        return content
    try:  # torn write, tampering, a disk error: forget it, download again
        os.unlink(path)
    except OSError:
        pass
    return None


def _write_store(path: str, content: bytes) -> None:
    """Atomic and best effort: a read-only or full cache must not fail the install.
    No fsync: every read checks the hash, so a torn entry is only a cache miss."""
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
        with replacing(tmp, path), os.fdopen(fd, "wb") as f:
            f.write(content)
    except OSError:
        pass


def _get(session: Any, url: str, headers: dict, read: Any) -> Tuple[bytes, bool]:
    """The capped body and whether pip's HTTP cache answered (no request made)."""
    response = session.get(url, headers=headers, stream=True)
    response.raise_for_status()
    return read(response), bool(getattr(response, "from_cache", False))


def download(session: Any, link: Any, canonical: str, read: Any, limit: int) -> bytes:
    """The bytes of ``link`` (network errors propagate: the caller words them).

    ``read(response)`` reads a streamed body with a size cap; ``limit`` is that cap.
    A returned body may still fail the caller's hash check: then the server
    (or a proxy) really serves other content than the index says.
    """
    url = link.url_without_fragment
    hash_name, expected = link.hash_name, link.hash
    if not (hash_name and expected and _digest(hash_name, b"") is not None):
        headers = {"Accept": _ACCEPT}
        if revalidate(session, canonical):
            # max-age=0 rather than no-cache: a conditional request, like pip's pages.
            headers["Cache-Control"] = "max-age=0"
        return _get(session, url, headers, read)[0]

    path = cache_path(session, url, hash_name, expected)
    if path is not None:
        content = _read_store(path, hash_name, expected, limit)
        if content is not None:
            return content
    # Immutable content: whatever pip's HTTP cache holds for the URL is good if
    # the hash agrees. Kept once, here: cachecontrol need not store (and fsync) it too.
    headers = {"Accept": _ACCEPT}
    if path is not None:
        headers["Cache-Control"] = "no-store"
    content, cached = _get(session, url, headers, read)
    if cached and _digest(hash_name, content) != expected:
        # A cached response from before the file was replaced: ask the server itself.
        content = _get(session, url, {"Accept": _ACCEPT, "Cache-Control": "no-cache"}, read)[0]
    if path is not None and _digest(hash_name, content) == expected:
        _write_store(path, content)
    return content


# -- several releases at once ------------------------------------------------------
#
# pip evaluates every applicable release of a project at once (H4), so a page
# with N variant releases needs N files before pip can order its candidates.
# The first one (the newest release) is fetched on pip's thread, as before:
# credentials, prompts and keyring all happen there. The others are fetched
# meanwhile, side by side, on daemon threads that use only the credentials pip
# already holds for the host (never a prompt or keyring call off pip's
# thread); pip's thread waits for all of them, then replays what they logged,
# in order. A thread that meets 401/403 leaves that file to pip's thread. A
# thread never outlives its wait but on Ctrl-C, where it is abandoned (daemon)
# and dies with the process.

_records: "dict[int, list]" = {}
_filter_installed: list = []


class _ThreadLogFilter:
    """Hold back records logged on a fetch thread (any logger: urllib3's retry
    warnings too) until pip's thread replays them."""

    def filter(self, record: Any) -> bool:
        if getattr(record, "_pip_variants_replayed", False):
            return True
        held = _records.get(record.thread)  # type: ignore[arg-type]
        if held is None:
            return True
        if not held or held[-1] is not record:  # once, whatever the number of handlers
            held.append(record)
        return False


def _install_log_filter() -> None:
    if _filter_installed:
        return
    import logging

    flt = _ThreadLogFilter()
    for handler in logging.getLogger().handlers:
        handler.addFilter(flt)
    _filter_installed.append(flt)


class _KnownCredentials:
    """requests auth for a fetch thread: the credentials pip already holds for
    the host, nothing else (no prompt, no keyring, no 401 handling)."""

    def __init__(self, auth: Any) -> None:
        self.auth = auth

    def __call__(self, request: Any) -> Any:
        from urllib.parse import urlsplit

        netloc = urlsplit(request.url).netloc
        known = getattr(self.auth, "passwords", None) or {}
        creds = known.get(netloc) if isinstance(known, dict) else None
        if creds and creds[0] is not None and creds[1] is not None:
            from pip._vendor.requests.auth import HTTPBasicAuth

            request = HTTPBasicAuth(creds[0], creds[1])(request)
        return request


class _ThreadSession:
    """pip's session with per-request auth replaced (everything else shared)."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._auth = _KnownCredentials(getattr(session, "auth", None))

    def get(self, url: str, **kwargs: Any) -> Any:
        return self._session.get(url, auth=self._auth, **kwargs)

    def get_adapter(self, url: str) -> Any:
        return self._session.get_adapter(url)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def _needs_pip_thread(exc: BaseException) -> bool:
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return status in (401, 403)


def download_many(session: Any, jobs: "list[Tuple[Any, str]]", read: Any, limit: int,
                  max_threads: int = 8) -> "list[Any]":
    """``download`` for each ``(link, canonical)``: bytes or the exception, in order.

    The first job runs on this thread, the others (unless cached) side by side
    with it on daemon threads.
    """
    import threading

    results: "list[Any]" = [None] * len(jobs)

    def here(i: int) -> None:
        try:
            results[i] = download(session, jobs[i][0], jobs[i][1], read, limit)
        except Exception as exc:
            results[i] = exc

    pending = []
    for i, (link, _) in enumerate(jobs[1:], 1):
        hash_name, expected = link.hash_name, link.hash
        if hash_name and expected:
            path = cache_path(session, link.url_without_fragment, hash_name, expected)
            if path is not None:
                content = _read_store(path, hash_name, expected, limit)
                if content is not None:
                    results[i] = content
                    continue
        pending.append(i)
    if not pending:
        here(0)
        return results

    _install_log_filter()
    thread_session = _ThreadSession(session)
    held: "dict[int, list]" = {}
    queue = list(reversed(pending))  # list.pop() is atomic: the workers share it

    def work() -> None:
        while True:
            try:
                i = queue.pop()
            except IndexError:
                return
            ident = threading.get_ident()
            held[i] = _records[ident] = []
            try:
                results[i] = download(thread_session, jobs[i][0], jobs[i][1], read, limit)
            except BaseException as exc:  # reported by pip's thread
                results[i] = exc
            finally:
                _records.pop(ident, None)

    # A fixed pool, however many releases a project has.
    threads = [threading.Thread(target=work, name="pip-variants-fetch", daemon=True)
               for _ in range(min(max_threads, len(pending)))]
    for thread in threads:
        thread.start()
    here(0)  # meanwhile, the newest release on pip's thread
    for thread in threads:
        thread.join()
    import logging

    for i in pending:
        for record in held.get(i, ()):
            record._pip_variants_replayed = True
            logging.getLogger(record.name).handle(record)
        if isinstance(results[i], BaseException) and _needs_pip_thread(results[i]):
            try:
                results[i] = download(session, jobs[i][0], jobs[i][1], read, limit)
            except Exception as exc:
                results[i] = exc
    return results
