"""Publisher tools: turn plain wheels into variant wheels, and a folder of
wheels into a static index (``pip-variants make-variant`` / ``index``).

Pure logic over files, no argparse and no pip. Everything written is read back
with the same readers the installer uses (:func:`metadata.load_wheel_metadata`,
:func:`metadata.merge_metadata`), so a publisher sees the installer's verdict
before uploading anything.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union
from urllib.parse import quote

from .filename import (
    LABEL_RE,
    NULL_LABEL,
    InvalidVariantFilename,
    parse_variants_json_filename,
    parse_wheel_filename,
    variants_json_filename,
)
from .metadata import (
    ABI_DEPENDENCY,
    InvalidVariantMetadata,
    ProviderInfo,
    VariantMetadata,
    check_consistency,
    load_metadata,
    load_wheel_metadata,
    merge_metadata,
    parse_metadata,
    to_json_dict,
)
from .properties import (
    InvalidVariantProperty,
    VariantProperty,
    normalize_property_set,
    validate_feature,
    validate_namespace,
    validate_value,
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

_PLUGIN_API_SUFFIX_RE = re.compile(r"\s*;\s*plugin-api\s*=\s*(?P<api>[^;\s]+)\s*$")
_PLUGIN_API_RE = re.compile(r"^[A-Za-z0-9_.]+(:[A-Za-z0-9_.]+)?$")
_SDIST_RE = re.compile(r"^(?P<name>.+)-(?P<version>[^-]+)\.(?:tar\.gz|zip)$")


class PublishError(Exception):
    """A publishing step failed; the message names the file and what to do."""


# ----------------------------------------------------------------------- options


@dataclass(frozen=True)
class ProviderSpec:
    """What ``--provider`` / ``--static`` said about one namespace."""

    namespace: str
    requires: Tuple[str, ...] = ()
    plugin_api: Optional[str] = None
    #: ``None``: a plugin; ``()`` with ``static=True``: static, values taken from the wheel
    static: Optional[Tuple[Tuple[str, Tuple[str, ...]], ...]] = None


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
        api = m.group("api")
        rest = rest[: m.start()]
        if not _PLUGIN_API_RE.match(api):
            raise PublishError(f"invalid --provider {text!r}: plugin-api {api!r} is not 'module' or 'module:Object'")
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
        ns_order = [validate_namespace(ns) for ns in dict.fromkeys(namespaces)]
        missing = [ns for ns in used if ns not in ns_order]
        if missing:
            raise PublishError(
                f"--namespaces {','.join(ns_order)} leaves out {', '.join(missing)}, used by the -p properties"
            )
    elif release is not None and release.namespaces:
        ns_order = list(release.namespaces)
        ns_order += [ns for ns in used + list(specs) if ns not in ns_order]
    else:
        ns_order = used + [ns for ns in specs if ns not in used]
    if ABI_DEPENDENCY in ns_order:
        raise PublishError("abi_dependency is reserved: it is used in properties but never listed in --namespaces")
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
    if expected in candidates:
        return expected
    for cand in candidates:
        if f"{cand}/WHEEL" in names:
            return cand
    raise PublishError(f"{wheel}: no *.dist-info directory with a WHEEL file; is it a wheel?")


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
    notes: Optional[List[str]] = None,
    requires: Sequence[str] = (),
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
            if notes is not None and release.namespaces:
                notes.append(
                    f"namespaces {', '.join(release.namespaces)} taken from the release's variant wheels "
                    f"in {out_dir}: {', '.join(p.name for p in paths)} (give --namespaces to choose)"
                )
    md = build_variant_metadata(label, properties, namespaces=namespaces, providers=providers,
                                statics=statics, source=f"{src.name} -> {label}", release=release)
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
            members[metadata_name] = add_requires_dist(
                source.read(metadata_name), requires, f"{src.name}: {metadata_name}")
        try:
            source.rewrite(dest, record_name=f"{dist_info}/RECORD", replace=members,
                           date_time=_date_time_of(source.infos))
        except WheelZipError as exc:
            raise PublishError(str(exc)) from None
    try:
        load_wheel_metadata(str(dest), label)
    except InvalidVariantMetadata as exc:  # pragma: no cover - the round trip above makes this unlikely
        raise PublishError(f"{dest}: written, but installers could not read it: {exc}") from None
    return dest


def release_siblings(
    directory: PathLike, name: str, version: str
) -> Optional[Tuple[VariantMetadata, List[Path]]]:
    """The merged metadata of release ``name`` ``version``'s variant wheels in
    ``directory`` and their paths; ``None`` when there are none."""
    root = Path(directory)
    if not root.is_dir():
        return None
    releases, _, _ = scan_releases(root)
    rel = releases.get((_canonical(name), _norm_version(version)))
    if rel is None or not rel.variant_wheels:
        return None
    return combine_release(rel), sorted(rel.variant_wheels)


def _date_time_of(infos: Sequence[zipfile.ZipInfo]) -> Tuple[int, int, int, int, int, int]:
    # Reuse the wheel's own timestamp so that rebuilding is reproducible.
    for info in infos:
        if info.date_time[0] >= 1980:
            return info.date_time
    return (1980, 1, 1, 0, 0, 0)


# --------------------------------------------------------------------------- index


def sha256_file(path: PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _canonical(name: str) -> str:
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


def _norm_version(version: str) -> str:
    from packaging.version import InvalidVersion, Version

    try:
        return str(Version(version))
    except InvalidVersion:
        return version


@dataclass
class Release:
    """One (project, version) of a folder."""

    project: str  # canonical name
    dist: str  # the name as escaped in the wheel filenames
    version: str
    wheels: List[Path] = field(default_factory=list)
    variant_wheels: Dict[Path, str] = field(default_factory=dict)  # path -> label
    index_file: Optional[Path] = None

    @property
    def variants_json_name(self) -> str:
        return variants_json_filename(self.dist, self.version)


@dataclass
class IndexReport:
    releases: List[Release] = field(default_factory=list)
    written: List[Path] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def scan_releases(directory: PathLike) -> Tuple[Dict[Tuple[str, str], Release], List[str], Dict[str, List[Path]]]:
    """Group the wheels of ``directory`` by (project, version).

    Returns the releases, files skipped (with why), and the other files
    (sdists) by project, for the index pages.
    """
    root = Path(directory)
    if not root.is_dir():
        raise PublishError(f"{root} is not a directory of wheels")
    releases: Dict[Tuple[str, str], Release] = {}
    skipped: List[str] = []
    others: Dict[str, List[Path]] = {}
    index_files: List[Path] = []
    for path in sorted(root.iterdir()):
        if not path.is_file():
            continue
        name = path.name
        if name.endswith(".whl"):
            try:
                parsed = parse_wheel_filename(name)
            except InvalidVariantFilename as exc:
                skipped.append(f"{name}: {exc}")
                continue
            key = (_canonical(parsed.name), _norm_version(parsed.version))
            rel = releases.setdefault(key, Release(key[0], parsed.name, key[1]))
            rel.wheels.append(path)
            if parsed.label is not None:
                rel.variant_wheels[path] = parsed.label
        elif name.endswith("-variants.json"):
            index_files.append(path)
        else:
            m = _SDIST_RE.match(name)
            if m:
                others.setdefault(_canonical(m.group("name")), []).append(path)
    for path in index_files:
        parsed_json = parse_variants_json_filename(path.name)
        if parsed_json is None:
            skipped.append(f"{path.name}: not a {{name}}-{{version}}-variants.json name")
            continue
        key = (_canonical(parsed_json[0]), _norm_version(parsed_json[1]))
        if key in releases:
            releases[key].index_file = path
        else:
            skipped.append(f"{path.name}: no wheel of {key[0]} {key[1]} in {root}")
    return releases, skipped, others


def combine_release(release: Release) -> VariantMetadata:
    """Read every variant wheel of ``release`` and merge their metadata.

    Disagreements name both wheels: two wheels giving one label different
    properties, namespace lists where neither starts the other, or different
    provider entries for one namespace.
    """
    parts: List[Tuple[Path, VariantMetadata]] = []
    for path, label in sorted(release.variant_wheels.items()):
        try:
            parts.append((path, load_wheel_metadata(str(path), label, source=path.name)))
        except InvalidVariantMetadata as exc:
            raise PublishError(f"{exc}; fix or rebuild this wheel with pip-variants make-variant") from None
        except (OSError, zipfile.BadZipFile) as exc:
            raise PublishError(f"{path}: cannot be read as a wheel ({exc})") from None
    seen_label: Dict[str, Tuple[Path, Mapping]] = {}
    longest: Optional[Tuple[Path, Tuple[str, ...]]] = None
    seen_provider: Dict[str, Tuple[Path, ProviderInfo]] = {}
    for path, md in parts:
        for label, props in md.variants.items():
            if label in seen_label and seen_label[label][1] != props:
                raise PublishError(
                    f"{seen_label[label][0].name} and {path.name} give label {label!r} different properties; "
                    "every wheel of one label must carry the same properties"
                )
            seen_label.setdefault(label, (path, props))
        if longest is not None:
            a, b = longest[1], md.namespaces
            short, long_ = (a, b) if len(a) <= len(b) else (b, a)
            if tuple(long_[: len(short)]) != tuple(short):
                raise PublishError(
                    f"{longest[0].name} lists namespaces {list(a)} but {path.name} lists {list(b)}; "
                    "give every wheel of the release the same --namespaces (priority order)"
                )
        if longest is None or len(md.namespaces) > len(longest[1]):
            longest = (path, md.namespaces)
        for ns, info in md.providers.items():
            if ns in seen_provider and seen_provider[ns][1] != info:
                raise PublishError(
                    f"{seen_provider[ns][0].name} and {path.name} describe the provider of namespace {ns!r} "
                    "differently; every wheel must carry the same providers entry"
                )
            seen_provider.setdefault(ns, (path, info))
    try:
        return merge_metadata([md for _, md in parts], release.variants_json_name)
    except InvalidVariantMetadata as exc:
        raise PublishError(f"{release.project} {release.version}: {exc}") from None


def _check_existing(release: Release, combined: VariantMetadata) -> List[str]:
    problems: List[str] = []
    if release.index_file is None:
        return [f"{release.variants_json_name} is missing: run 'pip-variants index {release.wheels[0].parent}'"]
    try:
        index_md = load_metadata(release.index_file.read_bytes(), release.index_file.name)
    except (OSError, InvalidVariantMetadata) as exc:
        return [f"{release.index_file.name}: {exc}"]
    for path, label in sorted(release.variant_wheels.items()):
        wheel_md = load_wheel_metadata(str(path), label, source=path.name)
        why = check_consistency(index_md, wheel_md, label)
        if why is not None:
            problems.append(f"{release.index_file.name} vs {path.name}: {why}")
    missing = sorted(set(combined.variants) - set(index_md.variants))
    if missing:
        problems.append(f"{release.index_file.name} does not list labels {', '.join(missing)}")
    return problems


def _link(href: str, text: str, sha256: str) -> str:
    return f'    <a href="{html.escape(quote(href), quote=True)}#sha256={sha256}">{html.escape(text)}</a><br/>'


def _page(title: str, links: Sequence[str]) -> str:
    return (
        "<!DOCTYPE html>\n<html>\n  <head>\n    <meta name=\"pypi:repository-version\" content=\"1.0\">\n"
        f"    <title>{html.escape(title)}</title>\n  </head>\n  <body>\n"
        f"    <h1>{html.escape(title)}</h1>\n" + "\n".join(links) + ("\n" if links else "") + "  </body>\n</html>\n"
    )


def _write(path: Path, text: str, written: List[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    written.append(path)


def build_index(directory: PathLike, *, check: bool = False) -> IndexReport:
    """Write ``{name}-{version}-variants.json`` for every release with variant
    wheels, and PEP 503 pages under ``DIR/simple/``.

    With ``check`` nothing is written: the wheels are checked against each
    other and against the existing variants.json files, and every problem is
    reported. Without it, any disagreement between wheels raises
    :class:`PublishError` before a file is written.
    """
    root = Path(directory)
    releases, skipped, others = scan_releases(root)
    report = IndexReport(releases=sorted(releases.values(), key=lambda r: (r.project, r.version)), skipped=skipped)
    combined: Dict[Tuple[str, str], VariantMetadata] = {}
    for rel in report.releases:
        if not rel.variant_wheels:
            continue
        try:
            combined[(rel.project, rel.version)] = combine_release(rel)
        except PublishError as exc:
            if not check:
                raise
            report.problems.append(str(exc))
    if check:
        for rel in report.releases:
            md = combined.get((rel.project, rel.version))
            if md is not None:
                report.problems.extend(_check_existing(rel, md))
        return report

    payloads: Dict[Path, str] = {}
    for rel in report.releases:
        md = combined.get((rel.project, rel.version))
        if md is None:
            continue
        try:
            payloads[root / rel.variants_json_name] = json.dumps(to_json_dict(md), indent=2) + "\n"
        except InvalidVariantMetadata as exc:
            raise PublishError(
                f"{rel.project} {rel.version}: {exc.message}; the wheels carry metadata without a providers "
                "table (format 0.1.x): rebuild them with pip-variants make-variant"
            ) from None
    for path, text in payloads.items():
        _write(path, text, report.written)
        for rel in report.releases:
            if root / rel.variants_json_name == path:
                rel.index_file = path

    projects: Dict[str, List[Path]] = {}
    for rel in report.releases:
        files = projects.setdefault(rel.project, [])
        files.extend(rel.wheels)
        if rel.index_file is not None:
            files.append(rel.index_file)
    for project, files in others.items():
        projects.setdefault(project, []).extend(files)
    simple = root / "simple"
    for project, files in sorted(projects.items()):
        links = [_link(f"../../{p.name}", p.name, sha256_file(p)) for p in sorted(files, key=lambda p: p.name)]
        _write(simple / project / "index.html", _page(f"Links for {project}", links), report.written)
    root_links = [f'    <a href="{quote(p)}/">{html.escape(p)}</a><br/>' for p in sorted(projects)]
    _write(simple / "index.html", _page("Simple index", root_links), report.written)
    return report
