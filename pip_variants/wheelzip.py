"""Copy a wheel member by member without recompressing it.

``make-variant`` changes two or three small files of a wheel that may weigh
hundreds of megabytes. Python's ``zipfile`` has no public way to copy a
member's compressed bytes, so this module writes the archive itself:

* the source's central directory is read with ``zipfile`` (sizes, CRC,
  offsets, attributes); each unchanged member's compressed bytes are copied
  from its local header's data offset in 1 MiB chunks, never decompressed;
* every member gets a fresh local header carrying its CRC and sizes (a data
  descriptor in the source, general purpose bit 3, is dropped: the sizes are
  known up front), then the central directory and end records, with ZIP64
  records whenever a size, an offset or the member count needs them;
* replaced or added members (``variant.json``, a rewritten ``METADATA``) are
  deflated in memory: they are small.

``RECORD`` is written last. Rows of unchanged members are taken from the
source's ``RECORD`` when it hashes them with sha256 (or stronger) and the
size agrees with the central directory; anything else is hashed by streaming
decompression. Memory stays flat whatever the wheel's size.
"""

from __future__ import annotations

import base64
import csv
import functools
import hashlib
import io
import os
import struct
import sys
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import AbstractSet, BinaryIO, Collection, Dict, List, Mapping, Tuple, Union

from ._atomic import replacing

__all__ = ["WheelZipError", "WheelSource", "RawZipWriter", "rewrite_wheel", "record_hash"]

PathLike = Union[str, "os.PathLike[str]"]

_CHUNK = 1 << 20
# Only Linux lets sendfile() write to a regular file (macOS and the BSDs need a socket).
_SENDFILE_TO_FILE = sys.platform.startswith("linux") and hasattr(os, "sendfile")
#: Beyond these a ZIP64 record is needed (module-level so tests can lower them).
_ZIP64_LIMIT = 0xFFFFFFFF
_ZIP64_COUNT_LIMIT = 0xFFFF
_MAX32 = 0xFFFFFFFF  # "see the ZIP64 record" in a 32-bit field
_MAX16 = 0xFFFF


def _f32(value: int) -> int:
    return _MAX32 if value >= _ZIP64_LIMIT else value

_LOCAL = struct.Struct("<IHHHHHIIIHH")
_LOCAL_SIG = 0x04034B50
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_CENTRAL_SIG = 0x02014B50
_EOCD = struct.Struct("<IHHHHIIH")
_EOCD64 = struct.Struct("<IQHHIIQQQQ")
_EOCD64_LOCATOR = struct.Struct("<IIQI")
_FLAG_ENCRYPTED = 0x1
_FLAG_DATA_DESCRIPTOR = 0x8
_FLAG_UTF8 = 0x800
_UNHASHED_RECORD_SUFFIXES = ("/RECORD", "/RECORD.jws", "/RECORD.p7s")
_GOOD_HASHES = frozenset({"sha256", "sha384", "sha512"})


class WheelZipError(Exception):
    """The archive cannot be copied; the message names the file and why."""


def record_hash(data: bytes) -> str:
    """A RECORD hash field: ``sha256=`` + urlsafe base64 without padding."""
    return _hash_field(hashlib.sha256(data).digest())


