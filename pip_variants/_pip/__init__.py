"""The pip integration: the only code in pip-variants that imports ``pip._internal``.

:func:`patch_module` is called by the start-up hook (:mod:`pip_variants._bootstrap`)
right after pip executes one of the watched modules; :func:`install` patches
every hook point at once (tests, programmatic use) and :func:`uninstall`
restores every patched attribute.

Hooks, one module each (PIP-HOOKS §10): H1 :mod:`.wheel`, H2–H5 :mod:`.finder`,
H6 :mod:`.sources`, H7 :mod:`.factory`, H8 :mod:`.req_command`, H9
:mod:`.report`, H10 :mod:`.prepare`, H11 :mod:`.options`, H12 :mod:`.candidates`, H13
:mod:`.show` (``pip show`` / ``inspect`` / ``list -v``), H14-H17 :mod:`.abi_resolution` (ABI
dependencies), H18 :mod:`.markers` (variant environment markers), H20 :mod:`.listing` (``pip list
-o`` and ``pip index versions`` see variant wheels), H21 :mod:`.legacy_resolver` (kept builds under
the legacy resolver), H22 :mod:`.wheel_install` (an install from a wheel without a label is marked
non-variant). Release differences live in :mod:`._compat`.

On a pip newer than the tested range, each watched module is patched only when
:func:`.shape.problems` finds every hook point with the shape its hook expects;
:func:`verify_untested_pip` checks the modules not imported yet before the
first hook acts, then prints one notice naming the untested release. Any
mismatch: every patch is restored and pip stays stock, with one warning.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Callable, Dict, List, Optional, Tuple

from . import _compat, _patching, messages, state

__all__ = [
    "install", "uninstall", "patch_module", "HOOKS", "patched_attributes",
    "verify_untested_pip", "untested_pip_status",
]


def _hook(module_name: str) -> Callable[[ModuleType], None]:
    return importlib.import_module(f"{__name__}.{module_name}").patch


#: watched pip module -> our hook module (the bootstrap watches the same names)
HOOKS: Dict[str, Tuple[str, ...]] = {
    "pip._internal.models.wheel": ("wheel",),
    "pip._internal.index.package_finder": ("finder",),
    "pip._internal.index.sources": ("sources",),
    "pip._internal.resolution.resolvelib.factory": ("factory",),
    "pip._internal.resolution.resolvelib.candidates": ("candidates",),
    "pip._internal.resolution.resolvelib.found_candidates": ("abi_resolution",),
    "pip._internal.resolution.resolvelib.resolver": ("abi_resolution",),
    "pip._internal.resolution.legacy.resolver": ("legacy_resolver",),
    "pip._internal.cli.req_command": ("req_command",),
    "pip._internal.models.installation_report": ("report",),
    "pip._internal.operations.prepare": ("prepare",),
    "pip._internal.commands.install": ("options", "wheel_install"),
    "pip._internal.commands.download": ("options",),
    "pip._internal.commands.wheel": ("options",),
    "pip._internal.commands.lock": ("options",),
    "pip._internal.commands.show": ("show",),
    "pip._internal.commands.inspect": ("show",),
    "pip._internal.commands.list": ("show", "listing"),
    "pip._internal.commands.index": ("listing",),
    "pip._internal.metadata.importlib._dists": ("markers",),
    "pip._internal.metadata.pkg_resources": ("markers",),
    "pip._internal.operations.install.wheel": ("wheel_install",),
}


#: watched modules a newer pip may drop without harm: the deprecated
#: pkg_resources metadata backend and legacy resolver (H21 only), ``lock``
#: (absent before pip 25.1), and the experimental ``index`` command (H20 only)
_OPTIONAL_MODULES = frozenset(
    ("pip._internal.metadata.pkg_resources", "pip._internal.commands.lock", "pip._internal.commands.index",
     "pip._internal.resolution.legacy.resolver", "pip._internal.operations.install.wheel")
)


class _Untested:
    """Shape checks on a pip newer than the tested range (one process, one decision)."""

    #: what failed the shape check, once something did
    problems: List[str] = []
    #: ``None`` until every watched module has been checked, then the verdict
    verified: Optional[bool] = None


def _stderr(line: str) -> None:
    # Straight to stderr: pip's logging may not be set up yet (this can run while
    # pip imports its command modules), and pip logs INFO to stdout, where
    # `pip inspect` / `pip list --format=json` write JSON.
    try:
        sys.stderr.write(line + "\n")
    except Exception:
        pass


def _give_up(found: List[str]) -> None:
    first = not _Untested.problems
    _Untested.problems.extend(found)
    _Untested.verified = False
    _patching.restore_all()
    state.STATE.broken = True
    if first:
        _stderr(
            f"WARNING: pip-variants: pip {'.'.join(map(str, _compat.PIP_VERSION))} is newer than the tested "
            f"range ({_compat.tested_range_text()}) and has changed where pip-variants hooks in "
            f"({'; '.join(found)}); variant wheels are ignored and pip stays stock until "
            "pip-variants is updated"
        )


def patch_module(module: ModuleType) -> None:
    """Apply the hooks of one freshly executed pip module (idempotent)."""
    hooks = HOOKS.get(module.__name__)
    if hooks is None:
        return
    if _compat.in_tested_range():
        for hook in hooks:
            _hook(hook)(module)
        return
    if not _compat.newer_than_tested() or _Untested.problems:
        return
    from . import shape

    found = shape.problems(module)
    if found:
        _give_up(found)
        return
    for hook in hooks:
        _hook(hook)(module)


def verify_untested_pip() -> bool:
    """May the hooks act? Always on a tested pip; on a newer one, once every
    watched module has passed its shape check (imports the rest now: a hook point
    that is gone must turn variants off before the first variant is chosen)."""
    if _compat.in_tested_range():
        return True
    if _Untested.verified is not None:
        return _Untested.verified
    if not _compat.newer_than_tested():
        _Untested.verified = False
        return False
    for name in HOOKS:
        if _Untested.problems:
            break
        try:
            module = importlib.import_module(name)
        except ImportError:
            if name in _OPTIONAL_MODULES:
                continue  # nothing there to patch, nothing relied on
            _give_up([f"module {name} is gone"])
            break
        patch_module(module)
    if _Untested.problems:
        _Untested.verified = False
        return False
    _Untested.verified = True
    _stderr(
        f"pip-variants: pip {'.'.join(map(str, _compat.PIP_VERSION))} is newer than the tested range "
        f"({_compat.tested_range_text()}); every hook point has the expected shape, so variant "
        "selection stays on"
    )
    return True


def untested_pip_status() -> Dict[str, object]:
    """For ``pip-variants status``: is this pip tested, untested-and-fitting, or refused?"""
    if _compat.in_tested_range():
        mode = "tested"
    elif not _compat.newer_than_tested():
        mode = "unsupported"
    else:
        mode = "untested-compatible" if verify_untested_pip() else "untested-incompatible"
    return {
        "mode": mode,
        "pip": ".".join(map(str, _compat.PIP_VERSION)),
        "tested_range": _compat.tested_range_text(),
        "problems": list(_Untested.problems),
    }


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
    _Untested.problems = []
    _Untested.verified = None


def patched_attributes() -> List[Tuple[type, str]]:
    return _patching.applied()
