"""Symmetric in-place patches of class attributes.

Each patch records the exact object found in the owner's ``__dict__``
(a function, a ``classmethod``, ...) so :func:`restore_all` puts that very
object back. Patching the same attribute twice is a no-op.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

__all__ = ["patch", "restore_all", "applied", "original"]

_applied: Dict[Tuple[type, str], Any] = {}
_order: List[Tuple[type, str]] = []

WRAPPED_MARK = "__pip_variants_wraps__"


def original(owner: type, name: str) -> Any:
    """The unpatched ``__dict__`` value (or the current one when unpatched)."""
    return _applied.get((owner, name), owner.__dict__.get(name))


def patch(owner: type, name: str, make: Callable[[Any], Any]) -> bool:
    """Replace ``owner.name`` by ``make(original)``; ``False`` when absent or done."""
    if (owner, name) in _applied or name not in owner.__dict__:
        return False
    current = owner.__dict__[name]
    replacement = make(current)
    try:
        setattr(replacement, WRAPPED_MARK, current)
    except (AttributeError, TypeError):
        pass  # e.g. a classmethod object on Python < 3.10
    setattr(owner, name, replacement)
    _applied[(owner, name)] = current
    _order.append((owner, name))
    return True


def applied() -> List[Tuple[type, str]]:
    return list(_order)


def restore_all() -> None:
    while _order:
        owner, name = _order.pop()
        setattr(owner, name, _applied.pop((owner, name)))
