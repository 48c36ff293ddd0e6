"""H2–H5 on a real ``PackageFinder`` over a find-links directory."""

from __future__ import annotations

import pytest
from _helpers import applicable_filenames, best_filename, build_pkg, make_finder, variant_finder

from pip_variants._pip.context import ATTR
from pip_variants._pip.state import STATE


def test_best_compatible_variant_wins(patched, pkg_dir):
    finder = variant_finder([str(pkg_dir)])
    assert best_filename(finder) == "pkg-1.0-py3-none-any-fv3.whl"


def test_order_within_a_version(patched, pkg_dir):
    finder = variant_finder([str(pkg_dir)])
    # ascending preference: non-variant < null < fv1 < fv3; fv9 (unsupported) removed
    assert applicable_filenames(finder) == [
        "pkg-1.0-py3-none-any.whl",
        "pkg-1.0-py3-none-any-null.whl",
        "pkg-1.0-py3-none-any-fv1.whl",
        "pkg-1.0-py3-none-any-fv3.whl",
    ]


def test_index_file_is_peeled_into_the_registry(patched, pkg_dir):
    finder = variant_finder([str(pkg_dir)])
    finder.find_all_candidates("pkg")
    registry = getattr(finder, ATTR).registry
    assert [key[1:] for key in registry] == [("pkg", "1.0")]
    assert all(c.link.filename.endswith(".whl") for c in finder.find_all_candidates("pkg"))


def test_two_index_files_of_one_release_are_said(patched, pkg_dir, caplog):
    """pkg-1.0.0-variants.json beside pkg-1.0-variants.json: pip reads the first listed."""
    (pkg_dir / "pkg-1.0.0-variants.json").write_bytes((pkg_dir / "pkg-1.0-variants.json").read_bytes())
    finder = variant_finder([str(pkg_dir)])
    finder.find_all_candidates("pkg")
    said = [r.getMessage() for r in caplog.records if "two index files" in r.getMessage()]
    assert len(said) == 1 and "pkg-1.0-variants.json" in said[0] and "pkg-1.0.0-variants.json" in said[0]


def test_in_wheel_metadata_is_used_without_an_index_file(patched, tmp_path):
    d = tmp_path / "wheels"
    d.mkdir()
    build_pkg(d, index_file=False)
    finder = variant_finder([str(d)])
    assert best_filename(finder) == "pkg-1.0-py3-none-any-fv3.whl"


def test_forced_label(patched, pkg_dir):
    finder = variant_finder([str(pkg_dir)], pip_variants_variant=["pkg=fv9"])
    assert applicable_filenames(finder) == ["pkg-1.0-py3-none-any-fv9.whl"]


def test_forced_unknown_label_is_a_pip_error(patched, pkg_dir):
    from pip._internal.exceptions import InstallationError

    finder = variant_finder([str(pkg_dir)], pip_variants_variant=["pkg=nope"])
    with pytest.raises(InstallationError, match=r"no variant labelled 'nope'.*fv1, fv3, fv9, null"):
        finder.find_best_candidate("pkg")


def test_no_variants_option_is_stock(patched, pkg_dir):
    finder = variant_finder([str(pkg_dir)], pip_variants_no_variants=True)
    assert not STATE.enabled
    assert applicable_filenames(finder) == ["pkg-1.0-py3-none-any.whl"]


def test_finder_without_state_fails_closed(patched, pkg_dir):
    variant_finder([str(pkg_dir)])  # variants on in this process (H1 accepts labels)
    foreign = make_finder([str(pkg_dir)])  # e.g. pip-tools' own finder
    assert applicable_filenames(foreign) == ["pkg-1.0-py3-none-any.whl"]


def test_release_without_variants_keeps_the_stock_key(patched, tmp_path):
    from pip._internal.index.package_finder import CandidateEvaluator

    d = tmp_path / "wheels"
    d.mkdir()
    build_pkg(d, labels=[], index_file=False)
    finder = variant_finder([str(d)])
    candidates = finder.find_all_candidates("pkg")
    evaluator = finder.make_candidate_evaluator("pkg")
    assert getattr(evaluator, ATTR) is not None
    evaluator.get_applicable_candidates(candidates)
    stock = CandidateEvaluator.__dict__["_sort_key"].__pip_variants_wraps__
    for cand in candidates:
        assert evaluator._sort_key(cand) == stock(evaluator, cand)


