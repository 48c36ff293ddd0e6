"""Third-party provider plugins (the ``variantlib`` plugin API), run out of process.

A plugin is named by an *endpoint* (``module`` or ``module:Object.attr``,
PROVIDERS.md §3.1). Plugins are never imported into the pip process: they run
in one child process of the target interpreter (:mod:`._plugin_runner`),
which speaks JSON with us over pipes the plugins cannot reach. Everything a
plugin returns is validated here, and every failure becomes a
:class:`~pip_variants.providers.base.ProviderError` for that endpoint only.

Trust decisions (PROVIDERS.md §3.5) are the caller's job: nothing here checks
whether a plugin may run.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from ..metadata import split_object_reference
from .base import FeatureConfig, ProviderError

__all__ = [
    "ENTRY_POINT_GROUP",
    "InstalledPlugin",
    "PluginResult",
    "default_plugin_api",
    "discover_installed_plugins",
    "parse_plugin_api",
    "run_plugins",
]

ENTRY_POINT_GROUP = "variant_plugins"

#: The child script; executed by path so that it can run under any interpreter.
RUNNER_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_plugin_runner.py")

_FEATURE_NAME_RE = re.compile(r"[a-z0-9_]+")
_FEATURE_VALUE_RE = re.compile(r"[a-z0-9_.]+")

#: Most bytes accepted for one endpoint's result (the runner enforces it too).
MAX_RESULT_BYTES = 1 << 20
#: How much of the child's stderr is kept, for error messages only.
_STDERR_TAIL_BYTES = 8192
_RUNNER_PROTOCOL = 1
_COMMANDS = ("get_supported_configs", "get_all_configs")
_FIX_HINT = "fix or upgrade the plugin; meanwhile 'pip install --variant PACKAGE=LABEL' chooses a build by hand"
_LOAD_HINT = "check that the plugin package is installed there and that plugin-api names it"


# --------------------------------------------------------------------------- endpoints


def parse_plugin_api(ref: str) -> Tuple[str, Optional[str]]:
    """Split an endpoint ``module(:attr.path)?`` into ``(module, attr_path)``.

    The rule is :func:`pip_variants.metadata.split_object_reference`, the one
    make-variant and metadata reading apply too. Raises :class:`ValueError`.
    """
    try:
        return split_object_reference(ref)
    except ValueError as exc:
        raise ValueError(f"invalid plugin API {ref!r}: {exc}; expected 'module' or 'module:Object'") from None


def default_plugin_api(requires: Sequence[str], environment: Optional[Mapping[str, str]] = None) -> str:
    """The endpoint implied by ``requires`` when ``plugin-api`` is absent (PV-3).

    Takes the first requirement whose marker holds in ``environment`` (merged
    over the running interpreter's default environment by ``packaging``),
    normalises its name (PEP 503) and replaces ``-`` with ``_``:
    ``Provider.Variant_x86-64 >=1`` gives ``provider_variant_x86_64``.
    Raises :class:`ValueError` for an invalid requirement or when no marker holds.
    """
    for text in requires:
        try:
            req = Requirement(text)
        except InvalidRequirement as exc:
            raise ValueError(f"invalid provider requirement {text!r}: {exc}") from None
        if req.marker is None or req.marker.evaluate(environment):
            return canonicalize_name(req.name).replace("-", "_")
    raise ValueError(
        f"no provider requirement applies to this environment (requires = {list(requires)!r}); "
        "give plugin-api explicitly or fix the markers"
    )


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PluginResult:
    """What one endpoint answered.

    ``configs``: the validated features, best first (an empty list, or features
    with empty ``values``, mean "unsupported"). ``namespace``: the plugin's own
    ``namespace`` attribute when it has a string one (PEP 817-era plugins), else
    ``None``. Only what names no namespace itself uses it (``pip-variants
    platform`` for an installed plugin); during selection the metadata key
    names the namespace, whatever the plugin says (PROVIDERS.md PV-12).
    """

    plugin_api: str
    configs: List[FeatureConfig]
    namespace: Optional[str] = None


@dataclass(frozen=True)
class InstalledPlugin:
    """A plugin registered in the ``variant_plugins`` entry-point group."""

    namespace: Optional[str]
    plugin_api: str
    distribution: str
    version: str


# --------------------------------------------------------------------------- child process


def _scrub_credentials(env: Mapping[str, str]) -> Dict[str, str]:
    """A copy of ``env`` without obvious secrets: plugins need none of them.

    Drops variables whose name mentions a token/password/secret and removes
    ``user:pass@`` from URL-valued variables (index URLs, proxies).
    """
    secret_words = ("TOKEN", "PASSWORD", "PASSWD", "SECRET", "CREDENTIAL", "API_KEY", "APIKEY", "PRIVATE_KEY")
    out: Dict[str, str] = {}
    for key, value in env.items():
        upper = key.upper()
        if any(word in upper for word in secret_words):
            continue
        if "://" in value and "@" in value:
            value = re.sub(r"(\w[\w+.-]*://)[^/@\s]*@", r"\1", value)
        out[key] = value
    return out


def _stderr_hint(tail: bytes) -> str:
    lines = [line.strip() for line in tail.decode("utf-8", "replace").splitlines() if line.strip()]
    if not lines:
        return ""
    last = " ".join(lines[-1].split())
    return f" (stderr: {last[:300]})"


def _fmt_seconds(value: float) -> str:
    return f"{value:g}"


class _RunnerOutput:
    """Result of one runner process: parsed lines plus how it ended."""

    def __init__(self) -> None:
        self.lines: List[dict] = []
        self.done = False
        self.timed_out = False
        self.overflow = False
        self.returncode: Optional[int] = None
        self.start_error: Optional[str] = None
        self.stderr_tail = b""


def _kill(proc: "subprocess.Popen[bytes]") -> None:
    """Kill the runner and whatever the plugins started (same process group)."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except OSError:
        try:
            proc.kill()
        except OSError:
            pass


def _pythonpath_entries() -> List[str]:
    """This process's ``PYTHONPATH`` directories, for the runner to append
    after the environment's own paths: ``-I`` drops the variable, yet a
    plugin's declared dependency may be importable only through it (HPC module
    systems, ``pip install --target`` folders). Absolute entries only: an
    empty or relative one means the working directory, which ``-I`` keeps out."""
    return [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.isabs(p)]


def _run_runner(
    request: dict,
    *,
    python: str,
    timeout: float,
    max_stdout: int,
) -> _RunnerOutput:
    result = _RunnerOutput()
    env = _scrub_credentials(os.environ)
    # A pip-variants start-up shim in the target environment must stay inert:
    # the runner is not a pip run and must never recurse into variant logic.
    env["PIP_NO_VARIANTS"] = "1"
    # -I: no cwd/script dir on sys.path and no PYTHON* variables, so nothing but
    # the target environment (and the extra paths we send) decides what imports.
    # No -S: plugins installed in the target environment live in site-packages.
    cmd = [python, "-I", RUNNER_PATH]
    # ... but PYTHONPATH's absolute entries come back, last, for this interpreter
    # (another one's PYTHONPATH may hold packages built for another Python).
    if _same_interpreter(python):
        request = dict(request, pythonpath=_pythonpath_entries())
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=(os.name == "posix"),
        )
    except OSError as exc:
        result.start_error = f"cannot start the plugin runner with interpreter {python!r}: {exc}"
        return result

    stdout_buf = bytearray()
    stderr_buf = bytearray()
    overflow = threading.Event()

    def chunks(stream):
        # Tolerate the pipe being closed under us (see the cleanup below).
        try:
            while True:
                chunk = stream.read1(65536)
                if not chunk:
                    return
                yield chunk
        except (OSError, ValueError):
            return

    def read_stdout() -> None:
        for chunk in chunks(proc.stdout):
            if len(stdout_buf) + len(chunk) > max_stdout:
                overflow.set()
                _kill(proc)
                return
            stdout_buf.extend(chunk)

    def read_stderr() -> None:
        # Plugins may print without limit; keep only the tail for messages.
        for chunk in chunks(proc.stderr):
            stderr_buf.extend(chunk)
            if len(stderr_buf) > 2 * _STDERR_TAIL_BYTES:
                del stderr_buf[: len(stderr_buf) - _STDERR_TAIL_BYTES]

    readers = [threading.Thread(target=read_stdout, daemon=True), threading.Thread(target=read_stderr, daemon=True)]
    for thread in readers:
        thread.start()
    try:
        assert proc.stdin is not None
        # One line, and stdin kept open: the runner ends itself when it closes
        # (this process killed by a signal that never reaches the runner's session).
        proc.stdin.write(json.dumps(dict(request, watch_parent=True)).encode("utf-8") + b"\n")
        proc.stdin.flush()
    except OSError:
        pass  # the runner died early; its exit status tells the story

    try:
        result.returncode = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        result.timed_out = True
        _kill(proc)
        result.returncode = proc.wait()
    except BaseException:
        # Ctrl-C (or any other way out) while waiting: the runner has its own
        # session, so the terminal's SIGINT never reaches it; stop it here.
        _kill(proc)
        raise
    finally:
        try:
            proc.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
    # Grandchildren started by a plugin may hold the pipes open; do not wait
    # for them forever (they were killed with the group on timeout anyway).
    readers[0].join(timeout=2.0)
    readers[1].join(timeout=0.5)  # stderr only feeds messages
    if any(thread.is_alive() for thread in readers):
        _kill(proc)
    for thread, stream in zip(readers, (proc.stdout, proc.stderr)):
        # Closing a pipe a thread still reads would block on its lock: a
        # stuck reader (a detached grandchild holds the pipe) is left to die
        # with its daemon thread.
        if not thread.is_alive():
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
    result.overflow = overflow.is_set()
    result.stderr_tail = bytes(stderr_buf[-_STDERR_TAIL_BYTES:])

    data = bytes(stdout_buf)
    for raw_line in data.split(b"\n"):
        if not raw_line.strip():
            continue
        try:
            line = json.loads(raw_line)
        except ValueError:
            break  # a truncated last line (killed mid-write); keep what came before
        if isinstance(line, dict):
            if line.get("done") is True:
                result.done = True
            result.lines.append(line)
    return result


