"""Target profiles: what a machine supports, saved to select for it elsewhere.

``pip-variants profile export`` writes one on the target; ``pip install
--variant-profile FILE`` selects with it instead of detecting this machine
(PROVIDERS.md §4.3: user-supplied static data, ladder step 3).

Format, version 1 (JSON; feature order is key order, values best first)::

    {
      "profile-version": 1,
      "created-by": "pip-variants 0.1.0",
      "platform": {"system": "Linux", "machine": "x86_64", "python": "3.12.1"},
      "namespaces": {
        "nvidia": {"cuda_version_lower_bound": ["12.8", "12.7"], "sm_arch": ["90_real", "90_virtual"]},
        "x86_64": {"level": ["v3", "v2", "v1"]}
      }
    }

Also read: the bare ``{"nvidia": {"feature": [values]}}`` shape, and TOML in
the ``providers``-entry shape (``[nvidia]`` with ``static-properties.F = [...]``
and an optional ``feature-order``).
"""

from __future__ import annotations

import json
import platform as _platform
import sys
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from .properties import FEATURE_RE, NAMESPACE_RE, VALUE_RE

__all__ = ["PROFILE_VERSION", "InvalidProfile", "load_profile", "parse_profile", "make_profile", "dumps_profile"]

PROFILE_VERSION = 1
_MAX_BYTES = 4 * 1024 * 1024

Profile = Dict[str, Dict[str, Tuple[str, ...]]]


class InvalidProfile(ValueError):
    """A variant profile file cannot be read; the message names the file."""


def _fail(source: str, message: str) -> InvalidProfile:
    return InvalidProfile(f"variant profile {source}: {message}")


def _features(source: str, ns: str, raw: Any) -> Dict[str, Tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        raise _fail(source, f"namespace {ns!r} must map features to value lists")
    if "static-properties" in raw:  # providers-entry shape (TOML example in the docs)
        statics = raw["static-properties"]
        if not isinstance(statics, Mapping):
            raise _fail(source, f"{ns}.static-properties must be a table")
        given = raw.get("feature-order", [])
        if not isinstance(given, list) or not all(isinstance(f, str) for f in given):
            raise _fail(source, f"{ns}.feature-order must be a list of feature names")
        order = given + [f for f in statics if f not in given]
        raw = {f: statics[f] for f in order if f in statics}
    out: Dict[str, Tuple[str, ...]] = {}
    for feature, values in raw.items():
        if not isinstance(feature, str) or not FEATURE_RE.match(feature):
            raise _fail(source, f"{ns}: invalid feature name {feature!r}")
        if not isinstance(values, list) or not all(isinstance(v, str) and VALUE_RE.match(v) for v in values):
            raise _fail(source, f"{ns} :: {feature} must be a list of values matching {VALUE_RE.pattern}")
        out[feature] = tuple(dict.fromkeys(values))
    return out


def parse_profile(data: Any, source: str = "<profile>") -> Profile:
    if not isinstance(data, Mapping):
        raise _fail(source, "top level must be an object")
    if "profile-version" in data:
        version = data["profile-version"]
        if version != PROFILE_VERSION or isinstance(version, bool):
            hint = (f"it must be the number {PROFILE_VERSION}, not a string"
                    if str(version) == str(PROFILE_VERSION) else f"this release reads {PROFILE_VERSION}")
            raise _fail(source, f"profile-version {version!r} is not supported ({hint})")
        if "namespaces" not in data:
            raise _fail(source, "missing 'namespaces' (an object: namespace -> feature -> values)")
        namespaces = data["namespaces"]
        if not isinstance(namespaces, Mapping):
            raise _fail(source, "'namespaces' must be an object")
    else:
        namespaces = data
    out: Profile = {}
    for ns, raw in namespaces.items():
        if not isinstance(ns, str) or not NAMESPACE_RE.match(ns):
            raise _fail(source, f"invalid namespace {ns!r}")
        out[ns] = _features(source, ns, raw)
    return out


def _load_toml(text: str, source: str, fail: Callable[[str, str], Exception]) -> Any:
    try:
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # pragma: no cover - 3.9/3.10
            import tomli as tomllib
    except ImportError:
        raise fail(source, "reading TOML needs Python 3.11+ or the 'tomli' package; use JSON") from None
    try:
        return tomllib.loads(text)
    except Exception as exc:
        raise fail(source, f"not valid TOML: {exc}") from None


def read_data_file(path: str, fail: Callable[[str, str], Exception], *, toml: bool) -> Any:
    """The JSON (or, with ``toml``, TOML) document in ``path``; ``fail(path, why)``
    makes the exception for a file that cannot be read, is too large or does not parse."""
    try:
        with open(path, "rb") as f:
            content = f.read(_MAX_BYTES + 1)
    except OSError as exc:
        raise fail(path, f"cannot be read: {exc.strerror or exc}") from None
    if len(content) > _MAX_BYTES:
        raise fail(path, "file is too large")
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise fail(path, "not UTF-8 text") from None
    if toml:
        return _load_toml(text, path, fail)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise fail(path, f"not valid JSON: {exc}") from None


def load_profile(path: str) -> Profile:
    """Read a profile file (JSON, or TOML when the name ends in ``.toml``)."""
    return parse_profile(read_data_file(path, _fail, toml=path.endswith(".toml")), path)


def make_profile(namespaces: Mapping[str, Mapping[str, Tuple[str, ...]]],
                 platform_info: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    from . import __version__

    info = dict(platform_info) if platform_info is not None else {
        "system": _platform.system(),
        "machine": _platform.machine(),
        "python": _platform.python_version(),
        "implementation": sys.implementation.name,
    }
    return {
        "profile-version": PROFILE_VERSION,
        "created-by": f"pip-variants {__version__}",
        "platform": info,
        "namespaces": {ns: {f: list(v) for f, v in feats.items()} for ns, feats in namespaces.items()},
    }


def dumps_profile(profile: Mapping[str, Any]) -> str:
    return json.dumps(profile, indent=2) + "\n"
