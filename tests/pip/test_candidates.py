"""H12: a downloaded variant wheel is compared with the index file that chose it."""

from __future__ import annotations

import zipfile
from types import SimpleNamespace

import pytest

from pip_variants import metadata, metadata_write
from pip_variants._pip.candidates import variant_mismatch
from pip_variants._pip.state import STATE, ChosenVariant

from _helpers import STATIC_DATA, build_pkg

URL = "https://files.example/pkg-1.0-py3-none-any-fv3.whl"


def _pip_dist(path):
    """What pip prepares from a downloaded wheel: its ``.dist-info`` files in memory."""
    from pip._internal.metadata import get_wheel_distribution
    from pip._internal.metadata.base import FilesystemWheel

    return get_wheel_distribution(FilesystemWheel(str(path)), "pkg")


def _metadata_only_dist(path):
    """What pip prepares from a PEP 658 ``.metadata`` file: METADATA alone."""
    from pip._internal.metadata import get_metadata_distribution

    with zipfile.ZipFile(path) as zf:
        text = zf.read("pkg-1.0.dist-info/METADATA")
    return get_metadata_distribution(text, path.name, "pkg")


@pytest.fixture
def chosen(patched, tmp_path):
    """The fv3 wheel, as H4 chose it from the index file, and a candidate for it."""
    from pip._internal.models.link import Link

    build_pkg(tmp_path, plain=False)
    index_md = metadata.load_metadata((tmp_path / "pkg-1.0-variants.json").read_bytes(), "variants.json")
    STATE.chosen[URL] = ChosenVariant("fv3", [], "https://files.example/pkg-1.0-variants.json",
                                      metadata=index_md)
    wheel = tmp_path / "pkg-1.0-py3-none-any-fv3.whl"
    candidate = SimpleNamespace(_link=Link(URL), _ireq=SimpleNamespace(local_file_path=str(wheel)))
    yield candidate, wheel
    STATE.chosen.pop(URL, None)


def _no_archive_reads(mocker):
    return mocker.patch.object(metadata, "load_wheel_metadata", side_effect=AssertionError("archive read"))


def test_the_wheel_pip_read_is_not_opened_again(chosen, mocker):
    candidate, wheel = chosen
    _no_archive_reads(mocker)
    assert variant_mismatch(candidate, _pip_dist(wheel)) is None


def _make_it_lie(wheel):
    liar = dict(STATIC_DATA, variants={"fv3": {"fake": {"level": ["v1"]}}})
    rebuilt = wheel.with_name("rebuilt.whl")
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(rebuilt, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith("/variant.json"):
                data = metadata_write.dumps(metadata.parse_metadata(liar, "liar")).encode()
            dst.writestr(info, data)
    rebuilt.replace(wheel)


def test_a_disagreeing_wheel_is_found_in_pips_copy(chosen, mocker):
    candidate, wheel = chosen
    _make_it_lie(wheel)
    _no_archive_reads(mocker)
    promised, problem = variant_mismatch(candidate, _pip_dist(wheel))
    assert "label 'fv3' as in https://files.example/pkg-1.0-variants.json" == promised
    assert problem == "label 'fv3' has different properties in the wheel and in the index file"


@pytest.mark.parametrize("make_dist", [_metadata_only_dist, lambda path: None], ids=["pep658", "none"])
def test_without_pips_copy_the_archive_is_read(chosen, mocker, make_dist):
    from pip._internal.utils.temp_dir import global_tempdir_manager

    candidate, wheel = chosen
    spy = mocker.spy(metadata, "load_wheel_metadata")
    with global_tempdir_manager():
        assert variant_mismatch(candidate, make_dist(wheel)) is None
    assert spy.call_count == 1


def test_an_invalid_copy_is_worded_by_the_archive_reader(chosen, tmp_path):
    """The wheel's variant.json describes another label: worded as before."""
    candidate, wheel = chosen
    other = tmp_path / "pkg-1.0-py3-none-any-fv1.whl"
    wheel.write_bytes(other.read_bytes())
    promised, problem = variant_mismatch(candidate, _pip_dist(wheel))
    assert promised.startswith("label 'fv3'")
    assert "must describe exactly the filename's label 'fv3', found ['fv1']" in problem


def test_a_local_wheel_is_checked_too(chosen, tmp_path):
    """A --find-links wheel is compared here, not when it is selected."""
    from pip._internal.models.link import Link

    candidate, wheel = chosen
    liar = tmp_path / "liar" / wheel.name
    liar.parent.mkdir()
    liar.write_bytes((tmp_path / "pkg-1.0-py3-none-any-fv1.whl").read_bytes())
    url = Link(liar.as_uri())
    STATE.chosen[url.url_without_fragment] = STATE.chosen[URL]
    local = SimpleNamespace(_link=url, _ireq=SimpleNamespace(local_file_path=str(liar)))
    try:
        promised, problem = variant_mismatch(local, _pip_dist(liar))
    finally:
        STATE.chosen.pop(url.url_without_fragment, None)
    assert "must describe exactly the filename's label 'fv3', found ['fv1']" in problem


def test_strict_makes_a_disagreeing_wheel_an_error(chosen, monkeypatch):
    # WM-5: without --variant-strict pip drops the wheel and tries the next best one;
    # with it, the command stops with one error and installs nothing
    from pip_variants._pip import _compat, candidates
    from pip_variants._pip.errors import VariantInstallationError

    candidate, wheel = chosen
    _make_it_lie(wheel)
    check = candidates._wrap(lambda self, dist: None)
    monkeypatch.setattr(candidates, "selecting", lambda: True)
    monkeypatch.setattr(STATE, "strict", True)
    with pytest.raises(VariantInstallationError, match="--variant-strict makes this an error"):
        check(candidate, _pip_dist(wheel))
    monkeypatch.setattr(STATE, "strict", False)
    with pytest.raises(_compat.MetadataInconsistent):
        check(candidate, _pip_dist(wheel))
