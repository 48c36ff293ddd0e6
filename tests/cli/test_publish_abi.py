"""Publisher side of the ABI-dependency provider: make-variant and index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.wheels import build_wheel, variants_json, write_variants_json

from pip_variants.metadata import load_metadata, load_wheel_metadata, parse_metadata
from pip_variants.metadata_write import dumps, to_json_dict
from pip_variants.publish import PublishError, build_index, make_variant

SCHEMA_0_1_1 = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"
NVIDIA = ["nvidia :: cuda_version_lower_bound :: 12.8"]


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    return build_wheel(tmp_path / "plain", "attn-like", "1.0", requires=["torch"])


def test_abi_property_next_to_other_namespaces_is_the_builtin_provider_ranked_last(plain, tmp_path):
    """The drafts' literal namespace (unlisted, no provider) is written in 0.2.0's
    form: listed last, as the drafts rank it, with the built-in entry. uv 0.13.9
    refuses a 0.2.0 file that uses a namespace it does not list (the whole
    release, plain wheel included)."""
    dist = tmp_path / "dist"
    for label, v in (("cu128_t28", "2.8"), ("cu128_t29", "2.9")):
        make_variant(plain, dist, label=label, properties=NVIDIA + [f"abi_dependency :: torch :: {v}"],
                     namespaces=["nvidia"])
    md = load_wheel_metadata(str(dist / "attn_like-1.0-py3-none-any-cu128_t29.whl"), "cu128_t29")
    assert md.namespaces == ("nvidia", "abi_dependency")
    assert md.providers["abi_dependency"].builtin == "abi_dependency"
    assert md.variants["cu128_t29"]["abi_dependency"] == {"torch": ("2.9",)}
    assert build_index(dist).ok
    doc = json.loads((dist / "attn_like-1.0-variants.json").read_text())
    assert doc["default-priorities"]["namespace"] == ["nvidia", "abi_dependency"]
    assert doc["providers"]["abi_dependency"] == {"builtin": "abi_dependency"}
    assert doc["variants"]["cu128_t28"]["abi_dependency"] == {"torch": ["2.8"]}


def test_an_index_over_wheels_in_the_drafts_form_agrees_with_them(plain, tmp_path):
    """Wheels made before (no abi_dependency in their list) still agree with the
    0.2.0 index file written over them, whose list ends with it."""
    from pip_variants.metadata import check_consistency

    wheel = parse_metadata({
        "$schema": "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json",
        "default-priorities": {"namespace": ["nvidia"]},
        "providers": {"nvidia": {"requires": ["nvidia-variant-provider>=0.0.1,<1"]}},
        "variants": {"t29": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}, "abi_dependency": {"torch": ["2.9"]}}},
    }, "wheel")
    index = parse_metadata(json.loads(dumps(wheel)), "index")
    assert index.namespaces == ("nvidia", "abi_dependency")
    assert check_consistency(index, wheel, "t29") is None


def test_abi_only_variant_declares_the_builtin_provider(plain, tmp_path):
    out = make_variant(plain, tmp_path / "dist", label="torch29", properties=["abi_dependency :: torch :: 2.9"])
    md = load_wheel_metadata(str(out), "torch29")
    assert md.namespaces == ("abi_dependency",)
    assert md.providers["abi_dependency"].builtin == "abi_dependency"
    assert build_index(tmp_path / "dist").ok
    doc = json.loads((tmp_path / "dist" / "attn_like-1.0-variants.json").read_text())
    assert doc["providers"] == {"abi_dependency": {"builtin": "abi_dependency"}}


def test_null_variant_of_an_abi_only_release(plain, tmp_path):
    """publishing.md: the null variant of an ABI-dependency release is made last,
    from its siblings' namespace list (the literal abi_dependency with its built-in entry)."""
    dist = tmp_path / "dist"
    for torch in ("2.8", "2.9"):
        make_variant(plain, dist, label="torch" + torch.replace(".", ""), properties=[f"abi_dependency :: torch :: {torch}"])
    out = make_variant(plain, dist, label=None, null=True)
    md = load_wheel_metadata(str(out), "null")
    assert md.namespaces == ("abi_dependency",) and md.variants["null"] == {}
    assert md.providers["abi_dependency"].builtin == "abi_dependency"
    report = build_index(dist)
    assert report.ok and report.warnings == []
    doc = json.loads((dist / "attn_like-1.0-variants.json").read_text())
    assert sorted(doc["variants"]) == ["null", "torch28", "torch29"]
    explicit = make_variant(plain, tmp_path / "other", label=None, null=True, namespaces=["abi_dependency"])
    assert load_wheel_metadata(str(explicit), "null").namespaces == ("abi_dependency",)


