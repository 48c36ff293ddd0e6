"""Where pip-variants' work in a warm tree install goes, function by function.

    python benchmarks/bytecodes_tree.py [--pip 26.3] [--deps 5,15] [--top 40] [--venvs DIR] [--by-hook]

Runs the warm torch-like tree of ``bench_tree.py`` at two sizes (``--deps``),
once with pip-variants and once with stock pip on the same variant index (its
bigger pages are pip's own cost), counting the bytecode instructions each
function executes (``sys.monitoring``, so the venvs' Python must be 3.12+).
Two sizes separate what a process pays once (imports, setup) from what each
variant release adds: the table lists both, by function, largest first.

Bytecodes are not time, and a bytecode that calls into C (``str(Version)``,
a zip read) counts as one; but the counts are exact and repeat run after run,
so they show which code runs more, and how much more, where a profiler's
samples are too few. A script, not a test.

``--by-hook`` answers another question: how much of pip-variants' own work
each hook costs. Every bytecode goes to the pip-variants function that pip
called (the hook's wrapper), with everything that function calls, except
pip's own code (a wrapper calling the original pip method): that stays in
one "pip" row, with the standard library pip calls. About ten times slower.
"""

from __future__ import annotations

import argparse
import pickle
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_tree as bt  # noqa: E402

#: Run pip under sys.monitoring and leave ``{(file, line, qualname): count}`` in
#: $BYTECODES_OUT at exit. ``@COUNT@`` is replaced by one of the callbacks below:
#: ``count(code, offset)`` adds to ``counts``, keyed by a code object or None (pip).
_DRIVER = r"""
import atexit, collections, os, pickle, runpy, sys
counts = collections.Counter()
@COUNT@
M = sys.monitoring
M.use_tool_id(M.PROFILER_ID, "bytecodes_tree")
M.register_callback(M.PROFILER_ID, M.events.INSTRUCTION, count)
M.set_events(M.PROFILER_ID, M.events.INSTRUCTION)
def dump():
    M.set_events(M.PROFILER_ID, 0)
    out = collections.Counter()
    for code, n in counts.items():
        if code is None:
            out[("pip, and the standard library it calls", 0, "(pip)")] += n
            continue
        path = code.co_filename.split("site-packages/")[-1]
        if "/lib/python3." in path:  # the standard library: from its own folder on
            path = path.split("/lib/python3.", 1)[1].split("/", 1)[-1]
        out[(path, code.co_firstlineno, code.co_qualname)] += n
    with open(os.environ["BYTECODES_OUT"], "wb") as fh:
        pickle.dump(out, fh)
atexit.register(dump)
sys.argv = ["pip"] + sys.argv[1:]
runpy.run_module("pip", run_name="__main__", alter_sys=True)
"""

#: Each instruction counts for the function executing it.
_BY_FUNCTION = r"""
def count(code, offset):
    counts[code] += 1
"""

#: Each instruction goes to the outermost pip-variants frame of the innermost
#: run of them on the stack (the hook pip called), or to None when pip's own
#: code comes first (standard-library frames are skipped).
_BY_HOOK = r"""
frame = sys._getframe
def count(code, offset):
    f = frame(1)
    while f is not None and "/pip_variants/" not in f.f_code.co_filename:
        if "/pip/" in f.f_code.co_filename:
            counts[None] += 1
            return
        f = f.f_back
    hook = None
    while f is not None and "/pip_variants/" in f.f_code.co_filename:
        hook, f = f.f_code, f.f_back
    counts[hook] += 1
"""

Key = Tuple[str, int, str]


def _count(python: str, base: str, env: Dict[str, str], target: Path, out: Path, driver: str) -> Counter:
    args = ["install", "-q", "--target", str(target), "--index-url", f"{base}/v/simple",
            "--trusted-host", "127.0.0.1", "torch"]
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run([python, "-m", "pip", *args], env=env, check=True, capture_output=True)  # warms the caches
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run([python, "-c", driver, *args], env={**env, "BYTECODES_OUT": str(out)}, check=True)
    with open(out, "rb") as fh:
        return pickle.load(fh)


