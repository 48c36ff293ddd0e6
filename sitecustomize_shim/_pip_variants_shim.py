"""pip-variants start-up shim: every Python process of the environment runs this.

It must cost next to nothing: no imports beyond ``os``/``sys`` (already
loaded), no classes. The module object itself is the ``sys.meta_path``
finder; it wakes up only when a ``pip._internal`` module is imported, then
hands over to ``pip_variants._bootstrap``. A missing ``pip_variants`` package
leaves Python silent and pip stock.
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
    value = os.environ.get("PIP_NO_VARIANTS", "").strip().lower()
    return bool(value) and value not in ("n", "no", "f", "false", "off", "0")


if not _kill_switch() and sys.modules.get(__name__) not in sys.meta_path:
    sys.meta_path.insert(0, sys.modules[__name__])
