import pytest

from pip_variants.filename import (
    InvalidVariantFilename,
    canonicalize_name,
    normalize_name,
    parse_variants_json_filename,
    parse_wheel_filename,
    split_variant_label,
    variants_json_filename,
)


@pytest.mark.parametrize(
    "filename, build, label",
    [
        ("pkg-1.0-py3-none-any.whl", None, None),
        ("pkg-1.0-2-py3-none-any.whl", "2", None),
        ("pkg-1.0-py3-none-any-gpu.v2.whl", None, "gpu.v2"),
        ("pkg-1.0-7-py3-none-any-null.whl", "7", "null"),
        ("torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl", None, "cu128"),
        ("torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64-00000000.whl", None, "00000000"),
        ("numpy-2.2.5-cp313-cp313-linux_x86_64-40aba78e.whl", None, "40aba78e"),
        ("pkg-1.0-py3-none-any-abcdefghijklmnopq.whl", None, "abcdefghijklmnopq"),
    ],
)
def test_filename_classes(filename, build, label):
    # WHEEL-VARIANTS.md §11 behaviour 1 and 2
    parsed = parse_wheel_filename(filename)
    assert parsed.build == build
    assert parsed.label == label
    assert parsed.is_variant is (label is not None)
    assert parsed.is_null is (label == "null")


@pytest.mark.parametrize(
    "filename",
    [
        "pkg-1.0-py3-none-any-GPU.whl",
        "pkg-1.0-py3-none-any-a-b.whl",
        "pkg-1.0-py3-none-any-gpu!.whl",
        "pkg-1.0-1-2-py3-none-any-x.whl",
        "pkg-py3-none-any.whl",
    ],
)
def test_invalid_variant_names_are_rejected(filename):
    with pytest.raises(InvalidVariantFilename) as exc:
        parse_wheel_filename(filename)
    assert filename in str(exc.value)


def test_split_keeps_plain_name_for_pre_variant_parsers():
    assert split_variant_label("pkg-1.0-1-py3-none-any-cu130.whl") == ("pkg-1.0-1-py3-none-any.whl", "cu130")
    assert split_variant_label("pkg-1.0.tar.gz") == ("pkg-1.0.tar.gz", None)
    assert parse_wheel_filename("pkg-1.0-py3-none-any-x.whl").plain_filename == "pkg-1.0-py3-none-any.whl"


def test_pep503_names():
    assert canonicalize_name("Nvidia_Variant.Provider") == "nvidia-variant-provider"
    assert canonicalize_name("a--b__c..d") == "a-b-c-d"
    assert normalize_name("Nvidia_Variant.Provider") == "nvidia_variant_provider"


def test_variants_json_names():
    assert variants_json_filename("My.Pkg", "1.0.0") == "my_pkg-1.0.0-variants.json"
    assert parse_variants_json_filename("torch-2.9.0-variants.json") == ("torch", "2.9.0")
    assert parse_variants_json_filename("torch-2.9.0-cp312-cp312-any.whl") is None
    assert parse_variants_json_filename("variants.json") is None


@pytest.mark.parametrize(
    "filename",
    ["-1.0-variants.json", "torch--variants.json", "torch-2.9-0-variants.json", "a/b-1.0-variants.json",
     "torch-2.9.0-variants.json.gz", "torch-2.9.0-variants.jso", "torch-2.9.0variants.json"],
)
def test_not_an_index_file_name(filename):
    # One dash between two non-empty parts, no slash: what the PEP 825 name allows.
    assert parse_variants_json_filename(filename) is None


@pytest.mark.parametrize("name, ok", [("torch", True), ("Foo.Bar-baz_1", True), ("a", True), ("-a", False),
                                      ("a-", False), ("a b", False), ("", False), ("a\n", False)])
def test_is_project_name_follows_pep_508(name, ok):
    from pip_variants.filename import is_project_name

    assert is_project_name(name) is ok
