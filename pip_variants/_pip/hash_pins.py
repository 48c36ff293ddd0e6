"""Hash-checking mode (``--require-hashes``, ``--hash``) and variant wheels (H4).

pip takes only the files the pins name, and checks a file without a digest
after downloading it, never trying another: pip-variants leaves out the
variant wheels known not to be pinned before ranking, hashes local ones best
first, and says when the pins leave only builds that do not fit.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Set, Tuple

from . import messages
from .context import EvaluatorContext, label_of

__all__ = ["checked_against_pins", "file_is_pinned", "pinned_of", "pins_hint", "unpinned_files_dropped",
           "unpinned_local"]


def pinned_of(hashes: Any, result: List[Any], version: str,
               release_of: Callable[[Any], Tuple[str, str]]) -> List[Any]:
    """The files of ``version`` the pins are known to name (a local file is
    hashed; a remote one without a digest is not known to be pinned)."""
    out = []
    for cand in result:
        if release_of(cand)[0] != version:
            continue
        link = cand.link
        if link.has_hash and link.is_hash_allowed(hashes):
            out.append(cand)
        elif not link.has_hash and link.is_file and not unpinned_local(hashes, cand, None):
            out.append(cand)
    return out


def checked_against_pins(hashes: Any, result: List[Any], forced: Optional[str] = None,
                          explain: Callable[[str], str] = lambda name: f"pip-variants explain {name}") -> List[Any]:
    """Hash-checking mode (``--require-hashes``, ``--hash``): leave out the
    variant wheels that are known not to be pinned, or cannot be checked while
    the pins are all explained by the other files.

    pip keeps links that carry no digest (a ``--find-links`` folder, an index
    that publishes none), and keeps everything when no digest matches: it
    checks after the download. Stock pip then takes the plain wheel; ranked
    first, an unpinned variant would fail that check and break a lock file
    that works without pip-variants. A local file is hashed later, once
    ranked (:func:`unpinned_files_dropped`). A remote one
    without a digest cannot be checked before it is downloaded: it stands
    aside when there are no more pins than non-variant files (a lock file made
    without variants), and stays when there are more (the pins must name
    variant wheels too). The label ``--variant`` forces always stays: pip's
    own check after the download decides, as it would for stock pip.
    """
    unknown: List[Any] = []
    refused = set()
    for cand in result:
        link = cand.link
        label = label_of(link)
        if label is None or label == forced:
            continue
        if link.has_hash:
            if not link.is_hash_allowed(hashes):
                refused.add(id(cand))
        elif link.is_file:
            continue  # hashed once ranked, best first, until a pinned one (unpinned_files_dropped)
        else:
            unknown.append(cand)
    if unknown:
        allowed = getattr(hashes, "_allowed", None)
        pins = sum(len(v) for v in allowed.values()) if isinstance(allowed, dict) else 0
        plain = sum(1 for c in result if label_of(c.link) is None)
        name = unknown[0].name
        hint = (f"If pip then reports a hash mismatch, name the pinned build: --variant {name}=LABEL "
                f"('{explain(name)}' lists the labels)")
        if pins <= plain:
            refused.update(id(c) for c in unknown)
            if forced is None:  # most likely a lock file made without variants: no warning
                messages.info_once(
                    f"pip-variants: {name}: the index lists no hashes for its variant wheels and your --hash "
                    f"pins are no more than its non-variant files, so pip-variants takes a non-variant wheel. {hint}"
                )
        elif forced is None:
            # The pins name variant wheels too, but which ones is known only after the
            # download, and pip never tries another file: say how to name the build.
            messages.warn_once(
                f"pip-variants: {name}: the index lists no hashes for its variant wheels, so which build your "
                f"--hash pins name is known only after the download; pip-variants ranks the variant wheels "
                f"as usual. {hint}"
            )
    if not refused:
        return result
    kept = [c for c in result if id(c) not in refused]
    return kept or result


def unpinned_files_dropped(hashes: Any, final: List[Any], forced: Optional[str],
                            release_of: Callable[[Any], Tuple[str, str]]) -> Tuple[List[Any], Set[str]]:
    """Hash-checking mode, local variant wheels without a digest (a
    ``--find-links`` folder): per version, from the best down, drop each whose
    file is not pinned, until one that pip may take. Only the files pip would
    otherwise take are hashed, not every build in the folder (GPU wheels run
    to gigabytes). Returns the list and the versions that lost a file."""
    dropped: Set[int] = set()
    settled: Set[str] = set()
    lost: Set[str] = set()
    for cand in reversed(final):
        version = release_of(cand)[0]
        if version in settled:
            continue
        if not unpinned_local(hashes, cand, forced):
            settled.add(version)
            continue
        dropped.add(id(cand))
        lost.add(version)
    if not dropped:
        return final, lost
    kept = [c for c in final if id(c) not in dropped]
    return (kept, lost) if kept else (final, set())


def unpinned_local(hashes: Any, cand: Any, forced: Optional[str]) -> bool:
    """A local variant wheel without a digest, not forced, whose file the hashes do not pin."""
    link = cand.link
    label = label_of(link)
    if label is None or label == forced or link.has_hash or not link.is_file:
        return False
    return not file_is_pinned(link.file_path, hashes)


def file_is_pinned(path: str, hashes: Any) -> bool:
    try:
        hashes.check_against_path(path)  # raises HashMismatch (or OSError) otherwise
    except Exception:
        return False
    return True


def pins_hint(ctx: EvaluatorContext, pinned_files: Sequence[Any]) -> str:
    """Hash-checking mode left only builds that do not fit: say so, and how to take one."""
    labels = list(dict.fromkeys(label for label in (label_of(c.link) for c in pinned_files) if label))
    if not labels:
        return ""
    return (f" In hash-checking mode only the files your --hash pins name are available (variant "
            f"{', '.join(labels)}); to install that build anyway: --variant {ctx.canonical}={labels[0]}.")
