"""H1: ``pip._internal.models.wheel.Wheel.__init__`` accepts PEP 825 labels.

pip's nine ``Wheel(...)`` call sites all bind the same class, so one in-place
patch covers them on every release (PIP-HOOKS §6.1). The original parses the
unlabelled name; the full name and the label are restored afterwards.
Passes through unless H8 enabled variants in this process (or H20 labels for
``pip list -o`` and ``pip index``), so other finder users keep rejecting
labelled names.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Optional, Tuple

from . import _compat, _patching, messages
from .state import STATE, labels_enabled, turned_off_by

__all__ = ["patch", "split_label"]


#: filename -> (plain name, label), or (None, None) for a malformed label:
#: pip builds a ``Wheel`` of the same name several times per command
_splits: Dict[str, Tuple[Optional[str], Optional[str]]] = {}


def split_label(filename: str) -> Tuple[Optional[str], Optional[str]]:
    """:func:`pip_variants.filename.split_variant_label`, once per filename;
    ``(None, None)`` for a malformed label (pip rejects such a name)."""
    split = _splits.get(filename)
    if split is None:
        # Absolute: a relative import statement runs importlib's Python code on every call.
        from pip_variants.filename import InvalidVariantFilename, split_variant_label

        try:
            split = split_variant_label(filename)
        except InvalidVariantFilename:
            split = (None, None)
        _splits[filename] = split
    return split


def _wrap_init(original: Callable[..., Any], lazy_build_tag: bool) -> Callable[..., Any]:
    def __init__(self: Any, filename: str) -> None:
        if not labels_enabled():
            if not (STATE.off_by_option or STATE.cross_target):
                return original(self, filename)
            try:
                return original(self, filename)
            except Exception as exc:
                # pip says "Invalid build number": name the label and the way out
                # (the finder drops such links quietly; a file path reaches the user).
                _raise_with_hint(exc, filename)
                raise
        if filename.count("-") == 4:  # a plain wheel name: no label to split off
            original(self, filename)
            self.variant_label = None
            return None
        try:
            plain, label = split_label(filename)
        except Exception as exc:  # pip-variants itself is broken (a module gone): stock from here
            messages.internal_error("Wheel.__init__", exc)
            return original(self, filename)
        if plain is None:
            # Malformed label: let pip reject the full name as it always did.
            return original(self, filename)
        if label is None:
            original(self, filename)
            self.variant_label = None
            return None
        original(self, plain)
        if lazy_build_tag:
            # 25.1–25.2: ``build_tag`` re-matches ``self.filename`` on first
            # access; evaluate (and cache) it while the name is unlabelled.
            try:
                _ = self.build_tag
            except Exception:
                pass
        self.filename = filename
        self.variant_label = label
        return None

    return __init__


def _raise_with_hint(exc: Exception, filename: str) -> None:
    try:
        label = split_label(filename)[1]
    except Exception:  # pip-variants itself is broken (a module gone): pip's own error, no hint
        return
    if label is None or not exc.args or not isinstance(exc.args[0], str):
        return
    said = exc.args[0].rstrip(". ")
    what = "it" if filename in said else filename
    if STATE.off_by_option:
        where, fix = turned_off_by()
        text = f"{said}: {what} is a variant wheel (label {label}), and variants are off ({where}). {fix} to install it"
    else:
        cross = ", ".join(STATE.cross_target)
        project = os.path.basename(filename).split("-", 1)[0]
        text = (f"{said}: {what} is a variant wheel (label {label}), and {cross} "
                f"{'select' if len(STATE.cross_target) > 1 else 'selects'} for another machine, where variant "
                f"wheels are ignored. Pass --variant {project}={label} (or a --variant-profile FILE from "
                "'pip-variants profile export' on that machine) to install it")
    try:
        hinted = type(exc)(text)
    except Exception:
        return
    raise hinted from None


def patch(module: Any) -> None:
    wheel_cls = module.Wheel
    lazy = _compat.has_lazy_build_tag(wheel_cls)
    _patching.patch(wheel_cls, "__init__", lambda original: _wrap_init(original, lazy))
