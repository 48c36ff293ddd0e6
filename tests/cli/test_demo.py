"""pip-variants demo: the real thing, once (a venv, a loopback index, four pip runs)."""

from __future__ import annotations

import io
import os

import pytest

from pip_variants.cli import demo as cli_demo
from pip_variants.demo_data import DEMO_VARIANTS, build_demo_index
from pip_variants.metadata import load_metadata, load_wheel_metadata


def test_demo_index_is_consistent(tmp_path):
    wheels = build_demo_index(tmp_path)
    assert len(wheels) == len(DEMO_VARIANTS) + 1
    md = load_metadata((tmp_path / "demo_tensor-1.0-variants.json").read_bytes(), "demo")
    assert set(md.variants) == set(DEMO_VARIANTS)
    for w in wheels[:-1]:
        label = w.name[:-4].rsplit("-", 1)[1]
        assert load_wheel_metadata(str(w), label).namespaces == ("nvidia", "x86_64")
    assert (tmp_path / "simple" / "demo-tensor" / "index.html").is_file()


def test_scrubbed_env_drops_machine_settings(monkeypatch, tmp_path):
    monkeypatch.setenv("PIP_INDEX_URL", "http://elsewhere/")
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "9.0")
    monkeypatch.setenv("PYTHONPATH", "/src")
    env = cli_demo.scrubbed_env({"PIP_VARIANT_PROFILE": "/p.json", "PIP_NO_INPUT": None},
                                keep_pythonpath=False, tmp=tmp_path)
    assert "PIP_INDEX_URL" not in env and "NV_VARIANT_PROVIDER_FORCE_SM_ARCH" not in env
    assert "PYTHONPATH" not in env and "PIP_NO_INPUT" not in env
    assert env["PIP_CONFIG_FILE"] == os.devnull and env["PIP_VARIANT_PROFILE"] == "/p.json"
    assert cli_demo.scrubbed_env({}, keep_pythonpath=True, tmp=tmp_path)["PYTHONPATH"] == "/src"


def test_why_from_records():
    records = [{
        "project": "demo-tensor", "version": "1.0",
        "wheels": [{"filename": "d-1.0-py3-none-any-cu126.whl", "label": "cu126", "tags_fit": True}],
        "selection": {
            "variants": {"cu126": {"nvidia": {"sm_arch": ["75_real", "80_real"]}}},
            "supported": {"nvidia": {"sm_arch": ["75_real", "70_real"]}},
            "rejected": {"cu128": {"reason": "unsupported", "namespace": "nvidia", "feature": "sm_arch",
                                   "declared": ["80_real", "90_real"], "supported": ["75_real"]},
                         "x86_64_v3": {"reason": "unsupported", "namespace": "x86_64", "feature": "level",
                                       "declared": ["v3"], "supported": []}},
        },
    }]
    why = cli_demo._why(records, "cu126", "d-1.0-py3-none-any-cu126.whl")
    assert why == ("fits: nvidia :: sm_arch :: 75_real; cu128: needs nvidia :: sm_arch :: 80_real | 90_real; "
                   "x86_64_v3: no x86_64 :: level here")
    assert cli_demo._why([], "cu126", "x", {"properties": ["nvidia :: sm_arch :: 75_real"]}) == \
        "fits: nvidia :: sm_arch :: 75_real"


def _pip_in_range() -> bool:
    from pip_variants.cli.status import _version_of, pip_supported

    return bool(pip_supported(_version_of("pip") or ""))


needs_hooks = pytest.mark.skipif(
    not os.path.exists(os.path.join(os.path.dirname(cli_demo.__file__), "..", "_bootstrap.py")),
    reason="the pip hooks are not in this checkout yet",
)
# The demo falls back to this interpreter's pip when ensurepip's is too old.
needs_pip = pytest.mark.skipif(not _pip_in_range(), reason="this pip is outside the hooks' range")


@needs_hooks
@needs_pip
@pytest.mark.e2e
def test_demo_runs_end_to_end(run_cli):
    proc = run_cli("demo", timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    for step in ("[1/4]", "[2/4]", "[3/4]", "[4/4]"):
        assert step in out
    table = out[out.index("MACHINE"):]
    assert "T4 (CUDA 12.8 driver, sm 7.5)    cu126" in table
    assert "H100 (CUDA 12.8 driver, sm 9.0)  cu128" in table
    assert "CPU-only box (x86-64-v2)         null" in table
    assert "UNEXPECTED" not in out


@needs_hooks
@needs_pip
@pytest.mark.e2e
def test_demo_in_process_without_venv(monkeypatch, isolated_env):
    # The fallback path: this interpreter's pip with the hooks loaded.
    monkeypatch.setenv("PYTHONPATH", str(cli_demo.Path(cli_demo.__file__).resolve().parents[2]))
    out = io.StringIO()
    status, results = cli_demo.run_demo(out=out, use_venv=False)
    assert status == 0, out.getvalue()
    got = {r.machine: r.label for r in results}
    assert got["T4 (CUDA 12.8 driver, sm 7.5)"] == "cu126"
    assert got["CPU-only box (x86-64-v2)"] == "null"
