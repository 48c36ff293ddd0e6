"""H9: ``InstallationReport._install_req_to_dict`` gains a ``variant`` entry.

``pip install --report`` items for a variant wheel get
``"variant": {"label", "properties", "variants_json_url"}``; other items
are left exactly as pip writes them (the report format allows added keys,
PIP-HOOKS §6.9).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from . import _patching, messages
from .context import label_of
from .state import STATE, labels_enabled

__all__ = ["patch", "variant_entry"]


def variant_entry(ireq: Any) -> Optional[Dict[str, Any]]:
    for link in (getattr(ireq, "link", None), getattr(ireq, "original_link", None)):
        if link is None or not link.is_wheel:
            continue
        label = label_of(link)
        if label is None:
            continue
        chosen = STATE.chosen.get(link.url_without_fragment)
        return {
            "label": label,
            "properties": list(chosen.properties) if chosen else [],
            "variants_json_url": chosen.variants_json_url if chosen else None,
        }
    return None


def _wrap(original: Any) -> Any:
    func: Callable[..., Any] = original.__func__

    def _install_req_to_dict(cls: Any, ireq: Any) -> Dict[str, Any]:
        res = func(cls, ireq)
        if not labels_enabled():
            return res
        try:
            entry = variant_entry(ireq)
            if entry is not None:
                res["variant"] = entry
        except Exception as exc:
            messages.internal_error("InstallationReport._install_req_to_dict", exc)
        return res

    return classmethod(_install_req_to_dict)


def patch(module: Any) -> None:
    cls = module.InstallationReport
    if not isinstance(cls.__dict__.get("_install_req_to_dict"), classmethod):
        return
    _patching.patch(cls, "_install_req_to_dict", _wrap)
