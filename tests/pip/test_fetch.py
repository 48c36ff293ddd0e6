"""``_pip/fetch.py``: a pinned variants.json comes from pip's HTTP cache, checked, without a request."""

from __future__ import annotations

import hashlib
import inspect
import json
import os
from pathlib import Path

import pytest

from pip_variants._pip.fetch import read_capped
from pip_variants._pip.fetch import STORE_DIR, cache_path, download, revalidate
from pip_variants.metadata import MAX_METADATA_BYTES
from support.index import LocalIndex
from support.wheels import BLAS_RELEASE

NAME = "pkg-1.0-variants.json"
BODY = json.dumps({"variants": {}, "note": "first"}).encode()
OTHER = json.dumps({"variants": {}, "note": "second"}).encode()


def _session(cache: Path, **kwargs):
    from pip._internal.network.session import PipSession

    session = PipSession(cache=str(cache), trusted_hosts=["127.0.0.1"], **kwargs)
    return session


def _link(index: LocalIndex, data: bytes, hashed: bool = True):
    from pip._internal.models.link import Link

    url = index.file_url("pkg", NAME)
    if hashed:
        url += "#sha256=" + hashlib.sha256(data).hexdigest()
    return Link(url)


def _get(session, link) -> bytes:
    return download(session, link, "pkg", read_capped, MAX_METADATA_BYTES)


@pytest.fixture
def index():
    with LocalIndex() as idx:
        idx.add_bytes("pkg", NAME, BODY)
        yield idx


def test_pinned_file_is_served_from_the_cache_without_a_request(index, tmp_path):
    link = _link(index, BODY)
    assert _get(_session(tmp_path), link) == BODY
    assert index.requested(NAME) != []
    index.clear_log()
    # A new pip process: a new session on the same cache directory.
    assert _get(_session(tmp_path), link) == BODY
    assert index.requested(NAME) == []


def test_cached_entry_with_a_hash_mismatch_is_downloaded_again(index, tmp_path):
    link = _link(index, BODY)
    session = _session(tmp_path)
    _get(session, link)
    path = cache_path(session, link.url_without_fragment, "sha256", link.hash)
    assert path is not None and Path(path).read_bytes() == BODY
    Path(path).write_bytes(b'{"tampered": true}')
    index.clear_log()
    assert _get(_session(tmp_path), link) == BODY
    assert len(index.requested(NAME)) == 1
    assert Path(path).read_bytes() == BODY  # repaired


def test_a_new_hash_on_the_index_means_a_new_download(index, tmp_path):
    _get(_session(tmp_path), _link(index, BODY))
    index.add_bytes("pkg", NAME, OTHER)
    index.clear_log()
    assert _get(_session(tmp_path), _link(index, OTHER)) == OTHER
    assert len(index.requested(NAME)) == 1


def test_wrong_content_from_the_server_is_returned_for_the_caller_to_reject(index, tmp_path):
    session = _session(tmp_path)
    link = _link(index, OTHER)  # the index claims another content than it serves
    assert _get(session, link) == BODY
    assert len(index.requested(NAME)) == 1  # not from a cache: no second try
    assert not (tmp_path / STORE_DIR).exists()
    path = cache_path(session, link.url_without_fragment, "sha256", link.hash)
    assert path is not None and not os.path.exists(path)


def test_unpinned_file_is_not_stored(index, tmp_path):
    session = _session(tmp_path)
    assert _get(session, _link(index, BODY, hashed=False)) == BODY
    assert not list(tmp_path.rglob(STORE_DIR))


def test_no_cache_dir_and_untrusted_http_store_nothing(index, tmp_path):
    from pip._internal.network.session import PipSession

    link = _link(index, BODY)
    for session in (PipSession(), PipSession(cache=str(tmp_path))):  # no cache; host not trusted
        assert cache_path(session, link.url_without_fragment, "sha256", link.hash) is None
        assert _get(session, link) == BODY
    assert not list(tmp_path.rglob(STORE_DIR))


def test_unpinned_file_is_revalidated_as_pip_revalidates_index_pages(tmp_path):
    from pip._internal.network.session import PipSession

    if "refresh_package" not in inspect.signature(PipSession.__init__).parameters:
        # Before --refresh-package pip revalidates every index page.
        assert revalidate(PipSession(), "pkg") is True
        return
    assert revalidate(PipSession(), "pkg") is False
    assert revalidate(PipSession(refresh_package={"pkg"}), "pkg") is True
    assert revalidate(PipSession(refresh_package={"other"}), "pkg") is False
    assert revalidate(PipSession(refresh_package={":all:"}), "pkg") is True


# -- several releases at once (H4 needs the index file of every applicable release) --------


def _ctx(session):
    from pip_variants._pip.context import FinderContext

    return FinderContext(lambda: None, session)


