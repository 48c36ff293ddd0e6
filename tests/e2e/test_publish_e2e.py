"""Issue 4: a folder built with ``make-variant`` and ``index`` is a working index.

Served as a plain static site (stdlib http.server over the folder), it must
install correctly through pip-variants and be read the same way by uv
(``--preview-features wheel-variants``), the reference peer.
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from support.pips import newest_pip_only
from support.uv import require_uv, uv_pick
from support.venvs import pick
from support.wheels import build_wheel

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
GPU = {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0"}
T4 = {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "7.5"}
NO_GPU = {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": None, "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": None}


def cli(*args: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "pip_variants", *args], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr + proc.stdout


@pytest.fixture(scope="module")
def static_site(tmp_path_factory):
    """make-variant + index over a folder, served as static files on 127.0.0.1."""
    work = tmp_path_factory.mktemp("publish")
    plain = build_wheel(work / "build", "gpukit", "1.0")
    site = work / "site"
    site.mkdir()
    (site / plain.name).write_bytes(plain.read_bytes())
    ns = ["--namespaces", "nvidia"]
    cli("make-variant", str(plain), "--label", "cu128", *ns,
        "-p", "nvidia :: cuda_version_lower_bound :: 12.8",
        "-p", "nvidia :: sm_arch :: 90_real", "-p", "nvidia :: sm_arch :: 80_real", "-o", str(site))
    cli("make-variant", str(plain), "--label", "cu126", *ns,
        "-p", "nvidia :: cuda_version_lower_bound :: 12.6",
        "-p", "nvidia :: sm_arch :: 75_real", "-o", str(site))
    cli("make-variant", str(plain), "--null", *ns, "-o", str(site))
    cli("index", str(site))
    assert (site / "gpukit-1.0-variants.json").is_file()

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a, **k: None  # type: ignore[assignment]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("machine, label", [(GPU, "cu128"), (T4, "cu126"), (NO_GPU, "null")])
def test_published_folder_installs_through_pip_variants(variant_venv, static_site, machine, label):
    chosen, report, _ = pick(variant_venv, static_site, "gpukit", **machine)
    assert chosen == f"gpukit-1.0-py3-none-any-{label}.whl"
    assert report["install"][0]["variant"]["label"] == label


def test_published_folder_is_plain_wheel_for_stock_pip(stock_venv, static_site):
    chosen, _, _ = pick(stock_venv, static_site, "gpukit", **GPU)
    assert chosen == "gpukit-1.0-py3-none-any.whl"


@pytest.mark.uv
@pytest.mark.parametrize("machine, label", [(GPU, "cu128"), (T4, "cu126")])
def test_uv_reads_the_published_folder_the_same_way(uv_binary, variant_venv, static_site, machine, label):
    class _Url:
        url = static_site

    got = uv_pick(uv_binary, variant_venv.python, _Url, "gpukit", **machine)
    assert got.endswith(f"gpukit-1.0-py3-none-any-{label}.whl")


@pytest.fixture(scope="module")
def uv_binary():
    return require_uv()


@newest_pip_only("the index file's check against the wheels does not depend on the pip release")
def test_an_index_built_over_00x_wheels_installs(variant_venv, tmp_path):
    """Wheels carrying 0.0.x metadata with enable-if (torch 2.8/2.9 on WheelNext's
    index): ``pip-variants index`` writes a 0.2.0 file, which has no enable-if,
    and pip-variants still takes it as agreeing with each wheel."""
    import json

    from support.wheels import build_release

    data = json.loads((REPO / "tests" / "data" / "torch-2.9.0-variants.json").read_text())
    labels = [label for label in ("cu126", "cu128", "null") if label in data["variants"]]
    site = tmp_path / "site"
    site.mkdir()
    build_release(site, "torch", "2.9.0", data, labels=labels, index_file=False)
    cli("index", str(site))
    written = json.loads((site / "torch-2.9.0-variants.json").read_text())
    assert written["$schema"].endswith("/v0.2.0.json") and "enable-if" not in json.dumps(written)
    chosen, _, stderr = pick(variant_venv, site, "torch", **GPU)  # a find-links folder
    assert "differs between the wheel and the index file" not in stderr, stderr
    original = tmp_path / "original"  # the same wheels beside torch's own 0.0.2 file
    original.mkdir()
    build_release(original, "torch", "2.9.0", data, labels=labels)
    expected, _, _ = pick(variant_venv, original, "torch", **GPU)
    assert chosen == expected and expected.endswith(("-cu126.whl", "-cu128.whl")), stderr
