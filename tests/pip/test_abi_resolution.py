"""H14-H17: ABI-dependency builds inside pip's resolver (real pip modules).

The whole chain runs against real pip in tests/e2e/test_abi_e2e.py; these
tests pin down the pieces: which extra builds of one version are offered,
the requirement text, and the conflict sentence.
"""

from __future__ import annotations

import functools

from pip_variants._pip import abi_builds, abi_resolution
from pip_variants._pip.state import STATE, ChosenVariant
from pip_variants.abi import AbiRequirement


class _Cand:
    """What the iterators read of a pip candidate: its link and version."""

    def __init__(self, link, version):
        self._link, self.version = link, version
        self.name = "attn-like"


def _infos(*entries):
    from pip._internal.models.link import Link
    from pip._vendor.packaging.version import Version

    STATE.enabled = True  # as H8 leaves it in an install command
    out, made = [], {}
    for version, filename, abi in entries:
        link = Link(f"https://example.invalid/files/{filename}")
        if abi is not None:
            STATE.chosen[link.url_without_fragment] = ChosenVariant(
                label=filename.rsplit("-", 1)[-1][:-4], properties=[], variants_json_url=None, abi=abi)
            STATE.abi_links = True

        def make(link=link, version=version):
            return made.setdefault(link.url, _Cand(link, Version(version)))

        out.append((Version(version), functools.partial(make, link=link)))
    return out


T29 = (AbiRequirement("torch-like", ("2.9",)),)
T28 = (AbiRequirement("torch-like", ("2.8",)),)


def _names(cands):
    return [(str(c.version), c._link.filename) for c in cands]


def test_each_abi_set_of_a_version_is_offered_before_older_versions(patched):
    from pip._internal.resolution.resolvelib import found_candidates as fc

    infos = _infos(
        ("1.0", "a-1.0-py3-none-any-cu128_t29.whl", T29),
        ("1.0", "a-1.0-py3-none-any-cu126_t29.whl", T29),  # same set: only a build fallback
        ("1.0", "a-1.0-py3-none-any-cu128_t28.whl", T28),
        ("1.0", "a-1.0-py3-none-any-null.whl", ()),
        ("1.0", "a-1.0-py3-none-any.whl", None),
        ("0.9", "a-0.9-py3-none-any-t29.whl", T29),
    )
    got = _names(fc._iter_built(iter(infos)))
    assert got == [
        ("1.0", "a-1.0-py3-none-any-cu128_t29.whl"),
        ("1.0", "a-1.0-py3-none-any-cu128_t28.whl"),
        ("1.0", "a-1.0-py3-none-any-null.whl"),
        ("0.9", "a-0.9-py3-none-any-t29.whl"),
    ]


def test_releases_without_abi_builds_keep_one_candidate_per_version(patched):
    from pip._internal.resolution.resolvelib import found_candidates as fc

    infos = _infos(("1.0", "b-1.0-py3-none-any-x.whl", None), ("1.0", "b-1.0-py3-none-any.whl", None))
    assert len(list(fc._iter_built(iter(infos)))) == 1


def test_installed_candidate_is_still_first_and_index_read_lazily(patched):
    from pip._internal.resolution.resolvelib import found_candidates as fc

    STATE.abi_links = STATE.enabled = True
    installed = _Cand(None, __import__("pip._vendor.packaging.version", fromlist=["Version"]).Version("1.0"))
    pulled = []

    def infos():
        pulled.append(True)
        yield from _infos(("0.9", "c-0.9-py3-none-any-t29.whl", T29))

    it = fc._iter_built_with_prepended(installed, infos())
    assert next(it) is installed and pulled == []
    assert _names(it) == [("0.9", "c-0.9-py3-none-any-t29.whl")]


def test_requirement_text_for_single_nested_and_disjoint_values():
    assert abi_resolution._spec(AbiRequirement("torch", ("2.9",))) == "torch==2.9.*"
    assert abi_resolution._spec(AbiRequirement("torch", ("2", "2.9"))) == "torch==2.*"
    assert abi_resolution._spec(AbiRequirement("torch", ("2.7", "2.9"))) == "torch>=2.7.dev0,<2.10.dev0"
    # The upper bound is the largest of the values' bounds, not the bound of the largest value.
    assert abi_resolution._spec(AbiRequirement("torch", ("2.7", "2.9", "2.9.1"))) == "torch>=2.7.dev0,<2.10.dev0"


class _Req:
    """A requirement among a ResolutionImpossible's causes (only its text and name are read)."""

    def __init__(self, text):
        self.text, self.project_name = text, "torch-like"

    def __str__(self):
        return self.text


def _release_of(labels, builtin=False):
    """A release's metadata: ``{label: [torch_like values]}``, in either ABI spelling, plus ``null``."""
    from pip_variants.metadata import parse_metadata
    from support.chains import abi_release

    doc = abi_release(labels, builtin=builtin)
    doc["variants"]["null"] = {}
    return parse_metadata(doc, "attn_like-1.0-variants.json")


