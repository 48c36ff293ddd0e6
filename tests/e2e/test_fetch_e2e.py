"""A pinned ``variants.json`` costs a request once per cache, not once per install.

The index links the file with its ``#sha256=``: its content cannot change
without the link changing, so a warm pip cache answers without asking the
index. pip caches plain-http responses only for trusted hosts, hence
``--trusted-host``. Depends on the pip release (its session and cache), so it
runs in every pip env.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.venvs import default_sigint, interrupt, pick, run_pip
from support.wheels import BLAS_RELEASE, FICTIONAL_PROVIDER, variants_json_filename

pytestmark = pytest.mark.e2e

JSON_NAME = variants_json_filename("pkg", "1.0")
TRUST = ("--trusted-host", "127.0.0.1")


def _store_entries(cache: Path):
    return [p for p in cache.rglob("*") if p.is_file() and "pip-variants" in p.parts]


def test_warm_cache_makes_no_request_for_a_pinned_index_file(variant_venv, publish, index, tmp_path):
    publish("pkg", "1.0", BLAS_RELEASE)
    cache = tmp_path / "pip-cache"
    chosen, _, stderr = pick(variant_venv, index, "pkg", *TRUST, PIP_CACHE_DIR=str(cache))
    assert chosen == "pkg-1.0-py3-none-any-ob.whl", stderr
    assert index.requested(JSON_NAME)
    index.clear_log()
    chosen, _, stderr = pick(variant_venv, index, "pkg", *TRUST, PIP_CACHE_DIR=str(cache))
    assert chosen == "pkg-1.0-py3-none-any-ob.whl", stderr
    assert index.requested(JSON_NAME) == []


def test_cached_index_file_with_a_hash_mismatch_is_fetched_again(variant_venv, publish, index, tmp_path):
    publish("pkg", "1.0", BLAS_RELEASE)
    cache = tmp_path / "pip-cache"
    pick(variant_venv, index, "pkg", *TRUST, PIP_CACHE_DIR=str(cache))
    entries = _store_entries(cache)
    assert len(entries) == 1, entries
    entries[0].write_bytes(b'{"variants": {"evil": {}}}')
    index.clear_log()
    chosen, _, stderr = pick(variant_venv, index, "pkg", *TRUST, PIP_CACHE_DIR=str(cache))
    assert chosen == "pkg-1.0-py3-none-any-ob.whl", stderr
    assert "Traceback" not in stderr and "WARNING" not in stderr, stderr
    assert len(index.requested(JSON_NAME)) == 1
    assert b"evil" not in entries[0].read_bytes()


def test_untrusted_plain_http_host_is_not_cached(variant_venv, publish, index, tmp_path):
    publish("pkg", "1.0", BLAS_RELEASE)
    cache = tmp_path / "pip-cache"
    for _ in range(2):
        chosen, _, stderr = pick(variant_venv, index, "pkg", PIP_CACHE_DIR=str(cache))
        assert chosen == "pkg-1.0-py3-none-any-ob.whl", stderr
    assert len(index.requested(JSON_NAME)) == 2
    assert _store_entries(cache) == []


def test_pip_cache_purge_removes_stored_index_files(variant_venv, publish, index, tmp_path):
    publish("pkg", "1.0", BLAS_RELEASE)
    cache = tmp_path / "pip-cache"
    pick(variant_venv, index, "pkg", *TRUST, PIP_CACHE_DIR=str(cache))
    assert len(_store_entries(cache)) == 1
    run_pip(variant_venv, "cache", "purge", env={"PIP_CACHE_DIR": str(cache)})
    assert _store_entries(cache) == []


@pytest.mark.parametrize("kind, reason", [("404", "HTTP 404"), ("500", "HTTP 500"), ("timeout", "timed out")])
def test_failing_fetch_with_a_cache_keeps_its_message_and_stores_nothing(
    variant_venv, publish, index, tmp_path, kind, reason
):
    publish("pkg", "1.0", BLAS_RELEASE)
    index.fault(JSON_NAME, kind, seconds=20)
    cache = tmp_path / "pip-cache"
    chosen, _, stderr = pick(variant_venv, index, "pkg", *TRUST, "--timeout", "2", "--retries", "0",
                             PIP_CACHE_DIR=str(cache), timeout=120)
    assert chosen == "pkg-1.0-py3-none-any.whl", stderr
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if index.file_url("pkg", JSON_NAME) in line]
    assert len(lines) == 1 and reason in lines[0], stderr
    assert _store_entries(cache) == []


@pytest.mark.parametrize("kind", ["404", "garbage"])
def test_strict_makes_an_unusable_index_file_an_error(variant_venv, publish, index, tmp_path, kind):
    """Without its index file a release's variant wheels are ignored: the CPU
    build on a GPU machine. ``--variant-strict`` stops there instead."""
    publish("pkg", "1.0", BLAS_RELEASE)
    index.fault(JSON_NAME, kind)
    chosen, _, stderr = pick(variant_venv, index, "pkg", *TRUST, "--variant-strict", "--retries", "0",
                             PIP_CACHE_DIR=str(tmp_path / "c"), check=False)
    assert chosen is None, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1 and index.file_url("pkg", JSON_NAME) in errors[0], stderr
    assert "--variant-strict makes this an error" in errors[0], stderr
    assert "Traceback" not in stderr, stderr


def test_only_the_release_pip_takes_has_its_index_file_fetched(variant_venv, publish, index, tmp_path):
    for n, version in enumerate(("1.0", "1.1", "1.2")):
        publish("pkg", version, BLAS_RELEASE, index_file=False)
        index.add_bytes("pkg", variants_json_filename("pkg", version), json.dumps(BLAS_RELEASE).encode() + b" " * n)
    chosen, _, stderr = pick(variant_venv, index, "pkg", *TRUST, PIP_CACHE_DIR=str(tmp_path / "c"))
    assert chosen == "pkg-1.2-py3-none-any-ob.whl", stderr
    assert index.requested("variants.json") == ["/files/pkg/" + variants_json_filename("pkg", "1.2")]


def test_an_older_release_is_selected_when_the_resolver_backtracks_to_it(variant_venv, publish, index, tmp_path):
    """pkg 1.2 needs a project no index has: the resolver falls back to 1.1,
    whose index file is fetched then, and whose variant is chosen as H4 would."""
    publish("pkg", "1.1", BLAS_RELEASE, index_file=False)
    publish("pkg", "1.2", BLAS_RELEASE, requires=["missing-project"], index_file=False)
    for n, version in enumerate(("1.1", "1.2")):  # distinct bytes: the store is content-addressed
        index.add_bytes("pkg", variants_json_filename("pkg", version), json.dumps(BLAS_RELEASE).encode() + b" " * n)
    chosen, _, stderr = pick(variant_venv, index, "pkg", *TRUST, PIP_CACHE_DIR=str(tmp_path / "c"))
    assert chosen == "pkg-1.1-py3-none-any-ob.whl", stderr
    assert "Traceback" not in stderr, stderr
    assert sorted(index.requested("variants.json")) == [
        "/files/pkg/" + variants_json_filename("pkg", v) for v in ("1.1", "1.2")
    ]


def test_strict_error_in_a_release_the_resolver_backtracks_to_is_one_line(variant_venv, publish, index, tmp_path):
    """--variant-strict, and the older release (settled only when the resolver
    gets to it) names an untrusted provider: pip's one-line error naming the
    release, never a traceback from inside pip's resolver."""
    untrusted = json.loads(json.dumps(BLAS_RELEASE))
    untrusted["default-priorities"]["namespace"].append("fictional")
    untrusted["providers"]["fictional"] = FICTIONAL_PROVIDER
    untrusted["variants"]["hw"] = {"fictional": {"tech": ["x"]}}
    publish("pkg", "1.1", untrusted, index_file=False)
    publish("pkg", "1.2", BLAS_RELEASE, requires=["missing-project"], index_file=False)
    for n, (version, doc) in enumerate((("1.1", untrusted), ("1.2", BLAS_RELEASE))):
        index.add_bytes("pkg", variants_json_filename("pkg", version), json.dumps(doc).encode() + b" " * n)
    chosen, _, stderr = pick(variant_venv, index, "pkg", *TRUST, "--variant-strict",
                             PIP_CACHE_DIR=str(tmp_path / "c"), check=False)
    assert chosen is None, stderr
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1 and "pkg 1.1: " in errors[0] and "not installed and not trusted" in errors[0], stderr
    assert "--variant-strict makes this an error" in errors[0]


def test_ctrl_c_while_older_releases_are_fetched(variant_venv, publish, index, tmp_path):
    """Ctrl-C while fetch threads wait on a stalled server: pip's own one-line
    message, no traceback, and the process ends at once (no thread keeps it).
    ``--variant`` needs every release's file at once (the label may be in an
    older one only)."""
    import subprocess
    import time

    from support.venvs import index_args, scrubbed_env

    for version in ("1.0", "1.1", "1.2"):
        publish("pkg", version, BLAS_RELEASE)
        index.fault(variants_json_filename("pkg", version), "timeout", seconds=30)
    proc = subprocess.Popen(
        [str(variant_venv.python), "-m", "pip", "install", "--dry-run", *index_args(index),
         "--timeout", "25", "--retries", "0", "--variant", "pkg=ob", "pkg"],
        env=scrubbed_env(tmp=tmp_path / "env"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=default_sigint, text=True,
    )
    deadline = time.monotonic() + 60
    while len(index.requested("variants.json")) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(index.requested("variants.json")) == 3, index.requested()  # all three under way
    time.sleep(0.5)
    interrupt(proc)
