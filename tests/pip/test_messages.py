"""``_pip/messages.py``: each line once, and never a raw terminal control character."""

from __future__ import annotations

import logging

from pip_variants._pip import messages


def test_index_text_reaches_the_log_without_control_characters(caplog):
    messages.reset()
    with caplog.at_level(logging.DEBUG, logger="pip_variants"):
        messages.warn_once("pip-variants: could not fetch x (HTTP 404 Gone \x1b]0;pwned\x07\x1b[2J)")
        messages.warn_once("pip-variants: could not fetch x (HTTP 404 Gone \x1b]0;pwned\x07\x1b[2J)")
        messages.info_once("pkg 1.0: variant a (yanked: \x1b[31mred)")
        messages.debug("pip-variants: %s", "\x1b[2J")
    said = [r.getMessage() for r in caplog.records]
    assert said == ["pip-variants: could not fetch x (HTTP 404 Gone \\x1b]0;pwned\\x07\\x1b[2J)",
                    "pkg 1.0: variant a (yanked: \\x1b[31mred)", "pip-variants: \\x1b[2J"]
    messages.reset()


def test_the_command_line_escapes_what_it_prints(capsys, monkeypatch):
    from pip_variants import cli

    def handler(args):
        print("NO FIT   pkg 1.0\x1b]0;pwned\x07")
        return 0

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    monkeypatch.setattr(parser, "parse_args", lambda argv: type("A", (), {"handler": staticmethod(handler)})())
    assert cli.main([]) == 0
    assert capsys.readouterr().out == "NO FIT   pkg 1.0\\x1b]0;pwned\\x07\n"


def test_a_broken_stdout_is_pips_to_report_not_an_internal_error(patched):
    import pytest
    from pip._internal.utils.logging import BrokenStdoutLoggingError

    from pip_variants._pip.state import STATE

    with pytest.raises(BrokenStdoutLoggingError):
        messages.internal_error("CandidateEvaluator.get_applicable_candidates", BrokenStdoutLoggingError())
    assert not STATE.broken


def test_a_warning_before_pip_sets_up_logging_has_pips_prefix():
    # H11 runs while pip builds its option parser, before pip's logging exists:
    # logging's last resort would print the line bare.
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("from pip_variants._pip import messages; "
            "messages.warn_once('pip-variants: internal error in X: boom'); "
            "messages.warn_once('pip-variants: internal error in X: boom')")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.stderr == "WARNING: pip-variants: internal error in X: boom\n"
