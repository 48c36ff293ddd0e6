"""pip-variants make-variant / index: publisher tools."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import re
import zipfile
from pathlib import Path

import pytest

from support.wheels import build_wheel

from pip_variants.metadata import load_metadata, load_wheel_metadata
from pip_variants.publish import (
    PublishError,
    build_index,
    build_variant_metadata,
    make_variant,
    parse_provider_option,
    parse_static_option,
)

NS = ["nvidia", "x86_64"]
CU128 = ["nvidia :: cuda_version_lower_bound :: 12.8", "nvidia::sm_arch::90_real", "nvidia :: sm_arch :: 80_real"]


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    return build_wheel(tmp_path / "plain", "demo-pkg", "1.0", files={"demo_pkg/data.txt": "x,y\n"})


def _check_record(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        record_name = next(n for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
        rows = list(csv.reader(io.StringIO(zf.read(record_name).decode())))
        listed = {row[0] for row in rows}
        files = {n for n in zf.namelist() if not n.endswith("/")}
        assert listed == files
        for path, digest, size in rows:
            if path == record_name:
                assert digest == "" and size == ""
                continue
            data = zf.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert digest == f"sha256={expected}", path
            assert int(size) == len(data), path


def test_make_variant_writes_a_readable_variant_wheel(plain, tmp_path):
    out = make_variant(plain, tmp_path / "dist", label="cu128", properties=CU128, namespaces=NS)
    assert out.name == "demo_pkg-1.0-py3-none-any-cu128.whl"
    md = load_wheel_metadata(str(out), "cu128")
    assert md.namespaces == ("nvidia", "x86_64")
    assert md.variants["cu128"] == {"nvidia": {"cuda_version_lower_bound": ("12.8",),
                                               "sm_arch": ("80_real", "90_real")}}
    assert md.providers["nvidia"].requires == ("nvidia-variant-provider>=0.0.1,<1",)
    assert md.providers["nvidia"].plugin_api == "nvidia_variant_provider.plugin:NvidiaVariantPlugin"
    assert md.providers["x86_64"].requires == ("x86-64-variant-provider>=0.2",)
    raw = json.loads(zipfile.ZipFile(out).read("demo_pkg-1.0.dist-info/variant.json"))
    assert raw["$schema"].endswith("/v0.2.0.json")
    _check_record(out)
    # The original files are copied byte for byte.
    with zipfile.ZipFile(plain) as a, zipfile.ZipFile(out) as b:
        for name in a.namelist():
            if not name.endswith("RECORD"):
                assert a.read(name) == b.read(name)
    assert plain.exists()


def test_a_signature_of_the_old_record_is_left_out_with_a_warning(tmp_path):
    signed = build_wheel(tmp_path / "signed", "demo-pkg", "1.0",
                         files={"demo_pkg-1.0.dist-info/RECORD.jws": '{"signatures": []}'})
    warnings: list = []
    out = make_variant(signed, tmp_path / "dist", label="cu128", properties=CU128, namespaces=NS, warnings=warnings)
    with zipfile.ZipFile(out) as zf:
        assert "demo_pkg-1.0.dist-info/RECORD.jws" not in zf.namelist()
    _check_record(out)
    assert warnings == ["demo_pkg-1.0-py3-none-any.whl: RECORD.jws left out: it signs the wheel's RECORD, which "
                        "the variant wheel rewrites; sign the variant wheel again if you publish signatures"]


def test_default_providers_for_known_namespaces(plain, tmp_path):
    out = make_variant(plain, tmp_path, label="tpu", properties=["tpu :: present :: true"],
                       namespaces=["tpu", "aarch64"])
    raw = json.loads(zipfile.ZipFile(out).read("demo_pkg-1.0.dist-info/variant.json"))
    assert raw["providers"] == {
        "tpu": {"requires": ["tpu-variant-provider>=0.1"],
                "plugin-api": "tpu_variant_provider.plugin:TpuVariantPlugin"},
        "aarch64": {"requires": ["aarch64-variant-provider>=0.2"]},
    }


def test_null_variant(plain, tmp_path):
    out = make_variant(plain, tmp_path, label=None, null=True, namespaces=NS)
    assert out.name.endswith("-null.whl")
    md = load_wheel_metadata(str(out), "null")
    assert md.variants == {"null": {}} and md.namespaces == ("nvidia", "x86_64")
    _check_record(out)


def test_null_variant_takes_the_namespaces_of_the_release(plain, tmp_path):
    make_variant(plain, tmp_path, label="cu128", properties=CU128, namespaces=NS)
    make_variant(plain, tmp_path, label="mkl", properties=["blas :: library :: mkl"],
                 statics=["blas :: library :: mkl,openblas"], namespaces=NS + ["blas"])
    notes: list = []
    out = make_variant(plain, tmp_path, label=None, null=True, notes=notes)
    md = load_wheel_metadata(str(out), "null")
    assert md.namespaces == ("nvidia", "x86_64", "blas")
    # The providers entries agree with the other wheels', so 'index' accepts the release.
    assert md.providers["blas"].static_properties == (("library", ("mkl", "openblas")),)
    assert len(notes) == 1 and "nvidia, x86_64, blas" in notes[0]
    assert "demo_pkg-1.0-py3-none-any-cu128.whl" in notes[0]
    assert build_index(tmp_path).ok


def test_null_variant_without_namespaces_or_siblings(plain, tmp_path):
    other = build_wheel(tmp_path / "other", "other-pkg", "1.0")
    make_variant(other, tmp_path / "out", label="cu128", properties=CU128)
    with pytest.raises(PublishError, match="no namespace to list"):
        make_variant(plain, tmp_path / "out", label=None, null=True)


def test_cli_null_says_where_the_namespaces_come_from(run_cli, plain, tmp_path):
    dist = tmp_path / "wheelhouse"
    make_variant(plain, dist, label="cu128", properties=CU128, namespaces=NS)
    proc = run_cli("make-variant", str(plain), "--null", "-o", str(dist))
    assert proc.returncode == 0, proc.stderr
    assert "namespaces: nvidia, x86_64" in proc.stdout
    assert "note: namespaces nvidia, x86_64 taken from the release's variant wheels" in proc.stdout
    proc = run_cli("make-variant", str(plain), "--null", "-o", str(dist), "--json")
    assert "taken from the release's variant wheels" in json.loads(proc.stdout)["notes"][0]


def test_provider_and_static_options(plain, tmp_path):
    out = make_variant(
        plain, tmp_path, label="acme2",
        properties=["acme :: gen :: 2", "blas :: library :: mkl"],
        providers=["acme=acme-variant-provider>=1; python_version >= '3.9';plugin-api=acme_provider:Plugin"],
        statics=["blas :: library :: mkl,openblas"],
    )
    md = load_wheel_metadata(str(out), "acme2")
    assert md.providers["acme"].requires == ('acme-variant-provider>=1; python_version >= "3.9"',) or \
        md.providers["acme"].requires == ("acme-variant-provider>=1; python_version >= '3.9'",)
    assert md.providers["acme"].plugin_api == "acme_provider:Plugin"
    assert md.providers["blas"].static_properties == (("library", ("mkl", "openblas")),)
    plain_static = make_variant(plain, tmp_path, label="mkl", properties=["blas :: library :: mkl"],
                                statics=["blas"])
    assert load_wheel_metadata(str(plain_static), "mkl").providers["blas"].static_properties == (
        ("library", ("mkl",)),)


@pytest.mark.parametrize("text, ns, req, api", [
    ("acme=acme-provider>=1", "acme", "acme-provider>=1", None),
    ("acme=acme-provider;plugin-api=acme.p:Plugin", "acme", "acme-provider", "acme.p:Plugin"),
    ("acme = acme-provider ; sys_platform == 'linux' ; plugin-api = m", "acme",
     "acme-provider ; sys_platform == 'linux'", "m"),
    # blanks around the colon, as entry points allow: written without them
    ("inst=inst-plugin;plugin-api=inst_plugin : Outer.Inner.obj", "inst", "inst-plugin", "inst_plugin:Outer.Inner.obj"),
])
def test_parse_provider_option(text, ns, req, api):
    assert parse_provider_option(text) == (ns, req, api)


@pytest.mark.parametrize("text", ["acme", "=x", "ACME=x", "acme=not a req!!", "acme=x;plugin-api=bad api",
                                  "acme=x;plugin-api=", "acme=x;plugin-api=a..b"])
def test_parse_provider_option_errors(text):
    with pytest.raises(PublishError, match="--provider"):
        parse_provider_option(text)


def test_parse_static_option():
    assert parse_static_option("blas") == ("blas", None)
    assert parse_static_option("blas :: library :: mkl, openblas") == ("blas", ("library", ("mkl", "openblas")))
    with pytest.raises(PublishError):
        parse_static_option("blas :: library")


@pytest.mark.parametrize("kwargs, message", [
    (dict(label="cu128", properties=["acme :: x :: 1"]), "no known provider for namespace 'acme'"),
    (dict(label="Bad", properties=CU128), "invalid label"),
    (dict(label="cu128", properties=[]), "needs at least one -p"),
    (dict(label="null", properties=CU128), "null variant has no properties"),
    (dict(label="cu128", properties=["nvidia :: sm arch :: 1"]), "namespace :: feature :: value"),
    (dict(label="cu128", properties=CU128, namespaces=["x86_64"]), "leaves out nvidia"),
    (dict(label="null", properties=[]), "--namespaces"),
    (dict(label="a", properties=["x86_64 :: level :: v3"], namespaces=["x86-64"]),
     "--namespaces: invalid variant namespace 'x86-64'"),
    (dict(label="a", properties=["x86_64 :: level :: v3"], namespaces=["x86_64", "abi_dependency"]),
     "abi_dependency is reserved: its properties need no entry in the namespace list"),
])
def test_metadata_errors(kwargs, message):
    with pytest.raises(PublishError, match=re.escape(message)):
        build_variant_metadata(**kwargs)


def test_a_wheel_name_near_the_file_system_limit_is_written(plain, tmp_path):
    # the temporary file beside it must not be the first name to pass 255 bytes
    label = "a" * (250 - len("demo_pkg-1.0-py3-none-any-.whl"))
    out = make_variant(plain, tmp_path / "dist", label=label, properties=["x86_64 :: level :: v1"],
                       namespaces=["x86_64"])
    assert len(out.name) == 250 and out.is_file()
    assert [p.name for p in out.parent.iterdir()] == [out.name]


def test_make_variant_refuses_variant_input(plain, tmp_path):
    first = make_variant(plain, tmp_path / "a", label="cu128", properties=CU128)
    with pytest.raises(PublishError, match="already has the variant label 'cu128'"):
        make_variant(first, tmp_path / "b", label="x", properties=CU128)
    with pytest.raises(PublishError, match="contradicts"):
        make_variant(plain, tmp_path / "b", label="cu128", null=True, namespaces=NS)


def _release(plain: Path, dist: Path) -> None:
    make_variant(plain, dist, label="cu128", properties=CU128, namespaces=NS)
    make_variant(plain, dist, label="x86_64_v3", properties=["x86_64 :: level :: v3"], namespaces=NS)
    make_variant(plain, dist, label=None, null=True, namespaces=NS)
    (dist / plain.name).write_bytes(plain.read_bytes())


def test_index_in_a_shared_folder_never_writes_through_planted_links(plain, tmp_path):
    dist = tmp_path / "dist"
    _release(plain, dist)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    for planted in ("demo_pkg-1.0-variants.json.tmp", "demo_pkg-1.0-variants.json", "simple/index.html.tmp",
                    "simple/index.html"):
        (dist / planted).parent.mkdir(exist_ok=True)
        (dist / planted).symlink_to(victim)
    assert build_index(dist).ok
    assert victim.read_text() == "precious"
    assert not (dist / "demo_pkg-1.0-variants.json").is_symlink()
    assert not (dist / "simple" / "index.html").is_symlink()


@pytest.mark.parametrize("linked", ["simple", "simple/demo-pkg"])
def test_index_never_writes_into_a_linked_folder(plain, tmp_path, linked):
    dist = tmp_path / "dist"
    _release(plain, dist)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "index.html").write_text("precious")
    (dist / linked).parent.mkdir(parents=True, exist_ok=True)
    (dist / linked).symlink_to(victim)
    with pytest.raises(PublishError, match="is a symbolic link"):
        build_index(dist)
    assert sorted(p.name for p in victim.iterdir()) == ["index.html"]
    assert (victim / "index.html").read_text() == "precious"
    assert not list(dist.glob("*-variants.json"))  # refused before anything is written


def test_index_skips_a_wheel_whose_name_is_no_project_name(plain, tmp_path):
    dist = tmp_path / "dist"
    _release(plain, dist)
    odd = dist / "x\x1b[31mred-1.0-py3-none-any-cu128.whl"
    odd.write_bytes(next(dist.glob("*-cu128.whl")).read_bytes())
    report = build_index(dist)
    assert report.ok
    assert [line.startswith(odd.name) for line in report.skipped] == [True]
    assert not [p for p in dist.rglob("*") if "\x1b" in str(p) and p != odd]
    sdist = dist / "evil pkg\x1b[31mred-1.0.tar.gz"
    sdist.write_bytes(b"")
    report = build_index(dist)
    assert sorted(line.split(":")[0] for line in report.skipped) == sorted([odd.name, sdist.name])
    assert not [p for p in dist.rglob("*") if "\x1b" in str(p) and p not in (odd, sdist)]


def test_index_writes_variants_json_and_pages(plain, tmp_path):
    dist = tmp_path / "dist"
    _release(plain, dist)
    (dist / "demo_pkg-1.0.tar.gz").write_bytes(b"not really an sdist")
    report = build_index(dist)
    assert report.ok
    vj = dist / "demo_pkg-1.0-variants.json"
    md = load_metadata(vj.read_bytes(), str(vj))
    assert set(md.variants) == {"cu128", "x86_64_v3", "null"}
    assert md.namespaces == ("nvidia", "x86_64")
    assert json.loads(vj.read_text())["$schema"].endswith("/v0.2.0.json")

    root = (dist / "simple" / "index.html").read_text()
    assert '<a href="demo-pkg/">demo-pkg</a>' in root
    page = (dist / "simple" / "demo-pkg" / "index.html").read_text()
    links = dict(re.findall(r'<a href="\.\./\.\./([^"#]+)#sha256=([0-9a-f]{64})">', page))
    expected = {p.name for p in dist.iterdir() if p.is_file()}
    assert set(links) == expected
    for name, digest in links.items():
        assert hashlib.sha256((dist / name).read_bytes()).hexdigest() == digest, name
    assert build_index(dist, check=True).problems == []


def test_an_index_file_spelling_the_version_otherwise_is_the_releases(plain, tmp_path):
    """demo_pkg-1.0.0-variants.json belongs to wheels of 1.0 (installers compare
    versions, not spellings): checked with them, and rewritten, not joined by a second file."""
    dist = tmp_path / "dist"
    _release(plain, dist)
    assert build_index(dist).ok
    (dist / "demo_pkg-1.0-variants.json").rename(dist / "demo_pkg-1.0.0-variants.json")
    assert build_index(dist, check=True).problems == []
    make_variant(plain, dist, label="x86_64_v4", properties=["x86_64 :: level :: v4"], namespaces=NS)
    assert any("does not list labels x86_64_v4" in p for p in build_index(dist, check=True).problems)
    report = build_index(dist)
    assert report.ok and not report.skipped
    assert sorted(p.name for p in dist.glob("*-variants.json")) == ["demo_pkg-1.0.0-variants.json"]
    md = load_metadata((dist / "demo_pkg-1.0.0-variants.json").read_bytes(), "x")
    assert "x86_64_v4" in md.variants
    # two files for one release: which one pip reads depends on the folder's listing
    (dist / "demo_pkg-1.0-variants.json").write_bytes((dist / "demo_pkg-1.0.0-variants.json").read_bytes())
    assert any("has several index files" in p for p in build_index(dist, check=True).problems)
    with pytest.raises(PublishError, match="delete all but one"):
        build_index(dist)


def test_index_names_disagreeing_wheels(run_cli, plain, tmp_path):
    dist = tmp_path / "dist"
    make_variant(plain, dist, label="cu128", properties=CU128, namespaces=NS)
    other = build_wheel(tmp_path / "plain2", "demo-pkg", "1.0", tag="py2.py3-none-any")
    make_variant(other, dist, label="cu128", properties=["nvidia :: cuda_version_lower_bound :: 12.6"],
                 namespaces=NS)
    with pytest.raises(PublishError) as exc:
        build_index(dist)
    msg = str(exc.value)
    assert "demo_pkg-1.0-py2.py3-none-any-cu128.whl" in msg and "demo_pkg-1.0-py3-none-any-cu128.whl" in msg
    assert "different properties" in msg
    assert not (dist / "simple").exists()  # nothing written
    proc = run_cli("index", str(dist), "--json")  # --json promises JSON, failure included
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["ok"] is False and doc["written"] == [] and "different properties" in doc["problems"][0]
    assert proc.stderr.startswith("pip-variants: error: ") and "different properties" in proc.stderr


def test_index_says_how_two_providers_entries_differ(plain, tmp_path):
    dist = tmp_path / "dist"
    make_variant(plain, dist, label="ob", properties=["blas :: lib :: ob"], namespaces=["blas"],
                 statics=["blas :: lib :: ob,mkl"])
    make_variant(plain, dist, label="mkl", properties=["blas :: lib :: mkl"], namespaces=["blas"],
                 statics=["blas :: lib :: mkl,ob"])
    with pytest.raises(PublishError, match=r"namespace 'blas' differently \(static-properties: "
                                           r"\{'lib': \['mkl', 'ob'\]\} vs \{'lib': \['ob', 'mkl'\]\}\)"):
        build_index(dist)


def test_make_variant_marks_a_provider_optional(run_cli, plain, tmp_path):
    dist = tmp_path / "dist"
    out = make_variant(plain, dist, label="dbg", properties=["dbg :: level :: on"], namespaces=["dbg"],
                       statics=["dbg"], optional=["dbg"])
    assert load_wheel_metadata(str(out), "dbg").providers["dbg"].optional is True
    with pytest.raises(PublishError, match="--optional names 'nvidia', which is not a namespace with a provider "
                                           r"here \(dbg\)"):
        make_variant(plain, tmp_path / "other", label="dbg", properties=["dbg :: level :: on"],
                     namespaces=["dbg"], statics=["dbg"], optional=["nvidia"])
    proc = run_cli("make-variant", str(plain), "--null", "--optional", "dbg", "-o", str(dist))
    assert proc.returncode == 0, proc.stderr
    assert build_index(dist).ok  # both wheels carry the same optional entry
    doc = json.loads((dist / "demo_pkg-1.0-variants.json").read_text())
    assert doc["providers"]["dbg"]["optional"] is True


def test_index_namespace_conflict(plain, tmp_path):
    dist = tmp_path / "dist"
    make_variant(plain, dist, label="cu128", properties=CU128)
    make_variant(plain, dist, label="v3", properties=["x86_64 :: level :: v3"])
    with pytest.raises(PublishError, match="same --namespaces"):
        build_index(dist)


def test_check_reports_missing_and_stale_index_file(plain, tmp_path):
    dist = tmp_path / "dist"
    _release(plain, dist)
    report = build_index(dist, check=True)
    assert not report.ok and "demo_pkg-1.0-variants.json is missing" in report.problems[0]
    assert not (dist / "demo_pkg-1.0-variants.json").exists()
    build_index(dist)
    other = build_wheel(tmp_path / "plain3", "demo-pkg", "1.0", tag="py2.py3-none-any")
    make_variant(other, dist, label="cu126", properties=["nvidia :: cuda_version_lower_bound :: 12.6"],
                 namespaces=NS)
    report = build_index(dist, check=True)
    assert any("does not list labels cu126" in p for p in report.problems)


def test_cli_make_variant_and_index(run_cli, plain, tmp_path):
    dist = tmp_path / "wheelhouse"
    proc = run_cli("make-variant", str(plain), "-p", CU128[0], "-p", CU128[1], "--label", "cu128",
                   "--namespaces", "nvidia,x86_64", "-o", str(dist))
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stdout and "label cu128" in proc.stdout
    proc = run_cli("make-variant", str(plain), "--null", "--namespaces", "nvidia,x86_64", "-o", str(dist), "--json")
    assert json.loads(proc.stdout)["label"] == "null"
    proc = run_cli("index", str(dist), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["ok"] and data["releases"][0]["labels"] == ["cu128", "null"]
    assert run_cli("index", str(dist), "--check").returncode == 0
    bad = run_cli("make-variant", str(plain), "-p", "acme :: x :: 1", "--label", "a", "-o", str(dist))
    assert bad.returncode == 1
    assert bad.stderr.startswith("pip-variants: error: no known provider for namespace 'acme'")
    assert "Traceback" not in bad.stderr
    missing = run_cli("make-variant", str(tmp_path / "nope.whl"), "--label", "a", "-o", str(dist))
    assert missing.returncode == 1 and "no such wheel file" in missing.stderr
    assert run_cli("make-variant", str(plain)).returncode == 2
    not_dir = run_cli("make-variant", str(plain), "--null", "-o", str(plain))
    assert not_dir.returncode == 1
    assert not_dir.stderr.strip() == f"pip-variants: error: {plain}: not a directory (-o names the folder to write the variant wheel in)"


def test_index_warns_about_labels_with_the_same_properties(run_cli, plain, tmp_path):
    """Only the first of two labels describing one property set can ever be
    chosen (PEP 825 breaks the tie by label; variantlib warns too)."""
    dist = tmp_path / "dist"
    for label in ("cu128", "cu128b"):
        make_variant(plain, dist, label=label, properties=CU128, namespaces=NS)
    make_variant(plain, dist, label="cu126", properties=["nvidia :: cuda_version_lower_bound :: 12.6"],
                 namespaces=NS)
    report = build_index(dist)
    assert report.ok and report.warnings == [
        "demo-pkg 1.0: labels cu128, cu128b describe the same properties; where they fit, only cu128 is "
        "ever chosen (give each build its own properties, or drop the extra wheels)"
    ]
    proc = run_cli("index", str(dist), "--check", "--json")
    assert proc.returncode == 0, proc.stderr  # a warning, not a failed check
    assert "pip-variants: warning: demo-pkg 1.0: labels cu128, cu128b" in proc.stderr
    assert json.loads(proc.stdout)["warnings"] == report.warnings


def test_index_says_which_labels_a_rewrite_drops(plain, tmp_path):
    dist = tmp_path / "dist"
    make_variant(plain, dist, label="cu128", properties=CU128, namespaces=NS)
    cu126 = make_variant(plain, dist, label="cu126", properties=["nvidia :: cuda_version_lower_bound :: 12.6"],
                         namespaces=NS)
    assert build_index(dist).warnings == []
    cu126.unlink()  # that build's wheel is on the index, not in this folder
    report = build_index(dist)
    assert report.ok and report.warnings == [
        "demo-pkg 1.0: demo_pkg-1.0-variants.json listed labels cu126, which have no wheel in this folder; the "
        "new file leaves them out. If those builds are on the index (uploaded from another machine), put their "
        "wheels here and run index again before uploading this file"]
    assert build_index(dist).warnings == []  # said once: the file now matches the folder


def test_index_warns_about_the_null_variants_old_label(tmp_path):
    from support.wheels import SCHEMA_0_0_3

    doc = {"$schema": SCHEMA_0_0_3, "default-priorities": {"namespace": ["x86_64"]},
           "providers": {"x86_64": {"requires": ["x86-64-variant-provider>=0.2"]}}}
    for label, props in (("v3", {"x86_64": {"level": ["v3"]}}), ("00000000", {})):
        build_wheel(tmp_path, "old", "1.0", label=label, variant_json=dict(doc, variants={label: props}))
    report = build_index(tmp_path)
    assert report.ok and report.warnings == [
        "old 1.0: label 00000000 describes no property, the null variant's old name; variantlib 0.2 refuses a "
        "variants.json with it (the null variant is 'null' in format 0.2.0): make that build again with "
        "'pip-variants make-variant --null'"]


def test_cli_index_of_a_folder_without_wheels(run_cli, tmp_path):
    proc = run_cli("index", str(tmp_path))
    assert proc.returncode == 1
    assert f"pip-variants: error: no wheel (*.whl) in {tmp_path}: nothing to index" in proc.stderr
    assert list(tmp_path.iterdir()) == []  # no empty simple/ page to serve
    check = run_cli("index", str(tmp_path), "--check")
    assert check.returncode == 1 and "check passed" not in check.stdout
    assert "nothing to index" in check.stderr


def test_cli_index_of_a_folder_with_only_sdists(run_cli, tmp_path):
    (tmp_path / "demo-1.0.tar.gz").write_bytes(b"")
    proc = run_cli("index", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert f"pip-variants: warning: no wheel (*.whl) in {tmp_path}" in proc.stderr
    assert (tmp_path / "simple" / "demo" / "index.html").is_file()


def test_make_variant_copies_members_compressed_with_normal_permissions(tmp_path):
    import os
    import stat

    blob = os.urandom(200_000)
    src = build_wheel(tmp_path / "plain", "demo-pkg", "1.0", files={"demo_pkg/blob.bin": blob})
    old = os.umask(0o022)
    try:
        out = make_variant(src, tmp_path / "dist", label="cu128", properties=CU128, namespaces=NS)
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644  # not the 0600 of a temporary file
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]

    def raw(path):
        with zipfile.ZipFile(path) as zf, open(path, "rb") as f:
            info = zf.getinfo("demo_pkg/blob.bin")
            f.seek(info.header_offset + 26)
            n, m = int.from_bytes(f.read(2), "little"), int.from_bytes(f.read(2), "little")
            f.seek(info.header_offset + 30 + n + m)
            return f.read(info.compress_size)

    assert raw(out) == raw(src)
    _check_record(out)


def test_cli_bad_namespace_and_a_wheel_without_metadata_are_one_error_line(run_cli, plain, tmp_path):
    bad = run_cli("make-variant", str(plain), "--label", "a", "-p", "x86_64 :: level :: v3",
                  "--namespaces", "x86-64", "-o", str(tmp_path / "out"))
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("pip-variants: error: --namespaces: invalid variant namespace 'x86-64'")
    nometa = tmp_path / "nometa-1.0-py3-none-any.whl"
    with zipfile.ZipFile(nometa, "w") as zf:
        zf.writestr("nometa/__init__.py", "")
        zf.writestr("nometa-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n")
        zf.writestr("nometa-1.0.dist-info/RECORD", "")
    for extra in ((), ("--requires", "foo")):
        proc = run_cli("make-variant", str(nometa), "--label", "a", "-p", "x86_64 :: level :: v3", *extra,
                       "-o", str(tmp_path / "out"))
        assert proc.returncode == 1 and "Traceback" not in proc.stderr
        assert "nometa-1.0.dist-info has no METADATA file; is it a wheel?" in proc.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.whl"))


def test_a_value_outside_its_static_list_is_refused(plain, tmp_path):
    with pytest.raises(PublishError, match=re.escape(
            "variant v3: acme :: level :: v3 is not in the static list of 'acme': no machine could select")):
        make_variant(plain, tmp_path / "dist", label="v3", properties=["acme :: level :: v3"],
                     statics=["acme :: level :: v1,v2"])
    assert not (tmp_path / "dist").exists() or not list((tmp_path / "dist").glob("*.whl"))


@pytest.mark.parametrize("prop, says", [
    ("x86_64 :: level :: v5", "x86_64 :: level :: v5 is not in what the x86_64 provider reports"),
    ("nvidia :: sm_arch :: 90", "nvidia :: sm_arch :: 90 is not in what the nvidia provider reports"),
    ("nvidia :: cuda_version :: 12.8", "nvidia :: cuda_version is not in what the nvidia provider reports"),
])
def test_a_property_no_builtin_reports_is_a_warning(run_cli, plain, tmp_path, prop, says):
    """Most likely a typo: the wheel is written, but make-variant and index say so."""
    dist = tmp_path / "dist"
    proc = run_cli("make-variant", str(plain), "--label", "typo", "-p", prop, "--namespaces", "nvidia,x86_64",
                   "-o", str(dist))
    assert proc.returncode == 0, proc.stderr
    assert f"pip-variants: warning: variant typo: {says}" in proc.stderr
    index = run_cli("index", str(dist), "--check", "--json")
    assert index.returncode == 1  # the variants.json is missing; the warning comes anyway
    assert any(says in w for w in json.loads(index.stdout)["warnings"])


def test_well_formed_properties_draw_no_warning(run_cli, plain, tmp_path):
    dist = tmp_path / "dist"
    _release(plain, dist)
    assert build_index(dist).warnings == []


def test_check_names_a_missing_label_once(plain, tmp_path):
    dist = tmp_path / "dist"
    _release(plain, dist)
    build_index(dist)
    make_variant(plain, dist, label="cu126", properties=["nvidia :: cuda_version_lower_bound :: 12.6"],
                 namespaces=NS)
    problems = build_index(dist, check=True).problems
    assert problems == ["demo_pkg-1.0-variants.json does not list labels cu126"]
    (dist / "demo_pkg-1.0-variants.json").write_text("{not json")
    problems = build_index(dist, check=True).problems
    assert len(problems) == 1 and problems[0].count("demo_pkg-1.0-variants.json") == 1


def test_cli_check_json_of_an_empty_folder_is_not_ok(run_cli, tmp_path):
    proc = run_cli("index", str(tmp_path), "--check", "--json")
    assert proc.returncode == 1 and json.loads(proc.stdout)["ok"] is False


def test_index_names_the_file_it_cannot_write_and_leaves_no_temporary_file(run_cli, plain, tmp_path):
    dist = tmp_path / "dist"
    _release(plain, dist)
    blocked = dist / "simple" / "demo-pkg" / "index.html"
    blocked.mkdir(parents=True)
    proc = run_cli("index", str(dist))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"pip-variants: error: cannot write {blocked}: Is a directory" in proc.stderr
    assert sorted(p.name for p in blocked.parent.iterdir()) == ["index.html"]
