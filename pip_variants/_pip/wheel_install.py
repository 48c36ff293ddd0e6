"""H22: an install from a wheel without a label is recorded as non-variant.

PEP 825: a wheel without a label is a non-variant wheel, even when it carries
a ``variant.json`` (a labelled build copied to a plain name for older
installers keeps its file). Selection already treats it so; once installed,
nothing in the ``.dist-info`` says which file it came from, and readers of the
installed ``variant.json`` (variant markers in ``pip check``, ``pip show``,
``pip-variants check``) would take it for the variant the file describes. So
after pip installs such a wheel, :func:`pip_variants._install_mark.mark_installed_without_label`
adds a ``NON-VARIANT`` file to its ``.dist-info``; :func:`installed_variant_json`
is how the hooks read an installed distribution's own ``variant.json``.

Patched: ``pip._internal.operations.install.wheel.install_wheel``, which
``InstallRequirement.install`` calls (imported at the top of ``req_install``
up to pip 26.0, inside the method in 26.3; the bootstrap patches the module
as soon as it runs, so both bind the wrapper). pip 26.3 refuses imports once
the install has started: when ``pip install`` loads, the modules the wrapper
needs join ``pip._EAGER_IMPORTS``, which pip imports just before (only a run
that installs pays for them).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

from . import _patching, messages

__all__ = ["patch", "installed_variant_json"]


def installed_variant_json(dist: Any) -> str:
    """The text of the ``variant.json`` of pip's installed distribution
    ``dist``; ``""`` where it has none (or pip cannot read it: a distribution
    made from a PEP 658 ``.metadata`` file) or where it was installed from a
    wheel without a label (marked by this hook: its ``variant.json`` does not apply)."""
    from .._install_mark import NON_VARIANT_FILE

    try:
        text = dist.read_text("variant.json")
    except Exception:  # FileNotFoundError: not a variant wheel
        return ""
    if not text:
        return ""
    try:
        dist.read_text(NON_VARIANT_FILE)
    except Exception:  # FileNotFoundError: a variant install, or one pip-variants did not see
        return text
    return ""


def _dist_info_with_variant_json(wheel_path: str, libs: Any) -> Any:
    """``(lib, name)`` of the installed ``.dist-info`` that holds a ``variant.json``,
    or ``None``. Its name is the wheel's ``{name}-{version}`` as a rule (two
    ``stat`` calls for a plain install); an archive whose folder is spelled
    otherwise (``Zope.Interface-1.0.dist-info`` in ``zope_interface-1.0-...whl``)
    is asked for its own."""
    filename = os.path.basename(wheel_path)
    name, _, rest = filename.partition("-")
    info = f"{name}-{rest.partition('-')[0]}.dist-info"
    if any(os.path.isdir(os.path.join(lib, info)) for lib in libs):
        found = [lib for lib in libs if os.path.isfile(os.path.join(lib, info, "variant.json"))]
        return (found[0], info) if found else None
    import zipfile

    with zipfile.ZipFile(wheel_path) as archive:
        names = [n[: -len("/variant.json")] for n in archive.namelist()
                 if n.count("/") == 1 and n.endswith(".dist-info/variant.json")]
    for lib in libs:
        for info in names:
            if os.path.isfile(os.path.join(lib, info, "variant.json")):
                return lib, info
    return None


def _mark_if_plain(wheel_path: str, scheme: Any) -> None:
    found = _dist_info_with_variant_json(wheel_path, list(dict.fromkeys((scheme.purelib, scheme.platlib))))
    if found is None:
        return
    from .._install_mark import mark_installed_without_label
    from .wheel import split_label

    plain, label = split_label(os.path.basename(wheel_path))
    if plain is not None and label is None:
        mark_installed_without_label(*found)


def _wrap_install_wheel(original: Callable[..., Any], module: Any) -> Callable[..., Any]:
    def install_wheel(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        if module.__dict__.get("install_wheel") is not install_wheel:
            # restored (pip-variants gave up, or uninstall()): req_install may still hold
            # this wrapper, bound by its own import before pip 26.3; act as stock pip
            return result
        wheel_path = kwargs.get("wheel_path", args[1] if len(args) > 1 else None)
        try:
            _mark_if_plain(str(wheel_path), kwargs.get("scheme", args[2] if len(args) > 2 else None))
        except Exception as exc:  # the install itself succeeded: never fail it here
            messages.debug(f"pip-variants: could not mark {wheel_path} as non-variant ({exc})")
        return result

    return install_wheel


#: what :func:`_mark_if_plain` imports (and ``messages.shown`` for an odd path), for pips that
#: block imports during the install
_NEEDED_DURING_INSTALL = ("pip_variants.filename", "pip_variants._install_mark", "pip_variants._display")


def patch(module: Any) -> None:
    if module.__name__.endswith(".commands.install"):
        # pip's own hook for tools like this one (26.3+; absent before): a set of module names
        eager = getattr(sys.modules.get("pip"), "_EAGER_IMPORTS", None)
        if isinstance(eager, set):
            eager.update(_NEEDED_DURING_INSTALL)
        return
    # A convenience, like H20: a newer pip without this function installs as stock pip does.
    if callable(module.__dict__.get("install_wheel")):
        _patching.patch(module, "install_wheel", lambda original: _wrap_install_wheel(original, module))
