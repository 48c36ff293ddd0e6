"""Publisher tools: turn plain wheels into variant wheels (``pip-variants
make-variant``); the folder side (``index``) is :mod:`pip_variants.wheel_folder`,
re-exported here.

Pure logic over files, no argparse and no pip. Everything written is read back
with the same readers the installer uses (:func:`metadata.load_wheel_metadata`,
:func:`metadata_merge.merge_metadata`), so a publisher sees the installer's verdict
before uploading anything.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from .filename import (
    LABEL_RE,
    NULL_LABEL,
    InvalidVariantFilename,
    parse_wheel_filename,
)
from .metadata import (
    ABI_DEPENDENCY,
    InvalidVariantMetadata,
    ProviderInfo,
    VariantMetadata,
    load_wheel_metadata,
    parse_metadata,
    split_object_reference,
)
from .metadata_write import to_json_dict
from .properties import (
    InvalidVariantProperty,
    VariantProperty,
    normalize_property_set,
    validate_feature,
    validate_namespace,
    validate_value,
)
from .wheel_folder import (
    IndexReport,
    PublishError,
    Release,
    build_index,
    combine_release,
    release_siblings,
    scan_releases,
    sha256_file,
    unselectable_properties,
)
from .wheelzip import WheelSource, WheelZipError, record_hash

__all__ = [
    "DEFAULT_PROVIDERS",
    "PublishError",
    "ProviderSpec",
    "parse_provider_option",
    "parse_static_option",
    "build_variant_metadata",
    "make_variant",
    "release_siblings",
    "Release",
    "IndexReport",
    "scan_releases",
    "combine_release",
    "build_index",
    "record_hash",
    "sha256_file",
]

PathLike = Union[str, "os.PathLike[str]"]

#: ``providers`` entries written for the namespaces whose plugins are known
#: (PROVIDERS.md §2): the published plugin packages the built-ins stand in for,
#: so any installer (uv, variantlib, pip-variants) recognises them.
DEFAULT_PROVIDERS: Mapping[str, Mapping[str, object]] = {
    "nvidia": {
        "requires": ["nvidia-variant-provider>=0.0.1,<1"],
        "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
    },
    "x86_64": {"requires": ["x86-64-variant-provider>=0.2"]},
    "aarch64": {"requires": ["aarch64-variant-provider>=0.2"]},
    "tpu": {
        "requires": ["tpu-variant-provider>=0.1"],
        "plugin-api": "tpu_variant_provider.plugin:TpuVariantPlugin",
    },
    # torch 2.9's entries (the plugins are served from GitHub Pages, not PyPI).
    "amd": {
        "requires": ["amd-variant-provider>=0.0.2,<1.0.0"],
        "plugin-api": "amd_variant_provider.plugin:AMDVariantPlugin",
    },
    "intel": {
        "requires": ["intel-variant-provider>=0.0.2,<1.0.0"],
        "plugin-api": "intel_variant_provider.plugin:IntelVariantPlugin",
    },
}

#: a trailing ``;plugin-api=...``; the value may hold blanks (``mod : Obj``),
#: so everything up to the end is taken and judged by ``split_object_reference``
_PLUGIN_API_SUFFIX_RE = re.compile(r"\s*;\s*plugin-api\s*=(?P<api>[^;]*)$")


# ----------------------------------------------------------------------- options


@dataclass(frozen=True)
class ProviderSpec:
    """What ``--provider`` / ``--static`` said about one namespace."""

    namespace: str
    requires: Tuple[str, ...] = ()
    plugin_api: Optional[str] = None
    #: ``None``: a plugin; ``()`` with ``static=True``: static, values taken from the wheel
    static: Optional[Tuple[Tuple[str, Tuple[str, ...]], ...]] = None


def _plugin_api_option(text: str, api: str) -> str:
    """``api`` checked by the rule index reading and the plugin runner apply,
    written without blanks (``mod : Obj`` -> ``mod:Obj``): the form every
    reader of the metadata takes, variantlib's included."""
    try:
        module, attr = split_object_reference(api)
    except ValueError as exc:
        raise PublishError(
            f"invalid --provider {text!r}: plugin-api {api!r} is not 'module' or 'module:Object' ({exc})"
        ) from None
    return module if attr is None else f"{module}:{attr}"


