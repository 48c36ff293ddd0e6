"""One ``.dist-info`` file of a wheel, read without listing the whole archive.

Opening a wheel with :class:`zipfile.ZipFile` builds a ``ZipInfo`` for every
member: 40 ms for a torch-sized wheel of 12,000 members, and selection opens
every local variant wheel for its ``variant.json``. This reads the end record
and the central directory as raw bytes, stops at the member, and inflates it.

It answers only where it reads the bytes :mod:`zipfile` would read for that
member, and returns ``None`` for anything else, where the caller reads the
archive with :mod:`zipfile`, which finds the member or words the error as
before: no such member; ZIP64 records; data before the archive; a name with a
NUL byte, a backslash (Windows), or a non-ASCII name for the member; a name
listed twice; a Unicode-path extra field (Python 3.12+ renames members from
it); a zip version, flag or compression zipfile refuses or this does not
inflate; a damaged header; a CRC or a size that does not match. Damage zipfile would
refuse elsewhere in the archive (another member's extra field, overlapping
members) is pip's to refuse when it installs the wheel.
"""

from __future__ import annotations

import os
import struct
import sys
import zlib
from typing import Optional, Tuple, Union

__all__ = ["read_dist_info_file"]

_EOCD = struct.Struct("<4s4H2LH")
_EOCD_SIG = b"PK\x05\x06"
_CENTRAL = struct.Struct("<4s6H3L5H2L")
_CENTRAL_SIG = b"PK\x01\x02"
_LENGTHS = struct.Struct("<3H")  # name, extra field, comment
_NAME_LENGTH_AT = 28  # in a central record
_LOCAL = struct.Struct("<4s5H3L2H")
_LOCAL_SIG = b"PK\x03\x04"
_MAX_COMMENT = 0xFFFF
_ZIP64_MARK = 0xFFFFFFFF
#: encrypted, compressed patched data, strong encryption: zipfile refuses them
_FLAGS_REFUSED = 0x1 | 0x20 | 0x40
_EXTRACT_VERSION_AT = 6  # one byte; zipfile refuses archives needing more than 6.3
_MAX_EXTRACT_VERSION = 63
_EXTRA_HEADER = struct.Struct("<2H")
_UNICODE_PATH_TAG = 0x7075
_READS_UNICODE_PATH = sys.version_info >= (3, 12)
_BACKSLASH_IS_SEP = os.sep == "\\"
_ZIP64_LOCATOR_SIG = b"PK\x06\x07"
_ZIP64_LOCATOR_SIZE = 20
_STORED, _DEFLATED, _BZIP2, _LZMA = 0, 8, 12, 14
_LZMA_HEADER = struct.Struct("<2BH")  # version, properties size


def _end_record(fh, size: int) -> Optional[Tuple[int, int, int]]:
    """``(central directory offset, its size, where the end record starts)``."""
    tail_size = min(size, _EOCD.size + _MAX_COMMENT)
    fh.seek(size - tail_size)
    tail = fh.read(tail_size)
    at = tail.rfind(_EOCD_SIG)
    if at < 0 or len(tail) - at < _EOCD.size:
        return None
    _, disk, cd_disk, _, entries, cd_size, cd_offset, comment = _EOCD.unpack_from(tail, at)
    if at + _EOCD.size + comment != len(tail) or disk or cd_disk:
        return None
    if _ZIP64_MARK in (cd_size, cd_offset) or entries == 0xFFFF:
        return None
    # zipfile follows a ZIP64 locator right before the end record, saturated fields or not
    if at >= _ZIP64_LOCATOR_SIZE:
        if tail.startswith(_ZIP64_LOCATOR_SIG, at - _ZIP64_LOCATOR_SIZE):
            return None
    elif size > tail_size:  # where a locator would be was not read
        return None
    return cd_offset, cd_size, size - tail_size + at


def _renames(directory: bytes, start: int, end: int) -> bool:
    """Does the extra field ``directory[start:end]`` hold a Unicode-path entry?"""
    while start + _EXTRA_HEADER.size <= end:
        tag, size = _EXTRA_HEADER.unpack_from(directory, start)
        if tag == _UNICODE_PATH_TAG:
            return True
        start += _EXTRA_HEADER.size + size
    return False