def _publish_releases(index, count, *, hashed=True):
    """``pkg-1.N-variants.json`` for N < count; returns the links, newest first."""
    from pip._internal.models.link import Link

    links = []
    for n in range(count):
        name = f"pkg-1.{n}-variants.json"
        data = json.dumps(BLAS_RELEASE).encode() + b" " * n  # valid, and distinct
        index.add_bytes("pkg", name, data, hash=hashed)
        url = index.file_url("pkg", name)
        if hashed:
            url += "#sha256=" + hashlib.sha256(data).hexdigest()
        links.append(Link(url, comes_from=index.project_url("pkg")))
    return links[::-1]


def _register(ctx, links):
    releases = []
    for link in links:
        version = link.filename.split("-")[1]
        ctx.registry[(link.comes_from, "pkg", version)] = link
        releases.append((version, link.comes_from))
    return releases


def test_older_releases_are_fetched_side_by_side(index, tmp_path):
    import time

    links = _publish_releases(index, 3)
    for link in links:  # each file takes about 1 s: all but the last byte, a pause, the last byte
        size = len(index._lookup_file("pkg", link.filename).data)
        index.fault(link.filename, "trickle", chunk=size - 1, delay=1.0, seconds=10)
    ctx = _ctx(_session(tmp_path))
    started = time.monotonic()
    ctx.prefetch("pkg", _register(ctx, links))
    elapsed = time.monotonic() - started
    assert all(ctx._fetched[link.url_without_fragment].content for link in links)
    assert elapsed < 2.5, f"{elapsed:.1f}s: fetched one after another"
    assert threading_leftovers() == []


def threading_leftovers():
    import threading

    return [t for t in threading.enumerate() if t.name == "pip-variants-fetch"]


def test_prefetch_reads_cached_files_without_threads_or_requests(index, tmp_path):
    links = _publish_releases(index, 3)
    first = _ctx(_session(tmp_path))
    first.prefetch("pkg", _register(first, links))
    index.clear_log()
    again = _ctx(_session(tmp_path))
    again.prefetch("pkg", _register(again, links))
    assert index.requested("variants.json") == []
    assert [again._fetched[link.url_without_fragment].content for link in links] == [
        first._fetched[link.url_without_fragment].content for link in links
    ]


@pytest.mark.parametrize("kind", ["404", "500", "timeout", "reset"])
@pytest.mark.parametrize("which", [0, 2])  # the newest (pip's thread) or an older one (a fetch thread)
def test_a_failing_fetch_reads_as_it_does_without_prefetching(index, tmp_path, kind, which):
    from pip._internal.network.session import PipSession

    links = _publish_releases(index, 3)
    index.fault(links[which].filename, kind, seconds=20)

    def session():
        s = PipSession(retries=0, cache=str(tmp_path / kind / str(which)), trusted_hosts=["127.0.0.1"])
        s.timeout = 2
        return s

    parallel = _ctx(session())
    parallel.prefetch("pkg", _register(parallel, links))
    sequential = _ctx(session())
    expected = sequential._fetch(links[which], "pkg").problem
    assert expected and links[which].filename in expected
    assert parallel._fetched[links[which].url_without_fragment].problem == expected
    for n, link in enumerate(links):
        if n != which:
            assert parallel._fetched[link.url_without_fragment].problem is None
    assert threading_leftovers() == []


def test_a_stored_entry_is_read_whole_and_an_oversized_one_dropped(tmp_path):
    from pip_variants._pip.fetch import read_store

    body = b'{"x": 1}'
    good = tmp_path / "good"
    good.write_bytes(body)
    digest = hashlib.sha256(body).hexdigest()
    assert read_store(str(good), "sha256", digest, limit=len(body)) == body
    big = tmp_path / "big"
    big.write_bytes(body + b" " * 10)
    assert read_store(str(big), "sha256", digest, limit=len(body)) is None
    assert not big.exists()  # forgotten: the next run downloads it again
    assert read_store(str(tmp_path / "missing"), "sha256", digest, limit=10) is None


def test_failure_text_of_pip_network_errors():
    from pip_variants._pip.fetch import describe_failure

    class ConnectionFailedError(Exception):  # pip 26.3: str() is "<ConnectionFailedError: connection-failed>"
        reference = "connection-failed"

        def __str__(self):
            return f"<{type(self).__name__}: {self.reference}>"

    assert describe_failure(ConnectionFailedError()) == "connection failed"
    assert describe_failure(OSError("boom\nmore")) == "OSError: boom"
    assert describe_failure(TimeoutError("read timed out")) == "the request timed out"

    class TooManyRedirects(Exception):
        response = type("R", (), {"status_code": 302, "reason": "Found"})()

    assert describe_failure(TooManyRedirects("Exceeded 30 redirects.")) == "too many redirects"
    from pip_variants._pip.fetch import UnfollowedRedirect

    assert describe_failure(UnfollowedRedirect("file:///etc/passwd")) == \
        "redirected to file:///etc/passwd, which is not followed"


