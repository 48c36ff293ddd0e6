#!/usr/bin/env python
"""Benchmark built-in provider detection, cold (no cache) and cached.

Usage: python benchmarks/bench_detection.py [-n RUNS]

Rows (milliseconds, median of RUNS):

* ``cold, per provider``: ``supported_configs()`` in this process, no cache
  (repeat runs: modules such as pynvml are already imported);
* ``cold, first call``: ``detect(use_cache=False)`` timed inside a fresh
  interpreter, so it includes importing the detection libraries;
* ``cached``: ``detect()`` with a warm cache, in this process;
* ``without amd/intel`` vs ``all``: ``detect()`` over the four older built-ins
  only, then over every built-in (the amd and intel providers absent/present);
* ``fake AMD/Intel host``: a KFD sysfs tree with an MI300X and a ROCm 6.4
  folder (``PIP_VARIANTS_TEST_SYSFS_ROOT``, ``ROCM_PATH``), and a Level Zero
  layer replaced by a function reporting an Arc A380 (the worker thread, time
  bound and decoding still run), cold and cached;
* ``subprocess``: ``python -c "from pip_variants.providers.detect import detect; detect()"``
  end to end (interpreter start-up included), with a warm cache and with
  ``PIP_VARIANTS_NO_CACHE=1``, next to ``python -c pass`` for reference.

Targets: cached < 1 ms, cold < 100 ms. A temporary cache directory is used,
so the user's cache is left alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DETECT_SNIPPET = "from pip_variants.providers.detect import detect; detect()"
FIRST_CALL_SNIPPET = (
    "import time; t = time.perf_counter();"
    "from pip_variants.providers.detect import detect; detect(use_cache=False);"
    "print((time.perf_counter() - t) * 1e3)"
)


def median_ms(func: Callable[[], object], runs: int) -> float:
    samples: List[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def run_python(code: str, env: Dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=str(ROOT), check=True, capture_output=True, text=True
    ).stdout


def subprocess_ms(code: str, env: Dict[str, str], runs: int) -> float:
    return median_ms(lambda: run_python(code, env), runs)


def fake_gpu_rows(tmp: Path, runs: int, detect: Callable) -> List[tuple]:
    """Cold and cached timings with a fake MI300X + ROCm 6.4 and a fake Arc A380."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support.fakehw import kfd_tree, rocm_tree, ze_devices

    from pip_variants.providers import intel
    from pip_variants.providers.amd import AmdProvider

    os.environ["PIP_VARIANTS_TEST_SYSFS_ROOT"] = str(kfd_tree(tmp / "sys", ["gfx942"] * 8))
    os.environ["ROCM_PATH"] = str(rocm_tree(tmp / "rocm", "6.4.1-120"))
    real_layer, real_gate = intel._level_zero_devices, intel.IntelProvider._worth_asking
    intel._level_zero_devices = lambda library: ze_devices(["12.56.5", "12.71.4"])
    intel.IntelProvider._worth_asking = lambda self: True
    rows: List[tuple] = []
    try:
        amd = AmdProvider()
        assert amd.supported_configs()[1].values == ("6.4",)
        rows.append(("fake AMD host (8x MI300X), cold: amd", median_ms(amd.supported_configs, runs), 100.0))
        provider = intel.IntelProvider()
        assert provider.supported_configs()[0].values == ("12.56.5", "12.55.8", "12.71.4", "12.70.4")
        rows.append(("fake Intel host (A380 + MTL-H), cold: intel",
                     median_ms(provider.supported_configs, runs), 100.0))
        detect(["amd", "intel"])  # warm the cache for these inputs
        rows.append(("fake AMD+Intel host, cached: detect(amd, intel)",
                     median_ms(lambda: detect(["amd", "intel"]), runs * 10), 1.0))
        rows.append(("fake AMD+Intel host, cached: detect()", median_ms(detect, runs * 10), 1.0))
    finally:
        intel._level_zero_devices, intel.IntelProvider._worth_asking = real_layer, real_gate
        del os.environ["PIP_VARIANTS_TEST_SYSFS_ROOT"], os.environ["ROCM_PATH"]
    return rows


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--runs", type=int, default=20, help="runs per measurement (default 20)")
    args = parser.parse_args(argv)
    runs = max(1, args.runs)

    with tempfile.TemporaryDirectory(prefix="pv-bench-") as tmp:
        os.environ["PIP_VARIANTS_CACHE_DIR"] = tmp
        os.environ.pop("PIP_VARIANTS_NO_CACHE", None)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))

        rows: List[tuple] = []
        first = [float(run_python(FIRST_CALL_SNIPPET, env)) for _ in range(max(3, runs // 4))]
        rows.append(("cold, first call in a fresh process (all)", statistics.median(first), 100.0))

        from pip_variants.providers.builtin import all_builtin_providers
        from pip_variants.providers.detect import detect

        for provider in all_builtin_providers():
            ms = median_ms(provider.supported_configs, runs)
            rows.append((f"cold, in-process: {provider.namespace}", ms, None))
        rows.append(("cold, in-process: detect(use_cache=False)", median_ms(lambda: detect(use_cache=False), runs), 100.0))

        older = ["nvidia", "x86_64", "aarch64", "tpu"]
        rows.append(("cold, in-process: detect(without amd/intel)",
                     median_ms(lambda: detect(older, use_cache=False), runs), 100.0))

        detect()  # warm the cache
        rows.append(("cached, in-process: detect()", median_ms(detect, runs * 10), 1.0))
        rows.append(("cached, in-process: detect(without amd/intel)",
                     median_ms(lambda: detect(older), runs * 10), 1.0))
        rows.extend(fake_gpu_rows(Path(tmp), runs, detect))

        sub_runs = max(3, runs // 2)
        base = subprocess_ms("pass", env, sub_runs)
        warm = subprocess_ms(DETECT_SNIPPET, env, sub_runs)
        no_cache_env = dict(env, PIP_VARIANTS_NO_CACHE="1")
        cold = subprocess_ms(DETECT_SNIPPET, no_cache_env, sub_runs)
        rows.append(("subprocess: python -c pass (reference)", base, None))
        rows.append(("subprocess: detect(), warm cache", warm, None))
        rows.append(("subprocess: detect(), PIP_VARIANTS_NO_CACHE=1", cold, None))
        rows.append(("subprocess: detect() minus start-up, warm cache", warm - base, None))
        rows.append(("subprocess: detect() minus start-up, no cache", cold - base, None))

    width = max(len(r[0]) for r in rows)
    print(f"Python {sys.version.split()[0]} on {sys.platform}; median of {runs} runs (subprocess: {sub_runs})")
    print(f"{'measurement':<{width}}  {'ms':>9}  target")
    print("-" * (width + 20))
    for name, ms, target in rows:
        verdict = "" if target is None else (f"< {target:g} ok" if ms < target else f"< {target:g} MISSED")
        print(f"{name:<{width}}  {ms:9.3f}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
