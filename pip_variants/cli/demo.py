"""``pip-variants demo``: watch stock pip pick wheel variants, offline, in about 15 seconds.

1. publish a made-up release (``demo-tensor 1.0``) as variant wheels with the
   publisher tools, and serve it on 127.0.0.1 (stdlib ``http.server``);
2. create a temporary venv with its own stock pip (``ensurepip``, offline) and
   make the pip-variants of *this* process importable there through a
   ``.pth`` file listing its directories (nothing is downloaded, nothing is
   installed into this environment), then activate the shim in that venv;
3. run ``pip install --dry-run --report`` once as this machine and once per
   faked machine (provider override variables, or a profile), and print which
   wheel each gets and why.

When no venv can be created (no ``ensurepip``, as on some Linux distributions)
the demo runs this interpreter's pip with the hooks loaded instead.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, TextIO, Tuple

from .._display import shell_word
from . import CLIError, add_subcommand

__all__ = ["register", "run_demo", "MachineResult", "scrubbed_env"]

#: Expected choice per faked machine: the demo doubles as a smoke test.
EXPECTED: Mapping[str, str] = {
    "T4 (CUDA 12.8 driver, sm 7.5)": "cu126",
    "H100 (CUDA 12.8 driver, sm 9.0)": "cu128",
    "CPU-only box (x86-64-v2)": "null",
}

_SCRUB_PREFIXES = ("PIP_", "UV_", "NV_VARIANT_PROVIDER_", "TPU_VARIANT_PROVIDER_")
_SCRUB_NAMES = ("PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONUSERBASE")
#: Modules pip-variants needs at run time; their directories go on the venv's path.
_RUNTIME_MODULES = ("pip_variants", "packaging", "pynvml", "cpuinfo", "tomli", "importlib_metadata", "zipp")
_PIP_TIMEOUT = 180.0


@dataclass
class MachineResult:
    machine: str
    label: Optional[str]
    filename: Optional[str]
    why: str
    ok: bool
    expected: Optional[str] = None


def scrubbed_env(extra: Mapping[str, Optional[str]], *, keep_pythonpath: bool, tmp: Path) -> Dict[str, str]:
    """An environment where only the demo's settings reach pip: no pip.conf,
    no PIP_* variables, no provider overrides except the machine's own."""
    env = {
        k: v for k, v in os.environ.items()
        if not k.startswith(_SCRUB_PREFIXES) and k not in _SCRUB_NAMES
        and (keep_pythonpath or k != "PYTHONPATH")
    }
    env.update({
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INPUT": "1",
        "PIP_CACHE_DIR": str(tmp / "pip-cache"),
        "PIP_VARIANTS_CACHE_DIR": str(tmp / "variants-cache"),
    })
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def _serve(root: Path) -> Tuple[Any, str]:
    # Imported here: every pip-variants command builds the parser, which imports
    # this module; http.server alone costs tens of milliseconds.
    import http.server

    class _QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="pip-variants-demo-index", daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/simple/"


def _module_dirs() -> List[str]:
    dirs: List[str] = []
    for name in _RUNTIME_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin or spec.origin in ("built-in", "frozen"):
            continue
        origin = Path(spec.origin)
        # A package's directory sits in the path entry; so does a single module.
        entry = origin.parent.parent if origin.name == "__init__.py" else origin.parent
        if str(entry) not in dirs:
            dirs.append(str(entry))
    return dirs


