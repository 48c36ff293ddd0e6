"""H21: the legacy resolver reports the builds it kept installed (legacy_resolver.py)."""

from __future__ import annotations

from types import SimpleNamespace

from _helpers import variant_finder

from pip_variants._pip import legacy_resolver


class _Req:
    def __init__(self, name, satisfied_by=None):
        self.name, self.satisfied_by = name, satisfied_by


def _legacy_run(finder, reqs, caplog, monkeypatch, kept_label="fv1"):
    monkeypatch.setattr("pip_variants.installed.variant_of",
                        lambda location, name, version: SimpleNamespace(label=kept_label))
    resolver = SimpleNamespace(finder=finder)
    with caplog.at_level("DEBUG", logger="pip_variants"):
        wrapped = legacy_resolver._wrap_resolve(lambda self, root_reqs, check: SimpleNamespace(all_requirements=reqs))
        result = wrapped(resolver, [], True)
    assert result.all_requirements is reqs
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.levelname == "WARNING"]


def test_the_legacy_resolver_reports_a_kept_build(patched, pkg_dir, caplog, monkeypatch):
    finder = variant_finder([str(pkg_dir)])
    finder.find_best_candidate("pkg")
    from pip._vendor.packaging.version import Version

    dist = SimpleNamespace(version=Version("1.0.0"), location="/x", editable=False, direct_url=None)
    warnings = _legacy_run(finder, [_Req("pkg", dist), _Req("other")], caplog, monkeypatch)
    assert warnings == [("WARNING", "pip-variants: pip kept the installed pkg 1.0.0 (variant fv1), though variant "
                                    "fv3 is the one selected for it; to replace it, run the same pip command for "
                                    "pkg==1.0.0 with --force-reinstall --no-deps, then once more without those two "
                                    "options (for what the new build depends on)")]


def test_the_legacy_resolver_says_nothing_when_the_kept_build_is_the_chosen_one(patched, pkg_dir, caplog,
                                                                                monkeypatch):
    finder = variant_finder([str(pkg_dir)])
    finder.find_best_candidate("pkg")
    from pip._vendor.packaging.version import Version

    dist = SimpleNamespace(version=Version("1.0.0"), location="/x", editable=False, direct_url=None)
    assert _legacy_run(finder, [_Req("pkg", dist)], caplog, monkeypatch, kept_label="fv3") == []


def test_an_odd_requirement_set_is_an_internal_error_not_a_crash(patched, pkg_dir, caplog, monkeypatch):
    finder = variant_finder([str(pkg_dir)])
    finder.find_best_candidate("pkg")
    resolver = SimpleNamespace(finder=finder)
    wrapped = legacy_resolver._wrap_resolve(lambda self, root_reqs, check: object())
    with caplog.at_level("DEBUG", logger="pip_variants"):
        wrapped(resolver, [], True)  # no all_requirements: reported, pip's result returned
    assert any("internal error" in r.getMessage() for r in caplog.records)


def test_without_a_variant_finder_the_legacy_resolver_is_untouched(patched, caplog):
    wrapped = legacy_resolver._wrap_resolve(lambda self, root_reqs, check: "result")
    assert wrapped(SimpleNamespace(finder=object()), [], True) == "result"
    assert not caplog.records
