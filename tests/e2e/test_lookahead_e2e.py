"""The look-ahead (H19): a dependency's page and ``variants.json`` come in the background.

``app`` 1.0 (a plain wheel) requires ``dep-a``, ``dep-b`` and ``dep-c``, each a
variant release (``ob``, ``mkl``, plain). Once pip knows ``app``'s
dependencies the pool reads ``dep-b``'s and ``dep-c``'s pages and index files
while pip's thread works on ``dep-a``. What must hold whatever the timing:
the same choices as without it, every page and index file requested once,
nothing more on a warm cache than stock pip asks for, failures worded as a
fetch on pip's thread words them, and Ctrl-C ending the command at once.
pip's session and cache differ between releases: runs in every pip env.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from support.venvs import default_sigint, interrupt, index_args, pick, scrubbed_env
from support.wheels import BLAS_RELEASE, build_wheel, variants_json_filename

pytestmark = pytest.mark.e2e

TRUST = ("--trusted-host", "127.0.0.1")
DEPS = ("dep-a", "dep-b", "dep-c")


@pytest.fixture
def tree(publish, index, dist):
    index.add_file("app", build_wheel(dist / "app", "app", "1.0", requires=list(DEPS)))
    for n, dep in enumerate(DEPS):
        publish(dep, "1.0", BLAS_RELEASE, index_file=False)
        # Distinct bytes: the store is content-addressed, alike files would share an entry.
        index.add_bytes(dep, variants_json_filename(dep, "1.0"), json.dumps(BLAS_RELEASE).encode() + b" " * n)
    return index


def _chosen(report):
    return sorted(Path(item["download_info"]["url"]).name for item in report["install"])


EXPECTED = sorted(["app-1.0-py3-none-any.whl"] + [f"{d.replace('-', '_')}-1.0-py3-none-any-ob.whl" for d in DEPS])


def _counts(index):
    return Counter(path for path in index.requested() if "/simple/" in path or path.endswith("-variants.json"))


def test_choices_and_requests_are_those_of_a_plain_lookup(variant_venv, tree, tmp_path):
    cache = tmp_path / "pip-cache"
    _, report, stderr = pick(variant_venv, tree, "app", *TRUST, PIP_CACHE_DIR=str(cache))
    assert _chosen(report) == EXPECTED, stderr
    assert "Traceback" not in stderr and "WARNING" not in stderr, stderr
    counts = _counts(tree)
    assert sorted(counts.values()) == [1] * 7, counts  # 4 pages, 3 index files, once each


def test_a_warm_cache_asks_for_nothing_more_than_stock_pip(variant_venv, tree, tmp_path):
    cache = tmp_path / "pip-cache"
    pick(variant_venv, tree, "app", *TRUST, PIP_CACHE_DIR=str(cache))
    tree.clear_log()
    _, report, stderr = pick(variant_venv, tree, "app", *TRUST, PIP_CACHE_DIR=str(cache))
    assert _chosen(report) == EXPECTED, stderr
    assert tree.requested("variants.json") == []
    stock = Counter(path for path in tree.requested() if "/simple/" in path)
    assert set(stock.values()) <= {1}, stock  # revalidated (or not) once, as pip does


def test_no_look_ahead_where_pip_caches_no_page(variant_venv, tree, tmp_path):
    """An untrusted plain-http host: a page read ahead would be read twice."""
    _, report, stderr = pick(variant_venv, tree, "app", PIP_CACHE_DIR=str(tmp_path / "c"))
    assert _chosen(report) == EXPECTED, stderr
    counts = _counts(tree)
    assert sorted(counts.values()) == [1] * 7, counts


def test_a_stored_index_file_with_a_hash_mismatch_is_fetched_again(variant_venv, tree, tmp_path):
    cache = tmp_path / "pip-cache"
    pick(variant_venv, tree, "app", *TRUST, PIP_CACHE_DIR=str(cache))
    stored = [p for p in cache.rglob("*") if p.is_file() and "pip-variants" in p.parts]
    assert len(stored) == 3, stored
    for path in stored:
        path.write_bytes(b'{"variants": {"evil": {}}}')
    shutil_rmtree_pages(cache)  # a cold page cache: the look-ahead runs again
    tree.clear_log()
    _, report, stderr = pick(variant_venv, tree, "app", *TRUST, PIP_CACHE_DIR=str(cache))
    assert _chosen(report) == EXPECTED, stderr
    assert "Traceback" not in stderr and "WARNING" not in stderr, stderr
    assert len(tree.requested("variants.json")) == 3
    assert all(b"evil" not in path.read_bytes() for path in stored)


def shutil_rmtree_pages(cache: Path) -> None:
    import shutil

    shutil.rmtree(cache / "http-v2", ignore_errors=True)
    shutil.rmtree(cache / "http", ignore_errors=True)


@pytest.mark.parametrize("kind, reason", [("404", "HTTP 404"), ("500", "HTTP 500"), ("timeout", "timed out")])
def test_a_failing_background_fetch_reads_as_a_fetch_on_pips_thread(variant_venv, tree, tmp_path, kind, reason):
    name = variants_json_filename("dep-c", "1.0")
    tree.fault(name, kind, seconds=20)
    _, report, stderr = pick(variant_venv, tree, "app", *TRUST, "--timeout", "2", "--retries", "0",
                             PIP_CACHE_DIR=str(tmp_path / "c"), timeout=120)
    assert "dep_c-1.0-py3-none-any.whl" in _chosen(report), stderr
    assert "dep_b-1.0-py3-none-any-ob.whl" in _chosen(report), stderr
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if tree.file_url("dep-c", name) in line]
    assert len(lines) == 1 and reason in lines[0], stderr
    assert len(tree.requested(name)) == 1


def test_ctrl_c_while_a_dependency_is_read_ahead(variant_venv, tree, tmp_path):
    """Ctrl-C while pip's thread waits for a stalled look-ahead: pip's own
    one-line message, no traceback, and the process ends at once."""
    for dep in DEPS[1:]:
        tree.fault(variants_json_filename(dep, "1.0"), "timeout", seconds=30)
    proc = subprocess.Popen(
        [str(variant_venv.python), "-m", "pip", "install", "--dry-run", *index_args(tree), *TRUST,
         "--timeout", "25", "--retries", "0", "app"],
        env=scrubbed_env({"PIP_CACHE_DIR": str(tmp_path / "c")}, tmp=tmp_path / "env"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_sigint, text=True,
    )
    deadline = time.monotonic() + 60
    while len(tree.requested("variants.json")) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    interrupt(proc)


def test_with_an_extra_index_the_file_comes_while_pip_reads_the_other_page(variant_venv, tree, tmp_path):
    """``--extra-index-url``: the newest release's file is fetched in the
    background as soon as its page is read; same choice, one request."""
    from support.index import LocalIndex

    with LocalIndex() as extra:
        _, report, stderr = pick(variant_venv, tree, "dep-a", *TRUST, "--extra-index-url", extra.url,
                                 PIP_CACHE_DIR=str(tmp_path / "c"))
    assert _chosen(report) == ["dep_a-1.0-py3-none-any-ob.whl"], stderr
    assert "Traceback" not in stderr, stderr
    assert len(tree.requested("variants.json")) == 1


def test_a_page_that_fails_ahead_is_requested_once_and_worded_by_pip(variant_venv, tree, tmp_path):
    """pip reads the look-ahead's answer through its own code: the same error,
    and no second request for the page."""
    tree.fault_page("dep-c", "500")
    chosen, _, stderr = pick(variant_venv, tree, "app", *TRUST, "--retries", "0", check=False,
                             PIP_CACHE_DIR=str(tmp_path / "c"))
    assert chosen is None
    assert "Traceback" not in stderr, stderr
    assert "No matching distribution found for dep-c" in stderr, stderr
    assert len(tree.requested("/simple/dep-c/")) == 1


def test_credentials_in_the_index_url_are_sent_ahead_too(variant_venv, tree, tmp_path):
    tree.credentials = ("alice", "s3cret")
    url = tree.url.replace("http://", "http://alice:s3cret@")
    _, report, stderr = pick(variant_venv, url, "app", *TRUST, PIP_CACHE_DIR=str(tmp_path / "c"))
    assert _chosen(report) == EXPECTED, stderr
    unauthorised = [r["path"] for r in tree.requests if not r["auth"]]
    assert unauthorised == [], unauthorised
    counts = _counts(tree)
    assert sorted(counts.values()) == [1] * 7, counts
