"""Start-up hook: make pip variant-aware once pip imports its internals.

Imported the first time a ``pip._internal`` module is imported, by the
start-up hook: the one-line finder of ``pip_variants.pth`` (which calls
:func:`take_over`) or, on Python 3.15+, the ``_pip_variants_shim`` module named
by ``pip_variants.start``. So only pip processes pay for this module. It
imports nothing beyond what the interpreter has already loaded (``sys``,
``os``), never imports pip itself, and never raises.

Order (PIP-HOOKS §7.2): the ``PIP_NO_VARIANTS`` kill switch first, then an
idempotence check, then a ``sys.meta_path`` finder that wraps the loaders of
the watched ``pip._internal`` modules; modules already imported are patched
at once. The patches themselves live in :mod:`pip_variants._pip`.
"""

import os
import sys

__all__ = ["install", "uninstall", "take_over", "kill_switch_set", "WATCHED", "TESTED_RANGE"]

#: The modules whose classes pip-variants patches (PIP-HOOKS §10).
WATCHED = frozenset(
    (
        "pip._internal.models.wheel",
        "pip._internal.index.package_finder",
        "pip._internal.index.sources",
        "pip._internal.resolution.resolvelib.factory",
        "pip._internal.resolution.resolvelib.candidates",
        "pip._internal.resolution.resolvelib.found_candidates",
        "pip._internal.resolution.resolvelib.resolver",
        "pip._internal.resolution.legacy.resolver",
        "pip._internal.cli.req_command",
        "pip._internal.models.installation_report",
        "pip._internal.operations.prepare",
        "pip._internal.commands.install",
        "pip._internal.commands.download",
        "pip._internal.commands.wheel",
        "pip._internal.commands.lock",
        "pip._internal.commands.show",
        "pip._internal.commands.inspect",
        "pip._internal.commands.list",
        "pip._internal.commands.index",
        "pip._internal.metadata.importlib._dists",
        "pip._internal.metadata.pkg_resources",
        "pip._internal.operations.install.wheel",
    )
)

#: pip releases the hooks were verified against: 23.2 up to 26.3.x. Older
#: releases are refused; newer ones are let through to :mod:`pip_variants._pip`,
#: which checks the shape of every hook point before patching (``_pip/shape.py``).
TESTED_RANGE = ((23, 2), (26, 3))

# pip's own reading of boolean environment values (``strtobool``): these words
# mean "not set"; empty values are dropped by pip before it looks at them.
_FALSE_WORDS = frozenset(("n", "no", "f", "false", "off", "0"))

_MARKER = "_pip_variants_finder"
#: The ``sys.modules`` name of the finder ``pip_variants.pth`` installs at start-up.
_STARTUP_FINDER = "_pip_variants_pth"


def kill_switch_set(environ=None):
    """Is ``PIP_NO_VARIANTS`` set the way pip would read it as true?

    Empty or a false word: not set. Anything else, including values pip would
    reject: set, so that an invalid value fails safe to stock pip. As pip, no
    whitespace is stripped: pip rejects ``" 0"``, and stock pip, which has no
    ``--no-variants`` option, ignores it.
    """
    value = (os.environ if environ is None else environ).get("PIP_NO_VARIANTS")
    if not value:
        return False
    return value.lower() not in _FALSE_WORDS


def _warn(message):
    try:
        sys.stderr.write("WARNING: " + message + "\n")
    except Exception:
        pass


def _parse_release(text):
    """``"26.2.1"`` -> ``(26, 2)``; ``None`` when it is not ``N.N...``."""
    parts = str(text).split(".")
    try:
        return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or "x")
    except (IndexError, ValueError):
        return None


class _Gate:
    """The pip version gate, decided once, on the first watched import.

    Releases older than the tested range stay stock (the hooks rely on what
    23.2 introduced). Newer releases pass: each hook checks the shape of what
    it patches before patching (:mod:`pip_variants._pip.shape`).
    """

    decided = False
    allowed = False

    @classmethod
    def check(cls):
        if cls.decided:
            return cls.allowed
        cls.decided = True
        pip = sys.modules.get("pip")
        version = getattr(pip, "__version__", None)
        release = _parse_release(version) if version else None
        low, high = TESTED_RANGE
        cls.allowed = release is not None and low <= release
        if not cls.allowed:
            _warn(
                "pip-variants: pip %s is not supported (tested %d.%d\u2013%d.%d); "
                "variant wheels are ignored" % ((version or "?",) + low + high)
            )
        return cls.allowed


_broken = []  # type: list[bool]


