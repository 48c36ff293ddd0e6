"""The ``pip-variants`` command (also ``python -m pip_variants``).

One module per subcommand group registers its parser and handler; this
module builds the top-level parser and turns every user-facing error into one
line on stderr with a documented exit status:

====  =====================================================================
0     success
1     error (a file, index, provider or pip run failed; the message says why)
2     usage error (bad options; argparse's own status)
130   interrupted (Ctrl-C)
====  =====================================================================
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, List, Optional, Sequence

__all__ = [
    "main",
    "build_parser",
    "CLIError",
    "EXIT_OK",
    "EXIT_ERROR",
    "EXIT_USAGE",
    "EXIT_INTERRUPTED",
    "print_json",
    "add_subcommand",
    "environment_python",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

PROG = "pip-variants"


class CLIError(Exception):
    """A user-facing failure: printed as ``pip-variants: error: <message>``."""

    def __init__(self, message: str, status: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.status = status


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def environment_python(prefix: str, name: Optional[str] = None) -> Optional[str]:
    """The interpreter of the environment rooted at ``prefix`` (a venv, a conda
    environment, a Python installation), trying ``bin/NAME`` first when given
    (``python3.12``), or ``None`` where there is none."""
    candidates = [f"bin/{name}"] if name else []
    candidates += ["bin/python3", "bin/python", "Scripts/python.exe", "python.exe"]
    for candidate in candidates:
        python = os.path.join(prefix, *candidate.split("/"))
        if os.path.isfile(python) and os.access(python, os.X_OK):
            return python
    return None


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the hand-written line breaks of descriptions and example epilogs."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32)


def add_subcommand(
    subparsers: "argparse._SubParsersAction[argparse.ArgumentParser]",
    name: str,
    *,
    help: str,
    description: str,
    examples: str,
    handler: Callable[[argparse.Namespace], int],
) -> argparse.ArgumentParser:
    """A subcommand parser with the shared formatter, examples and exit statuses."""
    epilog = "examples:\n" + examples.rstrip() + "\n\n" + _EXIT_TEXT
    parser = subparsers.add_parser(
        name, help=help, description=description, epilog=epilog, formatter_class=_Formatter
    )
    parser.set_defaults(handler=handler)
    return parser


_EXIT_TEXT = """exit status:
  0 success, 1 error, 2 usage error, 130 interrupted"""

_DESCRIPTION = """\
Make stock pip install the right wheel variant (PEP 817/825) for this machine.

With pip-variants installed, plain 'pip install torch' picks the best variant
wheel (CUDA build, CPU level, ...) for this machine. This command shows and
controls what pip-variants does."""

_EXAMPLES = """\
examples:
  pip-variants demo                  see variant selection work, offline, in about 15 seconds
  pip-variants platform              what this machine supports
  pip-variants status                is the pip shim active? which providers?
  pip-variants explain torch         why pip picks the torch wheel it picks
  pip-variants check                 do the installed variants still fit this machine?
  pip-variants profile export -o gpu-node.json
  pip-variants make-variant dist/pkg-1.0-py3-none-any.whl -p "nvidia :: cuda_version_lower_bound :: 12.8" \\
      --label cu128 -o wheelhouse/
  pip-variants index wheelhouse/

""" + _EXIT_TEXT


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__
    from . import activate, check, demo, explain, platform, profile, publish, status

    parser = argparse.ArgumentParser(
        prog=PROG, description=_DESCRIPTION, epilog=_EXAMPLES, formatter_class=_Formatter
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for module in (demo, platform, status, check, explain, profile, publish, activate):
        module.register(sub)
    return parser


def _user_errors() -> tuple:
    # Errors whose message is complete without a traceback.
    from ..metadata import InvalidVariantMetadata
    from ..profile import InvalidProfile
    from ..providers.base import ProviderError
    from ..publish import PublishError

    errors: List[type] = [CLIError, InvalidVariantMetadata, InvalidProfile, ProviderError, PublishError]
    try:
        from ..engine import VariantError

        errors.append(VariantError)
    except ImportError:  # pragma: no cover
        pass
    return tuple(errors)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit status (never raises for user errors)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USAGE
    handler = getattr(args, "handler", None)
    if handler is None:  # a usage error: the help goes where argparse's usage errors go
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _PrintableStream(out), _PrintableStream(err)
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `pip-variants platform | head`: the reader left; not an error of ours.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return EXIT_OK
    except _user_errors() as exc:
        status = getattr(exc, "status", EXIT_ERROR)
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return status
    except ModuleNotFoundError as exc:
        if exc.name not in _DEPENDENCIES:
            raise
        from .._display import shell_word

        sys.stderr.write(
            f"{PROG}: error: {_DEPENDENCIES[exc.name]}, which pip-variants needs, is not installed; "
            f"reinstall it: {shell_word(sys.executable)} -m pip install {_DEPENDENCIES[exc.name]}\n"
        )
        return EXIT_ERROR
    except OSError as exc:
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        sys.stderr.write(f"{PROG}: error: {exc.strerror or exc}{where}\n")
        return EXIT_ERROR
    finally:
        sys.stdout, sys.stderr = out, err


class _PrintableStream:
    """A text stream that writes what an index or a wheel named (URLs, reasons,
    dist-info names, requirements) with its control characters escaped
    (:mod:`pip_variants._display`; JSON output is ASCII already), and what the
    stream's encoding cannot write as escapes, not as a traceback."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if self._stream is None:  # stdout closed (`>&-`): what was done stays done, quietly
            return len(text)
        shown = text
        if not (text.isprintable() or text[-1:] == "\n" and text[:-1].isprintable()):
            from .._display import printable

            shown = printable(text)
        try:
            self._stream.write(shown)
        except UnicodeEncodeError:
            # a path the stream's encoding cannot spell (PYTHONIOENCODING=ascii, a cp1252
            # file on Windows): written as escapes, after the work it reports is done
            encoding = getattr(self._stream, "encoding", None) or "ascii"
            self._stream.write(shown.encode(encoding, "backslashreplace").decode(encoding))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


#: module -> the distribution pip-variants depends on for it (an uninstalled one is
#: one line of advice, not a traceback)
_DEPENDENCIES = {"packaging": "packaging", "cpuinfo": "py-cpuinfo", "pynvml": "nvidia-ml-py",
                 "importlib_metadata": "importlib-metadata", "tomli": "tomli"}
