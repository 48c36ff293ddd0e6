"""Write valid (variant) wheels and index files for tests, with zipfile only.

Each wheel holds one module ``<normalized name>/__init__.py`` with
``VARIANT = "<label or ''>"``, so an installed build can be identified by
importing it; variant wheels also carry ``{name}-{version}.dist-info/variant.json``
(PEP 825 WM-1) whose ``variants`` holds exactly their own label (WM-2).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
import zipfile
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Union

__all__ = [
    "BLAS_RELEASE",
    "SCHEMA_0_0_3",
    "SCHEMA_0_1_1",
    "SCHEMA_0_2_0",
    "NVIDIA_PROVIDER",
    "X86_64_PROVIDER",
    "TPU_PROVIDER",
    "FICTIONAL_PROVIDER",
    "static_provider",
    "normalize_name",
    "wheel_filename",
    "label_of",
    "build_wheel",
    "variants_json",
    "write_variants_json",
    "variants_json_filename",
    "build_release",
    "source_tree_files",
    "build_sdist",
]

SCHEMA_0_0_3 = "https://variants-schema.wheelnext.dev/v0.0.3.json"
SCHEMA_0_1_1 = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"
SCHEMA_0_2_0 = "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json"

# ``providers`` entries that a built-in provider serves (identity as in
# PROVIDERS.md §6.2: exactly one requirement, no marker, matching endpoint).
NVIDIA_PROVIDER = {
    "requires": ["nvidia-variant-provider>=0.0.1,<1"],
    "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
}
X86_64_PROVIDER = {"requires": ["x86-64-variant-provider>=0.2"]}
TPU_PROVIDER = {
    "requires": ["tpu-variant-provider>=0.1.0"],
    "plugin-api": "tpu_variant_provider.plugin:TpuVariantPlugin",
}
# A provider nobody vendors or trusts (WHEEL-VARIANTS.md §11 item 22).
FICTIONAL_PROVIDER = {
    "requires": ["provider-fictional-hw>=1.0"],
    "plugin-api": "provider_fictional_hw.plugin:FictionalHwPlugin",
}

Properties = Mapping[str, Mapping[str, Sequence[str]]]
FileContent = Union[str, bytes]


def static_provider(
    features: Mapping[str, Sequence[str]],
    feature_order: Optional[Sequence[str]] = None,
    **extra: object,
) -> dict:
    """A 0.2.0 static entry: ``{"static-properties": ..., "feature-order": ...}``.

    ``feature-order`` defaults to the mapping's order and is written when there
    are two or more features (P850 requires it then). ``extra`` adds keys such
    as ``optional=True``.
    """
    entry: dict = {"static-properties": {f: list(v) for f, v in features.items()}}
    order = list(feature_order) if feature_order is not None else list(features)
    if feature_order is not None or len(features) > 1:
        entry["feature-order"] = order
    entry.update(extra)
    return entry


def normalize_name(name: str) -> str:
    """Wheel-filename escaping of a project name: lowercase, runs of ``-_.`` → ``_``."""
    return re.sub(r"[-_.]+", "_", name).lower()


def wheel_filename(
    name: str,
    version: str,
    *,
    label: Optional[str] = None,
    build: Optional[str] = None,
    tag: str = "py3-none-any",
) -> str:
    parts = [normalize_name(name), version]
    if build is not None:
        parts.append(str(build))
    parts.append(tag)
    if label is not None:
        parts.append(label)
    return "-".join(parts) + ".whl"


def label_of(filename: str) -> Optional[str]:
    """The variant label of a wheel filename (PEP 825 grammar), else ``None``."""
    stem = filename[:-4] if filename.endswith(".whl") else filename
    parts = stem.split("-")
    if len(parts) == 7 or (len(parts) == 6 and not parts[2][:1].isdigit()):
        return parts[-1]
    return None


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _expand_tags(tag: str) -> List[str]:
    py, abi, plat = tag.split("-")
    return [
        f"{p}-{a}-{pl}" for p in py.split(".") for a in abi.split(".") for pl in plat.split(".")
    ]


def _namespaces_of(properties: Optional[Properties]) -> List[str]:
    return sorted(properties) if properties else []


def build_wheel(
    out_dir: Union[str, Path],
    name: str,
    version: str,
    *,
    label: Optional[str] = None,
    build: Optional[str] = None,
    tag: str = "py3-none-any",
    properties: Optional[Properties] = None,
    variant_json: Optional[Mapping] = None,
    namespaces: Optional[Sequence[str]] = None,
    providers: Optional[Mapping[str, Mapping]] = None,
    requires: Iterable[str] = (),
    files: Optional[Mapping[str, FileContent]] = None,
    filename: Optional[str] = None,
) -> Path:
    """Write a valid wheel and return its path.

    For a variant wheel (``label`` given) ``variant.json`` is ``variant_json``
    when given, narrowed to this label's entry when it lists several (so a
    release-level dict from :func:`variants_json` can be passed to every
    wheel); otherwise 0.2.0 metadata built from ``properties``, ``namespaces``
    (default: the namespaces of ``properties``) and ``providers`` (default: an
    empty static entry per namespace, which supports nothing).
    ``filename`` overrides the file name (e.g. to write a label that disagrees
    with the metadata); ``files`` adds ``{arcname: content}`` entries.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    dist = normalize_name(name)
    dist_info = f"{dist}-{version}.dist-info"
    entries: Dict[str, bytes] = {}

    def put(arcname: str, content: FileContent) -> None:
        entries[arcname] = content.encode("utf-8") if isinstance(content, str) else content

    put(f"{dist}/__init__.py", f'VARIANT = "{label or ""}"\n')
    for arcname, content in (files or {}).items():
        put(arcname, content)

    metadata = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
        f"Summary: test fixture {name} {label or '(non-variant)'}",
    ]
    metadata += [f"Requires-Dist: {req}" for req in requires]
    put(f"{dist_info}/METADATA", "\n".join(metadata) + "\n\n")

    wheel_meta = [
        "Wheel-Version: 1.0",
        "Generator: pip-variants-tests (0)",
        "Root-Is-Purelib: true",
    ]
    wheel_meta += [f"Tag: {t}" for t in _expand_tags(tag)]
    if build is not None:
        wheel_meta.append(f"Build: {build}")
    put(f"{dist_info}/WHEEL", "\n".join(wheel_meta) + "\n")

    if label is not None:
        if variant_json is not None:
            data = copy.deepcopy(dict(variant_json))
            variants = data.get("variants")
            if isinstance(variants, dict) and label in variants and len(variants) > 1:
                data["variants"] = {label: variants[label]}
        else:
            props = {
                ns: {f: list(v) for f, v in feats.items()}
                for ns, feats in (properties or {}).items()
            }
            ns_list = list(namespaces) if namespaces is not None else _namespaces_of(props)
            provs = (
                dict(providers)
                if providers is not None
                else {ns: {"static-properties": {}} for ns in ns_list}
            )
            data = variants_json(
                name, version, namespaces=ns_list, providers=provs, variants={label: props}
            )
        put(f"{dist_info}/variant.json", json.dumps(data, indent=2) + "\n")

    record_name = f"{dist_info}/RECORD"
    record_lines = [f"{arc},{_record_hash(blob)},{len(blob)}" for arc, blob in entries.items()]
    record_lines.append(f"{record_name},,")
    entries[record_name] = ("\n".join(record_lines) + "\n").encode("utf-8")

    path = out / (filename or wheel_filename(name, version, label=label, build=build, tag=tag))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for arcname, blob in entries.items():
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, blob)
    return path


