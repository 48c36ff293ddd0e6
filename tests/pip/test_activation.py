"""activate / deactivate / is_active on a throw-away prefix."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from pip_variants import activation

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def prefix(tmp_path):
    site = Path(sysconfig.get_paths(vars={"base": str(tmp_path), "platbase": str(tmp_path)})["purelib"])
    site.mkdir(parents=True)
    return tmp_path


SHIM_FILES = ("_pip_variants_shim.py", "pip_variants.pth", "pip_variants.start")


def test_activate_writes_exactly_the_shim_files(prefix):
    written = activation.activate(str(prefix))
    site = activation.site_packages(str(prefix))
    assert sorted(p.name for p in site.iterdir()) == sorted(SHIM_FILES)
    assert sorted(written) == sorted(site / n for n in SHIM_FILES)
    assert activation.is_active(str(prefix))


def test_files_match_the_wheel_shim(prefix):
    activation.activate(str(prefix))
    site = activation.site_packages(str(prefix))
    for name in SHIM_FILES:
        assert (site / name).read_text() == (REPO / "sitecustomize_shim" / name).read_text()


def test_deactivate_removes_them(prefix):
    activation.activate(str(prefix))
    site = activation.site_packages(str(prefix))
    (site / "other.pth").write_text("x\n")
    removed = activation.deactivate(str(prefix))
    assert len(removed) == 3
    assert [p.name for p in site.iterdir()] == ["other.pth"]
    assert not activation.is_active(str(prefix))
    assert activation.deactivate(str(prefix)) == []


def test_activate_is_idempotent(prefix):
    activation.activate(str(prefix))
    activation.activate(str(prefix))
    assert len(list(activation.site_packages(str(prefix)).iterdir())) == 3


def test_missing_site_packages(tmp_path):
    with pytest.raises(activation.ActivationError, match="no site-packages directory"):
        activation.activate(str(tmp_path / "nope"))


def test_read_only_site_packages(prefix, monkeypatch):
    def denied(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "write_text", denied)
    with pytest.raises(activation.ActivationError, match="read-only") as info:
        activation.activate(str(prefix))
    assert isinstance(info.value, OSError)
    assert "virtual environment" in str(info.value)


def test_default_prefix_is_this_environment():
    assert activation.site_packages() == Path(sysconfig.get_paths()["purelib"])
