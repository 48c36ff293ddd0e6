"""Reading one ``.dist-info`` file of a wheel without listing it: zipfile's answer or none."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pip_variants._wheel_member import read_dist_info_file
from pip_variants.metadata import find_variant_json

CONTENT = b'{"variants": {}}\n' * 20


def _wheel(path: Path, members, *, compression=zipfile.ZIP_DEFLATED, comment=b"") -> Path:
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in members:
            zf.writestr(name, data)
        zf.comment = comment
    return path


def _zipfile_answer(path: Path):
    with zipfile.ZipFile(path) as zf:
        name = find_variant_json(zf.namelist())
        return None if name is None else (name, zf.read(name))


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2,
                                         zipfile.ZIP_LZMA], ids=["stored", "deflated", "bzip2", "lzma"])
@pytest.mark.parametrize("comment", [b"", b"a comment"], ids=["", "comment"])
def test_reads_what_zipfile_reads(tmp_path, compression, comment):
    members = [(f"pkg/m{i}.py", b"x = 1\n") for i in range(300)]
    members += [("pkg-1.0.dist-info/METADATA", b"Name: pkg\n"), ("pkg-1.0.dist-info/variant.json", CONTENT)]
    wheel = _wheel(tmp_path / "w.whl", members, compression=compression, comment=comment)
    assert _zipfile_answer(wheel) == ("pkg-1.0.dist-info/variant.json", CONTENT)
    assert read_dist_info_file(wheel, "variant.json", 1 << 20) == ("pkg-1.0.dist-info/variant.json", CONTENT)


def test_the_first_dist_info_and_top_level_only(tmp_path):
    wheel = _wheel(tmp_path / "w.whl", [
        ("vendored/dep-1.0.dist-info/variant.json", b"nested"),
        ("a-1.0.dist-info/variant.json", b"first"),
        ("b-1.0.dist-info/variant.json", b"second"),
    ])
    assert read_dist_info_file(wheel, "variant.json", 100) == ("a-1.0.dist-info/variant.json", b"first")
    assert _zipfile_answer(wheel) == ("a-1.0.dist-info/variant.json", b"first")


def test_over_the_limit_is_said_without_inflating(tmp_path):
    wheel = _wheel(tmp_path / "w.whl", [("p-1.0.dist-info/variant.json", b" " * 5000)])
    assert read_dist_info_file(wheel, "variant.json", 4999) == ("p-1.0.dist-info/variant.json", None)


def _leave_to_zipfile(path: Path) -> None:
    assert read_dist_info_file(path, "variant.json", 1 << 20) is None


def test_absent_member_is_left_to_zipfile(tmp_path):
    _leave_to_zipfile(_wheel(tmp_path / "w.whl", [("pkg-1.0.dist-info/METADATA", b"")]))


def test_a_name_listed_twice_is_left_to_zipfile(tmp_path):
    wheel = tmp_path / "w.whl"
    with pytest.warns(UserWarning, match="Duplicate name"):
        _wheel(wheel, [("p-1.0.dist-info/variant.json", b"one"), ("p-1.0.dist-info/variant.json", b"two")])
    _leave_to_zipfile(wheel)
    assert _zipfile_answer(wheel) == ("p-1.0.dist-info/variant.json", b"two")  # zipfile takes the last


def test_data_before_the_archive_is_left_to_zipfile(tmp_path):
    wheel = _wheel(tmp_path / "w.whl", [("p-1.0.dist-info/variant.json", CONTENT)])
    wheel.write_bytes(b"#!/bin/sh\n" + wheel.read_bytes())
    _leave_to_zipfile(wheel)
    assert _zipfile_answer(wheel) == ("p-1.0.dist-info/variant.json", CONTENT)


def test_a_bad_crc_is_left_to_zipfile(tmp_path):
    wheel = _wheel(tmp_path / "w.whl", [("p-1.0.dist-info/variant.json", b"abcdef" * 10)],
                   compression=zipfile.ZIP_STORED)
    data = wheel.read_bytes()
    wheel.write_bytes(data.replace(b"abcdef", b"abcdeX", 1))
    _leave_to_zipfile(wheel)
    with pytest.raises(zipfile.BadZipFile):
        _zipfile_answer(wheel)


@pytest.mark.parametrize("data", [b"", b"PK\x05\x06", b"not a zip at all" * 10], ids=["empty", "signature", "text"])
def test_not_an_archive_is_left_to_zipfile(tmp_path, data):
    path = tmp_path / "w.whl"
    path.write_bytes(data)
    _leave_to_zipfile(path)


@pytest.mark.parametrize("name", ["p-1.0.dist-info/variant.jsonXtrailer", "aXb.dist-info/variant.json"],
                         ids=["after", "before"])
def test_a_nul_in_a_name_is_left_to_zipfile(tmp_path, name):
    """zipfile cuts a name at a NUL byte: ``a\\0b.dist-info/variant.json`` is ``a`` to it."""
    wheel = _wheel(tmp_path / "w.whl", [(name, b"cut"), ("q-1.0.dist-info/variant.json", CONTENT)])
    wheel.write_bytes(wheel.read_bytes().replace(name.encode(), name.replace("X", "\0").encode()))
    _leave_to_zipfile(wheel)


def test_a_zip64_locator_is_left_to_zipfile(tmp_path):
    """zipfile follows a ZIP64 end record whenever its locator precedes the end
    record, even with no field saturated (the two may describe different directories)."""
    wheel = _wheel(tmp_path / "w.whl", [("p-1.0.dist-info/variant.json", CONTENT)])
    data = wheel.read_bytes()
    eocd = data.rfind(b"PK\x05\x06")
    locator = b"PK\x06\x07" + (0).to_bytes(4, "little") + (0).to_bytes(8, "little") + (1).to_bytes(4, "little")
    wheel.write_bytes(data[:eocd] + locator + data[eocd:])
    _leave_to_zipfile(wheel)


def test_non_ascii_member_names_are_left_to_zipfile(tmp_path):
    """Two encodings of one name are one member to zipfile (the last wins)."""
    _leave_to_zipfile(_wheel(tmp_path / "w.whl", [("p\u00e9-1.0.dist-info/variant.json", CONTENT)]))


def test_an_archive_zipfile_cannot_read_is_left_to_it(tmp_path):
    wheel = _wheel(tmp_path / "w.whl", [("p-1.0.dist-info/variant.json", CONTENT)])
    data = bytearray(wheel.read_bytes())
    central = data.rfind(b"PK\x01\x02")
    data[central + 6] = 64  # "version needed to extract": 6.4
    wheel.write_bytes(bytes(data))
    _leave_to_zipfile(wheel)
    with pytest.raises(NotImplementedError):
        _zipfile_answer(wheel)


def test_a_short_name_is_not_matched_into_its_header(tmp_path):
    """A name shorter than ``.dist-info/variant.json`` never matches, whatever
    the header bytes before it hold."""
    wheel = _wheel(tmp_path / "w.whl", [("dist-info/variant.json", b"x")])
    data = bytearray(wheel.read_bytes())
    central = data.rfind(b"PK\x01\x02")
    data[central + 45] = ord(".")  # the top byte of the local header offset
    wheel.write_bytes(bytes(data))
    _leave_to_zipfile(wheel)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="zipfile reads Unicode-path extra fields from 3.12")
def test_a_unicode_path_extra_field_is_left_to_zipfile(tmp_path):
    """From 3.12 zipfile renames a member from its 0x7075 extra field."""
    import struct
    import zlib

    raw = b"decoy.json"
    new = b"p-1.0.dist-info/variant.json"
    extra = struct.pack("<HHBL", 0x7075, 5 + len(new), 1, zlib.crc32(raw)) + new
    path = tmp_path / "w.whl"
    with zipfile.ZipFile(path, "w") as zf:
        info = zipfile.ZipInfo(raw.decode())
        info.extra = extra
        zf.writestr(info, CONTENT)
        zf.writestr("q-1.0.dist-info/variant.json", b"other")
    assert _zipfile_answer(path) == ("p-1.0.dist-info/variant.json", CONTENT)
    _leave_to_zipfile(path)


_NAMES = st.lists(
    st.sampled_from([
        "pkg/__init__.py", "pkg-1.0.dist-info/METADATA", "pkg-1.0.dist-info/variant.json",
        "other-2.dist-info/variant.json", "x/pkg-1.0.dist-info/variant.json", ".dist-info/variant.json",
        "pkg-1.0.dist-info/variant.jsonx", "pkg-1.0.dist-info/sub/variant.json", "variant.json",
    ]),
    max_size=6, unique=True,
)


@settings(max_examples=60, deadline=None)
@given(names=_NAMES, compression=st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]),
       comment=st.binary(max_size=40))
def test_never_disagrees_with_zipfile(tmp_path_factory, names, compression, comment):
    path = tmp_path_factory.mktemp("w") / "w.whl"
    _wheel(path, [(n, n.encode() * 3) for n in names], compression=compression, comment=comment)
    mine = read_dist_info_file(path, "variant.json", 1 << 20)
    if mine is not None:
        assert mine == _zipfile_answer(path)  # (zipfile itself may fail on an end-record signature in the comment)
    elif b"PK\x05\x06" not in comment and any(find_variant_json([n]) for n in names):
        pytest.fail(f"left an ordinary archive to zipfile: {names}")