def _hash_field(digest: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _pread(fd: int, size: int, offset: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, size, offset)
    os.lseek(fd, offset, os.SEEK_SET)  # Windows: no pread; this fd is ours alone
    return os.read(fd, size)


@functools.lru_cache(maxsize=64)
def _dos_time(date_time: Tuple[int, ...]) -> Tuple[int, int]:
    year, month, day, hour, minute, second = date_time[:6]
    year = min(max(year, 1980), 2107)
    return (hour << 11) | (minute << 5) | (second // 2), ((year - 1980) << 9) | (month << 5) | day


@dataclass
class _Entry:
    name: bytes
    flags: int
    method: int
    date_time: Tuple[int, ...]
    crc: int
    csize: int
    usize: int
    offset: int
    external_attr: int
    internal_attr: int
    create_system: int
    create_version: int
    extract_version: int


class RawZipWriter:
    """Write a ZIP archive sequentially to the file descriptor ``fd``: raw
    copies of members of another archive (:meth:`copy_raw`) and new members
    (:meth:`write`). Small writes are gathered; large members go from file to
    file in the kernel (``os.sendfile``) where the platform has it."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pos = 0
        self._buf = bytearray()
        self._entries: List[_Entry] = []

    def _emit(self, data: bytes) -> None:
        self._buf += data
        self._pos += len(data)
        if len(self._buf) >= _CHUNK:
            self._flush()

    def _flush(self) -> None:
        done = 0
        with memoryview(self._buf) as view:
            while done < len(view):
                done += os.write(self._fd, view[done:])
        self._buf.clear()

    def _copy_range(self, src_fd: int, offset: int, size: int, name: str) -> None:
        if size >= _CHUNK and _SENDFILE_TO_FILE:
            self._flush()
            while size:
                try:
                    sent = os.sendfile(self._fd, src_fd, offset, min(size, 1 << 30))
                except OSError:
                    break  # e.g. a file system without sendfile support: copy by hand
                if not sent:
                    raise WheelZipError(f"{name}: the archive ends inside this member")
                self._pos += sent
                offset += sent
                size -= sent
        while size:
            chunk = _pread(src_fd, min(_CHUNK, size), offset)
            if not chunk:
                raise WheelZipError(f"{name}: the archive ends inside this member")
            self._emit(chunk)
            offset += len(chunk)
            size -= len(chunk)

    def _local_header(self, entry: _Entry) -> None:
        zip64 = entry.csize >= _ZIP64_LIMIT or entry.usize >= _ZIP64_LIMIT
        extra = struct.pack("<HHQQ", 1, 16, entry.usize, entry.csize) if zip64 else b""
        if zip64:
            entry.extract_version = max(entry.extract_version, 45)
        dos_time, dos_date = _dos_time(entry.date_time)
        self._emit(_LOCAL.pack(
            _LOCAL_SIG, entry.extract_version, entry.flags, entry.method, dos_time, dos_date,
            entry.crc, _MAX32 if zip64 else entry.csize, _MAX32 if zip64 else entry.usize,
            len(entry.name), len(extra),
        ))
        self._emit(entry.name)
        self._emit(extra)

    def copy_raw(self, src_fd: int, info: zipfile.ZipInfo) -> None:
        """Copy member ``info`` of the archive open as ``src_fd`` without
        decompressing it."""
        if info.flag_bits & _FLAG_ENCRYPTED:
            raise WheelZipError(f"{info.filename}: encrypted members cannot be copied")
        # Small members: header and data in one read (the extra field's length
        # is only known from the local header, so guess generously).
        small = info.compress_size < _CHUNK
        want = _LOCAL.size + len(info.orig_filename) * 4 + 256 + (info.compress_size if small else 0)
        block = _pread(src_fd, want, info.header_offset)
        if len(block) < _LOCAL.size or _LOCAL.unpack_from(block)[0] != _LOCAL_SIG:
            raise WheelZipError(f"{info.filename}: no local header at offset {info.header_offset}")
        fields = _LOCAL.unpack_from(block)
        skip = _LOCAL.size + fields[9] + fields[10]
        data_offset = info.header_offset + skip
        entry = _Entry(
            name=info.orig_filename.encode("utf-8" if info.flag_bits & _FLAG_UTF8 else "cp437"),
            flags=info.flag_bits & ~_FLAG_DATA_DESCRIPTOR,
            method=info.compress_type,
            date_time=info.date_time,
            crc=info.CRC,
            csize=info.compress_size,
            usize=info.file_size,
            offset=self._pos,
            external_attr=info.external_attr,
            internal_attr=info.internal_attr,
            create_system=info.create_system,
            create_version=info.create_version,
            extract_version=info.extract_version,
        )
        self._local_header(entry)
        if small and len(block) >= skip + info.compress_size:
            self._emit(block[skip:skip + info.compress_size])
        else:
            self._copy_range(src_fd, data_offset, info.compress_size, info.filename)
        self._entries.append(entry)

    def write(self, name: str, data: bytes, *, date_time: Tuple[int, ...], mode: int = 0o644,
              compress: bool = True) -> None:
        """Add a new member (deflated unless ``compress`` is false)."""
        if compress:
            packer = zlib.compressobj(6, zlib.DEFLATED, -15)
            payload = packer.compress(data) + packer.flush()
        else:
            payload = data
        try:
            encoded, flags = name.encode("ascii"), 0
        except UnicodeEncodeError:
            encoded, flags = name.encode("utf-8"), _FLAG_UTF8
        entry = _Entry(
            name=encoded, flags=flags, method=zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED,
            date_time=date_time, crc=zlib.crc32(data), csize=len(payload), usize=len(data),
            offset=self._pos, external_attr=(0o100000 | mode) << 16, internal_attr=0,
            create_system=3, create_version=20, extract_version=20,
        )
        self._local_header(entry)
        self._emit(payload)
        self._entries.append(entry)

    def close(self) -> None:
        """Write the central directory and the end records."""
        cd_start = self._pos
        for e in self._entries:
            values = [(e.usize, e.usize >= _ZIP64_LIMIT), (e.csize, e.csize >= _ZIP64_LIMIT),
                      (e.offset, e.offset >= _ZIP64_LIMIT)]
            big = [v for v, needed in values if needed]
            extra = struct.pack("<HH", 1, 8 * len(big)) + b"".join(struct.pack("<Q", v) for v in big) if big else b""
            version = max(e.extract_version, 45) if big else e.extract_version
            dos_time, dos_date = _dos_time(e.date_time)
            self._emit(_CENTRAL.pack(
                _CENTRAL_SIG, (e.create_system << 8) | max(e.create_version, version), version, e.flags,
                e.method, dos_time, dos_date, e.crc, _f32(e.csize), _f32(e.usize),
                len(e.name), len(extra), 0, 0, e.internal_attr, e.external_attr, _f32(e.offset),
            ))
            self._emit(e.name)
            self._emit(extra)
        cd_size = self._pos - cd_start
        count = len(self._entries)
        many = count >= _ZIP64_COUNT_LIMIT
        if many or cd_size >= _ZIP64_LIMIT or cd_start >= _ZIP64_LIMIT:
            eocd64 = self._pos
            self._emit(_EOCD64.pack(0x06064B50, _EOCD64.size - 12, 45, 45, 0, 0, count, count,
                                    cd_size, cd_start))
            self._emit(_EOCD64_LOCATOR.pack(0x07064B50, 0, eocd64, 1))
        shown = _MAX16 if many else count
        self._emit(_EOCD.pack(0x06054B50, 0, 0, shown, shown, _f32(cd_size), _f32(cd_start), 0))
        self._flush()


def _source_record(zf: zipfile.ZipFile, record_name: str) -> Dict[str, Tuple[str, int]]:
    """name -> (hash field, size) from the source's RECORD, strong hashes only."""
    try:
        text = zf.read(record_name).decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return {}
    rows: Dict[str, Tuple[str, int]] = {}
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 3 or "=" not in row[1]:
            continue
        algo = row[1].split("=", 1)[0]
        try:
            size = int(row[2])
        except ValueError:
            continue
        if algo in _GOOD_HASHES:
            rows[row[0]] = (row[1], size)
    return rows


def _stream_hash(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> str:
    h = hashlib.sha256()
    with zf.open(info) as member:
        for chunk in iter(lambda: member.read(_CHUNK), b""):
            h.update(chunk)
    return _hash_field(h.digest())


def _csv_field(text: str) -> str:
    """``text`` as :mod:`csv`'s default writer writes a field (RECORD is read with ``csv``)."""
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _create(path: Path) -> BinaryIO:
    # os.open with 0o666: the umask decides, as for any file a user creates
    # (tempfile.mkstemp would leave 0600 behind). Unbuffered: RawZipWriter
    # gathers its own writes and hands large copies to the kernel.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    return os.fdopen(fd, "wb", buffering=0)


class WheelSource:
    """A wheel opened once: its members (``infos``), small members on demand
    (:meth:`read`, e.g. METADATA for a transform), and :meth:`rewrite`."""

    def __init__(self, path: PathLike) -> None:
        self.path = Path(path)
        try:
            self._zf = zipfile.ZipFile(self.path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise WheelZipError(f"{self.path}: cannot be read as a wheel ({exc})") from None
        self.infos: List[zipfile.ZipInfo] = self._zf.infolist()

    def __enter__(self) -> "WheelSource":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._zf.close()

    @property
    def names(self) -> List[str]:
        return [i.filename for i in self.infos]

    def read(self, name: str) -> bytes:
        return self._zf.read(name)

    def rewrite(self, dest: PathLike, *, record_name: str, replace: Mapping[str, bytes],
                date_time: Tuple[int, ...], drop: Collection[str] = ()) -> Path:
        """Copy this wheel to ``dest`` with the members in ``replace`` (name ->
        new bytes) replaced in place or added before ``RECORD``, those in
        ``drop`` left out, and ``RECORD`` (``record_name``) written anew, last.
        Every other member is copied raw.

        ``dest`` appears atomically (a temporary name in its folder, renamed).
        """
        dest_path = Path(dest)
        # Shorter than the name it stands for: a name near the file system's limit still fits.
        tmp = dest_path.with_name(f".{dest_path.name[:64]}.{os.getpid()}.tmp")
        with replacing(tmp, dest_path):
            with open(self.path, "rb", buffering=0) as raw, _create(tmp) as out:
                self._write(RawZipWriter(out.fileno()), raw.fileno(), record_name, replace, date_time,
                            frozenset(drop))
        return dest_path

    def _write(self, writer: RawZipWriter, src_fd: int, record_name: str,
               replace: Mapping[str, bytes], date_time: Tuple[int, ...], drop: AbstractSet[str]) -> None:
        known = _source_record(self._zf, record_name)
        rows: List[str] = []
        seen = set()
        for info in self.infos:
            name = info.filename
            if name == record_name or name in drop:
                continue
            hashed = not info.is_dir() and not name.endswith(_UNHASHED_RECORD_SUFFIXES)
            if name in replace:
                if name in seen:
                    continue  # a duplicate entry of a replaced member
                data = replace[name]
                writer.write(name, data, date_time=date_time, mode=(info.external_attr >> 16) & 0o777 or 0o644)
                row_hash, size = record_hash(data), len(data)
            else:
                writer.copy_raw(src_fd, info)
                row = known.get(name) if hashed else None
                if not hashed:
                    seen.add(name)
                    continue
                if row is not None and row[1] == info.file_size:
                    row_hash, size = row
                else:
                    try:
                        row_hash, size = _stream_hash(self._zf, info), info.file_size
                    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
                        raise WheelZipError(f"{self.path}: {name} is damaged ({exc}): the wheel "
                                            "cannot be installed; build it again") from None
            seen.add(name)
            if hashed:
                rows.append(f"{_csv_field(name)},{row_hash},{size}")
        for name, data in replace.items():
            if name in seen or name == record_name:
                continue
            writer.write(name, data, date_time=date_time)
            rows.append(f"{_csv_field(name)},{record_hash(data)},{len(data)}")
        rows.append(f"{_csv_field(record_name)},,")
        # RECORD goes last, as wheel builders write it.
        writer.write(record_name, ("\n".join(rows) + "\n").encode("utf-8"), date_time=date_time)
        writer.close()


def rewrite_wheel(
    src: PathLike,
    dest: PathLike,
    *,
    record_name: str,
    replace: Mapping[str, bytes],
    date_time: Tuple[int, ...],
) -> Path:
    """:meth:`WheelSource.rewrite` of wheel ``src`` in one call."""
    with WheelSource(src) as source:
        return source.rewrite(dest, record_name=record_name, replace=replace, date_time=date_time)
