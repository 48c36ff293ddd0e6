"""End-to-end: ABI-dependency variants resolved inside real pip (PROVIDERS.md §2.7).

``torch-like`` 2.8.0 / 2.9.0 ships ``cu126``, ``cu128`` and ``null``;
``attn-like`` 1.0 ships ``torch28`` / ``torch29`` (``abi_dependency ::
torch_like :: 2.8`` / ``2.9``) and depends on ``torch-like``, like flash-attn
on torch. The machine is a fake H100. The pair pip installs must always be
consistent, whichever side decides the torch-like version. Depends on pip's
resolver internals, so it runs on every pip release of the matrix.
"""

from __future__ import annotations

import pytest

from support.chains import H100, TORCH, abi_release
from support.venvs import pick, report_item, chosen_filename, run_pip, index_args
from support.wheels import build_wheel

pytestmark = pytest.mark.e2e

ATTN = abi_release({"torch28": ["2.8"], "torch29": ["2.9"]})


@pytest.fixture
def chain(publish, index, dist):
    for version in ("2.8.0", "2.9.0"):
        publish("torch-like", version, TORCH, plain=False)
    # an older torch-like without variants: the "no build fits" case
    index.add_files("torch-like", [build_wheel(dist / "t27", "torch-like", "2.7.0")])
    publish("attn-like", "1.0", ATTN, plain=False, requires=["torch-like"])
    return index


def pair(report: dict) -> tuple:
    return (chosen_filename(report_item(report, "torch-like")), chosen_filename(report_item(report, "attn-like")))


def assert_clean(stderr: str) -> None:
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr


def test_unpinned_torch_gives_the_newest_consistent_pair(variant_venv, chain):
    _, report, err = pick(variant_venv, chain, "attn-like", **H100)
    assert pair(report) == ("torch_like-2.9.0-py3-none-any-cu128.whl", "attn_like-1.0-py3-none-any-torch29.whl"), err
    assert_clean(err)


def test_pinned_torch_picks_the_matching_build(variant_venv, chain):
    _, report, err = pick(variant_venv, chain, "attn-like", "torch-like==2.8.0", **H100)
    assert pair(report) == ("torch_like-2.8.0-py3-none-any-cu128.whl", "attn_like-1.0-py3-none-any-torch28.whl"), err
    assert_clean(err)


def test_constraint_on_torch_is_honoured_like_a_pin(variant_venv, chain, tmp_path):
    constraints = tmp_path / "c.txt"
    constraints.write_text("torch-like<2.9\n")
    _, report, err = pick(variant_venv, chain, "attn-like", "-c", str(constraints), **H100)
    assert pair(report) == ("torch_like-2.8.0-py3-none-any-cu128.whl", "attn_like-1.0-py3-none-any-torch28.whl"), err


