"""``pip-variants status``: is pip-variants working in this environment, and how."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import add_subcommand, print_json
from .platform import OVERRIDE_ENV_VARS, overrides_in_effect

__all__ = [
    "register",
    "SUPPORTED_PIP",
    "SETTING_ENV_VARS",
    "PIP_CONFIG_KEYS",
    "pip_supported",
    "kill_switch",
    "gather_status",
    "format_status",
]

#: pip releases the hooks are tested on: 23.2 up to every 26.3.x (the same
#: range as ``pip_variants._bootstrap.TESTED_RANGE``, which is not imported
#: here because importing it installs the hooks).
SUPPORTED_PIP: Tuple[str, str] = ("23.2", "26.3")

#: pip options (as environment variables) that pip-variants adds to pip.
SETTING_ENV_VARS: Tuple[str, ...] = (
    "PIP_NO_VARIANTS",
    "PIP_VARIANT",
    "PIP_VARIANT_PROFILE",
    "PIP_ALLOW_VARIANT_PLUGIN",
    "PIP_VARIANT_ENABLE",
    "PIP_VARIANT_STRICT",
    "PIP_VARIANT_EXCLUDE",
    "PIP_VARIANT_DISABLE",
    "PIP_VARIANT_CONFIG",
)
#: pip-variants' own variables (not pip options).
OWN_ENV_VARS: Tuple[str, ...] = ("PIP_VARIANTS_CACHE_DIR", "PIP_VARIANTS_NO_CACHE", "PIP_VARIANTS_PLUGIN_TIMEOUT")
#: The same options as pip.conf keys (any section: [global], [install], ...).
PIP_CONFIG_KEYS: Tuple[str, ...] = (
    "no-variants", "variant", "variant-profile", "allow-variant-plugin", "variant-enable", "variant-strict",
    "variant-exclude", "variant-disable", "variant-config",
)

_FALSE_WORDS = frozenset({"n", "no", "f", "false", "off", "0"})


#: test knob (see ``pip_variants._pip._compat.TESTED_MAX_ENV``): lowers the top of the tested range
_TESTED_MAX_ENV = "PIP_VARIANTS_TESTED_PIP_MAX"


def _release2(text: str) -> Optional[Tuple[int, int]]:
    from packaging.version import InvalidVersion, Version

    try:
        rel = tuple(Version(text).release) + (0, 0)
    except InvalidVersion:
        return None
    return rel[0], rel[1]


def _tested_range() -> Tuple[Tuple[int, int], Tuple[int, int]]:
    """``SUPPORTED_PIP`` as release pairs, the top lowered by the test knob if set."""
    low, high = (_release2(x) for x in SUPPORTED_PIP)
    assert low is not None and high is not None
    cap = _release2(os.environ.get(_TESTED_MAX_ENV, "").strip() or "x")
    return low, (cap if cap is not None and cap < high else high)


def pip_supported(version: str) -> Optional[bool]:
    """Whether pip ``version`` is in the tested range; ``None`` if unparsable."""
    # Release numbers only, so 26.3.1 and 26.3.dev0 count as 26.3.
    release = _release2(version)
    if release is None:
        return None
    low, high = _tested_range()
    return low <= release <= high


def kill_switch(environ: Optional[Mapping[str, str]] = None) -> bool:
    """``PIP_NO_VARIANTS`` read as the start-up hook reads it: empty or a
    false word means not set; anything else turns variants off."""
    env = os.environ if environ is None else environ
    value = env.get("PIP_NO_VARIANTS", "")  # not stripped: pip does not strip it either
    return bool(value) and value.lower() not in _FALSE_WORDS


def _version_of(dist: str) -> Optional[str]:
    # The stdlib module is enough for a version lookup, on 3.9 too.
    from importlib import metadata as importlib_metadata

    try:
        return importlib_metadata.version(dist)
    except Exception:
        return None


def _shim_active() -> Tuple[Optional[bool], Optional[str], Dict[str, Any]]:
    """Is the start-up shim active here, where does it live, and is it
    inherited (the user site, or the base of a --system-site-packages venv)?"""
    try:
        from ..activation import shim_report
    except ImportError as exc:
        return None, f"cannot tell: {exc}", {}
    try:
        report = shim_report()
    except Exception as exc:  # noqa: BLE001 - status must always print something
        return None, f"cannot tell: {exc}", {}
    where = {"site": report.site, "kind": report.kind, "inherited": report.inherited,
             "files": report.files, "others": report.others, "problem": report.problem,
             "writable": report.writable}
    return report.active, None, where


def _shim_lines(st: Mapping[str, Any]) -> List[str]:
    """The 'shim:' line(s) of the human output."""
    active = st["shim_active"]
    where = st.get("shim") or {}
    pip = st.get("pip") or {}
    pip_stock = bool(pip.get("version")) and not pip.get("supported") and (
        (pip.get("untested") or {}).get("mode") != "untested-compatible")
    if active is True:
        if pip_stock:
            lines = [f"shim:      active, but pip {pip['version']} here stays stock (see 'pip:' below)"]
        elif st.get("variants_enabled") is False:
            lines = ["shim:      active, but PIP_NO_VARIANTS keeps pip stock (see 'variants:' below)"]
        else:
            lines = ["shim:      active: 'pip install' in this environment picks wheel variants"]
        if where.get("site"):
            from ..activation import KIND_TEXT

            kind = KIND_TEXT.get(where.get("kind") or "", where.get("kind"))
            lines.append(f"           from {where['site']} ({kind})")
            if where.get("inherited"):
                lines.append("           inherited: 'pip-variants deactivate' here changes the base installation too")
            if where.get("writable") is False:
                lines.append("           read-only for this user: only its owner can deactivate it "
                             "(PIP_NO_VARIANTS=1 turns variants off here)")
    elif active is False:
        lines = ["shim:      NOT active: pip here is stock; run 'pip-variants activate' (or reinstall pip-variants)"]
        if where.get("problem"):
            lines.append(f"           {where['problem']}")
    else:
        lines = [f"shim:      {st.get('shim_error') or 'unknown'}"]
    return lines


def _pip_config(timeout: float = 30.0) -> Tuple[Dict[str, str], Optional[str]]:
    """pip-variants keys set in pip's configuration files, as pip reads them."""
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_pip", "_merged_config.py")
    try:
        with open(script, encoding="utf-8") as f:
            code = f.read()  # run as -c: its folder must not come first on the child's sys.path
    except OSError as exc:
        return {}, f"could not read pip's configuration: {exc}"
    env = dict(os.environ)
    env["PIP_NO_VARIANTS"] = "1"  # plain pip is enough to list config; keep it fast
    env["PYTHONIOENCODING"] = "utf-8"  # whatever this process's streams use: read back as written
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=timeout, env=env,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return {}, f"could not read pip's configuration: {exc}"
    try:
        merged = json.loads(proc.stdout) if proc.returncode == 0 else None
    except ValueError:
        merged = None
    if not isinstance(merged, dict):
        why = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return {}, f"could not read pip's configuration ({why}); 'pip config debug' shows the files"
    out: Dict[str, str] = {}
    for key, value in merged.items():
        if key.startswith(":env:"):
            continue  # environment variables are shown separately
        option = key.split(".", 1)[-1]
        if option in PIP_CONFIG_KEYS:
            out[key] = str(value)
    return out, None



