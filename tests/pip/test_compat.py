"""``_pip._compat``: the helpers that smooth over pip releases."""

from __future__ import annotations

import pytest

from pip_variants._pip import _compat


@pytest.mark.parametrize("spellings", [
    ("1.0", "1.0.0", "1"),
    ("2!1.0.0rc1", "2!1.0rc1"),
    ("1.0.0.post1", "1.0.post1"),
    ("1.0+CPU", "1.0.0+cpu"),
])
def test_equal_versions_share_one_release_text(spellings):
    texts = {_compat.normalize_version(text) for text in spellings}
    assert len(texts) == 1
    assert texts == {_compat.release_text(_compat.Version(spellings[-1]))}


@pytest.mark.parametrize("a, b", [("1.0", "1.0.1"), ("1.0", "1.0.post0"), ("1.0", "1.0+cpu"), ("10", "1.0")])
def test_different_versions_keep_their_own(a, b):
    assert _compat.normalize_version(a) != _compat.normalize_version(b)


def test_an_invalid_version_has_none():
    assert _compat.normalize_version("not a version") is None
