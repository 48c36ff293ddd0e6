"""End-to-end: how the ``.pth`` start-up shim activates (PIP-HOOKS.md §7).

The shim must be silent and cheap in every Python process, import no pip,
make every way of running pip variant-aware, honour the kill switch, and
never break Python or pip when pip-variants is uninstalled or half removed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipapp
from pathlib import Path

import pytest

from support.pips import newest_pip_only
from support.venvs import Venv, pick, run_pip, run_python
from support.wheels import BLAS_RELEASE

pytestmark = pytest.mark.e2e

PLAIN = "pkg-1.0-py3-none-any.whl"
BEST = "pkg-1.0-py3-none-any-ob.whl"
DATA = BLAS_RELEASE


@pytest.fixture
def release(publish):
    return publish("pkg", "1.0", DATA)


def test_python_start_up_is_silent(variant_venv):
    proc = run_python(variant_venv, "-c", "pass")
    assert proc.returncode == 0
    assert proc.stdout == "" and proc.stderr == ""


def test_the_shim_imports_no_pip(variant_venv):
    proc = run_python(variant_venv, "-c", "import sys; print('pip' in sys.modules)")
    assert proc.stdout.strip() == "False", proc.stderr
    assert proc.stderr == ""


def test_pth_file_is_installed_at_site_packages_root(variant_venv):
    assert variant_venv.pth_file.is_file()


def _pip_zipapp(venv: Venv, tmp_path: Path) -> Path:
    """The venv's own pip as a zipapp (what ``pip.pyz`` users run), outside site-packages."""
    src = tmp_path / "pyz-src"
    shutil.copytree(venv.site_packages / "pip", src / "pip",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (src / "__main__.py").write_text(
        "import runpy\nrunpy.run_module('pip', run_name='__main__', alter_sys=True)\n"
    )
    target = tmp_path / "pip.pyz"
    zipapp.create_archive(src, target)
    return target


@pytest.mark.parametrize("mode", ["python -m pip", "python -I -m pip", "pip script", "pip zipapp"])
def test_every_way_of_running_pip_is_variant_aware(variant_venv, release, index, mode, tmp_path):
    if mode == "pip zipapp":
        launcher = [variant_venv.python, _pip_zipapp(variant_venv, tmp_path)]
    else:
        launcher = {
            "python -m pip": [variant_venv.python, "-m", "pip"],
            "python -I -m pip": [variant_venv.python, "-I", "-m", "pip"],
            "pip script": [variant_venv.script("pip")],
        }[mode]
    chosen, _, stderr = pick(variant_venv, index, "pkg", launcher=launcher)
    assert chosen == BEST, stderr


def test_pip_python_option_from_a_stock_outer_pip(variant_venv, stock_venv, release, index):
    launcher = [stock_venv.python, "-m", "pip", "--python", variant_venv.python]
    chosen, _, stderr = pick(variant_venv, index, "pkg", launcher=launcher)
    assert chosen == BEST, stderr


def test_kill_switch_leaves_pip_stock(variant_venv, release, index):
    chosen, _, stderr = pick(variant_venv, index, "pkg", PIP_NO_VARIANTS="1")
    assert chosen == PLAIN, stderr
    stock_help = run_pip(variant_venv, "install", "--help", env={"PIP_NO_VARIANTS": "1"}).stdout
    assert "--no-variants" not in stock_help
    help_text = run_pip(variant_venv, "install", "--help").stdout
    assert "--no-variants" in help_text and "--variant" in help_text


def test_pip_keeps_working_after_uninstalling_pip_variants(fresh_venv, release, index):
    assert pick(fresh_venv, index, "pkg")[0] == BEST
    run_pip(fresh_venv, "uninstall", "-y", "pip-variants")
    assert not fresh_venv.pth_file.exists()
    assert not (fresh_venv.site_packages / "pip_variants").exists()
    proc = run_python(fresh_venv, "-c", "pass")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    chosen, _, stderr = pick(fresh_venv, index, "pkg")
    assert chosen == PLAIN, stderr
    assert run_pip(fresh_venv, "--version").returncode == 0


def test_pth_without_the_package_is_harmless(fresh_venv, release, index):
    shutil.rmtree(fresh_venv.site_packages / "pip_variants")
    assert fresh_venv.pth_file.exists()
    proc = run_python(fresh_venv, "-c", "pass")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    chosen, _, stderr = pick(fresh_venv, index, "pkg")
    assert chosen == PLAIN, stderr
    assert "Traceback" not in stderr and "Error processing" not in stderr, stderr


# -- deactivate / activate round trips wherever a shim can live (issue 11) -------------
#
# These do not depend on the pip release: they run in the newest-pip environment only.

newest_only = newest_pip_only("activation does not depend on the pip release: runs with the newest pip only")
SHIM_FILES = ("_pip_variants_shim.py", "pip_variants.pth", "pip_variants.start")
# `python -m pip_variants` from the repository root would import the checkout;
# the CLI under test is the one installed from the wheel.
_CLI = "import sys; sys.path[:] = [p for p in sys.path if p]; from pip_variants.__main__ import main; sys.exit(main())"


def cli(venv, *args, env=None):
    return run_python(venv, "-c", _CLI, *[str(a) for a in args], env=env)


def status(venv, env=None) -> dict:
    proc = cli(venv, "status", "--json", "--no-pip-config", env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _probe(python, code: str) -> str:
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True,
                          env={"PATH": os.environ.get("PATH", "")}).stdout.strip()


def python_install(root: Path, venv, *, without_pip_variants: bool = False) -> Venv:
    """A base Python installation (no pyvenv.cfg, like a conda prefix or a system
    Python) at ``root``: the real interpreter's binary, its standard library
    linked in, and a private site-packages copied from ``venv``'s."""
    real = Path(os.path.realpath(venv.python))
    stdlib = Path(_probe(venv.python, "import sysconfig; print(sysconfig.get_paths()['stdlib'])"))
    (root / "bin").mkdir(parents=True)
    shutil.copy2(real, root / "bin" / real.name)
    for alias in ("python", "python3"):
        if alias != real.name:
            (root / "bin" / alias).symlink_to(real.name)
    lib = root / "lib"
    lib.mkdir()
    for entry in stdlib.parent.iterdir():  # libpython*.so and friends
        if entry.name != stdlib.name:
            (lib / entry.name).symlink_to(entry)
    (lib / stdlib.name).mkdir()
    for entry in stdlib.iterdir():
        if entry.name != "site-packages":
            (lib / stdlib.name / entry.name).symlink_to(entry)
    site_dir = lib / stdlib.name / "site-packages"
    skip = shutil.ignore_patterns("pip_variants", "pip_variants-*", *SHIM_FILES, "__pycache__")
    shutil.copytree(venv.site_packages, site_dir, symlinks=True,
                    ignore=skip if without_pip_variants else shutil.ignore_patterns("__pycache__"))
    python = root / "bin" / "python"
    if Path(_probe(python, "import sys; print(sys.prefix)")) != root:
        pytest.skip(f"this interpreter ({real}) cannot run from a copied prefix")
    return Venv(path=root, python=python, bin=root / "bin", site_packages=site_dir,
                pip_version=venv.pip_version, has_pip_variants=not without_pip_variants)


def _round_trip(venv, index, *, env=None, where: Path, kind: str, inherited: bool = False,
                prefix_args=(), cli_venv=None, check=None):
    """status says the shim is in ``where``; deactivate makes pip stock; activate
    restores the wheel's own files there and pip picks variants again."""
    env = env or {}
    cli_venv = cli_venv or venv
    check = check or venv
    st = status(check, env)
    assert st["shim_active"] is True, st
    assert st["shim"]["site"] == str(where) and st["shim"]["kind"] == kind, st["shim"]
    assert st["shim"]["inherited"] is inherited
    shipped = {n: (where / n).read_bytes() for n in SHIM_FILES}
    assert pick(venv, index, "pkg", **env)[0] == BEST

    proc = cli(cli_venv, "deactivate", *prefix_args, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(line.split()[-1] for line in proc.stdout.splitlines() if line.startswith("removed")) == \
        sorted(str(where / n) for n in SHIM_FILES)
    assert not any((where / n).exists() for n in SHIM_FILES)
    st = status(check, env)
    assert st["shim_active"] is False, st
    chosen, _, stderr = pick(venv, index, "pkg", **env)
    assert chosen == PLAIN, stderr

    proc = cli(cli_venv, "activate", *prefix_args, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"the shim in {where}" in proc.stdout
    assert {n: (where / n).read_bytes() for n in SHIM_FILES} == shipped
    st = status(check, env)
    assert st["shim_active"] is True and st["shim"]["site"] == str(where), st
    chosen, _, stderr = pick(venv, index, "pkg", **env)
    assert chosen == BEST, stderr


@newest_only
def test_round_trip_in_a_venv(fresh_venv, release, index):
    _round_trip(fresh_venv, index, where=fresh_venv.site_packages, kind="environment")
    proc = cli(fresh_venv, "status", "--no-pip-config")
    assert f"from {fresh_venv.site_packages} (this environment's site-packages)" in proc.stdout


@newest_only
def test_round_trip_in_the_user_site(variant_venv, pip_variants_wheel, release, index, tmp_path):
    base = python_install(tmp_path / "python", variant_venv, without_pip_variants=True)
    env = {"PYTHONUSERBASE": str(tmp_path / "userbase")}
    run_pip(base, "install", "--user", "--no-deps", "--no-index", pip_variants_wheel, env=env)
    user_site = Path(run_python(base, "-c", "import site; print(site.getusersitepackages())",
                                env=env).stdout.strip())
    assert (user_site / "pip_variants.pth").is_file()
    _round_trip(base, index, env=env, where=user_site, kind="user")


@newest_only
def test_round_trip_in_a_conda_style_prefix(variant_venv, release, index, tmp_path):
    conda = python_install(tmp_path / "conda-env", variant_venv)
    # Driven from another environment with --prefix, as for a conda prefix.
    _round_trip(conda, index, where=conda.site_packages, kind="environment",
                prefix_args=("--prefix", conda.path), cli_venv=variant_venv)


@newest_only
def test_round_trip_through_an_inherited_site(variant_venv, release, index, tmp_path):
    base = python_install(tmp_path / "base", variant_venv)
    child_path = tmp_path / "child"
    subprocess.run([str(base.python), "-m", "venv", "--without-pip", "--system-site-packages",
                    str(child_path)], check=True, capture_output=True)
    child_python = child_path / "bin" / "python"
    child_site = Path(_probe(child_python, "import sysconfig; print(sysconfig.get_paths()['purelib'])"))
    child = Venv(path=child_path, python=child_python, bin=child_path / "bin", site_packages=child_site,
                 pip_version=base.pip_version, has_pip_variants=True)
    proc = cli(child, "status", "--no-pip-config")
    assert "inherited" in proc.stdout and str(base.site_packages) in proc.stdout, proc.stdout
    _round_trip(child, index, where=base.site_packages, kind="base", inherited=True)
    assert status(base)["shim"]["kind"] == "environment"
