"""activate / deactivate / is_active on a throw-away prefix."""

from __future__ import annotations

import os
import site
import stat
import sys
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


def test_each_activation_writes_a_temporary_file_of_its_own(prefix):
    # what another writer left at a fixed temporary name (here, a folder) is not
    # in the way: two activations at once no longer share (and lose) one file
    site_dir = activation.site_packages(str(prefix))
    for name in SHIM_FILES:
        (site_dir / (name + ".tmp")).mkdir()
    assert sorted(p.name for p in activation.activate(str(prefix))) == sorted(SHIM_FILES)
    leftovers = sorted(p.name for p in site_dir.iterdir() if p.name.endswith(".tmp"))
    assert leftovers == sorted(name + ".tmp" for name in SHIM_FILES)


def test_a_linked_shim_file_is_replaced_not_its_target(prefix, tmp_path):
    # a shared or read-only target (a Nix- or conda-style linked file) stays as it was
    site_dir = activation.site_packages(str(prefix))
    target = tmp_path / "shared.pth"
    target.write_text("import sys\n")
    (site_dir / "pip_variants.pth").symlink_to(target)
    activation.activate(str(prefix))
    assert not (site_dir / "pip_variants.pth").is_symlink()
    assert target.read_text() == "import sys\n"


def test_missing_site_packages(tmp_path):
    with pytest.raises(activation.ActivationError, match="no site-packages directory"):
        activation.activate(str(tmp_path / "nope"))


def test_read_only_site_packages(prefix, monkeypatch):
    def denied(path, data):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(activation, "_write_file", denied)
    with pytest.raises(activation.ActivationError, match="Permission denied") as info:
        activation.activate(str(prefix))
    assert isinstance(info.value, OSError)
    assert "_pip_variants_shim.py" in str(info.value)
    assert "virtual environment" in str(info.value)


def test_read_only_file_system_says_so_once_and_what_helps(prefix, monkeypatch):
    import errno

    def read_only(path, data):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(activation, "_write_file", read_only)
    with pytest.raises(activation.ActivationError) as info:
        activation.activate(str(prefix))
    said = str(info.value)
    assert said.count("ead-only file system") == 1, said
    assert "mount it read-write" in said and "as the user who owns it" not in said


def test_default_prefix_is_this_environment():
    assert activation.site_packages() == Path(sysconfig.get_paths()["purelib"])


# -- shipped copies ---------------------------------------------------------------


def _installed_layout(root: Path) -> Path:
    """A site directory laid out as the wheel installs pip-variants: the package
    with its shipped copies in pip_variants/_shim/ (no sitecustomize_shim/ beside it)."""
    pkg = root / "pip_variants"
    (pkg / "_shim").mkdir(parents=True)
    for name in SHIM_FILES:
        (pkg / "_shim" / name).write_bytes((REPO / "sitecustomize_shim" / name).read_bytes())
    (pkg / "activation.py").write_text("# stand-in\n")
    return pkg / "activation.py"


def test_shipped_copies_in_an_installed_package_win(tmp_path, monkeypatch):
    fake = _installed_layout(tmp_path / "site")
    (fake.parent / "_shim" / "_pip_variants_shim.py").write_text("# shipped by this release\n")
    monkeypatch.setattr(activation, "__file__", str(fake))
    assert activation.shipped_shim_dir() == fake.parent / "_shim"
    assert activation.shipped_files()["_pip_variants_shim.py"] == b"# shipped by this release\n"


def test_contents_come_from_the_shipped_copies(prefix, tmp_path, monkeypatch):
    fake = _installed_layout(tmp_path / "site")
    (fake.parent / "_shim" / "pip_variants.pth").write_text("import _pip_variants_shim  # v2\n")
    monkeypatch.setattr(activation, "__file__", str(fake))
    activation.activate(str(prefix))
    site = activation.site_packages(str(prefix))
    assert (site / "pip_variants.pth").read_text() == "import _pip_variants_shim  # v2\n"


