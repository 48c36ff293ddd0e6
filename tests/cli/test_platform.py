"""pip-variants platform: built-in providers plus installed plugins."""

from __future__ import annotations

import json
import os
import sys

import pytest

from pip_variants.cli import main
from pip_variants.cli import platform as cli_platform
from pip_variants.providers import plugins
from pip_variants.providers.base import FeatureConfig, ProviderError
from pip_variants.providers.plugins import InstalledPlugin, PluginResult
from support.fakehw import pci_display_device

T4 = {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "7.5"}


def test_json_shape_with_forced_t4(run_cli):
    proc = run_cli("platform", "--json", env=T4)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert isinstance(data, dict)
    for ns, feats in data.items():
        assert isinstance(feats, dict), ns
        for feature, values in feats.items():
            assert isinstance(values, list) and all(isinstance(v, str) for v in values), (ns, feature)
    assert list(data)[:4] == ["nvidia", "x86_64", "aarch64", "tpu"]
    assert data["nvidia"]["cuda_version_lower_bound"][0] == "12.8"
    assert data["nvidia"]["sm_arch"][0] == "75_real"
    assert "12.9" in data["nvidia"]["cuda_version_upper_bound"]


def test_human_table_shortens_long_lists(run_cli):
    proc = run_cli("platform", env=T4)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.splitlines()[0].startswith("NAMESPACE")
    assert "cuda_version_lower_bound" in out and "12.8, 12.7" in out
    assert "(32 values)" in out  # 12.8 down to 11: shortened with a count
    assert "overrides in effect: NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8" in out


def test_per_gpu_rocm_overrides_count_as_overrides():
    env = {"HSA_OVERRIDE_GFX_VERSION_2": "10.3.0", "HSA_OVERRIDE_GFX_VERSION": "11.0.0", "HOME": "/"}
    assert cli_platform.overrides_in_effect(env) == {
        "HSA_OVERRIDE_GFX_VERSION": "11.0.0", "HSA_OVERRIDE_GFX_VERSION_2": "10.3.0"}


def test_full_lists_every_value(run_cli):
    proc = run_cli("platform", "--full", env=T4)
    assert "11.20" in proc.stdout and "values)" not in proc.stdout


