"""Variant metadata: ``{name}-{version}-variants.json`` and ``*.dist-info/variant.json``.

Every format in use is read into one model, :class:`VariantMetadata`:

========  =====================================================================
0.0.2     PEP 817 era: ``providers`` with ``plugin-use``; static data in
          ``default-priorities.feature/property``
0.0.3     PEP 817 / variantlib 0.0.3: ``install-time``, ``enable-if``,
          top-level ``static-properties``
0.1.0     PEP 825 (Feb-Aug 2026): no ``providers``; priority overrides kept
0.1.1     PEP 825: no ``providers``; only ``default-priorities.namespace``
0.2.0     Providers PEP: ``providers.{ns}`` with ``requires``/``plugin-api``,
          ``static-properties`` + ``feature-order``, ``builtin``, ``optional``
========  =====================================================================

Imports nothing from pip. Errors name the file or URL (``source``) and the rule.
"""

from __future__ import annotations

import json
import zipfile
from collections import abc
from dataclasses import field, replace
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._charset import HEX_DIGITS, Charset
from ._record import record
from .filename import LABEL_RE, LEGACY_LABEL_LENGTH, NULL_LABEL
from .properties import (
    FEATURE_RE,
    NAMESPACE_RE,
    VALUE_RE,
    PropertySet,
)

__all__ = [
    "MAX_METADATA_BYTES",
    "SCHEMA_URLS",
    "SUPPORTED_VERSIONS",
    "ABI_DEPENDENCY",
    "InvalidVariantMetadata",
    "UnsupportedSchemaVersion",
    "ProviderInfo",
    "VariantMetadata",
    "schema_version",
    "parse_metadata",
    "load_metadata",
    "load_wheel_metadata",
    "describing_only",
    "find_variant_json",
    "check_consistency",
    "split_object_reference",
]

#: Larger files are refused: real ones (torch, numpy) are a few kB.
MAX_METADATA_BYTES = 2 * 1024 * 1024
ABI_DEPENDENCY = "abi_dependency"

Version = Tuple[int, int, int]
SUPPORTED_VERSIONS: Tuple[Version, ...] = ((0, 0, 2), (0, 0, 3), (0, 1, 0), (0, 1, 1), (0, 2, 0))
SCHEMA_URLS: Dict[Version, str] = {
    (0, 0, 2): "https://variants-schema.wheelnext.dev/v0.0.2.json",
    (0, 0, 3): "https://variants-schema.wheelnext.dev/v0.0.3.json",
    (0, 1, 0): "https://variants-schema.wheelnext.dev/peps/825/v0.1.0.json",
    (0, 1, 1): "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
    (0, 2, 0): "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json",
}

_HEX = Charset(HEX_DIGITS, r"^[0-9a-f]+$")


def _is_name(part: str) -> bool:
    """Word characters only (what ``\\w`` matches: letters and digits of any
    script, and ``_``), as an entry point's module and attribute names are."""
    return part.replace("_", "a").isalnum()


def _check_dotted(dotted: str, what: str) -> None:
    if not dotted:
        raise ValueError(f"no {what}")
    for part in dotted.split("."):
        if not part:
            raise ValueError(f"empty name between dots in {what} {dotted!r}")
        if not _is_name(part):
            raise ValueError(f"{part!r} in {what} {dotted!r} is not a name (letters, digits and '_' only)")


