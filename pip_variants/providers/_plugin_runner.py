"""Child-process runner for third-party variant provider plugins.

This file is executed *by path* by :mod:`pip_variants.providers.plugins`, with
the interpreter of the environment the plugins live in (which may be a
different Python than the one running pip). It must therefore stay
self-contained: standard library only, Python 3.9+, no ``pip_variants``
imports.

Protocol (version 1):

* stdin: one JSON object on one line, then EOF::

      {"protocol": 1, "command": "get_supported_configs" | "get_all_configs"
                                  | "namespace" | "discover",
       "plugin_apis": ["module:Object", ...], "extra_paths": ["/dir", ...],
       "fallback_paths": ["/dir", ...], "pythonpath": ["/dir", ...],
       "max_result_bytes": 1048576, "watch_parent": true}

  ``extra_paths`` go first on ``sys.path``; ``fallback_paths`` are appended
  when missing (their ``.pth`` files run); ``pythonpath`` (the parent's
  ``PYTHONPATH``, which ``-I`` drops) is appended last, as Python itself adds
  it: no ``.pth`` file runs. With ``watch_parent`` the parent keeps stdin open until the
  runner is done, and EOF before then means the parent is gone (killed by
  SIGTERM, SIGKILL, a hang-up): the runner then ends itself and its process
  group, which no signal to the parent's group reaches.

* stdout (the *original* file descriptor 1, which plugins never see): JSON
  lines. First ``{"runner": 1, "python": "3.x.y"}``; then one line per endpoint
  as soon as it is done (so a plugin that kills the process does not lose the
  results of the endpoints before it); finally ``{"done": true}``. Endpoint
  lines are ``{"plugin_api": ..., "ok": true, "namespace": ..., "result": ...}``
  or ``{"plugin_api": ..., "ok": false, "error": "one line"}``. For
  ``discover`` a single ``{"discovered": [...]}`` line replaces them.

The runner does not validate what plugins return (the parent does); it only
turns it into plain JSON data, marking anything unrepresentable as
``{"__type__": "ClassName"}`` so the parent can say what was wrong.
"""

from __future__ import annotations

import os
import sys

PROTOCOL = 1
_COMMANDS = ("get_supported_configs", "get_all_configs", "namespace", "discover")
_ENTRY_POINT_GROUP = "variant_plugins"
_DEFAULT_MAX_RESULT = 1 << 20
_MAX_ERROR_CHARS = 500


def _claim_channels():
    """Keep the real stdout for our JSON and hide it from plugins.

    Plugins may ``print`` (or their C libraries may write to fd 1); all of that
    goes to stderr instead, so it can never corrupt the response.
    ``os.dup`` returns a non-inheritable descriptor, so subprocesses started by
    plugins do not get it either.
    """
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out_fd


def _release_stdin():
    """Give plugins an empty stdin once the request has been read."""
    try:
        null_fd = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null_fd, 0)
        os.close(null_fd)
        sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    except OSError:
        pass


def _one_line(text, limit=_MAX_ERROR_CHARS):
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def _describe(exc):
    message = _one_line(exc)
    name = type(exc).__name__
    return "%s: %s" % (name, message) if message else name


def _add_user_site():
    """Re-add the user site directory that ``-I`` dropped, where Python would.

    The parent runs us with ``-I`` so that neither the working directory, the
    script directory nor ``PYTHON*`` variables leak into ``sys.path``; but a
    plain ``python`` of the target would see user-site packages, and so should
    plugin discovery.
    """
    if os.environ.get("PYTHONNOUSERSITE"):
        return
    if hasattr(os, "geteuid") and (os.geteuid() != os.getuid() or os.getegid() != os.getgid()):
        return
    if sys.prefix != sys.base_prefix:
        # A virtual environment sees user site only with system site packages.
        enabled = False
        for cfg_dir in (os.path.dirname(sys.executable), os.path.dirname(os.path.dirname(sys.executable))):
            cfg = os.path.join(cfg_dir, "pyvenv.cfg")
            try:
                with open(cfg, encoding="utf-8") as fh:
                    for line in fh:
                        key, _, value = line.partition("=")
                        if key.strip().lower() == "include-system-site-packages":
                            enabled = value.strip().lower() == "true"
                break
            except OSError:
                continue
        if not enabled:
            return
    try:
        import site

        path = site.getusersitepackages()
        if path and os.path.isdir(path):
            site.addsitedir(path)
    except Exception:  # a broken user site must not stop the runner
        pass


