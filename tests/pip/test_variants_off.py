"""BC-1: ``--no-variants`` names the newest release it leaves out, on a real ``PackageFinder``."""

from __future__ import annotations

import pytest
from _helpers import best_filename, build_pkg, variant_finder

from pip_variants._pip import _compat
from pip_variants._pip.state import STATE
from support.wheels import build_wheel

# A find-links folder: pip 24.0+ drops names it cannot read (labelled ones, with variants
# off) while scanning the folder, before H2; from an index, every pip (test_pip_options_e2e).
needs_unscanned_folders = pytest.mark.skipif(
    _compat.has_scan_directory(), reason="pip 24.0+ drops labelled names when it scans a find-links folder")


@pytest.fixture
def wheels(tmp_path):
    d = tmp_path / "wheels"
    d.mkdir()
    build_wheel(d, "pkg", "1.0")
    build_pkg(d, version="2.0", plain=False)  # only variant wheels (and the index file)
    return d


def _warnings(caplog):
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


@needs_unscanned_folders
def test_an_older_version_taken_is_named(patched, wheels, caplog):
    finder = variant_finder([str(wheels)], pip_variants_no_variants=True)
    assert best_filename(finder) == "pkg-1.0-py3-none-any.whl"
    assert _warnings(caplog) == [
        "pip-variants: pkg 2.0 has only variant wheels for this platform, and variants are off "
        "(--no-variants): pip takes pkg 1.0 instead. Drop --no-variants to install pkg 2.0"
    ]


@needs_unscanned_folders
def test_nothing_installable_is_named(patched, tmp_path, caplog):
    d = tmp_path / "wheels"
    d.mkdir()
    build_pkg(d, plain=False)
    finder = variant_finder([str(d)], pip_variants_no_variants=True)
    assert best_filename(finder) is None
    assert any("no other build of pkg fits" in m for m in _warnings(caplog))


@needs_unscanned_folders
def test_silent_where_nothing_is_left_out(patched, wheels, tmp_path, caplog):
    from pip._vendor.packaging.specifiers import SpecifierSet

    finder = variant_finder([str(wheels)], pip_variants_no_variants=True)
    assert finder.find_best_candidate("pkg", SpecifierSet("<2")).best_candidate.version.public == "1.0"
    build_wheel(wheels, "pkg", "2.0")  # a plain wheel of 2.0 too
    finder = variant_finder([str(wheels)], pip_variants_no_variants=True)
    assert best_filename(finder) == "pkg-2.0-py3-none-any.whl"
    assert _warnings(caplog) == []


def test_incompatible_or_prerelease_variant_wheels_are_not_counted(patched, tmp_path, caplog):
    d = tmp_path / "wheels"
    d.mkdir()
    build_wheel(d, "pkg", "1.0")
    build_pkg(d, version="3.0rc1", plain=False)  # a prerelease pip would not take
    build_wheel(d, "pkg", "2.0", label="fv1", tag="cp27-cp27m-win32")  # another platform
    finder = variant_finder([str(d)], pip_variants_no_variants=True)
    assert best_filename(finder) == "pkg-1.0-py3-none-any.whl"
    assert _warnings(caplog) == []


def test_off_only_by_option(patched, wheels, caplog):
    finder = variant_finder([str(wheels)])
    assert best_filename(finder) == "pkg-2.0-py3-none-any-fv3.whl"
    assert not STATE.off_by_option and STATE.left_out_by_no_variants == {}
    assert _warnings(caplog) == []


def test_no_binary_leaves_nothing_to_say(patched, wheels, caplog):
    from pip._internal.models.format_control import FormatControl

    finder = variant_finder([str(wheels)], pip_variants_no_variants=True)
    finder.format_control = FormatControl({"pkg"}, set())  # --no-binary pkg: no wheel would do
    finder.find_best_candidate("pkg")
    assert _warnings(caplog) == []


@needs_unscanned_folders
def test_yanked_variant_wheels_are_not_counted(patched, tmp_path, caplog):
    d = tmp_path / "wheels"
    d.mkdir()
    build_wheel(d, "pkg", "1.0")
    build_pkg(d, version="2.0", plain=False)
    from pip._internal.models.link import Link

    from pip_variants._pip.variants_off import note_links

    evaluator = variant_finder([str(d)], pip_variants_no_variants=True).make_link_evaluator("pkg")
    note_links(evaluator, [Link(f"{(d / 'pkg-2.0-py3-none-any-fv3.whl').as_uri()}", yanked_reason="broken")])
    assert STATE.left_out_by_no_variants == {}
