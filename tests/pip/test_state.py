"""``state.release_key``: one key per release, however its files spell the version."""

from __future__ import annotations

import pytest

from pip_variants._pip import _compat
from pip_variants._pip.state import release_key


@pytest.mark.parametrize("spellings", [
    ("1.0", "1.0.0", "1"),
    ("2!1.0.0rc1", "2!1.0rc1"),
    ("1.0.0.post1", "1.0.post1"),
    ("1.0+CPU", "1.0.0+cpu"),
])
def test_equal_versions_share_one_release_key(patched, spellings):
    texts = {_compat.normalize_version(text, "pkg") for text in spellings}
    assert texts == {str(_compat.Version(spellings[0]))}  # the spelling seen first
    assert release_key("pkg", _compat.Version(spellings[-1])) == texts.pop()


@pytest.mark.parametrize("a, b", [("1.0", "1.0.1"), ("1.0", "1.0.post0"), ("1.0", "1.0+cpu"), ("10", "1.0")])
def test_different_versions_keep_their_own(patched, a, b):
    assert _compat.normalize_version(a, "pkg") != _compat.normalize_version(b, "pkg")


def test_each_project_keeps_its_own_spelling(patched):
    assert _compat.normalize_version("1.0.0", "other") == "1.0.0"
    assert _compat.normalize_version("1.0", "pkg") == "1.0"
    assert release_key("pkg", _compat.Version("1.0.0")) == "1.0"


def test_an_invalid_version_has_none(patched):
    assert _compat.normalize_version("not a version", "pkg") is None