def _add_paths(paths, first):
    """Put ``paths`` on ``sys.path`` (first, or last when missing) and process
    their ``.pth`` files (``pip install --target`` directories may have some)."""
    import site

    paths = [os.path.abspath(p) for p in paths if isinstance(p, str) and p]
    new = [p for p in dict.fromkeys(paths) if p not in sys.path]
    if first:
        sys.path[:0] = new
    else:
        sys.path.extend(new)
    for path in new:
        try:
            site.addsitedir(path)  # already on sys.path now: only runs its .pth files
        except Exception:
            pass


def _resolve(ref):
    import importlib
    import re

    match = re.fullmatch(r"([\w.]+)\s*(?::\s*([\w.]+)\s*)?", ref)
    if not match:
        raise ValueError("invalid plugin API reference %r" % ref)
    module_name, attr_path = match.group(1), match.group(2)
    try:
        obj = importlib.import_module(module_name)
    except BaseException as exc:  # SystemExit from a plugin's import counts too
        raise _PluginFailure("cannot import module %r: %s" % (module_name, _describe(exc)))
    if attr_path:
        for part in attr_path.split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                raise _PluginFailure("module %r has no attribute path %r" % (module_name, attr_path))
    return obj


class _PluginFailure(Exception):
    """A failure whose message is already phrased for the user."""


def _namespace_of(obj):
    try:
        value = getattr(obj, "namespace", None)
    except Exception:
        return None
    return value if isinstance(value, str) else None


def _instantiate(cls, name):
    try:
        return cls()
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise _PluginFailure(
            "%s() is an instance method and instantiating the plugin class failed: %s" % (name, _describe(exc))
        )


def _self_parameter(function):
    """How ``function``, found in a class body, takes ``self``: ``"required"``
    when its first parameter is a required positional one (an instance method
    of a PEP 817-era plugin), ``"maybe"`` when that cannot be told (``*args``,
    as a decorator's wrapper without ``functools.wraps`` has, or no signature),
    else ``"no"`` (no parameter, or a defaulted one such as
    ``known_properties=None``: variantlib 0.2 calls it on the class)."""
    import inspect

    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return "maybe"
    if not parameters:
        return "no"
    first = parameters[0]
    if first.kind == first.VAR_POSITIONAL:
        return "maybe"
    if first.kind in (first.POSITIONAL_ONLY, first.POSITIONAL_OR_KEYWORD) and first.default is first.empty:
        return "required"
    return "no"


def _callable_for(obj, name):
    """``(callable, retry_on_instance)`` for member ``name`` of the plugin object.

    Current plugins are modules or classes whose members are called as they
    are (variantlib 0.2: ``Plugin.get_supported_configs()``, the class never
    instantiated). PEP 817-era plugins used instance methods, so a class
    whose member is a plain function with a required first parameter
    (``self``) is instantiated (without arguments) first; any other plain
    function is called on the class. ``retry_on_instance`` is true where the
    kind cannot be told (compiled methods, ``*args`` wrappers): if calling on
    the class fails with a TypeError, the caller retries on an instance.
    """
    import inspect

    if inspect.isclass(obj):
        try:
            raw = inspect.getattr_static(obj, name)
        except AttributeError:
            raise _PluginFailure("plugin has no %s()" % name)
        if inspect.isfunction(raw):
            takes_self = _self_parameter(raw)
            if takes_self == "required":
                return getattr(_instantiate(obj, name), name), False
            # Called on the class, so a class whose __init__ needs arguments works too.
            return raw, takes_self == "maybe"
        retry = not isinstance(raw, (staticmethod, classmethod))
    else:
        retry = False
    try:
        return getattr(obj, name), retry
    except AttributeError:
        raise _PluginFailure("plugin has no %s()" % name)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise _PluginFailure("reading %s failed: %s" % (name, _describe(exc)))