def split_object_reference(text: str) -> Tuple[str, Optional[str]]:
    """``(module, attribute_path)`` of a ``plugin-api``: ``module.path`` or
    ``module.path:Object.attr``, the entry-point object reference syntax
    (``[\\w.]+ *(: *[\\w.]+ *)?``, as importlib.metadata and variantlib read it):
    blanks around the colon and at the end, none before the module, no empty
    name between dots. The one rule for make-variant, reading metadata and
    running plugins. Raises :class:`ValueError` saying what is wrong.

    No regex: this runs on pip's path for every variant release.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected a string, got {type(text).__name__}")
    if text[:1].isspace():
        raise ValueError("blank before the module name")
    module, colon, attr = text.partition(":")
    module = module.rstrip()
    _check_dotted(module, "module")
    if not colon:
        return module, None
    attr = attr.strip()
    _check_dotted(attr, "object path")
    return module, attr


def _schema_url_version(url: str) -> Optional[Tuple[int, int, int]]:
    """``(0, 2, 0)`` from a ``$schema`` URL whose last part ends in
    ``v0.2.0.json``, or is ``0.2.0.json`` (a form a future packaging.python.org
    URL may take), else ``None``."""
    if not url.endswith(".json"):
        return None
    tail = url[:-5].rpartition("/")[2]
    parts = tail.rpartition("v")[2].split(".")
    if len(parts) != 3 or not all(part.isdecimal() for part in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


_PROVIDER_KEYS_020 = {"requires", "plugin-api", "static-properties", "feature-order", "builtin", "optional"}


class InvalidVariantMetadata(ValueError):
    """Variant metadata breaks its schema (PEP 817/825, Providers PEP).

    PEP 825 asks installers to degrade gracefully: callers ignore the release's
    variant wheels and keep its other wheels.
    """

    def __init__(self, source: str, message: str) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source
        self.message = message


class UnsupportedSchemaVersion(InvalidVariantMetadata):
    """``$schema`` names a format version this release cannot read (PEP 825: MUST reject)."""


@record
class ProviderInfo:
    """How one namespace's supported properties are obtained.

    Exactly one kind applies: ``static`` (``static_properties`` given, possibly
    from a 0.0.x ahead-of-time entry), ``plugin`` (``requires`` / ``plugin_api``),
    ``builtin`` (``{"builtin": "abi_dependency"}``), or ``unspecified`` (PEP
    825 0.1.x files have no provider table: the installer's registry decides).
    """

    namespace: str
    requires: Tuple[str, ...] = ()
    plugin_api: Optional[str] = None
    static_properties: Optional[Tuple[Tuple[str, Tuple[str, ...]], ...]] = None
    optional: bool = False
    enable_if: Optional[str] = None
    builtin: Optional[str] = None

    @property
    def kind(self) -> str:
        if self.builtin is not None:
            return "builtin"
        if self.static_properties is not None:
            return "static"
        if self.requires or self.plugin_api:
            return "plugin"
        return "unspecified"


@record
class VariantMetadata:
    """One release's combined variant metadata, whatever format it came in."""

    source: str
    schema: Version
    namespaces: Tuple[str, ...]
    variants: Mapping[str, PropertySet]
    providers: Mapping[str, ProviderInfo] = field(default_factory=dict)
    feature_priorities: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)
    property_priorities: Mapping[str, Mapping[str, Tuple[str, ...]]] = field(default_factory=dict)
    #: labels whose entry is unusable (e.g. a non-null label with no properties)
    invalid_labels: Mapping[str, str] = field(default_factory=dict)

    def provider(self, namespace: str) -> ProviderInfo:
        return self.providers.get(namespace) or ProviderInfo(namespace)

    def is_abi_namespace(self, namespace: str) -> bool:
        """Does the ABI-dependency provider answer for ``namespace``: the PEP
        drafts' literal namespace, or one whose entry is ``{"builtin": "abi_dependency"}``?"""
        info = self.providers.get(namespace)
        return namespace == ABI_DEPENDENCY or (info is not None and info.builtin == ABI_DEPENDENCY)

    @property
    def used_namespaces(self) -> Tuple[str, ...]:
        seen: List[str] = []
        for props in self.variants.values():
            for ns in props:
                if ns not in seen:
                    seen.append(ns)
        return tuple(seen)


# --------------------------------------------------------------------------- reading


def schema_version(data: Mapping[str, Any], source: str = "<variant metadata>") -> Version:
    """The format version of a parsed document (WHEEL-VARIANTS.md §10.1)."""
    url = data.get("$schema")
    if url is not None and not isinstance(url, str):
        raise InvalidVariantMetadata(source, "'$schema' must be a string")
    # PEP 825: the URL carries the format version, and an unknown one is unsupported;
    # a dotted number in another URL shape is a version too, not a cue to guess from the keys.
    version = _schema_url_version(url or "") or _dotted_version_in(url or "")
    if version is not None:
        for supported in SUPPORTED_VERSIONS:
            if version == supported:
                if supported < (0, 1, 0) and _sniff_version(data) == (0, 2, 0):
                    # variantlib 0.2.0 wrote the 0.2.0 layout under the 0.0.3 address
                    # (0.2.2 corrected it); uv and variantlib read such files by their keys
                    return (0, 2, 0)
                return supported
        known = ", ".join(".".join(map(str, v)) for v in SUPPORTED_VERSIONS)
        raise UnsupportedSchemaVersion(
            source,
            f"unsupported variant metadata format {'.'.join(map(str, version))} "
            f"(from $schema {url!r}); this pip-variants reads {known}. "
            "Upgrade pip-variants to install this release's variant wheels",
        )
    return _sniff_version(data)


