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
from typing import Iterator, Union

__all__ = ["replacing", "write_file"]

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

    A symbolic link is followed: its target is replaced, the link stays. A
    FIFO, a device (``/dev/stdout``, ``/dev/full``) or any other file that is
    not a regular one is written to directly, never replaced by a regular
    file. A regular file (or a new one) is replaced atomically.
    """
    real = os.path.realpath(os.fspath(dest))
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode):
        with open(real, "wb") as f:
            f.write(data)
        return
    folder, name = os.path.split(real)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    with replacing(tmp, real), open(tmp, "wb") as f:
        f.write(data)