def parse_provider_option(text: str) -> Tuple[str, str, Optional[str]]:
    """``NS=REQUIREMENT[;plugin-api=MODULE:OBJ]`` -> ``(ns, requirement, api)``.

    The requirement may carry its own ``; marker``; only a trailing
    ``;plugin-api=...`` is taken off.
    """
    ns, sep, rest = text.partition("=")
    ns = ns.strip()
    if not sep or not ns or not rest.strip():
        raise PublishError(
            f"invalid --provider {text!r}: expected NS=REQUIREMENT[;plugin-api=MODULE:OBJECT], "
            "e.g. acme=acme-variant-provider>=1.0;plugin-api=acme_provider:Plugin"
        )
    try:
        validate_namespace(ns)
    except InvalidVariantProperty as exc:
        raise PublishError(f"invalid --provider {text!r}: {exc}") from None
    api: Optional[str] = None
    m = _PLUGIN_API_SUFFIX_RE.search(rest)
    if m:
        api = _plugin_api_option(text, m.group("api").strip())
        rest = rest[: m.start()]
    requirement = rest.strip()
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        Requirement(requirement)
    except InvalidRequirement as exc:
        raise PublishError(f"invalid --provider {text!r}: {requirement!r} is not a requirement ({exc})") from None
    return ns, requirement, api


def parse_static_option(text: str) -> Tuple[str, Optional[Tuple[str, Tuple[str, ...]]]]:
    """``NS`` or ``NS :: FEATURE :: V1,V2`` -> ``(ns, None | (feature, values))``."""
    if "::" not in text:
        try:
            return validate_namespace(text.strip()), None
        except InvalidVariantProperty as exc:
            raise PublishError(f"invalid --static {text!r}: {exc}") from None
    parts = [p.strip() for p in text.split("::")]
    if len(parts) != 3 or not all(parts):
        raise PublishError(
            f"invalid --static {text!r}: expected NS or 'NS :: FEATURE :: VALUE1,VALUE2' (best first)"
        )
    try:
        ns = validate_namespace(parts[0])
        feature = validate_feature(parts[1])
        values = tuple(dict.fromkeys(validate_value(v.strip()) for v in parts[2].split(",")))
    except InvalidVariantProperty as exc:
        raise PublishError(f"invalid --static {text!r}: {exc}") from None
    return ns, (feature, values)


def _collect_specs(
    providers: Iterable[str], statics: Iterable[str]
) -> Dict[str, ProviderSpec]:
    reqs: Dict[str, List[str]] = {}
    apis: Dict[str, Optional[str]] = {}
    static: Dict[str, List[Tuple[str, Tuple[str, ...]]]] = {}
    order: List[str] = []
    for text in providers:
        ns, req, api = parse_provider_option(text)
        reqs.setdefault(ns, []).append(req)
        if api is not None:
            if apis.get(ns) not in (None, api):
                raise PublishError(f"--provider gives two plugin-api values for namespace {ns!r}")
            apis[ns] = api
        else:
            apis.setdefault(ns, None)
        order.append(ns)
    for text in statics:
        ns, feature = parse_static_option(text)
        entries = static.setdefault(ns, [])
        if feature is not None:
            if any(f == feature[0] for f, _ in entries):
                raise PublishError(f"--static gives feature {ns} :: {feature[0]} twice")
            entries.append(feature)
        order.append(ns)
    both = set(reqs) & set(static)
    if both:
        raise PublishError(
            f"namespace {sorted(both)[0]!r} has both --provider and --static: a provider entry is one or the other"
        )
    out: Dict[str, ProviderSpec] = {}
    for ns in dict.fromkeys(order):
        if ns in reqs:
            out[ns] = ProviderSpec(ns, tuple(reqs[ns]), apis.get(ns))
        else:
            out[ns] = ProviderSpec(ns, static=tuple(static[ns]))
    return out


# ------------------------------------------------------------------- make-variant


def _default_provider(ns: str) -> Optional[ProviderInfo]:
    entry = DEFAULT_PROVIDERS.get(ns)
    if entry is None:
        return None
    return ProviderInfo(ns, requires=tuple(entry["requires"]), plugin_api=entry.get("plugin-api"))  # type: ignore[arg-type]


def _check_abi_values(props: Sequence[VariantProperty]) -> None:
    """``abi_dependency :: NAME :: V``: V is a release prefix of 1-3 numbers (PROVIDERS.md §2.7)."""
    from .abi import parse_value

    for p in props:
        if p.namespace == ABI_DEPENDENCY and parse_value(p.value) is None:
            raise PublishError(
                f"abi_dependency :: {p.feature} :: {p.value}: the value must be a release prefix with 1 to 3 "
                f"numbers, matched like =={p.value.split('.')[0] or 'V'}.* (e.g. 2, 2.9 or 2.9.1)"
            )


