"""The tested pip range is written in three places; they must agree."""

from __future__ import annotations

import importlib
import sys

import pytest


def test_the_three_copies_of_the_tested_pip_range_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    from pip_variants._pip import _compat
    from pip_variants.cli import status

    # The test knob lowers the top of the range in _compat and status; compare without it.
    monkeypatch.delenv(_compat.TESTED_MAX_ENV, raising=False)
    if "pip_variants._bootstrap" not in sys.modules:
        # importing it installs the hook unless the kill switch is set
        monkeypatch.setenv("PIP_NO_VARIANTS", "1")
    bootstrap = importlib.import_module("pip_variants._bootstrap")

    assert _compat._tested_range() == bootstrap.TESTED_RANGE
    assert status._tested_range() == bootstrap.TESTED_RANGE
    assert status.SUPPORTED_PIP == tuple("%d.%d" % pair for pair in bootstrap.TESTED_RANGE)