def _find(directory: bytes, suffix: bytes) -> Optional[Tuple[bytes, int, int, int, int, int, int]]:
    """The first ``<dir>/<suffix>`` member, ``<dir>`` one path part:
    ``(name, flags, method, crc, compressed size, size, local header offset)``;
    the whole directory is read, so that no later record can change the answer."""
    # zipfile cuts a name at a NUL byte: such a name could match, or repeat the match
    if directory.find(suffix + b"\0") >= 0:
        return None
    lengths = _LENGTHS.unpack_from
    is_at = directory.startswith
    find = directory.find
    found: Optional[Tuple[bytes, int, int, int, int, int, int]] = None
    pos, end = 0, len(directory)
    while pos < end:
        if end - pos < _CENTRAL.size or not is_at(_CENTRAL_SIG, pos):
            return None
        if directory[pos + _EXTRACT_VERSION_AT] > _MAX_EXTRACT_VERSION:
            return None
        name_len, extra_len, comment_len = lengths(directory, pos + _NAME_LENGTH_AT)
        name_start = pos + _CENTRAL.size
        name_end = name_start + name_len
        if _BACKSLASH_IS_SEP and find(b"\\", name_start, name_end) >= 0:
            return None
        if extra_len and _READS_UNICODE_PATH and _renames(directory, name_end, name_end + extra_len):
            return None
        if name_len >= len(suffix) and is_at(suffix, name_end - len(suffix), name_end):
            if found is None:
                if find(b"\0", name_start, name_end) >= 0:
                    return None
                if directory.count(b"/", name_start, name_end) == 1:
                    (_, _, _, flags, method, _, _, crc, csize, usize,
                     _, _, _, _, _, _, offset) = _CENTRAL.unpack_from(directory, pos)
                    found = directory[name_start:name_end], flags, method, crc, csize, usize, offset
            elif directory[name_start:name_end] == found[0]:
                return None  # listed twice: zipfile reads the last one
        pos = name_end + extra_len + comment_len
    if pos != end or (found is not None and find(found[0] + b"\0") >= 0):
        return None
    return found


def read_dist_info_file(
    path: Union[str, "os.PathLike[str]"], filename: str, limit: int
) -> Optional[Tuple[str, Optional[bytes]]]:
    """``(member name, content)`` of ``*.dist-info/<filename>`` in the wheel at
    ``path``; content ``None`` when the member is over ``limit`` bytes; ``None``
    where :mod:`zipfile` must answer (see the module's docstring)."""
    suffix = (".dist-info/" + filename).encode("ascii")
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        end = _end_record(fh, size)
        if end is None:
            return None
        cd_offset, cd_size, eocd_at = end
        if cd_offset + cd_size != eocd_at:  # data before the archive, or a damaged one
            return None
        fh.seek(cd_offset)
        directory = fh.read(cd_size)
        if len(directory) != cd_size:
            return None
        found = _find(directory, suffix)
        if found is None:
            return None
        raw_name, flags, method, crc, csize, usize, offset = found
        if not raw_name.isascii() or flags & _FLAGS_REFUSED or method not in (_STORED, _DEFLATED, _BZIP2, _LZMA):
            return None
        if _ZIP64_MARK in (csize, usize, offset):
            return None
        name = raw_name.decode("ascii")
        if usize > limit:
            return name, None
        fh.seek(offset)
        header = fh.read(_LOCAL.size)
        if len(header) != _LOCAL.size:
            return None
        sig, _, _, _, _, _, _, _, _, name_len, extra_len = _LOCAL.unpack(header)
        if sig != _LOCAL_SIG or fh.read(name_len) != raw_name:
            return None
        if offset + _LOCAL.size + name_len + extra_len + csize > cd_offset:  # overlaps what follows
            return None
        fh.seek(extra_len, os.SEEK_CUR)
        data = fh.read(csize)
    if len(data) != csize:
        return None
    if method != _STORED:
        # never more than one byte past the declared size: a few bytes can claim
        # a small file and inflate to gigabytes
        inflated = _inflate(method, data, usize + 1)
        if inflated is None:
            return None
        data = inflated
    if len(data) != usize or zlib.crc32(data) != crc:
        return None
    return name, data


def _inflate(method: int, data: bytes, most: int) -> Optional[bytes]:
    """At most ``most`` bytes of ``data`` decompressed; ``None`` for damaged data."""
    try:
        if method == _DEFLATED:
            return zlib.decompressobj(-zlib.MAX_WBITS).decompress(data, most)
        if method == _BZIP2:
            import bz2

            return bz2.BZ2Decompressor().decompress(data, most)
        import lzma

        # zip's LZMA: a 4-byte header, the LZMA1 properties, then the raw stream
        _, _, props_size = _LZMA_HEADER.unpack_from(data)
        props = data[_LZMA_HEADER.size:_LZMA_HEADER.size + props_size]
        if props_size != 5 or len(props) != 5 or props[0] >= 9 * 5 * 5:
            return None
        lc, rest = props[0] % 9, props[0] // 9
        lzma1 = {"id": lzma.FILTER_LZMA1, "lc": lc, "lp": rest % 5, "pb": rest // 5,
                 "dict_size": int.from_bytes(props[1:], "little")}
        decompressor = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[lzma1])
        return decompressor.decompress(data[_LZMA_HEADER.size + props_size:], most)
    except Exception:  # noqa: BLE001 - zlib.error, OSError (bz2), LZMAError, ValueError, ...: damaged data
        return None
