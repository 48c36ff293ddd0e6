"""make-variant --requires: dependencies with variant environment markers (issue 9)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from support.wheels import build_wheel

from pip_variants.cli import main
from pip_variants.publish import PublishError, add_requires_dist, make_variant

CU128 = ["nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 90_real"]
REQS = ['cuda-lib-cu12 ; variant_label == "cu128"', 'k ; "nvidia::sm_arch::90_real" in variant_properties']


def _metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return zf.read(name).decode()


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    return build_wheel(tmp_path / "plain", "demo-pkg", "1.0", requires=["numpy>=1"])


def test_requires_are_added_after_the_existing_ones(plain, tmp_path):
    before = _metadata(plain)
    out = make_variant(plain, tmp_path / "dist", label="cu128", properties=CU128, requires=REQS)
    text = _metadata(out)
    lines = [l for l in text.splitlines() if l.startswith("Requires-Dist:")]
    assert lines == ["Requires-Dist: numpy>=1"] + [f"Requires-Dist: {r}" for r in REQS]
    assert _metadata(plain) == before  # the plain wheel is never changed
    # RECORD hashes the rewritten METADATA (the existing RECORD test helper covers the format)
    from test_publish import _check_record

    _check_record(out)


def test_a_bad_requirement_is_refused_before_anything_is_written(plain, tmp_path):
    with pytest.raises(PublishError, match="--requires: .*sets"):
        make_variant(plain, tmp_path / "dist", label="cu128", properties=CU128,
                     requires=['k ; variant_namespaces == "nvidia"'])
    assert not list((tmp_path / "dist").glob("*.whl"))


def test_headers_only_and_crlf_metadata():
    assert add_requires_dist(b"Name: x\n", ["z"]) == b"Name: x\nRequires-Dist: z\n"
    out = add_requires_dist(b"Name: x\r\nRequires-Dist: a;\r\n  extra == 'b'\r\n\r\nbody", ["z"])
    assert out == b"Name: x\r\nRequires-Dist: a;\r\n  extra == 'b'\r\nRequires-Dist: z\r\n\r\nbody"


def test_cli_option(plain, tmp_path, capsys):
    rc = main(["make-variant", str(plain), "--label", "cu128", "-p", CU128[0], "--namespaces", "nvidia",
               "--requires", REQS[0], "-o", str(tmp_path / "out")])
    assert rc == 0
    out = next((tmp_path / "out").glob("*-cu128.whl"))
    assert f"Requires-Dist: {REQS[0]}" in _metadata(out)
