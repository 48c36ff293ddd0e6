"""A few daemon threads that fetch for pip's thread, one pool per command.

pip fetches one thing at a time: a project's page, then (with pip-variants) its
``variants.json``, then the metadata of the wheel it picks, then the next
project. The pool lets the index files (and, looking ahead, the pages they are
listed on) come in while pip's thread is busy with something else; pip's
thread then *takes* a finished job instead of making the request itself.

Rules that keep this invisible:

* A job runs on pip's own session (proxies, certificates, retries, the
  ``--timeout``, the HTTP cache) but only with the credentials pip already
  holds for the host: never a prompt or a keyring call off pip's thread. A
  401/403 there is left to pip's thread (:func:`needs_pip_thread`).
* What a job logs (any logger: urllib3's retry warnings too) is held back and
  replayed on pip's thread, in order, when that thread takes the job; a job
  nobody takes (a look-ahead that guessed wrong) says nothing.
* A failure is an ordinary result: the taker words it exactly as it words a
  failure of its own request.
* Workers exit as soon as the queue is empty; :meth:`Background.close` (at
  exit, Ctrl-C included) drops what has not started. A request in flight at
  exit is abandoned: the threads are daemons, bounded by ``--timeout``.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional

__all__ = ["Background", "Job", "THREAD_NAME", "needs_pip_thread"]

THREAD_NAME = "pip-variants-fetch"

#: thread ident -> the records held back for the job that thread runs
_records: Dict[int, List[Any]] = {}
_filter_installed: List[Any] = []


class _ThreadLogFilter:
    """Hold back records logged on a worker until pip's thread replays them."""

    def filter(self, record: Any) -> bool:
        if getattr(record, "_pip_variants_replayed", False):
            return True
        thread = record.thread if record.thread is not None else threading.get_ident()
        held = _records.get(thread)
        if held is None:
            return True
        if not held or held[-1] is not record:  # once, whatever the number of handlers
            held.append(record)
        return False


def _install_log_filter() -> None:
    """On every handler of the root logger (pip's handlers live there)."""
    import logging

    if not _filter_installed:
        _filter_installed.append(_ThreadLogFilter())
    flt = _filter_installed[0]
    for handler in logging.getLogger().handlers:
        if flt not in handler.filters:
            handler.addFilter(flt)


class _KnownCredentials:
    """requests auth for a worker: what pip's auth finds without asking anyone
    (the URL's own user info, credentials pip already holds, netrc), never a
    prompt or a keyring call, no 401 handling."""

    def __init__(self, auth: Any) -> None:
        self.auth = auth

    def __call__(self, request: Any) -> Any:
        username = password = None
        find = getattr(self.auth, "_get_url_and_credentials", None)
        if find is not None:
            try:  # keyring is off by default there (allow_keyring=False), in 23.2-26.3
                request.url, username, password = find(request.url)
            except Exception:
                username = password = None
        else:
            from urllib.parse import urlsplit

            known = getattr(self.auth, "passwords", None) or {}
            creds = known.get(urlsplit(request.url).netloc) if isinstance(known, dict) else None
            if creds:
                username, password = creds
        if username is not None and password is not None:
            from pip._vendor.requests.auth import HTTPBasicAuth

            request = HTTPBasicAuth(username, password)(request)
        return request


class _ThreadSession:
    """pip's session with per-request auth replaced (everything else shared)."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._auth = _KnownCredentials(getattr(session, "auth", None))

    def get(self, url: str, **kwargs: Any) -> Any:
        return self._session.get(url, auth=self._auth, **kwargs)

    def head(self, url: str, **kwargs: Any) -> Any:
        return self._session.head(url, auth=self._auth, **kwargs)

    def get_adapter(self, url: str) -> Any:
        return self._session.get_adapter(url)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def needs_pip_thread(exc: BaseException) -> bool:
    """A failure that pip's thread may get past (it can prompt, ask keyring)."""
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return status in (401, 403)