def _dotted_version_in(url: str) -> Optional[Tuple[int, ...]]:
    """The first dotted number (``2.0.0``, ``9.0``) in the last two parts of
    ``url``'s path (``.../2.0.0/schema.json``, ``.../v9.0.json``), else ``None``."""
    import re  # loaded in every pip process already; only this fallback needs it

    path = url.partition("://")[2].partition("/")[2] if "://" in url else url
    path = path.partition("?")[0].partition("#")[0]
    for segment in path.split("/")[-2:]:
        found = re.search(r"(?<![0-9.])[0-9]+(?:\.[0-9]+)+", segment)
        if found:
            return tuple(int(n) for n in found.group().split("."))
    return None


def _sniff_version(data: Mapping[str, Any]) -> Version:
    providers = data.get("providers")
    if not isinstance(providers, abc.Mapping):
        prio = data.get("default-priorities")
        if isinstance(prio, abc.Mapping) and ("feature" in prio or "property" in prio):
            return (0, 1, 0)
        return (0, 1, 1)
    entries = [e for e in providers.values() if isinstance(e, abc.Mapping)]
    if any("plugin-use" in e for e in entries):
        return (0, 0, 2)
    if any("install-time" in e or "enable-if" in e for e in entries) or "static-properties" in data:
        return (0, 0, 3)
    if any(k in e for e in entries for k in ("static-properties", "feature-order", "builtin")):
        return (0, 2, 0)
    # An unversioned or missing $schema with a providers table: the mid-2025 format.
    return (0, 0, 2)


class _Reader:
    def __init__(self, source: str, version: Version) -> None:
        self.source = source
        self.version = version

    def fail(self, message: str) -> "InvalidVariantMetadata":
        return InvalidVariantMetadata(self.source, message)

    def mapping(self, value: Any, where: str) -> Mapping[str, Any]:
        if not isinstance(value, abc.Mapping):
            raise self.fail(f"{where} must be an object, got {type(value).__name__}")
        return value

    def str_list(self, value: Any, where: str, regex: Optional[Charset] = None, allow_empty: bool = False) -> Tuple[str, ...]:
        if isinstance(value, str) and self.version <= (0, 0, 2):
            value = [value]  # very old files map a feature to a bare string
        if not isinstance(value, list):
            raise self.fail(f"{where} must be a list, got {type(value).__name__}")
        if not value and not allow_empty:
            raise self.fail(f"{where} must not be empty")
        seen = set()  # a set: an index may send a list of 100 000 values
        for item in value:
            if not isinstance(item, str):
                raise self.fail(f"{where} must hold strings, got {item!r}")
            if regex is not None and not regex.match(item):
                raise self.fail(f"{where}: {item!r} does not match {regex.pattern}")
            if item in seen:
                raise self.fail(f"{where}: duplicate {item!r}")
            seen.add(item)
        return tuple(value)

    def name(self, value: str, regex: Charset, where: str) -> str:
        if not regex.match(value):
            raise self.fail(f"{where}: {value!r} does not match {regex.pattern}")
        return value


