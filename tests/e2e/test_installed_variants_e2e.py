"""End-to-end: which variant is installed (``pip show`` / ``inspect`` / ``list -v``),
and ``pip-variants check`` when the machine changes under it (issue 11, points 2-3).

The machine is faked with the nvidia provider's override variable; the
provider cache is shared by every run of one test, as it is on a real
machine, so the check also proves the cache is keyed on what changed.
"""

from __future__ import annotations

import json
import shlex

import pytest

from support.pips import newest_pip_only
from support.venvs import index_args, run_pip, run_python
from support.wheels import NVIDIA_PROVIDER, build_release, variants_json

pytestmark = pytest.mark.e2e

newest_only = newest_pip_only("does not depend on the pip release: runs in the newest pip env only")

CUDA = variants_json(
    "pkg",
    "1.0",
    namespaces=["nvidia"],
    providers={"nvidia": NVIDIA_PROVIDER},
    variants={
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}},
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
    },
)
CU128_PROPS = ["nvidia :: cuda_version_lower_bound :: 12.8"]
DRIVER = "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION"


@pytest.fixture
def machine(tmp_path):
    """Environment of one faked machine; one provider cache for all its runs."""
    cache = tmp_path / "provider-cache"

    def env(driver: str, **extra):
        return {DRIVER: driver, "PIP_VARIANTS_CACHE_DIR": str(cache), **extra}

    return env


@pytest.fixture
def installed_cu128(fresh_venv, publish, index, machine):
    publish("pkg", "1.0", CUDA)
    proc = run_pip(fresh_venv, "install", *index_args(index), "pkg", env=machine("12.8"))
    assert "variant cu128" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return fresh_venv


def test_pip_show_has_a_variant_line(installed_cu128):
    out = run_pip(installed_cu128, "show", "pkg").stdout
    lines = out.splitlines()
    assert lines[1] == "Version: 1.0", out
    assert lines[2] == f"Variant: cu128 ({CU128_PROPS[0]})", out
    verbose = run_pip(installed_cu128, "show", "-v", "pkg", "pip").stdout
    assert verbose.count("Variant:") == 1, verbose  # pip itself has no variant


def test_pip_inspect_has_a_variant_key(installed_cu128):
    proc = run_pip(installed_cu128, "inspect")
    data = json.loads(proc.stdout)
    items = {i["metadata"]["name"]: i for i in data["installed"]}
    assert items["pkg"]["variant"] == {"label": "cu128", "properties": CU128_PROPS}
    assert "metadata_location" in items["pkg"]  # pip's own keys stay
    assert "variant" not in items["pip"]


def test_pip_list_verbose_has_a_variant_column(installed_cu128):
    out = run_pip(installed_cu128, "list", "-v").stdout
    header = out.splitlines()[0].split()
    assert header[-1] == "Variant", out
    row = next(l for l in out.splitlines() if l.startswith("pkg "))
    assert row.split()[-1] == "cu128", out
    plain = run_pip(installed_cu128, "list").stdout
    assert "Variant" not in plain
    js = json.loads(run_pip(installed_cu128, "list", "-v", "--format=json").stdout)
    item = next(i for i in js if i["name"] == "pkg")
    assert item["variant"]["label"] == "cu128"


