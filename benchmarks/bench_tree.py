"""A torch-sized install: pip-variants vs stock pip on a CDN-like loopback index.

    python benchmarks/bench_tree.py [--pip 26.3] [--rounds 3] [--delays 0,40]
                                    [--caches cold,warm] [--venvs DIR] [--deps 15] [--versions 1]
                                    [--instructions]

The tree: ``torch`` (a variant release: cu126, cu128, null and a plain wheel,
plus ``torch-2.9.0-variants.json``) depending on ``--deps`` variant releases
(``nvlib-1`` ...); ``--versions N`` gives every project N releases (pip then
weighs all of them on each page, as with a real torch index). A plain-only twin index serves the same tree with the plain
wheels only: what stock pip installs. Both indexes publish PEP 658 metadata
and behave like PyPI's CDN: project pages ``max-age=600`` with an ETag (304 on
``If-None-Match``), files ``max-age=365000000, immutable``; every response is
held back ``delay`` milliseconds (a round trip to the CDN). The server sets
``TCP_NODELAY``: without it loopback adds ~40 ms per response (Nagle + delayed
ACK).

Three installs (``pip install --target``, fake H100 so that cu128 is chosen),
run alternately ``rounds`` times per (cache, delay) case, medians shown:

* ``stock``: a venv without pip-variants, plain-only index;
* ``variants``: the venv with pip-variants, variant index;
* ``off``: the same venv with ``PIP_NO_VARIANTS=1``, variant index.

``cold``: an empty pip cache for every run; ``warm``: the cache that one
earlier run of the same kind filled. ``--trusted-host 127.0.0.1`` is passed:
pip caches plain-http responses only for trusted hosts. The request counts
are per run, by kind (page / json / metadata / wheel) and status.

The "cpu" columns (user + system time of pip) are steadier than wall time on a
busy machine; ``--instructions`` adds one run of each kind per case under
cachegrind (``PYTHONHASHSEED=0``), steadier still. A script, not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Dict, List, Optional, Tuple
from urllib.parse import quote, unquote, urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from support.venvs import build_project_wheel, create_venv, scrubbed_env  # noqa: E402
from support.wheels import NVIDIA_PROVIDER, build_release, variants_json  # noqa: E402

from bench_pip import instructions  # noqa: E402  (this folder is sys.path[0])

FAKE_GPU = {
    "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8",
    "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0",
}


def _release_json(name: str, version: str) -> dict:
    return variants_json(
        name,
        version,
        namespaces=["nvidia"],
        providers={"nvidia": NVIDIA_PROVIDER},
        variants={
            "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
            "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["90_real"]}},
            "null": {},
        },
    )


# ----------------------------------------------------------------------------- the index


class _Files:
    """Both indexes' content: project -> [(filename, bytes)], with PEP 658 sidecars."""

    def __init__(self) -> None:
        self.projects: Dict[str, Dict[str, List[str]]] = {"v": {}, "p": {}}
        self.blobs: Dict[str, bytes] = {}
        self.metadata: Dict[str, bytes] = {}

    def add(self, root: str, project: str, path: Path) -> None:
        data = path.read_bytes()
        self.blobs[path.name] = data
        self.projects[root].setdefault(project, []).append(path.name)
        if path.name.endswith(".whl"):
            with zipfile.ZipFile(path) as zf:
                meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
                self.metadata[path.name + ".metadata"] = zf.read(meta)

    def page(self, root: str, project: str) -> Optional[bytes]:
        names = self.projects[root].get(project)
        if names is None:
            return None
        anchors = []
        for name in names:
            href = f"/files/{quote(name)}#sha256={hashlib.sha256(self.blobs[name]).hexdigest()}"
            attrs = ""
            meta = self.metadata.get(name + ".metadata")
            if meta is not None:
                digest = hashlib.sha256(meta).hexdigest()
                attrs = f' data-dist-info-metadata="sha256={digest}" data-core-metadata="sha256={digest}"'
            anchors.append(f'<a href="{html.escape(href)}"{attrs}>{html.escape(name)}</a><br/>')
        return (
            '<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.1">'
            f"<title>Links for {project}</title></head><body>\n" + "\n".join(anchors) + "\n</body></html>\n"
        ).encode()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    files: _Files
    delay: float = 0.0
    log: List[Tuple[str, int]]
    lock: threading.Lock


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Without it every response waits for the client's delayed ACK (~40 ms).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        parts = [unquote(p) for p in path.split("/") if p]
        body: Optional[bytes] = None
        kind, ctype, cache = "other", "application/octet-stream", "max-age=365000000, immutable, public"
        files = self.server.files
        if len(parts) == 3 and parts[0] in ("v", "p") and parts[1] == "simple":
            kind, ctype, cache = "page", "text/html", "max-age=600, public"
            body = files.page(parts[0], parts[2])
        elif len(parts) == 2 and parts[0] == "files":
            name = parts[1]
            if name.endswith(".metadata"):
                kind, body = "metadata", files.metadata.get(name)
            else:
                kind = "json" if name.endswith(".json") else "wheel"
                body = files.blobs.get(name)
                if kind == "json":
                    ctype = "application/json"
        if self.server.delay:
            time.sleep(self.server.delay)
        if body is None:
            status = 404
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            etag = '"%s"' % hashlib.sha256(body).hexdigest()[:32]
            if self.headers.get("If-None-Match") == etag:
                status = 304
                self.send_response(304)
                self.send_header("ETag", etag)
                self.send_header("Cache-Control", cache)
                self.end_headers()
            else:
                status = 200
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("ETag", etag)
                self.send_header("Cache-Control", cache)
                self.end_headers()
                self.wfile.write(body)
        with self.server.lock:
            self.server.log.append((kind, status))


