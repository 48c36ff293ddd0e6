"""pip-variants profile export / show."""

from __future__ import annotations

import json

from pip_variants.profile import PROFILE_VERSION, load_profile

H100 = {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0",
        "PIP_VARIANTS_X86_64_LEVEL": "v3"}


def test_export_writes_a_loadable_profile(run_cli, tmp_path):
    out = tmp_path / "h100.json"
    proc = run_cli("profile", "export", "-o", str(out), env=H100)
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out}" in proc.stdout and "--variant-profile" in proc.stdout
    doc = json.loads(out.read_text())
    assert doc["profile-version"] == PROFILE_VERSION == 1
    assert doc["created-by"].startswith("pip-variants ")
    assert {"system", "machine", "python"} <= set(doc["platform"])
    profile = load_profile(str(out))
    assert profile["nvidia"]["sm_arch"] == ("90_real", "90_virtual")
    assert profile["nvidia"]["cuda_version_lower_bound"][0] == "12.8"
    assert profile["x86_64"]["level"] == ("v3", "v2", "v1")
    assert "aarch64" in profile  # found nothing: listed, empty


def test_export_keeps_the_abi_dependency_versions_of_this_machine(run_cli, tmp_path):
    # VARIANT_ABI_DEPENDENCY decides ABI builds here: the profile must decide them there
    out = tmp_path / "a.json"
    proc = run_cli("profile", "export", "-o", str(out), env=dict(H100, VARIANT_ABI_DEPENDENCY="Torch-Like==2.8.0"))
    assert proc.returncode == 0, proc.stderr
    assert load_profile(str(out))["abi_dependency"] == {"torch_like": ("2.8.0",)}
    from pip_variants.abi import profile_versions

    assert profile_versions(load_profile(str(out))) == {"torch-like": "2.8.0"}
    proc = run_cli("profile", "export", "-o", str(out), env=H100)
    assert "abi_dependency" not in load_profile(str(out))
    proc = run_cli("profile", "export", "-o", str(out), env=dict(H100, VARIANT_ABI_DEPENDENCY="torch>=2.8"))
    assert proc.returncode == 0, proc.stderr
    assert "VARIANT_ABI_DEPENDENCY: ignoring 'torch>=2.8'" in proc.stderr and "left out of the profile" in proc.stderr


def test_export_to_stdout_and_json(run_cli, tmp_path):
    proc = run_cli("profile", "export", env=H100)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["namespaces"]["x86_64"]["level"] == ["v3", "v2", "v1"]
    out = tmp_path / "p.json"
    proc = run_cli("profile", "export", "-o", str(out), "--json", env=H100)
    assert json.loads(proc.stdout) == json.loads(out.read_text())


def test_export_leaves_out_failed_providers(run_cli, tmp_path):
    out = tmp_path / "p.json"
    proc = run_cli("profile", "export", "-o", str(out),
                   env={"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "bogus"})
    assert proc.returncode == 0
    assert "nvidia left out of the profile" in proc.stderr
    assert "nvidia" not in json.loads(out.read_text())["namespaces"]


def test_export_refuses_toml(run_cli, tmp_path):
    proc = run_cli("profile", "export", "-o", str(tmp_path / "p.toml"))
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"pip-variants: error: {tmp_path / 'p.toml'}: profile export writes JSON; name the file *.json"


def test_show_validates_and_prints(run_cli, tmp_path):
    out = tmp_path / "h100.json"
    assert run_cli("profile", "export", "-o", str(out), env=H100).returncode == 0
    proc = run_cli("profile", "show", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "valid variant profile" in proc.stdout
    assert "profile-version: 1" in proc.stdout
    assert "sm_arch" in proc.stdout and "90_real, 90_virtual" in proc.stdout
    assert "aarch64: nothing supported (the profile lists nothing)" in proc.stdout
    js = json.loads(run_cli("profile", "show", str(out), "--json").stdout)
    assert js["profile-version"] == 1 and js["namespaces"]["nvidia"]["sm_arch"] == ["90_real", "90_virtual"]


def test_show_bare_and_toml(run_cli, tmp_path):
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({"x86_64": {"level": ["v2", "v1"]}}))
    proc = run_cli("profile", "show", str(bare))
    assert proc.returncode == 0 and "bare format" in proc.stdout
    toml = tmp_path / "t.toml"
    toml.write_text('[nvidia]\nfeature-order = ["sm_arch"]\nstatic-properties.sm_arch = ["90_real"]\n')
    proc = run_cli("profile", "show", str(toml))
    assert proc.returncode == 0, proc.stderr
    assert "90_real" in proc.stdout


def test_show_invalid_is_one_line(run_cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"profile-version": 2, "namespaces": {}}))
    proc = run_cli("profile", "show", str(bad))
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "profile-version 2 is not supported" in proc.stderr
    assert "Traceback" not in proc.stderr
    missing = run_cli("profile", "show", str(tmp_path / "nope.json"))
    assert missing.returncode == 1 and "cannot be read" in missing.stderr


def test_profile_without_action_is_usage(run_cli):
    proc = run_cli("profile")
    assert proc.returncode == 2
    assert "export" in proc.stderr and "show" in proc.stderr and proc.stdout == ""


def test_export_through_a_symlink_keeps_the_link(run_cli, tmp_path):
    real = tmp_path / "real.json"
    real.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    proc = run_cli("profile", "export", "-o", str(link), env=H100)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    assert json.loads(real.read_text())["profile-version"] == PROFILE_VERSION
