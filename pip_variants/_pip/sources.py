"""H6: ``pip._internal.index.sources._FlatDirectoryToUrls._scan_directory`` (24.0+).

From pip 24.0 a ``--find-links DIR`` keeps only names that packaging's
``parse_wheel_filename`` / ``parse_sdist_filename`` accept, so variant wheels
and ``*-variants.json`` vanish without a log line (PIP-HOOKS §6.5). After
the original scan, add them under their project. On 23.2 every file of the
directory is already yielded: there is nothing to patch.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from . import _patching, messages
from .state import STATE, labels_enabled, selecting

__all__ = ["patch"]


def _wrap_scan_directory(original: Callable[..., Any], module: Any) -> Callable[..., Any]:
    def _scan_directory(self: Any) -> None:
        original(self)
        try:
            # labels alone: pip list -o and pip index versions see variant-only releases
            if selecting() or labels_enabled():
                _add_variant_files(self, module)
            elif STATE.off_by_option:
                # --no-variants: H2 notes what the folder's variant wheels offered (BC-1), then
                # pip drops them as it drops any name it cannot read
                _add_variant_files(self, module, wheels_only=True)
            elif STATE.cross_target:  # the folder's variant wheels were just dropped
                from .variants_off import note_cross_target_folder

                with os.scandir(self._path) as entries:
                    note_cross_target_folder(entry.name for entry in entries)
                _add_variant_files(self, module, wheels_only=True)  # for H2 to note, as under --no-variants
        except Exception as exc:
            messages.internal_error("_FlatDirectoryToUrls._scan_directory", exc)

    return _scan_directory


def _add_variant_files(self: Any, module: Any, wheels_only: bool = False) -> None:
    from ..filename import InvalidVariantFilename, parse_variants_json_filename, split_variant_label

    # The module's own bindings: the same packaging and URL helpers pip used.
    parse_wheel_filename = module.parse_wheel_filename
    canonicalize_name = module.canonicalize_name
    path_to_url = module.path_to_url
    by_project = self._project_name_to_urls
    for entry in os.scandir(self._path):
        name = entry.name
        if name.endswith(".whl"):
            try:
                plain, label = split_variant_label(name)
            except InvalidVariantFilename:
                continue
            if label is None:
                continue
            try:
                project = parse_wheel_filename(plain)[0]
            except Exception:  # packaging's InvalidWheelFilename / InvalidVersion
                continue
        elif name.endswith("-variants.json") and not wheels_only:
            parsed = parse_variants_json_filename(name)
            if parsed is None:
                continue
            project = canonicalize_name(parsed[0])
        else:
            continue
        url = path_to_url(entry.path)
        urls = by_project[project]
        if url not in urls:
            urls.append(url)


def patch(module: Any) -> None:
    cls = getattr(module, "_FlatDirectoryToUrls", None)
    if cls is None or "_scan_directory" not in cls.__dict__:
        return  # 23.2: _FlatDirectorySource.file_links() yields every file
    _patching.patch(cls, "_scan_directory", lambda original: _wrap_scan_directory(original, module))
