"""What the start-up hook costs every Python process: ``python -c pass`` per ``.pth`` content.

    python benchmarks/bench_startup.py [--rounds 200] [--python PY] [--instructions]

Identical venvs (no pip, ``--without-pip``) that differ only in what their
site-packages hold; the runs are interleaved (ABC..., then ...CBA), and the
table shows the median wall and CPU (user + system) time of each, as a ratio
to the venv without any ``.pth``:

* ``none``: no ``.pth`` at all;
* ``floor``: a ``.pth`` whose line is ``import sys``, what any import line costs;
* ``shipped``: ``pip_variants.pth`` as this checkout ships it;
* ``module``: a line importing ``_pip_variants_shim`` (what ``pip_variants.start``
  does on Python 3.15+), with its ``.pyc``;
* ``module, no .pyc``: the same where no ``.pyc`` can be written
  (``PYTHONDONTWRITEBYTECODE=1``, read-only or uncompiled installs).

``PYTHONDONTWRITEBYTECODE=1`` is set for every run, so what is compiled stays
compiled and what is not stays not. ``--instructions`` adds one run of each
under valgrind (instructions executed, ``PYTHONHASHSEED=0``), which a busy
machine does not blur. A script, not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pip import instructions  # noqa: E402

SHIM = Path(__file__).resolve().parents[1] / "sitecustomize_shim"
#: A line importing the shim module through ``sys.path``, silent when it is missing.
_MODULE_LINE = 'import sys; exec("try:\\n import _pip_variants_shim\\nexcept Exception:\\n pass")\n'


def _site_packages(venv: Path) -> Path:
    out = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def _cases(base: Path, work: Path) -> Dict[str, Path]:
    site = _site_packages(base)
    cases: Dict[str, Path] = {}
    for name, pth, module, pyc in (
        ("none", None, False, False),
        ("floor", "import sys\n", False, False),
        ("shipped", (SHIM / "pip_variants.pth").read_text(), False, False),
        ("module", _MODULE_LINE, True, True),
        ("module, no .pyc", _MODULE_LINE, True, False),
    ):
        venv = work / name.replace(" ", "").replace(",", "-")
        shutil.copytree(base, venv, symlinks=True)
        target = venv / site.relative_to(base)
        if pth is not None:
            (target / "pip_variants.pth").write_text(pth)
        if module:
            shutil.copy(SHIM / "_pip_variants_shim.py", target)
            if pyc:
                source = target / "_pip_variants_shim.py"
                _compile(source, venv)
        cases[name] = venv / "bin" / "python"
    return cases


def _compile(source: Path, venv: Path) -> None:
    """Write the ``.pyc`` the venv's interpreter looks for (its own magic number, not this one's)."""
    subprocess.run([str(venv / "bin" / "python"), "-c",
                    f"import py_compile; py_compile.compile({str(source)!r}, doraise=True)"], check=True)


def _run(python: Path, env: Dict[str, str]) -> Tuple[float, float]:
    start = time.perf_counter()
    pid = os.posix_spawn(str(python), [str(python), "-c", "pass"], env)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{python} -c pass failed")
    return elapsed, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions executed (cachegrind, one run per case)")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind on PATH")
    work = Path(tempfile.mkdtemp(prefix="pv-startup-"))
    try:
        base = work / "base"
        subprocess.run([args.python, "-m", "venv", "--without-pip", str(base)], check=True)
        cases = _cases(base, work)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        names = list(cases)
        times: Dict[str, Tuple[List[float], List[float]]] = {n: ([], []) for n in names}
        for i in range(args.rounds + 2):
            for name in names if i % 2 else names[::-1]:
                wall, cpu = _run(cases[name], env)
                if i >= 2:  # two warm-up rounds
                    times[name][0].append(wall)
                    times[name][1].append(cpu)
        base_wall, base_cpu = (statistics.median(v) for v in times["none"])
        version = subprocess.run([str(cases["none"]), "-c", "import sys; print(sys.version.split()[0])"],
                                 capture_output=True, text=True).stdout.strip()
        print(f"python {version} ({sysconfig.get_platform()}), python -c pass, {args.rounds} interleaved rounds, medians")
        irs = {name: instructions([str(cases[name]), "-c", "pass"], env) for name in names} if args.instructions else {}
        ir_head = f" {'instr':>11} {'ratio':>7}" if irs else ""
        print(f"{'site-packages holds':22} {'wall':>9} {'ratio':>7} {'cpu':>9} {'ratio':>7}{ir_head}")
        for name in names:
            wall, cpu = (statistics.median(v) for v in times[name])
            ir = f" {irs[name]:11,} {irs[name] / irs['none']:7.4f}" if irs else ""
            print(f"{name:22} {wall * 1e3:7.3f}ms {wall / base_wall:7.4f} {cpu * 1e3:7.3f}ms {cpu / base_cpu:7.4f}{ir}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
