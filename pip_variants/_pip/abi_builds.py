"""The ABI builds of the releases met in this run (H17's message).

The finder records a release's builds when it chooses an ABI variant
(:mod:`.context`); the resolver hooks read them (:mod:`.abi_resolution`). A
module of its own, so that neither of those imports the other.
"""

from __future__ import annotations

from typing import Any

from . import _compat
from .state import STATE

__all__ = ["register_builds"]


def register_builds(project: str, version: str, metadata: Any) -> None:
    """Remember which ABI builds a release has (every variant's ABI values, those
    the selection set aside included), for H17's message."""
    from ..abi import feature_project, parse_value

    builds = STATE.abi_builds.setdefault((_compat.canonical_name(project), version), {})
    for props in metadata.variants.values():
        for ns in filter(metadata.is_abi_namespace, props):
            for feature, values in props[ns].items():
                # (a value no version can match, "next", is no build worth naming)
                builds.setdefault(feature_project(feature), set()).update(v for v in values if parse_value(v))
