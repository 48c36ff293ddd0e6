"""H13: variant environment markers inside the real pip (in process)."""

from __future__ import annotations

import logging

import pytest

from support.wheels import NVIDIA_PROVIDER, build_wheel, variants_json

from pip_variants._pip import markers
from pip_variants._pip.state import STATE, ChosenVariant
from pip_variants.variant_markers import NON_VARIANT, VariantEnvironment

REQUIRES = [
    'cuda-lib ; variant_label == "cu128"',
    'sm90 ; "nvidia::sm_arch::90_real" in variant_properties',
    'plain-only ; variant_label == ""',
    'old ; python_version < "3"',
    "always",
]
RELEASE = variants_json(
    "torch-like", "1.0", namespaces=["nvidia"], providers={"nvidia": NVIDIA_PROVIDER},
    variants={"cu128": {"nvidia": {"sm_arch": ["80_real", "90_real"]}}},
)

needs_parser = pytest.mark.skipif(
    markers.supported() is None, reason="this pip vendors packaging 21.3: variant markers cannot be parsed"
)


def _requirement(text):
    from pip._vendor.packaging.requirements import Requirement

    return Requirement(text)


def _wheel_dist(path, name="torch-like"):
    from pip._internal.metadata import FilesystemWheel, get_wheel_distribution

    return get_wheel_distribution(FilesystemWheel(str(path)), name)


@needs_parser
def test_parsed_and_evaluated_against_the_scope(patched):
    req = _requirement('cuda-lib ; variant_label == "cu128" and python_version >= "3"')
    assert not req.marker.evaluate()  # no scope: a non-variant wheel's values
    scope = markers._Lazy(lambda: VariantEnvironment("cu128"))
    assert list(markers.variant_scope(lambda: iter([req.marker.evaluate({"extra": ""})]), scope)) == [True]
    assert not req.marker.evaluate()  # the scope ends with the iteration


@needs_parser
def test_uninstall_restores_the_stock_parser_and_never_touches_shared_rules(patched):
    from pip._vendor.packaging import _tokenizer
    from pip._vendor.packaging.requirements import InvalidRequirement

    rule = _tokenizer.DEFAULT_RULES["VARIABLE"]
    _requirement('x ; variant_label == "a"')
    assert _tokenizer.DEFAULT_RULES["VARIABLE"] is rule
    patched.uninstall()
    with pytest.raises(InvalidRequirement):
        _requirement('x ; variant_label == "b"')


@needs_parser
def test_text_without_a_variant_name_is_tokenized_with_the_stock_rules(patched):
    from pip._vendor.packaging import _tokenizer

    seen = []
    real_init = _tokenizer.Tokenizer.__init__.__pip_variants_wraps__

    def spy(self, source, *, rules):
        seen.append((source, rules is _tokenizer.DEFAULT_RULES))
        real_init(self, source, rules=rules)

    wrapped = markers._wrap_tokenizer_init(markers.supported())(spy)
    wrapped(object.__new__(_tokenizer.Tokenizer), 'x ; python_version >= "3"', rules=_tokenizer.DEFAULT_RULES)
    wrapped(object.__new__(_tokenizer.Tokenizer), 'x ; variant_label == "a"', rules=_tokenizer.DEFAULT_RULES)
    assert seen == [('x ; python_version >= "3"', True), ('x ; variant_label == "a"', False)]


@needs_parser
@pytest.mark.parametrize("text", ['python_version >= "3"', 'sys_platform == "win32" or extra == "x"', 'os_name in "posix nt"'])
def test_markers_without_variant_names_evaluate_as_stock(patched, text):
    original = markers.supported().marker_cls.evaluate.__pip_variants_wraps__
    marker = _requirement(f"x ; {text}").marker
    for env in (None, {"extra": "x"}):
        assert marker.evaluate(env) == original(marker, env)


@needs_parser
def test_an_undefined_set_comparison_warns_and_is_false(patched, caplog):
    marker = _requirement('x ; variant_properties == "a :: b :: c"').marker
    with caplog.at_level(logging.WARNING, logger="pip_variants"):
        assert marker.evaluate() is False
    assert "are sets" in caplog.text or "is a set" in caplog.text


def test_candidate_values_come_from_the_selection(patched):
    from pip._internal.models.link import Link

    link = Link("https://files.example/torch_like-1.0-py3-none-any-cu128.whl")
    STATE.chosen[link.url_without_fragment] = ChosenVariant(
        "cu128", ["nvidia :: sm_arch :: 80_real", "nvidia :: sm_arch :: 90_real"], None,
        supported={"nvidia": {"sm_arch": ("80_real", "75_real")}},
    )

    class Candidate:
        source_link = link

    env = markers._candidate_environment(Candidate())
    assert env == VariantEnvironment("cu128", ["nvidia :: sm_arch :: 80_real"])

    class Extras:
        base = Candidate()

    assert markers._candidate_environment(Extras()) == env

    class Plain:
        source_link = Link("https://files.example/torch_like-1.0-py3-none-any.whl")

    assert markers._candidate_environment(Plain()) is NON_VARIANT


