"""H10 and H12b: ``RequirementPreparer``.

H10 ``save_linked_requirement`` keeps ``variants.json``: ``pip download`` (and
``pip wheel``) save the chosen variant wheel into the target directory; the
release's ``{name}-{version}-variants.json`` is saved beside it so that ``pip
install --no-index --find-links DIR`` repeats the same choice offline.

H12b ``prepare_linked_requirements_more``: a variant wheel whose metadata came
from a PEP 658 ``.metadata`` file is downloaded only here, after the
resolution, so H12 (:mod:`.candidates`) never saw it. Its ``variant.json`` is
compared with the index file now, before ``install``, ``download`` or
``wheel`` use it; a wheel that disagrees stops the command with an error,
nothing installed or saved. pip 25.3 and later call this after ``--dry-run``
has returned and after ``--report`` is written (earlier releases, within the
resolution), and ``pip lock`` never: there, a wheel known only by its
``.metadata`` file is listed unchecked, as nothing downloads it.
"""

from __future__ import annotations

import errno
import os
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional

from . import _patching, messages
from .context import label_of
from .errors import VariantInstallationError
from .state import STATE, selecting

__all__ = ["patch", "save_variants_json"]


def save_variants_json(download_dir: str, link: Any) -> None:
    label = label_of(link)
    if label is None:
        return
    chosen = STATE.chosen.get(link.url_without_fragment)
    if chosen is None or chosen.name_version is None:
        return
    content = chosen.json_bytes
    if content is None:
        if chosen.json_text is None:
            return
        content = chosen.json_text.encode("utf-8")
    from ..filename import variants_json_filename

    path = os.path.join(download_dir, variants_json_filename(*chosen.name_version))
    # Two pips saving builds of one release into one folder: without the lock,
    # the second reads the file before the first replaces it, and its write
    # drops the first one's label.
    with _folder_lock(download_dir):
        _save(path, content, chosen, download_dir)


def _save(path: str, content: bytes, chosen: Any, download_dir: str) -> None:
    try:
        with open(path, "rb") as fh:
            existing = fh.read()
    except OSError:
        existing = None
    if existing == content:
        return
    if existing is not None:
        combined = _combined(path, existing, content, chosen)
        if combined is None:
            return
        content = combined
    from .._atomic import write_file

    try:
        write_file(path, content)
    except OSError as exc:
        messages.warn_once(
            f"pip-variants: could not save {path} ({exc.strerror or exc}); an offline install from "
            f"{download_dir} will not know the variants of {' '.join(chosen.name_version)}: "
            "remove what is in the way and download again"
        )
        return
    from pip._internal.utils.misc import display_path

    messages.logger.info("Saved %s", display_path(path))


@contextmanager
def _folder_lock(folder: str) -> Iterator[None]:
    """An advisory lock on the folder itself (no lock file left behind), where
    the system has ``flock`` and lets a folder be opened; elsewhere none."""
    try:
        import fcntl

        fd = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        deadline = time.monotonic() + _LOCK_WAIT
        while True:  # never hang on a lock someone else forgot: go on unlocked after the wait
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                # held by another pip: wait; no locks on this file system (NFS, some
                # FUSE and CIFS mounts: ENOLCK, EOPNOTSUPP, ...): go on at once
                if exc.errno not in _BUSY or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing releases the lock


#: seconds to wait for another pip saving into the same folder
_LOCK_WAIT = 10.0
_BUSY = (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)


def _combined(path: str, existing: bytes, content: bytes, chosen: Any) -> Optional[bytes]:
    """What to write where the folder already holds another index file of the
    release (a wheelhouse gathered for several machines, or from a local wheel
    whose own file lists one label): the new file where it describes every
    wheel the old one does, one merged from both, or nothing (the old file
    stays, and a warning says why) where the old one already covers the new
    wheel or the two disagree. Every build the folder held stays installable."""
    from ..metadata import InvalidVariantMetadata, load_metadata
    from ..metadata_merge import merge_metadata
    from ..metadata_write import dumps

    try:
        old = load_metadata(existing, path)
    except InvalidVariantMetadata:
        return content  # unreadable: nothing in the folder can use it
    try:
        new = chosen.metadata if chosen.metadata is not None else load_metadata(content, path)
        merged = merge_metadata([old, new], path)
    except InvalidVariantMetadata as exc:
        name, version = chosen.name_version
        messages.warn_once(
            f"pip-variants: kept {path}, which describes the variants of {name} {version} otherwise than "
            f"{chosen.variants_json_url or 'the downloaded wheel'} ({exc.message}); variant "
            f"{chosen.label} cannot be installed offline from that folder: download builds from "
            "different sources into different folders"
        )
        return None
    if set(new.variants) <= set(old.variants):
        return None
    if set(old.variants) <= set(new.variants):
        return content
    text = None
    if min(old.schema, new.schema) >= (0, 2, 0):  # the format dumps() writes, without loss
        try:
            text = dumps(merged)
            load_metadata(text, path)
        except InvalidVariantMetadata:
            text = None
    if text is None:
        name, version = chosen.name_version
        messages.warn_once(
            f"pip-variants: kept {path}, which does not list variant {chosen.label} of {name} {version} "
            "and cannot be merged with its file here (an older format); an offline install from that "
            "folder will not find that build: download builds from different sources into different folders"
        )
        return None
    return text.encode("utf-8")


def _wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    def save_linked_requirement(self: Any, req: Any) -> None:
        original(self, req)
        if not selecting():
            return
        try:
            link = req.link
            if self.download_dir and link is not None and link.is_wheel:
                save_variants_json(self.download_dir, link)
        except Exception as exc:
            messages.internal_error("RequirementPreparer.save_linked_requirement", exc)

    return save_linked_requirement


def _wrap_more(original: Callable[..., Any]) -> Callable[..., Any]:
    def prepare_linked_requirements_more(self: Any, reqs: Any, *args: Any, **kwargs: Any) -> Any:
        if not selecting() or not STATE.chosen:
            return original(self, reqs, *args, **kwargs)
        reqs = list(reqs)
        downloaded_now = [req for req in reqs if getattr(req, "needs_more_preparation", False)]
        result = original(self, reqs, *args, **kwargs)
        for req in downloaded_now:
            link = getattr(req, "link", None)
            try:
                if link is None or label_of(link) is None:
                    continue
                from .candidates import wheel_mismatch

                mismatch = wheel_mismatch(link, req)
            except Exception as exc:  # stock pip from here on (internal_error steps aside)
                messages.internal_error("H12b (variant.json check after download)", exc)
                return result
            if mismatch is not None:
                chosen = STATE.chosen.get(link.url_without_fragment)
                index_file = getattr(chosen, "variants_json_url", None) or "its index file"
                name = getattr(req, "name", None) or link.filename
                raise VariantInstallationError(
                    f"pip-variants: {link.filename} does not match {index_file} ({mismatch[1]}). "
                    "Nothing was installed or saved. The index serves an inconsistent release: tell its "
                    f"publisher; meanwhile choose another build with --variant {name}=LABEL, or the "
                    "non-variant wheel with PIP_NO_VARIANTS=1"
                )
        return result

    return prepare_linked_requirements_more


def patch(module: Any) -> None:
    _patching.patch(module.RequirementPreparer, "save_linked_requirement", _wrap)
    _patching.patch(module.RequirementPreparer, "prepare_linked_requirements_more", _wrap_more)
