"""End-to-end: how the ``.pth`` start-up shim activates (PIP-HOOKS.md §7).

The shim must be silent and cheap in every Python process, import no pip,
make every way of running pip variant-aware, honour the kill switch, and
never break Python or pip when pip-variants is uninstalled or half removed.
"""

from __future__ import annotations

import shutil

import pytest

from support.venvs import pick, run_pip, run_python
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


@pytest.mark.parametrize("mode", ["python -m pip", "python -I -m pip", "pip script"])
def test_every_way_of_running_pip_is_variant_aware(variant_venv, release, index, mode):
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
