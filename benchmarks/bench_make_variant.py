#!/usr/bin/env python
"""Benchmark ``make-variant`` on a large generated wheel.

Usage: python benchmarks/bench_make_variant.py [--size-mb 200] [--files 5000] [-n RUNS]

The wheel holds one incompressible member of SIZE MB (deflated, as wheel
builders store it) and FILES small modules. Rows (median of RUNS):

* ``copy the file``: ``shutil.copyfile`` of the wheel (the yardstick);
* ``make-variant``: ``make_variant()`` timed inside a fresh interpreter,
  with that process's peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``).

Targets (issue 11): within 3x the time of copying the file, under 100 MB of
memory. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHILD = """
import json, resource, sys, time
from pip_variants.publish import make_variant
start = time.perf_counter()
dest = make_variant(sys.argv[1], sys.argv[2], label="cu128",
                    properties=["nvidia :: cuda_version_lower_bound :: 12.8"], namespaces=["nvidia"])
elapsed = time.perf_counter() - start
rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "maxrss_mb": rss_kib / 1024, "wheel": str(dest)}))
"""


def build_wheel(path: Path, size_mb: int, files: int, hashes: bool = True) -> Path:
    """A plain wheel written in chunks (the generator's memory stays small too).
    Without ``hashes`` its RECORD lists the big member unhashed, so make-variant
    must hash it by streaming decompression (the worst case)."""
    from pip_variants.wheelzip import record_hash

    dist_info = "bigpkg-1.0.dist-info"
    record = []
    digest = hashlib.sha256()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        with zf.open("bigpkg/_native.so", "w", force_zip64=True) as member:
            left = size_mb << 20
            while left:
                chunk = os.urandom(min(left, 4 << 20))
                member.write(chunk)
                digest.update(chunk)
                left -= len(chunk)
        if hashes:
            field = "sha256=" + base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
            record.append(f"bigpkg/_native.so,{field},{size_mb << 20}")
        for i in range(files):
            text = f"VALUE = {i}\n" * 20
            zf.writestr(f"bigpkg/sub{i // 500}/mod{i}.py", text)
            record.append(f"bigpkg/sub{i // 500}/mod{i}.py,{record_hash(text.encode())},{len(text)}")
        zf.writestr(f"{dist_info}/METADATA", "Metadata-Version: 2.1\nName: bigpkg\nVersion: 1.0\n")
        zf.writestr(f"{dist_info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-any\n")
        zf.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("-n", "--runs", type=int, default=3)
    parser.add_argument("--no-record-hashes", action="store_true",
                        help="the source RECORD does not hash the big member (worst case: hashed by streaming)")
    args = parser.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PIP_NO_VARIANTS="1")
    with tempfile.TemporaryDirectory(prefix="bench-make-variant-") as tmp:
        tmpdir = Path(tmp)
        t = time.perf_counter()
        wheel = build_wheel(tmpdir / "bigpkg-1.0-py3-none-any.whl", args.size_mb, args.files,
                            hashes=not args.no_record_hashes)
        size = wheel.stat().st_size
        print(f"wheel: {size / 1e6:.0f} MB, {args.files + 4} members (built in {time.perf_counter() - t:.1f} s)")
        copies, runs, rss = [], [], []
        for i in range(args.runs):
            target = tmpdir / f"copy{i}.whl"
            t = time.perf_counter()
            shutil.copyfile(wheel, target)
            copies.append(time.perf_counter() - t)
            target.unlink()
            out = tmpdir / f"out{i}"
            proc = subprocess.run([sys.executable, "-c", CHILD, str(wheel), str(out)], env=env,
                                  capture_output=True, text=True, check=True)
            data = json.loads(proc.stdout.strip().splitlines()[-1])
            runs.append(data["seconds"])
            rss.append(data["maxrss_mb"])
            shutil.rmtree(out)
    copy_s, make_s, peak = statistics.median(copies), statistics.median(runs), max(rss)
    ratio = make_s / copy_s if copy_s else float("inf")
    print(f"{'copy the file':<16} {copy_s:8.3f} s")
    print(f"{'make-variant':<16} {make_s:8.3f} s  ({ratio:.1f}x the copy; target <= 3x)")
    print(f"{'peak memory':<16} {peak:8.1f} MB (whole process; target < 100 MB)")
    ok = ratio <= 3 and peak < 100
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
