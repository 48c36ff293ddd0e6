"""The fetch pool: results and failures as values, held-back log lines, no stray threads."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from pip_variants._pip.background import THREAD_NAME, Background, Cancelled, needs_pip_thread


class _Session:
    auth = None


def _leftovers():
    return [t for t in threading.enumerate() if t.name == THREAD_NAME]


def _drain(timeout=5.0):
    deadline = time.monotonic() + timeout
    while _leftovers() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_results_and_failures_come_back_as_values():
    pool = Background(_Session())
    ok = pool.submit("a", lambda s: b"content")
    bad = pool.submit("b", lambda s: 1 / 0)
    assert pool.wait(ok).value == b"content" and ok.error is None
    assert isinstance(pool.wait(bad).error, ZeroDivisionError)
    _drain()
    assert _leftovers() == []


def test_one_job_per_key():
    pool = Background(_Session())
    calls = []
    first = pool.submit("k", lambda s: calls.append(1))
    assert pool.submit("k", lambda s: calls.append(2)) is first
    pool.wait(first)
    assert calls == [1] and pool.job("k") is first


def test_a_fixed_number_of_threads():
    pool = Background(_Session(), max_threads=2)
    gate = threading.Event()
    seen = set()

    def work(session):
        seen.add(threading.get_ident())
        gate.wait(5)

    jobs = [pool.submit(str(i), work) for i in range(6)]
    time.sleep(0.1)
    assert len(_leftovers()) == 2
    gate.set()
    for job in jobs:
        pool.wait(job)
    assert len(seen) <= 2


def test_log_lines_wait_for_the_taker_and_come_in_order(caplog):
    caplog.set_level(logging.INFO)
    logging.getLogger().addHandler(caplog.handler)  # the pool filters root's handlers
    pool = Background(_Session())
    log = logging.getLogger("pip._internal.test")

    def work(session):
        log.info("first")
        log.warning("second")
        return 1

    job = pool.submit("x", work)
    job.done.wait(5)
    assert [r.getMessage() for r in caplog.records if r.name == log.name] == []
    pool.wait(job)
    assert [r.getMessage() for r in caplog.records if r.name == log.name] == ["first", "second"]
    pool.wait(job)  # once only
    assert len([r for r in caplog.records if r.name == log.name]) == 2


def test_a_job_nobody_takes_says_nothing(caplog):
    logging.getLogger().addHandler(caplog.handler)
    pool = Background(_Session())
    job = pool.submit("quiet", lambda s: logging.getLogger("pip._internal.quiet").warning("unseen"))
    pool.wait(job, replay=False)
    assert "unseen" not in caplog.text


def _one_running_one_queued():
    """A one-thread pool busy with a job that waits for ``gate``, and one job queued behind it."""
    pool = Background(_Session(), max_threads=1)
    gate = threading.Event()
    running = pool.submit("running", lambda s: gate.wait(5))
    queued = pool.submit("queued", lambda s: "never")
    time.sleep(0.05)
    return pool, gate, running, queued


def test_close_cancels_what_has_not_started():
    pool, gate, running, queued = _one_running_one_queued()
    pool.close()
    assert isinstance(pool.wait(queued).error, Cancelled)
    assert pool.submit("late", lambda s: 1) is None  # the caller does it itself
    gate.set()
    pool.wait(running)
    _drain()
    assert _leftovers() == []


def test_the_wait_stays_interruptible():
    """Ctrl-C reaches pip's thread while it waits (a timed wait, on every platform)."""
    import _thread
    import signal

    # interrupt_main does nothing while SIGINT is ignored (a runner started in the background)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        pool = Background(_Session())
        gate = threading.Event()
        job = pool.submit("stalled", lambda s: gate.wait(10))
        threading.Timer(0.3, _thread.interrupt_main).start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            pool.wait(job)
        assert time.monotonic() - started < 2
        gate.set()
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("status, expected", [(401, True), (403, True), (404, False), (None, False)])
def test_credentials_failures_go_back_to_pips_thread(status, expected):
    class _Response:
        status_code = status

    class _Error(Exception):
        response = _Response()

    assert needs_pip_thread(_Error()) is expected


def test_a_job_no_thread_has_started_can_be_taken_back():
    pool, gate, running, queued = _one_running_one_queued()
    assert pool.steal(running) is False  # under way: wait for it
    assert pool.steal(queued) is True
    assert isinstance(pool.wait(queued).error, Cancelled)
    gate.set()
    assert pool.wait(running).error is None