def test_sort_key_gets_the_rank_right_after_the_version(patched, pkg_dir):
    from pip._internal.index.package_finder import CandidateEvaluator

    finder = variant_finder([str(pkg_dir)])
    candidates = finder.find_all_candidates("pkg")
    evaluator = finder.make_candidate_evaluator("pkg")
    evaluator.get_applicable_candidates(candidates)
    stock = CandidateEvaluator.__dict__["_sort_key"].__pip_variants_wraps__
    ranks = {}
    for cand in candidates:
        key = evaluator._sort_key(cand)
        plain = stock(evaluator, cand)
        assert len(key) == len(plain) + 1
        at = next(i for i, item in enumerate(plain) if item is cand.version)
        assert key[: at + 1] == plain[: at + 1] and key[at + 2 :] == plain[at + 1 :]
        ranks[cand.link.filename.rsplit("-", 1)[-1]] = key[at + 1]
    assert ranks["any.whl"] == 0
    assert ranks["fv9.whl"] == -1
    assert ranks["fv3.whl"] > ranks["fv1.whl"] > ranks["null.whl"] > 0


def test_variant_rank_beats_tag_priority(patched, tmp_path):
    # A variant with the generic py3-none-any tag beats a plain wheel with a
    # more specific tag (PEP 825: variant order precedes tag order).
    from _helpers import STATIC_DATA
    from pip._internal.utils.compatibility_tags import get_supported
    from support.wheels import build_wheel

    d = tmp_path / "wheels"
    d.mkdir()
    best_tag = str(get_supported()[0])
    build_wheel(d, "pkg", "1.0", tag=best_tag)
    build_wheel(d, "pkg", "1.0", label="fv1", variant_json=STATIC_DATA)
    finder = variant_finder([str(d)])
    assert best_filename(finder) == "pkg-1.0-py3-none-any-fv1.whl"


def _inconsistent_local_wheel(tmp_path):
    import json

    from _helpers import STATIC_DATA
    from support.wheels import build_wheel, write_variants_json

    d = tmp_path / "wheels"
    d.mkdir()
    build_wheel(d, "pkg", "1.0")
    build_wheel(d, "pkg", "1.0", label="fv3", variant_json=STATIC_DATA)
    other = json.loads(json.dumps(STATIC_DATA))
    other["variants"]["fv3"] = {"fake": {"level": ["v2"]}}
    write_variants_json(d, "pkg", "1.0", other)
    return d


def test_local_wheels_beside_an_index_file_are_not_opened(patched, tmp_path, mocker):
    """H12 checks the wheel pip takes (tests/pip/test_candidates.py): a
    wheelhouse is not read for every label."""
    from pip_variants import metadata

    d = _inconsistent_local_wheel(tmp_path)
    spy = mocker.spy(metadata, "load_wheel_metadata")
    assert best_filename(variant_finder([str(d)])) == "pkg-1.0-py3-none-any-fv3.whl"
    assert spy.call_count == 0


def test_inconsistent_local_wheel_is_dropped_for_explain(patched, tmp_path, monkeypatch):
    monkeypatch.setenv("PIP_VARIANTS_EXPLAIN_FILE", str(tmp_path / "records.jsonl"))
    d = _inconsistent_local_wheel(tmp_path)
    assert best_filename(variant_finder([str(d)])) == "pkg-1.0-py3-none-any.whl"