def test_failure_text_of_tls_and_proxy_errors_before_pip_26():
    """requests' chain of causes, cut at 200 characters, lost the reason: say it as pip 26.3 does."""
    from pip._vendor.requests.exceptions import ProxyError, SSLError

    from pip_variants._pip.fetch import describe_failure

    chain = ("HTTPSConnectionPool(host='localhost', port=8443): Max retries exceeded with url: /demo-1.0-variants.json "
             "(Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
             "failed: self-signed certificate (_ssl.c:1006)')))")
    assert describe_failure(SSLError(chain)) == "ssl verification failed (self-signed certificate)"
    assert describe_failure(SSLError("EOF occurred in violation of protocol")) == "ssl connection failed"
    mismatch = ("HTTPSConnectionPool(host='idx.example', port=443): Max retries exceeded with url: /x (Caused by "
                "SSLError(SSLCertVerificationError(1, \"[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
                "Hostname mismatch, certificate is not valid for 'idx.example'. (_ssl.c:1006)\")))")
    assert describe_failure(SSLError(mismatch)) == (
        "ssl verification failed (Hostname mismatch, certificate is not valid for 'idx.example')")
    assert describe_failure(ProxyError("Cannot connect to proxy.")) == "proxy connection failed"


@pytest.mark.parametrize("kind", ["cut-once", "short-once"])
@pytest.mark.parametrize("hashed", [True, False])
def test_a_download_cut_short_once_is_fetched_again(index, tmp_path, hashed, kind):
    """pip resumes a wheel download whose connection broke; a variants.json is
    fetched again, once, not taken for missing (and the plain wheel installed),
    nor for a bad file (a hash mismatch, invalid JSON: the publisher's fault)."""
    index.fault(NAME, kind)
    assert _get(_session(tmp_path), _link(index, BODY, hashed)) == BODY
    assert len(index.requested(NAME)) == 2


@pytest.mark.parametrize("kind", ["cut", "short"])
def test_a_download_cut_short_twice_fails_in_words(index, tmp_path, kind):
    from pip_variants._pip.fetch import describe_failure

    index.fault(NAME, kind)
    with pytest.raises(Exception) as failure:
        _get(_session(tmp_path), _link(index, BODY))
    assert len(index.requested(NAME)) == 2
    assert describe_failure(failure.value) == "the connection broke during the download; try again"


def test_a_read_timeout_is_not_retried(index, tmp_path):
    """A stalled body is pip's --timeout to wait once, not twice."""
    index.fault(NAME, "trickle", seconds=10, chunk=4, delay=3)
    session = _session(tmp_path)
    session.timeout = 1
    with pytest.raises(Exception):
        _get(session, _link(index, BODY))
    assert len(index.requested(NAME)) == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_local_fifo_is_refused_without_opening_it(tmp_path):
    """Opening a FIFO with no writer blocks for ever: a --find-links folder holding
    one under the index file's name must not hang pip."""
    from pip._internal.models.link import Link

    from pip_variants._pip.fetch import NotARegularFile

    fifo = tmp_path / NAME
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFile) as info:
        _get(_session(tmp_path / "cache"), Link(fifo.as_uri()))
    assert info.value.shown == "not a regular file"
    (tmp_path / "dir").mkdir()
    with pytest.raises(NotARegularFile):
        _get(_session(tmp_path / "cache"), Link((tmp_path / "dir").as_uri()))
    regular = tmp_path / "regular" / NAME
    regular.parent.mkdir()
    regular.write_bytes(BODY)
    assert _get(_session(tmp_path / "cache"), Link(regular.as_uri())) == BODY


def test_a_digest_in_upper_case_is_the_same_digest(index, tmp_path):
    """pip lower-cases the digests it compares; an index may write #sha256=ABC..."""
    from pip._internal.models.link import Link

    from pip_variants._pip.context import FinderContext

    link = Link(index.file_url("pkg", NAME) + "#sha256=" + hashlib.sha256(BODY).hexdigest().upper())
    session = _session(tmp_path)
    assert _get(session, link) == BODY
    assert _get(session, link) == BODY
    assert len(index.requested(NAME)) == 1  # the second read came from the store
    fetched = FinderContext(lambda: None, session)._check(link, NAME, BODY)
    assert "hash" not in (fetched.problem or "")  # (BODY is no valid index file: that is all it says)
    wrong = Link(index.file_url("pkg", NAME) + "#sha256=" + "AB" * 32)
    assert "does not match its sha256 hash" in FinderContext(lambda: None, session)._check(wrong, NAME, BODY).problem
