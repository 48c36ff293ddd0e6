"""The shape checks that let a pip newer than the tested range keep its hooks (_pip/shape.py)."""

from __future__ import annotations

import importlib
import types


from pip_variants._pip import HOOKS, _compat, shape


def test_every_watched_module_has_expected_points():
    assert set(HOOKS) == set(shape.EXPECTED)


def test_the_running_pip_has_the_expected_shape(patched):
    # Checked after patching: the checks look at pip's own objects, not our wrappers.
    for name in HOOKS:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue  # commands.lock before 25.1
        found = shape.problems(module)
        if name == "pip._internal.index.sources" and _compat.PIP_VERSION < (24, 0):
            assert found == ["pip._internal.index.sources._FlatDirectoryToUrls is gone"]
        else:
            assert found == [], name


def _module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    return m


def test_renamed_class_attribute_and_signature():
    class Wheel:
        def __init__(self, name):
            pass

    assert shape.problems(_module("pip._internal.models.wheel", Wheel=Wheel)) == [
        "pip._internal.models.wheel.Wheel.__init__ takes (self, name), expected (self, filename, ...)"
    ]
    assert shape.problems(_module("pip._internal.models.wheel")) == ["pip._internal.models.wheel.Wheel is gone"]

    class Prep:
        def save_linked(self, req):
            pass

        def prepare_linked_requirements_more(self, reqs, parallel_builds=False):
            pass

    assert shape.problems(_module("pip._internal.operations.prepare", RequirementPreparer=Prep)) == [
        "pip._internal.operations.prepare.RequirementPreparer.save_linked_requirement is gone"
    ]


def test_trailing_parameters_may_be_added_but_kinds_must_match():
    class Report:
        @classmethod
        def _install_req_to_dict(cls, ireq, extra=None):
            pass

    assert shape.problems(_module("pip._internal.models.installation_report", InstallationReport=Report)) == []

    class Plain:
        def _install_req_to_dict(self, ireq):
            pass

    assert shape.problems(_module("pip._internal.models.installation_report", InstallationReport=Plain)) == [
        "pip._internal.models.installation_report.InstallationReport._install_req_to_dict is no longer a classmethod"
    ]


def test_module_level_functions():
    def format_for_columns(pkgs, options):
        pass

    def format_for_json(pkgs, options):
        pass

    class ListCommand:
        def _build_package_finder(self, options, session):
            pass

    assert shape.problems(_module("pip._internal.commands.list", format_for_columns=format_for_columns,
                                  format_for_json=format_for_json, ListCommand=ListCommand)) == [
        "pip._internal.commands.list.format_for_json takes (pkgs, options), expected (packages, options, ...)"
    ]


def test_untested_pip_gives_up_and_restores(patched, monkeypatch):
    import pip_variants._pip as integration

    monkeypatch.setattr(_compat, "TESTED_RANGE", ((23, 2), (23, 1)))
    monkeypatch.setattr(integration._Untested, "problems", [])
    monkeypatch.setattr(integration._Untested, "verified", None)
    assert integration.patched_attributes()
    broken = _module("pip._internal.models.wheel")
    integration.patch_module(broken)
    assert integration.patched_attributes() == []  # every patch restored: stock pip
    assert integration.state.STATE.broken
    assert integration.verify_untested_pip() is False
    assert integration.untested_pip_status()["mode"] == "untested-incompatible"
