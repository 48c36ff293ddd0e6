"""Tests for pip_variants.providers.isolated: plugin packages installed into pip-variants' cache."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pip_variants.providers import isolated
from pip_variants.providers.base import FeatureConfig, ProviderError
from pip_variants.providers.isolated import install_isolated, isolated_plugin_dir
from pip_variants.providers.plugins import run_plugins



def _build_wheel(dist_dir: Path, name: str, version: str, module: str, source: str) -> Path:
    dist_info = f"{name}-{version}.dist-info"
    files = {
        f"{module}.py": source.encode(),
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist_info}/entry_points.txt": f"[variant_plugins]\n{module} = {module}:Plugin\n".encode(),
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = dist_dir / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path, data in files.items():
            zf.writestr(path, data)
    return wheel


ISOLATED_PLUGIN = """
class Plugin:
    @staticmethod
    def get_supported_configs():
        return [{"name": "isolated", "values": ["yes"]}]
"""


@pytest.fixture
def stock_pip_env(monkeypatch):
    # This machine has a global pip config (constraints, extra indexes): keep the child pip off it.
    for key in list(os.environ):
        if key.startswith("PIP_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)


def test_isolated_install_run_and_reuse(tmp_path, stock_pip_env, mocker):
    links = tmp_path / "links"
    links.mkdir()
    _build_wheel(links, "iso_plugin", "1.0", "iso_plugin_mod", ISOLATED_PLUGIN)
    pip_args = ["--no-index", "--find-links", str(links)]
    cache = tmp_path / "cache"
    spy = mocker.spy(isolated, "install_isolated")
    path = isolated_plugin_dir(["ISO.Plugin>=1"], str(cache), pip_args=pip_args)
    assert spy.call_count == 1
    assert spy.call_args.kwargs["target_dir"] != path  # installed elsewhere, then renamed
    assert os.path.isfile(os.path.join(path, "iso_plugin_mod.py"))
    assert [p for p in os.listdir(cache) if p.startswith(".")] == []  # no temp dirs left

    res = run_plugins(["iso_plugin_mod:Plugin"], extra_paths=[path])
    assert res["iso_plugin_mod:Plugin"].configs == [FeatureConfig("isolated", ("yes",))]

    # Same set, other spelling and order: reused without running pip.
    again = isolated_plugin_dir(["iso-plugin >= 1"], str(cache), pip_args=pip_args)
    assert again == path
    assert spy.call_count == 1


def test_isolated_install_takes_wheels_only(tmp_path, stock_pip_env):
    """PV-9: a plugin (or a package it needs) that comes only as a source
    distribution is not built: building it would run its code."""
    from support.wheels import build_sdist

    links = tmp_path / "links"
    links.mkdir()
    build_sdist(links, "src-only-plugin", "1.0")
    with pytest.raises(ProviderError, match="pip exit code"):
        isolated_plugin_dir(["src-only-plugin"], str(tmp_path / "cache"),
                            pip_args=["--no-index", "--find-links", str(links)])
    assert not list((tmp_path / "cache").glob("plugins-*"))


def test_install_isolated_failure(tmp_path, stock_pip_env):
    links = tmp_path / "links"
    links.mkdir()
    with pytest.raises(ProviderError) as info:
        install_isolated(
            ["no-such-plugin-xyz==1"],
            pip_command=[sys.executable, "-m", "pip"],
            target_dir=str(tmp_path / "target"),
            pip_args=["--no-index", "--find-links", str(links)],
        )
    message = str(info.value)
    assert info.value.provider == "no-such-plugin-xyz==1"
    assert "pip exit code 1" in message
    assert "no-such-plugin-xyz" in message.split(":", 1)[1]
    assert "\n" not in message
    # "from versions: none" also where only a source distribution was there
    assert message.endswith("installed from wheels only (no source distribution is built)")


def test_install_isolated_child_env_and_command(tmp_path, mocker):
    run = mocker.patch.object(isolated.subprocess, "run")
    run.return_value = subprocess.CompletedProcess([], 0, b"")
    install_isolated(["a>=1"], pip_command=["pip"], target_dir="/t", pip_args=["--index-url", "u"], env={"X": "1"})
    cmd = run.call_args.args[0]
    assert cmd == [
        "pip",
        "install",
        "--target",
        "/t",
        "--no-warn-script-location",
        "--disable-pip-version-check",
        "--index-url",
        "u",
        "--only-binary",
        ":all:",
        "a>=1",
    ]
    assert run.call_args.kwargs["env"] == {"X": "1", "PIP_NO_VARIANTS": "1"}


def test_install_isolated_timeout(mocker):
    mocker.patch.object(isolated.subprocess, "run", side_effect=subprocess.TimeoutExpired("pip", 5))
    with pytest.raises(ProviderError, match="timed out after 5 s"):
        install_isolated(["a"], pip_command=["pip"], target_dir="/t", timeout=5)


def test_isolated_plugin_dir_lost_race_uses_winner(tmp_path, mocker):
    cache = tmp_path / "cache"
    final = isolated._isolated_dir_path(["x-plugin"], str(cache), None)[0]

    def fake_install(requirements, *, target_dir, **kwargs):
        (Path(target_dir) / "mine.py").write_text("")
        # Another process finishes the same set first.
        os.mkdir(final)
        (Path(final) / "winner.py").write_text("")

    mocker.patch.object(isolated, "install_isolated", side_effect=fake_install)
    assert isolated_plugin_dir(["x-plugin"], str(cache)) == final
    assert os.listdir(final) == ["winner.py"]
    assert os.listdir(cache) == [os.path.basename(final)]


def test_isolated_plugin_dir_failure_cleans_up(tmp_path, mocker):
    mocker.patch.object(isolated, "install_isolated", side_effect=ProviderError("x", "boom"))
    with pytest.raises(ProviderError):
        isolated_plugin_dir(["x-plugin"], str(tmp_path))
    assert os.listdir(tmp_path) == []


def test_isolated_plugin_dir_keying():
    def key(reqs, extra=None):
        return isolated._isolated_dir_path(reqs, "/cache", extra)[0]

    assert key(["B>=1", "a_x"]) == key(["a-x", "b >= 1", "A.X"])
    assert key(["a"]) != key(["a>=1"])
    assert key(["a"]) != key(["a"], extra="cp39-linux-x86_64")
    # another index, another install
    on = isolated._isolated_dir_path(["a"], "/cache", None, ["--index-url", "https://one/simple"])[0]
    assert on != isolated._isolated_dir_path(["a"], "/cache", None, ["--index-url", "https://two/simple"])[0]
    assert on != key(["a"])
    with pytest.raises(ValueError, match="invalid provider requirement"):
        isolated_plugin_dir(["not valid !"], "/nonexistent")


def test_network_options_reach_the_child_but_not_the_key(tmp_path, mocker):
    run = mocker.patch("pip_variants.providers.isolated.install_isolated")
    cache = tmp_path / "cache"
    path = isolated_plugin_dir(["x-plugin"], str(cache), pip_args=["--index-url", "https://one/simple"],
                               network_args=["--isolated", "--timeout", "2"])
    assert run.call_args.kwargs["pip_args"] == ["--isolated", "--timeout", "2", "--index-url", "https://one/simple"]
    assert path == isolated._isolated_dir_path(["x-plugin"], str(cache), None, ["--index-url", "https://one/simple"])[0]


def test_a_failure_summary_keeps_the_cause_after_a_bare_error_line():
    output = ("Collecting acme\nERROR: Exception:\nTraceback (most recent call last):\n  File \"x\", line 1\n"
              "pip._vendor.urllib3.exceptions.ProtocolError: ('Connection broken: reset', None)\n")
    assert isolated._pip_failure_summary(output) == (
        "ERROR: Exception: | pip._vendor.urllib3.exceptions.ProtocolError: ('Connection broken: reset', None)")
    assert isolated._pip_failure_summary("ERROR: No matching distribution found for acme\n") == (
        "ERROR: No matching distribution found for acme")
