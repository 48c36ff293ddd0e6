"""install() / uninstall() symmetry on the real pip of this interpreter."""

from __future__ import annotations

import importlib

import pip_variants._pip as integration
from pip_variants._pip import _patching

#: (module, class, attribute) of every hook point; H6 exists from pip 24.0,
#: lock from 25.1, the vendored tokenizer (H13) from 24.1.
TARGETS = [
    ("pip._internal.models.wheel", "Wheel", "__init__"),
    ("pip._internal.index.package_finder", "PackageFinder", "evaluate_links"),
    ("pip._internal.index.package_finder", "PackageFinder", "process_project_url"),
    ("pip._internal.index.package_finder", "PackageFinder", "make_candidate_evaluator"),
    ("pip._internal.index.package_finder", "CandidateEvaluator", "get_applicable_candidates"),
    ("pip._internal.index.package_finder", "CandidateEvaluator", "_sort_key"),
    ("pip._internal.index.sources", "_FlatDirectoryToUrls", "_scan_directory"),
    ("pip._internal.resolution.resolvelib.factory", "Factory", "_fail_if_link_is_unsupported_wheel"),
    ("pip._internal.resolution.resolvelib.candidates", "_InstallRequirementBackedCandidate", "_check_metadata_consistency"),
    ("pip._internal.cli.req_command", "RequirementCommand", "_build_package_finder"),
    ("pip._internal.models.installation_report", "InstallationReport", "_install_req_to_dict"),
    ("pip._internal.operations.prepare", "RequirementPreparer", "save_linked_requirement"),
    ("pip._internal.operations.prepare", "RequirementPreparer", "prepare_linked_requirements_more"),
    ("pip._internal.commands.install", "InstallCommand", "add_options"),
    ("pip._internal.commands.download", "DownloadCommand", "add_options"),
    ("pip._internal.commands.wheel", "WheelCommand", "add_options"),
    ("pip._internal.commands.lock", "LockCommand", "add_options"),
    # H13: pip show / inspect / list -v (class "" or None = a module-level function)
    ("pip._internal.commands.show", "", "print_results"),
    ("pip._internal.commands.inspect", "InspectCommand", "_dist_to_dict"),
    ("pip._internal.commands.list", "", "format_for_columns"),
    ("pip._internal.commands.list", "", "format_for_json"),
    # H20: pip list -o / pip index versions
    ("pip._internal.commands.list", "ListCommand", "_build_package_finder"),
    ("pip._internal.commands.index", "IndexCommand", "_build_package_finder"),
    # H14-H17 (ABI dependencies)
    ("pip._internal.resolution.resolvelib.resolver", "Resolver", "resolve"),
    ("pip._internal.resolution.resolvelib.candidates", "_InstallRequirementBackedCandidate", "iter_dependencies"),
    ("pip._internal.resolution.resolvelib.factory", "Factory", "get_installation_error"),
    ("pip._internal.resolution.resolvelib.found_candidates", None, "_iter_built"),
    ("pip._internal.resolution.resolvelib.found_candidates", None, "_iter_built_with_prepended"),
    ("pip._internal.resolution.resolvelib.found_candidates", None, "_iter_built_with_inserted"),
    # H21 (kept builds under the legacy resolver)
    ("pip._internal.resolution.legacy.resolver", "Resolver", "resolve"),
    # H18 (variant markers); the vendored tokenizer exists from pip 24.1
    ("pip._internal.metadata.importlib._dists", "Distribution", "iter_dependencies"),
    ("pip._internal.metadata.pkg_resources", "Distribution", "iter_dependencies"),
    ("pip._internal.resolution.resolvelib.candidates", "AlreadyInstalledCandidate", "iter_dependencies"),
    ("pip._internal.resolution.resolvelib.candidates", "ExtrasCandidate", "iter_dependencies"),
    ("pip._vendor.packaging._tokenizer", "Tokenizer", "__init__"),
    ("pip._vendor.packaging.markers", "Marker", "evaluate"),
    # H22 (an install from a wheel without a label is marked non-variant)
    ("pip._internal.operations.install.wheel", "", "install_wheel"),
]


def _present():
    from pip_variants._pip import markers

    out = []
    for module_name, class_name, attr in TARGETS:
        if module_name.startswith("pip._vendor.") and markers.supported() is None:
            continue  # packaging 21.3 (pip < 24.1): variant markers are not parsed there
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        cls = getattr(module, class_name, None) if class_name else module
        if cls is not None and attr in cls.__dict__:
            out.append((cls, attr))
    return out


def test_install_then_uninstall_restores_every_attribute():
    # Import pip's modules first: in a venv where the start-up shim is active it
    # patches them as they load, and uninstall() must find those patches too
    # (when this test runs alone it is the first to import them).
    _present()
    integration.uninstall()
    targets = _present()
    before = {(cls, attr): cls.__dict__[attr] for cls, attr in targets}
    integration.install()
    try:
        patched = set(integration.patched_attributes())
        assert patched == set(before), "every hook point present in this pip is patched"
        for cls, attr in targets:
            assert cls.__dict__[attr] is not before[(cls, attr)]
    finally:
        integration.uninstall()
    for cls, attr in targets:
        assert cls.__dict__[attr] is before[(cls, attr)], f"{cls.__name__}.{attr} not restored"
    assert integration.patched_attributes() == []


def test_install_is_idempotent():
    integration.uninstall()
    try:
        integration.install()
        first = {key: key[0].__dict__[key[1]] for key in integration.patched_attributes()}
        integration.install()
        assert {key: key[0].__dict__[key[1]] for key in integration.patched_attributes()} == first
    finally:
        integration.uninstall()


def test_classmethod_stays_a_classmethod(patched):
    from pip._internal.models.installation_report import InstallationReport

    assert isinstance(InstallationReport.__dict__["_install_req_to_dict"], classmethod)


def test_wrappers_point_at_the_originals(patched):
    for cls, attr in integration.patched_attributes():
        current = cls.__dict__[attr]
        func = current.__func__ if isinstance(current, classmethod) else current
        assert getattr(func, _patching.WRAPPED_MARK, None) is not None or isinstance(current, classmethod)


def test_hooks_do_not_import_the_selection_core(subprocess_env):
    # Every pip command imports the hooked modules; only a run that meets a
    # variant wheel should pay for the selection core.
    import subprocess
    import sys

    subprocess_env["PIP_NO_VARIANTS"] = "1"
    code = (
        "import sys, pip_variants._pip as p; p.install(); "
        "print(sorted(m for m in sys.modules if m.startswith('pip_variants.') and '_pip' not in m and 'bootstrap' not in m))"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=subprocess_env, capture_output=True,
                          text=True, timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
