"""User-facing errors, as pip's own exception types.

pip's command runner prints an ``InstallationError`` as one ``ERROR:`` line
and exits with status 1, with no traceback.
"""

from __future__ import annotations

from ._compat import InstallationError, UnsupportedWheel

__all__ = ["VariantInstallationError", "UnsupportedVariantWheel"]


class VariantInstallationError(InstallationError):
    """A variant choice the user asked for cannot be honoured (``--variant``,
    ``--variant-strict``, an unreadable ``--variant-profile``)."""


class UnsupportedVariantWheel(UnsupportedWheel):
    """A local or direct-URL variant wheel that this machine does not support."""
