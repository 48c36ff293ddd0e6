"""What pip-variants costs: three ratios, measured side by side in one run.

    python benchmarks/bench_pip.py [--pip 26.3] [--rounds 15] [--venvs DIR] [--trusted-host]
                                   [--instructions]

Two venvs of the same Python and pip, one with pip-variants (built from this
checkout), one without, and a loopback index (tests/support). Each pair of
commands runs alternately, ``rounds`` times, after one warm-up each (pip's
HTTP cache and the provider cache are warm); the table shows medians.

=========================  ==================================================  ======
case                       compared                                            target
=========================  ==================================================  ======
start-up                   ``python -c pass``, with vs without the shim        x1.01
no-variant release         ``pip install --dry-run plain``, with vs without    x1.02
variant install            ``pip install --target`` of a variant release,      x1.03
                           pip-variants (variant chosen) vs stock pip (plain)
=========================  ==================================================  ======

Wall medians and minima, then CPU medians (user + system of pip: steadier on a
busy machine). ``--trusted-host`` lets pip cache the loopback index as it
caches an HTTPS one (pip caches plain-http responses only for trusted hosts).
``--instructions`` adds the same three ratios in instructions executed, one run
of each command under ``valgrind --tool=cachegrind`` (``PYTHONHASHSEED=0``):
steady to about 0.1 % where wall time on a shared machine moves by 2 %, so a
change too small to time still shows. A script, not a test: timings depend on
the machine.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from support.index import LocalIndex
from support.venvs import build_project_wheel, create_venv, scrubbed_env
from support.wheels import NVIDIA_PROVIDER, build_release, build_wheel, variants_json

GPU = variants_json(
    "gpu",
    "2.0",
    namespaces=["nvidia"],
    providers={"nvidia": NVIDIA_PROVIDER},
    variants={
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
        "cu129": {"nvidia": {"cuda_version_lower_bound": ["12.9"]}},
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["90_real"]}},
        "null": {},
    },
)
FAKE_GPU = {
    "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8",
    "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0",
}


def _timed(cmd: Sequence[str], env: Dict[str, str]) -> Tuple[float, float]:
    """Wall seconds and CPU seconds (user + system of the child: steadier than
    wall time when other work shares the machine)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{out.decode(errors='replace')}")
    return elapsed, usage.ru_utime + usage.ru_stime


def _pair(a: Tuple[List[str], Dict[str, str]], b: Tuple[List[str], Dict[str, str]], rounds: int,
          before=None) -> Tuple[float, float, float, float, float, float]:
    """Median and minimum wall seconds, then median CPU seconds, of ``a`` and ``b``,
    run alternately (ABAB...), after one warm-up each. The minimum is the better
    wall estimate on a busy machine; CPU time is steadier still."""
    times_a: List[float] = []
    times_b: List[float] = []
    cpu_a: List[float] = []
    cpu_b: List[float] = []
    for i in range(rounds + 1):
        for cmd, env, out, cpu in ((a[0], a[1], times_a, cpu_a), (b[0], b[1], times_b, cpu_b)):
            if before is not None:
                before()
            t, c = _timed(cmd, env)
            if i:
                out.append(t)
                cpu.append(c)
    return (statistics.median(times_a), statistics.median(times_b), min(times_a), min(times_b),
            statistics.median(cpu_a), statistics.median(cpu_b))


