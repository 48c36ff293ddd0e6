"""H12: ``_InstallRequirementBackedCandidate._check_metadata_consistency``.

A variant wheel downloaded from an index must carry the ``variant.json`` the
index file promised for its label (PEP 825 WM-2 / IX-3, PV-5): a wheel that
disagrees is invalid. pip calls this check right after preparing a candidate,
and answers pip's own ``MetadataInconsistent`` by dropping that file and
trying the next best one of the same version, which is exactly the graceful
degradation PEP 825 asks for.

Local wheels (``--find-links``) are checked here too, not at selection: a
wheelhouse is then read only for the wheel pip takes. A wheel pip has not
downloaded yet (its metadata came from a PEP 658 ``.metadata`` file) is checked
once pip has downloaded it, before anything is installed (:mod:`.prepare`):
the resolution is over by then, so a mismatch is an error there.

The ``variant.json`` is read from the distribution pip has just built from the
wheel, which holds the wheel's ``.dist-info`` files in memory: opening the
archive again would read its whole central directory once more (tens of
thousands of entries in a torch wheel).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional, Tuple

from . import _compat, _patching, messages
from .context import label_of
from .state import STATE, selecting

__all__ = ["patch", "variant_mismatch", "wheel_mismatch"]


def variant_mismatch(candidate: Any, dist: Any = None) -> Optional[Tuple[str, str]]:
    """``(what the index promised, what the wheel says)`` when they disagree;
    ``dist``: what pip prepared from the wheel, if it holds the ``variant.json``."""
    return wheel_mismatch(getattr(candidate, "_link", None), getattr(candidate, "_ireq", None), dist)


def wheel_mismatch(link: Any, ireq: Any, dist: Any = None) -> Optional[Tuple[str, str]]:
    """:func:`variant_mismatch` for the wheel ``link`` that ``ireq`` downloaded (or found)."""
    if link is None or not link.is_wheel:
        return None
    # Only wheels pip-variants chose are recorded: a plain release costs one dict lookup.
    chosen = STATE.chosen.get(link.url_without_fragment)
    label = label_of(link) if chosen is not None else None
    # FinderContext.remember keeps the index file selection read (never None there).
    if chosen is None or label is None or chosen.metadata is None:
        return None
    from ..metadata import InvalidVariantMetadata, check_consistency, load_wheel_metadata
    from .factory import read_variant_json

    promised = f"label {label!r} as in {chosen.variants_json_url or 'the index file'}"
    # pip's copy first: it holds the wheel's files once pip has read the wheel
    # (or its lazy range-request view, --use-feature=fast-deps)
    wheel = read_variant_json(dist, label) if dist is not None else None
    if wheel is None:
        path = getattr(ireq, "local_file_path", None)
        if not path or not os.path.isfile(path):
            return None  # metadata from a PEP 658 file: checked once downloaded (H12b)
        try:
            wheel = load_wheel_metadata(path, label, source=link.filename)
        except InvalidVariantMetadata as exc:
            return promised, exc.message
        except Exception as exc:  # not a zip, unreadable: not the wheel the index described
            return promised, f"{type(exc).__name__}: {exc}"
    problem = check_consistency(chosen.metadata, wheel, label)
    return (promised, problem) if problem else None


def _wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    def _check_metadata_consistency(self: Any, dist: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, dist, *args, **kwargs)
        if not selecting():
            return result
        if STATE.unchecked_urls:
            _check_named_by_url(self, dist)
        try:
            mismatch = variant_mismatch(self, dist)
        except Exception as exc:
            messages.internal_error("H12 (variant.json check)", exc)
            return result
        if mismatch is not None:
            link = self._link
            if STATE.strict:
                from .errors import VariantInstallationError

                raise VariantInstallationError(
                    f"pip-variants: {link.filename} does not match the index file ({mismatch[1]}); "
                    "--variant-strict makes this an error instead of trying the next best wheel. "
                    "Nothing was installed. Tell the index's publisher; meanwhile drop --variant-strict, "
                    "or choose another build with --variant NAME=LABEL"
                )
            messages.warn_once(
                f"pip-variants: {link.filename} does not match the index file ({mismatch[1]}); "
                "ignoring that wheel and trying the next best one"
            )
            raise _compat.MetadataInconsistent(self._ireq, "variant metadata", mismatch[0], mismatch[1])
        return result

    return _check_metadata_consistency


def _check_named_by_url(candidate: Any, dist: Any) -> None:
    from .errors import UnsupportedVariantWheel, as_user_error
    from .factory import check_downloaded_wheel

    try:
        check_downloaded_wheel(candidate._link, candidate._ireq, dist)
    except UnsupportedVariantWheel:
        raise
    except Exception as exc:
        user_error = as_user_error(exc, candidate._link.filename)  # --variant-strict, as H7 words it
        if user_error is not None:
            raise user_error from None
        # pip's own behaviour from here: the wheel is installed unchecked
        messages.internal_error("H12 (variant.json of a wheel named by URL)", exc)


def _look_ahead(original: Callable[..., Any]) -> Callable[..., Any]:
    """H19: hand what pip is about to look up to the look-ahead. Its module is
    loaded only for a candidate with two requirements or more (it reads ahead
    all but the first), so never with ``--no-deps`` nor for a leaf."""

    def iter_dependencies(self: Any, with_requires: bool) -> Any:
        if not with_requires:
            return original(self, with_requires)
        # resolvelib lists the dependencies at once, so listing them here changes nothing.
        requirements = list(original(self, with_requires))
        if len(requirements) > 1 and selecting():
            from .lookahead import look_ahead_from

            look_ahead_from(self, requirements)
        return iter(requirements)

    return iter_dependencies


def patch(module: Any) -> None:
    from . import markers
    from .abi_resolution import wrap_iter_dependencies

    cls = module._InstallRequirementBackedCandidate
    _patching.patch(cls, "_check_metadata_consistency", _wrap)
    # Three hooks wrap the dependencies of an installable candidate: variant
    # markers (H18) evaluate them for the chosen wheel, the ABI hook (H15) adds
    # what the chosen build requires, and the look-ahead (H19) reads ahead what
    # pip will look up next. One patch holds them.
    _patching.patch(
        cls, "iter_dependencies",
        lambda original: _look_ahead(
            wrap_iter_dependencies(markers.wrap_candidate_iter_dependencies(original))
        ),
    )
    markers.patch_candidates(module)
