"""Real pip objects for the in-process tests (no mocks of pip itself)."""

from __future__ import annotations

import optparse
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from support.wheels import build_release, static_provider, variants_json

#: A release whose providers are static: no hardware detection involved.
STATIC_DATA = variants_json(
    "pkg",
    "1.0",
    namespaces=["fake"],
    providers={"fake": static_provider({"level": ["v3", "v2", "v1"]})},
    variants={
        "fv3": {"fake": {"level": ["v3"]}},
        "fv1": {"fake": {"level": ["v1"]}},
        "fv9": {"fake": {"level": ["v9"]}},
        "null": {},
    },
)


def build_pkg(directory: Path, *, index_file: bool = True, plain: bool = True,
              labels: Optional[Sequence[str]] = None, version: str = "1.0") -> None:
    build_release(directory, "pkg", version, STATIC_DATA, index_file=index_file, plain=plain,
                  labels=labels)


def make_finder(find_links: Sequence[str] = (), index_urls: Sequence[str] = ()) -> Any:
    from pip._internal.index.collector import LinkCollector
    from pip._internal.index.package_finder import PackageFinder
    from pip._internal.models.search_scope import SearchScope
    from pip._internal.models.selection_prefs import SelectionPreferences
    from pip._internal.network.session import PipSession

    session = PipSession()
    scope = SearchScope.create(find_links=list(find_links), index_urls=list(index_urls),
                               no_index=not index_urls)
    collector = LinkCollector(session=session, search_scope=scope)
    return PackageFinder.create(
        link_collector=collector, selection_prefs=SelectionPreferences(allow_yanked=True)
    )


def options(**values: Any) -> optparse.Values:
    defaults: Dict[str, Any] = {
        "pip_variants_no_variants": False,
        "pip_variants_variant": [],
        "pip_variants_profile": None,
        "pip_variants_allow_plugin": [],
        "pip_variants_enable": [],
        "pip_variants_strict": False,
    }
    defaults.update(values)
    return optparse.Values(defaults)


def variant_finder(find_links: Sequence[str] = (), command: str = "install", **opts: Any) -> Any:
    from pip_variants._pip.req_command import configure_finder

    finder = make_finder(find_links)
    configure_finder(command, options(**opts), finder._link_collector.session, finder)
    return finder


def best_filename(finder: Any, project: str = "pkg") -> Optional[str]:
    result = finder.find_best_candidate(project)
    best = result.best_candidate
    return None if best is None else best.link.filename


def applicable_filenames(finder: Any, project: str = "pkg") -> list:
    from pip_variants._pip import _compat

    result = finder.find_best_candidate(project)
    return [c.link.filename for c in _compat.applicable_candidates(result)]
