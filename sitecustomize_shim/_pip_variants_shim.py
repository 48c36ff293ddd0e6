"""pip-variants start-up shim for Python 3.15+ (PEP 829 ``pip_variants.start``).

Every Python process of the environment runs the start-up hook, so it must
cost next to nothing: no imports beyond ``os``/``sys`` (already loaded), no
classes. The module object itself is the ``sys.meta_path`` finder; it wakes up
only when a ``pip._internal`` module is imported, then hands over to
``pip_variants._bootstrap``. A missing ``pip_variants`` package leaves Python
silent and pip stock.

Before 3.15 (and on 3.15+ should the ``.start`` file be gone), the one line of
``pip_variants.pth`` does the same without importing this module: importing a
module through ``sys.path`` at every start-up costs more than compiling one
line, and far more when no ``.pyc`` can be written (``PYTHONDONTWRITEBYTECODE``,
read-only or uncompiled installs). Readable, that line is::

    import sys
    if "_pip_variants_pth" not in sys.modules:        # site.py may run a .pth twice
        # what follows runs in a namespace of its own, exec(..., {"sys": sys}): a
        # finder whose globals were site.py's would cost 3.10 and 3.11 ~1% at exit
        m = sys.modules["_pip_variants_pth"] = type(sys)("_pip_variants_pth")
        m._pip_variants_finder = 1
        def find_spec(n, p=None, t=None):           # asked on every import
            if n[:13] != "pip._internal":
                return None
            g = {"n": n, "p": p, "t": t}
            exec(HANDOVER, g)                       # compiled in pip processes only
            return g["r"]
        m.find_spec = find_spec
        sys.meta_path.insert(0, m)

where ``HANDOVER`` is::

    try:
        from pip_variants._bootstrap import take_over
        r = take_over(n, p, t)      # removes this finder, honours PIP_NO_VARIANTS
    except Exception:               # pip-variants gone or broken: stay stock, silently
        import sys
        r = sys.modules.get("_pip_variants_pth")
        r in sys.meta_path and sys.meta_path.remove(r)
        r = None
"""
import os
import sys

_pip_variants_finder = True


def find_spec(name, path=None, target=None):
    if name[:13] != "pip._internal":
        return None
    try:
        from pip_variants import _bootstrap
    except Exception:
        return None
    return _bootstrap.find_spec(name, path, target)


def install():
    """PEP 829 ``.start`` entry point; importing this module already did the work."""


def _kill_switch():
    # Read as pip reads PIP_NO_VARIANTS: empty or a false word means "not set".
    value = os.environ.get("PIP_NO_VARIANTS", "").lower()  # not stripped, as pip reads it
    return bool(value) and value not in ("n", "no", "f", "false", "off", "0")


if not _kill_switch() and sys.modules.get(__name__) not in sys.meta_path:
    sys.meta_path.insert(0, sys.modules[__name__])