def _runner_started(out: _RunnerOutput) -> bool:
    """Did the child get as far as the runner's greeting line?"""
    return any(line.get("runner") == _RUNNER_PROTOCOL for line in out.lines)


def _hint_for(api: str, error: str) -> str:
    """What to do about a plugin that failed: a module the plugin itself imports
    and that is not there is the plugin's missing dependency, not a missing plugin."""
    if not error.startswith(("cannot import module", "module ")):
        return _FIX_HINT
    missing = re.search(r"No module named '([^']+)'", error)
    module = "".join(api.split(":", 1)[0].split())
    if missing is None and error.startswith("cannot import module"):
        return _FIX_HINT  # found, but its own code failed while importing
    if missing is not None:
        name = missing.group(1)
        if name.split(".")[0] != module.split(".")[0]:  # not the plugin's own package
            # Whether the plugin's package declares it is not known here (a
            # dependency may be missing, or installed where the runner does not look).
            return (f"the plugin imports {name!r}, which cannot be imported in the plugin's environment "
                    "(its site-packages, then PYTHONPATH's absolute entries): install the package that "
                    "provides it there, and if the plugin's package does not declare it as a dependency, "
                    "tell its authors")
    return _LOAD_HINT


def _failure_reason(out: _RunnerOutput, timeout: float) -> str:
    """Why an endpoint without a result line has none."""
    if out.start_error:
        return out.start_error
    if out.timed_out:
        return f"timed out after {_fmt_seconds(timeout)} s; the plugin process was killed"
    if out.overflow:
        return f"the plugin runner produced more than {MAX_RESULT_BYTES} bytes per endpoint; it was stopped"
    if not _runner_started(out):
        return (
            f"the plugin runner failed to start (exit code {out.returncode})"
            f"{_stderr_hint(out.stderr_tail)}; check that the interpreter is Python 3.9 or newer"
        )
    return f"the plugin process exited with code {out.returncode} before reporting{_stderr_hint(out.stderr_tail)}"


