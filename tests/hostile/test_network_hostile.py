"""Hostile networks: the index file is missing, failing, slow or endless.

Stock pip never fetches ``{name}-{version}-variants.json``, so pip-variants
must never make an install fail or hang because of it: any failure means "no
index file", i.e. the release's variant wheels are ignored and the plain
wheel is installed, with one warning naming the URL and the reason (IX-6,
IX-9). pip's own ``--timeout`` / ``--retries`` apply to the fetch.

When the user forces a label (``--variant``) the install cannot be honoured
without the index file: it must fail cleanly, naming the URL.
"""

from __future__ import annotations

import time

import pytest

from support.index import LocalIndex
from support.venvs import pick, run_pip
from support.wheels import BLAS_RELEASE, build_release, variants_json_filename

pytestmark = pytest.mark.e2e

PLAIN = "pkg-1.0-py3-none-any.whl"
JSON_NAME = variants_json_filename("pkg", "1.0")
DATA = BLAS_RELEASE
FAST = ("--timeout", "2", "--retries", "0")


def vfile(label: str) -> str:
    return f"pkg-1.0-py3-none-any-{label}.whl"


def assert_no_crash(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text
        assert "internal error" not in text, text


def one_line_naming(stderr: str, url: str) -> str:
    lines = [line for line in stderr.splitlines() if url in line]
    assert len(lines) == 1, f"expected exactly one line naming {url}:\n{stderr}"
    return lines[0]


def variant_wheels_fetched(index: LocalIndex):
    return [f for f in index.downloaded() if f.endswith(".whl") and f != PLAIN]


@pytest.fixture
def release(publish):
    return publish("pkg", "1.0", DATA)


@pytest.mark.parametrize(
    "kind, args, reason",
    [
        ("404", FAST, "HTTP 404"),
        ("500", ("--timeout", "2", "--retries", "1"), "HTTP 500"),
        ("reset", FAST, "could not fetch"),
        ("timeout", FAST, "timed out"),
        ("garbage", FAST, "invalid variant metadata"),
        ("redirect-loop", FAST, "too many redirects"),
    ],
)
def test_failing_index_file_gives_plain_with_one_warning(
    variant_venv, release, index, kind, args, reason
):
    index.fault(JSON_NAME, kind, seconds=20)
    if kind == "garbage":
        index.set_hash("pkg", JSON_NAME, None)  # else the hash check catches it first
    started = time.monotonic()
    chosen, _, stderr = pick(variant_venv, index, "pkg", *args, timeout=120)
    elapsed = time.monotonic() - started
    assert chosen == PLAIN, stderr
    assert_no_crash(stderr)
    line = one_line_naming(stderr, index.file_url("pkg", JSON_NAME))
    assert reason in line, line
    assert "installing a non-variant wheel of pkg 1.0" in line, line
    assert not variant_wheels_fetched(index), index.downloaded()
    # pip's --timeout bounds the wait (the fault would hold the socket for 20 s).
    assert elapsed < 15, f"took {elapsed:.1f}s\n{stderr}"


def test_index_file_redirected_off_the_web_is_not_read(variant_venv, release, index):
    """An http index redirecting to file: : older pips follow it (a local file
    would be read as the index file), pip 26.3 refuses it with its own warning."""
    index.fault(JSON_NAME, "redirect-file")
    chosen, _, stderr = pick(variant_venv, index, "pkg", *FAST, timeout=120)
    assert chosen == PLAIN, stderr
    assert_no_crash(stderr)
    ours = [line for line in stderr.splitlines() if "pip-variants:" in line]
    assert len(ours) == 1, stderr
    assert "redirected to file:///dev/null, which is not followed" in ours[0], ours[0]


def test_slow_but_steady_index_file_is_waited_for(variant_venv, release, index):
    index.fault(JSON_NAME, "trickle", chunk=64, delay=0.05, seconds=20)
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--timeout", "2")
    assert chosen == vfile("ob"), stderr
    assert_no_crash(stderr)


def test_stalling_index_file_times_out_to_plain(variant_venv, release, index):
    """A trickle slower than ``--timeout`` per read is a read timeout."""
    index.fault(JSON_NAME, "trickle", chunk=16, delay=4.0, seconds=20)
    started = time.monotonic()
    chosen, _, stderr = pick(variant_venv, index, "pkg", *FAST, timeout=120)
    assert chosen == PLAIN, stderr
    assert_no_crash(stderr)
    line = one_line_naming(stderr, index.file_url("pkg", JSON_NAME))
    assert "timed out" in line, line
    assert time.monotonic() - started < 15


def test_index_file_cut_off_mid_body_gives_plain(variant_venv, release, index):
    """The server drops the connection after part of the body (short read)."""
    index.fault(JSON_NAME, "trickle", chunk=64, delay=0.4, seconds=0.5)
    chosen, _, stderr = pick(variant_venv, index, "pkg", *FAST, timeout=120)
    assert chosen == PLAIN, stderr
    assert_no_crash(stderr)
    one_line_naming(stderr, index.file_url("pkg", JSON_NAME))


ENDLESS_BODY = (
    "pip_variants/_pip/context.py FinderContext._fetch reads the whole response "
    "(response.content) before load_metadata applies the 2 MiB limit: an index serving an "
    "endless or huge variants.json makes pip wait for (and hold) all of it"
)


# Was xfail(ENDLESS_BODY) until _fetch streamed with a cap.
def test_oversized_index_file_is_not_downloaded_past_the_limit(variant_venv, publish, index):
    """40 MiB at 2 MiB/s: reading past the 2 MiB limit is a hostile index's DoS."""
    publish("pkg", "1.0", DATA, index_file=False)
    body = b'{"padding": "' + b"x" * (40 << 20) + b'"}'
    index.add_bytes("pkg", JSON_NAME, body)
    index.fault(JSON_NAME, "trickle", chunk=512 << 10, delay=0.25, seconds=6)
    started = time.monotonic()
    chosen, _, stderr = pick(variant_venv, index, "pkg", *FAST, timeout=120)
    elapsed = time.monotonic() - started
    assert chosen == PLAIN, stderr
    assert_no_crash(stderr)
    line = one_line_naming(stderr, index.file_url("pkg", JSON_NAME))
    assert "limit" in line, line
    assert elapsed < 5, f"took {elapsed:.1f}s: the body was read past the limit\n{stderr}"


@pytest.mark.parametrize("api", ["html", "json"])
def test_page_with_variant_wheels_but_no_index_file(variant_venv, dist, api):
    with LocalIndex(api=api) as idx:
        idx.add_files("pkg", build_release(dist, "pkg", "1.0", DATA, index_file=False))
        chosen, _, stderr = pick(variant_venv, idx, "pkg")
        fetched = variant_wheels_fetched(idx)
        asked_json = idx.requested(".json")
    assert chosen == PLAIN, stderr
    assert_no_crash(stderr)
    lines = [line for line in stderr.splitlines() if f"no {JSON_NAME}" in line]
    assert len(lines) == 1, stderr
    assert "pkg 1.0 has variant wheels on" in lines[0] and "127.0.0.1" in lines[0], lines[0]
    assert not fetched and not asked_json, (fetched, asked_json)


@pytest.mark.parametrize("kind", ["500", "timeout"])
def test_real_install_with_a_failing_index_file_installs_only_plain(
    variant_venv, release, index, tmp_path, kind
):
    index.fault(JSON_NAME, kind, seconds=20)
    target = tmp_path / "target"
    proc = run_pip(
        variant_venv,
        "install",
        *FAST,
        "--index-url",
        index.url,
        "--target",
        target,
        "pkg",
        timeout=120,
    )
    assert_no_crash(proc.stderr)
    assert (target / "pkg" / "__init__.py").read_text().strip() == 'VARIANT = ""'
    assert sorted(p.name for p in target.iterdir()) == ["pkg", "pkg-1.0.dist-info"]
    assert not (target / "pkg-1.0.dist-info" / "variant.json").exists()


def test_forced_variant_without_a_reachable_index_file_fails_cleanly(
    variant_venv, release, index, tmp_path
):
    index.fault(JSON_NAME, "500")
    target = tmp_path / "target"
    proc = run_pip(
        variant_venv,
        "install",
        *FAST,
        "--index-url",
        index.url,
        "--target",
        target,
        "--variant",
        "pkg=ob",
        "pkg",
        check=False,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert_no_crash(proc.stderr)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("ERROR:")]
    assert errors and "'ob'" in errors[0] and "HTTP 500" in errors[0], proc.stderr
    assert not target.exists() or not any(target.iterdir())


@pytest.mark.parametrize("kind", ["404", "reset"])
def test_chosen_variant_wheel_unreachable_fails_cleanly(
    variant_venv, release, index, tmp_path, kind
):
    """The index file is fine but the chosen wheel cannot be downloaded: pip's own
    clean download error, as for any wheel, and nothing installed."""
    index.fault(vfile("ob"), kind)
    target = tmp_path / "target"
    proc = run_pip(
        variant_venv,
        "install",
        *FAST,
        "--index-url",
        index.url,
        "--target",
        target,
        "pkg",
        check=False,
        timeout=120,
    )
    assert proc.returncode != 0, proc.stderr
    assert_no_crash(proc.stderr)
    assert "error" in proc.stderr.lower() and vfile("ob") in proc.stderr, proc.stderr
    assert not target.exists() or not any(target.iterdir())