def _probe(python: str, code: str, env: Mapping[str, str]) -> str:
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=dict(env), timeout=120)
    if proc.returncode != 0:
        raise CLIError(f"{python} failed: {(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
    return proc.stdout.strip()


def _venv_python(path: Path) -> str:
    return str(path / ("Scripts" if os.name == "nt" else "bin") / ("python.exe" if os.name == "nt" else "python"))


def _make_venv(path: Path, env: Mapping[str, str]) -> Tuple[List[str], str]:
    """A venv with stock pip (ensurepip: offline) that sees this pip-variants.

    Returns the pip command and pip's version.
    """
    proc = subprocess.run([sys.executable, "-m", "venv", str(path)], capture_output=True, text=True,
                          env=dict(env), timeout=300)
    if proc.returncode != 0:
        raise CLIError(
            "could not create a venv: " + ((proc.stderr or proc.stdout).strip().splitlines() or ["?"])[-1]
        )
    python = _venv_python(path)
    out = _probe(python, "import sysconfig, importlib.metadata as m; "
                         "print(m.version('pip')); print(sysconfig.get_paths()['purelib'])", env)
    pip_version, site = out.splitlines()[-2:]
    from .status import SUPPORTED_PIP, pip_supported

    if not pip_supported(pip_version):
        # ensurepip of older Pythons (3.9: pip 23.0.1) predates the hooks' range,
        # and the demo cannot upgrade it offline.
        raise CLIError(f"the venv's pip {pip_version} (from ensurepip) is outside the tested range "
                       f"{SUPPORTED_PIP[0]}-{SUPPORTED_PIP[1]}")
    # Sorts before pip_variants.pth, so the shim finds pip_variants on the path. A
    # path that is not ASCII goes in as an ASCII literal: before 3.13 a .pth file
    # is read in the locale's encoding (Windows: the ANSI code page), not UTF-8.
    lines = [d if d.isascii() else f"import sys; sys.path.append({ascii(d)})" for d in _module_dirs()]
    Path(site, "_pip_variants_demo.pth").write_text("\n".join(lines) + "\n", encoding="ascii")
    from .. import activation

    activation.activate(prefix=str(path))
    # The .pth line registers "_pip_variants_pth"; Python 3.15+ imports the shim module instead.
    loaded = _probe(python, "import sys; print('_pip_variants_pth' in sys.modules "
                            "or '_pip_variants_shim' in sys.modules)", env)
    if loaded.splitlines()[-1:] != ["True"]:
        raise CLIError(f"the pip-variants shim did not load in the demo venv {path}")
    return [python, "-m", "pip"], pip_version


def _short_rejection(label: str, rej: Mapping[str, Any]) -> str:
    if rej.get("reason") != "unsupported":
        return f"{label}: {rej.get('message') or rej.get('reason')}"
    feature = f"{rej.get('namespace')} :: {rej.get('feature')}"
    if not rej.get("supported"):
        return f"{label}: no {feature} here"
    return f"{label}: needs {feature} :: {' | '.join(rej.get('declared') or [])}"


def _why(records: Sequence[Mapping[str, Any]], label: Optional[str], filename: Optional[str],
         variant: Optional[Mapping[str, Any]] = None) -> str:
    if not records:
        # No explain records (hooks without the explain call): pip's report
        # still names the chosen variant's properties.
        if isinstance(variant, Mapping) and variant.get("properties"):
            return "fits: " + ", ".join(str(p) for p in variant["properties"])
        if label == "null":
            return "no other variant fits this machine"
    rec = None
    for r in records:
        if any(w.get("filename") == filename for w in r.get("wheels") or []):
            rec = r
    sel = (rec or {}).get("selection") or None
    if sel is None:
        if rec is not None and rec.get("metadata_error"):
            return f"variant metadata unusable: {rec['metadata_error']}"
        return "no variant evaluation was recorded" if label else "plain wheel (no variant fits or variants off)"
    supported = sel.get("supported") or {}
    parts: List[str] = []
    if label and label != "null":
        props = (sel.get("variants") or {}).get(label) or {}
        matched = []
        for ns, feats in props.items():
            for f, values in feats.items():
                ok = [v for v in values if v in (supported.get(ns) or {}).get(f, [])]
                matched.append(f"{ns} :: {f} :: {' | '.join(ok or values)}")
        parts.append("fits: " + ", ".join(matched))
    elif label == "null":
        parts.append("no other variant fits")
    else:
        parts.append("no variant fits")
    rejected = sel.get("rejected") or {}
    skipped = [_short_rejection(l, r) for l, r in rejected.items() if isinstance(r, Mapping)]
    if skipped:
        parts.append("; ".join(skipped))
    return "; ".join(parts)


def _ask_pip(pip: List[str], index_url: str, env: Dict[str, str], tmp: Path, n: int):
    from ..demo_data import DEMO_PROJECT
    from ..explain import EXPLAIN_FILE_ENV, chosen_from_report, read_records

    report = tmp / f"report-{n}.json"
    records = tmp / f"records-{n}.jsonl"
    env = dict(env)
    env[EXPLAIN_FILE_ENV] = str(records)
    cmd = pip + ["install", "--dry-run", "--ignore-installed", "--no-deps", "--quiet",
                 "--report", str(report), "--index-url", index_url, DEMO_PROJECT]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=_PIP_TIMEOUT)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return None, [], "pip failed: " + " / ".join(tail)
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, [], f"pip wrote no report: {exc}"
    return chosen_from_report(data, DEMO_PROJECT), read_records(str(records)), None


