"""``pip-variants check``: do the installed variants still fit this machine?"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, List, Optional

from .._display import shell_word
from . import EXIT_ERROR, EXIT_OK, add_subcommand, environment_python, print_json

if TYPE_CHECKING:
    from ..installed import CheckReport

__all__ = ["register", "format_report"]


def format_report(report: "CheckReport") -> str:
    """Human-readable lines for a :class:`~pip_variants.installed.CheckReport`."""
    results = report.results
    if not results:
        return "no installed distribution carries a variant (no *.dist-info/variant.json)\n"
    lines: List[str] = []
    bad = report.not_fitting
    # Several folders (check --path A --path B): each line says which one.
    folders = {os.path.dirname(r.variant.dist_info) for r in results}
    for r in results:
        v = r.variant
        where = f"  in {os.path.dirname(v.dist_info)}" if len(folders) > 1 else ""
        head = f"{v.name} {v.version}  variant {v.label}{where}"
        if r.status == "fits":
            lines.append(f"ok       {head}")
        elif r.status == "does-not-fit":
            lines.append(f"NO FIT   {head}: {r.reason}")
        else:
            lines.append(f"unknown  {head}: {r.reason}")
    total = len(results)
    unknown = sum(1 for r in results if r.status not in ("fits", "does-not-fit"))
    unchecked = f"; {unknown} could not be checked (see above)" if unknown else ""
    if bad:
        lines.append("")
        lines.append(f"{len(bad)} of {total} installed variants no longer fit {report.target}{unchecked}; "
                     "reinstall those that do not fit (pip picks the variant that fits now):")
        lines.append(f"  {report.command}")
    elif unknown:
        lines.append(f"{total - unknown} of {total} installed variants fit {report.target}{unchecked}")
    else:
        lines.append(f"all {total} installed variants fit {report.target}")
    return "\n".join(lines) + "\n"


def _environment_python(site_packages: str) -> Optional[str]:
    """The interpreter whose site-packages ``site_packages`` is (``PREFIX/lib/
    pythonX.Y/site-packages``, ``PREFIX\\Lib\\site-packages``), or ``None`` for a
    plain folder (a ``--target`` one) or where no interpreter is found."""
    parent, name = os.path.split(os.path.normpath(site_packages))
    if name.lower() != "site-packages":
        return None
    lib, version = os.path.split(parent)
    if os.name == "nt":
        return environment_python(lib) if version.lower() == "lib" else None
    return environment_python(os.path.dirname(lib), version) if version.startswith("python") else None


def _run(args: argparse.Namespace) -> int:
    from ..installed import check_installed

    paths: Optional[List[str]] = None
    target = None
    if args.path:
        paths = list(dict.fromkeys(os.path.abspath(p) for p in args.path))
        for p in paths:
            if not os.path.isdir(p):
                from . import CLIError

                raise CLIError(f"--path {p}: not a directory")
        target = paths[0] if len(paths) == 1 else None
    python = sys.executable
    owner = _environment_python(target) if target else None
    if owner is not None:
        # another environment's site-packages: its own pip reinstalls, for its Python
        python, target = owner, None
    report = check_installed(paths, profile_path=args.variant_profile, target=target,
                             pip=f"{shell_word(python)} -m pip")
    if args.json:
        print_json(report.to_dict())
    else:
        sys.stdout.write(format_report(report))
    if report.not_fitting:
        # the exit status's one line, for scripts that keep only stderr (as the other errors say theirs)
        names = ", ".join(sorted({r.variant.name for r in report.not_fitting}))
        sys.stderr.write(f"pip-variants: {len(report.not_fitting)} installed variant(s) no longer fit "
                         f"{report.target}: {names}; reinstall with: {report.command}\n")
        return EXIT_ERROR
    return EXIT_OK


_EXAMPLES = """\
  pip-variants check                               # installed variants vs this machine
  pip-variants check --json                        # for scripts (exit status 1: something does not fit)
  pip-variants check --variant-profile gpu.json    # vs another machine's profile
  pip-variants check --path /opt/app/lib           # a --target directory instead of this environment"""


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = add_subcommand(
        sub,
        "check",
        help="do the installed variant wheels still fit this machine?",
        description=(
            "For every installed distribution that carries a *.dist-info/variant.json, check that\n"
            "its variant still fits this machine (or --variant-profile FILE): a driver downgrade,\n"
            "a GPU moved away, an image built for another host. Prints what no longer fits, why,\n"
            "and the one pip command that reinstalls those (pip then picks the variant that fits).\n"
            "Reads only what is installed and the providers' cached detection: no network.\n"
            "Exit status 1 when something does not fit."
        ),
        examples=_EXAMPLES,
        handler=_run,
    )
    p.add_argument("--json", action="store_true", help="print JSON for machines")
    p.add_argument("--variant-profile", metavar="FILE",
                   help="check against a profile ('pip-variants profile export') instead of this machine")
    p.add_argument("--path", action="append", metavar="DIR",
                   help="look in DIR (a site-packages or --target directory) instead of sys.path; repeatable")
