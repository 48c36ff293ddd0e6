"""Write or remove the start-up shim of an environment.

``pip install pip-variants`` puts ``pip_variants.pth``, ``pip_variants.start``
(PEP 829) and the tiny module they name, ``_pip_variants_shim.py``, at the
root of the wheel, hence into site-packages. ``pip-variants
activate/deactivate [--prefix DIR]`` manage exactly these three files for any environment prefix (a venv or a conda
prefix), e.g. after ``deactivate`` or for an environment where pip-variants
was installed with ``--target``.
"""

from __future__ import annotations

import errno
import os
import sys
import sysconfig
from pathlib import Path
from typing import List, Optional

__all__ = [
    "PTH_NAME",
    "START_NAME",
    "PTH_LINE",
    "START_LINE",
    "SHIM_MODULE_NAME",
    "ActivationError",
    "site_packages",
    "shim_files",
    "activate",
    "deactivate",
    "is_active",
]

PTH_NAME = "pip_variants.pth"
START_NAME = "pip_variants.start"

SHIM_MODULE_NAME = "_pip_variants_shim.py"
#: Every Python start-up runs this line: importing a module-sized finder is the
#: cheapest hook there is. The guard keeps Python silent when the shim module
#: is missing or broken (site.py would print a traceback at every start-up).
PTH_LINE = 'import sys; exec("try:\\n import _pip_variants_shim\\nexcept Exception:\\n pass")\n'
START_LINE = "_pip_variants_shim:install\n"


def _shim_source() -> str:
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / SHIM_MODULE_NAME, here.parent / "sitecustomize_shim" / SHIM_MODULE_NAME):
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    raise ActivationError(2, f"{SHIM_MODULE_NAME} is missing next to {here}: reinstall pip-variants")


class ActivationError(OSError):
    """The shim files cannot be written or removed; the message says what to do."""


def site_packages(prefix: Optional[str] = None) -> Path:
    """The purelib site-packages of the environment at ``prefix`` (default: this one)."""
    base = os.path.abspath(prefix if prefix is not None else sys.prefix)
    return Path(sysconfig.get_paths(vars={"base": base, "platbase": base})["purelib"])


def shim_files(prefix: Optional[str] = None) -> List[Path]:
    site = site_packages(prefix)
    return [site / PTH_NAME, site / START_NAME, site / SHIM_MODULE_NAME]


def _denied(site: Path, action: str, exc: OSError) -> ActivationError:
    return ActivationError(
        exc.errno,
        f"cannot {action} the pip-variants start-up files in {site}: the site-packages "
        f"directory is read-only for this user ({exc.strerror or exc}). Run the command as "
        "the user who owns the environment, or use a virtual environment you can write to.",
    )


def activate(prefix: Optional[str] = None) -> List[Path]:
    """Write the shim files; returns their paths."""
    site = site_packages(prefix)
    if not site.is_dir():
        raise ActivationError(
            2,
            f"no site-packages directory at {site}: is {prefix or sys.prefix} a Python "
            "environment (a venv or conda prefix)?",
        )
    written = []
    try:
        # The module first: a .pth line naming a module not yet there would fail.
        files = shim_files(prefix)
        for path, text in zip([files[2], files[0], files[1]], (_shim_source(), PTH_LINE, START_LINE)):
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, path)
            written.append(path)
    except OSError as exc:
        if isinstance(exc, PermissionError) or exc.errno == errno.EROFS:
            raise _denied(site, "write", exc) from None
        raise
    return written


def deactivate(prefix: Optional[str] = None) -> List[Path]:
    """Remove the shim files; returns the paths that were removed."""
    site = site_packages(prefix)
    removed = []
    try:
        for path in shim_files(prefix):
            if path.exists() or path.is_symlink():
                path.unlink()
                removed.append(path)
    except OSError as exc:
        if isinstance(exc, PermissionError) or exc.errno == errno.EROFS:
            raise _denied(site, "remove", exc) from None
        raise
    return removed


def is_active(prefix: Optional[str] = None) -> bool:
    """Is the start-up shim present (the ``.pth`` line is what runs before 3.15)?"""
    site = site_packages(prefix)
    return (site / PTH_NAME).is_file() or (site / START_NAME).is_file()