# --------------------------------------------------------------------------- validation


def _validate_configs(plugin_api: str, method: str, data: object) -> List[FeatureConfig]:
    def bad(what: str) -> ProviderError:
        return ProviderError(plugin_api, f"{method}() returned invalid data: {what}; {_FIX_HINT}")

    if not isinstance(data, list):
        kind = data.get("__type__") if isinstance(data, dict) else type(data).__name__
        return_kind = kind if isinstance(kind, str) else "dict"
        raise bad(f"expected a list of feature configs, got {return_kind}")
    configs: List[FeatureConfig] = []
    seen_names = set()
    for index, item in enumerate(data):
        where = f"config #{index + 1}"
        if not isinstance(item, dict) or "__type__" in item:
            kind = item.get("__type__") if isinstance(item, dict) else type(item).__name__
            raise bad(f"{where} is a {kind} without 'name' and 'values'")
        name = item.get("name")
        if not isinstance(name, str):
            raise bad(f"{where} has no string 'name'")
        if not _FEATURE_NAME_RE.fullmatch(name):
            raise bad(f"feature name {name!r} does not match ^[a-z0-9_]+$")
        if name in seen_names:
            raise bad(f"feature {name!r} is listed twice")
        seen_names.add(name)
        values = item.get("values")
        if not isinstance(values, list):
            raise bad(f"feature {name!r}: 'values' must be a list of strings")
        seen_values = set()
        for value in values:
            if not isinstance(value, str):
                shown = value.get("__type__") if isinstance(value, dict) else type(value).__name__
                raise bad(f"feature {name!r}: value {value!r} is a {shown}, not a string")
            if not _FEATURE_VALUE_RE.fullmatch(value):
                raise bad(f"feature {name!r}: value {value!r} does not match ^[a-z0-9_.]+$")
            if value in seen_values:
                raise bad(f"feature {name!r}: value {value!r} is listed twice")
            seen_values.add(value)
        # Read as a truth value, as variantlib reads it: it only matters when
        # building a wheel, so a 0 or 1 must not cost the install its namespace.
        multi_value = item.get("multi_value", False)
        configs.append(FeatureConfig(name, tuple(values), bool(multi_value)))
    return configs