@needs_parser
def test_a_distribution_outside_the_resolver_uses_its_own_variant_json(patched, tmp_path):
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=REQUIRES)
    names = {r.name for r in _wheel_dist(wheel).iter_dependencies()}
    assert names == {"cuda-lib", "sm90", "always"}
    plain = build_wheel(tmp_path, "torch-like", "1.0", requires=REQUIRES)
    assert {r.name for r in _wheel_dist(plain).iter_dependencies()} == {"plain-only", "always"}


def test_an_installed_wheel_sees_what_the_commands_target_supports(patched, tmp_path):
    # MK-1: as at selection, so pip's check after the install and the next install agree with it
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=REQUIRES)
    asked = []

    class Engine:
        def supported_for(self, metadata):
            asked.append(sorted(metadata.variants))
            return {"nvidia": {"sm_arch": ("80_real", "75_real")}}, []

    STATE.target_support = lambda metadata: Engine().supported_for(metadata)[0]
    env = markers._installed_environment(_wheel_dist(wheel))
    assert env == VariantEnvironment("cu128", ["nvidia :: sm_arch :: 80_real"])
    assert asked == [["cu128"]]


def test_an_installed_wheel_outside_a_variant_command_asks_this_machine(patched, tmp_path, monkeypatch):
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.8")
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "8.0")
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=REQUIRES)
    assert STATE.target_support is None  # pip check, pip show: no finder, no engine
    env = markers._installed_environment(_wheel_dist(wheel))
    assert env == VariantEnvironment("cu128", ["nvidia :: sm_arch :: 80_real"])


def test_an_installed_wheel_whose_provider_fails_sees_every_declared_value(patched, tmp_path):
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=REQUIRES)

    class Broken:
        def supported_for(self, metadata):
            raise RuntimeError("provider crashed")

    STATE.target_support = lambda metadata: Broken().supported_for(metadata)[0]
    env = markers._installed_environment(_wheel_dist(wheel))
    assert env == VariantEnvironment("cu128", ["nvidia :: sm_arch :: 80_real", "nvidia :: sm_arch :: 90_real"])


def test_old_pip_fallback_leaves_marked_dependencies_out_with_one_warning(patched, tmp_path, caplog):
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=REQUIRES)
    dist = _wheel_dist(wheel)

    with caplog.at_level(logging.WARNING, logger="pip_variants"):
        first = markers._without_variant_markers(dist, ())  # not None: pip's own would crash on them
        markers._without_variant_markers(dist, ())
    assert [r.name for r in first] == ["always"]
    assert caplog.text.count("variant environment markers") == 1
    assert "torch-like 1.0" in caplog.text and "cuda-lib, sm90, plain-only" in caplog.text


@needs_parser
def test_listed_requirements_carry_the_decision_not_the_marker(patched, tmp_path):
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=REQUIRES)
    reqs = {r.name: r for r in _wheel_dist(wheel).iter_dependencies()}
    assert reqs["cuda-lib"].marker is None  # pip's later checks must not re-evaluate it out of scope
    from pip._internal.utils.packaging import get_requirement

    shared = get_requirement('cuda-lib ; variant_label == "cu128"')
    assert shared.marker is not None  # pip's cached requirement objects are never changed


def test_a_debundled_pip_is_left_alone(patched, tmp_path, caplog, monkeypatch):
    import pip._vendor

    monkeypatch.setattr(pip._vendor, "DEBUNDLED", True, raising=False)
    monkeypatch.setattr(markers, "_VENDORED", [])
    assert markers.supported() is None  # the system's packaging is never patched
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=REQUIRES)
    with caplog.at_level(logging.WARNING, logger="pip_variants"):
        reqs = _wheel_dist(wheel).iter_dependencies()
    assert [r.name for r in reqs] == ["always"]
    assert "debundled pip" in caplog.text


def test_the_abi_wrapper_of_a_distribution_is_built_on_first_use():
    # pip list / freeze never list requirements: the ABI module stays unloaded.
    calls = []

    def original(self, extras=()):
        calls.append(extras)
        return iter(["dep"])

    wrapped = markers._abi_builds(original)
    assert calls == []
    assert list(wrapped(object(), ("x",))) == ["dep"] and calls == [("x",)]
    assert list(wrapped(object())) == ["dep"]


def test_an_installed_wheel_where_variants_are_off_runs_no_provider(patched, tmp_path, monkeypatch):
    # --no-variants, pip lock, --platform without --variant: every declared value, nothing detected
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.8")
    monkeypatch.setenv("NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "8.0")
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=REQUIRES)
    STATE.target_support = lambda metadata: None  # what configure_finder sets until variants are on
    env = markers._installed_environment(_wheel_dist(wheel))
    assert env == VariantEnvironment("cu128", ["nvidia :: sm_arch :: 80_real", "nvidia :: sm_arch :: 90_real"])


