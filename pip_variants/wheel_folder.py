"""A folder of wheels as a release set and a static index (``pip-variants index``).

Groups a folder's wheels by (project, version), combines each release's
variant wheels into one ``{name}-{version}-variants.json`` with the installer's
own readers, and writes PEP 503 pages. Pure logic over files, no argparse and
no pip; :mod:`pip_variants.publish` builds on it (``make-variant --null`` reads
the release's other wheels with :func:`release_siblings`).
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
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple, Union
from urllib.parse import quote

from ._atomic import write_new
from .filename import (
    InvalidVariantFilename,
    canonicalize_name,
    is_project_name,
    parse_variants_json_filename,
    parse_wheel_filename,
    variants_json_filename,
)
from .metadata import (
    InvalidVariantMetadata,
    ProviderInfo,
    VariantMetadata,
    check_consistency,
    load_metadata,
    load_wheel_metadata,
)
from .metadata_merge import merge_metadata
from .metadata_write import to_json_dict
from .properties import VariantProperty, iter_properties

__all__ = [
    "PublishError",
    "Release",
    "IndexReport",
    "scan_releases",
    "combine_release",
    "release_siblings",
    "build_index",
    "sha256_file",
    "unselectable_properties",
]

PathLike = Union[str, "os.PathLike[str]"]

#: a wheel file name's project name and version (the binary distribution format, PEP 440)
_WHEEL_NAME_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._]*[A-Za-z0-9])?$")
_WHEEL_VERSION_RE = re.compile(r"^[A-Za-z0-9.!+_]+$")
_SDIST_RE = re.compile(r"^(?P<name>.+)-(?P<version>[^-]+)\.(?:tar\.gz|zip)$")


class PublishError(Exception):
    """A publishing step failed; the message names the file and what to do."""


def sha256_file(path: PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _norm_version(version: str) -> str:
    from packaging.version import InvalidVersion, Version

    try:
        return str(Version(version))
    except InvalidVersion:
        return version


def _release_key(version: str) -> str:
    """The version a release is found by: versions that compare equal share it
    (``1.0`` and ``1.0.0``, as installers match an index file to its wheels)."""
    from packaging.version import InvalidVersion, Version

    try:
        parsed = Version(version)
    except InvalidVersion:
        return version
    release = list(parsed.release)
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    return repr((parsed.epoch, tuple(release), parsed.pre, parsed.post, parsed.dev, parsed.local))


@dataclass
class Release:
    """One (project, version) of a folder."""

    project: str  # canonical name
    dist: str  # the name as escaped in the wheel filenames
    version: str
    wheels: List[Path] = field(default_factory=list)
    variant_wheels: Dict[Path, str] = field(default_factory=dict)  # path -> label
    index_file: Optional[Path] = None
    #: more files of this release's name and version (``pkg-1.0.0-variants.json`` beside
    #: ``pkg-1.0-variants.json``): which one an installer reads depends on the listing
    other_index_files: List[Path] = field(default_factory=list)

    @property
    def variants_json_name(self) -> str:
        return variants_json_filename(self.dist, self.version)


@dataclass
class IndexReport:
    releases: List[Release] = field(default_factory=list)
    written: List[Path] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)
    #: not errors: e.g. labels that describe the same properties
    warnings: List[str] = field(default_factory=list)

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
            if not _WHEEL_NAME_RE.match(parsed.name) or not _WHEEL_VERSION_RE.match(parsed.version):
                # pip refuses it too; the name would become file and folder names here
                skipped.append(f"{name}: not a valid project name and version in a wheel file name")
                continue
            key = (canonicalize_name(parsed.name), _release_key(parsed.version))
            rel = releases.setdefault(key, Release(key[0], parsed.name, _norm_version(parsed.version)))
            rel.wheels.append(path)
            if parsed.label is not None:
                rel.variant_wheels[path] = parsed.label
        elif name.endswith("-variants.json"):
            index_files.append(path)
        else:
            m = _SDIST_RE.match(name)
            # is_project_name, not the wheel pattern: older sdists keep the dashes
            if m and is_project_name(m.group("name")) and _WHEEL_VERSION_RE.match(m.group("version")):
                others.setdefault(canonicalize_name(m.group("name")), []).append(path)
            elif m:
                skipped.append(f"{name}: not a valid project name and version in an sdist file name")
    for path in index_files:
        parsed_json = parse_variants_json_filename(path.name)
        if parsed_json is None:
            skipped.append(f"{path.name}: not a {{name}}-{{version}}-variants.json name")
            continue
        key = (canonicalize_name(parsed_json[0]), _release_key(parsed_json[1]))
        if key in releases:
            rel = releases[key]
            if rel.index_file is None:
                rel.index_file = path
            else:
                rel.other_index_files.append(path)
        else:
            skipped.append(f"{path.name}: no wheel of {key[0]} {_norm_version(parsed_json[1])} in {root}")
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
                    f"differently ({_provider_difference(seen_provider[ns][1], info)}); every wheel must "
                    "carry the same providers entry"
                )
            seen_provider.setdefault(ns, (path, info))
    try:
        return merge_metadata([md for _, md in parts], release.variants_json_name)
    except InvalidVariantMetadata as exc:
        raise PublishError(f"{release.project} {release.version}: {exc}") from None


def _legacy_null_warnings(release: Release, md: VariantMetadata) -> List[str]:
    """A label without properties other than ``null``: torch 2.8's null variant
    (``00000000``, the hash of no property). pip-variants and uv read it in a 0.2.0
    file; variantlib 0.2 refuses the whole file."""
    legacy = sorted(label for label, props in md.variants.items() if not props and label != "null")
    if not legacy:
        return []
    return [f"{release.project} {release.version}: label {', '.join(legacy)} describes no property, the null "
            "variant's old name; variantlib 0.2 refuses a variants.json with it (the null variant is 'null' "
            "in format 0.2.0): make that build again with 'pip-variants make-variant --null'"]


def _provider_difference(a: ProviderInfo, b: ProviderInfo) -> str:
    """What two providers entries of one namespace disagree on, in the metadata's own words."""
    words = {"requires": "requires", "plugin_api": "plugin-api", "static_properties": "static-properties",
             "optional": "optional", "enable_if": "enable-if", "builtin": "builtin"}

    def shown(value: object) -> object:
        if isinstance(value, tuple) and value and isinstance(value[0], tuple):  # static-properties
            return {feature: list(values) for feature, values in value}
        return list(value) if isinstance(value, tuple) else value

    parts = [f"{word}: {shown(getattr(a, attr))!r} vs {shown(getattr(b, attr))!r}"
             for attr, word in words.items() if getattr(a, attr) != getattr(b, attr)]
    return "; ".join(parts) or "entries differ"