def test_internal_error_falls_back_to_stock(patched, pkg_dir, monkeypatch, caplog):
    from pip_variants._pip import context

    def boom(self, *args, **kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setattr(context.FinderContext, "outcome", boom)
    finder = variant_finder([str(pkg_dir)])
    with caplog.at_level("WARNING", logger="pip_variants"):
        assert applicable_filenames(finder) == ["pkg-1.0-py3-none-any.whl"]
    assert STATE.broken
    assert [r.getMessage() for r in caplog.records] == [
        "pip-variants: internal error in CandidateEvaluator.get_applicable_candidates: "
        "RuntimeError: kaput; falling back to stock pip behaviour"
    ]


def test_chosen_variant_is_logged_once(patched, pkg_dir, caplog):
    finder = variant_finder([str(pkg_dir)])
    with caplog.at_level("INFO", logger="pip_variants"):
        finder.find_best_candidate("pkg")
        finder.make_candidate_evaluator("pkg").compute_best_candidate(finder.find_all_candidates("pkg"))
    assert [r.getMessage() for r in caplog.records] == ["pkg 1.0: variant fv3 (fake :: level :: v3)"]


def test_chosen_variant_line_names_the_values_this_machine_matched(patched, tmp_path, caplog, monkeypatch):
    from support.wheels import NVIDIA_PROVIDER, build_release, variants_json

    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.8")
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "9.0")
    data = variants_json(
        "pkg", "1.0", namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER},
        variants={"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"],
                                       "sm_arch": ["100_real", "120_real", "80_real", "90_real"]}}, "null": {}},
    )
    build_release(tmp_path, "pkg", "1.0", data)
    with caplog.at_level("INFO", logger="pip_variants"):
        variant_finder([str(tmp_path)]).find_best_candidate("pkg")
    # not the first four of its five: the build also serves GPUs this machine does not have
    assert [r.getMessage() for r in caplog.records] == [
        "pkg 1.0: variant cu128 (nvidia :: cuda_version_lower_bound :: 12.8, nvidia :: sm_arch :: 90_real)"
    ]


def test_forced_label_on_a_project_without_variants(patched, tmp_path):
    from pip._internal.exceptions import InstallationError

    d = tmp_path / "wheels"
    d.mkdir()
    build_pkg(d, labels=[], index_file=False)
    finder = variant_finder([str(d)], pip_variants_variant=["pkg=fv3"])
    with pytest.raises(InstallationError, match="no variant labelled 'fv3'.*available labels: none"):
        finder.find_best_candidate("pkg")


def test_forced_label_for_another_project_changes_nothing(patched, pkg_dir):
    finder = variant_finder([str(pkg_dir)], pip_variants_variant=["other=fv9"])
    assert best_filename(finder) == "pkg-1.0-py3-none-any-fv3.whl"


def test_version_index_uses_the_hint_only_when_it_still_holds():
    from pip_variants._pip.finder import _version_index

    version = object()
    key = (1, "x", version, 3)
    assert _version_index(key, version) == 2
    assert _version_index(key, version, 2) == 2
    assert _version_index(key, version, 1) == 2  # stale hint: searched again
    assert _version_index(key, version, 9) == 2  # out of range
    assert _version_index((version,), version, -1) == 0
    with pytest.raises(LookupError):
        _version_index((1, 2), version, 0)


def test_release_of_is_worked_out_once_per_candidate(patched, monkeypatch):
    from types import SimpleNamespace

    from pip_variants._pip import _compat, context
    from pip_variants._pip.context import EvaluatorContext

    calls = []
    monkeypatch.setattr(context, "release_key", lambda *args, _key=context.release_key: calls.append(args) or _key(*args))
    link = SimpleNamespace(comes_from="https://example.test/simple/pkg/", url_without_fragment="")
    ctx = EvaluatorContext(SimpleNamespace(), "pkg")
    cand = SimpleNamespace(version=_compat.Version("1.0"), link=link)
    assert ctx.release_of(cand) == ("1.0", "https://example.test/simple/pkg/")
    assert ctx.release_of(cand) == ("1.0", "https://example.test/simple/pkg/")
    assert len(calls) == 1
    # Another candidate object: its own key, even if it got the same id().
    other = SimpleNamespace(version=_compat.Version("2.0"), link=link)
    ctx._releases[id(other)] = (cand, ("1.0", "stale"))
    assert ctx.release_of(other) == ("2.0", "https://example.test/simple/pkg/")


# -- one release on several sources (WHEEL-VARIANTS §3.5, App. B 7) -------------------------

_LEVELS = {"fake": {"static-properties": {"level": ["v3", "v2", "v1"]}}}