def build_variant_metadata(
    label: str,
    properties: Sequence[str],
    *,
    namespaces: Optional[Sequence[str]] = None,
    providers: Sequence[str] = (),
    statics: Sequence[str] = (),
    optional: Sequence[str] = (),
    source: str = "<make-variant>",
    release: Optional[VariantMetadata] = None,
) -> VariantMetadata:
    """The ``variant.json`` model of one wheel (validated by a round trip).

    ``release``: the merged metadata of the release's other variant wheels;
    its namespaces stand in for a missing ``namespaces`` and its provider
    entries for namespaces no ``--provider``/``--static`` option names.
    """
    if not LABEL_RE.match(label):
        raise PublishError(f"invalid label {label!r}: use lowercase letters, digits, '_' and '.' (e.g. cu128)")
    try:
        props = [VariantProperty.parse(p) for p in properties]
    except InvalidVariantProperty as exc:
        raise PublishError(f"{exc}; write properties as -p 'namespace :: feature :: value'") from None
    if label == NULL_LABEL and props:
        raise PublishError("the null variant has no properties: drop the -p options (or choose another label)")
    if label != NULL_LABEL and not props:
        raise PublishError(
            f"variant {label!r} needs at least one -p 'namespace :: feature :: value' "
            "(use --null for the variant without properties)"
        )
    specs = _collect_specs(providers, statics)
    used = list(dict.fromkeys(p.namespace for p in props if p.namespace != ABI_DEPENDENCY))
    if namespaces:
        try:
            ns_order = [validate_namespace(ns) for ns in dict.fromkeys(namespaces)]
        except InvalidVariantProperty as exc:
            raise PublishError(f"--namespaces: {exc}") from None
        missing = [ns for ns in used if ns not in ns_order]
        if missing:
            raise PublishError(
                f"--namespaces {','.join(ns_order)} leaves out {', '.join(missing)}, used by the -p properties"
            )
    elif release is not None and release.namespaces:
        # The siblings list abi_dependency (last, built in) when they carry ABI
        # properties: it goes with those properties, not into this list.
        ns_order = [ns for ns in release.namespaces if ns != ABI_DEPENDENCY] or list(release.namespaces)
        ns_order += [ns for ns in used + list(specs) if ns not in ns_order]
    else:
        ns_order = used + [ns for ns in specs if ns not in used]
    if ABI_DEPENDENCY in ns_order and not (
        ns_order == [ABI_DEPENDENCY] and all(p.namespace == ABI_DEPENDENCY for p in props)
    ):
        # Listed alone it is the ABI-only form below (a null variant of such a
        # release takes it from its siblings); beside other namespaces it is not.
        raise PublishError(
            "abi_dependency is reserved: its properties need no entry in the namespace list; "
            "leave it out of --namespaces"
        )
    _check_abi_values(props)
    abi_only = not ns_order and any(p.namespace == ABI_DEPENDENCY for p in props)
    if abi_only:
        # Nothing else to list, and a namespace list may not be empty: declare
        # the literal namespace as the built-in provider (Providers PEP form).
        ns_order = [ABI_DEPENDENCY]
    if not ns_order:
        raise PublishError(
            "no namespace to list: give the release's namespaces in priority order, "
            "e.g. --namespaces nvidia,x86_64 (every wheel of a release should carry the same list); "
            "a null variant made into a folder that already holds the release's other variant "
            "wheels takes theirs"
        )
    grouped = normalize_property_set(props)
    infos: Dict[str, ProviderInfo] = {}
    for ns in ns_order:
        spec = specs.get(ns)
        if ns == ABI_DEPENDENCY:
            infos[ns] = ProviderInfo(ns, builtin=ABI_DEPENDENCY)
        elif spec is None and release is not None and ns in release.providers:
            infos[ns] = release.providers[ns]
        elif spec is None:
            info = _default_provider(ns)
            if info is None:
                raise PublishError(
                    f"no known provider for namespace {ns!r}: pass --provider {ns}=REQUIREMENT "
                    f"[;plugin-api=MODULE:OBJECT] or --static {ns}"
                )
            infos[ns] = info
        elif spec.static is not None:
            features = spec.static
            if not features:
                # --static NS alone: the wheel's own values, in the order given.
                declared = [p for p in props if p.namespace == ns]
                if not declared:
                    raise PublishError(
                        f"--static {ns} without values needs -p properties in {ns!r}; "
                        f"otherwise give them: --static '{ns} :: FEATURE :: VALUE1,VALUE2'"
                    )
                by_feature: Dict[str, List[str]] = {}
                for p in declared:
                    by_feature.setdefault(p.feature, []).append(p.value)
                features = tuple((f, tuple(dict.fromkeys(v))) for f, v in by_feature.items())
            infos[ns] = ProviderInfo(ns, static_properties=tuple(features))
        else:
            infos[ns] = ProviderInfo(ns, requires=spec.requires, plugin_api=spec.plugin_api)
    for ns in specs:
        if ns not in ns_order:
            raise PublishError(f"--provider/--static names {ns!r}, which is not in --namespaces")
    for ns in dict.fromkeys(optional):
        if ns not in infos or ns == ABI_DEPENDENCY:
            raise PublishError(f"--optional names {ns!r}, which is not a namespace with a provider here "
                               f"({', '.join(n for n in ns_order if n != ABI_DEPENDENCY) or 'none'})")
        infos[ns] = dataclasses.replace(infos[ns], optional=True)
    md = VariantMetadata(
        source=source,
        schema=(0, 2, 0),
        namespaces=tuple(ns_order),
        variants={label: grouped},
        providers=infos,
    )
    # Round trip through the reader: what we write must be what installers read.
    try:
        return parse_metadata(to_json_dict(md), source)
    except InvalidVariantMetadata as exc:
        raise PublishError(f"the variant metadata would be invalid: {exc.message}") from None


