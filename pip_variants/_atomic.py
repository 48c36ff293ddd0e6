"""Write a file beside its destination, then rename it into place.

Readers (another Python starting, a web server, a second pip) see the old file
or the new one, never half of one: the rename stays within one folder, so it
is atomic on POSIX and Windows. Used where pip-variants writes files others
read while it runs: the start-up shim, the variants.json cache, wheels.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator, Union

__all__ = ["replacing"]

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
