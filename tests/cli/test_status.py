"""pip-variants status."""

from __future__ import annotations

import json

import pytest

from pip_variants.cli import status as cli_status


@pytest.mark.parametrize(
    "version, ok",
    [("23.1.2", False), ("23.2", True), ("23.2.1", True), ("25.0.1", True), ("26.3", True),
     ("26.3.1", True), ("26.3.dev0", True), ("26.4", False), ("27.0", False), ("nonsense", None)],
)
def test_pip_supported_range(version, ok):
    assert cli_status.pip_supported(version) is ok


@pytest.mark.parametrize(
    "value, off",
    [(None, False), ("", False), ("0", False), ("false", False), ("No", False), ("1", True),
     ("yes", True), ("bogus", True)],
)
def test_kill_switch_reads_like_pip(value, off):
    env = {} if value is None else {"PIP_NO_VARIANTS": value}
    assert cli_status.kill_switch(env) is off


def test_json_reports_everything(run_cli):
    proc = run_cli("status", "--json", env={"PIP_VARIANT": "torch=cu128",
                                            "PIP_VARIANTS_X86_64_LEVEL": "v2"})
    assert proc.returncode == 0, proc.stderr
    st = json.loads(proc.stdout)
    assert st["shim_active"] in (True, False, None)
    assert st["pip"]["supported_range"] == "23.2 - 26.3"
    assert st["pip"]["version"]
    assert st["variants_enabled"] is True
    builtin = {p["namespace"]: p for p in st["providers"]["builtin"]}
    assert set(builtin) >= {"nvidia", "x86_64", "aarch64", "tpu"}
    assert "nvidia-variant-provider" in builtin["nvidia"]["reimplements"]
    assert isinstance(st["providers"]["plugins"], list)
    assert st["cache_dir"].endswith("variants-cache")  # PIP_VARIANTS_CACHE_DIR from the fixture
    env = st["environment"]
    assert env["PIP_VARIANT"] == "torch=cu128"
    assert env["PIP_VARIANTS_X86_64_LEVEL"] == "v2"
    assert "PIP_VARIANTS_CACHE_DIR" in env


def test_kill_switch_and_pip_conf_keys_show(run_cli, tmp_path):
    conf = tmp_path / "pip.conf"
    conf.write_text("[install]\nno-variants = true\nvariant = torch=cpu\n[global]\ntimeout = 5\n")
    proc = run_cli("status", "--json", env={"PIP_CONFIG_FILE": str(conf), "PIP_NO_VARIANTS": "1"})
    assert proc.returncode == 0, proc.stderr
    st = json.loads(proc.stdout)
    assert st["variants_enabled"] is False
    assert st["pip_config"] == {"install.no-variants": "true", "install.variant": "torch=cpu"}


def test_no_variants_in_pip_conf_shows_as_off(run_cli, tmp_path):
    conf = tmp_path / "pip.conf"
    conf.write_text("[install]\nno-variants = yes\n")
    proc = run_cli("status", env={"PIP_CONFIG_FILE": str(conf)})
    assert proc.returncode == 0, proc.stderr
    assert "variants:  off for pip install (pip config install.no-variants = yes): plain wheels only" in proc.stdout
    st = json.loads(run_cli("status", "--json", env={"PIP_CONFIG_FILE": str(conf)}).stdout)
    assert st["variants_enabled"] is True and st["variants_off_by_config"] == ["install.no-variants"]
    conf.write_text("[install]\nno-variants = false\n")
    assert "variants:  on" in run_cli("status", env={"PIP_CONFIG_FILE": str(conf)}).stdout
    conf.write_text("[global]\nno-variants = true\n[install]\nno-variants = false\n")
    out = run_cli("status", env={"PIP_CONFIG_FILE": str(conf)}).stdout
    assert "variants:  off for pip download, wheel, lock (pip config global.no-variants = true)" in out, out


