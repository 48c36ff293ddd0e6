"""H7: a local variant wheel is checked against this machine."""

from __future__ import annotations

import re

import pytest
from _helpers import STATIC_DATA, variant_finder
from support.wheels import build_wheel

from pip_variants._pip.context import ATTR
from pip_variants._pip.factory import check_variant_link


def _link(path):
    from pip._internal.models.link import Link
    from pip._internal.utils.urls import path_to_url

    return Link(path_to_url(str(path)))


def test_supported_local_variant(patched, tmp_path):
    ctx = getattr(variant_finder(), ATTR)
    wheel = build_wheel(tmp_path, "pkg", "1.0", label="fv1", variant_json=STATIC_DATA)
    check_variant_link(ctx, _link(wheel), "fv1")


def test_unsupported_local_variant(patched, tmp_path):
    from pip._internal.exceptions import UnsupportedWheel

    ctx = getattr(variant_finder(), ATTR)
    wheel = build_wheel(tmp_path, "pkg", "1.0", label="fv9", variant_json=STATIC_DATA)
    with pytest.raises(UnsupportedWheel, match="is not a supported variant on this system: needs fake :: level :: v9.*add --variant pkg=fv9"):
        check_variant_link(ctx, _link(wheel), "fv9")


def test_forced_local_variant_is_accepted(patched, tmp_path):
    ctx = getattr(variant_finder(pip_variants_variant=["pkg=fv9"]), ATTR)
    wheel = build_wheel(tmp_path, "pkg", "1.0", label="fv9", variant_json=STATIC_DATA)
    check_variant_link(ctx, _link(wheel), "fv9")


def test_variant_wheel_without_metadata(patched, tmp_path):
    from pip._internal.exceptions import UnsupportedWheel

    ctx = getattr(variant_finder(), ATTR)
    plain = build_wheel(tmp_path, "pkg", "1.0")
    renamed = plain.with_name("pkg-1.0-py3-none-any-fv1.whl")
    plain.rename(renamed)
    with pytest.raises(UnsupportedWheel) as exc:
        check_variant_link(ctx, _link(renamed), "fv1")
    # the wheel named once
    assert str(exc.value) == f"{renamed} is not a valid variant wheel: variant wheel has no *.dist-info/variant.json"


def test_constraint_warning_names_a_local_wheel_once(patched, tmp_path):
    from pip_variants._pip.factory import constraint_warning

    broken = tmp_path / "pkg-1.0-py3-none-any-fv1.whl"
    link = _link(broken)
    text = constraint_warning(link, ValueError(f"{broken} is not a valid variant wheel: bad zip"))
    assert text == f"pip-variants: a constraint cannot be used: {broken} is not a valid variant wheel: bad zip"
    assert text.count(broken.name) == 1
    unsupported = constraint_warning(link, ValueError(f"{broken.name} is not a supported variant on this system"))
    assert unsupported.startswith(f"pip-variants: the constraint {link.url_without_fragment} cannot be used: ")


def test_a_strict_error_on_a_local_wheel_is_pip_s_one_line_error(patched, tmp_path):
    """--variant-strict and an untrusted provider: an error naming the wheel,
    never an internal error that turns pip-variants off for the run."""
    from pip_variants._pip.errors import VariantInstallationError
    from pip_variants._pip.factory import _wrap
    from pip_variants._pip.state import STATE
    from support.wheels import FICTIONAL_PROVIDER, variants_json

    untrusted = variants_json("pkg", "1.0", namespaces=["fictional"], providers={"fictional": FICTIONAL_PROVIDER},
                              variants={"hw": {"fictional": {"tech": ["x"]}}})
    finder = variant_finder(pip_variants_strict=True)
    wheel = build_wheel(tmp_path, "pkg", "1.0", label="hw", variant_json=untrusted)

    class Factory:
        _finder = finder

    check = _wrap(lambda self, link: None)
    with pytest.raises(VariantInstallationError, match=f"^{re.escape(wheel.name)}: .*not trusted.*--variant-strict"):
        check(Factory(), _link(wheel))
    assert not STATE.broken