def parse_metadata(data: Any, source: str = "<variant metadata>") -> VariantMetadata:
    """Validate a decoded JSON document and read it into :class:`VariantMetadata`."""
    if not isinstance(data, abc.Mapping):
        raise InvalidVariantMetadata(source, f"top level must be an object, got {type(data).__name__}")
    version = schema_version(data, source)
    r = _Reader(source, version)

    if "default-priorities" not in data:
        raise r.fail("missing required key 'default-priorities'")
    prio = r.mapping(data["default-priorities"], "'default-priorities'")
    if "namespace" not in prio:
        raise r.fail("missing required key 'default-priorities.namespace'")
    # Empty only in a 0.0.x file describing null builds alone (checked below): variantlib
    # writes such a variant.json and reads it. PEP 825 and uv 0.13.9 refuse it from 0.1.0 on.
    namespaces = r.str_list(prio["namespace"], "'default-priorities.namespace'", NAMESPACE_RE,
                            allow_empty=version < (0, 1, 0))

    feature_prio: Dict[str, Tuple[str, ...]] = {}
    property_prio: Dict[str, Dict[str, Tuple[str, ...]]] = {}
    if version == (0, 1, 1):
        # Removed in 0.1.1: only the provider's order ranks features and values.
        prio = {k: v for k, v in prio.items() if k not in ("feature", "property")}
    if "feature" in prio:
        for ns, feats in r.mapping(prio["feature"], "'default-priorities.feature'").items():
            r.name(ns, NAMESPACE_RE, "'default-priorities.feature'")
            feature_prio[ns] = r.str_list(feats, f"'default-priorities.feature.{ns}'", FEATURE_RE, allow_empty=True)
    if "property" in prio:
        for ns, feats in r.mapping(prio["property"], "'default-priorities.property'").items():
            r.name(ns, NAMESPACE_RE, "'default-priorities.property'")
            for feat, values in r.mapping(feats, f"'default-priorities.property.{ns}'").items():
                r.name(feat, FEATURE_RE, f"'default-priorities.property.{ns}'")
                property_prio.setdefault(ns, {})[feat] = r.str_list(
                    values, f"'default-priorities.property.{ns}.{feat}'", VALUE_RE, allow_empty=True
                )

    if "variants" not in data:
        raise r.fail("missing required key 'variants'")
    variants, invalid_labels = _read_variants(r, r.mapping(data["variants"], "'variants'"))
    if not namespaces and (invalid_labels or any(variants.values())):
        raise r.fail("'default-priorities.namespace' must not be empty")

    for label, props in list(variants.items()):
        for ns in props:
            if ns not in namespaces and ns != ABI_DEPENDENCY:
                # That label cannot be ranked; the others still can (WHEEL-VARIANTS App. B 6).
                del variants[label]
                invalid_labels[label] = (
                    f"variant {label!r} uses namespace {ns!r}, which is missing from "
                    "'default-priorities.namespace'"
                )
                break

    providers: Dict[str, ProviderInfo] = {}
    if version >= (0, 2, 0):
        providers = _read_providers_020(r, data, namespaces)
    elif version < (0, 1, 0):
        providers = _read_providers_00x(r, data, feature_prio, property_prio)
    # 0.1.x carries no provider information: the installer's registry decides.

    return VariantMetadata(
        source=source,
        schema=version,
        namespaces=namespaces,
        variants=variants,
        providers=providers,
        feature_priorities=feature_prio,
        property_priorities=property_prio,
        invalid_labels=invalid_labels,
    )


def _read_variants(r: _Reader, raw: Mapping[str, Any]) -> Tuple[Dict[str, PropertySet], Dict[str, str]]:
    variants: Dict[str, PropertySet] = {}
    invalid: Dict[str, str] = {}
    for label, props in raw.items():
        if not isinstance(label, str) or not LABEL_RE.match(label):
            raise r.fail(f"variant label {label!r} does not match {LABEL_RE.pattern}")
        where = f"'variants.{label}'"
        entry: Dict[str, Dict[str, Tuple[str, ...]]] = {}
        for ns, feats in r.mapping(props, where).items():
            # The 0.0.x schemas let '.' into these keys; the property grammar never did.
            r.name(ns, NAMESPACE_RE, where)
            for feat, values in r.mapping(feats, f"{where}.{ns}").items():
                r.name(feat, FEATURE_RE, f"{where}.{ns}")
                entry.setdefault(ns, {})[feat] = tuple(
                    sorted(r.str_list(values, f"{where}.{ns}.{feat}", VALUE_RE))
                )
        if label == NULL_LABEL and entry:
            raise r.fail("the 'null' variant must have no properties")
        if label != NULL_LABEL and not entry and not (len(label) == 8 and _HEX.match(label)):
            # torch 2.8 named its null variant by the hash of the empty set
            # ("00000000"): an opaque label, accepted; any other empty label is not.
            invalid[label] = "a variant other than 'null' must declare at least one property"
            continue
        variants[label] = entry
    return variants, invalid


def _static_list(
    r: _Reader, raw: Any, where: str, order: Sequence[str] = ()
) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    feats = r.mapping(raw, where)
    for f in feats:
        r.name(f, FEATURE_RE, where)
    ordered = [f for f in order if f in feats] + [f for f in feats if f not in order]
    return tuple((f, r.str_list(feats[f], f"{where}.{f}", VALUE_RE, allow_empty=True)) for f in ordered)


