"""H20: ``pip list --outdated/--uptodate`` and ``pip index versions`` see variant wheels.

These commands build their own finder (``ListCommand._build_package_finder``,
``IndexCommand._build_package_finder``), not H8's, so variant selection stays
off there and, without this hook, H1 keeps rejecting labelled file names: a
release published only as variant wheels (torch on a variant index) looked
absent, ``pip list -o`` never offered its update and ``pip index versions``
said "No matching distribution".

Here labelled names are accepted as the wheels they are: a version counts when
one of its wheels fits this interpreter's tags, whatever its variant. No
provider runs and no ``variants.json`` is fetched: these commands only ask
which versions exist. Whether a variant of the newest fits this machine is
``pip install``'s question (and ``pip-variants explain``'s).
"""

from __future__ import annotations

from typing import Any, Callable

from . import _patching
from .state import STATE

__all__ = ["patch"]


def _wrap_build_package_finder(original: Callable[..., Any]) -> Callable[..., Any]:
    def _build_package_finder(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not (STATE.broken or STATE.stepped_aside or STATE.enabled):
            from . import verify_untested_pip

            # On a newer pip, only once every hook point passed its shape check:
            # this command must not offer what that pip's install cannot take.
            if verify_untested_pip():
                STATE.labels = True
        return original(self, *args, **kwargs)

    return _build_package_finder


def patch(module: Any) -> None:
    for name in ("ListCommand", "IndexCommand"):
        command = getattr(module, name, None)
        if isinstance(command, type):
            _patching.patch(command, "_build_package_finder", _wrap_build_package_finder)
