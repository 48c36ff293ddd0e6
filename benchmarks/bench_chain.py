"""Resolution cost of a dependency chain (variant markers + ABI variants), side by side in one run.

    python benchmarks/bench_chain.py [--pip 26.3] [--rounds 16] [--venvs DIR]

One venv with pip-variants (built from this checkout) and a loopback index
holding two copies of the chain of tests/e2e/test_chain_e2e.py:

* ``torch-like`` 2.8.0 / 2.9.0 (cu126, cu128, null) whose wheels depend on
  ``cuda-lib-cu12 ; variant_label == "cu128"`` (and ``cuda-lib-cu12-old`` for
  cu126), and ``attn-like`` (torch28, torch29, null) with
  ``abi_dependency :: torch_like :: 2.8`` / ``2.9`` and kernels chosen by a
  property marker and a label marker;
* ``torch-ref`` / ``attn-ref``: the same labels and CUDA properties, no ABI
  property, and plain ``Requires-Dist`` naming what the chain ends up
  installing (``cuda-lib-cu12``, ``attn-kernels-t29``): the same number of
  projects resolved.

``pip install --dry-run attn-…`` of each runs alternately on a fake H100,
``rounds`` times after one warm-up each; target: chain / reference <= 1.05
(the median of the per-round ratios; the ratios of the medians and of the
minima are printed too).

A script, not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_abi import _timed  # noqa: E402
from support.chains import H100, TORCH, abi_release  # noqa: E402
from support.index import LocalIndex  # noqa: E402
from support.venvs import build_project_wheel, create_venv, scrubbed_env  # noqa: E402
from support.wheels import build_release, build_wheel  # noqa: E402

LABELS = {"torch28": ["2.8"], "torch29": ["2.9"]}
CHAIN = {
    "torch": ("torch-like", ['cuda-lib-cu12 ; variant_label == "cu128"',
                             'cuda-lib-cu12-old ; variant_label == "cu126"']),
    "attn": ("attn-like", ["torch-like",
                           'attn-kernels-t29 ; "abi_dependency :: torch_like :: 2.9" in variant_properties',
                           'attn-kernels-t28 ; variant_label == "torch28"']),
}
REFERENCE = {
    "torch": ("torch-ref", ["cuda-lib-cu12"]),
    "attn": ("attn-ref", ["torch-ref", "attn-kernels-t29"]),
}
DEPS = ("cuda-lib-cu12", "cuda-lib-cu12-old", "attn-kernels-t28", "attn-kernels-t29")


def _publish(files: Path, spec: dict, abi: bool) -> None:
    torch, torch_requires = spec["torch"]
    attn, attn_requires = spec["attn"]
    for version in ("2.8.0", "2.9.0"):
        build_release(files / f"{torch}-{version}", torch, version, TORCH, plain=False, requires=torch_requires)
    attn_json = abi_release(LABELS, abi=abi)
    attn_json["variants"]["null"] = {}
    build_release(files / attn, attn, "1.0", attn_json, plain=False, requires=attn_requires)


def _resolved(cmd: List[str], env: Dict[str, str]) -> List[str]:
    proc = subprocess.run(cmd + ["--report", "-"], env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr}")
    report = json.loads(proc.stdout)
    return sorted(item["download_info"]["url"].rsplit("/", 1)[-1] for item in report["install"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pip", default=None, help="pip version (default: newest)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--venvs", default=None, help="reuse/keep the venv in this directory")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="pv-bench-chain-"))
    try:
        venv_path = Path(args.venvs) / "chain" if args.venvs else work / "chain"
        wheel = build_project_wheel(work / "dist", python=args.python)
        python = str(create_venv(venv_path, pip_version=args.pip, wheel=wheel, python=args.python).python)
        files = work / "files"
        _publish(files, CHAIN, abi=True)
        _publish(files, REFERENCE, abi=False)
        for dep in DEPS:
            build_wheel(files / "deps", dep, "1.0")
        env = scrubbed_env(H100, tmp=work / "env")
        with LocalIndex() as index:
            for sub in sorted(files.iterdir()):
                for path in sorted(sub.iterdir()):
                    index.add_file(path.name.split("-")[0].replace("_", "-"), path)
            base = [python, "-m", "pip", "install", "--dry-run", "-q", "--index-url", index.url]
            cases = {"chain (markers + ABI)": base + ["attn-like"], "reference (plain)": base + ["attn-ref"]}
            for name, cmd in cases.items():  # both resolve what they should, once, untimed
                print(f"{name:28} {' '.join(_resolved(cmd, env))}")
            times: Dict[str, List[float]] = {k: [] for k in cases}
            for i in range(args.rounds + 1):
                for name, cmd in cases.items():
                    t = _timed(cmd, env)
                    if i:
                        times[name].append(t)
        version = subprocess.run([python, "-m", "pip", "--version"], capture_output=True, text=True).stdout.split()[1]
        med = {k: statistics.median(v) for k, v in times.items()}
        low = {k: min(v) for k, v in times.items()}
        chain, ref = cases
        ratio, rmin = med[chain] / med[ref], low[chain] / low[ref]
        # each round runs both back to back: the median of the per-round
        # ratios is the least sensitive to other work on the machine
        paired = statistics.median(c / r for c, r in zip(times[chain], times[ref]))
        print(f"pip {version}, {args.rounds} rounds, pip install --dry-run (4 projects resolved)")
        print(f"{'case':28} {'median':>9} {'min':>9}")
        for name in cases:
            print(f"{name:28} {med[name] * 1000:7.1f}ms {low[name] * 1000:7.1f}ms")
        flag = "" if paired <= 1.05 else "  (over)"
        print(f"{'ratio chain / reference':28} {ratio:9.3f} {rmin:9.3f}")
        print(f"{'median of per-round ratios':28} {paired:9.3f}             target x1.05{flag}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
