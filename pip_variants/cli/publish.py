"""``pip-variants make-variant`` and ``pip-variants index``: publisher tools."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Dict, List

from . import CLIError, add_subcommand, print_json

__all__ = ["register"]


def _make_variant(args: argparse.Namespace) -> int:
    from ..metadata import load_wheel_metadata
    from ..properties import format_property_set
    from ..publish import make_variant

    wheel = Path(args.wheel)
    if not wheel.is_file():
        raise CLIError(f"{wheel}: no such wheel file")
    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise CLIError(f"{args.output}: not a directory (-o names the folder to write the variant wheel in)")
    namespaces = [ns.strip() for item in (args.namespaces or []) for ns in item.split(",") if ns.strip()]
    notes: List[str] = []
    warnings: List[str] = []
    dest = make_variant(
        wheel,
        args.output,
        label=args.label,
        properties=args.property or [],
        null=args.null,
        namespaces=namespaces or None,
        providers=args.provider or [],
        statics=args.static or [],
        optional=[ns.strip() for item in (args.optional or []) for ns in item.split(",") if ns.strip()],
        notes=notes,
        requires=args.requires or [],
        warnings=warnings,
    )
    for warning in warnings:
        sys.stderr.write(f"pip-variants: warning: {warning}\n")
    label = dest.name[:-4].rsplit("-", 1)[1]
    md = load_wheel_metadata(str(dest), label)
    if args.json:
        print_json({
            "wheel": str(dest),
            "label": label,
            "namespaces": list(md.namespaces),
            "properties": list(format_property_set(md.variants[label])),
            "notes": notes,
            "warnings": warnings,
        })
    else:
        props = ", ".join(format_property_set(md.variants[label])) or "no properties (null variant)"
        sys.stdout.write(f"wrote {dest}\n  label {label}: {props}\n  namespaces: {', '.join(md.namespaces)}\n")
        for note in notes:
            sys.stdout.write(f"  note: {note}\n")
    return 0


def _index(args: argparse.Namespace) -> int:
    from ..publish import PublishError, build_index

    try:
        report = build_index(args.directory, check=args.check)
    except PublishError as exc:
        if not args.json:
            raise
        # --json promises JSON: the same document as --check gives, nothing written
        print_json({"directory": str(args.directory), "check": args.check, "ok": False, "releases": [],
                    "written": [], "problems": [str(exc)], "skipped": [], "warnings": []})
        sys.stderr.write(f"pip-variants: error: {exc}\n")
        return 1
    for line in report.skipped:
        sys.stderr.write(f"pip-variants: warning: skipped {line}\n")
    for line in report.warnings:
        sys.stderr.write(f"pip-variants: warning: {line}\n")
    # An empty folder is most likely the wrong one: checking it proves nothing, indexing it serves nothing.
    nothing = not report.releases and not report.written
    if nothing:
        report.problems.append(f"no wheel (*.whl) in {args.directory}: nothing to index; "
                               "name the folder your wheels were built into (e.g. dist/)")
    elif not report.releases:
        sys.stderr.write(f"pip-variants: warning: no wheel (*.whl) in {args.directory}\n")
    ok = report.ok
    releases: List[Dict[str, Any]] = []
    for rel in report.releases:
        releases.append({
            "project": rel.project,
            "version": rel.version,
            "wheels": [p.name for p in rel.wheels],
            "labels": sorted(set(rel.variant_wheels.values())),
            "variants_json": rel.index_file.name if rel.index_file else None,
        })
    if args.json:
        print_json({
            "directory": str(args.directory),
            "check": args.check,
            "ok": ok,
            "releases": releases,
            "written": [str(p) for p in report.written],
            "problems": report.problems,
            "skipped": report.skipped,
            "warnings": report.warnings,
        })
    else:
        for row in releases:
            labels = ", ".join(row["labels"]) or "no variant wheels"
            lines = f"{row['project']} {row['version']}: {len(row['wheels'])} wheel(s); labels: {labels}"
            if row["variants_json"]:
                lines += f"; {row['variants_json']}"
            sys.stdout.write(lines + "\n")
        if args.check:
            if report.ok and report.releases:
                sys.stdout.write("check passed: the wheels agree with each other and with their variants.json\n")
        else:
            simple = Path(args.directory) / "simple"
            if report.written:
                sys.stdout.write(
                    f"wrote {len(report.written)} file(s); serve it with:\n"
                    f"  python -m http.server --directory {args.directory} 8000\n"
                    f"  pip install --index-url http://127.0.0.1:8000/simple/ PACKAGE\n"
                    f"or without a server: pip install --no-index --find-links {args.directory} PACKAGE\n"
                )
            elif not nothing:
                sys.stdout.write(f"nothing to write in {simple}\n")
    for problem in report.problems:
        sys.stderr.write(f"pip-variants: error: {problem}\n")
    return 0 if ok else 1


_MAKE_EXAMPLES = """\
  pip-variants make-variant dist/demo-1.0-py3-none-any.whl --label cu128 \\
      -p "nvidia :: cuda_version_lower_bound :: 12.8" -p "nvidia :: sm_arch :: 90_real" \\
      --namespaces nvidia,x86_64 -o wheelhouse/
  pip-variants make-variant dist/demo-1.0-py3-none-any.whl --label x86_64_v3 \\
      -p "x86_64 :: level :: v3" --namespaces nvidia,x86_64 -o wheelhouse/
  pip-variants make-variant dist/demo-1.0-py3-none-any.whl --null --namespaces nvidia,x86_64 -o wheelhouse/
  # a dependency only this variant needs (variant environment marker):
  pip-variants make-variant dist/demo-1.0-py3-none-any.whl --label cu128 \\
      -p "nvidia :: cuda_version_lower_bound :: 12.8" --requires 'cuda-lib-cu12 ; variant_label == "cu128"' \\
      -o wheelhouse/
  # a namespace without a built-in provider:
  pip-variants make-variant dist/demo-1.0-py3-none-any.whl --label mkl -p "blas :: library :: mkl" \\
      --static "blas :: library :: mkl,openblas" -o wheelhouse/
  pip-variants make-variant dist/demo-1.0-py3-none-any.whl --label acme2 -p "acme :: gen :: 2" \\
      --provider "acme=acme-variant-provider>=1;plugin-api=acme_variant_provider:Plugin" -o wheelhouse/"""

_INDEX_EXAMPLES = """\
  pip-variants index wheelhouse/
  python -m http.server --directory wheelhouse 8000 &
  pip install --index-url http://127.0.0.1:8000/simple/ demo
  pip-variants index wheelhouse/ --check      # validate before uploading; writes nothing"""


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = add_subcommand(
        sub,
        "make-variant",
        help="copy a plain wheel as a variant wheel (adds variant.json, renames, rewrites RECORD)",
        description=(
            "Copy the plain wheel WHEEL into DIR as a variant wheel: add\n"
            "{name}-{version}.dist-info/variant.json (format 0.2.0), name the file ...-LABEL.whl and\n"
            "rewrite RECORD. Known namespaces (nvidia, x86_64, aarch64, tpu, amd, intel) get the published\n"
            "provider plugin as their 'providers' entry; any other namespace needs --provider or\n"
            "--static. Give every wheel of a release the same --namespaces list (priority order)\n"
            "and the same --provider/--static options, or 'pip-variants index' will refuse them."
        ),
        examples=_MAKE_EXAMPLES,
        handler=_make_variant,
    )
    p.add_argument("wheel", metavar="WHEEL", help="the plain (non-variant) wheel to copy")
    p.add_argument("-p", "--property", action="append", metavar="'NS :: FEATURE :: VALUE'",
                   help="a property of this variant (repeat; several values of one feature mean OR)")
    p.add_argument("--label", metavar="LABEL", help="the variant label, e.g. cu128 ([0-9a-z_.]+)")
    p.add_argument("--null", action="store_true", help="make the null variant (label 'null', no properties)")
    p.add_argument("--namespaces", action="append", metavar="NS[,NS...]",
                   help="the release's namespaces, most important first (default: as the -p options name "
                        "them; for --null, those of the release's variant wheels already in DIR)")
    p.add_argument("--provider", action="append", metavar="NS=REQUIREMENT[;plugin-api=MOD:OBJ]",
                   help="the provider plugin of namespace NS (repeat for several requirements)")
    p.add_argument("--static", action="append", metavar="NS | 'NS :: FEATURE :: V1,V2'",
                   help="namespace NS has static properties: the listed values (best first), "
                        "or this wheel's own values with plain NS")
    p.add_argument("--optional", action="append", metavar="NS[,NS...]",
                   help="mark NS's provider optional: installers skip it unless the user enables it "
                        "(pip install --variant-enable NS)")
    p.add_argument("--requires", action="append", metavar="'REQUIREMENT'",
                   help="add a Requires-Dist entry to METADATA, e.g. 'cuda-lib-cu12 ; variant_label == \"cu128\"' "
                        "(variant markers allowed; repeat for more)")
    p.add_argument("-o", "--output", metavar="DIR", required=True, help="directory for the variant wheel")
    p.add_argument("--json", action="store_true", help="print JSON for machines")

    i = add_subcommand(
        sub,
        "index",
        help="write {name}-{version}-variants.json and PEP 503 pages for a folder of wheels",
        description=(
            "For every (project, version) in DIR with variant wheels: read each wheel's variant.json,\n"
            "check that they agree (a label means the same properties everywhere, namespace lists\n"
            "agree, provider entries are equal), and write {name}-{version}-variants.json. Then write\n"
            "PEP 503 pages (DIR/simple/index.html, DIR/simple/<project>/index.html) with relative\n"
            "links and #sha256= fragments, so the folder can be served as a static index.\n"
            "Nothing is written when any release has a problem."
        ),
        examples=_INDEX_EXAMPLES,
        handler=_index,
    )
    i.add_argument("directory", metavar="DIR", help="folder of wheels")
    i.add_argument("--check", action="store_true",
                   help="write nothing; check the wheels and existing variants.json files (exit 1 on problems)")
    i.add_argument("--json", action="store_true", help="print JSON for machines")
