"""Selecting from a wheelhouse of torch-sized wheels: pip-variants vs stock pip.

    python benchmarks/bench_wheelhouse.py [--pip 26.3] [--members 12000] [--rounds 7]
                                          [--venvs DIR] [--install] [--instructions]

A CI or Docker build often runs ``pip download`` once and then ``pip install
--no-index --find-links WHEELHOUSE``. Each variant wheel's ``variant.json``
must agree with ``variants.json`` (IX-3), and a torch wheel lists some 12,000
members: reading it costs what listing them costs.
The wheelhouse holds one release (cu126, cu128, cu129, cu130, null, with
``variants.json``); a twin folder holds only its plain wheel, what stock pip
installs. Every wheel has ``--members`` small files.

Two commands, run alternately ``rounds`` times after one warm-up each, medians:

* ``dry-run``: ``pip install --dry-run --no-index --find-links DIR torch``
  (finding, selecting, reading the chosen wheel's metadata: no extraction);
* ``install`` (with ``--install``): the same with ``--no-deps --target``, every
  member written (seconds per run, mostly the file system's).

``--instructions`` adds one run of each under cachegrind (``PYTHONHASHSEED=0``).
A script, not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pip import FAKE_GPU, _pair, instructions  # noqa: E402  (this folder is sys.path[0])
from bench_tree import make_venvs  # noqa: E402
from support.venvs import scrubbed_env  # noqa: E402  (bench_pip put tests/ on sys.path)
from support.wheels import NVIDIA_PROVIDER, build_wheel, variants_json, write_variants_json  # noqa: E402

LABELS = {
    "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
    "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["90_real"]}},
    "cu129": {"nvidia": {"cuda_version_lower_bound": ["12.9"]}},
    "cu130": {"nvidia": {"cuda_version_lower_bound": ["13.0"]}},
    "null": {},
}


def build_wheelhouses(work: Path, members: int) -> Dict[str, Path]:
    """The variant wheelhouse and its plain-only twin, every wheel ``members`` files big."""
    data = variants_json("torch", "2.9.0", namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER},
                         variants=LABELS)
    files = {f"torch/lib{i // 500}/m{i}.py": "x = 1\n" for i in range(members)}
    folders = {"variants": work / "variants", "plain": work / "plain"}
    for folder in folders.values():
        folder.mkdir()
    for label in [*LABELS, None]:
        wheel = build_wheel(folders["variants"], "torch", "2.9.0", label=label,
                            variant_json=data if label else None, files=files)
        if label is None:
            shutil.copy(wheel, folders["plain"] / wheel.name)
    write_variants_json(folders["variants"], "torch", "2.9.0", data)
    return folders


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pip", default=None, help="pip version for both venvs (default: newest)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--members", type=int, default=12000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--venvs", default=None, help="reuse/keep the two venvs in this directory")
    parser.add_argument("--install", action="store_true", help="also time the install itself")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions (cachegrind, one run each; needs valgrind)")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind on PATH")

    work = Path(tempfile.mkdtemp(prefix="pv-wheelhouse-"))
    try:
        py = make_venvs(Path(args.venvs) if args.venvs else work, work, args.pip, args.python,
                        reuse=bool(args.venvs))
        folders = build_wheelhouses(work, args.members)
        env = scrubbed_env(FAKE_GPU, tmp=work / "env")
        target = work / "target"

        def clean_target() -> None:
            shutil.rmtree(target, ignore_errors=True)

        def command(kind: str, install: bool) -> List[str]:
            python, folder = (py["with"], folders["variants"]) if kind == "variants" else (py["without"], folders["plain"])
            what = ["--no-deps", "--target", str(target)] if install else ["--dry-run"]
            return [python, "-m", "pip", "install", "-q", "--no-index", "--find-links", str(folder), *what, "torch"]

        print(f"torch 2.9.0: {len(LABELS)} variant wheels + a plain one, {args.members} members each; "
              f"{args.rounds} rounds, medians")
        print(f"{'case':9} {'variants':>9} {'stock':>9} {'ratio':>6} | {'cpu v':>9} {'cpu s':>9} {'ratio':>6}"
              f"{'  instructions v / s':>24}")
        for name, install in (("dry-run", False), ("install", True))[: 2 if args.install else 1]:
            a, b, _, _, ca, cb = _pair((command("variants", install), env), (command("stock", install), env),
                                       args.rounds, before=clean_target if install else None)
            counted = ""
            if args.instructions:
                irs = []
                for kind in ("variants", "stock"):
                    clean_target()
                    irs.append(instructions(command(kind, install), env))
                counted = f"  {irs[0] / 1e6:7.0f}M / {irs[1] / 1e6:7.0f}M {irs[0] / irs[1]:6.3f}"
            print(f"{name:9} {a * 1000:7.0f}ms {b * 1000:7.0f}ms {a / b:6.3f} | {ca * 1000:7.0f}ms "
                  f"{cb * 1000:7.0f}ms {ca / cb:6.3f}{counted}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
