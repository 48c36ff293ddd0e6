"""End-to-end selection: real pip (with pip-variants) against a loopback index.

Each test publishes one release and asks pip which file it would install
(``pip install --dry-run --report``). Expected results are those of
WHEEL-VARIANTS.md §11 (item numbers in the test names); PROVIDERS.md §7's
built-in provider cases are in test_providers_e2e.py. Supported properties
come from static providers (``static-properties``) or from the built-in
providers through their override variables, never from the host's hardware.
"""

from __future__ import annotations

import json

import pytest

from support.index import LocalIndex
from support.pips import newest_pip_only
from support.selection import PLAIN, assert_clean, meta, variant_file
from support.venvs import pick, run_pip, run_python
from support.wheels import (
    FICTIONAL_PROVIDER,
    SCHEMA_0_0_3,
    SCHEMA_0_1_1,
    build_release,
    build_wheel,
    static_provider,
    variants_json_filename,
)

pytestmark = pytest.mark.e2e

# -- stock behaviour is preserved ----------------------------------------------------


def test_release_without_variants_installs_exactly_as_stock(variant_venv, stock_venv, index, dist):
    paths = [
        build_wheel(dist, "plainpkg", "1.0"),
        build_wheel(dist, "plainpkg", "2.0"),
        build_wheel(dist, "plainpkg", "2.0", build="1"),
        build_wheel(dist, "plainpkg", "2.0", tag="py2.py3-none-any"),
        build_wheel(dist, "plainpkg", "3.0", tag="cp27-cp27m-manylinux1_x86_64"),
    ]
    index.add_files("plainpkg", paths)
    for requirement in ("plainpkg", "plainpkg<2", "plainpkg==2.0"):
        ours, ours_report, ours_err = pick(variant_venv, index, requirement)
        stock, stock_report, _ = pick(stock_venv, index, requirement)
        assert ours == stock, ours_err
        ours_item, stock_item = ours_report["install"][0], stock_report["install"][0]
        assert ours_item["download_info"] == stock_item["download_info"]
        assert_clean(ours_err)


@pytest.mark.parametrize("api", ["html", "json"])
def test_best_static_variant_from_html_and_json_pages(variant_venv, stock_venv, api, dist):
    data = meta(
        ["blas_lapack"],
        {"blas_lapack": static_provider({"library": ["openblas", "mkl"]})},
        {
            "ob": {"blas_lapack": {"library": ["openblas"]}},
            "mkl": {"blas_lapack": {"library": ["mkl"]}},
        },
    )
    with LocalIndex(api=api) as idx:
        idx.add_files("pkg", build_release(dist, "pkg", "1.0", data))
        chosen, report, stderr = pick(variant_venv, idx, "pkg")
        assert chosen == variant_file("ob"), stderr
        stock, _, _ = pick(stock_venv, idx, "pkg")
        assert stock == PLAIN
        served_json = [r for r in idx.requests if r["path"].startswith("/simple/pkg")]
        assert served_json, idx.requests_log


# -- WHEEL-VARIANTS.md §11 -------------------------------------------------------------

GPU2 = {"gpu": static_provider({"rt": ["2"]})}


def test_11_1_label_with_a_dot(variant_venv, publish, index):
    publish("pkg", "1.0", meta(["gpu"], GPU2, {"gpu.v2": {"gpu": {"rt": ["2"]}}}))
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("gpu.v2"), stderr


def test_11_1_null_variant_with_build_tag(variant_venv, index, dist):
    data = meta(["gpu"], GPU2, {"null": {}})
    index.add_file(
        "pkg", build_wheel(dist, "pkg", "1.0", label="null", build="7", variant_json=data)
    )
    index.add_file("pkg", build_wheel(dist, "pkg", "1.0"))
    index.add_bytes("pkg", variants_json_filename("pkg", "1.0"), json.dumps(data).encode())
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == "pkg-1.0-7-py3-none-any-null.whl", stderr


