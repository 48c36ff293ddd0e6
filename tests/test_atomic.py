"""pip_variants._atomic: replace a file in one step, write through links and special files."""

from __future__ import annotations

import os
import threading

import pytest

from pip_variants._atomic import replacing, write_file, write_new


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


def test_write_new_replaces_a_symlink_instead_of_writing_through_it(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    link = tmp_path / "index.html"
    link.symlink_to(victim)
    write_new(link, b"<html>")
    assert not link.is_symlink() and link.read_bytes() == b"<html>"
    assert victim.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html", "victim.txt"]


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


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_write_file_through_proc_fd_appends_to_what_the_descriptor_is(tmp_path):
    """``-o /dev/stdout`` with stdout a pipe, or a file the shell appends to."""
    read_end, write_end = os.pipe()
    try:
        write_file(f"/proc/self/fd/{write_end}", b"to the pipe")
        assert os.read(read_end, 100) == b"to the pipe"
    finally:
        os.close(read_end)
        os.close(write_end)
    log = tmp_path / "log.txt"
    log.write_bytes(b"earlier line\n")
    with open(log, "ab") as appended:
        write_file(f"/proc/self/fd/{appended.fileno()}", b"new line\n")
    assert log.read_bytes() == b"earlier line\nnew line\n"


def test_write_file_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    dest = tmp_path / "shared.json"
    dest.write_bytes(b"old")
    os.chmod(dest, 0o640)
    write_file(dest, b"new")
    assert dest.read_bytes() == b"new" and (dest.stat().st_mode & 0o777) == 0o640
