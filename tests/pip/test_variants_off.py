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
        "(--no-variants): pip takes pkg 1.0 instead. Drop --no-variants to install pkg 2.0 (if one of its variant wheels fits this machine)"
    ]


@needs_unscanned_folders
def test_pip_lock_names_what_it_leaves_out(patched, wheels, caplog):
    finder = variant_finder([str(wheels)], command="lock")
    assert best_filename(finder) == "pkg-1.0-py3-none-any.whl"
    assert _warnings(caplog) == [
        "pip-variants: pkg 2.0 has only variant wheels for this platform, and variants are off "
        "(pip lock cannot record wheel variants yet): pip takes pkg 1.0 instead. Use pip install to install "
        "pkg 2.0 (if one of its variant wheels fits this machine)"
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


# Labelled links handed to H2 by hand: pip then finds what the folder's plain wheels offer.
# Every pip, as labelled names from an index reach H2 on every pip.


def _labelled_link(d, name, **kwargs):
    from pip._internal.models.link import Link

    return Link((d / name).as_uri(), **kwargs)


def _finder_noting(d, *names, **link_attributes):
    from pip_variants._pip.variants_off import note_links

    finder = variant_finder([str(d)], pip_variants_no_variants=True)
    note_links(finder.make_link_evaluator("pkg"), [_labelled_link(d, name, **link_attributes) for name in names])
    return finder


@pytest.fixture
def plain_one(tmp_path):
    d = tmp_path / "wheels"
    d.mkdir()
    build_wheel(d, "pkg", "1.0")
    return d


def test_the_newest_the_requirement_allows_is_named(patched, plain_one, caplog):
    from pip._vendor.packaging.specifiers import SpecifierSet

    finder = _finder_noting(plain_one, "pkg-2.0-py3-none-any-fv3.whl", "pkg-3.0-py3-none-any-fv3.whl")
    assert finder.find_best_candidate("pkg", SpecifierSet("<3")).best_candidate.version.public == "1.0"
    assert _warnings(caplog) == [
        "pip-variants: pkg 2.0 has only variant wheels for this platform, and variants are off "
        "(--no-variants): pip takes pkg 1.0 instead. Drop --no-variants to install pkg 2.0 (if one of its variant wheels fits this machine)"
    ]


def test_prereleases_follow_pips_rule(patched, tmp_path, caplog):
    d = tmp_path / "wheels"
    d.mkdir()
    # Nothing but a prerelease: pip would have taken it, so its absence is worth a word ...
    finder = _finder_noting(d, "pkg-2.0rc1-py3-none-any-fv3.whl")
    assert best_filename(finder) is None
    assert _warnings(caplog) == [
        "pip-variants: pkg 2.0rc1 has only variant wheels for this platform, and variants are off "
        "(--no-variants): no other build of pkg fits. Drop --no-variants to install pkg 2.0rc1 (if one of its variant wheels fits this machine)"
    ]
    # ... next to a final release pip passes it over: no word (--pre would change that)
    caplog.clear()
    STATE.left_out_by_no_variants.clear()
    d = tmp_path / "with-a-final"  # a folder of its own: pip 26 remembers what it scanned
    d.mkdir()
    build_wheel(d, "pkg", "1.0")
    finder = _finder_noting(d, "pkg-2.0rc1-py3-none-any-fv3.whl")
    assert best_filename(finder) == "pkg-1.0-py3-none-any.whl"
    assert _warnings(caplog) == []


def test_a_requires_python_pip_cannot_read_is_ignored_as_pip_ignores_it(patched, plain_one, caplog):
    finder = _finder_noting(plain_one, "pkg-2.0-py3-none-any-fv3.whl", requires_python="not a specifier")
    assert best_filename(finder) == "pkg-1.0-py3-none-any.whl"
    assert "pkg 2.0 has only variant wheels" in " ".join(_warnings(caplog))


def test_a_requires_python_that_excludes_this_python_is_respected(patched, plain_one, caplog):
    finder = _finder_noting(plain_one, "pkg-2.0-py3-none-any-fv3.whl", requires_python="<3")
    assert best_filename(finder) == "pkg-1.0-py3-none-any.whl"
    assert _warnings(caplog) == []


def test_uploaded_prior_to_is_respected(patched, plain_one, caplog):
    import datetime

    evaluator = variant_finder([str(plain_one)], pip_variants_no_variants=True).make_link_evaluator("pkg")
    if not hasattr(evaluator, "_uploaded_prior_to"):
        pytest.skip("--uploaded-prior-to: pip 26.0+")
    from pip_variants._pip.variants_off import note_links

    cutoff = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    evaluator._uploaded_prior_to = cutoff
    early, late = cutoff - datetime.timedelta(days=1), cutoff + datetime.timedelta(days=1)
    from pip._internal.models.link import Link

    links = [Link(f"https://example.org/pkg-{version}-py3-none-any-fv3.whl", upload_time=when)
             for version, when in (("2.0", early), ("3.0", late), ("4.0", None))]
    note_links(evaluator, links)
    assert {str(v) for v in STATE.left_out_by_no_variants["pkg"]} == {"2.0"}


def test_no_variants_from_pip_configuration_is_named(patched, tmp_path, monkeypatch):
    import os

    from pip._internal import configuration
    from pip._internal.commands import create_command

    from pip_variants._pip.variants_off import set_in_configuration

    # This machine's own pip.conf files stay out: only the test's file is read.
    kinds = list(configuration.get_configuration_files())
    monkeypatch.setattr(configuration, "get_configuration_files", lambda: {kind: [] for kind in kinds})
    for name in [n for n in os.environ if n.startswith("PIP_")]:
        monkeypatch.delenv(name)
    conf = tmp_path / "pip.conf"
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    for text, expected in (("[install]\nno-variants = true\n", True), ("[global]\nno-variants = yes\n", True),
                           ("[install]\nno-variants = false\n", False), ("[global]\ntimeout = 5\n", False)):
        conf.write_text(text)
        command = create_command("install")
        command.parser.config.load()
        assert set_in_configuration(command.parser) is expected, text
    assert set_in_configuration(None) is False


def test_the_message_names_pip_configuration(patched, plain_one, caplog):
    STATE.no_variants_in_configuration = True
    finder = _finder_noting(plain_one, "pkg-2.0-py3-none-any-fv3.whl")
    assert best_filename(finder) == "pkg-1.0-py3-none-any.whl"
    assert _warnings(caplog) == [
        "pip-variants: pkg 2.0 has only variant wheels for this platform, and variants are off "
        "(no-variants in pip's configuration): pip takes pkg 1.0 instead. "
        "Unset no-variants (pip config debug shows where) to install pkg 2.0 (if one of its variant wheels fits this machine)"
    ]


def test_a_prerelease_pip_takes_only_for_want_of_the_variant_wheels_is_named(patched, tmp_path, caplog):
    d = tmp_path / "wheels"
    d.mkdir()
    build_wheel(d, "pkg", "2.0rc1")  # with 1.5's variant wheels there, pip would pass this prerelease over
    finder = _finder_noting(d, "pkg-1.5-py3-none-any-fv3.whl")
    assert best_filename(finder) == "pkg-2.0rc1-py3-none-any.whl"
    assert _warnings(caplog) == [
        "pip-variants: pkg 1.5 has only variant wheels for this platform, and variants are off "
        "(--no-variants): pip takes pkg 2.0rc1 instead. Drop --no-variants to install pkg 1.5 (if one of its variant wheels fits this machine)"
    ]


def test_what_pip_takes_is_what_it_would_install(patched, plain_one, caplog):
    (plain_one / "pkg-3.0.tar.gz").write_bytes(b"")  # newer, but --prefer-binary takes the wheel
    finder = _finder_noting(plain_one, "pkg-2.0-py3-none-any-fv3.whl")
    finder._candidate_prefs.prefer_binary = True
    assert best_filename(finder) == "pkg-1.0-py3-none-any.whl"
    assert _warnings(caplog) == [
        "pip-variants: pkg 2.0 has only variant wheels for this platform, and variants are off "
        "(--no-variants): pip takes pkg 1.0 instead. Drop --no-variants to install pkg 2.0 (if one of its variant wheels fits this machine)"
    ]


def test_a_version_that_is_not_pep_440_does_not_hide_the_notice(patched, plain_one, caplog):
    (plain_one / "pkg-latest.tar.gz").write_bytes(b"")  # pip 23.2: a LegacyVersion; later pips skip it
    finder = _finder_noting(plain_one, "pkg-2.0-py3-none-any-fv3.whl")
    finder.find_best_candidate("pkg")
    assert "pkg 2.0 has only variant wheels" in " ".join(_warnings(caplog))
