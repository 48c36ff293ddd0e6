"""``pip-variants explain REQUIREMENT``: why pip picks the wheel it picks.

The real pip does the work: ``pip install --dry-run --report`` in a
subprocess, with the given index options, so index access, configuration and
version choice are exactly pip's. The pip-variants hooks in that pip record
each variant evaluation into ``PIP_VARIANTS_EXPLAIN_FILE``
(:func:`pip_variants.explain.record`); this command reads those records and
the report, and renders them (:mod:`pip_variants.explain`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from typing import TYPE_CHECKING, List, Optional, Sequence

from .._display import shell_word
from . import CLIError, add_subcommand, print_json

if TYPE_CHECKING:
    from ..explain import Explanation

__all__ = ["register", "pip_command", "pip_arguments", "run_explain"]

# Runs pip with the pip-variants hooks installed even when the start-up shim
# is not active (e.g. pip-variants imported from PYTHONPATH, where .pth files
# are not processed). Importing _bootstrap installs the hooks; install() is
# idempotent, and is the .start entry point on Python 3.15+.
_BOOTSTRAP_PIP = (
    "import runpy, sys; import pip_variants._bootstrap as b; "
    "getattr(b, 'install', lambda: None)(); sys.argv[0] = 'pip'; "
    "runpy.run_module('pip', run_name='__main__', alter_sys=True)"
)


def pip_command(python: str = sys.executable) -> List[str]:
    """How to start a variant-aware pip of this environment.

    ``python -m pip`` when the shim is active here (the normal case after
    ``pip install pip-variants``); otherwise a ``-c`` line that loads the
    hooks first. Raises :class:`CLIError` when the hooks do not exist.
    """
    try:
        from ..activation import is_active

        if is_active():
            return [python, "-m", "pip"]
    except Exception:  # noqa: BLE001 - fall back to loading the hooks ourselves
        pass
    if importlib.util.find_spec("pip_variants._bootstrap") is None:
        raise CLIError(
            "this pip-variants has no pip hooks (pip_variants._bootstrap is missing); "
            "reinstall pip-variants from a released wheel"
        )
    return [python, "-c", _BOOTSTRAP_PIP]


def pip_arguments(args: argparse.Namespace) -> List[str]:
    """The user's options, forwarded to pip with pip's own spelling."""
    out: List[str] = []
    if args.index_url:
        out += ["--index-url", args.index_url]
    for url in args.extra_index_url or []:
        out += ["--extra-index-url", url]
    for path in args.find_links or []:
        out += ["--find-links", path]
    if args.no_index:
        out.append("--no-index")
    if args.pre:
        out.append("--pre")
    for host in args.trusted_host or []:
        out += ["--trusted-host", host]
    for item in args.variant or []:
        out += ["--variant", item]
    if args.variant_profile:
        out += ["--variant-profile", args.variant_profile]
    for name in args.allow_variant_plugin or []:
        out += ["--allow-variant-plugin", name]
    for namespace in args.variant_enable or []:
        out += ["--variant-enable", namespace]
    if args.variant_strict:
        out.append("--variant-strict")
    for item in args.variant_exclude or []:
        out += ["--variant-exclude", item]
    for namespace in args.variant_disable or []:
        out += ["--variant-disable", namespace]
    if args.variant_config:
        out += ["--variant-config", args.variant_config]
    if args.no_variants:
        out.append("--no-variants")
    return out


def _name_label(text: str) -> str:
    """``--variant NAME=LABEL``, checked here so that a typo is a usage error, not a pip run."""
    name, sep, label = text.partition("=")
    if not sep or not name.strip() or not label.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=LABEL (e.g. torch=cu128)")
    return text


def _pip_failure(requirement: str, pip_error: str) -> str:
    """One line for a pip run that failed before choosing anything."""
    lines = [line.strip() for line in pip_error.splitlines() if line.strip()]
    if any("No module named pip" in line for line in lines[-1:]):
        return f"pip is not installed for {sys.executable}; to fix: {shell_word(sys.executable)} -m ensurepip"
    errors = [line[len("ERROR:"):].strip() for line in lines if line.startswith("ERROR:")]
    return f"pip failed for {requirement}: {'; '.join(errors) or (lines[-1] if lines else 'no output')}"


def _project_name(requirement: str) -> Optional[str]:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(requirement).name
    except InvalidRequirement:
        return None  # a path or URL: pip's report names the project


def run_explain(
    requirement: str,
    forwarded: Sequence[str],
    *,
    env: Optional[dict] = None,
    timeout: Optional[float] = None,
    pip: Optional[Sequence[str]] = None,
):
    """Run pip and build the :class:`~pip_variants.explain.Explanation`.

    ``pip``: the command that starts pip (default :func:`pip_command`).
    Returns ``(explanation, returncode)``.
    """
    from ..explain import EXPLAIN_FILE_ENV, build_explanation, chosen_from_report, read_records

    with tempfile.TemporaryDirectory(prefix="pip-variants-explain-") as tmp:
        report_path = os.path.join(tmp, "report.json")
        records_path = os.path.join(tmp, "records.jsonl")
        cmd = list(pip if pip is not None else pip_command()) + [
            "install", "--dry-run", "--ignore-installed", "--no-deps", "--quiet",
            "--report", report_path, *forwarded, requirement,
        ]
        run_env = dict(os.environ if env is None else env)
        run_env[EXPLAIN_FILE_ENV] = records_path
        run_env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        run_env["PYTHONIOENCODING"] = "utf-8"  # read back as written, whatever this process's streams use
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, encoding="utf-8", errors="replace",
                                  env=run_env, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CLIError(f"pip did not finish within {timeout:.0f} s") from None
        except OSError as exc:
            raise CLIError(f"could not run pip ({cmd[0]}): {exc}") from None
        report = {}
        try:
            with open(report_path, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError):
            pass
        records = read_records(records_path)
    project = _project_name(requirement)
    chosen = chosen_from_report(report, project)
    if project is None:
        project = (chosen or {}).get("name") or requirement
    pip_error = None
    if proc.returncode != 0:
        pip_error = (proc.stderr or proc.stdout or f"pip exited with status {proc.returncode}").strip()
    expl = build_explanation(
        records,
        project,
        version=(chosen or {}).get("version"),
        chosen_url=(chosen or {}).get("url") or None,
        pip_error=pip_error,
    )
    from .status import SUPPORTED_PIP, _release2, _tested_range, _version_of

    version = _version_of("pip") if pip is None else None
    release = _release2(version) if version else None
    # (a newer pip keeps variants on where its hooks have the expected shape: no advice to give)
    if release is not None and release < _tested_range()[0]:
        from dataclasses import replace

        expl = replace(expl, notes=expl.notes + (
            f"pip {version} is outside the range pip-variants supports ({SUPPORTED_PIP[0]}-{SUPPORTED_PIP[1]}): "
            "it ignores variant wheels; upgrade pip",))
    if pip is None and any(w.chosen and w.label for w in expl.wheels):
        from .. import activation

        try:
            active = activation.is_active()
        except OSError:  # an unreadable site directory: no note rather than no report
            active = True
        if not active:  # explain loads the hooks itself: a plain pip here does not
            from dataclasses import replace

            expl = replace(expl, notes=expl.notes + (
                "the start-up shim is not active in this environment: a plain 'pip install' here is stock "
                "pip and ignores variant wheels; run 'pip-variants activate'",))
    if proc.returncode == 0 and proc.stderr.strip():
        from dataclasses import replace

        expl = replace(expl, notes=expl.notes + tuple(
            f"pip: {line}" for line in proc.stderr.strip().splitlines()))
    return expl, proc.returncode


def _found_nothing(expl: "Explanation") -> bool:
    # pip ran fine and found no release: the report says so better than one line.
    return "No matching distribution found" in (expl.pip_error or "")


def _run(args: argparse.Namespace) -> int:
    from ..explain import render

    expl, rc = run_explain(args.requirement, pip_arguments(args))
    if rc != 0 and not expl.recorded and not expl.chosen and not args.json and not _found_nothing(expl):
        # an unsupported pip has no variant options: say so, or 'no such option: --variant' puzzles
        outside = [note for note in expl.notes if "is outside the range pip-variants supports" in note]
        raise CLIError(_pip_failure(args.requirement, expl.pip_error or "") + (f"; {outside[0]}" if outside else ""))
    if args.json:
        print_json(expl.to_json())
    else:
        sys.stdout.write(render(expl))
        if rc != 0:  # the report is on stdout; the one line of every error goes to stderr
            sys.stderr.write(f"pip-variants: error: {_pip_failure(args.requirement, expl.pip_error or '')} "
                             "(the report above says what was found)\n")
    return 0 if rc == 0 else 1


_EXAMPLES = """\
  pip-variants explain torch
  pip-variants explain "torch==2.9.*" --index-url https://download.pytorch.org/whl/variant/
  pip-variants explain demo --no-index --find-links wheelhouse/
  pip-variants explain torch --variant-profile gpu-node.json     # as the GPU node would choose
  pip-variants explain torch --variant torch=null --json
  # as a T4 would choose:
  NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 NV_VARIANT_PROVIDER_FORCE_SM_ARCH=7.5 pip-variants explain torch"""


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = add_subcommand(
        sub,
        "explain",
        help="show every wheel of the version pip would pick, and why one wins",
        description=(
            "Run the real pip (install --dry-run) for REQUIREMENT with the given options, and show\n"
            "for the version pip picks: every wheel with its label and properties, whether its\n"
            "platform tags fit, whether its variant fits (and if not, which property failed against\n"
            "what this machine supports), its rank, and pip's final choice. Nothing is installed.\n"
            "pip's configuration (pip.conf, PIP_* variables) applies as in any pip run."
        ),
        examples=_EXAMPLES,
        handler=_run,
    )
    p.add_argument("requirement", metavar="REQUIREMENT", help="what you would pass to pip install")
    p.add_argument("-i", "--index-url", metavar="URL", help="base URL of the package index (as pip)")
    p.add_argument("--extra-index-url", action="append", metavar="URL", help="extra index URL (repeat; as pip)")
    p.add_argument("-f", "--find-links", action="append", metavar="DIR|URL",
                   help="look for archives in DIR or on the page at URL (repeat; as pip)")
    p.add_argument("--no-index", action="store_true", help="ignore the package index (as pip)")
    p.add_argument("--pre", action="store_true", help="include pre-release versions (as pip)")
    p.add_argument("--trusted-host", action="append", metavar="HOST",
                   help="trust this host even without valid HTTPS (repeat; as pip)")
    p.add_argument("--variant", action="append", metavar="NAME=LABEL", type=_name_label,
                   help="install this label of NAME, as 'pip install --variant' (repeat)")
    p.add_argument("--variant-profile", metavar="FILE",
                   help="select for the machine described by this profile instead of this one")
    p.add_argument("--allow-variant-plugin", action="append", metavar="NAME[==VERSION]",
                   help="allow this provider plugin, as 'pip install --allow-variant-plugin' (repeat)")
    p.add_argument("--variant-enable", action="append", metavar="NAMESPACE",
                   help="enable this optional provider, as 'pip install --variant-enable' (repeat)")
    p.add_argument("--variant-strict", action="store_true",
                   help="fail instead of falling back when a provider fails or is not trusted (as pip install)")
    p.add_argument("--variant-exclude", action="append", metavar="NAME=LABEL", type=_name_label,
                   help="never choose this label of NAME, as 'pip install --variant-exclude' (repeat)")
    p.add_argument("--variant-disable", action="append", metavar="NAMESPACE",
                   help="treat this namespace as unsupported, as 'pip install --variant-disable' (repeat)")
    p.add_argument("--variant-config", metavar="FILE",
                   help="variant priorities in variantlib's variants.toml format, as 'pip install --variant-config'")
    p.add_argument("--no-variants", action="store_true", help="ignore variant wheels, as stock pip does")
    p.add_argument("--json", action="store_true", help="print JSON for machines")
