"""H7: ``Factory._fail_if_link_is_unsupported_wheel`` checks a local variant wheel.

Direct, URL and constraint links skip the finder, so their label is checked
here: a local wheel's ``*.dist-info/variant.json`` (PEP 825), a remote one's
sibling ``{name}-{version}-variants.json`` when there is one, else (a CDN's
folder per file) the wheel's own ``variant.json`` once pip has downloaded it
(H12, :func:`check_downloaded_wheel`). An unsupported variant raises pip's
``UnsupportedWheel`` with a message saying why; nothing is installed.
"""

from __future__ import annotations

import sys
import zipfile
from typing import Any, Callable, Optional

from . import _compat, _patching, messages
from .context import ATTR, FinderContext, Outcome, label_of, redact
from .errors import UnsupportedVariantWheel, as_user_error
from .state import STATE, selecting

__all__ = ["patch", "check_variant_link", "check_downloaded_wheel", "read_variant_json", "constraint_warning"]

#: the pip method (23.2 to 26.3) that checks a constraint's link and turns our
#: error into "no candidates"
_CONSTRAINT_CALLER = "_iter_candidates_from_constraints"


def _wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    def _fail_if_link_is_unsupported_wheel(self: Any, link: Any) -> None:
        original(self, link)
        if not STATE.labels or not link.is_wheel:
            return
        try:
            label = label_of(link)
        except Exception:
            return
        if label is None:
            return
        ctx: Optional[FinderContext] = getattr(getattr(self, "_finder", None), ATTR, None)
        if ctx is None or not selecting():
            # Variants switched off after an error: refuse, as stock pip would.
            raise UnsupportedVariantWheel(
                f"{link.filename} is a wheel variant, and variant support is off in this pip run."
            )
        try:
            check_variant_link(ctx, link, label)
        except UnsupportedVariantWheel as exc:
            if sys._getframe(1).f_code.co_name == _CONSTRAINT_CALLER:
                # pip drops a constraint's unsupported wheel without a word and then
                # reports a bare conflict: say why here (a requirement's error says it itself)
                messages.warn_once(constraint_warning(link, exc))
            raise
        except Exception as exc:
            user_error = as_user_error(exc, link.filename)
            if user_error is not None:
                raise user_error from None
            messages.internal_error("Factory._fail_if_link_is_unsupported_wheel", exc)
            raise UnsupportedVariantWheel(
                f"{link.filename} is a wheel variant that pip-variants could not check."
            ) from None

    return _fail_if_link_is_unsupported_wheel


def constraint_warning(link: Any, exc: Exception) -> str:
    """Why a constraint's variant wheel is dropped, naming the wheel once."""
    reason = str(exc)
    if link.is_file and link.file_path in reason:  # a local wheel's error already names its path
        return f"pip-variants: a constraint cannot be used: {reason}"
    return f"pip-variants: the constraint {redact(link.url_without_fragment)} cannot be used: {reason}"


def check_variant_link(ctx: FinderContext, link: Any, label: str) -> None:
    from ..filename import parse_wheel_filename, variants_json_filename
    from ..metadata import InvalidVariantMetadata, load_wheel_metadata

    parsed = parse_wheel_filename(link.filename)
    metadata: Any = None
    json_url = None
    if link.is_file:
        try:
            metadata = load_wheel_metadata(link.file_path, label)
        except (InvalidVariantMetadata, OSError, zipfile.BadZipFile, KeyError) as exc:
            why = exc.message if isinstance(exc, InvalidVariantMetadata) else exc  # (its message names the file)
            raise UnsupportedVariantWheel(f"{link.file_path} is not a valid variant wheel: {why}") from None
    else:
        base = link.url_without_fragment.rsplit("/", 1)[0]
        json_url = f"{base}/{variants_json_filename(parsed.name, parsed.version)}"
        fetched = ctx._fetch(_UrlLink(json_url))
        if fetched.metadata is None:
            # A CDN keeps every file in a folder of its own (PyPI does): the
            # wheel's own variant.json is checked once pip has downloaded it (H12).
            STATE.unchecked_urls[link.url_without_fragment] = (ctx, label)
            messages.debug(
                f"pip-variants: no release file for {redact(link.url_without_fragment)} "
                f"({fetched.problem}); its own variant.json is checked once downloaded"
            )
            return
        metadata = fetched.metadata
        json_url = redact(json_url)
    _check_on_this_machine(ctx, link, label, parsed, metadata, json_url)