def variants_json(
    name: str,
    version: str,
    *,
    namespaces: Sequence[str],
    providers: Optional[Mapping[str, Mapping]],
    variants: Mapping[str, Properties],
    schema: Optional[str] = SCHEMA_0_2_0,
    **extra: object,
) -> dict:
    """Combined metadata for ``name`` ``version`` (``name``/``version`` only
    document the call). ``providers=None`` leaves the key out (0.1.x);
    ``schema=None`` leaves ``$schema`` out; ``extra`` adds top-level keys
    (e.g. ``**{"static-properties": ...}`` for 0.0.3)."""
    del name, version
    data: dict = {}
    if schema is not None:
        data["$schema"] = schema
    data["default-priorities"] = {"namespace": list(namespaces)}
    if providers is not None:
        data["providers"] = copy.deepcopy(dict(providers))
    data["variants"] = {
        label: {ns: {f: list(v) for f, v in feats.items()} for ns, feats in props.items()}
        for label, props in variants.items()
    }
    data.update(copy.deepcopy(extra))
    return data


def variants_json_filename(name: str, version: str) -> str:
    return f"{normalize_name(name)}-{version}-variants.json"


def write_variants_json(
    directory: Union[str, Path], name: str, version: str, data: Union[Mapping, str, bytes]
) -> Path:
    """Write ``{normalized_name}-{version}-variants.json``; ``data`` may be raw
    text/bytes (for malformed-file tests)."""
    path = Path(directory) / variants_json_filename(name, version)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    elif isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


