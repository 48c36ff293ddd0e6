#!/usr/bin/env python
"""Benchmark built-in provider detection, cold (no cache) and cached.

Usage: python benchmarks/bench_detection.py [-n RUNS]

Rows (milliseconds, median of RUNS):

* ``cold, per provider``: ``supported_configs()`` in this process, no cache
  (repeat runs: modules such as pynvml are already imported);
* ``cold, first call``: ``detect(use_cache=False)`` timed inside a fresh
  interpreter, so it includes importing the detection libraries;
* ``cached``: ``detect()`` with a warm cache, in this process;
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

        detect()  # warm the cache
        rows.append(("cached, in-process: detect()", median_ms(detect, runs * 10), 1.0))

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
