"""``pip-variants explain``: why pip picked the wheel it picked.

Two halves, both pure (no pip imports, no argparse):

* :func:`record` is called by the pip hooks, inside a pip run started with
  ``PIP_VARIANTS_EXPLAIN_FILE=<path>``, once for every (project, version) they
  evaluate. It appends one JSON object per line to that file.
* :func:`build_explanation` turns those records plus pip's ``--report`` into an
  :class:`Explanation`, which :func:`render` prints for people and
  :meth:`Explanation.to_json` for machines.

Record format (``explain-record`` version 1), one object per line::

    {"explain-record": 1,
     "project": "demo-tensor", "version": "1.0",
     "source": "<URL or path of the variant metadata, or of the project page>",
     "metadata_error": null,                     # str when the metadata was unusable
     "wheels": [{"filename": "...", "label": "cu128" | null, "tags_fit": true,
                 "problem": "..."}],             # problem: optional, this wheel is unusable
     "selection": null | {
        "order": ["cu128", "null"],              # labels pip may use, best first
        "forced": null | "cu128",                # --variant NAME=LABEL
        "forced_problem": null | "needs ...",    # the forced label does not fit here
        "rejected": {"cu126": {"reason": "unsupported", "message": "needs ...; this machine supports ...",
                               "namespace": "nvidia", "feature": "...", "declared": [...], "supported": [...]}},
        "namespaces": ["nvidia", "x86_64"],
        "variants": {"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}, "null": {}},
        "supported": {"nvidia": {"cuda_version_lower_bound": ["12.8", "12.7"]}},
        "providers": [{"namespace": "nvidia", "source": "builtin:nvidia", "notice": null},
                      {"namespace": "abi_dependency", "source": "builtin:abi_dependency", "notice": null,
                       "abi": [{"project": "torch", "version": "2.9.0" | null, "origin": "installed",
                                "text": "torch 2.9.0 (installed in the target environment)"}]}]}}
                      # origin: VARIANT_ABI_DEPENDENCY, profile, installed, resolver (version null)

Readers ignore unknown keys and lines that are not JSON objects, so the hooks
may add fields later without breaking older CLIs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple
from urllib.parse import unquote, urlsplit

from .filename import canonicalize_name

__all__ = [
    "EXPLAIN_FILE_ENV",
    "RECORD_VERSION",
    "record",
    "selection_to_json",
    "read_records",
    "WheelExplanation",
    "ProviderAnswer",
    "Explanation",
    "build_explanation",
    "chosen_from_report",
    "render",
]

#: The pip hooks append records to the file this variable names (when set).
EXPLAIN_FILE_ENV = "PIP_VARIANTS_EXPLAIN_FILE"
RECORD_VERSION = 1


def _same_version(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        from packaging.version import InvalidVersion, Version
    except ImportError:  # pragma: no cover - packaging is a dependency
        return False
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return False


# ------------------------------------------------------------------------ recording


def _props_json(props: Mapping[str, Mapping[str, Iterable[str]]]) -> Dict[str, Dict[str, List[str]]]:
    return {str(ns): {str(f): [str(v) for v in vals] for f, vals in feats.items()} for ns, feats in props.items()}


def _rejection_json(rej: Any) -> Dict[str, Any]:
    return {
        "reason": str(getattr(rej, "reason", "")),
        "message": str(rej),
        "namespace": str(getattr(rej, "namespace", "")),
        "feature": str(getattr(rej, "feature", "")),
        "declared": [str(v) for v in getattr(rej, "declared", ())],
        "supported": [str(v) for v in getattr(rej, "supported", ())],
    }


def selection_to_json(selection: Any) -> Dict[str, Any]:
    """The ``selection`` member of a record, from an :class:`pip_variants.engine.Selection`."""
    metadata = selection.metadata
    problem = getattr(selection, "forced_problem", None)
    return {
        "order": [str(l) for l in selection.order],
        "forced": getattr(selection, "forced", None),
        "forced_problem": str(problem) if problem is not None else None,
        "rejected": {str(l): _rejection_json(r) for l, r in selection.rejected.items()},
        "namespaces": [str(ns) for ns in metadata.namespaces],
        "metadata_source": str(getattr(metadata, "source", "")),
        "variants": {str(l): _props_json(p) for l, p in metadata.variants.items()},
        "supported": _props_json(selection.supported),
        "providers": [
            dict({"namespace": a.namespace, "source": a.source, "notice": a.notice},
                 **({"abi": [{"project": src.project, "version": src.version, "origin": src.origin,
                              "text": src.describe()} for src in a.abi_sources]}
                    if getattr(a, "abi_sources", ()) else {}))
            for a in getattr(selection, "answers", ())
        ],
    }


def record(
    path: Optional[str],
    *,
    project: str,
    version: str,
    source_url: Optional[str],
    wheels: Sequence[Mapping[str, Any]],
    selection: Any = None,
    metadata_error: Optional[str] = None,
) -> bool:
    """Append one explain record to ``path``; return whether it was written.

    ``wheels``: every wheel of this release from this source, variant or not:
    ``{"filename", "label" (None for a non-variant wheel), "tags_fit"}`` and,
    for a wheel dropped on its own, ``"problem"``. ``selection``: the
    :class:`~pip_variants.engine.Selection` of the release (None when the
    metadata was unusable: then ``metadata_error`` says why).

    Called from inside pip, so it never raises: an unwritable file or an
    unexpected object only loses the explanation, never the install. ``path``
    ``None``/empty (the variable unset) records nothing.
    """
    if not path:
        return False
    try:
        entry: Dict[str, Any] = {
            "explain-record": RECORD_VERSION,
            "project": str(project),
            "version": str(version),
            "source": str(source_url) if source_url is not None else None,
            "metadata_error": str(metadata_error) if metadata_error is not None else None,
            "wheels": [
                {
                    "filename": str(w.get("filename", "")),
                    "label": (str(w["label"]) if w.get("label") is not None else None),
                    "tags_fit": bool(w.get("tags_fit", False)),
                    **({"problem": str(w["problem"])} if w.get("problem") else {}),
                }
                for w in wheels
            ],
            "selection": selection_to_json(selection) if selection is not None else None,
        }
        line = json.dumps(entry) + "\n"  # unsorted: a provider's feature order is its preference
        # One write() of a short line in append mode: records from concurrent
        # pip processes (build isolation) do not interleave.
        with open(path, "a", encoding="utf-8") as f:
            f.write(line)
        return True
    except Exception:  # noqa: BLE001 - see docstring
        return False


def read_records(path: str) -> List[Dict[str, Any]]:
    """Every record in ``path``, skipping lines that are not JSON objects."""
    out: List[Dict[str, Any]] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError:
        return out
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("project"), str):
            out.append(item)
    return out


# ---------------------------------------------------------------------- the model


@dataclass(frozen=True)
class WheelExplanation:
    """One wheel of the explained version."""

    filename: str
    label: Optional[str]
    properties: Tuple[str, ...]
    tags_fit: bool
    #: True fits, False does not, None: a non-variant wheel (nothing to check)
    variant_fit: Optional[bool]
    reason: str
    #: 1 = the best group; None = pip cannot use this wheel
    rank: Optional[int]
    chosen: bool = False

    def to_json(self) -> Dict[str, Any]:
        return {
            "filename": self.filename,
            "label": self.label,
            "properties": list(self.properties),
            "tags_fit": self.tags_fit,
            "variant_fit": self.variant_fit,
            "reason": self.reason,
            "rank": self.rank,
            "chosen": self.chosen,
        }


@dataclass(frozen=True)
class ProviderAnswer:
    namespace: str
    source: str
    supported: Mapping[str, Tuple[str, ...]]
    notice: Optional[str] = None
    #: ABI-dependency namespaces: one line per dependency, where its version came from
    abi: Tuple[str, ...] = ()

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {
            "namespace": self.namespace,
            "source": self.source,
            "supported": {f: list(v) for f, v in self.supported.items()},
            "notice": self.notice,
        }
        if self.abi:
            out["abi"] = list(self.abi)
        return out


@dataclass(frozen=True)
class Explanation:
    project: str
    version: Optional[str]
    chosen: Optional[str]
    chosen_url: Optional[str] = None
    sources: Tuple[str, ...] = ()
    wheels: Tuple[WheelExplanation, ...] = ()
    providers: Tuple[ProviderAnswer, ...] = ()
    forced: Optional[str] = None
    metadata_errors: Tuple[str, ...] = ()
    #: versions pip-variants evaluated for this project (newest pip considered first)
    evaluated_versions: Tuple[str, ...] = ()
    recorded: bool = True
    pip_error: Optional[str] = None
    notes: Tuple[str, ...] = field(default_factory=tuple)

    @property
    def chosen_wheel(self) -> Optional[WheelExplanation]:
        for w in self.wheels:
            if w.chosen:
                return w
        return None

    def to_json(self) -> Dict[str, Any]:
        chosen = self.chosen_wheel
        return {
            "project": self.project,
            "version": self.version,
            "chosen": self.chosen,
            "chosen_url": self.chosen_url,
            "chosen_label": chosen.label if chosen else None,
            "sources": list(self.sources),
            "forced": self.forced,
            "wheels": [w.to_json() for w in self.wheels],
            "providers": [p.to_json() for p in self.providers],
            "metadata_errors": list(self.metadata_errors),
            "evaluated_versions": list(self.evaluated_versions),
            "recorded": self.recorded,
            "pip_error": self.pip_error,
            "notes": list(self.notes),
        }


def _filename_of(url: str) -> str:
    path = urlsplit(url).path if "://" in url else url.split("#", 1)[0]
    return unquote(path.rstrip("/").rsplit("/", 1)[-1])


def chosen_from_report(report: Mapping[str, Any], project: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """``{"name", "version", "url", "filename", "variant"}`` of pip's choice in a
    ``--report`` document (the first install item, or the one named ``project``)."""
    items = report.get("install") if isinstance(report, Mapping) else None
    if not isinstance(items, list) or not items:
        return None
    item = items[0]
    if project is not None:
        for candidate in items:
            name = (candidate.get("metadata") or {}).get("name", "")
            if canonicalize_name(str(name)) == canonicalize_name(str(project)):
                item = candidate
                break
    metadata = item.get("metadata") or {}
    url = str((item.get("download_info") or {}).get("url", ""))
    return {
        "name": metadata.get("name"),
        "version": metadata.get("version"),
        "url": url,
        "filename": _filename_of(url) if url else None,
        "variant": item.get("variant"),
    }


def _format_props(props: Mapping[str, Mapping[str, Sequence[str]]]) -> Tuple[str, ...]:
    out = []
    for ns, feats in props.items():
        for f, vals in feats.items():
            out.append(f"{ns} :: {f} :: {' | '.join(vals)}" if len(vals) > 1 else f"{ns} :: {f} :: {vals[0]}")
    return tuple(out)


def _wheel_rows(rec: Mapping[str, Any], chosen_filename: Optional[str]) -> List[WheelExplanation]:
    sel = rec.get("selection") or None
    order: List[str] = list(sel.get("order", [])) if sel else []
    rejected: Mapping[str, Any] = sel.get("rejected", {}) if sel else {}
    variants: Mapping[str, Any] = sel.get("variants", {}) if sel else {}
    forced = sel.get("forced") if sel else None
    error = rec.get("metadata_error")
    rows: List[WheelExplanation] = []
    for w in rec.get("wheels") or []:
        if not isinstance(w, Mapping):
            continue
        filename = str(w.get("filename", ""))
        label = w.get("label")
        tags_fit = bool(w.get("tags_fit"))
        props = _format_props(variants.get(label, {})) if label is not None else ()
        fit: Optional[bool]
        rank: Optional[int]
        if label is not None and w.get("problem"):
            # This one wheel is unusable (e.g. its variant.json contradicts the index file).
            fit, rank, reason = False, None, f"wheel ignored: {w['problem']}"
        elif label is None:
            fit = None
            rank = len(order) + 1
            reason = "non-variant wheel: used when no variant fits"
            if forced is not None:
                rank = None
                reason = f"non-variant wheel: not used, --variant chose {forced!r}"
        elif sel is None:
            fit, rank = False, None
            reason = (
                f"variant metadata unusable: {error}" if error
                else "variants not evaluated (turned off with --no-variants / PIP_NO_VARIANTS?)"
            )
        elif label in order:
            fit, rank = True, order.index(label) + 1
            if label == forced:
                problem = sel.get("forced_problem")
                reason = "chosen with --variant" + (f", although it does not fit here: {problem}" if problem else "")
                fit = problem is None
            elif label == "null":
                reason = "the null variant: no properties, fits any machine"
            else:
                reason = "every property is supported here"
        elif label in rejected:
            rej = rejected[label]
            rank = None
            if isinstance(rej, Mapping):
                reason = str(rej.get("message") or rej.get("reason") or "rejected")
                # Only compatible labels get excluded (by --variant or an exclusion
                # option): they fit, pip was just told not to use them.
                fit = rej.get("reason") == "excluded"
            else:
                reason, fit = str(rej), False
        else:
            fit, rank = False, None
            reason = "label not evaluated (no wheel of it fits this platform's tags)" if not tags_fit \
                else "label not listed in the variant metadata"
        if not tags_fit:
            rank = None
            reason = "platform tags do not fit this interpreter; " + reason
        rows.append(WheelExplanation(filename, label, props, tags_fit, fit, reason, rank,
                                     chosen=chosen_filename is not None and filename == chosen_filename))
    return rows


def _providers_of(rec: Mapping[str, Any]) -> List[ProviderAnswer]:
    sel = rec.get("selection") or {}
    supported = sel.get("supported", {}) or {}
    out = []
    for p in sel.get("providers", []) or []:
        if not isinstance(p, Mapping):
            continue
        ns = str(p.get("namespace", ""))
        feats = supported.get(ns, {}) or {}
        out.append(ProviderAnswer(ns, str(p.get("source", "")), {f: tuple(v) for f, v in feats.items()},
                                  p.get("notice"), _abi_lines(p.get("abi"))))
    return out


def _abi_lines(entries: Any) -> Tuple[str, ...]:
    """``torch-like 2.9.0 (installed in the target environment)`` per ABI dependency."""
    return tuple(str(e.get("text", "")) for e in entries or () if isinstance(e, Mapping))


def build_explanation(
    records: Sequence[Mapping[str, Any]],
    project: str,
    *,
    version: Optional[str] = None,
    chosen_url: Optional[str] = None,
    pip_error: Optional[str] = None,
) -> Explanation:
    """Combine the records of ``project`` into one explanation.

    ``version``/``chosen_url`` come from pip's report (what pip really chose).
    Without a version (pip failed) the last version evaluated is explained.
    Records for the same version from several sources (``--extra-index-url``)
    are merged; each wheel keeps the verdict of its own source's metadata.
    """
    mine = [r for r in records if canonicalize_name(str(r.get("project", ""))) == canonicalize_name(project)]
    evaluated: List[str] = []
    for r in mine:
        v = str(r.get("version", ""))
        if v and not any(_same_version(v, e) for e in evaluated):
            evaluated.append(v)
    if version is None and evaluated:
        version = evaluated[-1]
    chosen_filename = _filename_of(chosen_url) if chosen_url else None
    relevant = [r for r in mine if version is not None and _same_version(str(r.get("version", "")), version)]

    rows: Dict[str, WheelExplanation] = {}
    providers: Dict[str, ProviderAnswer] = {}
    sources: List[str] = []
    errors: List[str] = []
    forced = None
    for rec in relevant:
        src = rec.get("source")
        if src and src not in sources:
            sources.append(str(src))
        if rec.get("metadata_error") and rec["metadata_error"] not in errors:
            errors.append(str(rec["metadata_error"]))
        sel = rec.get("selection") or {}
        forced = sel.get("forced") or forced
        for row in _wheel_rows(rec, chosen_filename):
            rows[row.filename] = row  # a later evaluation of the same file wins
        for p in _providers_of(rec):
            providers[p.namespace] = p

    notes: List[str] = []
    resolved_by_pip = sorted({str(e.get("project")) for rec in relevant
                              for p in (rec.get("selection") or {}).get("providers", []) or []
                              if isinstance(p, Mapping)
                              for e in p.get("abi") or () if isinstance(e, Mapping)
                              and e.get("origin") == "resolver" and e.get("project")})
    if resolved_by_pip:
        # explain looks at the project alone (--no-deps): the resolver's
        # backtracking over the pair (H15) is not part of this run.
        names = " and ".join(resolved_by_pip)
        notes.append(f"the build pip installs also depends on the {names} version it resolves for the whole "
                     f"install, which this run (the project alone, --no-deps) leaves open: where that "
                     f"version has no build here, pip takes the next build in this order; 'pip install "
                     f"--dry-run --report - {project}' shows the pair")
    if chosen_filename and chosen_filename not in rows:
        # pip chose something the hooks did not list (an sdist, a wheel from a
        # source that has no variant wheels): show it, so the table is complete.
        if relevant:
            notes.append("pip chose a file that pip-variants did not evaluate (an sdist, or a release "
                         "without variant wheels)")
        label = None
        if chosen_filename.endswith(".whl"):
            from .filename import InvalidVariantFilename, split_variant_label

            try:
                label = split_variant_label(chosen_filename)[1]
            except InvalidVariantFilename:
                label = None
        rows[chosen_filename] = WheelExplanation(
            chosen_filename, label, (), True, None, "pip's choice (not evaluated by pip-variants)", None,
            chosen=True)

    def order_key(row: WheelExplanation) -> Tuple[int, int, str]:
        return (0 if row.chosen else 1, row.rank if row.rank is not None else 10**9, row.filename)

    wheels = tuple(sorted(rows.values(), key=order_key))
    return Explanation(
        # The project as pip spelled it, when the hooks recorded it.
        project=str(relevant[0].get("project") or project) if relevant else project,
        version=version,
        chosen=chosen_filename,
        chosen_url=chosen_url,
        sources=tuple(sources),
        wheels=wheels,
        providers=tuple(providers.values()),
        forced=forced,
        metadata_errors=tuple(errors),
        evaluated_versions=tuple(evaluated),
        recorded=bool(relevant),
        pip_error=pip_error,
        notes=tuple(notes),
    )


# ------------------------------------------------------------------------ rendering


def _short(values: Sequence[str], limit: int = 6) -> str:
    if not values:
        return "nothing"
    shown = ", ".join(values[:limit])
    return shown + (f", ... ({len(values)} values)" if len(values) > limit else "")


def _yes_no(value: Optional[bool]) -> str:
    return "-" if value is None else ("yes" if value else "no")


def render(expl: Explanation) -> str:
    """The human report: one block per wheel, best first, then the machine."""
    lines: List[str] = []
    title = f"{expl.project} {expl.version}" if expl.version else expl.project
    if expl.chosen:
        lines.append(f"{title}: pip chooses {expl.chosen}")
    elif expl.pip_error and "No matching distribution found" in expl.pip_error:
        lines.append(f"{title}: pip found nothing to install")
    elif expl.pip_error:
        lines.append(f"{title}: pip failed before choosing a wheel")
    else:
        lines.append(f"{title}")
    for src in expl.sources:
        # without an index file the record names where the wheels were found (a page, a folder)
        what = "variant metadata" if src.split("#")[0].split("?")[0].endswith((".json", ".whl")) else "variant wheels found on"
        lines.append(f"  {what}: {src}")
    if expl.forced:
        lines.append(f"  --variant {expl.project}={expl.forced} asks for label {expl.forced!r}")
    for err in expl.metadata_errors:
        lines.append(f"  variant metadata unusable, variant wheels skipped: {err}")
    lines.append("")
    if not expl.recorded and not expl.pip_error:
        lines.append(
            "pip-variants recorded nothing for this release: it has no variant wheels, variants are turned "
            "off (--no-variants, PIP_NO_VARIANTS), or the pip-variants hooks are not active in this "
            "environment (see 'pip-variants status')."
        )
        lines.append("")
    if expl.wheels:
        width = max(len(w.filename) for w in expl.wheels)
        lines.append(f"  {'rank':<5} {'wheel':<{width}}  tags  variant")
        for w in expl.wheels:
            rank = str(w.rank) if w.rank is not None else "-"
            mark = "*" if w.chosen else " "
            lines.append(f"{mark} {rank:<5} {w.filename:<{width}}  {_yes_no(w.tags_fit):<4}  {_yes_no(w.variant_fit)}")
            if w.label is not None:
                props = ", ".join(w.properties) if w.properties else (
                    "no properties" if w.label == "null" else "properties not recorded")
                lines.append(f"        label {w.label}: {props}")
            lines.append(f"        {w.reason}")
        lines.append("")
        # pip's choice unranked: pip-variants ranked nothing (variants off), not "cannot use"
        dash = ("'-' means pip-variants did not rank the wheel" if any(w.chosen and w.rank is None for w in expl.wheels)
                else "'-' means pip cannot use the wheel")
        lines.append(f"  rank: 1 is tried first; {dash}; * marks pip's choice")
    if expl.providers:
        lines.append("")
        from .selection import PROFILE_HOLDER

        holder = PROFILE_HOLDER if any(p.source == "profile" for p in expl.providers) else "this machine"
        lines.append(f"What {holder} supports (per namespace of the release):")
        for p in expl.providers:
            lines.append(f"  {p.namespace} (from {p.source})")
            if p.supported:
                for f, values in p.supported.items():
                    lines.append(f"    {f}: {_short(list(values))}")
            else:
                lines.append("    nothing")
            for line in p.abi:
                lines.append(f"    version of {line}")
            if p.notice:
                lines.append(f"    note: {p.notice}")
    for note in expl.notes:
        lines.append(f"note: {note}")
    if len(expl.evaluated_versions) > 1:
        lines.append(f"note: pip-variants also evaluated versions {', '.join(v for v in expl.evaluated_versions if v != expl.version)}")
    if expl.pip_error:
        if lines and lines[-1]:
            lines.append("")
        lines.append("pip said:")
        lines.extend("  " + l for l in expl.pip_error.rstrip().splitlines())
    return "\n".join(lines).rstrip() + "\n"
