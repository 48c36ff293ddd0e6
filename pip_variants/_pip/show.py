"""H13: ``pip show``, ``pip inspect`` and ``pip list -v`` say which variant is installed.

The installed ``*.dist-info/variant.json`` (PEP 825) is read by
:mod:`pip_variants.installed`; these wrappers only add it to pip's output:

* ``pip show``: a ``Variant: LABEL (properties)`` line right after ``Version:``
  (``print_results`` looks ``write_output`` up in its module globals, so the
  wrapper swaps that name for the duration of the call);
* ``pip inspect``: a ``"variant": {"label", "properties"}`` key in each
  installed item, next to pip's own keys (the inspect format allows added keys);
* ``pip list -v``: a ``Variant`` column (only when something installed has a
  variant), and a ``"variant"`` key with ``--format=json``.

Distributions without ``variant.json`` are printed exactly as pip prints them.
``pip freeze`` is left alone: its output is an input to pip.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from . import _patching, messages
from .state import STATE

__all__ = ["patch"]


def _active() -> bool:
    if STATE.broken or STATE.stepped_aside:
        return False
    from . import verify_untested_pip

    return verify_untested_pip()


def _variant_for_dist(dist: Any) -> Optional[Any]:
    """The variant of one of pip's ``BaseDistribution`` objects."""
    from ..installed import read_installed_variant, variant_of

    info = getattr(dist, "info_location", None)
    if info and str(info).endswith(".dist-info"):
        return read_installed_variant(str(info))
    return variant_of(getattr(dist, "location", None), getattr(dist, "canonical_name", "") or "")


# -- pip show --------------------------------------------------------------------------


def _wrap_print_results(original: Callable[..., Any], module: Any) -> Callable[..., Any]:
    def print_results(distributions: Iterable[Any], *args: Any, **kwargs: Any) -> Any:
        if not _active():
            return original(distributions, *args, **kwargs)
        write_output = module.__dict__.get("write_output")
        current: List[Any] = [None]

        def tracked() -> Iterator[Any]:
            for info in distributions:
                current[0] = info
                yield info

        def write(msg: Any, *a: Any) -> None:
            write_output(msg, *a)
            if msg != "Version: %s" or current[0] is None:
                return
            try:
                info = current[0]
                variant = _lookup_show(info)
                if variant is not None:
                    write_output("Variant: %s", variant.describe())
            except Exception as exc:  # noqa: BLE001
                messages.internal_error("pip show (Variant line)", exc)

        module.write_output = write
        try:
            return original(tracked(), *args, **kwargs)
        finally:
            module.write_output = write_output

    return print_results


def _lookup_show(info: Any) -> Optional[Any]:
    from ..installed import variant_of

    return variant_of(getattr(info, "location", None), getattr(info, "name", ""), getattr(info, "version", None))


# -- pip inspect -----------------------------------------------------------------------


def _wrap_dist_to_dict(original: Callable[..., Any]) -> Callable[..., Any]:
    def _dist_to_dict(self: Any, dist: Any) -> Dict[str, Any]:
        res = original(self, dist)
        if not _active():
            return res
        try:
            variant = _variant_for_dist(dist)
            if variant is not None and isinstance(res, dict):
                res["variant"] = variant.to_dict()
        except Exception as exc:  # noqa: BLE001
            messages.internal_error("pip inspect (variant key)", exc)
        return res

    return _dist_to_dict


# -- pip list -v ----------------------------------------------------------------------


def _verbose(options: Any) -> bool:
    return int(getattr(options, "verbose", 0) or 0) >= 1


def _wrap_format_for_columns(original: Callable[..., Any]) -> Callable[..., Any]:
    def format_for_columns(pkgs: Any, options: Any) -> Tuple[List[List[str]], List[str]]:
        data, header = original(pkgs, options)
        if not _verbose(options) or not _active():
            return data, header
        try:
            variants = [_variant_for_dist(p) for p in pkgs]
            if any(variants) and len(variants) == len(data):
                header = list(header) + ["Variant"]
                for row, v in zip(data, variants):
                    row.append(v.label if v is not None else "")
        except Exception as exc:  # noqa: BLE001
            messages.internal_error("pip list (Variant column)", exc)
        return data, header

    return format_for_columns


def _wrap_format_for_json(original: Callable[..., Any]) -> Callable[..., Any]:
    def format_for_json(packages: Any, options: Any) -> str:
        text = original(packages, options)
        if not _verbose(options) or not _active():
            return text
        try:
            data = json.loads(text)
            variants = [_variant_for_dist(p) for p in packages]
            if any(variants) and len(variants) == len(data):
                for item, v in zip(data, variants):
                    if v is not None:
                        item["variant"] = v.to_dict()
                return json.dumps(data)
        except Exception as exc:  # noqa: BLE001
            messages.internal_error("pip list --format=json (variant key)", exc)
        return text

    return format_for_json


def patch(module: Any) -> None:
    suffix = module.__name__.rsplit(".", 1)[-1]
    if suffix == "show":
        if "write_output" in module.__dict__:
            _patching.patch(module, "print_results", lambda original: _wrap_print_results(original, module))
    elif suffix == "inspect":
        _patching.patch(module.InspectCommand, "_dist_to_dict", _wrap_dist_to_dict)
    elif suffix == "list":
        _patching.patch(module, "format_for_columns", _wrap_format_for_columns)
        _patching.patch(module, "format_for_json", _wrap_format_for_json)