def _requires(r: _Reader, raw: Any, where: str) -> Tuple[str, ...]:
    reqs = r.str_list(raw, where, allow_empty=True)
    if any(not item.strip() for item in reqs):
        raise r.fail(f"{where}: entries must not be empty")
    return reqs


def _plugin_api(r: _Reader, raw: Any, where: str) -> str:
    try:
        split_object_reference(raw)
    except ValueError as exc:
        raise r.fail(f"{where}: {raw!r} is not an object reference 'module(:attr)' ({exc})") from None
    return raw


def _read_providers_020(r: _Reader, data: Mapping[str, Any], namespaces: Sequence[str]) -> Dict[str, ProviderInfo]:
    if "providers" not in data:
        raise r.fail("missing required key 'providers' (format 0.2.0)")
    raw = r.mapping(data["providers"], "'providers'")
    if set(raw) != set(namespaces):
        raise r.fail(
            "'providers' keys must equal 'default-priorities.namespace': "
            f"{sorted(raw)} != {sorted(namespaces)}"
        )
    out: Dict[str, ProviderInfo] = {}
    for ns, entry in raw.items():
        where = f"'providers.{ns}'"
        entry = r.mapping(entry, where)
        unknown = set(entry) - _PROVIDER_KEYS_020
        if unknown:
            raise r.fail(f"{where}: unknown keys {sorted(unknown)} (format 0.2.0)")
        kinds = [k for k in ("requires", "static-properties", "builtin") if k in entry]
        if len(kinds) != 1:
            raise r.fail(f"{where} must have exactly one of 'requires', 'static-properties', 'builtin'")
        optional = entry.get("optional", False)
        if not isinstance(optional, bool):
            raise r.fail(f"{where}.optional must be a boolean")
        if "plugin-api" in entry and kinds != ["requires"]:
            raise r.fail(f"{where}: 'plugin-api' is only allowed with 'requires'")
        if "feature-order" in entry and kinds != ["static-properties"]:
            raise r.fail(f"{where}: 'feature-order' is only allowed with 'static-properties'")
        kind = kinds[0]
        if kind == "requires":
            requires = _requires(r, entry["requires"], f"{where}.requires")
            if not requires:
                raise r.fail(f"{where}.requires must not be empty")
            api = _plugin_api(r, entry["plugin-api"], f"{where}.plugin-api") if "plugin-api" in entry else None
            out[ns] = ProviderInfo(ns, requires=requires, plugin_api=api, optional=optional)
        elif kind == "static-properties":
            statics = r.mapping(entry["static-properties"], f"{where}.static-properties")
            order: Tuple[str, ...] = ()
            if "feature-order" in entry:
                order = r.str_list(entry["feature-order"], f"{where}.feature-order", FEATURE_RE)
                if set(order) != set(statics):
                    raise r.fail(f"{where}.feature-order must list each static feature exactly once")
            elif len(statics) > 1:
                raise r.fail(f"{where}: 'feature-order' is required with more than one static feature")
            out[ns] = ProviderInfo(
                ns, static_properties=_static_list(r, statics, f"{where}.static-properties", order), optional=optional
            )
        else:
            builtin = entry["builtin"]
            if not isinstance(builtin, str) or not builtin:
                raise r.fail(f"{where}.builtin must be a non-empty string")
            out[ns] = ProviderInfo(ns, builtin=builtin, optional=optional)
    return out


