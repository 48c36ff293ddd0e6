"""``pip-variants activate|deactivate``: add or remove the start-up shim
(``pip_variants.pth`` / ``pip_variants.start``) of an environment."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path
from typing import Any, Iterable, List, Optional

from .._display import shell_word
from . import CLIError, add_subcommand, environment_python, print_json

__all__ = ["register"]


def _activation():
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


def _has_pip_variants(activation: Any, prefix: str) -> bool:
    """Can the environment at ``prefix`` import pip_variants (what its shim hands over to)?
    Asked of its own Python where there is one: it may inherit a base installation's."""
    python = environment_python(prefix)
    if python is None:
        return (activation.site_packages(prefix) / "pip_variants" / "__init__.py").is_file()
    import subprocess
    import tempfile

    try:
        # A source checkout must not vouch for that environment: not through this
        # shell's PYTHONPATH (-E), nor as the working directory -c puts first on
        # sys.path (an empty one). An empty pip_variants folder (left by an
        # uninstall) imports as a namespace package: no __file__.
        with tempfile.TemporaryDirectory(prefix="pip-variants-") as empty:
            proc = subprocess.run(
                [python, "-E", "-c", "import sys, pip_variants; sys.exit(pip_variants.__file__ is None)"],
                capture_output=True, timeout=60, stdin=subprocess.DEVNULL, cwd=empty,
                env=dict(os.environ, PIP_NO_VARIANTS="1"))
    except (OSError, subprocess.SubprocessError):
        return True  # cannot tell: do not turn a working activation into an error
    return proc.returncode == 0


_SITE_DIRS_CODE = ("import json, site; print(json.dumps([site.getusersitepackages() if site.ENABLE_USER_SITE "
                   "else None, site.getsitepackages()]))")


def _other_site_dirs(activation: Any, prefix: str) -> List[Any]:
    """The site directories other than its own whose start-up files the Python
    of ``prefix`` runs (user site; a base installation with
    ``--system-site-packages``), as that Python says; none when it cannot say."""
    python = environment_python(prefix)
    if python is None:
        return []
    import json
    import subprocess

    try:
        # Not -E (unlike _has_pip_variants): PYTHONUSERBASE and PYTHONNOUSERSITE move or
        # drop the user site for that Python's pip as well.
        proc = subprocess.run([python, "-c", _SITE_DIRS_CODE], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL, env=dict(os.environ, PIP_NO_VARIANTS="1"))
        user, dirs = json.loads(proc.stdout)
    except (OSError, subprocess.SubprocessError, ValueError, TypeError):
        return []  # cannot tell: report the prefix's own directory, as before

    def real(path: str) -> str:
        return os.path.normcase(os.path.realpath(path))

    root = real(prefix)
    out = [activation.SiteDir(Path(user), "user")] if user else []
    # (on Windows the prefix itself is one of its site directories)
    out += [activation.SiteDir(Path(d), "base") for d in dirs
            if real(d) != root and not real(d).startswith(root + os.sep)]
    return out


def _verb(action: str) -> str:
    return "wrote" if action == "activate" else "removed"


def _do(args: argparse.Namespace, action: str) -> int:
    activation = _activation()
    prefix: Optional[str] = args.prefix
    if prefix is not None and not os.path.isdir(prefix):
        raise CLIError(f"{prefix}: no such environment directory (give the venv's root, e.g. .venv)")
    func = getattr(activation, action)
    # activation raises ActivationError (an OSError whose message says which
    # file and what to do); main() prints it as one line, after what was done.
    try:
        result = func(prefix=prefix)
    except OSError as exc:
        if not args.json:
            for path in _paths(getattr(exc, "done", ())):
                sys.stdout.write(f"{_verb(action)} {path}\n")
        raise
    report = activation.shim_report(prefix=prefix, also=_other_site_dirs(activation, prefix) if prefix else ())
    active = report.active
    where = prefix or sys.prefix
    if action == "activate" and prefix is not None and active and not _has_pip_variants(activation, prefix):
        if not args.json:
            for path in _paths(result):
                sys.stdout.write(f"{_verb(action)} {path}\n")
        python = environment_python(prefix)
        install = f"{shell_word(python)} -m pip install pip-variants" if python else "install pip-variants there"
        raise CLIError(
            f"pip-variants is not installed in {prefix}: the start-up shim is in place, but pip there "
            f"stays stock until it is; to fix: {install}"
        )
    if args.json:
        print_json({"prefix": where, "active": bool(active), "files": _paths(result),
                    "shim": {"site": report.site, "kind": report.kind, "inherited": report.inherited,
                             "files": report.files, "others": report.others}})
    else:
        for path in _paths(result):
            sys.stdout.write(f"{_verb(action)} {path}\n")
        if action == "deactivate" and not _paths(result) and not active:
            sys.stdout.write("no pip-variants start-up shim found: nothing to remove\n")
        if action == "activate" and not _paths(result) and active:
            sys.stdout.write(f"the start-up files in {report.site} are up to date: nothing written\n")
        if active:
            kind = activation.KIND_TEXT.get(report.kind or "", report.kind)
            still = "still" if action == "deactivate" else "now"
            sys.stdout.write(f"pip-variants is {still} active in {where}: the shim in {report.site} ({kind})\n")
            if action == "deactivate" and prefix is not None and report.kind in ("base", "user"):
                sys.stdout.write(
                    f"note: {where} runs that shim from outside; remove it there with that Python's "
                    "'-m pip_variants deactivate' (every environment using it turns stock), or set "
                    f"PIP_NO_VARIANTS=1 when running pip of {where}\n"
                )
        else:
            sys.stdout.write(f"pip-variants is now not active in {where}: pip is stock\n")
            if report.problem:
                sys.stdout.write(f"note: {report.problem}\n")
    expected = action == "activate"
    return 0 if bool(active) == expected else 1


_ACTIVATE_EXAMPLES = """\
  pip-variants activate                     # this environment
  pip-variants activate --prefix .venv      # another venv (pip-variants must be importable there)"""
_DEACTIVATE_EXAMPLES = """\
  pip-variants deactivate                   # pip stays stock; pip-variants stays installed
  PIP_NO_VARIANTS=1 pip install torch       # or turn it off for one command only"""


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    for name, action, help_text, examples, desc in (
        ("activate", "activate", "install the start-up shim so pip picks variants",
         _ACTIVATE_EXAMPLES,
         "Write the start-up files (pip_variants.pth, pip_variants.start for Python 3.15+, and the\n"
         "_pip_variants_shim.py module they import) from the copies shipped inside pip-variants, so\n"
         "every pip run here is variant-aware. Without --prefix they go where a shim already is, else\n"
         "where pip-variants is installed (this environment, the user site, or the base installation a\n"
         "--system-site-packages venv inherits), else this environment's site-packages. Installing\n"
         "pip-variants does this already; 'activate' undoes 'deactivate'."),
        ("deactivate", "deactivate", "remove the start-up shim: pip is stock again",
         _DEACTIVATE_EXAMPLES,
         "Remove every start-up shim that makes pip variant-aware here: in this environment, the user\n"
         "site, or the base installation a --system-site-packages venv inherits (or only in --prefix).\n"
         "A file that cannot be removed is named, with why. pip-variants stays installed;\n"
         "'pip-variants activate' turns it back on."),
    ):
        p = add_subcommand(sub, name, help=help_text, description=desc, examples=examples,
                           handler=functools.partial(_do, action=action))
        p.add_argument("--prefix", metavar="DIR", help="the environment to change (default: this one)")
        p.add_argument("--json", action="store_true", help="print JSON for machines")
