"""pip-variants explain: the record format, the model, rendering, and a real pip run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pip_variants.engine import VariantEngine, VariantSettings
from pip_variants.explain import (
    ProviderAnswer,
    build_explanation,
    chosen_from_report,
    read_records,
    record,
    render,
)
from pip_variants.metadata import parse_metadata

METADATA = {
    "$schema": "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json",
    "default-priorities": {"namespace": ["gpu", "cpu"]},
    "providers": {
        # Static providers: what "this machine" supports, fixed by the metadata.
        "gpu": {"static-properties": {"api": ["12.4", "12.2"]}},
        "cpu": {"static-properties": {"level": ["v3", "v2"]}},
    },
    "variants": {
        "g128": {"gpu": {"api": ["12.8"]}},
        "g124": {"gpu": {"api": ["12.4"]}},
        "v3": {"cpu": {"level": ["v3"]}},
        "null": {},
    },
}
LABELS = ["g128", "g124", "v3", "null"]


def _wheels():
    rows = [{"filename": f"demo-1.0-py3-none-any-{l}.whl", "label": l, "tags_fit": True} for l in LABELS]
    rows.append({"filename": "demo-1.0-py3-none-any.whl", "label": None, "tags_fit": True})
    return rows


def _selection(**settings):
    md = parse_metadata(METADATA, "http://x/demo-1.0-variants.json")
    return VariantEngine(VariantSettings(**settings)).select("demo", "1.0", md)


# gpu is an ahead-of-time namespace: its static list, not this machine, leaves g128 out
STATIC_MISS = ("needs gpu :: api :: 12.8; the release's own static properties list 12.4, 12.2 for 'gpu :: api' "
               "(its metadata contradicts itself)")


def test_record_then_render(tmp_path):
    path = str(tmp_path / "records.jsonl")
    sel = _selection()
    assert sel.order == ("g124", "v3", "null")
    assert record(path, project="demo", version="1.0", source_url="http://x/demo-1.0-variants.json",
                  wheels=_wheels(), selection=sel)
    recs = read_records(path)
    assert len(recs) == 1 and recs[0]["explain-record"] == 1
    assert recs[0]["selection"]["rejected"]["g128"]["message"] == \
        STATIC_MISS

    expl = build_explanation(recs, "Demo", version="1.0",
                             chosen_url="http://x/files/demo-1.0-py3-none-any-g124.whl#sha256=00")
    assert expl.chosen == "demo-1.0-py3-none-any-g124.whl"
    rows = {w.label: w for w in expl.wheels}
    assert rows["g124"].chosen and rows["g124"].rank == 1 and rows["g124"].variant_fit is True
    assert rows["v3"].rank == 2 and rows["null"].rank == 3
    assert rows[None].rank == 4 and rows[None].variant_fit is None
    assert rows["g128"].rank is None and rows["g128"].variant_fit is False
    assert rows["g128"].reason == STATIC_MISS
    assert rows["g124"].properties == ("gpu :: api :: 12.4",)
    assert expl.wheels[0].label == "g124"  # the choice first, then by rank
    assert [p.namespace for p in expl.providers] == ["gpu", "cpu"]
    assert expl.providers[0].source == "static"

    text = render(expl)
    assert text.startswith("demo 1.0: pip chooses demo-1.0-py3-none-any-g124.whl\n")
    assert "  variant metadata: http://x/demo-1.0-variants.json\n" in text
    assert "* 1     demo-1.0-py3-none-any-g124.whl" in text
    assert STATIC_MISS in text
    assert "api: 12.4, 12.2" in text
    assert "What this machine supports" in text

    data = expl.to_json()
    json.dumps(data)
    assert data["chosen_label"] == "g124" and data["wheels"][0]["rank"] == 1


def test_a_profile_is_named_as_what_supports(tmp_path):
    from dataclasses import replace

    expl = build_explanation([], "demo")
    expl = replace(expl, providers=(ProviderAnswer("gpu", "profile", {"api": ("12.4",)}),))
    assert "What the variant profile supports (per namespace of the release):" in render(expl)


def test_forced_label_is_shown(tmp_path):
    path = str(tmp_path / "r.jsonl")
    sel = _selection(forced={"demo": "g128"})
    record(path, project="demo", version="1.0", source_url=None, wheels=_wheels(), selection=sel)
    expl = build_explanation(read_records(path), "demo", version="1.0",
                             chosen_url="file:///w/demo-1.0-py3-none-any-g128.whl")
    rows = {w.label: w for w in expl.wheels}
    assert expl.forced == "g128"
    assert rows["g128"].chosen and rows["g128"].rank == 1 and rows["g128"].variant_fit is False
    assert "chosen with --variant, although it does not fit here: needs gpu :: api :: 12.8" in rows["g128"].reason
    assert rows["g124"].variant_fit is True and rows["g124"].rank is None  # fits, but not asked for
    assert rows[None].rank is None
    assert "--variant demo=g128" in render(expl)


def test_metadata_error_and_dropped_wheel(tmp_path):
    path = str(tmp_path / "r.jsonl")
    wheels = _wheels()
    wheels[0]["problem"] = "variant.json disagrees with the index file"
    record(path, project="demo", version="1.0", source_url="http://x/", wheels=wheels, selection=None,
           metadata_error="demo 1.0 has variant wheels on http://x/ but no demo-1.0-variants.json")
    expl = build_explanation(read_records(path), "demo", version="1.0",
                             chosen_url="http://x/demo-1.0-py3-none-any.whl")
    rows = {w.label: w for w in expl.wheels}
    assert rows[None].chosen and rows[None].rank == 1
    assert rows["g128"].reason == "wheel ignored: variant.json disagrees with the index file"
    assert rows["v3"].variant_fit is False and "no demo-1.0-variants.json" in rows["v3"].reason
    assert "variant metadata unusable" in render(expl)


def test_no_records_and_pip_failure():
    expl = build_explanation([], "demo", pip_error="ERROR: No matching distribution found for demo")
    assert not expl.recorded and expl.version is None
    text = render(expl)
    assert "pip found nothing to install" in text and "No matching distribution" in text
    assert "recorded nothing" not in text  # pip failed: no release to say that of
    text = render(build_explanation([], "demo", pip_error="ERROR: invalid --variant-profile"))
    assert text.startswith("demo: pip failed before choosing a wheel")
    assert "recorded nothing" in render(build_explanation([], "demo"))


def test_a_pip_failure_is_one_line(monkeypatch):
    from pip_variants.cli import explain as cli_explain

    assert cli_explain._pip_failure("demo", "Looking in links: x\nERROR: Could not open requirements\n") == \
        "pip failed for demo: Could not open requirements"
    tb = "Traceback (most recent call last):\n  ...\nModuleNotFoundError: No module named pip\n"
    assert cli_explain._pip_failure("demo", tb).startswith("pip is not installed for ")


def test_record_is_tolerant(tmp_path):
    assert record(None, project="a", version="1", source_url=None, wheels=[]) is False
    assert record(str(tmp_path / "no" / "such" / "dir" / "f"), project="a", version="1",
                  source_url=None, wheels=[]) is False
    assert record(str(tmp_path / "f"), project="a", version="1", source_url=None,
                  wheels=[{"filename": "a-1-py3-none-any.whl"}], selection=object()) is False
    path = tmp_path / "mixed.jsonl"
    path.write_text('not json\n[1, 2]\n{"no": "project"}\n')
    record(str(path), project="a", version="1", source_url=None, wheels=[])
    assert [r["project"] for r in read_records(str(path))] == ["a"]
    assert read_records(str(tmp_path / "missing")) == []


def test_versions_are_compared_normalised(tmp_path):
    path = str(tmp_path / "r.jsonl")
    record(path, project="demo", version="1.0.0", source_url=None, wheels=_wheels()[-1:])
    record(path, project="other", version="1.0", source_url=None, wheels=[])
    expl = build_explanation(read_records(path), "demo", version="1.0")
    assert expl.recorded and len(expl.wheels) == 1


def test_chosen_from_report():
    report = {"install": [
        {"metadata": {"name": "dep", "version": "2"}, "download_info": {"url": "https://x/dep-2.tar.gz"}},
        {"metadata": {"name": "Demo_Tensor", "version": "1.0"},
         "download_info": {"url": "https://x/p/demo_tensor-1.0-py3-none-any-cu%2B.whl#sha256=1"},
         "variant": {"label": "cu"}},
    ]}
    chosen = chosen_from_report(report, "demo-tensor")
    assert chosen["version"] == "1.0" and chosen["filename"] == "demo_tensor-1.0-py3-none-any-cu+.whl"
    assert chosen["variant"] == {"label": "cu"}
    assert chosen_from_report({}, "x") is None


# --------------------------------------------------------------- with the real pip

# pip with the shim loaded explicitly (the checkout may only be on PYTHONPATH,
# where no .pth file runs); the hooks write the explain records themselves.
HOOKED_PIP = r"""
import runpy, sys
import pip_variants._bootstrap as boot
getattr(boot, "install", lambda: None)()
sys.argv[0] = "pip"
runpy.run_module("pip", run_name="__main__", alter_sys=True)
"""

def _pip_in_range() -> bool:
    from pip_variants.cli.status import _version_of, pip_supported

    return bool(pip_supported(_version_of("pip") or ""))


needs_hooks = pytest.mark.skipif(
    not (Path(__file__).resolve().parents[2] / "pip_variants" / "_bootstrap.py").exists()
    or not _pip_in_range(),
    reason="the pip hooks are not in this checkout yet, or this pip is outside their range",
)


@pytest.fixture
def demo_dir(tmp_path):
    from pip_variants.demo_data import build_demo_index

    root = tmp_path / "index"
    build_demo_index(root)
    return root


@needs_hooks
@pytest.mark.e2e
@pytest.mark.parametrize("machine, chosen, rejected", [
    ({"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "7.5"},
     "cu126", ("cu128", "needs nvidia :: sm_arch :: 80_real or")),
    ({"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0"},
     "cu128", None),
])
def test_explain_runs_pip(demo_dir, tmp_path, machine, chosen, rejected):
    from clihelpers import cli_env  # isolation from this machine's pip config

    from pip_variants.cli.explain import run_explain

    env = cli_env(tmp_path, machine)
    expl, rc = run_explain("demo-tensor", ["--no-index", "--find-links", str(demo_dir)], env=env,
                           pip=[sys.executable, "-c", HOOKED_PIP], timeout=180)
    assert rc == 0, expl.pip_error
    assert expl.chosen == f"demo_tensor-1.0-py3-none-any-{chosen}.whl"
    assert expl.version == "1.0" and expl.recorded
    rows = {w.label: w for w in expl.wheels}
    assert set(rows) == {"cu128", "cu126", "x86_64_v3", "null", None}
    assert rows[chosen].chosen and rows[chosen].rank == 1
    if rejected:
        label, text = rejected
        assert rows[label].variant_fit is False and text in rows[label].reason
    assert "demo_tensor-1.0-variants.json" in expl.sources[0]
    assert "What this machine supports" in render(expl)


@needs_hooks
@pytest.mark.e2e
@pytest.mark.parametrize("active", [True, False])
def test_explain_says_when_a_plain_pip_here_would_be_stock(demo_dir, tmp_path, monkeypatch, active):
    """explain loads the hooks itself: where the shim is off, plain pip does not pick what it shows."""
    from clihelpers import cli_env

    from pip_variants import activation
    from pip_variants.cli import explain as cli_explain

    monkeypatch.setattr(cli_explain, "pip_command", lambda: [sys.executable, "-c", HOOKED_PIP])
    monkeypatch.setattr(activation, "is_active", lambda prefix=None: active)
    env = cli_env(tmp_path, {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8",
                             "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0"})
    expl, rc = cli_explain.run_explain("demo-tensor", ["--no-index", "--find-links", str(demo_dir)], env=env,
                                       timeout=180)
    assert rc == 0 and expl.chosen.endswith("-cu128.whl"), expl.pip_error
    said = [note for note in expl.notes if "start-up shim is not active" in note]
    assert bool(said) is not active, expl.notes


@needs_hooks
@pytest.mark.e2e
def test_explain_cli_subprocess(run_cli, demo_dir):
    proc = run_cli("explain", "demo-tensor", "--no-index", "--find-links", str(demo_dir),
                   env={"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8",
                        "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0"}, timeout=180)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "pip chooses demo_tensor-1.0-py3-none-any-cu128.whl" in proc.stdout
    forced = run_cli("explain", "demo-tensor", "--no-index", "--find-links", str(demo_dir),
                     "--variant", "demo-tensor=cu126", "--json", timeout=180)
    assert forced.returncode == 0, forced.stderr
    assert json.loads(forced.stdout)["chosen"] == "demo_tensor-1.0-py3-none-any-cu126.whl"
    off = run_cli("explain", "demo-tensor", "--no-index", "--find-links", str(demo_dir), "--no-variants",
                  "--json", timeout=180)
    assert off.returncode == 0, off.stderr
    assert json.loads(off.stdout)["chosen"] == "demo_tensor-1.0-py3-none-any.whl"
    missing = run_cli("explain", "no-such-project", "--no-index", "--find-links", str(demo_dir), timeout=180)
    assert missing.returncode == 1
    assert "pip found nothing to install" in missing.stdout
    assert missing.stderr.startswith("pip-variants: error: pip failed for no-such-project: ")
    assert len(missing.stderr.strip().splitlines()) == 1, missing.stderr
    bad_profile = run_cli("explain", "demo-tensor", "--no-index", "--find-links", str(demo_dir),
                          "--variant-profile", str(demo_dir / "nope.json"), timeout=180)
    assert bad_profile.returncode == 1 and bad_profile.stdout == ""
    assert bad_profile.stderr.startswith("pip-variants: error: pip failed for demo-tensor: ")
    assert "nope.json" in bad_profile.stderr and len(bad_profile.stderr.strip().splitlines()) == 1
    usage = run_cli("explain", "demo-tensor", "--variant", "badspec")
    assert usage.returncode == 2 and "'badspec' is not NAME=LABEL" in usage.stderr


def test_variant_options_are_forwarded_to_pip():
    import argparse

    from pip_variants.cli import explain as cli_explain

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    cli_explain.register(sub)
    args = parser.parse_args([
        "explain", "torch", "--variant-exclude", "torch=cu126", "--variant-disable", "tpu",
        "--variant-config", "v.toml", "--variant-strict",
    ])
    assert cli_explain.pip_arguments(args) == [
        "--variant-strict", "--variant-exclude", "torch=cu126", "--variant-disable", "tpu",
        "--variant-config", "v.toml",
    ]
    with pytest.raises(SystemExit):
        parser.parse_args(["explain", "torch", "--variant-exclude", "torch"])


def test_a_providers_feature_order_survives_the_record(tmp_path):
    # "What this machine supports" lists features in the provider's order, its preference
    doc = {"$schema": METADATA["$schema"], "default-priorities": {"namespace": ["cpu"]},
           "providers": {"cpu": {"static-properties": {"zz": ["1"], "aa": ["2"]}, "feature-order": ["zz", "aa"]}},
           "variants": {"x": {"cpu": {"zz": ["1"], "aa": ["2"]}}}}
    sel = VariantEngine().select("demo", "1.0", parse_metadata(doc, "u"))
    path = str(tmp_path / "r.jsonl")
    record(path, project="demo", version="1.0", source_url=None,
           wheels=[{"filename": "demo-1.0-py3-none-any-x.whl", "label": "x", "tags_fit": True}], selection=sel)
    expl = build_explanation(read_records(path), "demo", version="1.0")
    assert list(expl.providers[0].supported) == ["zz", "aa"]


def test_a_release_without_an_index_file_names_the_page_it_was_found_on(tmp_path):
    path = str(tmp_path / "records.jsonl")
    record(path, project="demo", version="1.0", source_url="http://x/simple/demo/", wheels=_wheels(),
           metadata_error="the page lists variant wheels but no demo-1.0-variants.json")
    text = render(build_explanation(read_records(path), "demo", version="1.0"))
    assert "  variant wheels found on: http://x/simple/demo/\n" in text
    assert "variant metadata: " not in text