# ----------------------------------------------------------------------------- running


def _build_tree(out: Path, files: _Files, deps: int, versions: int = 1) -> None:
    """``versions`` releases of every project (1.0, 1.1, ...); torch's newest
    needs the deps unpinned, so pip evaluates every release on each page."""
    names = [f"nvlib-{i}" for i in range(1, deps + 1)]
    releases = [f"1.{n}" for n in range(versions)]
    for i, name in enumerate(names, 1):
        for n, version in enumerate(releases):
            for path in build_release(out / "v", name, version, _release_json(name, version)):
                if path.name.endswith("-variants.json"):
                    # Same metadata in every release: make each file distinct (as real ones
                    # are), or a content-addressed cache would fetch one for all.
                    path.write_bytes(path.read_bytes() + b"\n" * n + b" " * i)
                files.add("v", name, path)
            for path in build_release(out / "p", name, version, None):
                files.add("p", name, path)
    requires = [f"{n}==1.0" if versions == 1 else n for n in names]
    for n, version in enumerate(["2.9.0"] if versions == 1 else [f"2.{n}.0" for n in range(versions)]):
        data = _release_json("torch", version)
        for path in build_release(out / "v", "torch", version, data, requires=requires):
            if path.name.endswith("-variants.json"):
                path.write_bytes(path.read_bytes() + b"\n" * n)
            files.add("v", "torch", path)
        for path in build_release(out / "p", "torch", version, None, requires=requires):
            files.add("p", "torch", path)


def make_venvs(venv_dir: Path, work: Path, pip: Optional[str], python: str, reuse: bool) -> Dict[str, str]:
    """The pythons of ``venv_dir/with`` (pip-variants built from this checkout, always
    installed afresh) and ``venv_dir/without`` (stock pip, kept when ``reuse``)."""
    wheel = build_project_wheel(work / "dist", python=python)
    py: Dict[str, str] = {}
    for key, w in (("with", wheel), ("without", None)):
        path = venv_dir / key
        marker = path / ".bench-ok"
        if reuse and marker.is_file() and w is None:
            py[key] = str(path / "bin" / "python")
            continue
        shutil.rmtree(path, ignore_errors=True)
        py[key] = str(create_venv(path, pip_version=pip, wheel=w, python=python).python)
        marker.write_text("ok")
    return py


def _run(cmd: List[str], env: Dict[str, str], server: _Server) -> Tuple[float, float, Counter]:
    """Wall seconds, CPU seconds (user + system: steadier than wall time on a
    busy machine) and the requests of one pip run."""
    with server.lock:
        server.log.clear()
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{out.decode(errors='replace')}")
    with server.lock:
        counts = Counter(f"{k}:{s}" for k, s in server.log)
    return elapsed, usage.ru_utime + usage.ru_stime, counts


