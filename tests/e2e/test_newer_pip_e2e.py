"""End-to-end: a pip newer than the tested range (issue 11, point 6).

The newest pip stands in for an untested release: the test knob
``PIP_VARIANTS_TESTED_PIP_MAX`` caps the tested range below it. Every hook
point has the shape its hook expects, so variants stay on with one notice;
a pip whose hook point was renamed (edited in a private venv) stays stock
with one warning. ``pip-variants status`` says which.

The whole e2e suite can run in this mode too:
``PIP_VARIANTS_TESTED_PIP_MAX=26.0 PIP_VARIANTS_TEST_PIP=26.3 pytest -m e2e``.
"""

from __future__ import annotations

import json

import pytest

from support.pips import NEWEST_PIP, newest_pip_only
from support.venvs import pick, run_pip, run_python
from support.wheels import BLAS_RELEASE

pytestmark = [
    pytest.mark.e2e,
    newest_pip_only(f"needs the newest pip ({NEWEST_PIP}), capped below it"),
]

CAP = {"PIP_VARIANTS_TESTED_PIP_MAX": "26.0"}
PLAIN = "pkg-1.0-py3-none-any.whl"
BEST = "pkg-1.0-py3-none-any-ob.whl"
NOTICE = "pip-variants: pip 26.3 is newer than the tested range (23.2\u201326.0)"


@pytest.fixture
def release(publish):
    return publish("pkg", "1.0", BLAS_RELEASE)


def _pip_file(venv, relative: str):
    path = venv.site_packages / "pip" / "_internal" / relative
    assert path.is_file(), path
    return path


def test_untested_pip_with_the_expected_shape_keeps_variants(variant_venv, release, index):
    chosen, report, stderr = pick(variant_venv, index, "pkg", **CAP)
    assert chosen == BEST, stderr
    assert report["install"][0]["variant"]["label"] == "ob"  # H9 patched too
    assert stderr.count(NOTICE) == 1, stderr
    assert "every hook point has the expected shape" in stderr
    assert "WARNING" not in stderr and "Traceback" not in stderr


def test_untested_pip_status_says_variants_stay_on(variant_venv):
    proc = run_python(variant_venv, "-m", "pip_variants", "status", "--json", "--no-pip-config", env=CAP)
    assert proc.returncode == 0, proc.stderr
    pip = json.loads(proc.stdout)["pip"]
    assert pip["untested"]["mode"] == "untested-compatible", pip
    text = run_python(variant_venv, "-m", "pip_variants", "status", "--no-pip-config", env=CAP).stdout
    assert "newer than the tested range; every hook point has the expected shape" in text


@pytest.mark.parametrize(
    "relative, old, new, gone",
    [
        # imported with `pip install` itself: caught while pip imports it
        ("models/installation_report.py", "_install_req_to_dict", "_install_req_as_dict",
         "pip._internal.models.installation_report.InstallationReport._install_req_to_dict is gone"),
        # not imported by `pip install`: caught before the first variant is chosen
        ("commands/show.py", "print_results", "show_results",
         "pip._internal.commands.show.print_results is gone"),
        # a signature change: the wrapper forwards `filename`
        ("models/wheel.py", "def __init__(self, filename: str) -> None:\n",
         "def __init__(self, name: str) -> None:\n        filename = name\n",
         "pip._internal.models.wheel.Wheel.__init__ takes (self, name), expected (self, filename, ...)"),
    ],
)
def test_untested_pip_with_a_renamed_hook_point_stays_stock(fresh_venv, release, index, relative, old, new, gone):
    path = _pip_file(fresh_venv, relative)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))

    chosen, report, stderr = pick(fresh_venv, index, "pkg", **CAP)
    assert chosen == PLAIN, stderr  # stock pip: the variant wheels are ignored
    assert "variant" not in report["install"][0]
    warnings = [l for l in stderr.splitlines() if "pip-variants" in l]
    assert len(warnings) == 1, stderr
    assert warnings[0].startswith("WARNING: pip-variants: pip 26.3 is newer than the tested range"), stderr
    assert gone in warnings[0] and "pip stays stock" in warnings[0]
    assert "Traceback" not in stderr

    proc = run_python(fresh_venv, "-m", "pip_variants", "status", "--json", "--no-pip-config", env=CAP)
    untested = json.loads(proc.stdout)["pip"]["untested"]
    assert untested["mode"] == "untested-incompatible"
    assert any(gone in p for p in untested["problems"]), untested

    # Inside the tested range the same pip is not shape-checked (its hooks are known to fit).
    if relative == "commands/show.py":
        chosen, _, stderr = pick(fresh_venv, index, "pkg")
        assert chosen == BEST, stderr


def test_untested_pip_show_and_inspect_keep_the_variant(fresh_venv, release, index):
    run_pip(fresh_venv, "install", "--index-url", index.url, "pkg", env=CAP)
    proc = run_pip(fresh_venv, "show", "pkg", env=CAP)
    assert "Variant: ob (blas_lapack :: library :: openblas)" in proc.stdout, proc.stdout + proc.stderr
    assert proc.stderr.count(NOTICE) == 1, proc.stderr
    data = json.loads(run_pip(fresh_venv, "inspect", env=CAP).stdout)  # the notice stays off stdout
    item = next(i for i in data["installed"] if i["metadata"]["name"] == "pkg")
    assert item["variant"]["label"] == "ob"
