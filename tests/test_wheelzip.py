"""The raw wheel copier behind make-variant: members are copied compressed,
only the replaced members and RECORD are new."""

from __future__ import annotations

import csv
import io
import os
import shutil
import stat
import struct
import subprocess
import zipfile
from pathlib import Path

import pytest

from pip_variants import wheelzip
from pip_variants.wheelzip import WheelZipError, record_hash, rewrite_wheel

DI = "demo-1.0.dist-info"
RECORD = f"{DI}/RECORD"
DT = (2024, 5, 6, 7, 8, 10)


def _wheel(path: Path, members, *, streamed: bool = False, record: bool = True) -> Path:
    """A wheel with ``members`` (name -> (bytes, compress_type)); ``streamed``
    writes through a non-seekable stream, so zipfile uses data descriptors."""
    buf = io.BytesIO()

    class Unseekable(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            return buf.write(b)

    target = Unseekable() if streamed else buf
    rows = []
    with zipfile.ZipFile(target, "w") as zf:
        for name, (data, method) in members.items():
            info = zipfile.ZipInfo(name, date_time=(2023, 1, 2, 3, 4, 6))
            info.compress_type = method
            info.external_attr = 0o100755 << 16 if name.endswith(".sh") else 0o100644 << 16
            zf.writestr(info, data)
            rows.append(f"{name},{record_hash(data)},{len(data)}")
        if record:
            zf.writestr(RECORD, "\n".join(rows + [f"{RECORD},,"]) + "\n")
    path.write_bytes(buf.getvalue())
    return path


MEMBERS = {
    "demo/__init__.py": (b"x = 1\n" * 100, zipfile.ZIP_DEFLATED),
    "demo/blob.bin": (os.urandom(300_000), zipfile.ZIP_STORED),
    "demo/run.sh": (b"#!/bin/sh\necho hi\n", zipfile.ZIP_DEFLATED),
    "demo/caf\u00e9.txt": (b"unicode name\n", zipfile.ZIP_DEFLATED),
    f"{DI}/WHEEL": (b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n", zipfile.ZIP_DEFLATED),
    f"{DI}/METADATA": (b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n", zipfile.ZIP_DEFLATED),
}


def _raw(path: Path, name: str) -> bytes:
    """The compressed bytes of member ``name``."""
    with zipfile.ZipFile(path) as zf, open(path, "rb") as f:
        info = zf.getinfo(name)
        f.seek(info.header_offset)
        head = f.read(30)
        n, m = struct.unpack("<HH", head[26:30])
        f.seek(info.header_offset + 30 + n + m)
        return f.read(info.compress_size)


def _check(dest: Path, expected) -> None:
    with zipfile.ZipFile(dest) as zf:
        assert zf.testzip() is None
        for name, data in expected.items():
            assert zf.read(name) == data, name
        rows = list(csv.reader(io.StringIO(zf.read(RECORD).decode())))
        assert zf.namelist()[-1] == RECORD
        listed = {r[0]: r for r in rows}
        assert set(listed) == set(zf.namelist())
        for name in zf.namelist():
            if name == RECORD:
                assert listed[name][1:] == ["", ""]
            else:
                data = zf.read(name)
                assert listed[name][1:] == [record_hash(data), str(len(data))], name


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "data-descriptors"])
def test_unchanged_members_are_copied_compressed(tmp_path, streamed):
    src = _wheel(tmp_path / "demo-1.0-py3-none-any.whl", MEMBERS, streamed=streamed)
    dest = tmp_path / "out.whl"
    new_meta = b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: x\n"
    rewrite_wheel(src, dest, record_name=RECORD, date_time=DT,
                  replace={f"{DI}/variant.json": b"{}\n", f"{DI}/METADATA": new_meta})
    expected = {n: d for n, (d, _) in MEMBERS.items()}
    expected[f"{DI}/METADATA"] = new_meta
    expected[f"{DI}/variant.json"] = b"{}\n"
    _check(dest, expected)
    for name in MEMBERS:
        if name != f"{DI}/METADATA":
            assert _raw(dest, name) == _raw(src, name), name
    with zipfile.ZipFile(dest) as zf:
        names = zf.namelist()
        # Replaced in place, added before RECORD.
        assert names.index(f"{DI}/METADATA") == list(MEMBERS).index(f"{DI}/METADATA")
        assert names[-2:] == [f"{DI}/variant.json", RECORD]
        assert all(not (i.flag_bits & 0x8) for i in zf.infolist())
        assert (zf.getinfo("demo/run.sh").external_attr >> 16) & 0o777 == 0o755
        assert zf.getinfo(f"{DI}/variant.json").date_time == DT


def test_members_missing_from_record_are_hashed(tmp_path):
    src = _wheel(tmp_path / "a.whl", MEMBERS, record=False)
    dest = rewrite_wheel(src, tmp_path / "b.whl", record_name=RECORD, replace={}, date_time=DT)
    _check(dest, {n: d for n, (d, _) in MEMBERS.items()})


def test_a_record_row_with_the_wrong_size_is_not_trusted(tmp_path):
    src = _wheel(tmp_path / "a.whl", MEMBERS, record=False)
    lying = f"demo/run.sh,{record_hash(b'other')},5\n{RECORD},,\n"
    with zipfile.ZipFile(src, "a") as zf:
        zf.writestr(RECORD, lying)
    dest = rewrite_wheel(src, tmp_path / "b.whl", record_name=RECORD, replace={}, date_time=DT)
    _check(dest, {n: d for n, (d, _) in MEMBERS.items()})


def test_zip64_records_when_limits_are_crossed(tmp_path, monkeypatch):
    # Real ZIP64 sizes need > 4 GiB; lower the limits to exercise the records.
    monkeypatch.setattr(wheelzip, "_ZIP64_LIMIT", 1000)
    monkeypatch.setattr(wheelzip, "_ZIP64_COUNT_LIMIT", 3)
    src = _wheel(tmp_path / "a.whl", MEMBERS)
    dest = rewrite_wheel(src, tmp_path / "b.whl", record_name=RECORD,
                         replace={f"{DI}/variant.json": b"{}\n"}, date_time=DT)
    raw = dest.read_bytes()
    assert b"PK\x06\x06" in raw and b"PK\x06\x07" in raw  # ZIP64 end record and locator
    _check(dest, {n: d for n, (d, _) in MEMBERS.items()})
    with zipfile.ZipFile(dest) as zf:
        big = zf.getinfo("demo/blob.bin")
        assert big.file_size == 300_000 and big.extract_version >= 45


@pytest.mark.skipif(shutil.which("unzip") is None, reason="needs Info-ZIP unzip")
@pytest.mark.parametrize("zip64", [False, True])
def test_another_reader_accepts_the_archive(tmp_path, monkeypatch, zip64):
    if zip64:
        monkeypatch.setattr(wheelzip, "_ZIP64_LIMIT", 1000)
        monkeypatch.setattr(wheelzip, "_ZIP64_COUNT_LIMIT", 3)
    src = _wheel(tmp_path / "a.whl", MEMBERS, streamed=True)
    dest = rewrite_wheel(src, tmp_path / "b.whl", record_name=RECORD,
                         replace={f"{DI}/variant.json": b"{}\n"}, date_time=DT)
    proc = subprocess.run(["unzip", "-t", str(dest)], capture_output=True, text=True)
    assert proc.returncode == 0 and "No errors detected" in proc.stdout, proc.stdout + proc.stderr


def test_output_gets_the_umask_mode_and_no_temporary_is_left(tmp_path):
    src = _wheel(tmp_path / "a.whl", MEMBERS)
    old = os.umask(0o022)
    try:
        dest = rewrite_wheel(src, tmp_path / "b.whl", record_name=RECORD, replace={}, date_time=DT)
    finally:
        os.umask(old)
    assert stat.S_IMODE(dest.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.whl", "b.whl"]


def test_unreadable_source_names_the_file(tmp_path):
    bad = tmp_path / "bad.whl"
    bad.write_bytes(b"not a zip")
    with pytest.raises(WheelZipError, match="bad.whl: cannot be read as a wheel"):
        rewrite_wheel(bad, tmp_path / "x.whl", record_name=RECORD, replace={}, date_time=DT)
    assert not (tmp_path / "x.whl").exists()


@pytest.mark.parametrize("name", ['pkg/q"uote.txt', "pkg/c,omma.txt", 'pkg/"both",.txt'])
def test_record_fields_read_back_with_csv(name):
    from pip_variants.wheelzip import _csv_field

    assert next(csv.reader(io.StringIO(f"{_csv_field(name)},sha256=x,1\n"))) == [name, "sha256=x", "1"]


def test_a_damaged_member_it_must_hash_is_refused_with_its_name(tmp_path):
    src = _wheel(tmp_path / "a.whl", {"demo/__init__.py": (b"x = 1\n" * 2000, zipfile.ZIP_DEFLATED)}, record=False)
    data = bytearray(src.read_bytes())
    with zipfile.ZipFile(src) as zf:
        info = zf.getinfo("demo/__init__.py")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + 5] ^= 0xFF  # inside the deflate stream
    src.write_bytes(bytes(data))
    with pytest.raises(WheelZipError, match=r"demo/__init__.py is damaged .*build it again"):
        rewrite_wheel(src, tmp_path / "b.whl", record_name=RECORD, replace={}, date_time=DT)
    assert not (tmp_path / "b.whl").exists() and os.listdir(tmp_path) == ["a.whl"]


def test_dropped_members_are_left_out_of_the_copy_and_of_record(tmp_path):
    members = dict(MEMBERS, **{f"{DI}/RECORD.jws": (b'{"signatures": []}', zipfile.ZIP_DEFLATED)})
    src = _wheel(tmp_path / "a.whl", members)
    dest = rewrite_wheel(src, tmp_path / "b.whl", record_name=RECORD, replace={}, date_time=DT)
    with zipfile.ZipFile(dest) as zf:
        assert f"{DI}/RECORD.jws" in zf.namelist()  # (kept unless asked)
    from pip_variants.wheelzip import WheelSource

    with WheelSource(src) as source:
        source.rewrite(tmp_path / "c.whl", record_name=RECORD, replace={}, date_time=DT, drop=[f"{DI}/RECORD.jws"])
    with zipfile.ZipFile(tmp_path / "c.whl") as zf:
        assert f"{DI}/RECORD.jws" not in zf.namelist()
        assert "RECORD.jws" not in zf.read(RECORD).decode()