def _patch(module):
    if _broken:  # one failure already reported: the rest of pip stays stock
        return
    try:
        from pip_variants import _pip

        _pip.patch_module(module)
    except Exception as exc:  # never break pip's own import
        _broken.append(True)
        _warn(
            "pip-variants: internal error while patching %s: %s: %s; "
            "falling back to stock pip behaviour" % (module.__name__, type(exc).__name__, exc)
        )
        try:
            from pip_variants._pip import _patching, state

            state.STATE.broken = True
            _patching.restore_all()  # what was patched before the failure goes too
        except Exception:
            pass


class _ProxyLoader:
    """Runs the real loader, then patches the fresh module.

    A proxy per module, never a replaced ``exec_module`` on the real loader:
    under ``zipimport`` one ``zipimporter`` instance serves every module of the
    archive (PIP-HOOKS §7.3).
    """

    def __init__(self, loader):
        self._pv_loader = loader

    def create_module(self, spec):
        create = getattr(self._pv_loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        self._pv_loader.exec_module(module)
        _patch(module)

    def __getattr__(self, name):
        return getattr(self._pv_loader, name)


class _LegacyProxyLoader:
    """For loaders with only ``load_module`` (``zipimporter`` before 3.10)."""

    def __init__(self, loader):
        self._pv_loader = loader

    def load_module(self, fullname):
        module = self._pv_loader.load_module(fullname)
        _patch(module)
        return module

    def __getattr__(self, name):
        return getattr(self._pv_loader, name)


class _Finder:
    """A ``sys.meta_path`` finder that only wraps the loaders of ``WATCHED``."""

    _pip_variants_finder = True

    def __init__(self):
        self._busy = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in WATCHED or fullname in self._busy:
            return None
        try:
            if not _Gate.check():
                return None
            self._busy.add(fullname)
            try:
                spec = None
                for finder in list(sys.meta_path):
                    if getattr(finder, _MARKER, False):
                        continue
                    find = getattr(finder, "find_spec", None)
                    if find is None:
                        continue
                    spec = find(fullname, path, target)
                    if spec is not None:
                        break
            finally:
                self._busy.discard(fullname)
            loader = getattr(spec, "loader", None)
            if loader is None or isinstance(loader, (_ProxyLoader, _LegacyProxyLoader)):
                return spec
            if hasattr(loader, "exec_module"):
                spec.loader = _ProxyLoader(loader)
            elif hasattr(loader, "load_module"):
                spec.loader = _LegacyProxyLoader(loader)
            return spec
        except Exception:
            # Let the normal machinery import the module unpatched.
            return None

    def invalidate_caches(self):
        pass


_FINDER = _Finder()


def _installed():
    for finder in sys.meta_path:
        if getattr(finder, _MARKER, False):
            return finder
    return None


def find_spec(name, path=None, target=None):
    """What the start-up shim (``_pip_variants_shim``) delegates to."""
    return _FINDER.find_spec(name, path, target)


def _patch_already_imported():
    # Modules imported before the hook (pip imported first, then the hook
    # installed by hand) are patched at once; patching twice is a no-op.
    already = [sys.modules[name] for name in WATCHED if name in sys.modules]
    if already and _Gate.check():
        for module in already:
            _patch(module)


def _drop_startup_finder():
    # The .pth finder has done its job once this module runs: from here on
    # _FINDER (or the 3.15+ shim module) answers. Its sys.modules entry stays,
    # so a second run of the .pth line does not put it back.
    try:
        sys.meta_path.remove(sys.modules.get(_STARTUP_FINDER))
    except ValueError:  # not there (never was, already gone, another thread was quicker)
        pass


def install():
    """Activate the import hook (idempotent; never raises).

    Takes the place of the ``.pth`` start-up finder; the 3.15+ shim module
    (``.start``) stays and delegates here. Without either (imported by hand)
    this inserts the finder itself.
    """
    try:
        _drop_startup_finder()
        if kill_switch_set():
            return
        if _installed() is None:
            sys.meta_path.insert(0, _FINDER)
        _patch_already_imported()
    except Exception:
        pass


def take_over(name, path=None, target=None):
    """What the ``.pth`` finder calls on the first ``pip._internal`` import:
    install the hook (kill switch honoured) and answer for ``name``."""
    install()
    if _installed() is None:
        return None
    return _FINDER.find_spec(name, path, target)


def uninstall():
    """Remove the import hooks, the start-up ones too (patches already applied stay; see ``_pip.uninstall``)."""
    try:
        sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, _MARKER, False)]
    except Exception:
        pass


install()