def _call(func, name):
    """Call ``func`` with no argument, or with ``known_properties=None`` when
    its signature requires one positional argument (PEP 817 drafts)."""
    import inspect

    if not callable(func):
        raise _PluginFailure("%s is not callable" % name)
    args = ()
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        params = []
    required = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    if len(required) == 1:
        args = (None,)
    try:
        return func(*args)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        failure = _PluginFailure("%s() raised %s" % (name, _describe(exc)))
        failure.cause = exc
        raise failure


def _call_member(obj, name):
    func, retry_on_instance = _callable_for(obj, name)
    try:
        return _call(func, name)
    except _PluginFailure as exc:
        cause = getattr(exc, "cause", None)
        # Only a call that lacked its ``self`` is retried ("missing 1 required
        # positional argument", "descriptor 'copy' for 'list' objects doesn't
        # apply to a 'NoneType' object"): a TypeError the plugin raised itself
        # would otherwise run the plugin twice.
        said = str(cause)
        if not (
            retry_on_instance and isinstance(cause, TypeError) and ("argument" in said or "descriptor" in said)
        ):
            raise
    # Probably an instance method we could not recognise statically.
    return _call(getattr(_instantiate(obj, name), name), name)


def _plain(value, depth=0):
    """JSON-safe copy of ``value``; unknown objects become ``{"__type__": ...}``."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if depth > 4:
        return {"__type__": type(value).__name__}
    if isinstance(value, (list, tuple)):
        return [_plain(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item, depth + 1) for key, item in value.items()}
    return {"__type__": type(value).__name__}


_CONFIG_FIELDS = ("name", "values", "multi_value")


def _plain_config(config):
    """One config (dict or duck-typed object) as a dict of its three fields."""
    if isinstance(config, dict):
        return {key: _plain(config[key], 1) for key in _CONFIG_FIELDS if key in config}
    # A namedtuple is a tuple with the three attributes: duck typing decides.
    if config is None or isinstance(config, (bool, int, float, str, list)) or (
        isinstance(config, tuple) and not hasattr(type(config), "_fields")
    ):
        return {"__type__": type(config).__name__}
    out = {}
    for key in _CONFIG_FIELDS:
        try:
            value = getattr(config, key)
        except AttributeError:
            continue
        except Exception as exc:
            raise _PluginFailure("reading %s of a config failed: %s" % (key, _describe(exc)))
        out[key] = _plain(value, 1)
    if not out:
        return {"__type__": type(config).__name__}
    return out


def _plain_result(result):
    if isinstance(result, (list, tuple)):
        return [_plain_config(config) for config in result]
    return {"__type__": type(result).__name__}


def _run_endpoint(ref, command):
    obj = _resolve(ref)
    namespace = _namespace_of(obj)
    line = {"plugin_api": ref, "ok": True, "namespace": namespace}
    if command != "namespace":
        line["result"] = _plain_result(_call_member(obj, command))
    return line


def _endpoint_line(ref, command, max_bytes):
    """The encoded response line for one endpoint; never raises."""
    try:
        encoded = _encode(_run_endpoint(ref, command))
    except _PluginFailure as exc:
        return _encode({"plugin_api": ref, "ok": False, "error": _one_line(exc)})
    except (ValueError, TypeError, RecursionError) as exc:
        # json refuses NaN and the like; say so in one line.
        return _encode({"plugin_api": ref, "ok": False, "error": "unusable result: %s" % _describe(exc)})
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # e.g. a module-level __getattr__ raising
        return _encode({"plugin_api": ref, "ok": False, "error": "plugin failed: %s" % _describe(exc)})
    if len(encoded) > max_bytes:
        return _encode(
            {
                "plugin_api": ref,
                "ok": False,
                "error": "%s() returned %d bytes of data, more than the %d allowed"
                % (command, len(encoded), max_bytes),
            }
        )
    return encoded


def _iter_distributions():
    if sys.version_info < (3, 10):
        try:
            import importlib_metadata as metadata  # the backport has the newer API
        except ImportError:
            from importlib import metadata
    else:
        from importlib import metadata
    return metadata.distributions()


def _discover():
    """Plugins registered in the ``variant_plugins`` entry-point group."""
    import re

    found = []
    seen_dists = set()
    seen_refs = set()
    for dist in _iter_distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:
            continue
        if not name:
            continue
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen_dists:  # shadowed by an earlier sys.path entry
            continue
        seen_dists.add(key)
        for ep_name, value in group_entry_points(dist, _ENTRY_POINT_GROUP):
            # Old-style references may carry "[extras]"; they do not matter here.
            ref = value.split("[", 1)[0].strip()
            if ref in seen_refs:
                continue
            seen_refs.add(ref)
            namespace = None
            loaded = False
            try:
                namespace = _namespace_of(_resolve(ref))
                loaded = True
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):
                    raise
            found.append({"plugin_api": ref, "distribution": name, "version": dist.version,
                          "namespace": namespace, "entry_point": ep_name, "loaded": loaded})
    return found


def group_entry_points(dist, group):
    """``[(name, value)]`` of ``dist``'s entry points in ``group``, read from its
    ``entry_points.txt`` as importlib.metadata reads it, but one at a time: the
    importlib_metadata backport (8.7+) refuses the whole file over one bad value
    in any group, which would hide every plugin of that distribution."""
    try:
        text = dist.read_text("entry_points.txt")
    except Exception:
        return []
    found = []
    section = None
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == group:
            name, sep, value = line.partition("=")
            if sep:
                found.append((name.strip(), value.strip()))
    return found


def _encode(obj):
    import json

    # ensure_ascii (the default) keeps the stream pure ASCII; NaN is not JSON.
    return json.dumps(obj, allow_nan=False, separators=(",", ":"))


def _end_with_parent(parent_fd):
    """Wait for EOF on ``parent_fd`` (the parent's end of stdin), then end the
    runner, with its process group where it leads one (the plugins' children)."""
    try:
        while os.read(parent_fd, 4096):
            pass
    except OSError:
        pass
    try:
        if hasattr(os, "killpg") and os.getpgrp() == os.getpid():
            import signal

            os.killpg(os.getpid(), signal.SIGKILL)
    except OSError:
        pass
    os._exit(1)


def _watch_parent():
    import threading

    parent_fd = os.dup(0)  # non-inheritable: plugins' subprocesses never hold it
    threading.Thread(target=_end_with_parent, args=(parent_fd,), daemon=True).start()


def _emit(out, text):
    out.write(text.encode("ascii") + b"\n")
    out.flush()


def main():
    import json

    out_fd = _claim_channels()
    out = os.fdopen(out_fd, "wb")
    raw = sys.stdin.buffer.readline()
    try:
        request = json.loads(raw.decode("utf-8"))
        if request.get("watch_parent"):
            _watch_parent()
        _release_stdin()
        command = request["command"]
        if command not in _COMMANDS:
            raise ValueError("unknown command %r" % command)
        refs = [str(ref) for ref in request.get("plugin_apis", [])]
        max_bytes = int(request.get("max_result_bytes", _DEFAULT_MAX_RESULT))
    except Exception as exc:
        sys.stderr.write("pip-variants plugin runner: bad request: %s\n" % _describe(exc))
        return 2

    _add_user_site()
    _add_paths(request.get("extra_paths", []), first=True)
    _add_paths(request.get("fallback_paths", []), first=False)
    sys.path.extend(p for p in request.get("pythonpath", []) if isinstance(p, str) and p not in sys.path)
    _emit(out, _encode({"runner": PROTOCOL, "python": "%d.%d.%d" % sys.version_info[:3]}))

    if command == "discover":
        _emit(out, _encode({"discovered": _discover()}))
    else:
        for ref in refs:
            _emit(out, _endpoint_line(ref, command, max_bytes))
    _emit(out, _encode({"done": True}))
    return 0


if __name__ == "__main__":
    code = main()
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            pass
    # Skip interpreter shutdown: threads or atexit hooks left behind by a
    # plugin must not keep the process (and the caller) waiting.
    os._exit(code)
