import sys
import subprocess

import pytest

from pip_variants.requirements import canonicalize_name, first_active_requirement, requirement_name


@pytest.mark.parametrize("text, name", [
    ("nvidia-variant-provider>=0.0.1,<1", "nvidia-variant-provider"),
    ("Nvidia_Variant.Provider==0.0.1", "nvidia-variant-provider"),
    ("x86-64-variant-provider", "x86-64-variant-provider"),
    ("pkg[extra] >= 1", "pkg"),
    ("pkg @ https://example.invalid/pkg.whl", "pkg"),
    ("pkg; python_version >= '3'", "pkg"),
    ("not a requirement!", None),
])
def test_requirement_name(text, name):
    assert requirement_name(text) == name


def test_first_active_requirement_follows_markers_of_the_target():
    reqs = ["legacy-x86; python_version < '3.10'", "provider-variant-x86-64"]
    assert first_active_requirement(reqs, {"python_version": "3.9"}) == reqs[0]
    assert first_active_requirement(reqs, {"python_version": "3.12"}) == reqs[1]
    assert first_active_requirement(["!!", "a>=1"]) == "a>=1"
    assert canonicalize_name("A.B__c") == "a-b-c"


def test_simple_entries_do_not_import_packaging():
    code = ("import sys; from pip_variants.requirements import requirement_name as r; "
            "r('nvidia-variant-provider>=0.0.1,<1'); print('packaging' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