def test_missing_shipped_copies_say_reinstall(tmp_path, monkeypatch):
    pkg = tmp_path / "site" / "pip_variants"
    pkg.mkdir(parents=True)
    monkeypatch.setattr(activation, "__file__", str(pkg / "activation.py"))
    with pytest.raises(activation.ActivationError, match="reinstall"):
        activation.shipped_files()


def test_written_files_get_the_umask_mode(prefix):
    old = os.umask(0o022)
    try:
        for path in activation.activate(str(prefix)):
            assert stat.S_IMODE(path.stat().st_mode) == 0o644
    finally:
        os.umask(old)


def test_conda_prefix_of_another_python_minor(tmp_path):
    site = tmp_path / "lib" / "python3.99" / "site-packages"
    site.mkdir(parents=True)
    assert activation.site_packages(str(tmp_path)) == site
    activation.activate(str(tmp_path))
    assert activation.is_active(str(tmp_path))


# -- every place a shim can live -------------------------------------------------


@pytest.fixture
def sites(tmp_path, monkeypatch):
    """This interpreter seen as a --system-site-packages venv with a user site:
    user site, the venv's site-packages, the base installation's."""
    venv, base, user = tmp_path / "venv", tmp_path / "base", tmp_path / "user-site"
    dirs = {"venv": venv / "site-packages", "base": base / "site-packages", "user": user}
    for d in dirs.values():
        d.mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setattr(sys, "base_prefix", str(base))
    monkeypatch.setattr(site, "ENABLE_USER_SITE", True)
    monkeypatch.setattr(site, "getusersitepackages", lambda: str(user))
    monkeypatch.setattr(site, "getsitepackages", lambda prefixes=None: [str(dirs["venv"]), str(dirs["base"])])
    monkeypatch.setattr(activation, "site_packages",
                        lambda prefix=None: dirs["venv"] if prefix is None else Path(prefix))
    return dirs


def _install_shim(directory: Path) -> None:
    for name in SHIM_FILES:
        (directory / name).write_bytes((REPO / "sitecustomize_shim" / name).read_bytes())


def _installed_in(directory: Path, monkeypatch) -> None:
    monkeypatch.setattr(activation, "__file__", str(_installed_layout(directory)))
    _install_shim(directory)


def test_site_dirs_in_processing_order(sites):
    kinds = [(d.kind, d.path) for d in activation.site_dirs()]
    assert kinds == [("user", sites["user"]), ("environment", sites["venv"]), ("base", sites["base"])]


def test_user_site_disabled_is_not_looked_at(sites, monkeypatch):
    monkeypatch.setattr(site, "ENABLE_USER_SITE", False)
    _install_shim(sites["user"])
    assert not activation.is_active()


@pytest.mark.parametrize("where", ["user", "base", "venv"])
def test_deactivate_then_activate_round_trips(sites, monkeypatch, where):
    _installed_in(sites[where], monkeypatch)
    report = activation.shim_report()
    assert report.active and report.site == str(sites[where])
    assert report.inherited is (where == "base")
    assert report.kind == {"user": "user", "base": "base", "venv": "environment"}[where]

    removed = activation.deactivate()
    assert sorted(p.name for p in removed) == sorted(SHIM_FILES)
    assert not activation.is_active()
    assert activation.shim_report().active is False

    written = activation.activate()
    assert {p.parent for p in written} == {sites[where]}
    assert activation.shim_report().site == str(sites[where])
    for name in SHIM_FILES:
        assert (sites[where] / name).read_bytes() == (REPO / "sitecustomize_shim" / name).read_bytes()


def test_report_others_lists_only_shims_that_do_not_run_first(sites):
    _install_shim(sites["venv"])
    report = activation.shim_report()
    assert report.site == str(sites["venv"]) and report.others == []
    _install_shim(sites["base"])
    report = activation.shim_report()
    assert report.site == str(sites["venv"])
    assert sorted(report.others) == sorted(str(sites["base"] / n) for n in SHIM_FILES)


