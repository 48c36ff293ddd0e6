"""The top-level command: help for every subcommand, version, exit statuses."""

from __future__ import annotations

import sys

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
    usage = capsys.readouterr()
    assert usage.out == "" and "usage: pip-variants" in usage.err  # a usage error: stderr
    assert main(["nosuch"]) == 2


def test_module_entry_point(run_cli):
    proc = run_cli("--help")
    assert proc.returncode == 0 and "pip-variants demo" in proc.stdout


def test_a_dependency_uninstalled_is_one_line_not_a_traceback(capsys, monkeypatch):
    def broken(args):
        raise ModuleNotFoundError("No module named 'packaging'", name="packaging")

    # every subcommand's handler, as if it imported packaging
    monkeypatch.setattr("argparse.Namespace.handler", property(lambda self: broken), raising=False)
    assert main(["status"]) == 1
    err = capsys.readouterr().err
    assert err == ("pip-variants: error: packaging, which pip-variants needs, is not installed; "
                   f"reinstall it: {sys.executable} -m pip install packaging\n")


def test_another_missing_module_is_not_hidden(monkeypatch):
    def broken(args):
        raise ModuleNotFoundError("No module named 'nosuch'", name="nosuch")

    monkeypatch.setattr("argparse.Namespace.handler", property(lambda self: broken), raising=False)
    with pytest.raises(ModuleNotFoundError):
        main(["status"])