def test_an_installed_wheel_outside_a_variant_command_honours_the_profile_variable(patched, tmp_path, monkeypatch):
    import json

    profile = tmp_path / "node.json"
    profile.write_text(json.dumps({"nvidia": {"sm_arch": ["90_real"]}}))
    monkeypatch.setenv("PIP_VARIANT_PROFILE", str(profile))
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=REQUIRES)
    env = markers._installed_environment(_wheel_dist(wheel))
    assert env == VariantEnvironment("cu128", ["nvidia :: sm_arch :: 90_real"])


@pytest.mark.parametrize("extras, named", [((), "cuda-lib"), (("GPU",), "cuda-lib, gpu-tools")])
def test_old_pip_fallback_names_only_dependencies_of_the_extras_asked_for(patched, tmp_path, caplog, extras, named):
    requires = ['cuda-lib ; variant_label == "cu128"',
                'gpu-tools ; extra == "gpu" and variant_label == "cu128"',
                'docs-tools ; extra == "docs" and variant_label == "cu128"']
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=requires)
    with caplog.at_level(logging.WARNING, logger="pip_variants"):
        markers._without_variant_markers(_wheel_dist(wheel), extras)
    assert f"({named}), which pip" in caplog.text, caplog.text
    assert "pip leaves those dependencies out" in caplog.text


def test_old_pip_fallback_is_silent_where_only_unrequested_extras_have_variant_markers(patched, tmp_path, caplog):
    requires = ["always", 'gpu-tools ; extra == "gpu" and variant_label == "cu128"']
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=requires)
    with caplog.at_level(logging.WARNING, logger="pip_variants"):
        kept = markers._without_variant_markers(_wheel_dist(wheel), ())
    assert [r.name for r in kept] == ["always"]
    assert "variant environment markers" not in caplog.text


def test_old_pip_fallback_keeps_a_dependency_only_named_like_a_marker(patched, tmp_path, caplog):
    # a project or an extra may be called variant_label: only a marker is one
    requires = ["variant_label>=1.0", "tool[variant_features]", 'other ; python_version >= "3"',
                'x ; extra == "variant_label"']
    wheel = build_wheel(tmp_path, "plain-pkg", "1.0", requires=requires)
    with caplog.at_level(logging.WARNING, logger="pip_variants"):
        assert markers._without_variant_markers(_wheel_dist(wheel, "plain-pkg"), ()) is None  # pip's own list
    assert caplog.text == ""


def test_a_broken_install_of_pip_variants_leaves_the_dependencies_to_pip(patched, tmp_path, caplog, monkeypatch):
    # variant_markers.py gone (a half-removed install): one warning, pip's own list, no traceback
    wheel = build_wheel(tmp_path, "plain-pkg", "1.0", requires=['dep ; variant_label == "x"', "always"])
    dist = _wheel_dist(wheel, "plain-pkg")

    def gone(*args, **kwargs):
        raise ModuleNotFoundError("No module named 'pip_variants.variant_markers'")

    monkeypatch.setattr(markers, "_with_variant_markers", gone)
    with caplog.at_level(logging.WARNING, logger="pip_variants"):
        try:
            names = [r.name for r in dist.iter_dependencies()]
        except Exception as exc:  # pip 23.2-24.0 cannot parse the marker itself: pip's own error
            names = [type(exc).__name__]
    assert caplog.text.count("internal error in Distribution.iter_dependencies") == 1
    assert names in (["dep", "always"], ["always"], ["InvalidMarker"], ["InvalidRequirement"]), names


def test_old_pip_fallback_warns_about_a_release_once_and_then_only_about_more(patched, tmp_path, caplog):
    # pip reads the release's dependencies without extras, then for pkg[gpu]
    requires = ['cuda-lib ; variant_label == "cu128"', 'gpu-tools ; extra == "gpu" and variant_label == "cu128"']
    wheel = build_wheel(tmp_path, "torch-like", "1.0", label="cu128", variant_json=RELEASE, requires=requires)
    dist = _wheel_dist(wheel)
    with caplog.at_level(logging.WARNING, logger="pip_variants"):
        for extras in ((), ("gpu",), (), ("gpu",)):
            markers._without_variant_markers(dist, extras)
    lines = [r.getMessage() for r in caplog.records if "variant environment markers" in r.getMessage()]
    assert len(lines) == 2, lines
    assert "torch-like 1.0 has dependencies with variant environment markers (cuda-lib)" in lines[0]
    assert "torch-like 1.0 also has dependencies with variant environment markers (gpu-tools)" in lines[1]


@needs_parser
def test_variant_markers_module_gone_leaves_marker_parsing_to_pip(patched, monkeypatch, caplog):
    import sys

    from pip._vendor.packaging.requirements import InvalidRequirement, Requirement

    monkeypatch.setitem(sys.modules, "pip_variants.variant_markers", None)  # import fails
    with caplog.at_level(logging.WARNING, logger="pip_variants"):
        with pytest.raises(InvalidRequirement):  # what stock pip says of such a line
            Requirement('dep ; variant_label == "x"')
        assert Requirement('dep ; python_version >= "3"').name == "dep"
    assert caplog.text.count("internal error in Tokenizer.__init__") == 1, caplog.text
    assert "falling back to stock pip behaviour" in caplog.text
