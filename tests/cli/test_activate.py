"""pip-variants activate / deactivate on an environment prefix."""

from __future__ import annotations

import json
from pathlib import Path

from pip_variants import activation


def test_activate_and_deactivate_a_prefix(run_cli, tmp_path):
    prefix = tmp_path / "env"
    site = activation.site_packages(str(prefix))
    site.mkdir(parents=True)
    (site / "pip_variants").mkdir()
    (site / "pip_variants" / "__init__.py").write_text("")  # installed there, as far as the shim needs
    proc = run_cli("activate", "--prefix", str(prefix))
    assert proc.returncode == 0, proc.stderr
    assert f"pip-variants is now active in {prefix}" in proc.stdout
    assert (site / "pip_variants.pth").is_file()
    assert proc.stdout.count("wrote ") == 3
    again = run_cli("activate", "--prefix", str(prefix))
    assert again.returncode == 0, again.stderr
    assert "wrote " not in again.stdout  # identical files are left alone, and not said to be written
    assert f"the start-up files in {site} are up to date: nothing written" in again.stdout
    proc = run_cli("deactivate", "--prefix", str(prefix), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["active"] is False and len(data["files"]) == 3
    assert not (site / "pip_variants.pth").exists()


def test_activate_a_prefix_without_pip_variants_fails(run_cli, tmp_path):
    prefix = tmp_path / "env"
    site = activation.site_packages(str(prefix))
    site.mkdir(parents=True)
    proc = run_cli("activate", "--prefix", str(prefix))
    assert proc.returncode == 1
    assert f"wrote {site / 'pip_variants.pth'}" in proc.stdout and "is now active" not in proc.stdout
    assert proc.stderr.strip() == (
        f"pip-variants: error: pip-variants is not installed in {prefix}: the start-up shim is in place, "
        "but pip there stays stock until it is; to fix: install pip-variants there"
    )


def test_a_source_checkout_or_an_empty_folder_does_not_vouch_for_a_prefix(run_cli, tmp_path):
    # An uninstall can leave an empty pip_variants folder (it imports as a
    # namespace package), and a checkout as the working directory is on the
    # path of 'python -c': neither makes that environment's pip variant-aware.
    import subprocess
    import sys

    prefix = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True)
    site = activation.site_packages(str(prefix))
    (site / "pip_variants").mkdir()
    repo = Path(__file__).resolve().parents[2]
    proc = run_cli("activate", "--prefix", str(prefix), cwd=repo)
    assert proc.returncode == 1, proc
    assert f"pip-variants is not installed in {prefix}" in proc.stderr


def test_a_prefix_left_with_an_older_pythons_site_packages(tmp_path):
    # a conda or venv upgrade can leave lib/python3.11 beside the lib/python3.12 in use
    real = tmp_path / "python3.77"
    real.write_text("")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python3").symlink_to(real)
    for version in ("3.11", "3.77"):
        (tmp_path / "lib" / f"python{version}" / "site-packages").mkdir(parents=True)
    assert activation.site_packages(str(tmp_path)) == tmp_path / "lib" / "python3.77" / "site-packages"


def test_activate_errors_are_one_line(run_cli, tmp_path):
    proc = run_cli("activate", "--prefix", str(tmp_path / "missing"))
    assert proc.returncode == 1 and "no such environment directory" in proc.stderr
    empty = tmp_path / "not-an-env"
    empty.mkdir()
    proc = run_cli("activate", "--prefix", str(empty))
    assert proc.returncode == 1
    assert proc.stderr.startswith("pip-variants: error: no site-packages directory")
    assert "Traceback" not in proc.stderr


def test_deactivating_a_prefix_that_still_runs_a_shim_from_outside_says_so(run_cli, tmp_path):
    """A --system-site-packages venv reads the user site too: a shim there keeps
    its pip variant-aware after the venv's own shim is gone."""
    import subprocess
    import sys

    prefix = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(prefix)],
                   check=True)
    user_base = tmp_path / "userbase"
    user_site = Path(subprocess.run(
        [str(prefix / "bin" / "python"), "-c", "import site; print(site.getusersitepackages())"],
        env={"PYTHONUSERBASE": str(user_base), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
        check=True).stdout.strip())
    user_site.mkdir(parents=True)
    for name, data in activation.shipped_files().items():
        (user_site / name).write_bytes(data)
    env = {"PYTHONUSERBASE": str(user_base)}
    proc = run_cli("deactivate", "--prefix", str(prefix), env=env)
    assert proc.returncode == 1, proc
    assert f"pip-variants is still active in {prefix}: the shim in {user_site}" in proc.stdout, proc.stdout
    assert "PIP_NO_VARIANTS=1" in proc.stdout
    data = json.loads(run_cli("deactivate", "--prefix", str(prefix), "--json", env=env).stdout)
    assert data["active"] is True and data["shim"]["site"] == str(user_site) and data["shim"]["kind"] == "user"