def _labels_dropped(release: Release, combined: VariantMetadata) -> List[str]:
    """Rewriting an index file from the wheels here drops the labels it lists that
    have no wheel here: builds uploaded elsewhere (another platform's) could no
    longer be chosen once the new file is uploaded over the old one."""
    if release.index_file is None:
        return []
    try:
        before = load_metadata(release.index_file.read_bytes(), release.index_file.name)
    except (InvalidVariantMetadata, OSError):
        return []  # rewritten from the wheels: nothing readable is lost
    dropped = sorted(set(before.variants) - set(combined.variants))
    if not dropped:
        return []
    return [f"{release.project} {release.version}: {release.index_file.name} listed labels "
            f"{', '.join(dropped)}, which have no wheel in this folder; the new file leaves them out. "
            "If those builds are on the index (uploaded from another machine), put their wheels here "
            "and run index again before uploading this file"]


def _check_existing(release: Release, combined: VariantMetadata) -> List[str]:
    problems: List[str] = []
    if release.index_file is None:
        return [f"{release.variants_json_name} is missing: run 'pip-variants index {release.wheels[0].parent}'"]
    try:
        index_md = load_metadata(release.index_file.read_bytes(), release.index_file.name)
    except InvalidVariantMetadata as exc:  # names the file itself
        return [str(exc)]
    except OSError as exc:
        return [f"{release.index_file.name}: {exc.strerror or exc}"]
    for path, label in sorted(release.variant_wheels.items()):
        if label not in index_md.variants:
            continue  # one line below lists the labels the file lacks
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


def _refuse_linked_folders(root: Path, projects: Sequence[str]) -> None:
    """The pages go into ``root/simple/<project>/``: a link planted there (a
    shared wheelhouse) would have them written wherever it points."""
    for folder in [root / "simple", *(root / "simple" / project for project in projects)]:
        if folder.is_symlink():
            raise PublishError(f"{folder} is a symbolic link: pip-variants index writes only into folders of "
                               f"{root}; remove the link and run it again")