@pytest.mark.parametrize("json_version", ["1.0", "1.0.0"])
def test_11_1_a_version_spelt_two_ways_is_one_release(variant_venv, index, dist, json_version):
    # 1.0 == 1.0.0 (WHEEL-VARIANTS §3.1 compares versions as versions): the
    # index file belongs to every wheel of the release, however it is spelt
    data = meta(["gpu"], GPU2, {"v2": {"gpu": {"rt": ["2"]}}, "v1": {"gpu": {"rt": ["1"]}}})
    index.add_file("pkg", build_wheel(dist, "pkg", "1.0.0", label="v2", variant_json=data))
    index.add_file("pkg", build_wheel(dist, "pkg", "1.0", label="v1", variant_json=data))
    index.add_file("pkg", build_wheel(dist, "pkg", "1.0"))
    index.add_bytes("pkg", variants_json_filename("pkg", json_version), json.dumps(data).encode())
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == "pkg-1.0.0-py3-none-any-v2.whl", stderr
    assert "variants.json" not in stderr, stderr


@pytest.mark.parametrize("json_version", ["1.0", "1.0.0"])
def test_11_1_an_older_release_spelt_two_ways_is_filtered_when_the_resolver_gets_to_it(
    variant_venv, index, dist, json_version
):
    # the resolver backtracks from pkg 2.0 to 1.0, whose only build does not fit
    data = meta(["gpu"], GPU2, {"v9": {"gpu": {"rt": ["9"]}}})
    index.add_file("pkg", build_wheel(dist, "pkg", "2.0", requires=["dep==2"]))
    index.add_file("pkg", build_wheel(dist, "pkg", "1.0", label="v9", variant_json=data))
    index.add_bytes("pkg", variants_json_filename("pkg", json_version), json.dumps(data).encode())
    for version in ("1", "2"):
        index.add_file("dep", build_wheel(dist, "dep", version))
    index.add_file("other", build_wheel(dist, "other", "1.0", requires=["dep==1"]))
    proc = run_pip(variant_venv, "install", "--dry-run", "--index-url", index.url, "pkg", "other", check=False)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "pkg-1.0-py3-none-any-v9.whl" not in proc.stdout + proc.stderr
    assert_clean(proc.stderr)


@pytest.mark.parametrize("label", ["v1", "v2"])
def test_11_1_a_forced_label_of_a_release_spelt_two_ways_is_not_said_missing(variant_venv, index, dist, label):
    data = meta(["gpu"], GPU2, {"v2": {"gpu": {"rt": ["2"]}}, "v1": {"gpu": {"rt": ["1"]}}})
    index.add_file("pkg", build_wheel(dist, "pkg", "1.0.0", label="v2", variant_json=data))
    index.add_file("pkg", build_wheel(dist, "pkg", "1.0", label="v1", variant_json=data))
    index.add_file("pkg", build_wheel(dist, "pkg", "1.0"))
    index.add_bytes("pkg", variants_json_filename("pkg", "1.0"), json.dumps(data).encode())
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--variant", f"pkg={label}")
    assert chosen.endswith(f"-{label}.whl"), stderr
    assert "has no variant labelled" not in stderr, stderr


def test_11_1_invalid_labels_are_ignored(variant_venv, index, dist):
    compatible = {"gpu": {"rt": ["2"]}}
    # The index file names look-alikes of the invalid labels: a parser that
    # lower-cases "GPU" or splits "a-b" would wrongly find them.
    data = meta(["gpu"], GPU2, {"gpu": compatible, "b": compatible})
    index.add_file(
        "pkg",
        build_wheel(
            dist, "pkg", "1.0", label="GPU", variant_json=meta(["gpu"], GPU2, {"GPU": compatible})
        ),
    )
    index.add_file(
        "pkg",
        build_wheel(
            dist,
            "pkg",
            "1.0",
            label="b",
            variant_json=data,
            filename="pkg-1.0-py3-none-any-a-b.whl",
        ),
    )
    index.add_file("pkg", build_wheel(dist, "pkg", "1.0"))
    index.add_bytes("pkg", variants_json_filename("pkg", "1.0"), json.dumps(data).encode())
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == PLAIN, stderr
    assert_clean(stderr)