def test_null_variant_of_a_release_with_abi_builds_beside_other_namespaces(plain, tmp_path):
    """publishing.md's flash-attn example: the siblings list abi_dependency after
    nvidia; the null variant takes the list without it (its entry goes with ABI
    properties), and the release's index file agrees with all three wheels."""
    dist = tmp_path / "dist"
    for label, v in (("cu128_t28", "2.8"), ("cu128_t29", "2.9")):
        make_variant(plain, dist, label=label, properties=NVIDIA + [f"abi_dependency :: torch :: {v}"],
                     namespaces=["nvidia"])
    out = make_variant(plain, dist, label=None, null=True)
    assert load_wheel_metadata(str(out), "null").namespaces == ("nvidia",)
    report = build_index(dist)
    assert report.ok and report.warnings == []
    doc = json.loads((dist / "attn_like-1.0-variants.json").read_text())
    assert doc["default-priorities"]["namespace"] == ["nvidia", "abi_dependency"]
    assert sorted(doc["variants"]) == ["cu128_t28", "cu128_t29", "null"]


@pytest.mark.parametrize("value", ["2.9.0.1", "v2", "2.x"])
def test_bad_abi_value_is_refused(plain, tmp_path, value):
    with pytest.raises(PublishError, match="release prefix with 1 to 3 numbers"):
        make_variant(plain, tmp_path / "dist", label="t", properties=[f"abi_dependency :: torch :: {value}"])


def test_825_file_listing_the_literal_namespace_is_written_with_the_builtin_entry():
    md = parse_metadata(variants_json(
        "x", "1", namespaces=["abi_dependency"], providers=None, schema=SCHEMA_0_1_1,
        variants={"t29": {"abi_dependency": {"torch": ["2.9"]}}, "null": {}},
    ), "x-1-variants.json")
    doc = to_json_dict(md)
    assert doc["providers"]["abi_dependency"] == {"builtin": "abi_dependency"}
    assert load_metadata(json.dumps(doc).encode(), "round trip").namespaces == ("abi_dependency",)


def test_p850_builtin_entry_is_kept(tmp_path):
    data = variants_json("x", "1", namespaces=["abi"], providers={"abi": {"builtin": "abi_dependency"}},
                         variants={"t29": {"abi": {"torch": ["2.9"]}}})
    path = write_variants_json(tmp_path, "x", "1", data)
    doc = to_json_dict(load_metadata(path.read_bytes(), str(path)))
    assert doc["providers"] == {"abi": {"builtin": "abi_dependency"}}


def test_cli_make_variant_with_abi_property(run_cli, plain, tmp_path):
    dist = tmp_path / "wheelhouse"
    proc = run_cli("make-variant", str(plain), "-p", "abi_dependency :: torch :: 2.9", "--label", "torch29",
                   "-o", str(dist))
    assert proc.returncode == 0, proc.stderr
    assert "abi_dependency :: torch :: 2.9" in proc.stdout
    assert run_cli("index", str(dist), "--check").returncode == 1  # no variants.json yet
    assert run_cli("index", str(dist)).returncode == 0
