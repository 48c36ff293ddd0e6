"""End-to-end: variant environment markers in ``Requires-Dist`` (WHEEL-VARIANTS §8, issue 9).

One release, ``torch-like 2.9.0`` (cu126, cu128, null and a plain wheel), whose
wheels all carry the same dependencies, each guarded by a variant marker.
What pip installs next to it shows what each marker saw. These tests depend on
the pip release (pip 24.1+ evaluates the markers; 23.2-24.0 leave those
dependencies out with one warning), so they run in every pip environment:
one index and one release for the whole module, dry runs except for one install.
The last test publishes with ``make-variant --requires`` into a find-links folder.
"""

from __future__ import annotations

import json
from typing import Dict, Optional, Set

import pytest

from support.chains import H100, installed_files as installed, markers_supported
from support.index import LocalIndex
from support.venvs import pick, run_pip
from support.wheels import NVIDIA_PROVIDER, build_release, build_wheel, variants_json

pytestmark = pytest.mark.e2e

A100 = {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "8.0"}
NO_GPU: Dict[str, Optional[str]] = {
    "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": None, "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": None,
}

REQUIRES = [
    'cuda-lib-cu12 ; variant_label == "cu128"',
    # MK-3: no spaces around "::"; mixed with an ordinary marker
    'sm90-kernels ; "nvidia::sm_arch::90_real" in variant_properties and python_version >= "3"',
    'nv-extras ; "nvidia" in variant_namespaces or "nvidia :: nothing" in variant_features',
    'null-only ; variant_label == "null"',
    'plain-only ; variant_label == ""',
    "always-dep",
]
DEPS = ["cuda-lib-cu12", "sm90-kernels", "nv-extras", "null-only", "plain-only", "always-dep"]

RELEASE = variants_json(
    "torch-like", "2.9.0",
    namespaces=["nvidia"],
    providers={"nvidia": NVIDIA_PROVIDER},
    variants={
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"], "sm_arch": ["75_real"]}},
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["80_real", "90_real"]}},
        "null": {},
    },
)


@pytest.fixture(scope="module")
def torch_index(tmp_path_factory):
    work = tmp_path_factory.mktemp("markers")
    with LocalIndex() as idx:
        idx.add_files("torch-like", build_release(work / "torch", "torch-like", "2.9.0", RELEASE, requires=REQUIRES))
        for dep in DEPS:
            idx.add_files(dep, [build_wheel(work / "deps", dep, "1.0")])
        yield idx


def deps_of(report) -> Set[str]:
    return set(installed(report)) - {"torch-like"}


def assert_one_warning_at_most(stderr: str, venv, project: str = "torch-like") -> None:
    assert "Traceback" not in stderr, stderr
    if markers_supported(venv):
        assert "variant environment markers" not in stderr, stderr
    else:
        assert stderr.count("variant environment markers") == 1, stderr
        assert f"pip {venv.pip_version}" in stderr and f"{project} " in stderr, stderr


