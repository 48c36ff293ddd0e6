"""What the tests do when the test harness itself cannot be set up."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

from support.venvs import HarnessError, RegistryUnavailable

__all__ = ["harness_failure"]


def harness_failure(exc: HarnessError, what: str = "build a test venv") -> NoReturn:
    """An unreachable package registry skips the test, except under CI (``CI``
    set), where it is an error; any other harness failure is an error everywhere."""
    if isinstance(exc, RegistryUnavailable) and not os.environ.get("CI"):
        pytest.skip(f"package registry unreachable, cannot {what}: {str(exc)[:800]}")
    raise exc
