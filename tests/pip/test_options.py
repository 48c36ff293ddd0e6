"""H11: real options on the real commands' parsers."""

from __future__ import annotations

import optparse

import pytest

from pip_variants._pip.options import OPTION_NAMES, _wrap
from pip_variants._pip.state import STATE

COMMANDS = ["install", "download", "wheel", "lock"]


def _command(name):
    from pip._internal.commands import commands_dict, create_command

    if name not in commands_dict:
        pytest.skip(f"pip has no {name} command")
    return create_command(name)


@pytest.mark.parametrize("name", COMMANDS)
def test_options_registered(patched, name):
    cmd = _command(name)
    for option in OPTION_NAMES:
        assert cmd.parser.has_option(option), option


@pytest.mark.parametrize("name", ["list", "index", "freeze", "show"])
def test_other_commands_untouched(patched, name):
    from pip._internal.commands import create_command

    cmd = create_command(name)
    assert not any(cmd.parser.has_option(option) for option in OPTION_NAMES)


def test_command_line_values(patched):
    cmd = _command("install")
    opts, args = cmd.parse_args([
        "--variant", "torch=cu128", "--variant", "numpy=x86_64_v3", "--no-variants",
        "--variant-profile", "p.json", "--allow-variant-plugin", "foo",
        "--variant-enable", "tpu", "--variant-strict", "pkg",
    ])
    assert args == ["pkg"]
    assert opts.pip_variants_variant == ["torch=cu128", "numpy=x86_64_v3"]
    assert opts.pip_variants_no_variants is True
    assert opts.pip_variants_profile == "p.json"
    assert opts.pip_variants_allow_plugin == ["foo"]
    assert opts.pip_variants_enable == ["tpu"]
    assert opts.pip_variants_strict is True


def test_ordering_and_exclusion_options(patched):
    opts, _ = _command("install").parse_args([
        "--variant-exclude", "torch=cu126", "--variant-exclude", "torch=cu128", "--variant-disable", "tpu",
        "--variant-config", "variants.toml", "pkg",
    ])
    assert opts.pip_variants_exclude == ["torch=cu126", "torch=cu128"]
    assert opts.pip_variants_disable == ["tpu"]
    assert opts.pip_variants_config == "variants.toml"


def test_defaults(patched):
    opts, _ = _command("download").parse_args(["pkg"])
    assert opts.pip_variants_variant == []
    assert opts.pip_variants_no_variants is False
    assert opts.pip_variants_profile is None


def test_environment_values(patched, monkeypatch):
    monkeypatch.setenv("PIP_VARIANT", "torch=cu128 numpy=x86_64_v3")
    monkeypatch.setenv("PIP_NO_VARIANTS", "yes")
    monkeypatch.setenv("PIP_ALLOW_VARIANT_PLUGIN", "a b")
    opts, _ = _command("wheel").parse_args(["pkg"])
    assert opts.pip_variants_variant == ["torch=cu128", "numpy=x86_64_v3"]
    assert opts.pip_variants_no_variants  # pip's strtobool gives 1
    assert opts.pip_variants_allow_plugin == ["a", "b"]


def test_config_file_values(patched, monkeypatch, tmp_path):
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nvariant = torch=cu128\n[install]\nvariant-profile = /x/p.json\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    opts, _ = _command("install").parse_args(["pkg"])
    assert opts.pip_variants_variant == ["torch=cu128"]
    assert opts.pip_variants_profile == "/x/p.json"


def test_steps_aside_when_pip_has_the_option(patched):
    class FakeCommand:
        def __init__(self):
            self.parser = optparse.OptionParser()
            self.cmd_opts = optparse.OptionGroup(self.parser, "Command Options")
            self.parser.add_option_group(self.cmd_opts)

        def add_options(self):
            self.cmd_opts.add_option("--no-variants", action="store_true")

    cmd = FakeCommand()
    _wrap(FakeCommand.add_options)(cmd)
    assert STATE.stepped_aside
    assert not cmd.parser.has_option("--variant")