@pytest.mark.parametrize("installed, build", [("2.9.0", "torch29"), ("2.8.0", "torch28")])
def test_installed_torch_decides_and_pip_check_is_clean(fresh_venv, chain, installed, build):
    run_pip(fresh_venv, "install", *index_args(chain), f"torch-like=={installed}", env=H100)
    proc = run_pip(fresh_venv, "install", *index_args(chain), "attn-like", env=H100)
    assert f"attn-like 1.0: variant {build}" in proc.stdout + proc.stderr, proc.stderr
    assert_clean(proc.stderr)
    listed = run_pip(fresh_venv, "list", "--format=freeze").stdout
    assert f"torch-like=={installed}" in listed and "attn-like==1.0" in listed
    check = run_pip(fresh_venv, "check", check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_naming_an_installed_torch_without_upgrade_keeps_it(fresh_venv, chain, tmp_path):
    """pip keeps a satisfied, installed requirement unless told to upgrade:
    naming torch-like (a requirement, a constraint) must not move it to 2.9 for
    the sake of attn-like's newest build; --upgrade may."""
    run_pip(fresh_venv, "install", *index_args(chain), "torch-like==2.8.0", env=H100)
    kept = ("torch_like-2.8.0-py3-none-any-cu128.whl", "attn_like-1.0-py3-none-any-torch28.whl")
    constraints = tmp_path / "c.txt"
    constraints.write_text("torch-like<3\n")
    # (with --upgrade, pip upgrades what the command requests, not what it only constrains)
    for args in (("torch-like",), ("-c", str(constraints)), ("--upgrade", "-c", str(constraints))):
        _, report, err = pick(fresh_venv, chain, "attn-like", *args, **H100)
        items = {item["metadata"]["name"]: item for item in report["install"]}
        assert "torch-like" not in items, err  # kept: nothing to install
        assert chosen_filename(items["attn-like"]) == kept[1], err
        assert_clean(err)
    spelled = tmp_path / "spelled.txt"
    spelled.write_text("Torch_Like<3\n")  # requested and constrained: requested wins, whatever the spelling
    for args in (("torch-like",), ("torch-like", "-c", str(spelled))):
        _, report, err = pick(fresh_venv, chain, "attn-like", *args, "--upgrade", **H100)
        assert pair(report) == ("torch_like-2.9.0-py3-none-any-cu128.whl",
                                "attn_like-1.0-py3-none-any-torch29.whl"), err
    # what `pip-variants check` suggests to repair a build: --no-deps leaves torch-like alone
    _, report, err = pick(fresh_venv, chain, "attn-like", "--force-reinstall", "--no-deps", **H100)
    assert chosen_filename(report_item(report, "attn-like")) == kept[1], err


def test_no_deps_with_the_dependency_pinned_in_the_same_command_takes_its_build(variant_venv, chain, tmp_path):
    # a lock file installed with --no-deps (Docker, pip-sync): the pair must still match
    lock = tmp_path / "lock.txt"
    lock.write_text("torch-like==2.8.0\n")
    _, report, err = pick(variant_venv, chain, "attn-like==1.0", "--no-deps", "-r", str(lock), **H100)
    assert pair(report) == ("torch_like-2.8.0-py3-none-any-cu128.whl", "attn_like-1.0-py3-none-any-torch28.whl"), err
    assert_clean(err)
    # a constraint installs nothing, under --no-deps least of all
    _, report, err = pick(variant_venv, chain, "attn-like==1.0", "--no-deps", "-c", str(lock), **H100)
    assert [item["metadata"]["name"] for item in report["install"]] == ["attn-like"], err


def test_override_variable_decides(variant_venv, chain):
    _, report, err = pick(variant_venv, chain, "attn-like", VARIANT_ABI_DEPENDENCY="torch-like==2.8.1", **H100)
    assert pair(report)[1] == "attn_like-1.0-py3-none-any-torch28.whl", err


def test_no_build_fits_names_the_abi_requirement(variant_venv, chain):
    name, _, err = pick(variant_venv, chain, "attn-like", "torch-like==2.7.0", check=False, **H100)
    assert name is None
    assert "attn-like 1.0 has builds for torch-like 2.8 and 2.9 (abi_dependency)" in err, err
    assert "torch-like==2.7.0" in err
    assert "Traceback" not in err


def test_plain_wheel_when_no_build_fits(variant_venv, publish, chain):
    publish("kern-like", "1.0", abi_release({"t28": ["2.8"]}, builtin=True), requires=["torch-like"])
    _, report, err = pick(variant_venv, chain, "kern-like", "torch-like==2.9.0", **H100)
    assert chosen_filename(report_item(report, "kern-like")) == "kern_like-1.0-py3-none-any.whl", err
    _, report, err = pick(variant_venv, chain, "kern-like", **H100)
    assert (chosen_filename(report_item(report, "torch-like")), chosen_filename(report_item(report, "kern-like"))) == (
        "torch_like-2.8.0-py3-none-any-cu128.whl", "kern_like-1.0-py3-none-any-t28.whl"), err


def test_explain_shows_abi_properties_and_version_sources(fresh_venv, chain):
    from support.venvs import run_python

    def explain():
        proc = run_python(fresh_venv, "-m", "pip_variants", "explain", "attn-like", *index_args(chain), env=H100)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    out = explain()
    assert "abi_dependency :: torch_like :: 2.9" in out, out
    assert "version of torch-like: the version pip resolves" in out, out
    # explain runs with --no-deps: the pair is pip's to settle, and the note says so
    assert "also depends on the torch-like version it resolves for the whole install" in " ".join(out.split()), out
    run_pip(fresh_venv, "install", *index_args(chain), "torch-like==2.8.0", env=H100)
    out = explain()
    assert "version of torch-like 2.8.0 (installed in the target environment)" in out, out
    assert "pip chooses attn_like-1.0-py3-none-any-torch28.whl" in out, out
    assert "it resolves for the whole install" not in " ".join(out.split()), out


def test_backtracks_to_the_other_build_when_a_dependency_caps_torch(variant_venv, chain, dist):
    chain.add_files("other-like", [build_wheel(dist / "o", "other-like", "1.0", requires=["torch-like<2.9"])])
    _, report, err = pick(variant_venv, chain, "attn-like", "other-like", **H100)
    assert pair(report) == ("torch_like-2.8.0-py3-none-any-cu128.whl", "attn_like-1.0-py3-none-any-torch28.whl"), err
    assert_clean(err)


def test_an_installed_torch_another_requirement_must_move_says_how(fresh_venv, publish, chain):
    """The installed torch-like is held (its build of attn-like only), though
    meta-like needs a newer one: the error says so and how to let it move,
    and doing so gives the consistent pair."""
    publish("meta-like", "1.0", None, requires=["torch-like>=2.9", "attn-like"])
    run_pip(fresh_venv, "install", *index_args(chain), "torch-like==2.8.0", env=H100)
    proc = run_pip(fresh_venv, "install", "--dry-run", *index_args(chain), "meta-like", env=H100, check=False)
    assert proc.returncode != 0
    text = " ".join(proc.stderr.split())
    assert ("attn-like 1.0 has builds for torch-like 2.8 and 2.9 (abi_dependency); torch-like>=2.9 (required by "
            "meta-like 1.0) is being installed, but the installed torch-like 2.8.0 is kept unless the command "
            "names torch-like: add torch-like to it to let pip replace it") in text, proc.stderr
    assert_clean(proc.stderr)
    _, report, err = pick(fresh_venv, chain, "meta-like", "torch-like", **H100)
    assert pair(report) == ("torch_like-2.9.0-py3-none-any-cu128.whl", "attn_like-1.0-py3-none-any-torch29.whl"), err


def test_a_held_torch_another_requirement_moves_is_said_with_the_build_taken(fresh_venv, publish, chain):
    """torch-like 2.8.0 installed and not named: xf-like's builds are looked
    for it (its torch29 build is not on offer), but xf-like itself requires
    torch-like>=2.9, so this very command moves torch-like: a line says so
    and how to get the build for the new one."""
    publish("xf-like", "1.0", abi_release({"t29": ["2.9"]}), requires=["torch-like>=2.9"])
    run_pip(fresh_venv, "install", *index_args(chain), "torch-like==2.8.0", env=H100)
    _, report, err = pick(fresh_venv, chain, "xf-like", **H100)
    assert chosen_filename(report_item(report, "xf-like")) == "xf_like-1.0-py3-none-any.whl", err
    text = " ".join(err.split())
    assert ("xf-like 1.0: only its builds for the installed torch-like 2.8.0 were on offer (the command does not "
            "name torch-like), but this install replaces torch-like with 2.9.0, so pip takes a build without a "
            "label; name torch-like in the command to get the build for torch-like 2.9.0 "
            "(pip install xf-like torch-like)") in text, err
    _, report, err = pick(fresh_venv, chain, "xf-like", "torch-like", **H100)
    assert chosen_filename(report_item(report, "xf-like")) == "xf_like-1.0-py3-none-any-t29.whl", err
    assert "only its builds for the installed" not in err


def test_the_moved_torch_line_only_where_naming_torch_would_help(fresh_venv, publish, chain):
    # no build for the torch that comes: naming it would not help, so no line
    publish("yf-like", "1.0", abi_release({"t28": ["2.8"]}), requires=["torch-like>=2.9"])
    run_pip(fresh_venv, "install", *index_args(chain), "torch-like==2.8.0", env=H100)
    _, report, err = pick(fresh_venv, chain, "yf-like", **H100)
    assert chosen_filename(report_item(report, "yf-like")) == "yf_like-1.0-py3-none-any.whl", err
    assert "only its builds for the installed" not in err, err
    # an installed build pip keeps (-U finds no newer version): pip chose no build here
    publish("xf-like", "1.0", abi_release({"t29": ["2.9"]}), requires=["torch-like>=2.9"])
    run_pip(fresh_venv, "install", "--no-deps", *index_args(chain), "xf-like", env=H100)
    proc = run_pip(fresh_venv, "install", "--dry-run", *index_args(chain), "-U", "xf-like", env=H100)
    assert "Would install torch-like-2.9.0" in proc.stdout, proc.stdout
    assert "only its builds for the installed" not in proc.stderr, proc.stderr


def test_build_dependencies_resolved_in_process_leave_the_commands_binding(fresh_venv, publish, chain, tmp_path):
    """pip 26's inprocess-build-deps resolves the build dependencies inside the
    command's resolution: the installed torch-like still decides attn-like's build."""
    from support.chains import pip_release
    from support.wheels import BLAS_RELEASE, source_tree_files

    if pip_release(fresh_venv) < (26, 0):
        pytest.skip("--use-feature=inprocess-build-deps: pip 26.0+")
    tree = tmp_path / "ext"
    tree.mkdir()
    for rel, text in source_tree_files("ext", "1.0", '{"x.txt": "1"}', requires=["pkg"]).items():
        (tree / rel).write_text(text)
    publish("pkg", "1.0", BLAS_RELEASE)
    run_pip(fresh_venv, "install", *index_args(chain), "torch-like==2.8.0", env=H100)
    _, report, err = pick(fresh_venv, chain, "attn-like", str(tree), "--use-feature=inprocess-build-deps", **H100)
    assert chosen_filename(report_item(report, "attn-like")) == "attn_like-1.0-py3-none-any-torch28.whl", err
    assert report_item(report, "torch-like") is None, err  # the installed 2.8.0 stays


def test_an_installed_build_that_holds_its_torch_is_named_with_the_way_out(fresh_venv, publish, chain):
    """torch-like 2.8.0 and attn-like's torch28 build installed; meta-like needs
    torch-like>=2.9 and attn-like: naming torch-like would not help (pip keeps
    the installed attn-like 1.0, which requires 2.8), so the line says what does."""
    publish("meta-like", "1.0", None, requires=["torch-like>=2.9", "attn-like"])
    run_pip(fresh_venv, "install", *index_args(chain), "torch-like==2.8.0", "attn-like", env=H100)
    proc = run_pip(fresh_venv, "install", "--dry-run", *index_args(chain), "meta-like", env=H100, check=False)
    assert proc.returncode != 0
    text = " ".join(proc.stderr.split())
    assert ("pip-variants: torch-like>=2.9 (required by meta-like 1.0) is being installed, but the installed "
            "attn-like (for torch-like 2.8) was built for another torch-like (abi_dependency) and pip keeps it: "
            "add --force-reinstall torch-like attn-like to the command to replace them together") in text, proc.stderr
    assert_clean(proc.stderr)
    _, report, err = pick(fresh_venv, chain, "meta-like", "--force-reinstall", "torch-like", "attn-like", **H100)
    assert pair(report) == ("torch_like-2.9.0-py3-none-any-cu128.whl", "attn_like-1.0-py3-none-any-torch29.whl"), err


def test_forcing_the_build_for_another_torch_says_which_torch_comes_with_it(fresh_venv, chain):
    run_pip(fresh_venv, "install", *index_args(chain), "torch-like==2.9.0", env=H100)
    _, report, err = pick(fresh_venv, chain, "attn-like", "--variant", "attn-like=torch28", **H100)
    assert pair(report) == ("torch_like-2.8.0-py3-none-any-cu128.whl", "attn_like-1.0-py3-none-any-torch28.whl"), err
    text = " ".join(err.split())
    assert ("attn-like 1.0: variant torch28 was chosen with --variant, but this machine does not support it "
            "(needs abi_dependency :: torch_like :: 2.8; torch-like 2.9.0 (installed in the target environment)); "
            "taking it anyway, with torch-like==2.8.* as it requires") in text, err
    assert_clean(err)


def test_a_release_the_resolver_backtracks_to_gets_its_chosen_line(variant_venv, publish, chain):
    """attn-like 2.0 has a torch 2.9 build only: with torch-like pinned to 2.8 the
    resolver backtracks to 1.0 (settled then) and takes its torch28 build, the
    second of that version (H16): a line says so."""
    publish("attn-like", "2.0", abi_release({"torch29": ["2.9"]}), plain=False, requires=["torch-like"])
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(chain), "attn-like", "torch-like==2.8.0",
                   env=H100)
    assert "Would install attn-like-1.0 torch-like-2.8.0" in proc.stdout, proc.stdout + proc.stderr
    assert proc.stdout.count("attn-like 1.0: variant torch28") == 1, proc.stdout
    assert_clean(proc.stderr)