def run_demo(*, keep: bool = False, out: TextIO = sys.stdout, use_venv: bool = True) -> Tuple[int, List[MachineResult]]:
    from ..demo_data import CPU_PROFILE, DEMO_MACHINES, DEMO_PROJECT, DEMO_VERSION, build_demo_index, describe_variants
    from ..filename import parse_wheel_filename

    def say(text: str = "") -> None:
        out.write(text + "\n")
        out.flush()

    started = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="pip-variants-demo-"))
    server = None
    results: List[MachineResult] = []
    try:
        say(f"[1/4] Publishing {DEMO_PROJECT} {DEMO_VERSION} as variant wheels (pip-variants make-variant + index):")
        index_root = tmp / "index"
        build_demo_index(index_root)
        for line in describe_variants():
            say(f"        {line}")
        say("        plus the plain wheel, for installers without variant support")
        server, index_url = _serve(index_root)
        say(f"[2/4] Serving them at {index_url}")
        profile_path = tmp / "cpu-only-x86-64-v2.json"
        profile_path.write_text(json.dumps(CPU_PROFILE, indent=2) + "\n", encoding="utf-8")

        base_env = scrubbed_env({}, keep_pythonpath=not use_venv, tmp=tmp)
        pip: List[str]
        if use_venv:
            say("[3/4] Creating a temporary venv with stock pip and this pip-variants ...")
            try:
                pip, pip_version = _make_venv(tmp / "venv", base_env)
                say(f"        {tmp / 'venv'}: pip {pip_version}, shim active")
            except (CLIError, OSError, subprocess.SubprocessError) as exc:
                say(f"        {exc}; using this interpreter's pip instead")
                use_venv = False
        if not use_venv:
            from .explain import pip_command

            from .status import SUPPORTED_PIP, _version_of, pip_supported

            here = _version_of("pip")
            if not here:
                raise CLIError(
                    f"{sys.executable} has no pip: run {shell_word(sys.executable)} -m ensurepip and retry, or run the "
                    "demo without --no-venv"
                )
            if not pip_supported(here):
                raise CLIError(
                    f"pip {here} in {sys.prefix} is outside the range pip-variants supports "
                    f"({SUPPORTED_PIP[0]}-{SUPPORTED_PIP[1]}): run 'python -m pip install -U pip' and retry"
                )
            base_env = scrubbed_env({}, keep_pythonpath=True, tmp=tmp)
            pip = pip_command()
            say(f"[3/4] Using {sys.executable} with the pip-variants hooks")
        say("[4/4] Asking pip which wheel each machine gets (pip install --dry-run):")
        for n, machine in enumerate(DEMO_MACHINES):
            extra: Dict[str, Optional[str]] = dict(machine.env)
            if machine.use_cpu_profile:
                extra["PIP_VARIANT_PROFILE"] = str(profile_path)
            env = scrubbed_env(extra, keep_pythonpath=not use_venv, tmp=tmp)
            chosen, records, error = _ask_pip(pip, index_url, env, tmp, n)
            expected = EXPECTED.get(machine.name)
            if error is not None or chosen is None:
                results.append(MachineResult(machine.name, None, None, error or "pip chose nothing", False, expected))
                say(f"        {machine.name}: FAILED: {error}")
                continue
            filename = chosen.get("filename")
            try:
                label = parse_wheel_filename(filename).label if filename else None
            except ValueError:
                label = None
            ok = expected is None or label == expected
            results.append(MachineResult(machine.name, label, filename, _why(records, label, filename, chosen.get("variant")), ok, expected))
            say(f"        {machine.name}: {filename}")
        say("")
        _table(results, say)
        elapsed = time.monotonic() - started
        say("")
        say(f"Each label is a wheel named {DEMO_PROJECT.replace('-', '_')}-{DEMO_VERSION}-py3-none-any-LABEL.whl; "
            f"done in {elapsed:.0f} s.")
        say("Next: 'pip-variants platform' shows what this machine supports; "
            "'pip-variants explain PACKAGE' explains a real install.")
        if keep:
            say("")
            say(f"Kept {tmp}:")
            say(f"  index:   {index_root}   (serve: python -m http.server --directory {index_root} 8000)")
            if use_venv:
                say(f"  venv:    {tmp / 'venv'}")
                python = _venv_python(tmp / "venv")
                say(f"  try:     {shell_word(python)} -m pip install --no-index "
                    f"--find-links {shell_word(str(index_root))} {DEMO_PROJECT}")
            say(f"  profile: {profile_path}")
        bad = [r for r in results if not r.ok]
        for r in bad:
            say(f"UNEXPECTED: {r.machine} got {r.label or r.filename or 'nothing'}"
                + (f", expected {r.expected}" if r.expected else ""))
        return (0 if not bad else 1), results
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()
        if not keep:
            _remove(tmp)