def test_h100_gets_the_cu128_dependencies_and_pip_check_is_clean(fresh_venv, torch_index):
    proc = run_pip(fresh_venv, "install", "--index-url", torch_index.url, "torch-like", env=H100)
    assert_one_warning_at_most(proc.stderr, fresh_venv)
    listed = json.loads(run_pip(fresh_venv, "list", "--format", "json").stdout)
    names = {p["name"].lower().replace("_", "-") for p in listed} - {"pip", "pip-variants", "pip_variants", "setuptools", "wheel",
                                           "nvidia-ml-py", "py-cpuinfo", "packaging", "importlib-metadata",
                                           "zipp", "tomli"}
    if markers_supported(fresh_venv):
        assert names == {"torch-like", "cuda-lib-cu12", "sm90-kernels", "nv-extras", "always-dep"}
    else:  # documented fallback: the marked dependencies are left out
        assert names == {"torch-like", "always-dep"}
    check = run_pip(fresh_venv, "check", env=H100, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "Traceback" not in check.stderr
    if markers_supported(fresh_venv):
        # the installed cu128 wheel's markers are read from its own variant.json
        run_pip(fresh_venv, "uninstall", "-y", "cuda-lib-cu12")
        check = run_pip(fresh_venv, "check", check=False)
        assert check.returncode == 1 and "requires cuda-lib-cu12, which is not installed" in check.stdout, (
            check.stdout + check.stderr
        )


@pytest.mark.parametrize(
    "machine, label, expected",
    [
        # PEP 825: only the supported properties; sm 8.0 does not run 90_real code
        (A100, "cu128", {"cuda-lib-cu12", "nv-extras", "always-dep"}),
        (NO_GPU, "null", {"null-only", "always-dep"}),
    ],
    ids=["a100-filters-properties", "cpu-null-variant"],
)
def test_markers_see_the_chosen_wheel(variant_venv, torch_index, machine, label, expected):
    chosen, report, stderr = pick(variant_venv, torch_index, "torch-like", **machine)
    assert chosen == f"torch_like-2.9.0-py3-none-any-{label}.whl"
    assert_one_warning_at_most(stderr, variant_venv)
    if markers_supported(variant_venv):
        assert deps_of(report) == expected
    else:
        assert deps_of(report) == {"always-dep"}


def test_an_install_filtered_by_markers_stays_consistent_afterwards(fresh_venv, torch_index):
    # A100: cu128 without its 90_real kernels. pip's own check after the install,
    # pip check and the next install read the installed wheel's markers: they must
    # agree with the install (MK-1), not ask for sm90-kernels.
    proc = run_pip(fresh_venv, "install", "--index-url", torch_index.url, "torch-like", env=A100)
    assert_one_warning_at_most(proc.stderr, fresh_venv)
    assert "which is not installed" not in proc.stderr + proc.stdout, proc.stderr
    check = run_pip(fresh_venv, "check", env=A100, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    again = run_pip(fresh_venv, "install", "--index-url", torch_index.url, "torch-like", env=A100)
    assert "Collecting sm90-kernels" not in again.stdout, again.stdout
    listed = {p["name"].lower() for p in json.loads(run_pip(fresh_venv, "list", "--format", "json").stdout)}
    assert "sm90-kernels" not in listed
    if markers_supported(fresh_venv):
        assert {"cuda-lib-cu12", "nv-extras"} <= listed


def test_a_forced_label_this_machine_does_not_support_gets_its_declared_dependencies(variant_venv, torch_index):
    # --variant for another machine (a build host without a GPU): the wheel's
    # nvidia features are not filtered away, so its GPU dependencies come along.
    chosen, report, stderr = pick(variant_venv, torch_index, "torch-like", "--variant", "torch-like=cu128", **NO_GPU)
    assert chosen == "torch_like-2.9.0-py3-none-any-cu128.whl"
    assert "Traceback" not in stderr
    if markers_supported(variant_venv):
        assert deps_of(report) == {"cuda-lib-cu12", "sm90-kernels", "nv-extras", "always-dep"}
    else:
        assert deps_of(report) == {"always-dep"}


def test_no_variants_installs_the_plain_wheel_with_non_variant_values(variant_venv, torch_index):
    chosen, report, stderr = pick(variant_venv, torch_index, "torch-like", "--no-variants", **H100)
    assert chosen == "torch_like-2.9.0-py3-none-any.whl"
    assert_one_warning_at_most(stderr, variant_venv)
    if markers_supported(variant_venv):
        assert deps_of(report) == {"plain-only", "always-dep"}
    else:
        assert deps_of(report) == {"always-dep"}


def test_make_variant_requires_from_a_find_links_folder(variant_venv, tmp_path):
    from pip_variants.publish import make_variant

    folder = tmp_path / "wheelhouse"
    plain = build_wheel(tmp_path / "build", "gpukit", "1.0", requires=["always-dep"])
    folder.mkdir()
    (folder / plain.name).write_bytes(plain.read_bytes())
    make_variant(plain, folder, label="cu128", namespaces=["nvidia"],
                 properties=["nvidia :: cuda_version_lower_bound :: 12.8", "nvidia :: sm_arch :: 90_real"],
                 requires=['cuda-lib-cu12 ; variant_label == "cu128"'])
    make_variant(plain, folder, label=None, null=True, namespaces=["nvidia"],
                 requires=['cuda-lib-cu12 ; variant_label == "cu128"'])
    for dep in ("cuda-lib-cu12", "always-dep"):
        build_wheel(folder, dep, "1.0")
    chosen, report, stderr = pick(variant_venv, folder, "gpukit", **H100)
    assert chosen == "gpukit-1.0-py3-none-any-cu128.whl"
    assert_one_warning_at_most(stderr, variant_venv, "gpukit")
    expected = {"cuda-lib-cu12", "always-dep"} if markers_supported(variant_venv) else {"always-dep"}
    assert set(installed(report)) - {"gpukit"} == expected
    chosen, report, _ = pick(variant_venv, folder, "gpukit", **NO_GPU)
    assert chosen == "gpukit-1.0-py3-none-any-null.whl"
    assert set(installed(report)) - {"gpukit"} == {"always-dep"}
