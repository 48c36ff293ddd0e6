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
import re
import stat
import tempfile
from typing import Any, Optional, Tuple

from . import messages


__all__ = ["download", "cache_path", "link_digest", "read_store", "revalidate", "STORE_DIR"]

#: Sub-directory of pip's HTTP cache directory holding verified index files.
STORE_DIR = "pip-variants"

_ACCEPT = "application/json, */*;q=0.1"


def revalidate(session: Any, canonical: str) -> bool:
    """Does pip revalidate this project's index page in this release?"""
    refresh = getattr(session, "refresh_package", None)
    if refresh is None:  # before --refresh-package: every page is revalidated
        return True
    return ":all:" in refresh or canonical in refresh


def link_digest(link: Any) -> Tuple[Optional[str], Optional[str]]:
    """``(hash name, hex digest)`` a link carries, the digest in lower case as
    pip compares it (an index may write ``#sha256=ABC...``)."""
    digest = link.hash
    return link.hash_name, digest.lower() if digest else digest


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


def read_store(path: str, hash_name: str, expected: str, limit: int) -> Optional[bytes]:
    try:
        with open(path, "rb") as f:
            # The size first: read(limit + 1) allocates the whole limit, for a few hundred bytes.
            size = os.fstat(f.fileno()).st_size
            content = f.read(size + 1) if size <= limit else b""
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
    from .._atomic import replacing

    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
        with replacing(tmp, path), os.fdopen(fd, "wb") as f:
            f.write(content)
    except OSError:
        pass


class UnfollowedRedirect(Exception):
    """A redirect off http(s) (to ``file:``): pip 26.3's session does not follow
    it (an empty body, not the file), older ones do (a local file, not the
    index's); neither is read as the index file."""

    def __init__(self, location: str) -> None:
        super().__init__(f"redirected to {location}, which is not followed")
        self.shown = str(self)