def test_invalid_override_is_reported_not_raised(run_cli):
    proc = run_cli("platform", "--json", env={"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "twelve"})
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["nvidia"] == {}
    assert "warning: nvidia" in proc.stderr and "Traceback" not in proc.stderr
    human = run_cli("platform", env={"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "twelve"})
    assert "nvidia: built-in provider failed" in human.stdout


def test_help_has_examples(run_cli):
    proc = run_cli("platform", "--help")
    assert proc.returncode == 0
    assert "examples:" in proc.stdout and "exit status:" in proc.stdout


def _fake_plugins(monkeypatch, installed, answers):
    monkeypatch.setattr(plugins, "discover_installed_plugins", lambda *a, **k: installed)
    monkeypatch.setattr(plugins, "run_plugins", lambda apis, **k: {a: answers[a] for a in apis})


def test_installed_plugins_follow_builtins(monkeypatch, isolated_env):
    installed = [
        InstalledPlugin("acme", "acme_provider:Plugin", "acme-provider", "1.2"),
        InstalledPlugin("x86_64", "x86_64_variant_provider", "x86-64-variant-provider", "0.2.1"),
        InstalledPlugin(None, "broken_provider", "broken-provider", "0.1"),
    ]
    answers = {
        "acme_provider:Plugin": PluginResult("acme_provider:Plugin", [FeatureConfig("gen", ("3", "2"))], "acme"),
        "broken_provider": ProviderError("broken_provider", "ImportError: nope"),
    }
    _fake_plugins(monkeypatch, installed, answers)
    report = cli_platform.gather_platform()
    names = [r.namespace for r in report.namespaces]
    assert names[:6] == ["nvidia", "x86_64", "aarch64", "tpu", "amd", "intel"]
    assert names[6:] == ["acme", "broken_provider"]
    assert report.to_json()["acme"] == {"gen": ["3", "2"]}
    x86 = report.namespaces[1]
    assert "not run" in (x86.note or "")  # the built-in serves x86_64
    table = cli_platform.format_table(report)
    assert "acme" in table and "gen" in table
    assert "broken_provider: plugin broken-provider 0.1 (broken_provider) provider failed" in table


def test_plugin_listing_failure_is_a_warning(monkeypatch, isolated_env, capsys):
    def boom(*a, **k):
        raise ProviderError("(plugins)", "could not list installed plugins: crashed")

    monkeypatch.setattr(plugins, "discover_installed_plugins", boom)
    assert main(["platform", "--json"]) == 0
    captured = capsys.readouterr()
    assert "nvidia" in json.loads(captured.out)
    assert "could not list installed plugins" in captured.err


def test_no_plugins_skips_discovery(monkeypatch, isolated_env, capsys):
    def fail(*a, **k):  # pragma: no cover - must not be called
        raise AssertionError("plugins were listed")

    monkeypatch.setattr(plugins, "discover_installed_plugins", fail)
    assert main(["platform", "--no-plugins"]) == 0
    assert "NAMESPACE" in capsys.readouterr().out


def test_usage_error_exits_2(run_cli):
    proc = run_cli("platform", "--bogus")
    assert proc.returncode == 2
    assert "unrecognized arguments" in proc.stderr


# -- amd and intel: the reference plugins' lists for the digest's test vectors ----------------


def _amd_host(tmp_path, gpus, version=None):
    import sys as _sys
    from pathlib import Path

    tests = str(Path(__file__).resolve().parents[1])
    if tests not in _sys.path:
        _sys.path.insert(0, tests)
    from support.fakehw import kfd_tree, rocm_tree

    bindir = tmp_path / "empty-bin"
    bindir.mkdir(exist_ok=True)
    env = {
        "PIP_VARIANTS_TEST_SYSFS_ROOT": str(kfd_tree(tmp_path / "sys", gpus)),
        "ROCM_PATH": str(rocm_tree(tmp_path / "rocm", version) if version else tmp_path / "no-rocm"),
        "PATH": str(bindir) + ":" + os.path.dirname(sys.executable),
    }
    return env


@pytest.mark.parametrize(
    "gpus, version, env, expected",
    [
        ([], None, {}, {}),
        (["gfx942"], "6.4.1-120", {}, {"gfx_arch": ["gfx942"], "rocm_version": ["6.4"]}),
        (["gfx942", "gfx1100"], "6.4.1-120", {}, {"gfx_arch": ["gfx1100", "gfx942"], "rocm_version": ["6.4"]}),
        ([], None, {"AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH": "gfx1100, gfx90a;gfx1030",
                    "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION": "6.3.0"},
         {"gfx_arch": ["gfx1100", "gfx90a", "gfx1030"], "rocm_version": ["6.3"]}),
    ],
)
def test_amd_vectors(run_cli, tmp_path, gpus, version, env, expected):
    proc = run_cli("platform", "--json", env={**_amd_host(tmp_path, gpus, version), **env})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["amd"] == expected


def test_amd_bad_forced_version_is_one_warning(run_cli, tmp_path):
    env = {**_amd_host(tmp_path, ["gfx942"], "6.4.1"), "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION": "six"}
    proc = run_cli("platform", "--json", env=env)
    assert proc.returncode == 0 and json.loads(proc.stdout)["amd"] == {}
    assert proc.stderr.count("AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION") == 1, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "forced, expected",
    [("12.60.7", {"device_ip": ["12.60.7"]}), ("20.2.0", {"device_ip": ["20.2.0"]}), ("12.99.99", {})],
)
def test_intel_force_vectors(run_cli, forced, expected):
    proc = run_cli("platform", "--json", env={"INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP": forced})
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert list(data)[:6] == ["nvidia", "x86_64", "aarch64", "tpu", "amd", "intel"]
    assert data["intel"] == expected


def test_human_table_names_amd_and_intel_overrides(run_cli, tmp_path):
    env = {**_amd_host(tmp_path, ["gfx90a"], "6.3.0"), "INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP": "12.55.8"}
    proc = run_cli("platform", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "gfx90a" in proc.stdout and "12.55.8" in proc.stdout
    assert "INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP=12.55.8" in proc.stdout


def test_an_intel_gpu_without_a_device_ip_is_explained(run_cli, tmp_path):
    sys_root = tmp_path / "sys"
    pci_display_device(sys_root, "0000:00:02.0")
    no_loader = tmp_path / "no-level-zero"
    no_loader.mkdir()
    env = {"PIP_VARIANTS_TEST_SYSFS_ROOT": str(sys_root), "LD_LIBRARY_PATH": str(no_loader)}
    proc = run_cli("platform", "--no-cache", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "intel: nothing supported (built-in provider found nothing)" in proc.stdout
    assert "intel: note: an Intel GPU is on PCI (0000:00:02.0) but no device IP was found" in proc.stdout
    # Forced, or without an Intel GPU on PCI: nothing to explain.
    proc = run_cli("platform", "--no-cache", env={"PIP_VARIANTS_TEST_SYSFS_ROOT": str(tmp_path / "empty")})
    assert "intel: note" not in proc.stdout
