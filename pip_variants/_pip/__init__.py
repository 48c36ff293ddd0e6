"""The pip integration: the only code in pip-variants that imports ``pip._internal``.

:func:`patch_module` is called by the start-up hook (:mod:`pip_variants._bootstrap`)
right after pip executes one of the watched modules; :func:`install` patches
every hook point at once (tests, programmatic use) and :func:`uninstall`
restores every patched attribute.

Hooks, one module each (PIP-HOOKS §10): H1 :mod:`.wheel`, H2–H5 :mod:`.finder`,
H6 :mod:`.sources`, H7 :mod:`.factory`, H8 :mod:`.req_command`, H9
:mod:`.report`, H10 :mod:`.prepare`, H11 :mod:`.options`, H12 :mod:`.candidates`, H13
:mod:`.markers` (variant environment markers). Release
differences live in :mod:`._compat`.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Callable, Dict, List, Tuple

from . import _compat, _patching, messages, state

__all__ = ["install", "uninstall", "patch_module", "HOOKS", "patched_attributes"]


def _hook(module_name: str) -> Callable[[ModuleType], None]:
    return importlib.import_module(f"{__name__}.{module_name}").patch  # type: ignore[no-any-return]


#: watched pip module -> our hook module (the bootstrap watches the same names)
HOOKS: Dict[str, str] = {
    "pip._internal.models.wheel": "wheel",
    "pip._internal.index.package_finder": "finder",
    "pip._internal.index.sources": "sources",
    "pip._internal.resolution.resolvelib.factory": "factory",
    "pip._internal.resolution.resolvelib.candidates": "candidates",
    "pip._internal.cli.req_command": "req_command",
    "pip._internal.models.installation_report": "report",
    "pip._internal.operations.prepare": "prepare",
    "pip._internal.commands.install": "options",
    "pip._internal.commands.download": "options",
    "pip._internal.commands.wheel": "options",
    "pip._internal.commands.lock": "options",
    "pip._internal.metadata.importlib._dists": "markers",
    "pip._internal.metadata.pkg_resources": "markers",
    "pip._internal.resolution.resolvelib.provider": "markers",
}


def patch_module(module: ModuleType) -> None:
    """Apply the hooks of one freshly executed pip module (idempotent)."""
    hook = HOOKS.get(module.__name__)
    if hook is None or not _compat.in_tested_range():
        return
    _hook(hook)(module)


def install() -> List[str]:
    """Import and patch every watched pip module available; returns their names."""
    done = []
    for name in HOOKS:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue  # e.g. commands.lock before pip 25.1
        patch_module(module)
        done.append(name)
    return done


def uninstall() -> None:
    """Restore every patched attribute and forget the process state."""
    _patching.restore_all()
    state.reset()
    messages.reset()


def patched_attributes() -> List[Tuple[type, str]]:
    return _patching.applied()