def test_11_1_build_tag_beats_no_build_tag(variant_venv, stock_venv, index, dist):
    index.add_files(
        "pkg", [build_wheel(dist, "pkg", "1.0"), build_wheel(dist, "pkg", "1.0", build="2")]
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == "pkg-1.0-2-py3-none-any.whl", stderr
    assert pick(stock_venv, index, "pkg")[0] == chosen


SIMD_V2 = {"simd": static_provider({"level": ["v2"]})}


def test_11_3_remote_page_without_index_file_installs_plain(variant_venv, publish, index):
    data = meta(["simd"], SIMD_V2, {"fast": {"simd": {"level": ["v2"]}}})
    publish("pkg", "1.0", data, index_file=False)
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == PLAIN, stderr
    assert "pkg-1.0-py3-none-any-fast.whl" not in index.downloaded()


def test_11_3_find_links_dir_reads_variant_json_from_wheels(variant_venv, dist):
    data = meta(["simd"], SIMD_V2, {"fast": {"simd": {"level": ["v2"]}}})
    build_wheel(dist, "pkg", "1.0", label="fast", variant_json=data)
    build_wheel(dist, "pkg", "1.0")
    chosen, _, stderr = pick(variant_venv, dist, "pkg")
    assert chosen == variant_file("fast"), stderr


def test_11_4_label_missing_from_index_file_is_never_considered(variant_venv, publish, index):
    full = meta(
        ["simd"],
        {"simd": static_provider({"level": ["v3", "v2"]})},
        {"fast": {"simd": {"level": ["v2"]}}, "slow": {"simd": {"level": ["v3"]}}},
    )
    publish("pkg", "1.0", full, index_file=False)
    listed = dict(full, variants={"fast": full["variants"]["fast"]})
    index.add_bytes("pkg", variants_json_filename("pkg", "1.0"), json.dumps(listed).encode())
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("fast"), stderr


def test_11_5_single_value_miss_falls_back_to_plain(variant_venv, publish, index):
    publish(
        "pkg",
        "1.0",
        meta(
            ["simd"],
            {"simd": static_provider({"level": ["v3", "v2", "v1"]})},
            {"a": {"simd": {"level": ["v4"]}}},
        ),
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == PLAIN, stderr


def test_11_6_multi_value_feature_is_an_or(variant_venv, publish, index):
    publish(
        "pkg",
        "1.0",
        meta(
            ["acme"],
            {"acme": static_provider({"arch": ["h100"]})},
            {"a": {"acme": {"arch": ["a100", "h100"]}}},
        ),
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("a"), stderr


def test_11_8_namespace_priority_beats_value_quality(variant_venv, publish, index):
    paths = publish(
        "pkg",
        "1.0",
        meta(
            ["gpu", "simd"],
            {
                "gpu": static_provider({"rt": ["3", "2", "1"]}),
                "simd": static_provider({"level": ["v4", "v3"]}),
            },
            {"a": {"gpu": {"rt": ["1"]}}, "b": {"simd": {"level": ["v4"]}}},
        ),
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("a"), stderr
    # ... and b comes next.
    index.remove("pkg", variant_file("a"))
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("b"), stderr
    assert paths


def test_11_9_value_preference(variant_venv, publish, index):
    publish(
        "pkg",
        "1.0",
        meta(
            ["gpu"],
            {"gpu": static_provider({"rt": ["3", "2", "1"]})},
            {"r2": {"gpu": {"rt": ["2"]}}, "r3": {"gpu": {"rt": ["3"]}}},
        ),
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("r3"), stderr


def test_11_11_prefix_rule_longer_wins(variant_venv, publish, index):
    publish(
        "pkg",
        "1.0",
        meta(
            ["n1", "n2"],
            {"n1": static_provider({"f": ["a"]}), "n2": static_provider({"g": ["b"]})},
            {"s": {"n1": {"f": ["a"]}}, "l": {"n1": {"f": ["a"]}, "n2": {"g": ["b"]}}},
        ),
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("l"), stderr


@pytest.mark.parametrize(
    "order", [("beta", "alpha"), ("alpha", "beta")], ids=["beta-first", "alpha-first"]
)
def test_11_12_label_tie_break_is_ascending(variant_venv, publish, index, order):
    props = {"beta": {"n": {"f": ["a"]}}, "alpha": {"n": {"f": ["a", "b"]}}}
    publish(
        "pkg",
        "1.0",
        meta(
            ["n"],
            {"n": static_provider({"f": ["a", "b"]})},
            {label: props[label] for label in order},
        ),
        labels=list(order),
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("alpha"), stderr


GPU_NONE = {"gpu": static_provider({"rt": ["1"]})}
GPU_LABELS = {"gpu2": {"gpu": {"rt": ["2"]}}, "gpu3": {"gpu": {"rt": ["3"]}}}


def test_11_13_null_beats_plain(variant_venv, publish, index):
    publish("pkg", "1.0", meta(["gpu"], GPU_NONE, dict(GPU_LABELS, null={})))
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("null"), stderr


def test_11_14_no_null_gives_plain(variant_venv, publish, index):
    publish("pkg", "1.0", meta(["gpu"], GPU_NONE, GPU_LABELS))
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == PLAIN, stderr


def test_11_15_nothing_installable_falls_back_to_older_version(variant_venv, publish, index, dist):
    publish("pkg", "1.0", meta(["gpu"], GPU_NONE, GPU_LABELS), plain=False)
    index.add_file("pkg", build_wheel(dist, "pkg", "0.9"))
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == "pkg-0.9-py3-none-any.whl", stderr
    assert_clean(stderr)
    warnings = [line for line in stderr.splitlines() if "WARNING" in line and "1.0" in line]
    assert warnings, f"expected a warning about pkg 1.0 having no supported variant:\n{stderr}"


def test_11_15_nothing_installable_is_an_error_naming_the_variants(variant_venv, publish, index):
    publish("pkg", "1.0", meta(["gpu"], GPU_NONE, GPU_LABELS), plain=False)
    chosen, _, stderr = pick(variant_venv, index, "pkg", check=False)
    assert chosen is None
    assert_clean(stderr)
    assert "gpu2" in stderr and "gpu3" in stderr, stderr


def test_11_22_untrusted_plugin_is_never_installed(variant_venv, publish, index, dist):
    publish(
        "pkg",
        "1.0",
        meta(
            ["fictional_hw"],
            {"fictional_hw": FICTIONAL_PROVIDER},
            {"hw1": {"fictional_hw": {"tech": ["x1"]}}, "null": {}},
        ),
    )
    index.add_file(
        "provider-fictional-hw",
        build_wheel(
            dist / "plugin",
            "provider-fictional-hw",
            "1.0",
            files={"provider_fictional_hw/plugin.py": "raise SystemExit('ran')\n"},
        ),
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("null"), stderr
    assert not index.requested("provider"), index.requests_log
    assert_clean(stderr)
    # strict mode: an error naming the plugin and the way to allow it; still nothing fetched
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--variant-strict", check=False)
    assert chosen is None
    assert "not installed and not trusted" in stderr and "--allow-variant-plugin provider-fictional-hw" in stderr
    assert not index.requested("provider"), index.requests_log
    assert_clean(stderr)


# -- one release on several sources (WHEEL-VARIANTS.md §3.5, App. B 7) ---------------------

LEVELS = {"simd": static_provider({"level": ["v4", "v3", "v2"]})}


@pytest.fixture
def extra_index():
    with LocalIndex() as extra:
        yield extra


def test_several_sources_with_consistent_metadata_are_ranked_together(variant_venv, publish, index, extra_index):
    """The index has ``v4``; the extra index has ``v3``, ``a`` and ``b``. Ranked
    apart, the extra index's best of three would outrank the index's only
    build; ranked together, ``v4`` is the best build of either."""
    publish("pkg", "1.0", meta(["simd"], LEVELS, {"v4": {"simd": {"level": ["v4"]}}}), plain=False)
    publish("pkg", "1.0", meta(["simd"], LEVELS, {
        "v3": {"simd": {"level": ["v3"]}},
        "a": {"simd": {"level": ["v2"]}},
        "b": {"simd": {"level": ["v2"]}},
    }), target=extra_index)
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--extra-index-url", extra_index.url)
    assert chosen == variant_file("v4"), stderr
    assert "do not agree" not in stderr, stderr
    assert_clean(stderr)


def _install_after_backtracking(venv, publish, index, extra_index, dist, on_index, on_extra):
    """pkg 1.0 from both indexes, reached only when the resolver backtracks:
    ``other`` needs ``pkg<2``, found after ``pkg 2.0`` (plain) was taken.
    Returns the file names installed and pip's stderr."""
    publish("pkg", "2.0", None)
    publish("pkg", "1.0", meta(["simd"], LEVELS, on_index), plain=False)
    publish("pkg", "1.0", meta(["simd"], LEVELS, on_extra), target=extra_index)
    index.add_file("other", build_wheel(dist, "other", "1.0", requires=["pkg<2"]))
    _, report, stderr = pick(venv, index, "pkg", "other", "--extra-index-url", extra_index.url)
    return sorted(item["download_info"]["url"].rsplit("/", 1)[-1] for item in report["install"]), stderr


def test_several_sources_are_ranked_together_when_the_resolver_backtracks(variant_venv, publish, index,
                                                                        extra_index, dist):
    """The same for an older release, settled by the deferred path."""
    chosen, stderr = _install_after_backtracking(
        variant_venv, publish, index, extra_index, dist,
        {"v4": {"simd": {"level": ["v4"]}}},
        {"v3": {"simd": {"level": ["v3"]}}, "a": {"simd": {"level": ["v2"]}}},
    )
    assert chosen == ["other-1.0-py3-none-any.whl", variant_file("v4")], stderr
    assert_clean(stderr)


_same_path_on_every_pip = newest_pip_only(
    "the same hooks as the tests above, which run on every pip: newest pip env only"
)


@_same_path_on_every_pip
def test_several_sources_that_conflict_when_the_resolver_backtracks_say_so(variant_venv, publish, index,
                                                                            extra_index, dist):
    chosen, stderr = _install_after_backtracking(
        variant_venv, publish, index, extra_index, dist,
        {"fast": {"simd": {"level": ["v3"]}}}, {"fast": {"simd": {"level": ["v2"]}}},
    )
    assert chosen == ["other-1.0-py3-none-any.whl", PLAIN], stderr
    assert "do not agree" in stderr and "ignoring its variant wheels" in stderr, stderr
    assert_clean(stderr)


@_same_path_on_every_pip
def test_several_sources_with_conflicting_metadata_give_the_plain_wheel(variant_venv, publish, index, extra_index):
    """The same label means different builds on the two indexes: warn, install
    the non-variant wheel; ``--variant-strict`` makes it an error."""
    publish("pkg", "1.0", meta(["simd"], LEVELS, {"fast": {"simd": {"level": ["v3"]}}}), plain=False)
    publish("pkg", "1.0", meta(["simd"], LEVELS, {"fast": {"simd": {"level": ["v2"]}}}), target=extra_index)
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--extra-index-url", extra_index.url)
    assert chosen == PLAIN, stderr
    assert "do not agree" in stderr and "label 'fast' has conflicting properties" in stderr, stderr
    assert index.url in stderr and extra_index.url in stderr, stderr
    assert_clean(stderr)
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--extra-index-url", extra_index.url,
                             "--variant-strict", check=False)
    assert chosen is None
    assert "do not agree" in stderr and "--variant-strict" in stderr, stderr
    assert_clean(stderr)


@_same_path_on_every_pip
def test_several_sources_one_with_variants_that_fit(variant_venv, publish, index, extra_index):
    """Only one source has a build this machine supports: its ranking stands,
    whatever the other source's metadata say."""
    publish("pkg", "1.0", meta(["simd"], {"simd": static_provider({"level": ["v2"]})},
                               {"fast": {"simd": {"level": ["v4"]}}}), plain=False)
    publish("pkg", "1.0", meta(["simd"], LEVELS, {"fast": {"simd": {"level": ["v2"]}}}), target=extra_index)
    chosen, report, stderr = pick(variant_venv, index, "pkg", "--extra-index-url", extra_index.url)
    assert chosen == variant_file("fast"), stderr
    origin = extra_index.url.split("/simple")[0]
    assert report["install"][0]["download_info"]["url"].startswith(origin), report
    assert "do not agree" not in stderr, stderr
    assert_clean(stderr)


@_same_path_on_every_pip
def test_several_sources_each_with_its_own_null_build(variant_venv, publish, index, extra_index):
    """A GPU index and a CPU-levels index, each with its null build and its own
    namespaces: a null build has no properties, so it disagrees with nothing.
    The other index's fitting build outranks it; where only null builds fit, one
    of them is installed (uv does the same), not the release refused."""
    unfit_gpu = {"gpu": static_provider({"arch": ["a"]})}
    publish("pkg", "1.0", meta(["gpu"], unfit_gpu, {"big": {"gpu": {"arch": ["b"]}}, "null": {}}), plain=False)
    publish("pkg", "1.0", meta(["simd"], LEVELS, {"v3": {"simd": {"level": ["v3"]}}, "null": {}}),
            target=extra_index, plain=False)
    for first, second in ((index, extra_index), (extra_index, index)):
        chosen, _, stderr = pick(variant_venv, first, "pkg", "--extra-index-url", second.url)
        assert chosen == variant_file("v3"), stderr
        assert "do not agree" not in stderr, stderr
        assert_clean(stderr)


@_same_path_on_every_pip
def test_several_sources_where_only_null_builds_fit(variant_venv, publish, index, extra_index):
    publish("pkg", "1.0", meta(["gpu"], {"gpu": static_provider({"arch": ["a"]})},
                               {"big": {"gpu": {"arch": ["b"]}}, "null": {}}), plain=False)
    publish("pkg", "1.0", meta(["simd"], {"simd": static_provider({"level": ["v2"]})},
                               {"v4": {"simd": {"level": ["v4"]}}, "null": {}}), target=extra_index, plain=False)
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--extra-index-url", extra_index.url)
    assert chosen == variant_file("null"), stderr
    assert "do not agree" not in stderr and "fits this machine" not in stderr, stderr
    assert_clean(stderr)


# -- format versions -------------------------------------------------------------------


def test_metadata_0_0_3_static_properties(variant_venv, publish, index):
    data = meta(
        ["simd"],
        {"simd": {"install-time": False}},
        {"v2": {"simd": {"level": ["v2"]}}, "v4": {"simd": {"level": ["v4"]}}},
        schema=SCHEMA_0_0_3,
        **{"static-properties": {"simd": {"level": ["v3", "v2"]}}},
    )
    publish("pkg", "1.0", data)
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("v2"), stderr


def test_metadata_0_1_1_uses_the_built_in_registry(variant_venv, publish, index):
    data = meta(
        ["x86_64"],
        None,
        {"v3": {"x86_64": {"level": ["v3"]}}, "v4": {"x86_64": {"level": ["v4"]}}, "null": {}},
        schema=SCHEMA_0_1_1,
    )
    publish("pkg", "1.0", data)
    chosen, _, stderr = pick(variant_venv, index, "pkg", PIP_VARIANTS_X86_64_LEVEL="v3")
    assert chosen == variant_file("v3"), stderr


def test_metadata_0_1_1_unknown_namespace_gives_null(variant_venv, publish, index):
    data = meta(
        ["simd"], None, {"v3": {"simd": {"level": ["v3"]}}, "null": {}}, schema=SCHEMA_0_1_1
    )
    publish("pkg", "1.0", data)
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("null"), stderr


# -- variant-only releases, records and the report ----------------------------------------

BLAS = {"blas_lapack": static_provider({"library": ["openblas", "mkl"]})}
BLAS_VARIANTS = {
    "ob": {"blas_lapack": {"library": ["openblas"]}},
    "mkl": {"blas_lapack": {"library": ["mkl"]}},
}


def test_variant_only_release_installs(variant_venv, stock_venv, publish, index):
    publish("pkg", "1.0", meta(["blas_lapack"], BLAS, BLAS_VARIANTS), plain=False)
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("ob"), stderr
    stock, _, stock_err = pick(stock_venv, index, "pkg", check=False)
    assert stock is None
    assert "from versions: none" in stock_err


def _as_nested(properties):
    """Report properties as ``{ns: {feature: sorted values}}``, from either the
    nested JSON form or a list of ``"ns :: feature :: value"`` strings."""
    if isinstance(properties, list):
        out: dict = {}
        for item in properties:
            ns, feature, value = (p.strip() for p in item.split("::"))
            out.setdefault(ns, {}).setdefault(feature, []).append(value)
        properties = out
    return {ns: {f: sorted(v) for f, v in feats.items()} for ns, feats in properties.items()}


def test_report_carries_the_variant(variant_venv, publish, index):
    publish("pkg", "1.0", meta(["blas_lapack"], BLAS, BLAS_VARIANTS))
    chosen, report, stderr = pick(variant_venv, index, "pkg")
    assert chosen == variant_file("ob"), stderr
    variant = report["install"][0]["variant"]
    assert variant["label"] == "ob"
    assert _as_nested(variant["properties"]) == {"blas_lapack": {"library": ["openblas"]}}
    assert variant["variants_json_url"] == index.file_url(
        "pkg", variants_json_filename("pkg", "1.0")
    )


def test_installed_dist_info_contains_variant_json(variant_venv, publish, index, tmp_path):
    publish("pkg", "1.0", meta(["blas_lapack"], BLAS, BLAS_VARIANTS))
    target = tmp_path / "target"
    run_pip(variant_venv, "install", "--index-url", index.url, "--target", target, "pkg")
    dist_info = target / "pkg-1.0.dist-info"
    variant = json.loads((dist_info / "variant.json").read_text())
    assert list(variant["variants"]) == ["ob"]
    assert "pkg-1.0.dist-info/variant.json" in (dist_info / "RECORD").read_text()
    assert (target / "pkg" / "__init__.py").read_text().strip() == 'VARIANT = "ob"'


# -- broken or unreachable index files degrade to stock behaviour --------------------------


def test_malformed_variants_json_warns_once_and_installs_plain(variant_venv, publish, index):
    publish("pkg", "1.0", meta(["blas_lapack"], BLAS, BLAS_VARIANTS), index_file=False)
    name = variants_json_filename("pkg", "1.0")
    index.add_bytes(
        "pkg", name, b'{"$schema": "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json", '
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == PLAIN, stderr
    assert_clean(stderr)
    url = index.file_url("pkg", name)
    mentions = [line for line in stderr.splitlines() if url in line or name in line]
    assert len(mentions) == 1, f"expected one warning line naming {url}:\n{stderr}"
    assert url in mentions[0], mentions[0]


@pytest.mark.parametrize("kind", ["404", "500", "reset", "timeout", "garbage", "wrong-hash"])
def test_unreachable_or_invalid_index_file_gives_plain(variant_venv, publish, index, kind):
    publish("pkg", "1.0", meta(["blas_lapack"], BLAS, BLAS_VARIANTS))
    name = variants_json_filename("pkg", "1.0")
    if kind == "wrong-hash":
        index.set_hash("pkg", name, "wrong")
    else:
        index.fault(name, kind, seconds=10)
    chosen, _, stderr = pick(
        variant_venv, index, "pkg", "--retries", "0", "--timeout", "3", timeout=120
    )
    assert chosen == PLAIN, stderr
    assert_clean(stderr)


def test_slow_index_file_still_selects_the_variant(variant_venv, publish, index):
    publish("pkg", "1.0", meta(["blas_lapack"], BLAS, BLAS_VARIANTS))
    index.fault(variants_json_filename("pkg", "1.0"), "trickle", chunk=200, delay=0.05, seconds=20)
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--timeout", "5")
    assert chosen == variant_file("ob"), stderr


@pytest.mark.parametrize("source", ["find-links page", "legacy resolver"])
def test_other_sources_and_resolvers(variant_venv, publish, index, source):
    publish("pkg", "1.0", meta(["blas_lapack"], BLAS, BLAS_VARIANTS))
    if source == "find-links page":
        args = ["--find-links", index.project_url("pkg")]
        target = None
    else:
        args = ["--use-deprecated=legacy-resolver"]
        target = index
    chosen, _, stderr = pick(variant_venv, target, "pkg", *args)
    assert chosen == variant_file("ob"), stderr


def test_real_install_into_site_packages(fresh_venv, publish, index):
    publish("pkg", "1.0", meta(["blas_lapack"], BLAS, BLAS_VARIANTS))
    run_pip(fresh_venv, "install", "--index-url", index.url, "pkg")
    proc = run_python(fresh_venv, "-c", "import pkg; print(pkg.VARIANT)")
    assert (proc.stdout.strip(), proc.stderr) == ("ob", "")
    dist_info = fresh_venv.site_packages / "pkg-1.0.dist-info"
    assert (dist_info / "variant.json").is_file()
    run_pip(fresh_venv, "uninstall", "-y", "pkg")
    assert not dist_info.exists()
    assert not (fresh_venv.site_packages / "pkg").exists()


def test_stock_pip_ignores_variant_wheels(stock_venv, publish, index):
    """The fixtures themselves are sound: stock pip takes the plain wheel."""
    publish("pkg", "1.0", meta(["blas_lapack"], BLAS, BLAS_VARIANTS))
    chosen, _, stderr = pick(stock_venv, index, "pkg")
    assert chosen == PLAIN, stderr


def test_long_label_with_legacy_metadata_is_valid_with_a_warning(variant_venv, publish, index):
    # WHEEL-VARIANTS.md §11 behaviour 2: 17 characters are fine under PEP 825;
    # 0.0.x metadata capped labels at 16, so say so once.
    label = "abcdefghijklmnopq"
    data = {
        "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
        "default-priorities": {"namespace": ["blas"]},
        "providers": {"blas": {"install-time": False}},
        "static-properties": {"blas": {"lib": ["openblas"]}},
        "variants": {label: {"blas": {"lib": ["openblas"]}}},
    }
    publish("pkg", "1.0", data)
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == f"pkg-1.0-py3-none-any-{label}.whl"
    assert "longer than the 16 characters" in stderr and "Traceback" not in stderr