def _remove(tmp: Path) -> None:
    # After Ctrl-C a grandchild (ensurepip under 'python -m venv') may still be
    # writing into the folder for a moment: try again rather than leave it behind.
    for pause in (0.0, 0.2, 0.5, 1.0):
        time.sleep(pause)
        shutil.rmtree(tmp, ignore_errors=True)
        if not tmp.exists():
            return


def _table(results: Sequence[MachineResult], say) -> None:
    rows = [("MACHINE", "GETS", "WHY")] + [
        (r.machine, r.label or ("plain wheel" if r.filename else "-"), r.why) for r in results
    ]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    for machine, gets, why in rows:
        say(f"{machine:<{w0}}  {gets:<{w1}}  {why}")


def _run(args: argparse.Namespace) -> int:
    status, _ = run_demo(keep=args.keep, use_venv=not args.no_venv)
    return status


_EXAMPLES = """\
  pip-variants demo
  pip-variants demo --keep        # keep the index, venv and profile to play with"""


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = add_subcommand(
        sub,
        "demo",
        help="see variant selection work: publish, serve and install a made-up package, offline",
        description=(
            "The first command to run. Offline, in about 15 seconds: publish a made-up package\n"
            "(demo-tensor 1.0) as variant wheels (cu128, cu126, x86_64_v3, null) plus a plain wheel,\n"
            "serve them on 127.0.0.1, create a temporary venv with stock pip and pip-variants, and\n"
            "ask pip which wheel this machine, a T4, an H100 and a CPU-only box would get, and why.\n"
            "Nothing is installed into this environment, and pip's own configuration is not used;\n"
            "nor are the override variables (NV_VARIANT_PROVIDER_FORCE_*, PIP_VARIANTS_*): 'this\n"
            "machine' is the real hardware. 'pip-variants platform' shows what overrides make of it."
        ),
        examples=_EXAMPLES,
        handler=_run,
    )
    p.add_argument("--keep", action="store_true", help="keep the temporary index, venv and profile")
    p.add_argument("--no-venv", action="store_true",
                   help="use this interpreter's pip (with the hooks) instead of a temporary venv")
