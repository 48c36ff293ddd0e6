#!/usr/bin/env python
"""Benchmark ``pip-variants check``: fast enough for a container entry point?

Usage: python benchmarks/bench_check.py [-n RUNS] [--dists N] [--variants K]

Builds a site directory with N distributions, K of them carrying a
``variant.json`` (nvidia, x86_64 and a static namespace, the machine faked
with the providers' override variables), then reports (milliseconds, median
of RUNS):

* ``in process, cached``: :func:`pip_variants.installed.check_installed`
  with a warm provider cache;
* ``in process, no cache``: the same with ``PIP_VARIANTS_NO_CACHE=1``;
* ``CLI, cached``: ``python -m pip_variants check --path DIR`` end to end
  (interpreter start-up included), next to ``python -c pass``.

A temporary provider cache is used, so the user's cache is left alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SCHEMA = "https://variants-schema.wheelnext.dev/peps/825/v0.1.0.json"
NVIDIA = {"requires": ["nvidia-variant-provider>=0.0.1,<1"],
          "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin"}
X86 = {"requires": ["x86-64-variant-provider>=0.2"]}


def _variant_json(i: int) -> Dict[str, object]:
    kind = i % 3
    if kind == 0:
        ns, provider, props = "nvidia", NVIDIA, {"nvidia": {"cuda_version_lower_bound": ["12.8"],
                                                            "sm_arch": ["90_real"]}}
    elif kind == 1:
        ns, provider, props = "x86_64", X86, {"x86_64": {"level": ["v3"]}}
    else:
        ns, provider = "blas_lapack", {"requires": [], "static-properties": {"library": ["openblas"]}}
        props = {"blas_lapack": {"library": ["openblas"]}}
    return {"$schema": SCHEMA, "default-priorities": {"namespace": [ns]}, "providers": {ns: provider},
            "variants": {f"v{i}": props}}


def build_site(root: Path, dists: int, variants: int) -> Path:
    site = root / "site-packages"
    for i in range(dists):
        info = site / f"pkg{i}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: pkg{i}\nVersion: 1.0\n")
        if i < variants:
            (info / "variant.json").write_text(json.dumps(_variant_json(i)))
    return site


def median_ms(func: Callable[[], object], runs: int) -> float:
    samples: List[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=20)
    parser.add_argument("--dists", type=int, default=200, help="installed distributions (default 200)")
    parser.add_argument("--variants", type=int, default=12, help="of which carry variant.json (default 12)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pv-bench-check-") as tmp:
        site = build_site(Path(tmp), args.dists, args.variants)
        env = dict(os.environ)
        env.update(PIP_VARIANTS_CACHE_DIR=str(Path(tmp) / "cache"), PYTHONPATH=str(ROOT),
                   NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION="12.6",
                   NV_VARIANT_PROVIDER_FORCE_SM_ARCH="9.0", PIP_VARIANTS_X86_64_LEVEL="v3")
        env.pop("PIP_VARIANTS_NO_CACHE", None)
        os.environ.update(env)

        from pip_variants.installed import check_installed

        report = check_installed([str(site)])  # warms the cache
        assert len(report.results) == args.variants, report
        rows = [("in process, cached", median_ms(lambda: check_installed([str(site)]), args.runs))]
        os.environ["PIP_VARIANTS_NO_CACHE"] = "1"
        rows.append(("in process, no cache", median_ms(lambda: check_installed([str(site)]), args.runs)))
        del os.environ["PIP_VARIANTS_NO_CACHE"]

        def cli() -> None:
            subprocess.run([sys.executable, "-m", "pip_variants", "check", "--path", str(site)],
                           env=env, capture_output=True, check=False)

        def bare() -> None:
            subprocess.run([sys.executable, "-c", "pass"], env=env, capture_output=True, check=True)

        runs = max(3, args.runs // 2)
        rows.append(("CLI, cached (end to end)", median_ms(cli, runs)))
        rows.append(("python -c pass (reference)", median_ms(bare, runs)))

    print(f"pip-variants check: {args.dists} distributions, {args.variants} with variant.json, "
          f"{len(report.not_fitting)} not fitting; median of {args.runs} runs")
    for name, ms in rows:
        print(f"  {name:<30} {ms:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
