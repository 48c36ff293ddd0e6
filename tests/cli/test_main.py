"""The top-level command: help for every subcommand, version, exit statuses."""

from __future__ import annotations

import pytest

from pip_variants import __version__
from pip_variants.cli import main

COMMANDS = ["demo", "platform", "status", "explain", "profile export", "profile show",
            "make-variant", "index", "activate", "deactivate"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_subcommand_has_help_with_examples(command, capsys):
    assert main(command.split() + ["--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "exit status:" in out and "0 success, 1 error, 2 usage error" in out


def test_version_and_usage(capsys):
    assert main(["--version"]) == 0
    assert __version__ in capsys.readouterr().out
    assert main([]) == 2
    assert main(["nosuch"]) == 2


def test_module_entry_point(run_cli):
    proc = run_cli("--help")
    assert proc.returncode == 0 and "pip-variants demo" in proc.stdout