def _source(root, name, variants, version="1.0", plain=True):
    from support.wheels import build_release, variants_json

    folder = root / name
    folder.mkdir(exist_ok=True)
    data = variants_json("pkg", version, namespaces=["fake"], providers=_LEVELS, variants=variants)
    build_release(folder, "pkg", version, data, plain=plain)
    return str(folder)


def _level(value):
    return {"fake": {"level": [value]}}


def test_several_sources_that_agree_are_ranked_as_one(patched, tmp_path):
    a = _source(tmp_path, "a", {"a3": _level("v3")}, plain=False)
    b = _source(tmp_path, "b", {"b2": _level("v2"), "b1": _level("v1")})
    finder = variant_finder([b, a])
    assert applicable_filenames(finder) == [
        "pkg-1.0-py3-none-any.whl",
        "pkg-1.0-py3-none-any-b1.whl",
        "pkg-1.0-py3-none-any-b2.whl",
        "pkg-1.0-py3-none-any-a3.whl",
    ]
    # asked again (pip asks per requirement): the same answer, reconciled once
    assert best_filename(finder) == "pkg-1.0-py3-none-any-a3.whl"


def test_several_sources_that_conflict_leave_the_plain_wheel(patched, tmp_path):
    a = _source(tmp_path, "a", {"x": _level("v3")}, plain=False)
    b = _source(tmp_path, "b", {"x": _level("v2")})
    assert applicable_filenames(variant_finder([b, a])) == ["pkg-1.0-py3-none-any.whl"]


def test_a_label_invalid_on_one_source_and_valid_on_another_is_a_conflict(patched, tmp_path):
    a = _source(tmp_path, "a", {"y": _level("v1"), "x": {"other": {"f": ["v"]}}}, plain=False)
    b = _source(tmp_path, "b", {"x": _level("v3")})
    assert applicable_filenames(variant_finder([b, a])) == ["pkg-1.0-py3-none-any.whl"]


def test_strict_conflict_is_an_error_for_the_release_pip_takes(patched, tmp_path):
    from pip_variants._pip.errors import VariantInstallationError

    a = _source(tmp_path, "a", {"x": _level("v3")}, plain=False)
    b = _source(tmp_path, "b", {"x": _level("v2")})
    with pytest.raises(VariantInstallationError, match="do not agree.*--variant-strict"):
        variant_finder([b, a], pip_variants_strict=True).find_best_candidate("pkg")


@pytest.mark.parametrize("mode", ["forced", "explain"])
def test_strict_conflict_in_an_older_release_is_no_error(patched, tmp_path, monkeypatch, mode):
    """--variant and explain settle every release; a conflict in one pip does
    not take is reported there, not fatal."""
    a = _source(tmp_path, "a", {"x": _level("v3")}, version="2.0")
    _source(tmp_path, "a", {"x": _level("v3")}, plain=False)
    b = _source(tmp_path, "b", {"x": _level("v2")})
    opts = {"pip_variants_strict": True}
    if mode == "forced":
        opts["pip_variants_variant"] = ["pkg=x"]
    else:
        monkeypatch.setenv("PIP_VARIANTS_EXPLAIN_FILE", str(tmp_path / "explain.jsonl"))
    assert best_filename(variant_finder([b, a], **opts)) == "pkg-2.0-py3-none-any-x.whl"