def _write(path: Path, text: str, written: List[Path]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_new(path, text.encode("utf-8"))
    except OSError as exc:
        # Name the file being written: the error may be about its temporary twin.
        raise OSError(exc.errno, f"cannot write {path}: {exc.strerror or exc}") from None
    written.append(path)


def unselectable_properties(md: VariantMetadata) -> List[Tuple[str, str, str]]:
    """``(label, kind, sentence)`` for each variant property no machine reports.

    ``kind`` is ``"static"`` for a value outside its namespace's static list
    (exact: that list is everything any machine supports, so the wheel can
    never be chosen), ``"builtin"`` for a feature or value outside the
    catalogue of the built-in provider standing in for the namespace's plugin
    (most likely a typo such as ``nvidia :: sm_arch :: 90``). Namespaces whose
    plugin answers more than its built-in (``Provider.partly_for``) are not
    judged by the built-in's catalogue.
    """
    from .providers.builtin import builtin_for
    from .requirements import requirement_name

    out: List[Tuple[str, str, str]] = []
    for ns in md.namespaces:
        info = md.providers.get(ns) or ProviderInfo(ns)  # none: 0.1.x, the installer's registry decides
        kind = "static"
        if info.static_properties is not None:
            known = {f: set(values) for f, values in info.static_properties}
            whose = f"the static list of {ns!r}"
        elif info.builtin is not None:
            continue
        else:
            provider = builtin_for(ns, info.requires, info.plugin_api)
            partly = getattr(provider, "partly_for", ())
            catalogue = getattr(provider, "all_configs", None)
            if catalogue is None or (partly and any(requirement_name(r) in partly for r in info.requires)):
                continue
            kind = "builtin"
            known = {c.name: set(c.values) for c in catalogue()}
            whose = f"what the {ns} provider reports"
        for label, props in sorted(md.variants.items()):
            for feature, values in props.get(ns, {}).items():
                if feature not in known:
                    out.append((label, kind, f"variant {label}: {ns} :: {feature} is not in {whose} "
                                             f"(features: {', '.join(sorted(known)) or 'none'})"))
                    continue
                for value in values:
                    if value not in known[feature]:
                        out.append((label, kind, f"variant {label}: {ns} :: {feature} :: {value} is not in {whose}"))
    return out


def _unselectable_warnings(rel: Release, md: VariantMetadata) -> List[str]:
    return [f"{rel.project} {rel.version}: {sentence}: no machine selects that property"
            for _, _, sentence in unselectable_properties(md)]


def same_properties(md: VariantMetadata) -> List[Tuple[str, ...]]:
    """Groups of labels (sorted, two or more) that describe the same property set.

    Only the first label of a group can ever be chosen where both fit: a tie
    is broken by the label (PEP 825), and variantlib keeps one per set."""
    groups: Dict[FrozenSet[VariantProperty], List[str]] = {}
    for label, props in md.variants.items():
        if props:
            groups.setdefault(frozenset(iter_properties(props)), []).append(label)
    return sorted(tuple(sorted(labels)) for labels in groups.values() if len(labels) > 1)


def _same_properties_warnings(rel: Release, md: VariantMetadata) -> List[str]:
    return [
        f"{rel.project} {rel.version}: labels {', '.join(labels)} describe the same properties; where they fit, "
        f"only {labels[0]} is ever chosen (give each build its own properties, or drop the extra wheels)"
        for labels in same_properties(md)
    ]


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
        if rel.other_index_files:
            problem = (f"{rel.project} {rel.version} has several index files: "
                       f"{', '.join(p.name for p in [rel.index_file, *rel.other_index_files] if p)}; an installer "
                       "reads whichever the folder lists first: delete all but one")
            if not check:
                raise PublishError(problem)
            report.problems.append(problem)
        if not rel.variant_wheels:
            continue
        try:
            combined[(rel.project, rel.version)] = combine_release(rel)
        except PublishError as exc:
            if not check:
                raise
            report.problems.append(str(exc))
    for rel in report.releases:
        if (rel.project, rel.version) in combined:
            report.warnings.extend(_same_properties_warnings(rel, combined[(rel.project, rel.version)]))
            report.warnings.extend(_unselectable_warnings(rel, combined[(rel.project, rel.version)]))
            report.warnings.extend(_legacy_null_warnings(rel, combined[(rel.project, rel.version)]))
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
        report.warnings.extend(_labels_dropped(rel, md))
        try:
            # an existing file of the release keeps its name (1.0.0 for wheels of 1.0): one file, not two
            target = rel.index_file if rel.index_file is not None else root / rel.variants_json_name
            payloads[target] = json.dumps(to_json_dict(md), indent=2) + "\n"
        except InvalidVariantMetadata as exc:
            raise PublishError(
                f"{rel.project} {rel.version}: {exc.message}; the wheels carry metadata without a providers "
                "table (format 0.1.x): rebuild them with pip-variants make-variant"
            ) from None
    _refuse_linked_folders(root, [rel.project for rel in report.releases] + list(others))
    for path, text in payloads.items():
        _write(path, text, report.written)
        for rel in report.releases:
            if rel.index_file is None and root / rel.variants_json_name == path:
                rel.index_file = path

    projects: Dict[str, List[Path]] = {}
    for rel in report.releases:
        files = projects.setdefault(rel.project, [])
        files.extend(rel.wheels)
        if rel.index_file is not None:
            files.append(rel.index_file)
    for project, files in others.items():
        projects.setdefault(project, []).extend(files)
    if not projects:
        return report  # an empty page for an empty folder would serve nothing: most likely the wrong folder
    simple = root / "simple"
    for project, files in sorted(projects.items()):
        links = [_link(f"../../{p.name}", p.name, sha256_file(p)) for p in sorted(files, key=lambda p: p.name)]
        _write(simple / project / "index.html", _page(f"Links for {project}", links), report.written)
    root_links = [f'    <a href="{quote(p)}/">{html.escape(p)}</a><br/>' for p in sorted(projects)]
    _write(simple / "index.html", _page("Simple index", root_links), report.written)
    return report


def release_siblings(
    directory: PathLike, name: str, version: str
) -> Optional[Tuple[VariantMetadata, List[Path]]]:
    """The merged metadata of release ``name`` ``version``'s variant wheels in
    ``directory`` and their paths; ``None`` when there are none."""
    root = Path(directory)
    if not root.is_dir():
        return None
    releases, _, _ = scan_releases(root)
    rel = releases.get((canonicalize_name(name), _release_key(version)))
    if rel is None or not rel.variant_wheels:
        return None
    return combine_release(rel), sorted(rel.variant_wheels)