def instructions(cmd: Sequence[str], env: Dict[str, str]) -> int:
    """Instructions the command executes (cachegrind's ``I refs``), children included."""
    env = dict(env, PYTHONHASHSEED="0")
    proc = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--trace-children=yes",
                           "--cachegrind-out-file=/dev/null", *cmd], env=env, capture_output=True, text=True)
    counts = [int(n.replace(",", "")) for n in re.findall(r"I\s+refs:\s+([\d,]+)", proc.stderr)]
    if proc.returncode != 0 or not counts:
        raise SystemExit(f"failed under valgrind: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    return sum(counts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pip", default=None, help="pip version for both venvs (default: newest)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--venvs", default=None, help="reuse/keep the two venvs in this directory")
    parser.add_argument("--trusted-host", action="store_true",
                        help="pass --trusted-host 127.0.0.1: pip then caches the loopback index's "
                             "responses as it caches an HTTPS index's")
    parser.add_argument("--instructions", action="store_true",
                        help="also compare instructions executed (needs valgrind)")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind on PATH")

    work = Path(tempfile.mkdtemp(prefix="pv-bench-"))
    venv_dir = Path(args.venvs) if args.venvs else work
    try:
        wheel = build_project_wheel(work / "dist", python=args.python)
        with_pv = venv_dir / "with"
        without = venv_dir / "without"
        venvs = {}
        for path, w in ((with_pv, wheel), (without, None)):
            marker = path / ".bench-ok"
            if args.venvs and marker.is_file() and w is None:
                venvs[path] = path / "bin" / "python"
                continue
            venvs[path] = create_venv(path, pip_version=args.pip, wheel=w, python=args.python).python
            marker.write_text("ok")
        py_with, py_without = str(venvs[with_pv]), str(venvs[without])

        files = work / "files"
        files.mkdir()
        build_release(files, "gpu", "2.0", GPU)
        build_wheel(files, "plain", "1.0")
        build_wheel(files, "plain", "1.1")

        env = scrubbed_env(FAKE_GPU, tmp=work / "env")
        with LocalIndex() as index:
            for path in sorted(files.iterdir()):
                index.add_file(path.name.split("-")[0], path)
            idx = ["--index-url", index.url] + (["--trusted-host", "127.0.0.1"] if args.trusted_host else [])
            target = work / "target"

            def clean_target() -> None:
                shutil.rmtree(target, ignore_errors=True)

            rows = []
            times = _pair(([py_with, "-c", "pass"], env), ([py_without, "-c", "pass"], env), args.rounds * 4)
            rows.append(("start-up: python -c pass", *times, 1.01))

            dry = ["-m", "pip", "install", "--dry-run", "-q", *idx, "plain"]
            times = _pair(([py_with, *dry], env), ([py_without, *dry], env), args.rounds)
            rows.append(("pip install --dry-run (no variants)", *times, 1.02))

            inst = ["-m", "pip", "install", "-q", "--no-deps", "--target", str(target), *idx, "gpu"]
            times = _pair(([py_with, *inst], env), ([py_without, *inst], env), args.rounds,
                          before=clean_target)
            rows.append(("pip install gpu: variant vs plain", *times, 1.03))

            counted = []
            if args.instructions:
                for name, cmd, before in (("start-up: python -c pass", ["-c", "pass"], None),
                                          ("pip install --dry-run (no variants)", dry, None),
                                          ("pip install gpu: variant vs plain", inst, clean_target)):
                    pair = []
                    for py in (py_with, py_without):
                        if before is not None:
                            before()
                        pair.append(instructions([py, *cmd], env))
                    counted.append((name, *pair))

        version = subprocess.run([py_with, "-m", "pip", "--version"], capture_output=True, text=True).stdout.split()[1]
        python = subprocess.run([py_with, "-c", "import platform; print(platform.python_version())"],
                                capture_output=True, text=True).stdout.strip()
        print(f"pip {version}, Python {python}, {args.rounds} rounds (start-up x4), medians")
        print(f"{'case':38} {'with':>9} {'without':>9} {'ratio':>6} | {'min w':>9} {'min w/o':>9} "
              f"{'ratio':>6} | {'cpu w':>9} {'cpu w/o':>9} {'ratio':>6} | {'target':>6}")
        for name, a, b, amin, bmin, ca, cb, goal in rows:
            ratio, rmin, rcpu = a / b, amin / bmin, ca / cb
            flag = "" if min(ratio, rmin, rcpu) <= goal else "  (over)"
            print(f"{name:38} {a * 1000:7.1f}ms {b * 1000:7.1f}ms {ratio:6.3f} | {amin * 1000:7.1f}ms "
                  f"{bmin * 1000:7.1f}ms {rmin:6.3f} | {ca * 1000:7.1f}ms {cb * 1000:7.1f}ms {rcpu:6.3f} | "
                  f"{'x%.2f' % goal:>6}{flag}")
        if counted:
            print(f"\n{'instructions (cachegrind, one run each)':38} {'with':>9} {'without':>9} {'ratio':>6}")
            for name, a_ir, b_ir in counted:
                print(f"{name:38} {a_ir / 1e6:8.1f}M {b_ir / 1e6:8.1f}M {a_ir / b_ir:6.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
