"""The pip release the end-to-end tests run against (``PIP_VARIANTS_TEST_PIP``,
set per tox environment; unset means the newest)."""

from __future__ import annotations

import os

import pytest

__all__ = ["NEWEST_PIP", "newest_pip_only"]

#: the newest pip of the tox matrix (tox.ini's newest-pip environment)
NEWEST_PIP = "26.3"


def newest_pip_only(reason: str) -> pytest.MarkDecorator:
    """Skip unless the pip under test is the newest: for tests whose subject does
    not depend on the pip release, or that need the newest."""
    return pytest.mark.skipif(
        (os.environ.get("PIP_VARIANTS_TEST_PIP") or NEWEST_PIP) != NEWEST_PIP, reason=reason
    )