def test_conflict_sentence_names_builds_and_the_requested_version(patched):
    infos = _infos(("1.0", "attn_like-1.0-py3-none-any-torch28.whl", T28))
    parent = infos[0][1]()
    # every build of the release counts, those the selection set aside too
    abi_builds.register_builds("attn-like", "1.0", _release_of({"t28": ["2.8"], "t29": ["2.9"]}))

    lines = abi_resolution.abi_conflicts([(_Req("torch-like==2.8.*"), parent), (_Req("torch-like==2.7.0"), None)])
    assert lines == [
        "pip-variants: attn-like 1.0 has builds for torch-like 2.8 and 2.9 (abi_dependency); "
        "torch-like==2.7.0 (requested) is being installed"
    ]


def test_conflict_sentence_says_when_variant_left_one_build(patched):
    infos = _infos(("1.0", "attn_like-1.0-py3-none-any-torch28.whl", T28))
    parent = infos[0][1]()
    abi_builds.register_builds("attn-like", "1.0", _release_of({"t28": ["2.8"], "t29": ["2.9"]}))

    lines = abi_resolution.abi_conflicts([(_Req("torch-like==2.8.*"), parent), (_Req("torch-like==2.9.0"), None)],
                                         {"attn-like": "t28"})
    assert lines == [
        "pip-variants: attn-like 1.0 has builds for torch-like 2.8 and 2.9 (abi_dependency; --variant "
        "attn-like=t28 takes only that build); torch-like==2.9.0 (requested) is being installed"
    ]


def test_values_no_version_matches_are_not_named_as_builds(patched):
    abi_builds.register_builds("attn-like", "1.0", _release_of({"t28": ["2.8"], "odd": ["next"]}))
    assert STATE.abi_builds[("attn-like", "1.0")] == {"torch-like": {"2.8"}}


def test_conflict_sentence_says_how_to_let_pip_move_a_held_installed_version(patched):
    from pip_variants.abi import AbiContext

    infos = _infos(("1.0", "attn_like-1.0-py3-none-any-torch28.whl", T28))
    parent = infos[0][1]()
    abi_builds.register_builds("attn-like", "1.0", _release_of({"t28": ["2.8"], "t29": ["2.9"]}, builtin=True))
    ctx = AbiContext()
    ctx.bind(lambda: {"torch-like": "2.8.0"}, ["meta"])
    STATE.abi_context = ctx

    class _Meta:
        name, version = "meta", "1.0"

    lines = abi_resolution.abi_conflicts([(_Req("torch-like==2.8.*"), parent), (_Req("torch-like>=2.9"), _Meta())])
    assert lines == [
        "pip-variants: attn-like 1.0 has builds for torch-like 2.8 and 2.9 (abi_dependency); torch-like>=2.9 "
        "(required by meta 1.0) is being installed, but the installed torch-like 2.8.0 is kept unless the "
        "command names torch-like: add torch-like to it to let pip replace it"
    ]


def test_a_failing_abi_hook_keeps_the_wheels_own_dependencies(patched, monkeypatch):
    infos = _infos(("1.0", "attn_like-1.0-py3-none-any-torch29.whl", T29))
    cand = infos[0][1]()
    cand._factory, cand._ireq = object(), None

    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(abi_resolution._compat, "make_requirements", broken)
    wrapped = abi_resolution.wrap_iter_dependencies(lambda self, with_requires: iter(["torch-like"]))
    assert list(wrapped(cand, True)) == ["torch-like"]
    assert STATE.broken  # stock behaviour from now on, after one warning
    assert list(wrapped(cand, True)) == ["torch-like"]


def test_abi_builds_recorded_while_the_first_iteration_runs_are_offered(patched):
    # The finder records ABI builds (H4) only when the iterator reads its first
    # info: the very first iteration must already offer the other builds.
    from pip._internal.resolution.resolvelib import found_candidates as fc

    STATE.enabled = True
    assert not STATE.abi_links

    def infos():
        yield from _infos(
            ("1.0", "d-1.0-py3-none-any-t29.whl", T29),
            ("1.0", "d-1.0-py3-none-any-t28.whl", T28),
        )

    assert _names(fc._iter_built(infos())) == [
        ("1.0", "d-1.0-py3-none-any-t29.whl"), ("1.0", "d-1.0-py3-none-any-t28.whl")]


def _installed_dist(tmp_path, name, variant, requires=()):
    """A ``.dist-info`` directory as pip leaves it (PEP 825 keeps variant.json there)."""
    import json

    from pip._internal.metadata import get_directory_distribution

    info = tmp_path / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", "Version: 1.0", *(f"Requires-Dist: {r}" for r in requires)]
    (info / "METADATA").write_text("\n".join(lines) + "\n\n")
    if variant is not None:
        (info / "variant.json").write_text(json.dumps(variant))
    return get_directory_distribution(str(info))


