"""Builds pip kept installed although another was selected or forced (kept.py)."""

from __future__ import annotations

import pytest
from _helpers import variant_finder

from pip_variants._pip.context import ATTR


def _unused_forced_messages(finder, kept, caplog, resolved=(), installed=()):
    from pip_variants._pip.kept import report_kept_builds

    with caplog.at_level("DEBUG", logger="pip_variants"):
        report_kept_builds(getattr(finder, ATTR), kept, set(resolved), set(installed))
    return [(r.levelname, r.getMessage()) for r in caplog.records]


def test_unused_forced_label_names_the_close_project(patched, pkg_dir, caplog):
    finder = variant_finder([str(pkg_dir)], pip_variants_variant=["pgk=fv9", "torch=cu128", "pkg=fv1"])
    finder.find_best_candidate("pkg")
    assert getattr(finder, ATTR).looked_up == {"pkg"}
    assert _unused_forced_messages(finder, {}, caplog) == [
        ("WARNING", "pip-variants: --variant pgk=fv9 was not applied: no project named 'pgk' is part of "
                    "this install; did you mean 'pkg'?"),
        ("VERBOSE", "pip-variants: --variant torch=cu128 was not applied: no project named 'torch' is part "
                    "of this install"),
    ]


def test_unused_forced_label_of_a_project_in_the_install_is_no_typo(patched, pkg_dir, caplog):
    # torch is installed (a dependency pip did not need to change): not 'did you mean torchvision'
    finder = variant_finder([str(pkg_dir)], pip_variants_variant=["torch=cu128", "jax=cuda12"])
    finder.find_best_candidate("pkg")
    getattr(finder, ATTR).looked_up.update({"torchvision", "jaxlib"})
    assert _unused_forced_messages(finder, {}, caplog, installed={"torch"}) == [
        ("VERBOSE", "pip-variants: --variant jax=cuda12 was not applied: no project named 'jax' is part "
                    "of this install"),
        # pip's -v (its VERBOSE level) shows these, as docs/troubleshooting.md says
        ("VERBOSE", "pip-variants: --variant torch=cu128 was not applied: no project named 'torch' is part "
                    "of this install (it is installed; this install does not need it)"),
    ]


def test_unused_forced_label_is_never_matched_with_the_environment(patched, pkg_dir, caplog):
    # PIP_VARIANT=jaxlib=cuda12 in a scikit-learn environment: joblib is no typo of it
    finder = variant_finder([str(pkg_dir)], pip_variants_variant=["jaxlib=cuda12"])
    finder.find_best_candidate("pkg")
    assert _unused_forced_messages(finder, {}, caplog, resolved={"requests"}, installed={"joblib"}) == [
        ("VERBOSE", "pip-variants: --variant jaxlib=cuda12 was not applied: no project named 'jaxlib' is "
                    "part of this install"),
    ]


@pytest.mark.parametrize("installed", [None, "fv1"])
def test_forced_label_of_a_kept_installation(patched, pkg_dir, caplog, installed):
    finder = variant_finder([str(pkg_dir)], pip_variants_variant=["pkg=fv3"])
    finder.find_best_candidate("pkg")  # looked up (pip install -U) and still kept
    messages = _unused_forced_messages(finder, {"pkg": ("1.0", installed, "fv3")}, caplog, resolved={"pkg"})
    what = f"variant {installed}" if installed else "not a variant wheel"
    assert messages == [("WARNING", f"pip-variants: --variant pkg=fv3 was not applied: pip kept the "
                                    f"installed pkg 1.0 ({what}); to replace it, run the same pip command "
                                    f"for pkg==1.0 with --force-reinstall --no-deps, "
                                    "then once more without those two options (for what the new build depends on)")]


def test_chosen_label_of_a_kept_installation(patched, pkg_dir, caplog):
    finder = variant_finder([str(pkg_dir)])
    finder.find_best_candidate("pkg")
    from pip._vendor.packaging.version import Version

    assert getattr(finder, ATTR).chosen == {("pkg", Version("1.0.0")): "fv3"}  # 1.0 is 1.0.0
    messages = _unused_forced_messages(finder, {"pkg": ("1.0", "?", "fv3")}, caplog, resolved={"pkg"})
    assert messages == [("WARNING", "pip-variants: pip kept the installed pkg 1.0 (a variant.json that cannot "
                                    "be read), though variant fv3 is the one selected for it; to replace it, "
                                    "run the same pip command for pkg==1.0 with --force-reinstall --no-deps, "
                                    "then once more without those two options (for what the new build depends on)")]


@pytest.mark.parametrize(
    "name, names, expected",
    [
        ("pgk", {"pkg"}, "pkg"),
        ("tourch", {"torch"}, "torch"),
        ("torhc", {"torch", "torchvision"}, "torch"),
        ("numpy", {"numba"}, None),  # two edits in a short name
        ("torch", {"torchvision"}, None),  # a relative, not a typo
        ("jax", {"jaxlib"}, None),
        ("abd", {"abc", "abe"}, None),  # which one?
        ("flash-atn", {"flash-attn"}, "flash-attn"),
        ("scipy", {"scapy"}, "scapy"),  # one edit: a likely slip
        ("faiss-gpu", {"faiss-cpu"}, "faiss-cpu"),
        ("jaxlib", {"joblib"}, None),  # two edits in a name under 8 characters
    ],
)
def test_near_name(name, names, expected):
    from pip_variants._pip.kept import _near_name

    assert _near_name(name, names) == expected
