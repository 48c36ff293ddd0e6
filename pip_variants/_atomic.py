"""Write a file beside its destination, then rename it into place.

Readers (another Python starting, a web server, a second pip) see the old file
or the new one, never half of one: the rename stays within one folder, so it
is atomic on POSIX and Windows. Used where pip-variants writes files others
read while it runs: the start-up shim, the variants.json cache, wheels.
"""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager
from typing import Iterator, Tuple, Union

__all__ = ["replacing", "write_file", "write_new"]

PathLike = Union[str, "os.PathLike[str]"]


@contextmanager
def replacing(tmp: PathLike, dest: PathLike) -> Iterator[None]:
    """Run the block that writes ``tmp``, then rename ``tmp`` over ``dest``.

    On any failure, ``KeyboardInterrupt`` included, ``tmp`` is removed and the
    error goes on; ``dest`` is left as it was.
    """
    try:
        yield
        os.replace(tmp, dest)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_file(dest: PathLike, data: bytes) -> None:
    """Write ``data`` to ``dest`` as a user naming an output file means it.

    A FIFO, a device, or a path under ``/dev`` or ``/proc`` (``/dev/stdout``
    on a pipe or on a file the shell appends to, ``/dev/fd/63``) is written
    to directly, appending, never replaced by a regular file. A symbolic link
    to a regular file is followed: its target is replaced, the link stays. A
    regular file (or a new one) is replaced atomically, keeping its mode.
    """
    path = os.fspath(dest)
    try:
        st: "os.stat_result | None" = os.stat(path)
    except FileNotFoundError:
        st = None
    if path.startswith(("/dev/", "/proc/")) or (st is not None and not stat.S_ISREG(st.st_mode)):
        with open(path, "ab") as f:
            f.write(data)
        return
    real = os.path.realpath(path)
    tmp, fd = _temporary_beside(real)
    with replacing(tmp, real), open(fd, "wb") as f:
        f.write(data)
        if st is not None:
            os.chmod(tmp, stat.S_IMODE(st.st_mode))


def write_new(dest: PathLike, data: bytes) -> None:
    """Replace ``dest`` with a new regular file holding ``data``, atomically.

    For files published from a folder others may write to: neither a link
    planted at ``dest`` nor one at the temporary name is written through.
    """
    path = os.fspath(dest)
    tmp, fd = _temporary_beside(path)
    with replacing(tmp, path), open(fd, "wb") as f:
        f.write(data)


def _temporary_beside(path: str) -> Tuple[str, int]:
    """A new file next to ``path`` to rename over it, and its descriptor."""
    folder, name = os.path.split(path)
    # Shorter than the name it stands for: a name near the file system's limit still fits.
    tmp = os.path.join(folder, f".{name[:64]}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    # O_EXCL: never write through something planted at the temporary name.
    return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