class Cancelled(Exception):
    """The command ended before the job started."""


class Job:
    __slots__ = ("key", "work", "done", "value", "error", "records", "replayed", "served")

    def __init__(self, key: str, work: Callable[[Any], Any]) -> None:
        self.key = key
        self.work = work
        self.done = threading.Event()
        self.value: Any = None
        self.error: Optional[BaseException] = None
        self.records: List[Any] = []
        self.replayed = False
        #: a page job's content went to pip's thread
        self.served = False


class Background:
    """The pool of one command (one pip session)."""

    def __init__(self, session: Any, max_threads: int = 8) -> None:
        self.session = session
        self.max_threads = max_threads
        self._thread_session = _ThreadSession(session)
        self._jobs: Dict[str, Job] = {}
        self._queue: Deque[Job] = deque()
        self._lock = threading.Lock()
        self._running = 0
        self._closed = False
        self._exit_hook = False

    def submit(self, key: str, work: Callable[[Any], Any]) -> Optional[Job]:
        """Queue ``work(session)`` under ``key`` unless a job has that key;
        ``None`` when no thread can run it (the caller does the work itself)."""
        start = False
        with self._lock:
            if self._closed:
                return None
            job = self._jobs.get(key)
            if job is not None:
                return job
            job = self._jobs[key] = Job(key, work)
            self._queue.append(job)
            if self._running < self.max_threads:
                self._running += 1
                start = True
        if start and not self._start_worker():
            with self._lock:
                self._running -= 1
                if job in self._queue and self._running == 0:
                    self._queue.remove(job)
                    del self._jobs[key]
                    return None
        return job

    def _start_worker(self) -> bool:
        _install_log_filter()  # handlers pip (or an embedding program) added since
        if not self._exit_hook:
            import atexit

            atexit.register(self.close)
            self._exit_hook = True
        try:
            threading.Thread(target=self._work, name=THREAD_NAME, daemon=True).start()
        except RuntimeError:  # interpreter shutting down, or out of threads
            return False
        return True

    def job(self, key: str) -> Optional[Job]:
        return self._jobs.get(key)

    def steal(self, job: Job) -> bool:
        """Take back a job no thread has started (the caller does the work now,
        rather than wait behind others); it ends as :class:`Cancelled`."""
        with self._lock:
            try:
                self._queue.remove(job)
            except ValueError:
                return False
        job.error = Cancelled(job.key)
        job.done.set()
        return True

    def wait(self, job: Job, *, replay: bool = True) -> Job:
        """Block until ``job`` is done (Ctrl-C still interrupts), then replay
        what it logged on this thread, once."""
        while not job.done.wait(0.25):  # a timeout keeps the wait interruptible everywhere
            pass
        if replay and not job.replayed:
            job.replayed = True
            import logging

            for record in job.records:
                record._pip_variants_replayed = True
                logging.getLogger(record.name).handle(record)
            job.records = []
        return job

    def close(self) -> None:
        """No new work; queued jobs end as :class:`Cancelled` (when resolution
        ends, and at exit). Idempotent."""
        with self._lock:
            self._closed = True
            dropped = list(self._queue)
            self._queue.clear()
        if self._exit_hook:
            import atexit

            self._exit_hook = False
            try:
                atexit.unregister(self.close)
            except Exception:
                pass
        for job in dropped:
            job.error = Cancelled(job.key)
            job.done.set()

    def _work(self) -> None:
        ident = threading.get_ident()
        while True:
            with self._lock:
                if not self._queue:
                    self._running -= 1
                    return
                job = self._queue.popleft()
            held: List[Any] = []
            _records[ident] = held
            try:
                job.value = job.work(self._thread_session)
            except BaseException as exc:  # the taker reports it
                job.error = exc
            finally:
                _records.pop(ident, None)
                job.records = held
                job.done.set()
