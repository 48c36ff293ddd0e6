"""Text from an index or a wheel, made safe to print on a terminal or to paste.

Labels, namespaces and values are checked against their grammars, but a URL's
query, an HTTP reason phrase, a yank reason, a requirement string or a
dist-info folder name reach messages as the server or the wheel wrote them. A
terminal acts on control characters (``ESC [2J`` clears it, ``ESC ]0;`` retitles
it) and a bidirectional override reorders what is shown: :func:`printable`
writes those as escapes and leaves every other character alone (a Japanese
space in a path stays pasteable). :func:`shell_word` quotes a word of a
command the user may paste. Imported only for text that needs it.
"""

from __future__ import annotations

import os

__all__ = ["printable", "shell_word"]

#: C0 controls but tab and newline, DEL and C1 controls, and the bidirectional
#: embeddings, overrides, isolates and marks -> the escape repr() writes
_ESCAPES = {
    code: repr(chr(code))[1:-1]
    for code in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0),
                 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}
#: left unquoted in every shell (POSIX shells, PowerShell, cmd.exe)
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@+=:,./_-")


def printable(text: str) -> str:
    """``text`` with its control characters (newline and tab kept) and
    bidirectional formatting characters written as ``\\xNN`` / ``\\uNNNN``."""
    return text.translate(_ESCAPES)


def shell_word(text: str) -> str:
    """``text`` as one word of a command line the user pastes: as is where no
    shell treats a character of it specially, in double quotes where those
    mean the same in POSIX shells, PowerShell and cmd.exe (``"torch>=2.8"``),
    else quoted for this system's shell."""
    if text and all(c in _PLAIN for c in text):
        return text
    if not any(c in text for c in '"`$\\%!\n\r'):
        return f'"{text}"'
    if os.name == "nt":
        if all(c in _PLAIN or c == "\\" for c in text):
            return text  # a path (C:\Users\me\python.exe) as is: both shells read it, PowerShell runs it
        if '"' not in text:
            return f'"{text}"'  # cmd.exe reads &, |, <, >, ^ and spaces in double quotes as text
        import subprocess

        return subprocess.list2cmdline([text])
    import shlex

    return shlex.quote(text)