class NotARegularFile(Exception):
    """A local ``variants.json`` that is a FIFO, a device or a folder: opening
    one could block pip for ever (a FIFO with no writer)."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} is not a regular file")
        self.shown = "not a regular file"


_WEB = ("http://", "https://")


def _check_local(url: str) -> None:
    if not url.startswith("file:"):
        return
    from urllib.parse import urlsplit
    from urllib.request import url2pathname

    path = url2pathname(urlsplit(url).path)
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return  # missing or unreadable: pip's own error says so
    if not stat.S_ISREG(mode):
        raise NotARegularFile(path)


def _redacted(url: str) -> str:
    from pip._internal.utils.misc import redact_auth_from_url

    return redact_auth_from_url(url)


def _get(session: Any, url: str, headers: dict, read: Any) -> Tuple[bytes, bool]:
    """The capped body and whether pip's HTTP cache answered (no request made).

    A body cut short (the connection reset or dropped mid-way) is fetched once
    more, as pip 25.1+ resumes a wheel download: pip's own retries cover only a
    request that gets no answer, and the file is a few kB."""
    # Not ConnectionError: a read timeout arrives as one, and a retry would double --timeout.
    from pip._vendor.requests.exceptions import ChunkedEncodingError

    _check_local(url)
    for attempt in (1, 2):
        response = session.get(url, headers=headers, stream=True)
        response.raise_for_status()
        if getattr(response, "is_redirect", False):
            raise UnfollowedRedirect(str(response.headers.get("Location", "?")))
        final = str(getattr(response, "url", None) or url)
        if url.startswith(_WEB) and not final.startswith(_WEB):
            raise UnfollowedRedirect(final)
        try:
            return read(response), bool(getattr(response, "from_cache", False))
        except ChunkedEncodingError as exc:
            if attempt == 2:
                raise
            # (a debug line: a background fetch must not print among pip's lines)
            messages.debug("pip-variants: the download of %s was cut short (%s); fetching it again",
                           _redacted(url), type(exc).__name__)
    raise AssertionError("unreachable")


def download(session: Any, link: Any, canonical: str, read: Any, limit: int) -> bytes:
    """The bytes of ``link`` (network errors propagate: the caller words them).

    ``read(response)`` reads a streamed body with a size cap; ``limit`` is that cap.
    A returned body may still fail the caller's hash check: then the server
    (or a proxy) really serves other content than the index says.
    """
    url = link.url_without_fragment
    hash_name, expected = link_digest(link)
    if not (hash_name and expected and _digest(hash_name, b"") is not None):
        headers = {"Accept": _ACCEPT}
        if revalidate(session, canonical):
            # max-age=0 rather than no-cache: a conditional request, like pip's pages.
            headers["Cache-Control"] = "max-age=0"
        return _get(session, url, headers, read)[0]

    path = cache_path(session, url, hash_name, expected)
    if path is not None:
        content = read_store(path, hash_name, expected, limit)
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


def describe_failure(exc: BaseException) -> str:
    """Why a ``variants.json`` download failed, in a few words for pip's warning."""
    shown = getattr(exc, "shown", None)  # ours: already worded for the user
    if isinstance(shown, str):
        return shown
    if type(exc).__name__ == "TooManyRedirects":  # it carries the last 3xx response
        return "too many redirects"
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    if status is not None:
        reason = getattr(response, "reason", "") or ""
        return f"HTTP {status} {reason}".strip()
    name = type(exc).__name__
    text = str(exc)
    if "Timeout" in name or "timed out" in text:
        return "the request timed out"
    if name == "ChunkedEncodingError" or "Connection broken" in text:
        return "the connection broke during the download; try again"
    retried = re.search(r"too many (\d{3}) error responses", text)
    if retried:
        return f"HTTP {retried.group(1)}, after retries"
    if name == "SSLError":  # pip 26.3 says "ssl verification failed" (below); older ones, requests' whole chain
        why = re.search(r"certificate verify failed: (.+?)(?: \(_ssl\.c:\d+\)|'\)|\"\)|$)", text)
        return f"ssl verification failed ({why.group(1).rstrip('. ')})" if why else "ssl connection failed"
    if name == "ProxyError":
        return "proxy connection failed"
    if name == "ConnectionError" or "NewConnectionError" in text:
        return "connection failed"
    reference = getattr(exc, "reference", None)
    if isinstance(reference, str) and reference:
        # pip 26.3's network errors (DiagnosticPipError) print as "<Class: reference>":
        # "connection-failed", "ssl-verification-failed", "proxy-connection-failed", ...
        return reference.replace("-", " ")
    lines = text.strip().splitlines()
    return f"{name}: {lines[0][:200]}" if lines else name


def read_capped(response: Any) -> bytes:
    """The body, but never more than the metadata size limit plus one byte:
    an endless or huge ``variants.json`` must not stall pip or fill memory
    (the reader then rejects an over-long body with a clear message)."""
    from ..metadata import MAX_METADATA_BYTES

    limit = MAX_METADATA_BYTES + 1
    try:
        declared = int(response.headers.get("Content-Length", "0") or 0)
    except (TypeError, ValueError):
        declared = 0
    chunks = []
    size = 0
    try:
        if declared <= limit:
            for chunk in response.iter_content(chunk_size=65536):
                chunks.append(chunk)
                size += len(chunk)
                if size >= limit:
                    break
        else:
            chunks.append(b" " * limit)  # over the limit by its own account: do not download it
    finally:
        # Always: a find-links or file:// answer is an open file (pip's local
        # adapter); an HTTP one goes back to the pool, or is closed if cut short.
        response.close()
    encoding = str(response.headers.get("Content-Encoding", "identity") or "identity").lower()
    if size < declared <= limit and encoding == "identity":
        # urllib3 1.26 (pip < 26) returns a body an orderly close cut short as
        # if whole: it would read as a bad file (invalid JSON, a hash mismatch)
        from pip._vendor.requests.exceptions import ChunkedEncodingError

        raise ChunkedEncodingError(f"Connection broken: {size} of the {declared} bytes announced")
    return b"".join(chunks)[:limit]