def _fmt(counts: Counter) -> str:
    if not counts:
        return "0"
    total = sum(counts.values())
    order = ("page", "json", "metadata", "wheel", "other")
    parts = [f"{k} {n}" for k, n in sorted(counts.items(), key=lambda kv: (order.index(kv[0].split(":")[0]), kv[0]))]
    return f"{total} ({', '.join(parts)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pip", default=None, help="pip version for both venvs (default: newest)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--delays", default="0,40", help="per-response delays in ms, comma-separated")
    parser.add_argument("--caches", default="cold,warm")
    parser.add_argument("--kinds", default="stock,variants,off")
    parser.add_argument("--deps", type=int, default=15)
    parser.add_argument("--versions", type=int, default=1, help="releases per project (default 1)")
    parser.add_argument("--venvs", default=None, help="reuse/keep the two venvs in this directory")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions (cachegrind, one more run of each kind per case; "
                             "needs valgrind): steadier than time on a busy machine")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind on PATH")

    work = Path(tempfile.mkdtemp(prefix="pv-tree-"))
    venv_dir = Path(args.venvs) if args.venvs else work
    try:
        py = make_venvs(venv_dir, work, args.pip, args.python, reuse=bool(args.venvs))

        files = _Files()
        _build_tree(work / "wheels", files, args.deps, args.versions)
        server = _Server(("127.0.0.1", 0), _Handler)
        server.files, server.log, server.lock = files, [], threading.Lock()
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}"
        envs = {k: scrubbed_env(FAKE_GPU, tmp=work / f"env-{k}") for k in ("stock", "variants", "off")}
        envs["off"]["PIP_NO_VARIANTS"] = "1"
        kinds = [k for k in args.kinds.split(",") if k]
        target = work / "target"

        def command(kind: str) -> List[str]:
            root = "p" if kind == "stock" else "v"
            return [py["without" if kind == "stock" else "with"], "-m", "pip", "install", "-q",
                    "--target", str(target), "--index-url", f"{base}/{root}/simple",
                    "--trusted-host", "127.0.0.1", "torch"]

        results = []
        for cache in [c for c in args.caches.split(",") if c]:
            for delay in [float(d) for d in args.delays.split(",") if d]:
                server.delay = delay / 1000
                times: Dict[str, List[float]] = {k: [] for k in kinds}
                cpu: Dict[str, List[float]] = {k: [] for k in kinds}
                counts: Dict[str, Counter] = {}
                for rnd in range(args.rounds + (cache == "warm")):
                    for kind in kinds:
                        shutil.rmtree(target, ignore_errors=True)
                        if cache == "cold":
                            shutil.rmtree(envs[kind]["PIP_CACHE_DIR"], ignore_errors=True)
                        t, u, c = _run(command(kind), envs[kind], server)
                        if cache == "warm" and rnd == 0:
                            continue  # fills the cache
                        times[kind].append(t)
                        cpu[kind].append(u)
                        counts[kind] = c
                irs: Dict[str, int] = {}
                for kind in kinds if args.instructions else ():
                    shutil.rmtree(target, ignore_errors=True)
                    if cache == "cold":
                        shutil.rmtree(envs[kind]["PIP_CACHE_DIR"], ignore_errors=True)
                    irs[kind] = instructions(command(kind), envs[kind])
                results.append((cache, delay, {k: statistics.median(v) for k, v in times.items()},
                                {k: statistics.median(v) for k, v in cpu.items()}, counts, irs))
        server.shutdown()

        version = subprocess.run([py["with"], "-m", "pip", "--version"], capture_output=True,
                                 text=True).stdout.split()[1]
        print(f"pip {version}, torch + {args.deps} variant deps, {args.versions} release(s) each, "
              f"{args.rounds} rounds, medians")
        ir_head = f" {'instr':>8} {'ratio':>6}" if args.instructions else ""
        print(f"{'case':12} {'kind':9} {'wall':>7} {'ratio':>6} {'cpu':>7} {'ratio':>6}{ir_head}  requests")
        for cache, delay, med, mcpu, counts, irs in results:
            ref, cref, iref = med.get("stock"), mcpu.get("stock"), irs.get("stock")
            for kind in kinds:
                ratio = f"{med[kind] / ref:6.3f}" if ref else "     -"
                cratio = f"{mcpu[kind] / cref:6.3f}" if cref else "     -"
                ir = ""
                if kind in irs:
                    ir = f" {irs[kind] / 1e6:7.0f}M " + (f"{irs[kind] / iref:6.3f}" if iref else "     -")
                print(f"{cache + ' ' + str(int(delay)) + 'ms':12} {kind:9} {med[kind]:6.2f}s {ratio} "
                      f"{mcpu[kind]:6.2f}s {cratio}{ir}  {_fmt(counts[kind])}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
