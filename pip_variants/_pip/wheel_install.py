"""H22: an install from a wheel without a label is recorded as non-variant.

PEP 825: a wheel without a label is a non-variant wheel, even when it carries
a ``variant.json`` (a labelled build copied to a plain name for older
installers keeps its file). Selection already treats it so; once installed,
nothing in the ``.dist-info`` says which file it came from, and readers of the
installed ``variant.json`` (variant markers in ``pip check``, ``pip show``,
``pip-variants check``) would take it for the variant the file describes. So
after pip installs such a wheel, :func:`pip_variants.installed.mark_installed_without_label`
adds a ``NON-VARIANT`` file to its ``.dist-info``; :func:`installed_without_label`
is what the hooks ask of an installed distribution.

Patched: ``pip._internal.operations.install.wheel.install_wheel``, which
``InstallRequirement.install`` calls (imported at the top of ``req_install``
before pip 25, inside the method since; the bootstrap patches the module as
soon as it runs, so both bind the wrapper). A labelled wheel, or a plain one
without ``variant.json`` (every ordinary install), costs two ``stat`` calls.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from . import _patching, messages

__all__ = ["patch", "installed_without_label"]


def installed_without_label(dist: Any) -> bool:
    """Was pip's installed distribution ``dist`` marked as installed from a
    wheel without a label (its ``variant.json`` then does not apply)?"""
    from ..installed import NON_VARIANT_FILE

    try:
        dist.read_text(NON_VARIANT_FILE)
    except Exception:  # FileNotFoundError: a variant install, or one pip-variants did not see
        return False
    return True


def _mark_if_plain(wheel_path: str, scheme: Any) -> None:
    filename = os.path.basename(wheel_path)
    name, _, rest = filename.partition("-")
    info = f"{name}-{rest.partition('-')[0]}.dist-info"
    for lib in dict.fromkeys((scheme.purelib, scheme.platlib)):
        # variant.json first: a plain install pays two stat calls, not the filename parser's import
        if os.path.isfile(os.path.join(lib, info, "variant.json")):
            from .wheel import split_label

            plain, label = split_label(filename)
            if plain is not None and label is None:
                from ..installed import mark_installed_without_label

                mark_installed_without_label(lib, info)
            return


def _wrap_install_wheel(original: Callable[..., Any]) -> Callable[..., Any]:
    def install_wheel(name: str, wheel_path: str, scheme: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(name, wheel_path, scheme, *args, **kwargs)
        try:
            _mark_if_plain(wheel_path, scheme)
        except Exception as exc:  # the install itself succeeded: never fail it here
            messages.debug(f"pip-variants: could not mark {os.path.basename(wheel_path)} as non-variant ({exc})")
        return result

    return install_wheel


def patch(module: Any) -> None:
    # A convenience, like H20: a newer pip without this function installs as stock pip does.
    if callable(module.__dict__.get("install_wheel")):
        _patching.patch(module, "install_wheel", _wrap_install_wheel)