def test_list_outdated_and_index_versions_see_a_release_of_variant_wheels_only(
    installed_cu128, publish, index, machine
):
    newer = variants_json("pkg", "2.0", namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER},
                          variants={"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}})
    publish("pkg", "2.0", newer, plain=False)
    env = machine("12.8")
    outdated = json.loads(run_pip(installed_cu128, "list", "--outdated", "--format=json",
                                  *index_args(index), env=env).stdout)
    item = next((i for i in outdated if i["name"] == "pkg"), None)
    assert item is not None and item["latest_version"] == "2.0", outdated
    assert item["latest_filetype"] == "wheel"
    versions = run_pip(installed_cu128, "index", "versions", "pkg", *index_args(index), env=env)
    assert "pkg (2.0)" in versions.stdout and "2.0, 1.0" in versions.stdout, versions.stdout + versions.stderr
    # The kill switch keeps these commands stock: variant wheels are not theirs to see.
    stock = run_pip(installed_cu128, "index", "versions", "pkg", *index_args(index),
                    env={**env, "PIP_NO_VARIANTS": "1"}, check=False)
    assert "pkg (2.0)" not in stock.stdout


def test_list_outdated_and_index_versions_see_them_in_a_find_links_folder_too(installed_cu128, machine, tmp_path):
    # pip 24.0+ drops labelled names while scanning a folder: they are put back for these commands too
    newer = variants_json("pkg", "2.0", namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER},
                          variants={"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}})
    folder = tmp_path / "wheelhouse"
    build_release(folder, "pkg", "2.0", newer, plain=False)
    env = machine("12.8")
    outdated = json.loads(run_pip(installed_cu128, "list", "--outdated", "--format=json", "--no-index",
                                  "--find-links", folder, env=env).stdout)
    assert [(i["name"], i["latest_version"]) for i in outdated] == [("pkg", "2.0")], outdated
    versions = run_pip(installed_cu128, "index", "versions", "pkg", "--no-index", "--find-links", folder, env=env)
    assert "pkg (2.0)" in versions.stdout, versions.stdout + versions.stderr


def test_kill_switch_leaves_show_inspect_list_stock(installed_cu128):
    off = {"PIP_NO_VARIANTS": "1"}
    assert "Variant" not in run_pip(installed_cu128, "show", "pkg", env=off).stdout
    assert "Variant" not in run_pip(installed_cu128, "list", "-v", env=off).stdout
    data = json.loads(run_pip(installed_cu128, "inspect", env=off).stdout)
    assert all("variant" not in i for i in data["installed"])


@newest_only
def test_freeze_is_unchanged(installed_cu128):
    out = run_pip(installed_cu128, "freeze").stdout
    assert "pkg==1.0" in out.splitlines()
    assert "cu128" not in out


@newest_only
def test_check_flags_a_driver_downgrade_and_its_command_fixes_it(installed_cu128, index, machine):
    venv = installed_cu128
    ok = run_python(venv, "-m", "pip_variants", "check", env=machine("12.8"))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "ok       pkg 1.0  variant cu128" in ok.stdout

    # The driver drops to 12.6: the cached 12.8 answer must not be reused.
    bad = run_python(venv, "-m", "pip_variants", "check", env=machine("12.6"))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "NO FIT   pkg 1.0  variant cu128: needs nvidia :: cuda_version_lower_bound :: 12.8" in bad.stdout
    assert "this machine supports 12.6" in bad.stdout
    as_json = run_python(venv, "-m", "pip_variants", "check", "--json", env=machine("12.6"))
    assert as_json.returncode == 1
    report = json.loads(as_json.stdout)
    assert report["not_fitting"] == 1
    (item,) = report["results"]
    assert item["status"] == "does-not-fit"
    assert item["property"]["feature"] == "cuda_version_lower_bound"
    assert item["property"]["needs"] == ["12.8"]
    replace, complete = (shlex.split(part) for part in report["reinstall_command"].split(" && "))
    assert replace[1:] == ["-m", "pip", "install", "--force-reinstall", "--no-deps", "pkg==1.0"]
    assert complete[1:] == ["-m", "pip", "install", "pkg==1.0"]

    # The suggested command, pointed at the test index, picks the variant that fits now.
    proc = run_pip(venv, *replace[3:], *index_args(index), env=machine("12.6"))
    assert "variant cu126" in proc.stdout + proc.stderr
    clean = run_python(venv, "-m", "pip_variants", "check", env=machine("12.6"))
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "ok       pkg 1.0  variant cu126" in clean.stdout
    assert "Variant: cu126" in run_pip(venv, "show", "pkg").stdout


@newest_only
def test_checks_command_brings_what_the_new_build_depends_on(fresh_venv, publish, index, machine):
    # Each build's variant markers name its own CUDA runtime: after the reinstall
    # the environment holds the new build's, and pip check is clean.
    runtime = ['cudart128 ; variant_label == "cu128"', 'cudart126 ; variant_label == "cu126"']
    publish("pkg", "1.0", CUDA, requires=runtime)
    for name in ("cudart128", "cudart126"):
        publish(name, "1.0", None)
    run_pip(fresh_venv, "install", *index_args(index), "pkg", env=machine("12.8"))
    report = json.loads(run_python(fresh_venv, "-m", "pip_variants", "check", "--json", env=machine("12.6")).stdout)
    for part in report["reinstall_command"].split(" && "):
        run_pip(fresh_venv, *shlex.split(part)[3:], *index_args(index), env=machine("12.6"))
    assert "Variant: cu126" in run_pip(fresh_venv, "show", "pkg").stdout
    checked = run_pip(fresh_venv, "check", env=machine("12.6"), check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "cudart126" in run_pip(fresh_venv, "freeze").stdout


@newest_only
def test_check_against_a_profile(installed_cu128, tmp_path):
    profile = tmp_path / "old-node.json"
    exported = run_python(installed_cu128, "-m", "pip_variants", "profile", "export", "-o", str(profile),
                          env={DRIVER: "12.6"})
    assert exported.returncode == 0, exported.stderr
    proc = run_python(installed_cu128, "-m", "pip_variants", "check", "--variant-profile", str(profile),
                      env={DRIVER: "12.8"})
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"--variant-profile {profile}" in proc.stdout


@newest_only
def test_a_wheel_without_a_label_is_installed_as_non_variant_whatever_its_variant_json(
    fresh_venv, index, machine, dist
):
    """FN-1: a labelled build copied to a plain name keeps its ``variant.json``;
    installed, it is still a non-variant wheel (markers, ``pip show``, ``check``)."""
    import shutil

    from support.wheels import build_wheel

    labelled = build_wheel(dist / "labelled", "pkg", "1.0", label="cu128", variant_json=CUDA,
                           requires=['cu-dep ; variant_label == "cu128"', 'plain-dep ; variant_label == ""'])
    (dist / "plain").mkdir()
    plain = shutil.copy(labelled, dist / "plain" / "pkg-1.0-py3-none-any.whl")
    index.add_file("pkg", plain)
    for dep in ("cu-dep", "plain-dep"):
        index.add_file(dep, build_wheel(dist / "deps", dep, "1.0"))
    env = machine("12.8")
    run_pip(fresh_venv, "install", *index_args(index), "pkg", env=env)
    dist_info = fresh_venv.site_packages / "pkg-1.0.dist-info"
    assert (dist_info / "NON-VARIANT").is_file()
    assert "pkg-1.0.dist-info/NON-VARIANT,sha256=" in (dist_info / "RECORD").read_text()
    names = {i["name"] for i in json.loads(run_pip(fresh_venv, "list", "--format=json").stdout)}
    assert "plain-dep" in names and "cu-dep" not in names, names
    assert "cu-dep" not in run_pip(fresh_venv, "check", env=env).stdout
    assert "Variant:" not in run_pip(fresh_venv, "show", "pkg").stdout
    check = run_python(fresh_venv, "-m", "pip_variants", "check", "--json", env=env)
    assert json.loads(check.stdout)["results"] == [], check.stdout
    run_pip(fresh_venv, "uninstall", "-y", "pkg")
    assert not dist_info.exists()


def _respell_dist_info(wheel, old: str, new: str):
    """The same wheel with its ``.dist-info`` folder spelled ``new`` (as older builds spell it)."""
    import zipfile

    entries = {}
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            data = z.read(info)
            if info.filename.endswith("/RECORD"):
                data = data.replace(old.encode(), new.encode())
            entries[info.filename.replace(old, new)] = data
    with zipfile.ZipFile(wheel, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return wheel


@newest_only
def test_a_plain_wheel_from_a_folder_is_marked_even_with_its_dist_info_spelled_otherwise(fresh_venv, dist, tmp_path):
    """pip 26.3 refuses imports once the install starts, and the ``.dist-info``
    folder need not be spelled as the file name: both still end marked."""
    import shutil

    from support.wheels import build_wheel

    labelled = build_wheel(dist / "labelled", "Plain.Pkg", "1.0", label="cu128", variant_json=CUDA)
    folder = tmp_path / "wheels"
    folder.mkdir()
    plain = _respell_dist_info(shutil.copy(labelled, folder / "plain_pkg-1.0-py3-none-any.whl"),
                               "plain_pkg-1.0.dist-info", "Plain.Pkg-1.0.dist-info")
    proc = run_pip(fresh_venv, "install", "--no-index", "--find-links", str(folder), "plain.pkg")
    assert "Unsafe import" not in proc.stderr and "Blocked import" not in proc.stderr, proc.stderr
    dist_info = fresh_venv.site_packages / "Plain.Pkg-1.0.dist-info"
    assert (dist_info / "NON-VARIANT").is_file(), sorted(p.name for p in dist_info.iterdir())
    target = tmp_path / "target"
    run_pip(fresh_venv, "install", "--target", str(target), str(plain))
    assert (target / "Plain.Pkg-1.0.dist-info" / "NON-VARIANT").is_file()