# --------------------------------------------------------------------------- running


def run_plugins(
    plugin_apis: Sequence[str],
    *,
    python: str = sys.executable,
    extra_paths: Sequence[str] = (),
    timeout: float = 30.0,
    method: str = "get_supported_configs",
    fallback_paths: Sequence[str] = (),
) -> Dict[str, Union[PluginResult, ProviderError]]:
    """Ask every endpoint in ``plugin_apis`` for its configs, in ONE child process.

    ``python``: the interpreter of the environment the plugins are installed
    in (they are imported there, never here). ``extra_paths``: directories put
    first on the child's ``sys.path`` (e.g. an :func:`isolated_plugin_dir`);
    ``fallback_paths``: directories appended to it (where this process found
    an installed plugin that the child, started with ``-I``, would not see:
    one on ``PYTHONPATH``); this process's absolute ``PYTHONPATH`` entries
    always follow them (a plugin's dependency may live there).
    ``timeout``: seconds for the whole child; on expiry it is killed together
    with anything it started. ``method``: ``get_supported_configs`` (install
    time) or ``get_all_configs`` (build tools).

    Returns ``{endpoint: PluginResult | ProviderError}`` with one entry per
    distinct endpoint, in input order. Failures are isolated: an endpoint that
    cannot be imported, raises, returns malformed data (names must match
    ``^[a-z0-9_]+$``, values ``^[a-z0-9_.]+$`` and be unique strings) or is cut
    off by a timeout or crash gets a :class:`ProviderError`; endpoints that
    answered before keep their results, and those after it are asked again in
    a child of their own (each hang costs its own ``timeout``). Never raises
    for plugin problems.
    """
    if method not in _COMMANDS:
        raise ValueError(f"method must be one of {_COMMANDS}, not {method!r}")
    apis = list(dict.fromkeys(plugin_apis))
    results: Dict[str, Union[PluginResult, ProviderError]] = {}
    to_run: List[str] = []
    for api in apis:
        try:
            parse_plugin_api(api)
        except ValueError as exc:
            results[api] = ProviderError(str(api), f"{exc}; fix the provider metadata")
        else:
            to_run.append(api)
    if to_run:
        request = {
            "protocol": _RUNNER_PROTOCOL,
            "command": method,
            "plugin_apis": to_run,
            "extra_paths": [os.path.abspath(p) for p in extra_paths],
            "fallback_paths": [os.path.abspath(p) for p in fallback_paths],
            "max_result_bytes": MAX_RESULT_BYTES,
        }
        out = _run_runner(
            request, python=python, timeout=timeout, max_stdout=(len(to_run) + 1) * (MAX_RESULT_BYTES + 1024)
        )
        answered = {line.get("plugin_api"): line for line in out.lines if "plugin_api" in line}
        unanswered = [api for api in to_run if api not in answered]
        if len(unanswered) > 1 and not out.start_error and _runner_started(out):
            # The runner asks the endpoints one after another: the first without
            # an answer crashed or hung it, the others never ran. They get a
            # child of their own, so that one plugin is not blamed for another.
            results.update(run_plugins(unanswered[1:], python=python, extra_paths=extra_paths,
                                       timeout=timeout, method=method, fallback_paths=fallback_paths))
            unanswered = unanswered[:1]
        for api in to_run:
            line = answered.get(api)
            if line is None:
                if api in unanswered:
                    results[api] = ProviderError(api, f"{_failure_reason(out, timeout)}; {_FIX_HINT}")
            elif not line.get("ok"):
                error = " ".join(str(line.get("error") or "unknown failure").split())
                results[api] = ProviderError(api, f"{error}; {_hint_for(api, error)}")
            else:
                try:
                    configs = _validate_configs(api, method, line.get("result"))
                except ProviderError as exc:
                    results[api] = exc
                else:
                    namespace = line.get("namespace")
                    results[api] = PluginResult(api, configs, namespace if isinstance(namespace, str) else None)
    return {api: results[api] for api in apis}


