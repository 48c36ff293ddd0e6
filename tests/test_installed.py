"""pip_variants.installed: reading installed variant.json files and checking them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pip_variants._install_mark import mark_installed_without_label
from pip_variants.installed import (
    check_installed,
    find_dist_info,
    iter_installed_variants,
    read_installed_variant,
    reinstall_command,
    variant_of,
)
from support.wheels import FICTIONAL_PROVIDER, NVIDIA_PROVIDER, variants_json

DRIVER = "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION"


def _variant_json(name, version, label, props, providers):
    return variants_json(name, version, namespaces=list(providers) or ["nvidia"], providers=providers,
                         variants={label: props})


def _install(site: Path, dirname: str, content=None, name=None) -> Path:
    info = site / dirname
    info.mkdir(parents=True)
    name = name or dirname.partition("-")[0]
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1\n\nName: not a header\n")
    if content is not None:
        (info / "variant.json").write_text(content if isinstance(content, str) else json.dumps(content))
    return info


@pytest.fixture
def site(tmp_path, monkeypatch):
    for var in (DRIVER, "NV_VARIANT_PROVIDER_FORCE_SM_ARCH"):
        monkeypatch.delenv(var, raising=False)
    s = tmp_path / "site-packages"
    _install(s, "Torch_Pkg-2.9.0.dist-info", _variant_json(
        "torch-pkg", "2.9.0", "cu128", {"nvidia": {"cuda_version_lower_bound": ["12.8"]}},
        {"nvidia": NVIDIA_PROVIDER}))
    _install(s, "plain-1.0.dist-info")
    return s


def test_read_installed_variant(site):
    v = read_installed_variant(str(site / "Torch_Pkg-2.9.0.dist-info"))
    assert (v.name, v.version, v.label) == ("Torch_Pkg", "2.9.0", "cu128")
    assert v.properties == ("nvidia :: cuda_version_lower_bound :: 12.8",)
    assert v.describe() == "cu128 (nvidia :: cuda_version_lower_bound :: 12.8)"
    assert v.to_dict() == {"label": "cu128", "properties": ["nvidia :: cuda_version_lower_bound :: 12.8"]}
    assert read_installed_variant(str(site / "plain-1.0.dist-info")) is None


def test_an_install_marked_without_label_is_non_variant(site):
    info = site / "Torch_Pkg-2.9.0.dist-info"
    (info / "RECORD").write_bytes(b"Torch_Pkg-2.9.0.dist-info/METADATA,,")  # no final newline
    mark_installed_without_label(str(site), info.name)
    mark_installed_without_label(str(site), info.name)  # once only
    assert read_installed_variant(str(info)) is None
    assert [v.name for v in iter_installed_variants([str(site)])] == []
    lines = (info / "RECORD").read_bytes().split(b"\r\n")
    assert lines[0] == b"Torch_Pkg-2.9.0.dist-info/METADATA,,"
    assert lines[1].startswith(b"Torch_Pkg-2.9.0.dist-info/NON-VARIANT,sha256=") and lines[2] == b""
    assert int(lines[1].rsplit(b",", 1)[1]) == (info / "NON-VARIANT").stat().st_size


def test_no_mark_without_a_record(site):
    mark_installed_without_label(str(site), "plain-1.0.dist-info")
    assert not (site / "plain-1.0.dist-info" / "NON-VARIANT").exists()


def test_the_name_is_the_one_metadata_spells(tmp_path):
    # pip shows demo-tensor (METADATA's Name); the folder says demo_tensor
    info = _install(tmp_path, "demo_tensor-1.0.dist-info", "{not json", name="demo-tensor")
    assert read_installed_variant(str(info)).name == "demo-tensor"


def test_unreadable_variant_json_is_reported_not_raised(tmp_path):
    info = _install(tmp_path, "bad-1.0.dist-info", "{not json")
    v = read_installed_variant(str(info))
    assert v.label == "?" and "not valid JSON" in v.error and str(info) in v.error


def test_lookup_by_location_and_name(site):
    assert find_dist_info(str(site), "torch-pkg") == str(site / "Torch_Pkg-2.9.0.dist-info")
    assert find_dist_info(str(site), "torch_pkg", "2.9.0")
    assert find_dist_info(str(site), "torch-pkg", "2.9") == str(site / "Torch_Pkg-2.9.0.dist-info")  # the only one
    _install(site, "torch_pkg-3.0.dist-info")
    assert find_dist_info(str(site), "torch-pkg", "1.0") is None  # two others: ambiguous
    assert find_dist_info(str(site), "torch-pkg", "3.0") == str(site / "torch_pkg-3.0.dist-info")
    assert variant_of(str(site), "TORCH.PKG").label == "cu128"
    assert variant_of(str(site), "plain") is None
    assert variant_of(None, "plain") is None
    assert variant_of(str(site / "missing"), "plain") is None


def test_first_distribution_of_a_name_wins(site, tmp_path):
    later = tmp_path / "later"
    _install(later, "torch_pkg-1.0.dist-info", _variant_json(
        "torch-pkg", "1.0", "null", {}, {"nvidia": NVIDIA_PROVIDER}))
    found = list(iter_installed_variants([str(site), str(later)]))
    assert [(v.name, v.version) for v in found] == [("Torch_Pkg", "2.9.0")]


def test_check_against_the_faked_driver(site, monkeypatch):
    monkeypatch.setenv(DRIVER, "12.8")
    report = check_installed([str(site)])
    assert [r.status for r in report.results] == ["fits"] and report.command is None
    monkeypatch.setenv(DRIVER, "12.6")
    report = check_installed([str(site)])
    (r,) = report.results
    assert r.status == "does-not-fit"
    assert r.reason.startswith("needs nvidia :: cuda_version_lower_bound :: 12.8; this machine supports 12.6")
    assert report.command == (
        "pip install --force-reinstall --no-deps Torch_Pkg==2.9.0 && pip install Torch_Pkg==2.9.0"
    )
    data = report.to_dict()
    assert data["not_fitting"] == 1
    assert data["results"][0]["property"]["supported"][0] == "12.6"


def test_check_against_a_profile(site, tmp_path):
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps({"profile-version": 1, "namespaces": {
        "nvidia": {"cuda_version_lower_bound": ["12.6", "12.5"]}}}))
    report = check_installed([str(site)], profile_path=str(profile))
    assert report.results[0].status == "does-not-fit"
    assert report.results[0].reason.endswith("; the variant profile supports 12.6, 12.5")
    assert f"--variant-profile {profile}" in report.command
    assert report.target == f"variant profile {profile}"


def test_a_build_in_the_user_site_is_reinstalled_there(site, tmp_path, monkeypatch):
    import site as site_module

    user = tmp_path / "user-site"
    _install(user, "bar-2.0.dist-info", _variant_json(
        "bar", "2.0", "cu128", {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}, {"nvidia": NVIDIA_PROVIDER}))
    monkeypatch.setattr(site_module, "getusersitepackages", lambda: str(user))
    monkeypatch.setenv(DRIVER, "12.6")
    report = check_installed([str(site), str(user)], target=None, pip="py -m pip")
    assert report.command == (  # two folders: one command each, the user site's with --user
        f"py -m pip install --force-reinstall --upgrade --target {site} Torch_Pkg==2.9.0"
        f" && py -m pip install --force-reinstall --upgrade --target {user} bar==2.0"
    )
    monkeypatch.setattr("sys.path", [str(site), str(user)])
    report = check_installed(pip="py -m pip")
    assert report.command == (
        "py -m pip install --force-reinstall --no-deps Torch_Pkg==2.9.0 && py -m pip install Torch_Pkg==2.9.0"
        " && py -m pip install --force-reinstall --no-deps --user bar==2.0 && py -m pip install --user bar==2.0"
    )


def test_null_and_unknown_providers(tmp_path):
    s = tmp_path / "sp"
    _install(s, "nul-1.0.dist-info", _variant_json("nul", "1.0", "null", {}, {"nvidia": NVIDIA_PROVIDER}))
    _install(s, "fic-1.0.dist-info", _variant_json(
        "fic", "1.0", "fx", {"fictional_hw": {"arch": ["x1"]}}, {"fictional_hw": FICTIONAL_PROVIDER}))
    _install(s, "bad-1.0.dist-info", "[]")
    by_name = {r.variant.name: r for r in check_installed([str(s)]).results}
    assert by_name["nul"].status == "fits"
    assert by_name["fic"].status == "unknown"  # no provider could answer: not a misfit
    assert by_name["bad"].status == "unknown"


def test_reinstall_command_for_a_target_dir(site, monkeypatch):
    assert reinstall_command([]) is None
    monkeypatch.setenv(DRIVER, "12.6")
    results = check_installed([str(site)]).results
    assert reinstall_command(results, target="/opt/my app") == (
        'pip install --force-reinstall --upgrade --target "/opt/my app" Torch_Pkg==2.9.0'
    )


def test_reinstall_commands_for_several_folders(site, tmp_path, monkeypatch):
    other, fitting = tmp_path / "other", tmp_path / "fitting"
    _install(other, "bar-2.0.dist-info", _variant_json(
        "bar", "2.0", "cu128", {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}, {"nvidia": NVIDIA_PROVIDER}))
    _install(fitting, "nul-1.0.dist-info", _variant_json("nul", "1.0", "null", {}, {"nvidia": NVIDIA_PROVIDER}))
    monkeypatch.setenv(DRIVER, "12.6")
    report = check_installed([str(site), str(fitting), str(other)], pip="py -m pip")
    assert report.command == (
        f"py -m pip install --force-reinstall --upgrade --target {site} Torch_Pkg==2.9.0"
        f" && py -m pip install --force-reinstall --upgrade --target {other} bar==2.0"
    )


def test_each_folder_given_is_checked_on_its_own(site, tmp_path, monkeypatch):
    """--path A --path B: the project in both folders, fitting in A only, is reported for B."""
    fitting = tmp_path / "fitting"
    _install(fitting, "torch_pkg-2.9.0.dist-info", _variant_json(
        "Torch_Pkg", "2.9.0", "null", {}, {"nvidia": NVIDIA_PROVIDER}))
    monkeypatch.setenv(DRIVER, "12.6")
    report = check_installed([str(fitting), str(site)])
    assert [r.status for r in report.results] == ["fits", "does-not-fit"]
    assert f"--target {site} Torch_Pkg==2.9.0" in report.command


def test_a_pin_in_the_reinstall_command_is_quoted_for_the_shell():
    from pip_variants.installed import CheckResult, InstalledVariant, reinstall_command

    odd = InstalledVariant(name="pkg", version="1.0;touch${IFS}PWNED;#", label="x", properties=(),
                           dist_info="/nowhere/pkg.dist-info")
    command = reinstall_command([CheckResult(odd, "does-not-fit")])
    assert "'pkg==1.0;touch${IFS}PWNED;#'" in command


def test_an_abi_misfit_names_the_installed_version(tmp_path):
    from pip_variants.abi import AbiContext
    from pip_variants.installed import _check_one
    from pip_variants.support import SupportResolver, SupportSettings

    site = tmp_path / "site-packages"
    _install(site, "flash-2.8.3.dist-info", variants_json(
        "flash", "2.8.3", namespaces=["abi_dependency"], providers={"abi_dependency": {"builtin": "abi_dependency"}},
        variants={"torch29": {"abi_dependency": {"torch": ["2.9"]}}}))
    (variant,) = iter_installed_variants([str(site)])
    abi = AbiContext()
    abi.bind(lambda: {"torch": "2.8.0"}, ())
    result = _check_one(variant, SupportResolver(SupportSettings(abi=abi)))
    assert result.status == "does-not-fit"
    assert result.reason == "needs abi_dependency :: torch :: 2.9; torch 2.8.0 (installed in the target environment)"