def _dist_info_dir(names: Sequence[str], wheel: str, name: str, version: str) -> str:
    candidates = sorted({n.split("/", 1)[0] for n in names if "/" in n and n.split("/", 1)[0].endswith(".dist-info")})
    expected = f"{name}-{version}.dist-info"
    if expected not in candidates:
        found = next((cand for cand in candidates if f"{cand}/WHEEL" in names), None)
        if found is None:
            raise PublishError(f"{wheel}: no *.dist-info directory with a WHEEL file; is it a wheel?")
        expected = found
    if f"{expected}/METADATA" not in names:
        # installers refuse such a wheel: say so now, not after it is published
        raise PublishError(f"{wheel}: {expected} has no METADATA file; is it a wheel?")
    return expected


def add_requires_dist(metadata: bytes, requires: Sequence[str], source: str = "METADATA") -> bytes:
    """``METADATA`` with one ``Requires-Dist`` header per entry of ``requires``
    (each checked; variant markers allowed, WHEEL-VARIANTS §8), placed after
    the existing ones, or at the end of the headers."""
    from .variant_markers import InvalidVariantRequirement, check_requirement

    lines = []
    for req in requires:
        try:
            lines.append(f"Requires-Dist: {check_requirement(req)}")
        except InvalidVariantRequirement as exc:
            raise PublishError(f"--requires: {exc}") from None
    if not lines:
        return metadata
    try:
        text = metadata.decode("utf-8")
    except UnicodeDecodeError:
        raise PublishError(f"{source}: not UTF-8 text") from None
    newline = "\r\n" if "\r\n" in text else "\n"
    head, sep, body = text.partition(newline + newline)
    if not sep:  # headers only: keep the file's final newline after the new lines
        head, sep, body = head.rstrip("\r\n"), newline, ""
    rows = head.split(newline)
    last = max((i for i, row in enumerate(rows) if row.lower().startswith("requires-dist:")), default=len(rows) - 1)
    # Skip the continuation lines of a folded header.
    while last + 1 < len(rows) and rows[last + 1][:1] in (" ", "\t"):
        last += 1
    rows[last + 1:last + 1] = lines
    return (newline.join(rows) + sep + body).encode("utf-8")


