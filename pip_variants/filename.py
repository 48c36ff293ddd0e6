"""Wheel filenames with an optional PEP 825 variant label, and index-file names.

``{name}-{version}(-{build})?-{python}-{abi}-{platform}(-{label})?.whl``

Imports nothing from pip. Tag validation beyond the component count is left to
the caller (pip, or :mod:`packaging.tags`): this module only separates the label.
"""

from __future__ import annotations

import re
from typing import Optional, Tuple

from ._charset import LOWER_DIGITS_UNDERSCORE, Charset
from ._record import record

__all__ = [
    "LABEL_RE",
    "NULL_LABEL",
    "InvalidVariantFilename",
    "WheelName",
    "parse_wheel_filename",
    "split_variant_label",
    "variants_json_filename",
    "parse_variants_json_filename",
    "normalize_name",
    "canonicalize_name",
    "is_project_name",
    "LEGACY_LABEL_LENGTH",
]

#: PEP 825: ``^[0-9a-z_.]+$``, no length limit (PEP 817 and the 0.0.x formats: 1-16).
LABEL_RE = Charset(LOWER_DIGITS_UNDERSCORE + ".", r"^[0-9a-z_.]+$")
NULL_LABEL = "null"
LEGACY_LABEL_LENGTH = 16

_VARIANTS_JSON_SUFFIX = "-variants.json"
_NAME_NORMALIZE_RE = re.compile(r"[-_.]+")


class InvalidVariantFilename(ValueError):
    """A filename looks like a variant wheel but breaks the PEP 825 grammar."""


@record
class WheelName:
    filename: str
    name: str
    version: str
    build: Optional[str]
    python_tag: str
    abi_tag: str
    platform_tag: str
    label: Optional[str]

    @property
    def is_variant(self) -> bool:
        return self.label is not None

    @property
    def is_null(self) -> bool:
        return self.label == NULL_LABEL

    @property
    def plain_filename(self) -> str:
        """The same name without the label: what a pre-variant parser accepts."""
        return split_variant_label(self.filename)[0]


def normalize_name(name: str) -> str:
    """Wheel-filename escaping of a project name (lowercase, runs of ``-_.`` to ``_``)."""
    return _NAME_NORMALIZE_RE.sub("_", name).lower()


def canonicalize_name(name: str) -> str:
    """PEP 503 normalisation (``Nvidia_Variant.Provider`` -> ``nvidia-variant-provider``)."""
    return _NAME_NORMALIZE_RE.sub("-", name).lower()


def is_project_name(name: str) -> bool:
    """A PEP 508 project name as written (``Foo.Bar-baz``), before normalisation."""
    # re caches the compiled pattern: compiled on first use, not when pip imports this module.
    return re.match(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?\Z", name) is not None


def split_variant_label(filename: str) -> Tuple[str, Optional[str]]:
    """Split ``pkg-1.0-py3-none-any-cu128.whl`` into the plain name and ``cu128``.

    Non-variant names come back unchanged with ``None``. Raises
    :class:`InvalidVariantFilename` for a name with a label-shaped tail that
    breaks the grammar (an uppercase label, too many parts, a build tag in the
    wrong place): such files must be ignored, never taken as plain wheels.
    """
    if not filename.endswith(".whl"):
        return filename, None
    stem = filename[:-4]
    parts = stem.split("-")
    if len(parts) == 5:
        return filename, None
    if len(parts) == 6:
        # A build tag starts with a digit; PEP 825 forbids Python tags that do,
        # so a non-digit third part means: no build tag, label at the end.
        if parts[2][:1].isdigit():
            return filename, None
        label = parts[5]
    elif len(parts) == 7:
        if not parts[2][:1].isdigit():
            raise InvalidVariantFilename(
                f"{filename!r}: seven parts but no build tag in third place"
            )
        label = parts[6]
    else:
        raise InvalidVariantFilename(f"{filename!r}: wrong number of parts for a wheel")
    if not LABEL_RE.match(label):
        raise InvalidVariantFilename(
            f"{filename!r}: variant label {label!r} must match {LABEL_RE.pattern}"
        )
    return "-".join(parts[:-1]) + ".whl", label


def parse_wheel_filename(filename: str) -> WheelName:
    """Parse a wheel filename, variant or not, into its components."""
    plain, label = split_variant_label(filename)
    if not plain.endswith(".whl"):
        raise InvalidVariantFilename(f"{filename!r}: not a wheel filename")
    parts = plain[:-4].split("-")
    if len(parts) == 5:
        name, version, py, abi, plat = parts
        build = None
    elif len(parts) == 6:
        name, version, build, py, abi, plat = parts
        if not build[:1].isdigit():
            raise InvalidVariantFilename(f"{filename!r}: build tag must start with a digit")
    else:
        raise InvalidVariantFilename(f"{filename!r}: wrong number of parts for a wheel")
    if not all((name, version, py, abi, plat)):
        raise InvalidVariantFilename(f"{filename!r}: empty component")
    return WheelName(filename, name, version, build, py, abi, plat, label)


def variants_json_filename(name: str, version: str) -> str:
    """``{name}-{version}-variants.json`` with wheel-filename escaping (IX-1)."""
    return f"{normalize_name(name)}-{version}-variants.json"


def parse_variants_json_filename(filename: str) -> Optional[Tuple[str, str]]:
    """``(name, version)`` of an index file name, or ``None`` for any other file."""
    # ``{name}-{version}-variants.json``: one dash between two non-empty parts, no slash.
    if not filename.endswith(_VARIANTS_JSON_SUFFIX):
        return None
    stem = filename[: -len(_VARIANTS_JSON_SUFFIX)]
    name, _, version = stem.partition("-")
    if not name or not version or "-" in version or "/" in stem:
        return None
    return name, version