def _providers() -> Dict[str, Any]:
    from ..providers.builtin import all_builtin_providers

    builtin = [
        {"namespace": p.namespace, "reimplements": list(p.packages), "plugin_apis": list(p.plugin_apis)}
        for p in all_builtin_providers()
    ]
    plugins: List[Dict[str, Any]] = []
    error = None
    try:
        from ..providers.plugins import discover_installed_plugins

        for p in discover_installed_plugins():
            plugins.append({"namespace": p.namespace, "distribution": p.distribution,
                            "version": p.version, "plugin_api": p.plugin_api})
    except Exception as exc:  # noqa: BLE001
        error = f"installed plugins could not be listed: {exc}"
    return {"builtin": builtin, "plugins": plugins, "plugin_error": error}


def _range_text() -> str:
    (a, b), (c, d) = _tested_range()
    return f"{a}.{b} - {c}.{d}"


def pip_mode(version: Optional[str], timeout: float = 60.0) -> Dict[str, Any]:
    """How pip-variants treats this pip: ``tested``, ``untested-compatible`` (a newer
    pip whose hook points all have the expected shape: variants stay on),
    ``untested-incompatible`` (stock pip, ``problems`` say why), ``unsupported``
    (older than the range), or ``unknown``."""
    low, high = _tested_range()
    rel = _release2(version) if version else None
    out: Dict[str, Any] = {"mode": "unknown", "tested_range": _range_text(), "problems": []}
    if rel is None:
        return out
    if rel < low:
        out["mode"] = "unsupported"
        return out
    if rel <= high:
        out["mode"] = "tested"
        return out
    # A newer pip: ask pip_variants._pip, in a child (it imports pip's internals).
    code = "import json, pip_variants._pip as p; print(json.dumps(p.untested_pip_status()))"
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
        data = json.loads(proc.stdout.strip().splitlines()[-1])
        out["mode"], out["problems"] = data["mode"], data["problems"]
    except (OSError, subprocess.SubprocessError, ValueError, IndexError, KeyError) as exc:
        out["problems"] = [f"could not check the hook points: {exc}"]
    return out


