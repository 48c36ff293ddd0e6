"""What pip-variants tells the user inside pip: each line once per process.

Everything goes through the ``pip_variants`` logger, which propagates to the
root logger that pip configures, so pip's handlers format it (``WARNING:``
prefix, ``--quiet`` / ``--verbose``, ``--log``) like pip's own lines.
"""

from __future__ import annotations

import logging
from typing import Set, Tuple

__all__ = ["logger", "info_enabled", "info_once", "warn_once", "verbose", "debug", "internal_error", "reset", "shown"]

logger = logging.getLogger("pip_variants")

_seen: Set[Tuple[int, str]] = set()


def _once(level: int, message: str) -> bool:
    key = (level, message)
    if key in _seen:
        return False
    _seen.add(key)
    return True


def info_enabled() -> bool:
    """Would an info line show (not under ``-q``, or a ``--log`` file takes it)?
    Lets a caller skip building the line."""
    return logger.isEnabledFor(logging.INFO)


def shown(message: str) -> str:
    """Index text (URLs, reasons, requirements) may carry terminal control characters."""
    if message.isprintable():  # (the usual case: no import)
        return message
    from .._display import printable

    return printable(message)


def info_once(message: str) -> None:
    if _once(logging.INFO, message):
        logger.info("%s", shown(message))


def warn_once(message: str) -> None:
    if _once(logging.WARNING, message):
        if not logger.hasHandlers():
            # Before pip sets up its logging (a hook of the option parser):
            # logging's last resort would print the line without pip's prefix.
            import sys

            try:
                sys.stderr.write(f"WARNING: {shown(message)}\n")
            except Exception:  # noqa: BLE001 - a closed stderr: nothing to tell it on
                pass
            return
        logger.warning("%s", shown(message))


#: pip's own level between INFO and DEBUG, which ``-v`` shows (``-vv``: DEBUG)
VERBOSE = 15


def verbose(message: str, *args: object) -> None:
    if logger.isEnabledFor(VERBOSE):
        logger.log(VERBOSE, "%s", shown(message % args if args else message))


def debug(message: str, *args: object) -> None:
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("%s", shown(message % args if args else message))


def internal_error(hook: str, exc: BaseException) -> None:
    """Report a bug in a hook once and switch the process to stock behaviour."""
    from .state import STATE

    if type(exc).__name__ == "BrokenStdoutLoggingError":  # `pip ... | head`: pip's own to report
        raise exc
    if STATE.broken:  # stock behaviour was announced already: one warning, whatever fails after it
        logger.debug("pip-variants: internal error in %s after the fallback", hook, exc_info=exc)
        return
    STATE.broken = True
    warn_once(
        f"pip-variants: internal error in {hook}: {type(exc).__name__}: {exc}; "
        "falling back to stock pip behaviour"
    )
    logger.debug("pip-variants: traceback of the internal error in %s", hook, exc_info=exc)


def reset() -> None:
    """Forget which lines were shown (tests run several pip commands in one process)."""
    _seen.clear()