def _read_providers_00x(
    r: _Reader,
    data: Mapping[str, Any],
    feature_prio: Mapping[str, Tuple[str, ...]],
    property_prio: Mapping[str, Mapping[str, Tuple[str, ...]]],
) -> Dict[str, ProviderInfo]:
    if "providers" not in data:
        raise r.fail("missing required key 'providers'")
    raw = r.mapping(data["providers"], "'providers'")
    top_static = r.mapping(data.get("static-properties", {}), "'static-properties'")
    out: Dict[str, ProviderInfo] = {}
    for ns, entry in raw.items():
        where = f"'providers.{ns}'"
        if ns == ABI_DEPENDENCY:
            if r.version <= (0, 0, 2):
                continue  # written before PEP 817 reserved it (wheelnext's 0.0.2 examples): the ABI provider anyway
            raise r.fail(f"{where}: the reserved namespace {ABI_DEPENDENCY!r} must not have a provider")
        r.name(ns, NAMESPACE_RE, "'providers'")
        entry = r.mapping(entry, where)
        # PEP 817: tools MUST ignore unknown keys.
        requires = _requires(r, entry.get("requires", []), f"{where}.requires")
        api = _plugin_api(r, entry["plugin-api"], f"{where}.plugin-api") if "plugin-api" in entry else None
        optional = entry.get("optional", False)
        if not isinstance(optional, bool):
            raise r.fail(f"{where}.optional must be a boolean")
        enable_if = entry.get("enable-if")
        if enable_if is not None:
            if not isinstance(enable_if, str) or not enable_if.strip():
                raise r.fail(f"{where}.enable-if must be a non-empty marker string")
            _check_marker(r, enable_if, f"{where}.enable-if")
        if r.version == (0, 0, 2):
            use = entry.get("plugin-use", "all")
            if use not in ("none", "build", "all"):
                raise r.fail(f"{where}.plugin-use must be 'none', 'build' or 'all'")
            install_time = use == "all"
        else:
            install_time = entry.get("install-time", True)
            if not isinstance(install_time, bool):
                raise r.fail(f"{where}.install-time must be a boolean")
        if install_time:
            if not requires and api is None:
                raise r.fail(f"{where}.requires must not be empty for an install-time provider")
            out[ns] = ProviderInfo(ns, requires=requires, plugin_api=api, optional=optional, enable_if=enable_if)
            continue
        if r.version == (0, 0, 2):
            # variantlib 0.0.2: only the features that default-priorities.feature lists
            feats = feature_prio.get(ns, ())
            statics = tuple((f, tuple(property_prio.get(ns, {}).get(f, ()))) for f in feats)
        else:
            if ns not in top_static:
                raise r.fail(f"'static-properties.{ns}' is required for ahead-of-time provider {ns!r}")
            statics = _static_list(r, top_static[ns], f"'static-properties.{ns}'", feature_prio.get(ns, ()))
        out[ns] = ProviderInfo(ns, static_properties=statics, optional=optional, enable_if=enable_if)
    return out


def _check_marker(r: _Reader, text: str, where: str) -> None:
    try:
        from packaging.markers import InvalidMarker, Marker
    except ImportError:  # pragma: no cover - packaging is a dependency
        return
    try:
        Marker(text)
    except InvalidMarker as exc:
        raise r.fail(f"{where}: invalid marker {text!r}: {exc}") from None


def load_metadata(content: Union[bytes, str], source: str) -> VariantMetadata:
    """Decode and read a ``variants.json`` / ``variant.json`` document."""
    if len(content) > MAX_METADATA_BYTES:
        raise InvalidVariantMetadata(
            source, f"file is {len(content)} bytes, over the {MAX_METADATA_BYTES}-byte limit"
        )
    if isinstance(content, bytes):
        # What the utf-8-sig codec does, without importing it into every pip run.
        if content[:3] == b"\xef\xbb\xbf":
            content = content[3:]
        try:
            content = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidVariantMetadata(source, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        data = json.loads(content)
    except RecursionError:
        raise InvalidVariantMetadata(source, "JSON nested too deeply") from None
    except ValueError as exc:
        raise InvalidVariantMetadata(source, f"not valid JSON: {exc}") from None
    try:
        return parse_metadata(data, source)
    except RecursionError:
        raise InvalidVariantMetadata(source, "JSON nested too deeply") from None


def find_variant_json(names: Iterable[str]) -> Optional[str]:
    """The ``*.dist-info/variant.json`` member among a wheel's names."""
    for name in names:
        parts = name.split("/")
        if len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] == "variant.json":
            return name
    return None