def read_variant_json(dist: Any, label: str) -> Any:
    """The wheel's ``variant.json`` from pip's distribution (``read_text`` in
    both metadata backends), or ``None`` where it is not there (a distribution
    made from a PEP 658 ``.metadata`` file) or not a valid one for ``label``:
    the archive is then read, and the error worded, as before."""
    from ..metadata import MAX_METADATA_BYTES, InvalidVariantMetadata, describing_only, load_metadata

    try:
        text = dist.read_text("variant.json")
    except Exception:  # FileNotFoundError, or pip's own decoding error
        return None
    # Characters, not bytes: a text that could be over the limit is measured by the archive reader.
    if not isinstance(text, str) or len(text) > MAX_METADATA_BYTES // 4:
        return None
    if text[:1] == "\ufeff":  # a BOM, as load_metadata drops it from bytes
        text = text[1:]
    try:
        return describing_only(load_metadata(text, "variant.json"), label)
    except InvalidVariantMetadata:
        return None


def check_downloaded_wheel(link: Any, ireq: Any, dist: Any) -> None:
    """H12's part for a variant wheel named by URL without a readable release
    file (:func:`check_variant_link`): its ``.dist-info/variant.json`` against
    this machine, as for a local wheel, before anything is installed or saved."""
    entry = STATE.unchecked_urls.pop(link.url_without_fragment, None)
    if entry is None:
        return
    ctx, label = entry
    from ..filename import parse_wheel_filename
    from ..metadata import InvalidVariantMetadata, load_wheel_metadata

    metadata = read_variant_json(dist, label)
    if metadata is None:
        path = getattr(ireq, "local_file_path", None)
        problem = "it carries no variant.json"
        if path:
            try:
                metadata = load_wheel_metadata(path, label, source=link.filename)
            except InvalidVariantMetadata as exc:
                problem = exc.message
            except (OSError, zipfile.BadZipFile, KeyError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
        if metadata is None:
            raise UnsupportedVariantWheel(
                f"{redact(link.url_without_fragment)} is not a valid variant wheel: {problem}"
            )
    _check_on_this_machine(ctx, link, label, parse_wheel_filename(link.filename), metadata, None)


def _check_on_this_machine(ctx: FinderContext, link: Any, label: str, parsed: Any, metadata: Any,
                           json_url: Optional[str]) -> None:
    """Refuse a variant wheel this machine does not support (unless ``--variant``
    names it), say which build is taken, and remember it for the later hooks."""
    from ..properties import format_property_set
    from ..selection import PROFILE_HOLDER, matching_properties

    ctx.namespaces_seen.update(metadata.namespaces)
    rejection = ctx.engine.check_wheel(parsed.name, metadata, label)
    if rejection is not None:
        hint = ""
        if rejection.reason == "unsupported":  # what --variant overrides
            hint = (f"; to install it anyway (for another machine), add --variant "
                    f"{_compat.canonical_name(parsed.name)}={label}")
        where = "on this system" if rejection.holder != PROFILE_HOLDER else f"for {rejection.holder}"
        raise UnsupportedVariantWheel(f"{link.filename} is not a supported variant {where}: {rejection}{hint}")
    supported, answers = ctx.engine.supported_for(metadata)
    quiet = ctx.engine.disabled_by_user(answers)
    for answer in answers:
        if answer.notice and answer.namespace not in quiet:
            messages.warn_once(f"pip-variants: {answer.notice}")
    if ctx.forced.get(_compat.canonical_name(parsed.name)) == label and not ctx.only_forced:
        from ..engine import as_answered
        from ..selection import find_incompatibility

        problem = find_incompatibility(label, metadata.variants[label], supported)
        if problem is not None:  # as for a build chosen from an index
            problem = as_answered(problem, answers)
            messages.warn_once(
                f"pip-variants: {parsed.name} {parsed.version}: variant {label} was chosen with --variant, "
                f"but {problem.holder} does not support it ({problem}); taking it anyway"
            )
    if messages.info_enabled():
        props = format_property_set(matching_properties(metadata.variants.get(label, {}), supported))
        shown = ", ".join(props[:4]) + (", ..." if len(props) > 4 else "")
        messages.info_once(f"{parsed.name} {parsed.version}: variant {label} ({shown or 'null variant'})")
    ctx.remember(link, Outcome(metadata=metadata, json_url=json_url))


class _UrlLink:
    """Just enough of pip's ``Link`` for :meth:`FinderContext._fetch`."""

    hash_name = None
    hash = None

    def __init__(self, url: str) -> None:
        self.url = self.url_without_fragment = url


def patch(module: Any) -> None:
    from .abi_resolution import patch_factory

    _patching.patch(module.Factory, "_fail_if_link_is_unsupported_wheel", _wrap)
    patch_factory(module)  # H17 lives with the other ABI hooks
