"""Shared fixtures: the pip-variants wheel, session venvs, a loopback index.

Session venvs are built once per test session:

* ``variant_venv``: pip ``$PIP_VARIANTS_TEST_PIP`` (default: the newest pip for
  this Python) plus pip-variants built from this checkout;
* ``stock_venv``: the same pip, no pip-variants (the "stock pip" reference).

Tests that change site-packages use ``fresh_venv`` (a function-scoped copy of
``variant_venv``). Every pip run against the local index goes through
``support.venvs.run_pip`` / ``pick``, which scrub the machine's pip
configuration.

If the registry cannot be reached while building a venv, the tests that need
it are skipped with the reason, except under CI (``CI`` set), where that is an
error. Any other build failure is an error everywhere.

``PIP_VARIANTS_TEST_VENV_DIR``: keep the session venvs in this directory and
reuse them across sessions (keyed by Python, pip and wheel hash); a developer
convenience, never set in tox.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Iterator, Optional

import pytest

_TESTS = Path(__file__).resolve().parent
if str(_TESTS) not in sys.path:
    sys.path.insert(0, str(_TESTS))

from support.harness import harness_failure  # noqa: E402
from support.index import LocalIndex  # noqa: E402
from support.wheels import build_release  # noqa: E402
from support.venvs import (  # noqa: E402
    HarnessError,
    Venv,
    build_project_wheel,
    clone_venv,
    create_venv,
)


def pytest_report_header(config) -> str:
    pip = os.environ.get("PIP_VARIANTS_TEST_PIP") or "newest"
    return f"pip-variants e2e: pip under test = {pip}"


def _pip_under_test() -> Optional[str]:
    return os.environ.get("PIP_VARIANTS_TEST_PIP") or None


def _cached_venv(kind: str, wheel: Optional[Path], build) -> Venv:
    root = os.environ.get("PIP_VARIANTS_TEST_VENV_DIR")
    if not root:
        return build(None)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()[:12] if wheel else "none"
    py = f"py{sys.version_info[0]}{sys.version_info[1]}"
    key = f"{kind}-{py}-pip{_pip_under_test() or 'newest'}-{digest}"
    path = Path(root) / key
    marker = path / ".pv-test-venv.json"
    if marker.is_file():
        data = json.loads(marker.read_text())
        return Venv(
            path=Path(data["path"]),
            python=Path(data["python"]),
            bin=Path(data["bin"]),
            site_packages=Path(data["site_packages"]),
            pip_version=data["pip_version"],
            has_pip_variants=data["has_pip_variants"],
        )
    venv = build(path)
    marker.write_text(
        json.dumps({k: str(v) if isinstance(v, Path) else v for k, v in venv.__dict__.items()})
    )
    return venv


@pytest.fixture(scope="session")
def pip_variants_wheel(tmp_path_factory) -> Path:
    """pip-variants' wheel, built once from this checkout."""
    try:
        return build_project_wheel(tmp_path_factory.mktemp("pv-wheel"))
    except HarnessError as exc:
        harness_failure(exc)
        raise


@pytest.fixture(scope="session")
def variant_venv(tmp_path_factory, pip_variants_wheel) -> Venv:
    """A venv with the pip under test and pip-variants installed from its wheel."""

    def build(path):
        return create_venv(
            path or tmp_path_factory.mktemp("variant-venv") / "venv",
            pip_version=_pip_under_test(),
            wheel=pip_variants_wheel,
        )

    try:
        return _cached_venv("variant", pip_variants_wheel, build)
    except HarnessError as exc:
        harness_failure(exc)
        raise


@pytest.fixture(scope="session")
def stock_venv(tmp_path_factory) -> Venv:
    """The same pip, without pip-variants: what stock pip would do."""

    def build(path):
        return create_venv(
            path or tmp_path_factory.mktemp("stock-venv") / "venv", pip_version=_pip_under_test()
        )

    try:
        return _cached_venv("stock", None, build)
    except HarnessError as exc:
        harness_failure(exc)
        raise


@pytest.fixture
def fresh_venv(variant_venv, tmp_path) -> Venv:
    """A private copy of ``variant_venv`` that a test may modify."""
    return clone_venv(variant_venv, tmp_path / "fresh-venv")


@pytest.fixture
def index() -> Iterator[LocalIndex]:
    """A running loopback index (PEP 691 JSON when asked, else PEP 503 HTML)."""
    with LocalIndex() as idx:
        yield idx


@pytest.fixture
def dist(tmp_path) -> Path:
    """A directory for the wheels a test builds."""
    path = tmp_path / "dist"
    path.mkdir()
    return path


@pytest.fixture
def publish(index, dist):
    """``publish(name, version, data, **build_release_kwargs) -> [Path]``: build a
    release (see ``support.wheels.build_release``) and serve it on ``index``
    (or on ``target=``, another :class:`LocalIndex`; ``hash=`` as for
    ``LocalIndex.add_file``)."""

    def _publish(name, version, data, *, target=None, hash=True, **kwargs):
        out = dist / f"{name}-{version}-{len(list(dist.iterdir()))}"
        paths = build_release(out, name, version, data, **kwargs)
        (target or index).add_files(name, paths, hash=hash)
        return paths

    return _publish


@pytest.fixture(autouse=True)
def _private_provider_cache(monkeypatch, tmp_path_factory):
    """In-process code never reads or writes the user's provider cache: a
    result cached by an earlier run (or another test) would hide the code
    under test. The e2e helpers give each pip call its own cache as well."""
    monkeypatch.setenv("PIP_VARIANTS_CACHE_DIR", str(tmp_path_factory.mktemp("provider-cache")))
    # Plugin answers are kept for the process too: each test is a process of its own.
    from pip_variants.support import _PluginProvider

    monkeypatch.setattr(_PluginProvider, "_answers", {})
