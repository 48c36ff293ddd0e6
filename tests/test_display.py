"""``_display.printable``: index text printed without its terminal control characters."""

from __future__ import annotations

import pytest

from pip_variants._display import printable


@pytest.mark.parametrize("text, expected", [
    ("HTTP 404 Not Found", "HTTP 404 Not Found"),
    ("Gone \x1b]0;pwned\x07\x1b[2J", "Gone \\x1b]0;pwned\\x07\\x1b[2J"),
    ("line\r", "line\\r"),
    ("two\nlines\tand a tab", "two\nlines\tand a tab"),
    ("\u202eevil", "\\u202eevil"),  # a bidirectional override reorders what the terminal shows
    ("\x9b31m", "\\x9b31m"),  # C1 control sequence introducer
    ("naïve façade", "naïve façade"),
])
def test_printable(text, expected):
    assert printable(text) == expected
