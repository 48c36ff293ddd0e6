"""H22: an install from a wheel without a label is marked non-variant (unit level;
the real pip installs are in tests/e2e/test_installed_variants_e2e.py)."""

from __future__ import annotations

import types
import zipfile
from pathlib import Path

from pip_variants._install_mark import NON_VARIANT_FILE
from pip_variants._pip import wheel_install


def _installed(lib: Path, dist_info: str, with_variant_json: bool = True) -> Path:
    info = lib / dist_info
    info.mkdir(parents=True)
    (info / "RECORD").write_text(f"{dist_info}/METADATA,,\r\n")
    if with_variant_json:
        (info / "variant.json").write_text("{}")
    return info


def _wheel(path: Path, dist_info: str) -> str:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(f"{dist_info}/METADATA", "Name: x\n")
        z.writestr(f"{dist_info}/variant.json", "{}")
    return str(path)


def _scheme(lib: Path) -> types.SimpleNamespace:
    return types.SimpleNamespace(purelib=str(lib), platlib=str(lib))


def _wrapped(calls: list) -> tuple:
    module = types.ModuleType("fake_install_wheel_module")
    wrapper = wheel_install._wrap_install_wheel(lambda *a, **k: calls.append((a, k)) or "done", module)
    module.install_wheel = wrapper
    return module, wrapper


def test_a_plain_wheel_with_variant_json_is_marked(tmp_path):
    info = _installed(tmp_path / "lib", "pkg-1.0.dist-info")
    calls: list = []
    _, wrapper = _wrapped(calls)
    wheel = _wheel(tmp_path / "pkg-1.0-py3-none-any.whl", "pkg-1.0.dist-info")
    assert wrapper("pkg", wheel, _scheme(tmp_path / "lib"), "pkg", pycompile=False) == "done"
    assert calls == [(("pkg", wheel, _scheme(tmp_path / "lib"), "pkg"), {"pycompile": False})]
    assert (info / NON_VARIANT_FILE).is_file()


def test_a_labelled_wheel_or_one_without_variant_json_is_left_alone(tmp_path):
    labelled = _installed(tmp_path / "a", "pkg-1.0.dist-info")
    plain = _installed(tmp_path / "b", "pkg-1.0.dist-info", with_variant_json=False)
    _, wrapper = _wrapped([])
    wrapper("pkg", _wheel(tmp_path / "pkg-1.0-py3-none-any-cu128.whl", "pkg-1.0.dist-info"),
            scheme=_scheme(tmp_path / "a"), req_description="pkg")
    wrapper("pkg", _wheel(tmp_path / "pkg-1.0-py3-none-any.whl", "pkg-1.0.dist-info"), _scheme(tmp_path / "b"), "pkg")
    assert not (labelled / NON_VARIANT_FILE).exists() and not (plain / NON_VARIANT_FILE).exists()


def test_the_dist_info_is_found_as_the_archive_spells_it(tmp_path):
    info = _installed(tmp_path / "lib", "Plain.Pkg-1.0.dist-info")
    _, wrapper = _wrapped([])
    wrapper("plain-pkg", _wheel(tmp_path / "plain_pkg-1.0-py3-none-any.whl", "Plain.Pkg-1.0.dist-info"),
            _scheme(tmp_path / "lib"), "plain-pkg")
    assert (info / NON_VARIANT_FILE).is_file()


def test_a_restored_hook_acts_as_stock_pip(tmp_path):
    info = _installed(tmp_path / "lib", "pkg-1.0.dist-info")
    module, wrapper = _wrapped([])
    module.install_wheel = lambda *a, **k: None  # what restore_all puts back
    wrapper("pkg", _wheel(tmp_path / "pkg-1.0-py3-none-any.whl", "pkg-1.0.dist-info"), _scheme(tmp_path / "lib"), "pkg")
    assert not (info / NON_VARIANT_FILE).exists()


def test_a_failure_while_marking_never_fails_the_install(tmp_path):
    _, wrapper = _wrapped([])
    assert wrapper("pkg", str(tmp_path / "missing-1.0-py3-none-any.whl"), None, "pkg") == "done"


def test_installed_variant_json_is_empty_for_a_marked_install():
    class Dist:
        def __init__(self, files):
            self.files = files

        def read_text(self, name):
            if name not in self.files:
                raise FileNotFoundError(name)
            return self.files[name]

    assert wheel_install.installed_variant_json(Dist({NON_VARIANT_FILE: "x", "variant.json": "{}"})) == ""
    assert wheel_install.installed_variant_json(Dist({"variant.json": "{}"})) == "{}"
    assert wheel_install.installed_variant_json(Dist({})) == ""


def test_install_command_registers_what_pip_must_import_before_installing(monkeypatch):
    import sys

    eager: set = set()
    monkeypatch.setitem(sys.modules, "pip", types.SimpleNamespace(_EAGER_IMPORTS=eager))
    wheel_install.patch(types.ModuleType("pip._internal.commands.install"))
    assert eager == {"pip_variants.filename", "pip_variants._install_mark", "pip_variants._display"}
