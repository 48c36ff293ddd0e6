"""``pip-variants profile export|show``: save what this machine supports, to
select variants for it from another machine (``pip install --variant-profile``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Mapping, Tuple

from .._atomic import write_file
from . import _EXIT_TEXT, CLIError, add_subcommand, print_json
from .platform import NamespaceReport, PlatformReport, format_table, gather_platform

__all__ = ["register", "export_profile", "describe_profile"]


def export_profile(*, use_cache: bool = True, plugins: bool = True) -> Tuple[Dict[str, Any], PlatformReport]:
    """The profile document of this machine (``profile.make_profile``) and the
    provider report it came from. Failed providers are left out of the
    profile (their namespace then counts as unsupported on the target)."""
    from ..profile import make_profile

    report = gather_platform(use_cache=use_cache, plugins=plugins)
    namespaces = {r.namespace: dict(r.features) for r in report.namespaces if not r.error}
    abi, problems = _abi_dependency_versions()
    report.problems.extend(problems)
    if abi:
        # The versions VARIANT_ABI_DEPENDENCY sets here decide ABI builds on
        # the target too, as a profile's abi_dependency namespace does.
        namespaces.setdefault("abi_dependency", {}).update(abi)
    return make_profile(namespaces), report


def _abi_dependency_versions() -> Tuple[Dict[str, Tuple[str, ...]], List[str]]:
    """``VARIANT_ABI_DEPENDENCY=torch==2.8.0`` as a profile's ``abi_dependency``
    features (``{"torch": ("2.8.0",)}``; a name's ``-`` written ``_``), and
    what in it could not be read (left out of the profile)."""
    import os

    text = os.environ.get("VARIANT_ABI_DEPENDENCY", "")
    if not text.strip():
        return {}, []
    from ..abi import parse_override

    overrides, problems = parse_override(text)
    return {name.replace("-", "_"): (version,) for name, version in overrides.items()}, \
        [f"{p}; left out of the profile" for p in problems]


def _export(args: argparse.Namespace) -> int:
    from ..profile import dumps_profile

    if args.output and args.output.endswith(".toml"):
        raise CLIError(f"{args.output}: profile export writes JSON; name the file *.json")
    doc, report = export_profile(use_cache=not args.no_cache, plugins=not args.no_plugins)
    for r in report.namespaces:
        if r.error:
            sys.stderr.write(
                f"pip-variants: warning: {r.namespace} left out of the profile: {r.error}\n"
            )
    for p in report.problems:
        sys.stderr.write(f"pip-variants: warning: {p}\n")
    text = dumps_profile(doc)
    if not args.output or args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        write_file(args.output, text.encode("utf-8"))
    except OSError as exc:
        raise CLIError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    if args.json:
        sys.stdout.write(text)
    else:
        names = ", ".join(f"{ns}" + ("" if feats else " (nothing)") for ns, feats in doc["namespaces"].items())
        sys.stdout.write(
            f"wrote {args.output}: profile-version {doc['profile-version']}, "
            f"{doc['platform'].get('system', '?')} {doc['platform'].get('machine', '?')}; namespaces: {names or 'none'}\n"
            f"use it elsewhere with: pip install --variant-profile {args.output} PACKAGE\n"
        )
    return 0


def describe_profile(path: str) -> Tuple[Mapping[str, Any], Dict[str, Dict[str, Tuple[str, ...]]]]:
    """``(header, namespaces)`` of a profile file; raises ``InvalidProfile``."""
    from ..profile import load_profile

    namespaces = load_profile(path)  # validates, and names the file on error
    header: Mapping[str, Any] = {}
    if not path.endswith(".toml"):
        try:
            with open(path, encoding="utf-8-sig") as f:
                raw = json.load(f)
            if isinstance(raw, Mapping) and "profile-version" in raw:
                header = {k: v for k, v in raw.items() if k != "namespaces"}
        except (OSError, ValueError):
            pass
    return header, namespaces


def _show(args: argparse.Namespace) -> int:
    header, namespaces = describe_profile(args.file)
    if args.json:
        print_json({
            "file": args.file,
            "profile-version": header.get("profile-version"),
            "created-by": header.get("created-by"),
            "platform": header.get("platform"),
            "namespaces": {ns: {f: list(v) for f, v in feats.items()} for ns, feats in namespaces.items()},
        })
        return 0
    lines = [f"{args.file}: valid variant profile"]
    if header:
        lines.append(f"  profile-version: {header.get('profile-version')}")
        if header.get("created-by"):
            lines.append(f"  created by:      {header['created-by']}")
        plat = header.get("platform")
        if isinstance(plat, Mapping) and plat:
            lines.append("  taken on:        " + ", ".join(f"{k} {v}" for k, v in plat.items()))
    else:
        lines.append("  (bare format: no header; profile-version 1 files carry one)")
    sys.stdout.write("\n".join(lines) + "\n\n")
    report = PlatformReport([NamespaceReport(ns, "profile", dict(feats)) for ns, feats in namespaces.items()])
    table = format_table(report, full=args.full)
    # The profile's own content only: the overrides of this shell mean nothing here.
    sys.stdout.write(table.split("\noverrides in effect:")[0].rstrip("\n") + "\n")
    sys.stdout.write(
        "\nNamespaces not listed count as unsupported when installing with this profile.\n"
    )
    return 0


_EXPORT_EXAMPLES = """\
  # on the GPU node:
  pip-variants profile export -o gpu-node.json
  # on the CPU build host, select for the GPU node:
  pip install --variant-profile gpu-node.json torch
  pip-variants profile export                 # print the profile instead"""

_SHOW_EXAMPLES = """\
  pip-variants profile show gpu-node.json
  pip-variants profile show gpu-node.json --json"""


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    group = sub.add_parser(
        "profile",
        help="export or show a target profile (what a machine supports)",
        description=(
            "A profile saves what every provider reports on one machine, so that pip can\n"
            "select variants for that machine elsewhere: pip install --variant-profile FILE.\n"
            "Format: JSON, profile-version 1, as 'profile export' writes it:\n"
            '  {"profile-version": 1, "namespaces": {"nvidia": {"sm_arch": ["90_real"], ...}, ...}}\n'
            "A bare {namespace: {feature: [values]}} mapping and TOML (FILE.toml) are read too;\n"
            "the full description is docs/profile-format.md in pip-variants' source."
        ),
        epilog="examples:\n" + _EXPORT_EXAMPLES + "\n" + _SHOW_EXAMPLES + "\n\n" + _EXIT_TEXT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )

    def _usage(args: argparse.Namespace) -> int:
        group.print_help(sys.stderr)
        return 2

    group.set_defaults(handler=_usage)
    actions = group.add_subparsers(dest="profile_command", metavar="ACTION", title="actions")
    p = add_subcommand(
        actions,
        "export",
        help="write this machine's profile",
        description=(
            "Ask every provider (built-ins and installed plugins) what this machine supports and\n"
            "write it as a profile (JSON, profile-version 1) with the platform it was taken on.\n"
            "Without -o the profile goes to stdout. A provider that fails is left out, with a warning."
        ),
        examples=_EXPORT_EXAMPLES,
        handler=_export,
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the profile to FILE (default: stdout)")
    p.add_argument("--json", action="store_true", help="with -o, also print the profile JSON on stdout")
    p.add_argument("--no-cache", action="store_true", help="ask the providers again instead of reading the cache")
    p.add_argument("--no-plugins", action="store_true", help="only the built-in providers")
    s = add_subcommand(
        actions,
        "show",
        help="validate a profile and print it readably",
        description="Validate a profile file (JSON or TOML) and print what it says the target supports.",
        examples=_SHOW_EXAMPLES,
        handler=_show,
    )
    s.add_argument("file", metavar="FILE", help="the profile file")
    s.add_argument("--json", action="store_true", help="print the normalised profile as JSON")
    s.add_argument("--full", action="store_true", help="list every value instead of shortening long lists")
