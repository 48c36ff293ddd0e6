"""``^[...]+$`` grammar checks without the regular-expression engine.

Compiling a pattern runs Python code (``re._parser``, ``re._compiler``), and
every variant-aware pip process used to compile the property, label and cache
name grammars when it imported the spec model. A name made only of allowed
characters strips to nothing: :meth:`Charset.match` gives the same answer,
except that a trailing newline (which ``$`` lets through) is refused too.
"""

from __future__ import annotations

__all__ = ["Charset", "LOWER_DIGITS_UNDERSCORE", "HEX_DIGITS"]

LOWER_DIGITS_UNDERSCORE = "abcdefghijklmnopqrstuvwxyz0123456789_"
HEX_DIGITS = "0123456789abcdef"


class Charset:
    """A non-empty string of ``chars`` only; ``pattern`` names the rule in messages."""

    __slots__ = ("pattern", "_chars")

    def __init__(self, chars: str, pattern: str) -> None:
        self._chars = chars
        self.pattern = pattern

    def match(self, text: object) -> bool:
        return isinstance(text, str) and text != "" and not text.strip(self._chars)

    fullmatch = match

    def __repr__(self) -> str:
        return f"Charset({self.pattern!r})"