# --------------------------------------------------------------------------- discovery


def _metadata_module():
    if sys.version_info < (3, 10):
        try:
            import importlib_metadata  # the backport's API matches 3.10+

            return importlib_metadata
        except ImportError:
            pass
    import importlib.metadata

    return importlib.metadata


def _same_interpreter(python: str) -> bool:
    # Compare paths without resolving symlinks: a venv's python links to the
    # base interpreter but has a different environment.
    return os.path.normcase(os.path.abspath(python)) == os.path.normcase(os.path.abspath(sys.executable))


def _discover_in_process() -> Tuple[List[Tuple[str, str, str, str]], List[str]]:
    """``[(ref, distribution, version, entry-point name)]`` and the directories they were found in."""
    from ._plugin_runner import group_entry_points  # the runner's reading, shared: stdlib only

    found: List[Tuple[str, str, str, str]] = []
    locations: List[str] = []
    seen_dists = set()
    seen_refs = set()
    for dist in _metadata_module().distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:
            continue
        if not name or canonicalize_name(name) in seen_dists:
            continue  # nameless, or shadowed by an earlier sys.path entry
        seen_dists.add(canonicalize_name(name))
        for ep_name, value in group_entry_points(dist, ENTRY_POINT_GROUP):
            ref = value.split("[", 1)[0].strip()
            if ref in seen_refs:
                continue
            seen_refs.add(ref)
            found.append((ref, name, dist.version, ep_name))
            try:
                location = os.fspath(dist.locate_file(""))
            except Exception:
                continue
            if location not in locations:
                locations.append(location)
    return found, locations


