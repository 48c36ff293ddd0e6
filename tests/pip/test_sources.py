"""H6: find-links directories keep variant wheels and index files (pip 24.0+)."""

from __future__ import annotations

import pytest
from _helpers import build_pkg, variant_finder


def test_directory_scan_keeps_variant_files(patched, tmp_path):
    from pip._internal.index import sources

    if not hasattr(sources, "_FlatDirectoryToUrls"):
        pytest.skip("pip 23.2 yields every file of a find-links directory")
    d = tmp_path / "wheels"
    d.mkdir()
    build_pkg(d)
    variant_finder([str(d)])  # variants on
    scan = sources._FlatDirectoryToUrls(path=str(d))
    names = sorted(url.rsplit("/", 1)[-1] for url in scan.project_name_to_urls["pkg"])
    assert names == [
        "pkg-1.0-py3-none-any-fv1.whl",
        "pkg-1.0-py3-none-any-fv3.whl",
        "pkg-1.0-py3-none-any-fv9.whl",
        "pkg-1.0-py3-none-any-null.whl",
        "pkg-1.0-py3-none-any.whl",
        "pkg-1.0-variants.json",
    ]


def test_directory_scan_is_stock_when_variants_are_off(patched, tmp_path):
    from pip._internal.index import sources

    if not hasattr(sources, "_FlatDirectoryToUrls"):
        pytest.skip("pip 23.2 yields every file of a find-links directory")
    d = tmp_path / "wheels"
    d.mkdir()
    build_pkg(d)
    scan = sources._FlatDirectoryToUrls(path=str(d))
    names = [url.rsplit("/", 1)[-1] for url in scan.project_name_to_urls["pkg"]]
    assert names == ["pkg-1.0-py3-none-any.whl"]
