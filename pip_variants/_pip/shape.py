"""What each hook patches, and the shape it expects: checked on pips newer than the tested range.

On a pip inside the tested range the hooks patch directly. On a newer pip
(pip ships four releases a year) each watched module is first compared with
:data:`EXPECTED`: the class or function must be there, be the kind of object
the wrapper replaces (a plain function, a ``classmethod``) and take the
parameters the wrapper passes on, in that order (``inspect.signature``).
Every check passes: the hooks patch as usual and variants stay on (one notice
names the untested release). One fails: nothing is patched, whatever was
patched is restored, and pip stays stock with one warning.

Only the leading parameter names are compared: a release that adds a
trailing keyword parameter still fits, one that renames or reorders the
parameters a wrapper forwards does not.
"""

from __future__ import annotations

import inspect
from typing import Any, Dict, List, Optional, Tuple

from . import _patching

__all__ = ["Point", "EXPECTED", "problems"]

#: (owner: "" for the module itself or a class name, attribute, kind, leading parameters)
Point = Tuple[str, str, str, Tuple[str, ...]]

EXPECTED: Dict[str, Tuple[Point, ...]] = {
    "pip._internal.models.wheel": (
        ("Wheel", "__init__", "function", ("self", "filename")),
    ),
    "pip._internal.index.package_finder": (
        ("PackageFinder", "evaluate_links", "function", ("self", "link_evaluator", "links")),
        ("PackageFinder", "make_candidate_evaluator", "function", ("self", "project_name", "specifier", "hashes")),
        ("CandidateEvaluator", "get_applicable_candidates", "function", ("self", "candidates")),
        ("CandidateEvaluator", "_sort_key", "function", ("self", "candidate")),
    ),
    "pip._internal.index.sources": (
        ("_FlatDirectoryToUrls", "_scan_directory", "function", ("self",)),
    ),
    "pip._internal.resolution.resolvelib.factory": (
        ("Factory", "_fail_if_link_is_unsupported_wheel", "function", ("self", "link")),
        ("Factory", "get_installation_error", "function", ("self", "e")),
    ),
    "pip._internal.resolution.resolvelib.candidates": (
        ("_InstallRequirementBackedCandidate", "_check_metadata_consistency", "function", ("self", "dist")),
        ("_InstallRequirementBackedCandidate", "iter_dependencies", "function", ("self", "with_requires")),
        ("AlreadyInstalledCandidate", "iter_dependencies", "function", ("self", "with_requires")),
        ("ExtrasCandidate", "iter_dependencies", "function", ("self", "with_requires")),
    ),
    "pip._internal.metadata.importlib._dists": (
        ("Distribution", "iter_dependencies", "function", ("self", "extras")),
    ),
    "pip._internal.metadata.pkg_resources": (
        ("Distribution", "iter_dependencies", "function", ("self", "extras")),
    ),
    "pip._internal.resolution.resolvelib.resolver": (
        ("Resolver", "resolve", "function", ("self", "root_reqs")),
    ),
    "pip._internal.resolution.legacy.resolver": (
        ("Resolver", "resolve", "function", ("self", "root_reqs")),
    ),
    "pip._internal.resolution.resolvelib.found_candidates": (
        ("", "_iter_built", "function", ("infos",)),
        ("", "_iter_built_with_prepended", "function", ("installed", "infos")),
        ("", "_iter_built_with_inserted", "function", ("installed", "infos")),
    ),
    "pip._internal.cli.req_command": (
        ("RequirementCommand", "_build_package_finder", "function", ("self", "options", "session")),
    ),
    "pip._internal.models.installation_report": (
        ("InstallationReport", "_install_req_to_dict", "classmethod", ("cls", "ireq")),
    ),
    "pip._internal.operations.prepare": (
        ("RequirementPreparer", "save_linked_requirement", "function", ("self", "req")),
        ("RequirementPreparer", "prepare_linked_requirements_more", "function", ("self", "reqs")),
    ),
    "pip._internal.commands.install": (("InstallCommand", "add_options", "function", ("self",)),),
    "pip._internal.commands.download": (("DownloadCommand", "add_options", "function", ("self",)),),
    "pip._internal.commands.wheel": (("WheelCommand", "add_options", "function", ("self",)),),
    "pip._internal.commands.lock": (("LockCommand", "add_options", "function", ("self",)),),
    "pip._internal.commands.show": (
        ("", "print_results", "function", ("distributions", "list_files", "verbose")),
        ("", "write_output", "function", ()),
    ),
    "pip._internal.commands.inspect": (
        ("InspectCommand", "_dist_to_dict", "function", ("self", "dist")),
    ),
    "pip._internal.commands.list": (
        ("", "format_for_columns", "function", ("pkgs", "options")),
        ("", "format_for_json", "function", ("packages", "options")),
    ),
    # H20 is a convenience: a newer pip without these points just lists as stock pip does.
    "pip._internal.commands.index": (),
    # H22 too: without install_wheel, an install from a plain wheel is just not marked.
    "pip._internal.operations.install.wheel": (),
}


def _describe(module_name: str, owner: str, attr: str) -> str:
    return f"{module_name}.{owner + '.' if owner else ''}{attr}"


def _problem(module: Any, point: Point) -> Optional[str]:
    owner_name, attr, kind, params = point
    name = module.__name__
    owner: Any = module
    if owner_name:
        owner = getattr(module, owner_name, None)
        if not isinstance(owner, type):
            return f"{name}.{owner_name} is gone"
    # The object as pip defines it, before any patch of ours (a re-check after patching).
    raw = _patching.original(owner, attr)
    if raw is None:
        return f"{_describe(name, owner_name, attr)} is gone"
    if kind == "classmethod":
        if not isinstance(raw, classmethod):
            return f"{_describe(name, owner_name, attr)} is no longer a classmethod"
        func = raw.__func__
    else:
        if isinstance(raw, (classmethod, staticmethod)) or not callable(raw):
            return f"{_describe(name, owner_name, attr)} is no longer a plain function"
        func = raw
    if not params:
        return None
    try:
        found = tuple(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return f"{_describe(name, owner_name, attr)} has no readable signature"
    if found[: len(params)] != params:
        return (
            f"{_describe(name, owner_name, attr)} takes ({', '.join(found)}), "
            f"expected ({', '.join(params)}, ...)"
        )
    return None


def problems(module: Any) -> List[str]:
    """What in ``module`` no longer has the shape its hook expects (empty: all fit)."""
    out = []
    for point in EXPECTED.get(module.__name__, ()):
        problem = _problem(module, point)
        if problem:
            out.append(problem)
    return out