def _variant_json(label, props, providers):
    from support.wheels import variants_json

    return variants_json("x", "1", namespaces=sorted(providers), providers=providers, variants={label: props})


def _deps(dist):
    return sorted(str(r) for r in dist.iter_dependencies())


def test_an_installed_abi_build_requires_its_dependency_after_its_variant_markers(patched, tmp_path):
    """H15 at the distribution level, composed with the variant markers (H18):
    what the resolver keeps, ``pip check`` and pip's conflict warning read."""
    from pip_variants._pip import markers

    static = {"nvidia": {"static-properties": {}}}
    pd = _variant_json("torch28", {"nvidia": {"cuda_version_lower_bound": ["12.6"]},
                                   "abi_dependency": {"torch_like": ["2.8"]}}, static)
    dist = _installed_dist(tmp_path / "pd", "attn-like", pd,
                           ["torch-like", 'kern-t28 ; variant_label == "torch28"', 'kern-t29 ; variant_label == "torch29"'])
    expected = ["kern-t28", "torch-like==2.8.*"] if markers.supported() else ["torch-like==2.8.*"]
    assert _deps(dist) == expected
    # P850 spelling: a namespace declared {"builtin": "abi_dependency"}
    p850 = _variant_json("t29", {"abi": {"torch_like": ["2.9"]}}, {"abi": {"builtin": "abi_dependency"}})
    assert _deps(_installed_dist(tmp_path / "p850", "kern-like", p850)) == ["torch-like==2.9.*"]
    # a variant without ABI properties, a plain wheel: nothing added
    plain = _variant_json("cu128", {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}, static)
    assert _deps(_installed_dist(tmp_path / "cu", "cuda-like", plain, ["x"])) == ["x"]
    assert _deps(_installed_dist(tmp_path / "plain", "plain-like", None, ["x"])) == ["x"]


def test_an_installed_abi_build_binds_nothing_under_no_variants_or_an_override(patched, tmp_path, monkeypatch):
    static = {"nvidia": {"static-properties": {}}}
    pd = _variant_json("torch28", {"abi_dependency": {"torch_like": ["2.8"]}}, static)
    dist = _installed_dist(tmp_path / "pd", "attn-like", pd, ["torch-like"])
    monkeypatch.setenv("VARIANT_ABI_DEPENDENCY", "torch-like==2.9.0")
    assert _deps(dist) == ["torch-like"]  # cross-target build: the override decides
    monkeypatch.delenv("VARIANT_ABI_DEPENDENCY")
    STATE.command = "install"  # --no-variants: configure_finder set the command, not `enabled`
    assert _deps(dist) == ["torch-like"]
    STATE.enabled = True
    assert _deps(dist) == ["torch-like==2.8.*"]


def test_an_installed_abi_build_merges_into_the_packages_own_requirement(patched, tmp_path):
    # one requirement of torch-like, not two: pip check names a missing torch once
    static = {"nvidia": {"static-properties": {}}}
    pd = _variant_json("torch28", {"abi_dependency": {"torch_like": ["2.8"]}}, static)
    STATE.enabled = True
    pinned = _installed_dist(tmp_path / "a", "attn-like", pd, ["Torch_Like>=2.0", "other"])
    assert _deps(pinned) == ["Torch_Like==2.8.*,>=2.0", "other"]  # (packaging sorts a specifier set)
    # an extra or a marker of its own: the ABI requirement stands beside it
    extra = _installed_dist(tmp_path / "b", "attn-like", pd, ["torch-like[cuda]"])
    assert _deps(extra) == ["torch-like==2.8.*", "torch-like[cuda]"]
    marked = _installed_dist(tmp_path / "c", "attn-like", pd, ['torch-like ; python_version >= "3"'])
    deps = _deps(marked)
    assert len(deps) == 2 and "torch-like==2.8.*" in deps and "python_version" in deps[0]


def test_an_installed_build_is_read_once_per_distribution(patched, tmp_path, monkeypatch):
    """pip asks a distribution for its dependencies several times: variant.json is
    read once per distribution object and ABI context."""
    static = {"nvidia": {"static-properties": {}}}
    pd = _variant_json("torch28", {"abi_dependency": {"torch_like": ["2.8"]}}, static)
    dist = _installed_dist(tmp_path / "pd", "attn-like", pd, ["torch-like"])
    reads = []
    original = abi_resolution.installed_abi_requirements
    monkeypatch.setattr(abi_resolution, "installed_abi_requirements", lambda d: reads.append(d) or original(d))
    STATE.enabled = True
    assert _deps(dist) == _deps(dist) == ["torch-like==2.8.*"]
    assert len(reads) == 1
    monkeypatch.setenv("VARIANT_ABI_DEPENDENCY", "torch-like==2.9.0")  # another context: read again
    assert _deps(dist) == ["torch-like"]
    assert len(reads) == 2