def discover_installed_plugins(python: str = sys.executable, *, timeout: float = 30.0) -> List[InstalledPlugin]:
    """Plugins registered in the ``variant_plugins`` entry-point group of the
    environment of ``python``.

    For the running interpreter the entry points are read in process; any
    other interpreter is asked through the runner. Plugins are only ever
    imported in the child, to read their ``namespace`` attribute (PEP 817-era
    plugins have one); without it the namespace is the entry-point name, as
    variantlib 0.2 names it (``None`` when that is no valid namespace either).
    Only tools that list what is installed (``platform``, ``profile export``,
    ``status``) need it: a release's metadata names its own namespaces.
    References that are not valid endpoints are skipped. Raises
    :class:`ProviderError` when another interpreter cannot be queried.
    """
    if _same_interpreter(python):
        entries, locations = _discover_in_process()
        found = [entry for entry in entries if _valid_ref(entry[0])]
        if not found:
            return []
        # The child must import the plugins from where we found them, even
        # when this process's sys.path was extended at run time; appended
        # (not prepended) so that the child's own path order still wins.
        request = {
            "protocol": _RUNNER_PROTOCOL,
            "command": "namespace",
            "plugin_apis": [entry[0] for entry in found],
            "fallback_paths": locations,
        }
        out = _run_runner(
            request,
            python=python,
            timeout=timeout,
            max_stdout=(len(found) + 1) * 65536,
        )
        namespaces = {
            line["plugin_api"]: line.get("namespace")
            for line in out.lines
            if line.get("ok") and isinstance(line.get("plugin_api"), str)
        }
        # The entry-point name stands in only for a plugin that imported (and has no attribute).
        return [
            InstalledPlugin(_namespace_or(namespaces.get(ref), ep_name if ref in namespaces else None),
                            ref, dist, version)
            for ref, dist, version, ep_name in found
        ]

    out = _run_runner(
        {"protocol": _RUNNER_PROTOCOL, "command": "discover"},
        python=python,
        timeout=timeout,
        max_stdout=8 * MAX_RESULT_BYTES,
    )
    for line in out.lines:
        if isinstance(line.get("discovered"), list):
            plugins = []
            for item in line["discovered"]:
                if not isinstance(item, dict) or not _valid_ref(item.get("plugin_api")):
                    continue
                plugins.append(
                    InstalledPlugin(
                        _namespace_or(item.get("namespace"), item.get("entry_point") if item.get("loaded") else None),
                        item["plugin_api"],
                        str(item.get("distribution", "")),
                        str(item.get("version", "")),
                    )
                )
            return plugins
    raise ProviderError(
        f"(plugins of {python})",
        f"could not list installed plugins: {_failure_reason(out, timeout)}",
    )


def _valid_ref(ref: object) -> bool:
    try:
        parse_plugin_api(ref)  # type: ignore[arg-type]
    except ValueError:
        return False
    return True


def _namespace_or(attribute: object, entry_point: object) -> Optional[str]:
    """The plugin's ``namespace`` attribute, else its entry-point name if that is a namespace."""
    if isinstance(attribute, str):
        return attribute
    from ..properties import NAMESPACE_RE

    return entry_point if isinstance(entry_point, str) and NAMESPACE_RE.match(entry_point) else None
