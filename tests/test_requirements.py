import sys
import subprocess

import pytest

from pip_variants.requirements import admits_any, canonicalize_name, first_active_requirement, requirement_name


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
    code = ("import sys; from pip_variants.requirements import requirement_name as r, admits_any as a; "
            "r('nvidia-variant-provider>=0.0.1,<1'); a('nvidia-variant-provider>=0.0.2,<1.0.0', ('0.0.2',)); "
            "print('packaging' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


_SPECS = [">=0.0.2,<1.0.0", ">=0.0.1,<1", ">=5", "==0.0.2", "==0.0.*", "!=0.0.2", "~=0.0.1", "~=0.2", ">0.0.2",
          "<0.0.2", "<=0.0.2", "==0.0.2.0", "==1.*", "!=0.*", ">=0.3", "==0.0.2rc1", ">=0.0.2.post1", "===0.0.2",
          "==0.0.2+local", ">= 0.0.1 , < 1", "==0.0", "!=0.0.*", "~=0.0", "<1.0.0", "==00.0.2", "~=0.0.2.0"]


@pytest.mark.parametrize("spec", _SPECS)
def test_admits_any_agrees_with_packaging(spec):
    from packaging.specifiers import SpecifierSet

    for version in ("0.0.1", "0.0.2", "0.2.1", "0.1.0", "1.0", "0.0.10"):
        assert admits_any(f"pkg{spec}", (version,)) == SpecifierSet(spec).contains(version, prereleases=True), version


def test_admits_any_without_a_range_or_with_a_broken_one():
    assert admits_any("pkg", ("0.0.1",))
    assert admits_any("pkg; python_version >= '3'", ("0.0.1",))
    assert not admits_any("pkg~=1", ("1.0",))  # not a version range packaging accepts
    assert admits_any("pkg>=5,<6", ("0.0.1", "5.1"))


@pytest.mark.parametrize("text", [
    "pkg", "pkg>=1", "pkg >= 1 , < 2", "pkg==1.0.*", "pkg[x]>=1", "pkg ; python_version>'3'", "pkg>=1,garbage",
    "pkg=1", "-pkg", "pkg-", "pkg>=", "pkg @ https://x", "pkg~=1.0", "pkg===1.0", "pkg>=1.0rc1", "pkg>=1 2",
    "pkg\t>=1", " pkg ", "Provider.Variant_x86-64 >=0.0.1", "pkg!=1.*", "", "pkg>=1,", "pkg (>=1)",
])
def test_the_hand_reader_never_accepts_what_the_regex_refuses(text):
    from pip_variants import requirements

    by_hand, m = requirements._split_by_hand(text), requirements._simple_re().match(text)
    if by_hand is not None:
        assert m is not None and m.group("name") == by_hand[0]
        assert (m.group("spec") or "").replace(" ", "").replace("\t", "") == by_hand[1].replace(" ", "").replace("\t", "")


def test_plain_entries_do_not_compile_the_regex():
    code = ("from pip_variants import requirements as r; "
            "r.first_active_requirement(['nvidia-variant-provider>=0.0.2,<1.0.0']); "
            "r.admits_any('x86-64-variant-provider>=0.2', ('0.2.1',)); print(r._simple_re.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"
