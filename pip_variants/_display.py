"""Text from an index or a wheel, made safe to print on a terminal.

Labels, namespaces and values are checked against their grammars, but a URL's
query, an HTTP reason phrase, a yank reason, a requirement string or a
dist-info folder name reach messages as the server or the wheel wrote them. A
terminal acts on control characters (``ESC [2J`` clears it, ``ESC ]0;`` retitles
it) and a bidirectional override reorders what is shown: such characters are
printed as escapes instead. Imported only for text that has one.
"""

from __future__ import annotations

__all__ = ["printable"]

_KEPT = "\n\t"


def printable(text: str) -> str:
    """``text`` with every non-printable character but newline and tab written
    as ``\\xNN`` / ``\\uNNNN`` (what :func:`repr` would show)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in _KEPT else repr(c)[1:-1] for c in text)