def load_wheel_metadata(wheel: Union[str, "zipfile.ZipFile"], label: str, source: Optional[str] = None) -> VariantMetadata:
    """Read a variant wheel's ``variant.json``; it must describe exactly ``label`` (WM-2)."""
    if not isinstance(wheel, zipfile.ZipFile):
        from ._wheel_member import read_dist_info_file

        found = read_dist_info_file(wheel, "variant.json", MAX_METADATA_BYTES)
        if found is not None:
            shown = source or str(wheel)
            name, content = found
            if content is None:
                raise InvalidVariantMetadata(shown, f"{name} is over the {MAX_METADATA_BYTES}-byte limit")
            return describing_only(load_metadata(content, f"{shown}!{name}"), label)
    zf = wheel if isinstance(wheel, zipfile.ZipFile) else zipfile.ZipFile(wheel)
    src = source or str(getattr(zf, "filename", wheel))
    try:
        member = find_variant_json(zf.namelist())
        if member is None:
            raise InvalidVariantMetadata(src, "variant wheel has no *.dist-info/variant.json")
        info = zf.getinfo(member)
        if info.file_size > MAX_METADATA_BYTES:
            raise InvalidVariantMetadata(src, f"{member} is over the {MAX_METADATA_BYTES}-byte limit")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            # zipfile inflates bzip2 and LZMA data a whole chunk at a time: a few
            # bytes may claim a small file and inflate to gigabytes
            method = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "LZMA"}.get(info.compress_type,
                                                                              f"method {info.compress_type}")
            raise InvalidVariantMetadata(src, f"{member} cannot be read ({method} data that is damaged, or in an "
                                              "archive layout not read safely): rebuild the wheel with deflate")
        try:
            with zf.open(info) as fh:
                content = fh.read(MAX_METADATA_BYTES + 1)
        except Exception as exc:  # noqa: BLE001 - zlib, CRC, encryption: each its own class
            # damaged or encrypted data in a readable archive: this wheel's metadata, not the run, fails
            raise InvalidVariantMetadata(src, f"{member} cannot be read ({type(exc).__name__}: {exc})") from None
        if len(content) > MAX_METADATA_BYTES:
            raise InvalidVariantMetadata(src, f"{member} is over the {MAX_METADATA_BYTES}-byte limit")
        md = load_metadata(content, f"{src}!{member}")
    finally:
        if zf is not wheel:
            zf.close()
    return describing_only(md, label)


def describing_only(md: VariantMetadata, label: str) -> VariantMetadata:
    """``md``, a wheel's ``variant.json``, when it describes exactly ``label`` (WM-2)."""
    labels = list(md.variants) + list(md.invalid_labels)
    if labels != [label]:
        raise InvalidVariantMetadata(
            md.source, f"must describe exactly the filename's label {label!r}, found {labels}"
        )
    return md


# ----------------------------------------------------------------------- consistency


def one_is_prefix(a: Sequence[str], b: Sequence[str]) -> bool:
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return tuple(long_[: len(short)]) == tuple(short)


def check_consistency(index: VariantMetadata, wheel: VariantMetadata, label: str) -> Optional[str]:
    """Why a wheel's ``variant.json`` disagrees with the index file, or ``None`` (IX-3, PV-5)."""
    if not one_is_prefix(index.namespaces, wheel.namespaces):
        return (
            f"namespace priorities differ: wheel {list(wheel.namespaces)} vs index {list(index.namespaces)}"
        )
    if label not in wheel.variants:
        return f"wheel metadata does not describe label {label!r}"
    if index.variants.get(label) != wheel.variants[label]:
        return f"label {label!r} has different properties in the wheel and in the index file"
    if index.providers and wheel.providers:
        # 0.2.0 cannot carry enable-if: a file written in it from 0.0.x wheels (by
        # ``pip-variants index``, to_json_dict) agrees with them without it.
        across = (index.schema >= (0, 2, 0)) != (wheel.schema >= (0, 2, 0))
        for ns in wheel.variants[label]:
            if ns in wheel.providers and ns not in index.providers:
                # (an index file that drops abi_dependency from a 0.2.0 release still
                # reads, as the drafts' form: variantlib and uv refuse it)
                return f"namespace {ns!r} has a provider in the wheel but none in the index file"
            if ns not in index.providers or ns not in wheel.providers:
                continue
            ours, theirs = index.providers[ns], wheel.providers[ns]
            if across and ours.enable_if != theirs.enable_if:
                ours, theirs = replace(ours, enable_if=None), replace(theirs, enable_if=None)
            if ours != theirs:
                return f"provider for namespace {ns!r} differs between the wheel and the index file"
    return None


def warn_long_labels(md: VariantMetadata) -> List[str]:
    """Labels over 16 characters in 0.0.x metadata (valid under PEP 825; worth a warning)."""
    if md.schema >= (0, 1, 0):
        return []
    return [l for l in md.variants if len(l) > LEGACY_LABEL_LENGTH]
