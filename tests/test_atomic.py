"""pip_variants._atomic: replace a file in one step, write through links and special files."""

from __future__ import annotations

import os
import threading

import pytest

from pip_variants._atomic import replacing, write_file


def test_write_file_creates_and_replaces(tmp_path):
    dest = tmp_path / "out.json"
    write_file(dest, b"one")
    assert dest.read_bytes() == b"one"
    write_file(str(dest), b"two")
    assert dest.read_bytes() == b"two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temporary file left


def test_write_file_follows_a_symlink(tmp_path):
    real = tmp_path / "real.json"
    real.write_bytes(b"old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_file(link, b"new")
    assert link.is_symlink()
    assert real.read_bytes() == b"new"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_write_file_writes_into_a_fifo_instead_of_replacing_it(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_file(fifo, b"through the pipe")
    reader.join(5)
    assert got == [b"through the pipe"]
    assert not fifo.is_file()  # still a FIFO


def test_replacing_removes_the_temporary_file_on_failure(tmp_path):
    dest, tmp = tmp_path / "dest", tmp_path / "dest.tmp"
    dest.write_bytes(b"kept")
    with pytest.raises(KeyboardInterrupt):
        with replacing(tmp, dest):
            tmp.write_bytes(b"half")
            raise KeyboardInterrupt
    assert dest.read_bytes() == b"kept" and not tmp.exists()