def build_release(
    out_dir: Union[str, Path],
    name: str,
    version: str,
    data: Optional[Mapping],
    *,
    labels: Optional[Iterable[str]] = None,
    plain: bool = True,
    index_file: bool = True,
    tag: str = "py3-none-any",
    requires: Iterable[str] = (),
) -> List[Path]:
    """One release: a wheel per label (default: every label in ``data["variants"]``),
    a non-variant wheel when ``plain``, and ``{name}-{version}-variants.json``
    when ``index_file``. Returns the paths written."""
    requires = list(requires)
    paths: List[Path] = []
    if data is not None:
        for label in labels if labels is not None else list(data.get("variants", {})):
            paths.append(
                build_wheel(
                    out_dir,
                    name,
                    version,
                    label=label,
                    tag=tag,
                    variant_json=data,
                    requires=requires,
                )
            )
        if index_file:
            paths.append(write_variants_json(out_dir, name, version, data))
    if plain:
        paths.append(build_wheel(out_dir, name, version, tag=tag, requires=requires))
    return paths


#: The smallest useful variant release, shared by many tests: ``pkg 1.0`` with a
#: static ``blas_lapack`` provider (openblas before mkl) and two variants.
BLAS_RELEASE = variants_json(
    "pkg",
    "1.0",
    namespaces=["blas_lapack"],
    providers={"blas_lapack": static_provider({"library": ["openblas", "mkl"]})},
    variants={
        "ob": {"blas_lapack": {"library": ["openblas"]}},
        "mkl": {"blas_lapack": {"library": ["mkl"]}},
    },
)


# -- source trees and sdists, with an in-tree PEP 517 backend (no setuptools) --------

_BACKEND = """\
import base64, hashlib, importlib.metadata, json, os, zipfile

@PRELUDE@

def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    dist_info = "@DIST@-@VERSION@.dist-info"
    files = dict(@FILES@)
    files[dist_info + "/METADATA"] = "Metadata-Version: 2.1\\nName: @NAME@\\nVersion: @VERSION@\\n"
    files[dist_info + "/WHEEL"] = "Wheel-Version: 1.0\\nGenerator: tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    name = "@DIST@-@VERSION@-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        for path, text in files.items():
            data = text.encode()
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(path + ",sha256=" + digest + "," + str(len(data)))
        record.append(dist_info + "/RECORD,,")
        z.writestr(dist_info + "/RECORD", "\\n".join(record) + "\\n")
    return name
"""


def source_tree_files(
    name: str, version: str, files: str, *, requires: Sequence[str] = (), prelude: str = ""
) -> Dict[str, str]:
    """``pyproject.toml`` and ``backend.py`` of a project built by an in-tree
    backend: its wheel (``py3-none-any``) holds ``files``, a Python expression
    the backend evaluates at build time to ``{path: text}`` (``prelude``, code
    placed before, may define what it uses). ``requires``: the build requirements."""
    dist = normalize_name(name).replace("-", "_")
    backend = (_BACKEND.replace("@PRELUDE@", prelude).replace("@FILES@", files)
               .replace("@DIST@", dist).replace("@NAME@", name).replace("@VERSION@", version))
    pyproject = (
        f"[build-system]\nrequires = {json.dumps(list(requires))}\nbuild-backend = \"backend\"\n"
        f"backend-path = [\".\"]\n\n[project]\nname = \"{name}\"\nversion = \"{version}\"\n"
    )
    return {"pyproject.toml": pyproject, "backend.py": backend}


def build_sdist(out_dir: Union[str, Path], name: str, version: str) -> Path:
    """``{name}-{version}.tar.gz``, built by :func:`source_tree_files`'s backend into
    a plain wheel whose module says ``VARIANT = "sdist"``."""
    import io
    import tarfile

    dist = normalize_name(name).replace("-", "_")
    tree = source_tree_files(name, version, f"{{{dist + '/__init__.py'!r}: 'VARIANT = \"sdist\"\\n'}}")
    tree["PKG-INFO"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{dist}-{version}.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for rel, text in tree.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{dist}-{version}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path