def _sha256(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_hash_pins_over_a_folder_hash_only_what_pip_would_take(patched, tmp_path, mocker):
    """The taken version's best local variant wheel is hashed, then the next,
    until a pinned one: fv3 (unpinned) gives way to fv1, and the files below
    are never read. An older version, settled only if the resolver gets there,
    loses every unpinned variant wheel up front."""
    from pip._internal.utils.hashes import Hashes

    from pip_variants._pip import _compat
    from pip_variants._pip import hash_pins

    d = tmp_path / "wheels"
    d.mkdir()
    build_pkg(d, version="1.0")
    build_pkg(d, version="2.0")
    pins = [_sha256(d / f"pkg-{v}-py3-none-any-fv1.whl") for v in ("1.0", "2.0")]
    hashed = mocker.spy(hash_pins, "file_is_pinned")
    finder = variant_finder([str(d)])
    result = finder.find_best_candidate("pkg", hashes=Hashes({"sha256": pins}))
    assert result.best_candidate.link.filename == "pkg-2.0-py3-none-any-fv1.whl"
    applicable = [c.link.filename for c in _compat.applicable_candidates(result)]
    assert applicable[-1] == "pkg-2.0-py3-none-any-fv1.whl"  # below it, files pip never takes stay unread
    assert [f for f in applicable if "-fv" in f] == ["pkg-1.0-py3-none-any-fv1.whl", "pkg-2.0-py3-none-any-fv1.whl"]
    files = [call.args[0].rsplit("/", 1)[-1] for call in hashed.call_args_list]
    assert [f for f in files if f.startswith("pkg-2.0")] == [
        "pkg-2.0-py3-none-any-fv3.whl", "pkg-2.0-py3-none-any-fv1.whl"]


def newer_misfit(d):
    """pkg 1.0: the usual release; pkg 2.0: only fv9, which this machine lacks."""
    d.mkdir()
    build_pkg(d)
    build_pkg(d, version="2.0", labels=["fv9"], plain=False)
    return d


@pytest.fixture
def newer_misfit_dir(tmp_path):
    return newer_misfit(tmp_path / "wheels")


def _logged(caplog):
    return [(r.levelname, r.getMessage()) for r in caplog.records]


def test_falling_back_to_an_older_release_reports_its_variant(patched, newer_misfit_dir, caplog):
    finder = variant_finder([str(newer_misfit_dir)])
    with caplog.at_level("INFO", logger="pip_variants"):
        assert best_filename(finder) == "pkg-1.0-py3-none-any-fv3.whl"
    logged = _logged(caplog)
    assert ("INFO", "pkg 1.0: variant fv3 (fake :: level :: v3)") in logged
    assert any(level == "WARNING" and "no distribution of pkg 2.0 fits this machine" in text
               and "pip will try older versions" in text for level, text in logged)
    from pip._vendor.packaging.version import Version

    # what pip-variants selected for the release pip takes: a kept build is compared with it
    assert getattr(finder, ATTR).chosen == {("pkg", Version("1.0")): "fv3"}


def test_a_profile_is_named_where_nothing_fits_it(patched, caplog, tmp_path):
    import json

    from support.wheels import X86_64_PROVIDER, build_release, variants_json

    def release(version, labels):
        data = variants_json("pkg", version, namespaces=["x86_64"], providers={"x86_64": X86_64_PROVIDER},
                             variants={label: {"x86_64": {"level": [label]}} for label in labels})
        build_release(tmp_path / "wheels", "pkg", version, data, plain=False)

    release("1.0", ["v1"])
    release("2.0", ["v4"])
    profile = tmp_path / "target.json"
    profile.write_text(json.dumps({"x86_64": {"level": ["v2", "v1"]}}))
    finder = variant_finder([str(tmp_path / "wheels")], pip_variants_profile=str(profile))
    with caplog.at_level("INFO", logger="pip_variants"):
        assert best_filename(finder) == "pkg-1.0-py3-none-any-v1.whl"
    (text,) = [text for level, text in _logged(caplog) if "no distribution of pkg 2.0" in text]
    assert ("no distribution of pkg 2.0 fits the variant profile (no variant fits the variant profile "
            "(v4: needs x86_64 :: level :: v4; the variant profile supports v2, v1))") in text
    # what the release's own static list refuses is not the profile's doing
    caplog.clear()
    finder = variant_finder([str(newer_misfit(tmp_path / "static"))], pip_variants_profile=str(profile))
    with caplog.at_level("INFO", logger="pip_variants"):
        best_filename(finder)
    (text,) = [text for level, text in _logged(caplog) if "no distribution of pkg 2.0" in text]
    assert "fits this machine" in text and "the variant profile" not in text


def test_forced_label_missing_from_the_newest_release_is_one_warning(patched, newer_misfit_dir, caplog):
    finder = variant_finder([str(newer_misfit_dir)], pip_variants_variant=["pkg=fv1"])
    with caplog.at_level("WARNING", logger="pip_variants"):
        assert best_filename(finder) == "pkg-1.0-py3-none-any-fv1.whl"
    assert _logged(caplog) == [("WARNING", "pip-variants: pkg 2.0 has no variant labelled 'fv1' "
                                           "(--variant pkg=fv1); using pkg 1.0 instead")]


def test_an_unsupported_forced_label_of_an_older_release_is_said(patched, tmp_path, caplog):
    d = tmp_path / "wheels"
    d.mkdir()
    build_pkg(d)
    build_pkg(d, version="2.0", labels=["fv3"], plain=False)
    finder = variant_finder([str(d)], pip_variants_variant=["pkg=fv9"])
    with caplog.at_level("WARNING", logger="pip_variants"):
        assert best_filename(finder) == "pkg-1.0-py3-none-any-fv9.whl"
    assert any("pkg 1.0: variant fv9 was chosen with --variant, but this machine does not support it" in text
               for _, text in _logged(caplog))


def test_the_explain_hint_looks_where_pip_looked():
    from types import SimpleNamespace

    from pip_variants._pip.context import FinderContext

    ctx = FinderContext(lambda: None, None)
    assert ctx.explain_command("torch") == "pip-variants explain torch"  # no scope known: pip's defaults
    ctx.search_scope = SimpleNamespace(index_urls=["https://pypi.org/simple"], find_links=[])
    assert ctx.explain_command("torch") == "pip-variants explain torch"
    ctx.search_scope = SimpleNamespace(index_urls=["https://user:secret@idx.example/simple", "https://x/simple"],
                                       find_links=["/wheel house"])
    assert ctx.explain_command("torch") == (
        "pip-variants explain torch --index-url https://idx.example/simple "
        '--extra-index-url https://x/simple --find-links "/wheel house"')
    # credentials are left out, not masked (netrc or keyring has them); trusted hosts stay trusted
    ctx.session = SimpleNamespace(pip_trusted_origins=[("127.0.0.1", 8443), ("idx.example", None), ("::1", 8443)])
    assert ctx.explain_command("torch").endswith(
        '--find-links "/wheel house" --trusted-host 127.0.0.1:8443 --trusted-host idx.example '
        '--trusted-host "[::1]:8443"')
    ctx.session = None
    ctx.search_scope = SimpleNamespace(index_urls=[], find_links=["wheels"])
    assert ctx.explain_command("torch") == "pip-variants explain torch --no-index --find-links wheels"
    # ... and chooses as pip chose: the profile, and what --variant said for this project
    ctx.choice_options = [("--variant-profile", "/p/h100.json", None), ("--variant", "Torch=cu128", "torch"),
                          ("--variant", "jax=tpu", "jax"), ("--variant-strict", "", None)]
    assert ctx.explain_command("torch") == ("pip-variants explain torch --no-index --find-links wheels "
                                            "--variant-profile /p/h100.json --variant Torch=cu128 --variant-strict")


def test_the_explain_hint_carries_the_choice_options(patched, tmp_path):
    import json

    profile = tmp_path / "p.json"
    profile.write_text(json.dumps({"x86_64": {"level": ["v1"]}}))
    finder = variant_finder([], pip_variants_profile=str(profile), pip_variants_variant=["pkg=fv1", "other=x"],
                            pip_variants_disable=["tpu"])
    assert getattr(finder, ATTR).explain_command("pkg").endswith(
        f"--variant-profile {profile} --variant pkg=fv1 --variant-disable tpu")


def test_the_chosen_line_spells_the_version_as_the_wheel(patched, tmp_path, caplog):
    # an index file named for 1.0.0 describes the wheels of 1.0: pip says "pkg-1.0", so do we
    build_pkg(tmp_path)
    (tmp_path / "pkg-1.0-variants.json").rename(tmp_path / "pkg-1.0.0-variants.json")
    finder = variant_finder([str(tmp_path)])
    with caplog.at_level("INFO", logger="pip_variants"):
        assert best_filename(finder) == "pkg-1.0-py3-none-any-fv3.whl"
    assert ("INFO", "pkg 1.0: variant fv3 (fake :: level :: v3)") in _logged(caplog)