def installed_variants_summary() -> Dict[str, Any]:
    """How many installed distributions carry a variant, and how many no longer fit."""
    try:
        from ..installed import check_installed

        report = check_installed()
    except Exception as exc:  # noqa: BLE001 - status must always print something
        return {"count": None, "not_fitting": None, "error": f"{type(exc).__name__}: {exc}"}
    return {"count": len(report.results), "not_fitting": len(report.not_fitting), "error": None}


_TRUE_WORDS = ("y", "yes", "t", "true", "on", "1")  # pip's strtobool


#: the pip commands that select variants (H8)
_VARIANT_COMMANDS = ("install", "download", "wheel", "lock")


def _off_for(config: Mapping[str, str], environ: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """pip command -> the pip config key that switches variants off for it
    (its own section wins over ``[global]``, as in pip; ``PIP_NO_VARIANTS``
    set to a false word wins over both, as pip's environment does)."""
    out: Dict[str, str] = {}
    env = os.environ if environ is None else environ
    if env.get("PIP_NO_VARIANTS", "").lower() in _FALSE_WORDS:  # not stripped, as pip reads it
        return out
    for command in _VARIANT_COMMANDS:
        key = f"{command}.no-variants"
        if key not in config:
            key = "global.no-variants"
        value = config.get(key)
        if value is not None and value.strip().lower() in _TRUE_WORDS:
            out[command] = key
    return out


#: pip-variants' yes/no options, as pip config keys
_SWITCHES = ("no-variants", "variant-strict")


def _not_boolean(config: Mapping[str, str]) -> List[str]:
    """The config keys of pip-variants' yes/no options whose value pip cannot
    read as one: pip then stops every command of that section with a usage error."""
    out = []
    for key, value in config.items():
        section, _, name = key.partition(".")
        if (section in ("global",) + _VARIANT_COMMANDS and name in _SWITCHES
                and value.strip().lower() not in _TRUE_WORDS + tuple(_FALSE_WORDS)):
            out.append(key)
    return out


def _off_by_config(config: Mapping[str, str]) -> List[str]:
    """The pip config keys (``install.no-variants``, ``global.no-variants``)
    that switch variants off: pip stays variant-aware, but those commands
    install plain wheels."""
    return list(dict.fromkeys(_off_for(config).values()))


def gather_status(*, read_pip_config: bool = True) -> Dict[str, Any]:
    from .. import __version__

    active, active_error, shim_where = _shim_active()
    pip_version = _version_of("pip")
    try:
        from ..providers.cache import cache_dir

        cache: Optional[str] = str(cache_dir())
    except Exception as exc:  # noqa: BLE001
        cache = None
        active_error = active_error or f"cache location unknown: {exc}"
    env = {k: os.environ[k] for k in SETTING_ENV_VARS + OVERRIDE_ENV_VARS + OWN_ENV_VARS if k in os.environ}
    env.update(overrides_in_effect())
    config, config_error = _pip_config() if read_pip_config else ({}, None)
    return {
        "pip_variants_version": __version__,
        "python": sys.executable,
        "python_version": ".".join(map(str, sys.version_info[:3])),
        "prefix": sys.prefix,
        "shim_active": active,
        "shim_error": active_error,
        "shim": shim_where,
        "variants_enabled": not kill_switch(),
        "variants_off_by_config": _off_by_config(config),
        "pip_config_not_boolean": _not_boolean(config),
        "pip": {
            "version": pip_version,
            "supported": pip_supported(pip_version) if pip_version else False,
            "supported_range": _range_text(),
            **({"untested": pip_mode(pip_version)} if pip_version and not pip_supported(pip_version) else {}),
        },
        "installed_variants": installed_variants_summary(),
        "providers": _providers(),
        "cache_dir": cache,
        "environment": env,
        "pip_config": config,
        "pip_config_error": config_error,
    }


def format_status(st: Mapping[str, Any]) -> str:
    lines = [f"pip-variants {st['pip_variants_version']} in {st['prefix']} (Python {st['python_version']})"]
    lines.extend(_shim_lines(st))
    pip = st["pip"]
    if pip["version"] is None:
        lines.append("pip:       not installed in this environment")
    else:
        verdict = "supported" if pip["supported"] else "NOT supported: the hooks step aside and pip stays stock"
        untested = pip.get("untested") or {}
        if untested.get("mode") == "untested-compatible":
            verdict = ("newer than the tested range; every hook point has the expected shape, "
                       "so variants stay on")
        elif untested.get("mode") == "untested-incompatible":
            verdict = ("newer than the tested range and changed where pip-variants hooks in: pip stays "
                       f"stock ({'; '.join(untested.get('problems') or [])})")
        lines.append(f"pip:       {pip['version']} ({verdict}; tested range {pip['supported_range']})")
    off = _off_for(st.get("pip_config") or {}) if st.get("variants_off_by_config") else {}
    if st["variants_enabled"] and off:
        where = ", ".join(f"{k} = {st['pip_config'].get(k, 'true')}" for k in dict.fromkeys(off.values()))
        lines.append(f"variants:  off for pip {', '.join(off)} (pip config {where}): plain wheels only")
    elif st["variants_enabled"]:
        lines.append("variants:  on")
    else:
        lines.append(f"variants:  OFF (PIP_NO_VARIANTS={os.environ.get('PIP_NO_VARIANTS', '')}): pip is left stock")
    lines.append("providers:")
    provs = st["providers"]
    for p in provs["builtin"]:
        lines.append(f"  built-in  {p['namespace']:<8}  stands in for {', '.join(p['reimplements'])}")
    for p in provs["plugins"]:
        ns = p["namespace"] or "?"
        lines.append(f"  plugin    {ns:<8}  {p['distribution']} {p['version']} ({p['plugin_api']})")
    if not provs["plugins"]:
        lines.append("  (no provider plugins installed in this environment)")
    if provs.get("plugin_error"):
        lines.append(f"  warning: {provs['plugin_error']}")
    inst = st.get("installed_variants") or {}
    if inst.get("error"):
        lines.append(f"installed: cannot tell ({inst['error']})")
    elif inst.get("count") is not None:
        n, bad = inst["count"], inst["not_fitting"]
        text = f"installed: {n} variant wheel{'s' if n != 1 else ''}"
        if bad:
            text += f", {bad} no longer fit{'s' if bad == 1 else ''} this machine: run 'pip-variants check'"
        lines.append(text)
    lines.append(f"cache:     {st['cache_dir']}")
    lines.append("settings in effect:")
    settings = [f"  {k}={v}  (environment)" for k, v in st["environment"].items()]
    settings += [f"  {k} = {v}  (pip config{_overridden(k, st)})" for k, v in st["pip_config"].items()]
    lines.extend(settings or ["  (none: defaults)"])
    if st.get("pip_config_error"):
        lines.append(f"  warning: {st['pip_config_error']}")
    for key in st.get("pip_config_not_boolean") or ():
        section = key.partition(".")[0]
        which = (f"pip {', '.join(_VARIANT_COMMANDS[:-1])} and {_VARIANT_COMMANDS[-1]} stop" if section == "global"
                 else f"pip {section} stops")
        lines.append(f"  warning: {key} = {st['pip_config'].get(key, '')} is not a yes/no value: {which} "
                     "with a usage error; set it to true or false")
    return "\n".join(lines) + "\n"


def _overridden(key: str, st: Mapping[str, Any]) -> str:
    """Whatever pip takes over this pip.conf key: its PIP_* variable, or for
    a ``global`` key the command's own section."""
    section, _, option = key.partition(".")
    variable = "PIP_" + option.upper().replace("-", "_")
    if st["environment"].get(variable):  # (set but empty: pip ignores it)
        return f"; {variable} overrides it"
    if section == "global":
        sections = [other.partition(".")[0] for other in st["pip_config"] if other.partition(".")[2] == option]
        commands = [name for name in sections if name != "global"]
        if commands:
            return f"; {', '.join(f'{name}.{option}' for name in commands)} overrides it for pip {'/'.join(commands)}"
    return ""


def _run(args: argparse.Namespace) -> int:
    st = gather_status(read_pip_config=not args.no_pip_config)
    if args.json:
        print_json(st)
    else:
        sys.stdout.write(format_status(st))
    return 0


_EXAMPLES = """\
  pip-variants status
  pip-variants status --json
  PIP_NO_VARIANTS=1 pip-variants status     # shows variants OFF"""


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = add_subcommand(
        sub,
        "status",
        help="is the pip shim active here? pip version, providers, cache, settings",
        description=(
            "Report whether pip-variants is active in this environment: the start-up shim, the pip\n"
            "version and whether it is in the tested range, the providers (built-in ones and the\n"
            "plugins they stand in for, installed plugins with versions), the cache location, and\n"
            "every pip-variants setting in effect (PIP_* variables, provider overrides, pip.conf keys)."
        ),
        examples=_EXAMPLES,
        handler=_run,
    )
    p.add_argument("--json", action="store_true", help="print JSON for machines")
    p.add_argument("--no-pip-config", action="store_true",
                   help="do not read pip's configuration files for pip.conf settings (faster)")