def make_variant(
    wheel: PathLike,
    out_dir: PathLike,
    *,
    label: Optional[str],
    properties: Sequence[str] = (),
    null: bool = False,
    namespaces: Optional[Sequence[str]] = None,
    providers: Sequence[str] = (),
    statics: Sequence[str] = (),
    optional: Sequence[str] = (),
    notes: Optional[List[str]] = None,
    requires: Sequence[str] = (),
    warnings: Optional[List[str]] = None,
) -> Path:
    """Copy the plain wheel ``wheel`` into ``out_dir`` as a variant wheel.

    ``requires`` adds ``Requires-Dist`` entries to ``METADATA``, typically
    with variant markers (``cuda-lib ; variant_label == "cu128"``).

    Adds ``{dist-info}/variant.json`` (format 0.2.0), names the file
    ``...-{label}.whl`` and rewrites ``RECORD`` (every file hashed with
    sha256, ``RECORD`` itself unhashed). Returns the new wheel's path.

    A variant without properties (``null``) and without ``namespaces`` takes
    the namespaces (and provider entries) of the release's variant wheels
    already in ``out_dir``; a sentence saying so is appended to ``notes``.

    A property outside its namespace's static list is an error (no machine
    could select the wheel); one the built-in provider of its namespace never
    reports adds a sentence to ``warnings`` (most likely a typo).
    """
    src = Path(wheel)
    if null:
        if label not in (None, NULL_LABEL):
            raise PublishError(f"--null makes the 'null' variant; --label {label} contradicts it")
        label = NULL_LABEL
    if not label:
        raise PublishError("give the variant a --label (e.g. --label cu128), or --null for the null variant")
    try:
        parsed = parse_wheel_filename(src.name)
    except InvalidVariantFilename as exc:
        raise PublishError(f"{src}: {exc}") from None
    if parsed.is_variant:
        raise PublishError(f"{src.name} already has the variant label {parsed.label!r}: start from the plain wheel")
    if parsed.python_tag[:1].isdigit():
        raise PublishError(f"{src.name}: a Python tag starting with a digit cannot carry a variant label (PEP 825)")
    release: Optional[VariantMetadata] = None
    if not namespaces and not properties:
        siblings = release_siblings(out_dir, parsed.name, parsed.version)
        if siblings is not None:
            release, paths = siblings
            # named as build_variant_metadata takes them (abi_dependency left out where others are)
            taken = [ns for ns in release.namespaces if ns != ABI_DEPENDENCY] or list(release.namespaces)
            if notes is not None and taken:
                notes.append(
                    f"namespaces {', '.join(taken)} taken from the release's variant wheels "
                    f"in {out_dir}: {', '.join(p.name for p in paths)} (give --namespaces to choose)"
                )
    md = build_variant_metadata(label, properties, namespaces=namespaces, providers=providers,
                                statics=statics, optional=optional, source=f"{src.name} -> {label}",
                                release=release)
    for _, kind, sentence in unselectable_properties(md):
        if kind == "static":
            raise PublishError(f"{sentence}: no machine could select this wheel; add the value to the list "
                               f"(--static) or correct the property")
        if warnings is not None:
            warnings.append(f"{sentence}: no machine selects that property; is it a typo?")
    payload = (json.dumps(to_json_dict(md), indent=2) + "\n").encode("utf-8")

    try:
        source = WheelSource(src)
    except WheelZipError as exc:
        raise PublishError(str(exc)) from None
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    dest = out / (src.name[:-4] + f"-{label}.whl")
    with source:
        dist_info = _dist_info_dir(source.names, str(src), parsed.name, parsed.version)
        # The member-transform hook: members to replace (or add) by name -> new
        # bytes (source.read(name) gives the old ones, e.g. METADATA). Every
        # other member is copied without recompression; RECORD is rewritten.
        members: Dict[str, bytes] = {f"{dist_info}/variant.json": payload}
        if requires:
            metadata_name = f"{dist_info}/METADATA"
            try:
                metadata = source.read(metadata_name)
            except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError) as exc:
                raise PublishError(f"{src}: cannot read {metadata_name}: {exc}") from None
            members[metadata_name] = add_requires_dist(metadata, requires, f"{src.name}: {metadata_name}")
        # A signature of the old RECORD cannot stay valid for the new one.
        signatures = [n for n in (f"{dist_info}/RECORD.jws", f"{dist_info}/RECORD.p7s") if n in source.names]
        try:
            source.rewrite(dest, record_name=f"{dist_info}/RECORD", replace=members,
                           date_time=_date_time_of(source.infos), drop=signatures)
        except WheelZipError as exc:
            raise PublishError(str(exc)) from None
        if signatures and warnings is not None:
            warnings.append(f"{src.name}: {' and '.join(n.rsplit('/', 1)[1] for n in signatures)} left out: "
                            "it signs the wheel's RECORD, which the variant wheel rewrites; sign the "
                            "variant wheel again if you publish signatures")
    try:
        load_wheel_metadata(str(dest), label)
    except InvalidVariantMetadata as exc:  # pragma: no cover - the round trip above makes this unlikely
        raise PublishError(f"{dest}: written, but installers could not read it: {exc}") from None
    return dest


def _date_time_of(infos: Sequence[zipfile.ZipInfo]) -> Tuple[int, int, int, int, int, int]:
    # Reuse the wheel's own timestamp so that rebuilding is reproducible.
    for info in infos:
        if info.date_time[0] >= 1980:
            return info.date_time
    return (1980, 1, 1, 0, 0, 0)
