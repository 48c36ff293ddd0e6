"""User-facing errors, as pip's own exception types.

pip's command runner prints an ``InstallationError`` as one ``ERROR:`` line
and exits with status 1, with no traceback.
"""

from __future__ import annotations

from typing import Optional

from ._compat import InstallationError, UnsupportedWheel
from .messages import shown

__all__ = ["VariantInstallationError", "UnsupportedVariantWheel", "as_user_error"]


class VariantInstallationError(InstallationError):
    """A variant choice the user asked for cannot be honoured (``--variant``,
    ``--variant-strict``, an unreadable ``--variant-profile``). pip prints the
    message itself: index text in it is escaped here (:func:`.messages.shown`)."""

    def __init__(self, message: object = "", *args: object) -> None:
        super().__init__(shown(str(message)), *args)


class UnsupportedVariantWheel(UnsupportedWheel):
    """A local or direct-URL variant wheel that this machine does not support."""

    def __init__(self, message: object = "", *args: object) -> None:
        super().__init__(shown(str(message)), *args)


def as_user_error(exc: Exception, about: str = "") -> Optional[VariantInstallationError]:
    """The pip error for a selection error the user can act on (``--variant``
    naming a missing label, a ``--variant-strict`` failure), ``None`` for a bug.
    ``about`` (a wheel's filename) goes first when the message would not name it."""
    try:
        from ..engine import StrictVariantError, VariantLabelNotFound
        from ..filename import canonicalize_name
    except Exception:  # noqa: BLE001 - the engine itself cannot load (a broken install): a bug, said as one
        return None
    from .state import variant_option

    prefix = f"{about}: " if about else ""
    if isinstance(exc, VariantLabelNotFound):
        return VariantInstallationError(f"{prefix}{exc.worded(variant_option(canonicalize_name(exc.project), exc.label))}")
    if isinstance(exc, StrictVariantError):
        return VariantInstallationError(f"{prefix}{exc} (--variant-strict makes this an error)")
    return None