@pytest.mark.parametrize("order", [("ga", "gb"), ("gb", "ga")])
def test_of_two_files_setting_one_key_the_one_pip_uses_is_shown(run_cli, tmp_path, order):
    """Two global files (XDG_CONFIG_DIRS) set one key: status shows what pip's own
    option parser takes. 'pip config list' prints both lines, sorted by file name."""
    import subprocess
    import sys

    from clihelpers import cli_env

    for name, value in (("ga", "true"), ("gb", "false")):
        (tmp_path / name / "pip").mkdir(parents=True)
        (tmp_path / name / "pip" / "pip.conf").write_text(f"[install]\nno-variants = {value}\n")
    env = {"PIP_CONFIG_FILE": str(tmp_path / "missing.conf"),
           "XDG_CONFIG_DIRS": ":".join(str(tmp_path / name) for name in order)}
    pip_takes = subprocess.run(
        [sys.executable, "-c", "from pip._internal.cli.parser import ConfigOptionParser\n"
         "p = ConfigOptionParser(name='install'); p.config.load()\n"
         "print(dict(p._get_ordered_configuration_items())['no-variants'])"],
        capture_output=True, text=True, env=cli_env(tmp_path, env), check=True).stdout.strip()
    st = json.loads(run_cli("status", "--json", env=env).stdout)
    assert st["pip_config"]["install.no-variants"] == pip_takes
    assert st["variants_off_by_config"] == (["install.no-variants"] if pip_takes == "true" else [])


def test_a_pip_conf_key_something_overrides_says_so(run_cli, tmp_path):
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nvariant = torch=cpu\nvariant-strict = true\n[install]\nvariant-strict = false\n")
    out = run_cli("status", env={"PIP_CONFIG_FILE": str(conf), "PIP_VARIANT": "torch=cu128"}).stdout
    assert "global.variant = torch=cpu  (pip config; PIP_VARIANT overrides it)" in out, out
    assert "global.variant-strict = true  (pip config; install.variant-strict overrides it for pip install)" in out
    assert "install.variant-strict = false  (pip config)" in out
    # empty values: pip's parser drops them, a variable's too
    conf.write_text("[global]\nvariant = torch=cpu\nno-variants = true\n[install]\nno-variants =\n")
    out = run_cli("status", env={"PIP_CONFIG_FILE": str(conf), "PIP_VARIANT": ""}).stdout
    assert "global.variant = torch=cpu  (pip config)" in out, out
    assert "install.no-variants" not in out
    assert "off for pip install, download, wheel, lock" in out, out


def test_a_pip_conf_switch_pip_cannot_read_is_a_warning(run_cli, tmp_path):
    # pip stops every install with a usage error: status must not just say "on"
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nno-variants = maybe\n[install]\nvariant-strict = yes\n[list]\nno-variants = x\n")
    out = run_cli("status", env={"PIP_CONFIG_FILE": str(conf)}).stdout
    assert ("warning: global.no-variants = maybe is not a yes/no value: pip install, download, wheel and lock stop "
            "with a usage error; set it to true or false") in out, out
    assert "variant-strict" not in out.split("warning:", 1)[1]
    st = json.loads(run_cli("status", "--json", env={"PIP_CONFIG_FILE": str(conf)}).stdout)
    assert st["pip_config_not_boolean"] == ["global.no-variants"]


@pytest.mark.parametrize("value", ["0", "false", "No"])
def test_a_false_pip_no_variants_wins_over_pip_conf(run_cli, tmp_path, value):
    # pip's environment overrides its configuration files: variants stay on
    conf = tmp_path / "pip.conf"
    conf.write_text("[install]\nno-variants = true\n")
    env = {"PIP_CONFIG_FILE": str(conf), "PIP_NO_VARIANTS": value}
    assert "variants:  on" in run_cli("status", env=env).stdout
    st = json.loads(run_cli("status", "--json", env=env).stdout)
    assert st["variants_enabled"] is True and st["variants_off_by_config"] == []


def test_human_output(run_cli):
    proc = run_cli("status", "--no-pip-config", env={"NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0"})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for needle in ("shim:", "pip:", "variants:  on", "providers:", "built-in  nvidia",
                   "stands in for nvidia-variant-provider", "cache:",
                   "NV_VARIANT_PROVIDER_FORCE_SM_ARCH=9.0  (environment)"):
        assert needle in out, needle


def test_format_status_not_active():
    st = {
        "pip_variants_version": "0", "prefix": "/venv", "python_version": "3.11.7",
        "shim_active": False, "shim_error": None, "variants_enabled": True,
        "pip": {"version": "22.0", "supported": False, "supported_range": "23.2 - 26.3"},
        "providers": {"builtin": [], "plugins": [{"namespace": "acme", "distribution": "acme-provider",
                                                  "version": "1.0", "plugin_api": "acme:P"}],
                      "plugin_error": None},
        "cache_dir": "/c", "environment": {}, "pip_config": {}, "pip_config_error": None,
    }
    out = cli_status.format_status(st)
    assert "NOT active" in out and "pip-variants activate" in out
    assert "NOT supported" in out
    assert "plugin    acme      acme-provider 1.0 (acme:P)" in out
    assert "(none: defaults)" in out