def _measure(deps: int, py: Dict[str, str], work: Path, driver: str) -> Dict[str, Counter]:
    files = bt._Files()
    bt._build_tree(work / f"wheels-{deps}", files, deps, 1)
    server = bt._Server(("127.0.0.1", 0), bt._Handler)
    server.files, server.log, server.lock = files, [], threading.Lock()
    server.delay = 0
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        return {
            kind: _count(py[kind], base, bt.scrubbed_env(bt.FAKE_GPU, tmp=work / f"env-{kind}-{deps}"),
                         work / "target", work / f"{kind}-{deps}.pickle", driver)
            for kind in ("with", "without")
        }
    finally:
        server.shutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pip", default=None, help="pip version for both venvs (default: newest)")
    parser.add_argument("--python", default=sys.executable, help="a Python 3.12+ for the venvs")
    parser.add_argument("--deps", default="5,15", help="two tree sizes (variant dependencies of torch)")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--venvs", default=None, help="reuse/keep the two venvs in this directory")
    parser.add_argument("--by-hook", action="store_true",
                        help="pip-variants' own work per hook, with what it calls (pip's code in one row)")
    args = parser.parse_args()
    small, large = (int(n) for n in args.deps.split(","))
    if large <= small:
        parser.error("--deps: two sizes, the smaller first (e.g. 5,15)")
    version = subprocess.run([args.python, "-c", "import sys; print(sys.version_info >= (3, 12))"],
                             capture_output=True, text=True)
    if version.stdout.strip() != "True":
        parser.error(f"--python {args.python}: sys.monitoring needs Python 3.12 or newer")
    work = Path(tempfile.mkdtemp(prefix="pv-bytecodes-"))
    venv_dir = Path(args.venvs) if args.venvs else work
    try:
        py = bt.make_venvs(venv_dir, work, args.pip, args.python, reuse=bool(args.venvs))
        driver = _DRIVER.replace("@COUNT@", _BY_HOOK if args.by_hook else _BY_FUNCTION)
        runs = {n: _measure(n, py, work, driver) for n in (small, large)}
    finally:
        shutil.rmtree(work, ignore_errors=True)

    releases = large - small

    def extra(key: Key, n: int) -> int:
        return runs[n]["with"][key] - runs[n]["without"][key]

    keys = set()
    for n in runs:
        for kind in runs[n]:
            keys.update(runs[n][kind])
    per_release = {k: (extra(k, large) - extra(k, small)) / releases for k in keys}
    # torch plus `small` dependencies: small + 1 releases
    fixed = {k: extra(k, small) - (small + 1) * per_release[k] for k in keys}
    totals = {n: {kind: sum(c.values()) for kind, c in runs[n].items()} for n in runs}
    print("bytecodes executed, warm tree, pip-variants vs stock pip on the same variant index")
    for n in (small, large):
        t = totals[n]
        print(f"  torch + {n:2} deps: {t['with'] / 1e6:6.2f} M vs {t['without'] / 1e6:6.2f} M "
              f"(x{t['with'] / t['without']:.3f})")
    print(f"  per variant release: +{sum(per_release.values()) / 1e3:.1f} K;  once per process: "
          f"+{sum(fixed.values()) / 1e3:.1f} K")
    by = "by hook (the pip-variants function pip called, with what it calls)" if args.by_hook else "by function"
    for title, table in (("per variant release", per_release), ("once per process", fixed)):
        print(f"\n{title}: extra bytecodes {by}")
        rows: List[Tuple[float, Key]] = sorted(((v, k) for k, v in table.items()), reverse=True)
        for value, (path, line, name) in rows[: args.top]:
            print(f"{value:10.0f}  {name}  ({path}:{line})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