def test_a_conflict_a_forced_build_makes_says_so(variant_venv, chain):
    name, _, err = pick(variant_venv, chain, "attn-like", "torch-like==2.9.0", "--variant", "attn-like=torch28",
                        check=False, **H100)
    assert name is None
    assert ("attn-like 1.0 has builds for torch-like 2.8 and 2.9 (abi_dependency; --variant attn-like=torch28 "
            "takes only that build); torch-like==2.9.0 (requested) is being installed") in " ".join(err.split()), err
    assert_clean(err)


def test_the_legacy_resolver_warns_about_the_mismatched_pair_it_cannot_avoid(variant_venv, chain):
    """The legacy resolver never goes back to another build: with torch-like
    pinned to 2.8.0 it still takes attn-like's torch29 build. It is deprecated,
    so pip-variants does not resolve for it, but the pair is named."""
    legacy = "--use-deprecated=legacy-resolver"
    _, report, err = pick(variant_venv, chain, "attn-like", "torch-like==2.8.0", legacy, **H100)
    text = " ".join(err.split())
    assert pair(report) == ("torch_like-2.8.0-py3-none-any-cu128.whl", "attn_like-1.0-py3-none-any-torch29.whl"), err
    assert ("attn-like 1.0's build torch29 needs torch-like==2.9.*, but the legacy resolver chose torch-like 2.8.0; "
            "it never goes back to another build") in text, err
    assert text.count("legacy resolver chose") == 1, err
    assert_clean(err)