def test_pip_mode(monkeypatch):
    monkeypatch.delenv("PIP_VARIANTS_TESTED_PIP_MAX", raising=False)
    assert cli_status.pip_mode("23.1")["mode"] == "unsupported"
    assert cli_status.pip_mode("26.3.1")["mode"] == "tested"
    assert cli_status.pip_mode("nonsense")["mode"] == "unknown"
    monkeypatch.setenv("PIP_VARIANTS_TESTED_PIP_MAX", "26.0")
    assert cli_status.pip_supported("26.1") is False
    assert cli_status.pip_mode("26.0.1")["mode"] == "tested"


def test_untested_pip_is_checked_in_a_child(monkeypatch):
    import pip

    # The test knob lowers the tested range below the pip running the tests.
    major, minor = (int(x) for x in pip.__version__.split(".")[:2])
    monkeypatch.setenv("PIP_VARIANTS_TESTED_PIP_MAX", f"{major}.{minor - 1}" if minor else f"{major - 1}.9")
    mode = cli_status.pip_mode(pip.__version__)
    assert mode["mode"] in ("untested-compatible", "untested-incompatible"), mode
    if (major, minor) < (24, 0):  # 23.2 has no _FlatDirectoryToUrls._scan_directory
        assert mode["mode"] == "untested-incompatible"
        assert any("_FlatDirectoryToUrls" in p for p in mode["problems"])


def test_status_counts_installed_variants(run_cli):
    proc = run_cli("status", "--json", "--no-pip-config")
    st = json.loads(proc.stdout)
    assert isinstance(st["installed_variants"]["count"], int)
    text = run_cli("status", "--no-pip-config").stdout
    assert "installed: " in text


def test_shim_lines_say_where_and_whether_inherited_or_read_only():
    st = {"shim_active": True, "shim": {"site": "/base/site-packages", "kind": "base", "inherited": True,
                                         "writable": False}}
    text = "\n".join(cli_status._shim_lines(st))
    assert "from /base/site-packages (the base installation this venv inherits" in text
    assert "inherited:" in text and "read-only for this user" in text
    st = {"shim_active": False, "shim": {"problem": "x.pth is there but _pip_variants_shim.py is missing"}}
    assert "is missing" in "\n".join(cli_status._shim_lines(st))


def test_shim_line_does_not_promise_variants_under_an_unsupported_pip():
    st = {"shim_active": True, "shim": {}, "pip": {"version": "23.0.1", "supported": False}}
    assert cli_status._shim_lines(st) == ["shim:      active, but pip 23.0.1 here stays stock (see 'pip:' below)"]
    st["pip"] = {"version": "27.0", "supported": False, "untested": {"mode": "untested-compatible"}}
    assert "picks wheel variants" in cli_status._shim_lines(st)[0]
    st["variants_enabled"] = False  # PIP_NO_VARIANTS
    assert cli_status._shim_lines(st) == ["shim:      active, but PIP_NO_VARIANTS keeps pip stock "
                                          "(see 'variants:' below)"]


def test_json_says_where_the_shim_lives(run_cli):
    st = json.loads(run_cli("status", "--json", "--no-pip-config").stdout)
    assert set(st["shim"]) >= {"site", "kind", "inherited", "files", "others", "problem", "writable"}


def test_status_lists_the_abi_and_plugin_timeout_variables(run_cli):
    proc = run_cli("status", "--json", "--no-pip-config",
                   env={"VARIANT_ABI_DEPENDENCY": "torch==2.9.0", "PIP_VARIANTS_PLUGIN_TIMEOUT": "5"})
    env = json.loads(proc.stdout)["environment"]
    assert env["VARIANT_ABI_DEPENDENCY"] == "torch==2.9.0" and env["PIP_VARIANTS_PLUGIN_TIMEOUT"] == "5"


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_status_with_a_path_its_streams_cannot_spell(run_cli, tmp_path, encoding):
    """A cp1252 file on Windows, PYTHONIOENCODING=ascii: escapes, never a traceback."""
    cache = tmp_path / "日本 cache"
    cache.mkdir()
    proc = run_cli("status", env={"PYTHONIOENCODING": encoding, "PIP_VARIANTS_CACHE_DIR": str(cache)})
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "\\u65e5\\u672c cache" in proc.stdout