def test_deactivate_removes_every_shim_that_runs(sites, monkeypatch):
    _installed_in(sites["base"], monkeypatch)
    _install_shim(sites["user"])
    removed = activation.deactivate()
    assert {p.parent for p in removed} == {sites["base"], sites["user"]}
    assert activation.find_shims() == []


def test_activate_undoes_a_deactivate_of_several_installations(sites, monkeypatch):
    # pip-variants installed in the venv and in the base it inherits (and the user site):
    # deactivate removes every shim, so activate puts back each that pip installed
    _installed_in(sites["venv"], monkeypatch)
    for where in ("base", "user"):
        _installed_layout(sites[where])
        _install_shim(sites[where])
    for where in ("venv", "base", "user"):
        (sites[where] / "pip_variants-0.2.0.dist-info").mkdir()
    assert {p.parent for p in activation.deactivate()} == set(sites.values())
    written = activation.activate()
    assert {p.parent for p in written} == set(sites.values())
    assert len(activation.find_shims()) == 3
    assert activation.activate() == []  # nothing left to do


def test_activate_leaves_an_installation_it_cannot_write(sites, monkeypatch):
    _installed_in(sites["venv"], monkeypatch)
    _installed_layout(sites["base"])
    (sites["base"] / "pip_variants-0.2.0.dist-info").mkdir()
    activation.deactivate()
    monkeypatch.setattr(activation, "_writable", lambda directory: directory != sites["base"])
    assert {p.parent for p in activation.activate()} == {sites["venv"]}


def test_activate_falls_back_to_the_environment(sites, monkeypatch, tmp_path):
    # pip-variants from a source checkout (editable): the venv's own site-packages.
    assert activation.activate()[0].parent == sites["venv"]
    assert activation.shim_report().kind == "environment"


def test_start_file_without_module_is_reported(sites):
    (sites["venv"] / "pip_variants.start").write_bytes((REPO / "sitecustomize_shim" / "pip_variants.start").read_bytes())
    report = activation.shim_report()
    assert report.active is False
    assert "missing" in report.problem and "pip-variants activate" in report.problem


@pytest.mark.parametrize("version, active", [((3, 14), True), ((3, 15), False)])
def test_pth_line_needs_the_module_only_where_a_start_file_takes_over(sites, monkeypatch, version, active):
    for name in ("pip_variants.pth", "pip_variants.start"):
        (sites["venv"] / name).write_bytes((REPO / "sitecustomize_shim" / name).read_bytes())
    monkeypatch.setattr(activation.sys, "version_info", version)
    assert activation.shim_report().active is active
    (sites["venv"] / "pip_variants.start").unlink()  # a .pth alone runs its line on 3.15+ too
    assert activation.shim_report().active is True


def test_read_only_inherited_shim_names_the_file(sites, monkeypatch):
    _installed_in(sites["base"], monkeypatch)
    _install_shim(sites["venv"])
    real_unlink = Path.unlink

    def unlink(self, *args, **kwargs):
        if self.parent == sites["base"]:
            raise PermissionError(13, "Permission denied")
        return real_unlink(self, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", unlink)
    with pytest.raises(activation.ActivationError) as info:
        activation.deactivate()
    msg = str(info.value)
    assert str(sites["base"] / "pip_variants.pth") in msg
    assert "base installation" in msg and "Permission denied" in msg
    assert "PIP_NO_VARIANTS=1" in msg and "pip stays variant-aware here" in msg
    assert {p.parent for p in info.value.done} == {sites["venv"]}
    assert activation.shim_report().site == str(sites["base"])


def test_writable_on_windows_is_tried_not_read_from_the_attribute(monkeypatch, tmp_path):
    """Windows' os.access says every folder is writable: a file is made there instead."""
    monkeypatch.setattr(activation.os, "name", "nt")
    monkeypatch.setattr(activation.os, "access", lambda path, mode: True)  # as Windows answers for a folder
    assert activation._writable(tmp_path)
    assert list(tmp_path.iterdir()) == []  # the probe is gone
    assert not activation._writable(tmp_path / "missing")
