"""Resolution cost of ABI-dependency variants, measured side by side in one run.

    python benchmarks/bench_abi.py [--pip 26.3] [--rounds 10] [--venvs DIR]

One venv with pip-variants (built from this checkout) and a loopback index
holding ``torch-like`` 2.8.0 / 2.9.0 (cu126, cu128, null) and two copies of
the same dependent release: ``attn-abi`` whose variants carry
``abi_dependency :: torch_like :: 2.8`` / ``2.9``, and ``attn-plain`` whose
variants carry the same CUDA properties but no ABI dependency. Both depend
on ``torch-like``. ``pip install --dry-run`` of each runs alternately on a fake
H100, ``rounds`` times after one warm-up each; target: ABI / plain <= 1.05.

A script, not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from support.index import LocalIndex
from support.venvs import build_project_wheel, create_venv, scrubbed_env
from support.wheels import NVIDIA_PROVIDER, build_release, variants_json

H100 = {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0"}


def _release(abi: bool) -> dict:
    variants: Dict[str, dict] = {}
    for cuda in ("12.6", "12.8"):
        for torch in ("2.8", "2.9"):
            props: dict = {"nvidia": {"cuda_version_lower_bound": [cuda]}}
            if abi:
                props["abi_dependency"] = {"torch_like": [torch]}
            else:  # same number of labels and properties, nothing the resolver must honour
                props["nvidia"]["cuda_version_upper_bound"] = [f"13.{torch[-1]}"]
            variants[f"cu{cuda.replace('.', '')}_t{torch.replace('.', '')}"] = props
    variants["null"] = {}
    return variants_json("x", "1", namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER}, variants=variants)


TORCH = variants_json(
    "torch-like", "2.9.0", namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER},
    variants={
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["90_real"]}},
        "null": {},
    },
)


def _timed(cmd: List[str], env: Dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stdout.decode(errors='replace')}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pip", default=None, help="pip version (default: newest)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--venvs", default=None, help="reuse/keep the venv in this directory")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="pv-bench-abi-"))
    try:
        venv_path = Path(args.venvs) / "with" if args.venvs else work / "with"
        wheel = build_project_wheel(work / "dist", python=args.python)
        python = str(create_venv(venv_path, pip_version=args.pip, wheel=wheel, python=args.python).python)
        files = work / "files"
        for version in ("2.8.0", "2.9.0"):
            build_release(files / f"torch-{version}", "torch-like", version, TORCH, plain=False)
        build_release(files / "abi", "attn-abi", "1.0", _release(True), requires=["torch-like"])
        build_release(files / "plain", "attn-plain", "1.0", _release(False), requires=["torch-like"])
        env = scrubbed_env(H100, tmp=work / "env")
        with LocalIndex() as index:
            for sub in sorted(files.iterdir()):
                for path in sorted(sub.iterdir()):
                    index.add_file(path.name.split("-")[0].replace("_", "-"), path)
            base = [python, "-m", "pip", "install", "--dry-run", "-q", "--index-url", index.url]
            cases = {"attn-abi": base + ["attn-abi"], "attn-plain": base + ["attn-plain"]}
            times: Dict[str, List[float]] = {k: [] for k in cases}
            for i in range(args.rounds + 1):
                for name, cmd in cases.items():
                    t = _timed(cmd, env)
                    if i:
                        times[name].append(t)
        version = subprocess.run([python, "-m", "pip", "--version"], capture_output=True, text=True).stdout.split()[1]
        med = {k: statistics.median(v) for k, v in times.items()}
        low = {k: min(v) for k, v in times.items()}
        ratio, rmin = med["attn-abi"] / med["attn-plain"], low["attn-abi"] / low["attn-plain"]
        print(f"pip {version}, {args.rounds} rounds, pip install --dry-run (release + torch-like resolved)")
        print(f"{'case':28} {'median':>9} {'min':>9}")
        for name in cases:
            print(f"{name:28} {med[name] * 1000:7.1f}ms {low[name] * 1000:7.1f}ms")
        flag = "" if min(ratio, rmin) <= 1.05 else "  (over)"
        print(f"{'ratio ABI / no ABI':28} {ratio:9.3f} {rmin:9.3f}   target x1.05{flag}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
