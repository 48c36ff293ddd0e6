"""H1 on pip's real ``Wheel`` class."""

from __future__ import annotations

import pytest

from pip_variants._pip.state import STATE


@pytest.fixture
def labels(patched):
    STATE.labels = True
    yield


def test_labelled_name_parses(labels):
    from pip._internal.models.wheel import Wheel

    w = Wheel("pkg-1.0-py3-none-any-cu129.whl")
    assert w.filename == "pkg-1.0-py3-none-any-cu129.whl"
    assert w.variant_label == "cu129"
    assert str(w.name).lower() == "pkg"
    assert w.version == "1.0"
    assert w.get_formatted_file_tags() == ["py3-none-any"]
    assert not w.build_tag


def test_build_tag_and_label(labels):
    from pip._internal.models.wheel import Wheel

    w = Wheel("pkg-1.0-1abc-cp311-cp311-manylinux_2_28_x86_64-cu130.whl")
    assert w.variant_label == "cu130"
    assert w.filename.endswith("-cu130.whl")
    tag = w.build_tag
    assert tag == "1abc" or tuple(tag) == (1, "abc")  # str up to 25.0, tuple from 25.1
    assert w.get_formatted_file_tags() == ["cp311-cp311-manylinux_2_28_x86_64"]


def test_null_label(labels):
    from pip._internal.models.wheel import Wheel

    assert Wheel("pkg-1.0-py3-none-any-null.whl").variant_label == "null"


def test_plain_names_unchanged(labels):
    from pip._internal.models.wheel import Wheel

    w = Wheel("pkg-1.0-2-py3-none-any.whl")
    assert w.variant_label is None
    assert w.filename == "pkg-1.0-2-py3-none-any.whl"
    assert w.build_tag in ("2", (2, ""))


@pytest.mark.parametrize("name", ["pkg-1.0-py3-none-any-CU129.whl", "pkg-1.0-py3-none-any-cu-1-x.whl"])
def test_malformed_labels_rejected_as_before(labels, name):
    from pip._internal.exceptions import InvalidWheelFilename
    from pip._internal.models.wheel import Wheel

    with pytest.raises(InvalidWheelFilename):
        Wheel(name)


def test_pass_through_when_variants_are_off(patched):
    from pip._internal.exceptions import InvalidWheelFilename
    from pip._internal.models.wheel import Wheel

    assert not STATE.labels
    with pytest.raises(InvalidWheelFilename):
        Wheel("pkg-1.0-py3-none-any-cu129.whl")
    assert not hasattr(Wheel("pkg-1.0-py3-none-any.whl"), "variant_label")


def test_stepped_aside_passes_through(labels):
    from pip._internal.exceptions import InvalidWheelFilename
    from pip._internal.models.wheel import Wheel

    STATE.stepped_aside = True
    with pytest.raises(InvalidWheelFilename):
        Wheel("pkg-1.0-py3-none-any-cu129.whl")


@pytest.mark.parametrize("in_configuration, words", [
    (False, "variants are off (--no-variants). Drop --no-variants to install it"),
    (True, "variants are off (no-variants in pip's configuration). Unset no-variants to install it"),
])
def test_variants_off_by_option_names_the_label_of_a_rejected_name(patched, in_configuration, words):
    # pip's own "Invalid build number" is all a file path would get otherwise.
    from pip._internal.exceptions import InvalidWheelFilename
    from pip._internal.models.wheel import Wheel

    STATE.off_by_option = True
    STATE.no_variants_in_configuration = in_configuration
    with pytest.raises(InvalidWheelFilename) as exc:
        Wheel("pkg-1.0-py3-none-any-cu129.whl")
    text = str(exc.value)
    assert text.endswith(f" is a variant wheel (label cu129), and {words}"), text
    assert text.count("pkg-1.0-py3-none-any-cu129.whl") == 1 and ".:" not in text, text  # pip 23.2 names the file
    with pytest.raises(InvalidWheelFilename) as exc:  # not a label: pip's words alone
        Wheel("pkg-1.0-py3-none-any-CU129.whl")
    assert "variant wheel" not in str(exc.value)


@pytest.fixture
def without_filename_module(patched, monkeypatch):
    """pip_variants.filename unloadable (a file deleted from site-packages)."""
    from pip_variants._pip import wheel as hook

    def broken(filename):
        raise ImportError("No module named 'pip_variants.filename'")

    monkeypatch.setattr(hook, "split_label", broken)


def test_a_broken_install_falls_back_to_stock_names(without_filename_module, monkeypatch, caplog):
    """A labelled name is refused as stock pip refuses it, after one warning."""
    from pip._internal.exceptions import InvalidWheelFilename
    from pip._internal.models.wheel import Wheel

    monkeypatch.setattr(STATE, "labels", True)
    with pytest.raises(InvalidWheelFilename):
        Wheel("pkg-1.0-py3-none-any-cu128.whl")
    with pytest.raises(InvalidWheelFilename):
        Wheel("pkg-1.0-py3-none-any-cu126.whl")
    said = [r.getMessage() for r in caplog.records if "internal error" in r.getMessage()]
    assert len(said) == 1 and "Wheel.__init__" in said[0], said


def test_a_broken_install_under_no_variants_gives_pips_own_error(without_filename_module, monkeypatch):
    from pip._internal.exceptions import InvalidWheelFilename
    from pip._internal.models.wheel import Wheel

    monkeypatch.setattr(STATE, "off_by_option", True)
    with pytest.raises(InvalidWheelFilename):
        Wheel("pkg-1.0-py3-none-any-cu128.whl")
