"""``_display.printable``: index text printed without its terminal control characters."""

from __future__ import annotations

import os

import pytest

from pip_variants._display import printable


@pytest.mark.parametrize("text, expected", [
    ("HTTP 404 Not Found", "HTTP 404 Not Found"),
    ("Gone \x1b]0;pwned\x07\x1b[2J", "Gone \\x1b]0;pwned\\x07\\x1b[2J"),
    ("line\r", "line\\r"),
    ("two\nlines\tand a tab", "two\nlines\tand a tab"),
    ("\u202eevil", "\\u202eevil"),  # a bidirectional override reorders what the terminal shows
    ("cache\u3000dir", "cache\u3000dir"),  # an ideographic space is no control: the path stays pasteable
    ("\x9b31m", "\\x9b31m"),  # C1 control sequence introducer
    ("naïve façade", "naïve façade"),
])
def test_printable(text, expected):
    assert printable(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("pkg==1.0", "pkg==1.0"),
    ("provider>=0.0.1,<1.0.0", '"provider>=0.0.1,<1.0.0"'),  # cmd.exe, PowerShell and POSIX shells alike
    ("/opt/my app", '"/opt/my app"'),
    ("pkg==1.0;touch PWNED", '"pkg==1.0;touch PWNED"'),
])
def test_shell_word(text, expected):
    from pip_variants._display import shell_word

    assert shell_word(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("C:\\Users\\me\\.venv\\Scripts\\python.exe", "C:\\Users\\me\\.venv\\Scripts\\python.exe"),
    ("C:\\Program Files\\Python312\\python.exe", '"C:\\Program Files\\Python312\\python.exe"'),
    ("C:\\R&D\\venv\\python.exe", '"C:\\R&D\\venv\\python.exe"'),
    ("https://h/simple/?a=%41&b=1", '"https://h/simple/?a=%41&b=1"'),
])
def test_shell_word_on_windows(monkeypatch, text, expected):
    import os

    from pip_variants._display import shell_word

    monkeypatch.setattr(os, "name", "nt")
    quoted = shell_word(text)
    monkeypatch.undo()
    assert quoted == expected


@pytest.mark.skipif(os.name == "nt", reason="POSIX quoting")
@pytest.mark.parametrize("text", ["evil===`touch${IFS}PWNED`", "1.0;touch${IFS}PWNED;#", 'a"b', "100%"])
def test_shell_word_keeps_a_posix_shell_from_expanding_anything(text):
    import subprocess

    from pip_variants._display import shell_word

    echoed = subprocess.run(["sh", "-c", f"printf %s {shell_word(text)}"], capture_output=True, text=True)
    assert echoed.stdout == text
