"""Which pages the look-ahead (H19) may read: never one that costs a request pip would not make."""

from __future__ import annotations

import pytest

from pip_variants._pip.lookahead import _worth_reading


def _session(tmp_path, *, cache):
    from pip._internal.network.session import PipSession

    return PipSession(cache=str(tmp_path / "cache") if cache else None, trusted_hosts=["trusted.example"])


@pytest.mark.parametrize("url, cache, expected", [
    ("https://pypi.example/simple/torch/", True, True),       # cold cache
    ("https://pypi.example/simple/torch/", False, True),      # --no-cache-dir: pip takes the page read ahead
    ("http://trusted.example/simple/torch/", True, True),     # trusted plain http is cached like https
    ("http://untrusted.example/simple/torch/", True, False),  # pip neither caches nor, maybe, reads it
    ("http://trusted.example/simple/torch/", False, False),
])
def test_pages_worth_reading_ahead(tmp_path, url, cache, expected):
    assert _worth_reading(_session(tmp_path, cache=cache), url) is expected


def test_a_page_in_the_cache_is_left_to_pip(tmp_path):
    session = _session(tmp_path, cache=True)
    url = "https://pypi.example/simple/torch/"
    adapter = session.get_adapter(url)
    adapter.cache.set(adapter.controller.cache_url(url), b"cached")
    assert _worth_reading(session, url) is False


def test_the_look_ahead_wrapper_steps_aside_without_requirements():
    # --no-deps lists no requirements: pip's iterator passes through untouched
    # (and lookahead.py is not loaded for it).
    from pip_variants._pip.candidates import _look_ahead

    deps = iter(["dep"])
    wrapped = _look_ahead(lambda self, with_requires: deps)
    assert wrapped(object(), False) is deps


def test_the_look_ahead_wrapper_lists_requirements_once_asked(mocker):
    from pip_variants._pip import candidates, lookahead

    seen = mocker.patch.object(lookahead, "look_ahead_from")
    mocker.patch.object(candidates, "selecting", return_value=True)
    wrapped = candidates._look_ahead(lambda self, with_requires: iter(["a", "b"]))
    me = object()
    assert list(wrapped(me, True)) == ["a", "b"]
    seen.assert_called_once_with(me, ["a", "b"])
    # one requirement: nothing to read ahead (pip looks it up next itself)
    single = candidates._look_ahead(lambda self, with_requires: iter(["a"]))
    assert list(single(me, True)) == ["a"]
    assert seen.call_count == 1


def test_a_failing_look_ahead_only_skips_itself(mocker):
    from pip_variants._pip import lookahead

    mocker.patch.object(lookahead, "_look_ahead_from", side_effect=RuntimeError("boom"))
    lookahead.look_ahead_from(object(), ["a", "b"])  # no exception