def test_a_plain_release_the_resolver_backtracks_to_gets_a_line_too(variant_venv, publish, chain):
    """attn-like 3.0 has a torch 2.7 build only, and torch-like 2.7.0 is a plain wheel:
    the chosen line of the torch-like release looked at first is not the last word."""
    publish("attn-like", "3.0", abi_release({"torch27": ["2.7"]}), plain=False, requires=["torch-like"])
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(chain), "attn-like==3.0", env=H100)
    assert "Would install attn-like-3.0 torch-like-2.7.0" in proc.stdout, proc.stdout + proc.stderr
    if "torch-like 2.9.0: variant" in proc.stdout:
        assert "torch-like 2.7.0: not a variant wheel; pip takes this release, not 2.9.0" in proc.stdout, proc.stdout
    assert_clean(proc.stderr)


def test_pip_show_names_the_abi_requirement_once_as_the_package_spells_it(fresh_venv, publish, chain):
    """The ABI requirement is merged into the package's own: one name on every
    pip (23.2 and 24.0 list every requirement), and pip check names a missing
    torch once."""
    publish("attn-like", "4.0", abi_release({"torch29": ["2.9"]}), plain=False, requires=["Torch_Like"])
    run_pip(fresh_venv, "install", *index_args(chain), "attn-like==4.0", env=H100)
    requires = next(line for line in run_pip(fresh_venv, "show", "attn-like").stdout.splitlines()
                    if line.startswith("Requires:"))
    assert requires[len("Requires: "):].split(", ") == ["Torch_Like"], requires
    assert "torch-like" not in run_pip(fresh_venv, "check", env=H100).stdout
    run_pip(fresh_venv, "uninstall", "-y", "torch-like")
    check = run_pip(fresh_venv, "check", env=H100, check=False)
    assert check.stdout.count("requires torch-like, which is not installed") == 1, check.stdout
