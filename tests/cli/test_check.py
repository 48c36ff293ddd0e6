"""pip-variants check (in a subprocess, against a site directory built here)."""

from __future__ import annotations

import json

from support.wheels import NVIDIA_PROVIDER, variants_json

DRIVER = "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION"


def _site(tmp_path):
    site = tmp_path / "site"
    info = site / "pkg-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "variant.json").write_text(json.dumps(variants_json(
        "pkg", "1.0", namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER},
        variants={"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}})))
    (site / "plain-2.0.dist-info").mkdir()
    return site


def test_check_fits(run_cli, tmp_path):
    proc = run_cli("check", "--path", str(_site(tmp_path)), env={DRIVER: "12.9"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["ok       pkg 1.0  variant cu128", "all 1 installed variants fit this machine"]
    assert proc.stderr == ""


def test_check_of_several_folders_says_where_each_build_is(run_cli, tmp_path):
    first, second = _site(tmp_path / "a"), _site(tmp_path / "b")
    (second / "pkg-1.0.dist-info").rename(second / "other-1.0.dist-info")
    proc = run_cli("check", "--path", str(first), "--path", str(second), env={DRIVER: "12.9"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == [f"ok       pkg 1.0  variant cu128  in {first}",
                                            f"ok       other 1.0  variant cu128  in {second}"]


def test_check_does_not_fit(run_cli, tmp_path):
    site = _site(tmp_path)
    proc = run_cli("check", "--path", str(site), env={DRIVER: "12.6"})
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("NO FIT   pkg 1.0  variant cu128: needs nvidia :: cuda_version_lower_bound :: 12.8; "
                               "this machine supports 12.6")
    assert "1 of 1 installed variants no longer fit this machine" in proc.stdout
    assert lines[-1].strip().endswith(f"-m pip install --force-reinstall --upgrade --target {site} pkg==1.0")
    (said,) = proc.stderr.splitlines()  # the exit status's one line
    assert said.startswith("pip-variants: 1 installed variant(s) no longer fit this machine: pkg; reinstall with: ")
    js = run_cli("check", "--json", "--path", str(site), env={DRIVER: "12.6"})
    assert js.returncode == 1 and len(js.stderr.splitlines()) == 1
    data = json.loads(js.stdout)
    assert data["results"][0]["status"] == "does-not-fit" and data["not_fitting"] == 1


def test_check_does_not_say_all_fit_when_one_could_not_be_checked(run_cli, tmp_path):
    site = _site(tmp_path)
    broken = site / "other-1.0.dist-info"
    broken.mkdir()
    (broken / "variant.json").write_text("{not json")
    proc = run_cli("check", "--path", str(site), env={DRIVER: "12.9"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "1 of 2 installed variants fit this machine; 1 could not be checked (see above)"
    assert "all 2" not in proc.stdout


def test_check_with_nothing_installed(run_cli, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_cli("check", "--path", str(empty))
    assert proc.returncode == 0
    assert "no installed distribution carries a variant" in proc.stdout


def test_check_bad_path_and_bad_profile(run_cli, tmp_path):
    proc = run_cli("check", "--path", str(tmp_path / "nope"))
    assert proc.returncode == 1 and "not a directory" in proc.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = run_cli("check", "--path", str(_site(tmp_path)), "--variant-profile", str(bad))
    assert proc.returncode == 1 and str(bad) in proc.stderr and "Traceback" not in proc.stderr


def test_check_refuses_a_bad_profile_with_nothing_installed(run_cli, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = run_cli("check", "--path", str(empty), "--variant-profile", str(bad))
    assert proc.returncode == 1 and str(bad) in proc.stderr and "Traceback" not in proc.stderr


def test_another_environments_site_packages_gets_that_environments_pip(run_cli, tmp_path):
    """--path ENV/lib/pythonX.Y/site-packages: reinstall with ENV's Python (its tags,
    its pip), not this one's with --target."""
    import os
    import stat

    env = tmp_path / "env"
    site = env / "lib" / "python3.11" / "site-packages"
    site.parent.mkdir(parents=True)
    os.rename(_site(tmp_path), site)
    python = env / "bin" / "python3.11"
    python.parent.mkdir()
    python.write_text("#!/bin/sh\n")
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    proc = run_cli("check", "--path", str(site), env={DRIVER: "12.6"})
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[-1].strip() == (
        f"{python} -m pip install --force-reinstall --no-deps pkg==1.0 && {python} -m pip install pkg==1.0")


def test_the_python_of_a_windows_environment_is_found(tmp_path, monkeypatch):
    import os

    from pip_variants.cli import check

    site = tmp_path / "env" / "Lib" / "site-packages"
    site.mkdir(parents=True)
    python = tmp_path / "env" / "Scripts" / "python.exe"
    python.parent.mkdir()
    python.write_text("")
    python.chmod(0o755)
    monkeypatch.setattr(os, "name", "nt")
    found = check._environment_python(str(site))
    monkeypatch.undo()
    assert found == str(python)
    assert check._environment_python(str(tmp_path / "wheels")) is None  # a --target folder



def test_the_python_of_a_posix_environment_prefers_its_versioned_name(tmp_path):
    from pip_variants.cli import check, environment_python

    site = tmp_path / "env" / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    (tmp_path / "env" / "bin").mkdir()
    for name in ("python3", "python3.12"):
        (tmp_path / "env" / "bin" / name).write_text("")
        (tmp_path / "env" / "bin" / name).chmod(0o755)
    assert check._environment_python(str(site)) == str(tmp_path / "env" / "bin" / "python3.12")
    assert environment_python(str(tmp_path / "env")) == str(tmp_path / "env" / "bin" / "python3")
    assert environment_python(str(tmp_path / "nowhere")) is None
