"""``pip-variants activate|deactivate``: add or remove the start-up shim
(``pip_variants.pth`` / ``pip_variants.start``) of an environment."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Iterable, Optional

from . import CLIError, add_subcommand, print_json

__all__ = ["register"]


def _activation():  # type: ignore[no-untyped-def]
    try:
        from .. import activation
    except ImportError as exc:
        raise CLIError(f"this pip-variants cannot (de)activate environments: {exc}") from None
    return activation


def _paths(result: Any) -> list:
    # activate()/deactivate() may report the files they touched; show them if so.
    if isinstance(result, (str, os.PathLike)):
        return [os.fspath(result)]
    if isinstance(result, Iterable) and not isinstance(result, (bytes, dict)):
        return [os.fspath(p) if isinstance(p, (str, os.PathLike)) else str(p) for p in result]
    return []


def _do(args: argparse.Namespace, action: str) -> int:
    activation = _activation()
    prefix: Optional[str] = args.prefix
    if prefix is not None and not os.path.isdir(prefix):
        raise CLIError(f"{prefix}: no such environment directory (give the venv's root, e.g. .venv)")
    func = getattr(activation, action)
    # activation raises ActivationError (an OSError whose message says what
    # to do); main() prints it as one line.
    result = func(prefix=prefix)
    active = activation.is_active(prefix=prefix)
    where = prefix or sys.prefix
    if args.json:
        print_json({"prefix": where, "active": bool(active), "files": _paths(result)})
    else:
        state = "active" if active else "not active"
        for path in _paths(result):
            sys.stdout.write(f"{'wrote' if action == 'activate' else 'removed'} {path}\n")
        sys.stdout.write(f"pip-variants is now {state} in {where}\n")
    expected = action == "activate"
    return 0 if bool(active) == expected else 1


_ACTIVATE_EXAMPLES = """\
  pip-variants activate                     # this environment
  pip-variants activate --prefix .venv      # another venv (pip-variants must be importable there)"""
_DEACTIVATE_EXAMPLES = """\
  pip-variants deactivate                   # pip stays stock; pip-variants stays installed
  PIP_NO_VARIANTS=1 pip install torch       # or turn it off for one command only"""


def register(sub) -> None:  # type: ignore[no-untyped-def]
    for name, action, help_text, examples, desc in (
        ("activate", "activate", "install the start-up shim so pip picks variants",
         _ACTIVATE_EXAMPLES,
         "Add the start-up files (pip_variants.pth, and pip_variants.start for Python 3.15+) to the\n"
         "site-packages of this environment (or of --prefix), so every pip run there is variant-aware.\n"
         "Installing pip-variants does this already; use it after 'deactivate'."),
        ("deactivate", "deactivate", "remove the start-up shim: pip is stock again",
         _DEACTIVATE_EXAMPLES,
         "Remove the start-up files from this environment (or --prefix). pip-variants stays installed;\n"
         "'pip-variants activate' turns it back on."),
    ):
        p = add_subcommand(sub, name, help=help_text, description=desc, examples=examples,
                           handler=lambda args, a=action: _do(args, a))
        p.add_argument("--prefix", metavar="DIR", help="the environment to change (default: this one)")
        p.add_argument("--json", action="store_true", help="print JSON for machines")
