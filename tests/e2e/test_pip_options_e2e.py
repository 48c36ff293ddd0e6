"""End-to-end: pip-variants' options (PIP-HOOKS.md §8) on real pip commands.

``--no-variants``, ``--variant NAME=LABEL``, ``--variant-profile FILE`` on
``install`` / ``download`` / ``wheel``, the same through ``PIP_*`` variables and
pip.conf keys; ``pip download`` keeping the index file for offline installs,
and downloading for another machine (``--platform``); hash-checking mode and
lock files written by pip-compile; local variant wheel files.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil

import pytest

from support.harness import harness_failure
from support.pips import newest_pip_only
from support.venvs import (
    HarnessError,
    clone_venv,
    index_args,
    install_from_registry,
    pick,
    run_pip,
    run_python,
)
from support.wheels import (
    NVIDIA_PROVIDER,
    build_release,
    build_wheel,
    static_provider,
    variants_json,
    variants_json_filename,
)

pytestmark = pytest.mark.e2e

PLAIN = "pkg-1.0-py3-none-any.whl"
DATA = variants_json(
    "pkg",
    "1.0",
    namespaces=["blas_lapack"],
    providers={"blas_lapack": static_provider({"library": ["openblas", "mkl"]})},
    variants={
        "ob": {"blas_lapack": {"library": ["openblas"]}},
        "mkl": {"blas_lapack": {"library": ["mkl"]}},
        "acc": {"blas_lapack": {"library": ["accelerate"]}},  # not supported
    },
)


def vfile(label: str) -> str:
    return f"pkg-1.0-py3-none-any-{label}.whl"


def assert_clean(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr


@pytest.fixture
def release(publish):
    return publish("pkg", "1.0", DATA)


def test_default_choice(variant_venv, release, index):
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == vfile("ob"), stderr


@pytest.mark.parametrize("how", ["option", "env"])
def test_no_variants_gives_the_stock_choice(variant_venv, stock_venv, release, index, how):
    args, env = (["--no-variants"], {}) if how == "option" else ([], {"PIP_NO_VARIANTS": "1"})
    chosen, report, stderr = pick(variant_venv, index, "pkg", *args, **env)
    stock, stock_report, _ = pick(stock_venv, index, "pkg")
    assert chosen == stock == PLAIN, stderr
    assert report["install"][0]["download_info"] == stock_report["install"][0]["download_info"]


def test_no_variants_says_what_it_leaves_out(variant_venv, publish, index, tmp_path):
    """BC-1 (PEP 817 SHOULD): a newest release that only variant wheels offer is named."""
    one = publish("pkg", "1.0", None)
    two = publish("pkg", "2.0", variants_json("pkg", "2.0", namespaces=["blas_lapack"],
                                              providers={"blas_lapack": static_provider({"library": ["openblas"]})},
                                              variants={"ob": {"blas_lapack": {"library": ["openblas"]}}}),
                  plain=False)
    said = ("pkg 2.0 has only variant wheels for this platform, and variants are off (--no-variants): "
            "pip takes pkg 1.0 instead. Drop --no-variants to install pkg 2.0 (if one of its variant wheels fits this machine)")
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--no-variants")
    assert chosen == PLAIN, stderr
    assert said in stderr
    # the same from a find-links folder (pip 24.0+ drops its variant wheels while scanning it)
    folder = tmp_path / "wheelhouse"
    folder.mkdir()
    for path in [*one, *two]:
        shutil.copy(path, folder)
    chosen, _, stderr = pick(variant_venv, folder, "pkg", "--no-variants")
    assert chosen == PLAIN, stderr
    assert said in stderr
    chosen, _, stderr = pick(variant_venv, index, "pkg==2.0", "--no-variants", check=False)
    assert chosen is None and "no other build of pkg fits" in stderr, stderr
    assert_clean(stderr)
    conf = tmp_path / "pip.conf"
    conf.write_text("[install]\nno-variants = true\n")
    chosen, _, stderr = pick(variant_venv, index, "pkg", PIP_CONFIG_FILE=str(conf))
    assert chosen == PLAIN, stderr
    assert ("variants are off (no-variants in pip's configuration): pip takes pkg 1.0 instead. "
            "Unset no-variants (pip config debug shows where) to install pkg 2.0 (if one of its variant wheels fits this machine)") in stderr
    for args in (("pkg<2", "--no-variants"), ("pkg",)):  # excluded by the requirement; variants on
        chosen, _, stderr = pick(variant_venv, index, *args)
        assert "only variant wheels" not in stderr, stderr
    assert chosen == "pkg-2.0-py3-none-any-ob.whl"
    wheel = next(p for p in two if p.name.endswith("-ob.whl"))  # by path: pip's error, then the way out
    proc = run_pip(variant_venv, "install", "--dry-run", "--no-variants", str(wheel), check=False)
    assert proc.returncode != 0
    assert_clean(proc.stderr)
    assert ("is a variant wheel (label ob), and variants are off (--no-variants). Drop --no-variants to "
            "install it") in proc.stderr, proc.stderr
    assert proc.stderr.count(wheel.name) == 1, proc.stderr


def test_a_program_running_pip_twice_keeps_no_options_of_the_first_run(variant_venv, publish, index, tmp_path):
    """Options reach the build environments' child pips through the environment;
    they must not outlive the command (an embedding program, its own children)."""
    publish("pkg", "1.0", DATA)
    script = (
        "import json, os, sys, subprocess\n"
        "from pip._internal.cli.main import main\n"
        "def pick(*args):\n"
        "    main(['install', '--dry-run', '-q', '--report', sys.argv[1], *sys.argv[2:], *args, 'pkg'])\n"
        "    return json.load(open(sys.argv[1]))['install'][0]['download_info']['url'].rsplit('/', 1)[1]\n"
        "print(pick('--variant', 'pkg=mkl'))\n"
        "print(pick())\n"
        "print(pick('--no-variants'))\n"
        "print(pick())\n"
        "print(sorted(k for k in os.environ if k.startswith('PIP_VARIANT_')\n"
        "             or k in ('PIP_VARIANT', 'PIP_NO_VARIANTS', 'PIP_ALLOW_VARIANT_PLUGIN')))\n"
    )
    proc = run_python(variant_venv, "-c", script, tmp_path / "report.json", *index_args(index))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:5] == [vfile("mkl"), vfile("ob"), PLAIN, vfile("ob"), "[]"], proc.stdout + proc.stderr


def test_pip_lock_says_what_it_leaves_out(variant_venv, publish, index, tmp_path):
    if tuple(int(x) for x in re.findall(r"\d+", variant_venv.pip_version)[:2]) < (25, 1):
        pytest.skip("pip lock: pip 25.1+")
    publish("pkg", "1.0", None)
    publish("pkg", "2.0", variants_json("pkg", "2.0", namespaces=["blas_lapack"],
                                        providers={"blas_lapack": static_provider({"library": ["openblas"]})},
                                        variants={"ob": {"blas_lapack": {"library": ["openblas"]}}}),
            plain=False)
    proc = run_pip(variant_venv, "lock", *index_args(index), "-o", tmp_path / "pylock.toml", "pkg")
    assert ("pkg 2.0 has only variant wheels for this platform, and variants are off (pip lock cannot record "
            "wheel variants yet): pip takes pkg 1.0 instead") in " ".join(proc.stderr.split()), proc.stderr
    assert 'version = "1.0"' in (tmp_path / "pylock.toml").read_text()
    assert_clean(proc.stderr)


def test_variant_for_a_project_a_pylock_locks_is_a_warning(variant_venv, publish, index, tmp_path):
    """pip 26.3 installs from a pylock.toml without reading the index: the one
    locked file is not "a project without that label"."""
    if tuple(int(x) for x in re.findall(r"\d+", variant_venv.pip_version)[:2]) < (26, 3):
        pytest.skip("installing from pylock.toml: pip 26.3+")
    publish("pkg", "1.0", variants_json("pkg", "1.0", namespaces=["blas_lapack"],
                                        providers={"blas_lapack": static_provider({"library": ["openblas"]})},
                                        variants={"ob": {"blas_lapack": {"library": ["openblas"]}}}))
    lock = tmp_path / "pylock.toml"
    run_pip(variant_venv, "lock", *index_args(index), "-o", lock, "pkg")
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(index), "-r", lock,
                   env={"PIP_VARIANT": "pkg=ob"})
    assert "Would install pkg-1.0" in proc.stdout, proc.stdout + proc.stderr
    assert f'PIP_VARIANT="pkg=ob" does not apply to pkg: {lock} locks it to pkg-1.0-py3-none-any.whl' in \
        " ".join(proc.stderr.split()), proc.stderr
    assert_clean(proc.stderr)


def test_pip_conf_no_variants(variant_venv, release, index, tmp_path):
    conf = tmp_path / "pip.conf"
    conf.write_text("[install]\nno-variants = true\n")
    chosen, _, stderr = pick(variant_venv, index, "pkg", PIP_CONFIG_FILE=str(conf))
    assert chosen == PLAIN, stderr
    assert "pip-variants" not in stderr, stderr
    # A build asked for by name with variants off is never dropped silently.
    conf.write_text("[install]\nno-variants = true\nvariant = pkg=mkl\n")
    chosen, _, stderr = pick(variant_venv, index, "pkg", PIP_CONFIG_FILE=str(conf))
    assert chosen == PLAIN, stderr
    assert ("variants are off (no-variants in pip's configuration), so variant = pkg=mkl (pip's configuration) "
            "is ignored: pip takes no variant wheel") in " ".join(stderr.split()), stderr


@pytest.mark.parametrize("how", ["option", "env"])
def test_variant_forces_a_supported_label(variant_venv, release, index, how):
    args, env = (
        (["--variant", "pkg=mkl"], {}) if how == "option" else ([], {"PIP_VARIANT": "pkg=mkl"})
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg", *args, **env)
    assert chosen == vfile("mkl"), stderr


def test_exclude_disable_and_priorities_reorder_among_supported_builds(variant_venv, release, index, tmp_path):
    # ob is the release's first choice; each option moves pip off it, never onto the unsupported acc
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--variant-exclude", "pkg=ob")
    assert chosen == vfile("mkl"), stderr
    chosen, _, stderr = pick(variant_venv, index, "pkg", PIP_VARIANT_EXCLUDE="pkg=ob pkg=mkl")
    assert chosen == PLAIN, stderr
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--variant-disable", "blas_lapack")
    # asked for: no warning of its own (the reasons in the fallback line still say it)
    assert chosen == PLAIN and "pip-variants: variant namespace 'blas_lapack' disabled" not in stderr, stderr
    config = tmp_path / "variants.toml"
    config.write_text('property_priorities.blas_lapack.library = ["accelerate", "mkl"]\n')
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--variant-config", str(config))
    assert chosen == vfile("mkl"), stderr
    config.write_text('property_priorities.blas_lapack.library = "mkl"\n')
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--variant-config", str(config), check=False)
    assert chosen is None and f"variant config {config}: property_priorities.blas_lapack.library" in stderr
    assert_clean(stderr)


def test_variant_forces_an_unsupported_label_with_a_warning(variant_venv, release, index):
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--variant", "pkg=acc")
    assert chosen == vfile("acc"), stderr
    assert any(
        "WARNING" in line and ("accelerate" in line or "acc" in line)
        for line in stderr.splitlines()
    ), stderr
    assert_clean(stderr)


@pytest.mark.parametrize("how", ["option", "env"])
def test_variant_with_an_unknown_label_is_a_clear_error(variant_venv, release, index, how):
    args, env = (
        (["--variant", "pkg=nosuch"], {})
        if how == "option"
        else ([], {"PIP_VARIANT": "pkg=nosuch"})
    )
    proc = run_pip(
        variant_venv,
        "install",
        "--dry-run",
        "--index-url",
        index.url,
        *args,
        "pkg",
        env=env,
        check=False,
    )
    assert proc.returncode != 0
    assert_clean(proc.stderr)
    assert "nosuch" in proc.stderr, proc.stderr
    # the message names the request as the user made it: the variable may be long forgotten
    asked = "--variant pkg=nosuch" if how == "option" else 'PIP_VARIANT="pkg=nosuch"'
    assert f"requested with {asked}" in proc.stderr, proc.stderr
    for label in ("ob", "mkl", "acc"):
        assert label in proc.stderr, proc.stderr


def test_variant_naming_a_misspelt_project_is_said(variant_venv, release, index):
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--variant", "pgk=mkl")
    assert chosen == vfile("ob"), stderr
    assert "--variant pgk=mkl was not applied: no project named 'pgk'" in stderr, stderr
    assert "did you mean 'pkg'" in stderr, stderr
    # PIP_VARIANT may name projects another install needs: no word about those.
    chosen, _, stderr = pick(variant_venv, index, "pkg", PIP_VARIANT="torch=cu128")
    assert chosen == vfile("ob"), stderr
    assert "not applied" not in stderr, stderr
    # ... but -v (pip's VERBOSE level) says it, as docs/troubleshooting.md promises
    proc = run_pip(variant_venv, "install", "--dry-run", "-v", *index_args(index), "pkg",
                   env={"PIP_VARIANT": "torch=cu128"})
    assert ("PIP_VARIANT=\"torch=cu128\" was not applied: no project named 'torch' is part of this install"
            in proc.stdout), proc.stdout


def test_namespace_and_exclude_options_naming_nothing_are_said(variant_venv, release, index):
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--variant-disable", "blas_lapak",
                             "--variant-enable", "blas_lapcak", "--variant-exclude", "pgk=ob")
    assert chosen == vfile("ob"), stderr
    assert ("--variant-disable blas_lapak changed nothing: no release of this install has a namespace "
            "'blas_lapak'; did you mean 'blas_lapack'?") in stderr, stderr
    assert "--variant-enable blas_lapcak changed nothing" in stderr, stderr
    assert ("--variant-exclude pgk=... excluded nothing: no project named 'pgk' is part of this install; "
            "did you mean 'pkg'?") in stderr, stderr
    # far from anything: pip.conf may name what another install needs
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--variant-disable", "nvidia")
    assert chosen == vfile("ob") and "changed nothing" not in stderr, stderr
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(index), "pkg", "--variant-disable",
                   "BLAS_LAPACK", check=False)
    assert proc.returncode != 0
    assert ("invalid --variant-disable value 'BLAS_LAPACK': a variant namespace has only the characters a-z, 0-9 "
            "and '_'; did you mean 'blas_lapack'?") in proc.stderr, proc.stderr


def test_a_build_pip_keeps_installed_is_said(fresh_venv, release, index):
    run_pip(fresh_venv, "install", *index_args(index), "pkg")
    proc = run_pip(fresh_venv, "install", *index_args(index), "--variant", "pkg=mkl", "pkg")
    assert "already satisfied" in proc.stdout, proc.stdout
    assert "--variant pkg=mkl was not applied: pip kept the installed pkg 1.0 (variant ob)" in proc.stderr, proc.stderr
    assert "run the same pip command for pkg==1.0 with --force-reinstall --no-deps" in proc.stderr
    assert_clean(proc.stderr)
    # -U looks at the index, and pip still keeps the installed build of the same version
    proc = run_pip(fresh_venv, "install", "-U", *index_args(index), "--variant", "pkg=mkl", "pkg")
    assert "pip kept the installed pkg 1.0 (variant ob)" in proc.stderr, proc.stderr
    # a dependency pip keeps, and a name only in a constraints file, are no typos
    constraints = fresh_venv.path / "c.txt"
    constraints.write_text("pkg==1.0\n")
    proc = run_pip(fresh_venv, "install", "--dry-run", *index_args(index), "-c", constraints,
                   "--variant", "pkg=mkl", "--variant", "pkgs=x", "pip")
    assert "not applied" not in proc.stderr, proc.stderr
    proc = run_pip(fresh_venv, "install", *index_args(index), "--variant", "pkg=ob", "pkg")
    assert "not applied" not in proc.stderr, proc.stderr  # the build asked for is there
    proc = run_pip(fresh_venv, "install", *index_args(index), "--variant", "pkg=mkl", "--force-reinstall",
                   "--no-deps", "pkg")
    assert "not applied" not in proc.stderr, proc.stderr
    proc = run_pip(fresh_venv, "show", "pkg")
    assert "mkl" in proc.stdout, proc.stdout
    # Without --variant: -U looks, chooses ob for this machine, and pip keeps mkl
    proc = run_pip(fresh_venv, "install", "-U", *index_args(index), "pkg")
    assert "pip kept the installed pkg 1.0 (variant mkl), though variant ob is the one selected" in proc.stderr, (
        proc.stderr)
    assert_clean(proc.stderr)
    proc = run_pip(fresh_venv, "install", *index_args(index), "pkg")  # pip does not look: nothing to say
    assert "pip kept" not in proc.stderr, proc.stderr


def test_the_legacy_resolver_says_which_build_it_kept(fresh_venv, release, index):
    legacy = ("--use-deprecated", "legacy-resolver")
    run_pip(fresh_venv, "install", *index_args(index), "--variant", "pkg=mkl", "pkg")
    proc = run_pip(fresh_venv, "install", *legacy, "-U", *index_args(index), "pkg")
    assert "pip kept the installed pkg 1.0 (variant mkl), though variant ob is the one selected" in proc.stderr, (
        proc.stderr)
    proc = run_pip(fresh_venv, "install", *legacy, "-U", *index_args(index), "--variant", "pgk=ob", "pkg")
    assert "did you mean 'pkg'" in proc.stderr, proc.stderr
    proc = run_pip(fresh_venv, "install", *legacy, *index_args(index), "--force-reinstall", "--no-deps", "pkg")
    assert "pip kept" not in proc.stderr, proc.stderr
    assert "ob" in run_pip(fresh_venv, "show", "pkg").stdout


def _hash_pinned(release, tmp_path, *labels: str):
    """A requirements file pinning pkg 1.0 to the wheels of ``labels`` (``plain``: the
    non-variant wheel), as pip-compile --generate-hashes writes it."""
    digests = {}
    for path in release:
        if path.name.endswith(".whl"):
            parts = path.name[:-4].split("-")
            digests[parts[-1] if len(parts) == 6 else "plain"] = hashlib.sha256(path.read_bytes()).hexdigest()
    req = tmp_path / "requirements.txt"
    req.write_text("pkg==1.0 " + " ".join(f"--hash=sha256:{digests[label]}" for label in labels) + "\n")
    return req


@pytest.mark.parametrize(
    "pinned, expected",
    [
        (("ob", "mkl", "acc", "plain"), vfile("ob")),  # every build allowed: the usual choice
        (("mkl", "acc"), vfile("mkl")),  # the best of the allowed ones
        (("mkl",), vfile("mkl")),
        (("plain",), PLAIN),  # a lock file made without variants keeps working
    ],
)
def test_hash_checking_mode_chooses_among_the_pinned_wheels(variant_venv, release, index, tmp_path, pinned, expected):
    req = _hash_pinned(release, tmp_path, *pinned)
    chosen, _, stderr = pick(variant_venv, index, req, "--require-hashes", "-r")
    assert chosen == expected, stderr
    assert_clean(stderr)


@pytest.mark.parametrize("pinned, expected", [(("plain",), PLAIN), (("mkl",), vfile("mkl")),
                                              (("mkl", "plain"), vfile("mkl"))])
def test_hash_checking_mode_from_a_folder_whose_links_carry_no_hashes(
    variant_venv, release, tmp_path, pinned, expected
):
    """pip keeps every file of a --find-links folder (no digests to compare):
    pip-variants hashes the variant wheels itself, so an unpinned one is never
    chosen and then refused after the download."""
    req = _hash_pinned(release, tmp_path, *pinned)
    chosen, _, stderr = pick(variant_venv, release[0].parent, req, "--require-hashes", "-r")
    assert chosen == expected, stderr
    assert_clean(stderr)
    assert "no variant fits" not in stderr, stderr  # ob and mkl fit; the pins set them aside


@pytest.mark.parametrize("pinned, args, expected", [
    (("plain",), (), PLAIN),  # a lock file made without variants: the variants stand aside
    (("ob", "mkl"), (), vfile("ob")),  # more pins than plain files: variants are pinned too
    (("mkl",), ("--variant", "pkg=mkl"), vfile("mkl")),  # a forced label always stays
])
def test_hash_checking_mode_on_an_index_without_hashes(
    variant_venv, publish, index, tmp_path, pinned, args, expected
):
    """A remote link without a digest cannot be checked before the download:
    whether its variants stay depends on what the pins can name; pip's own
    check after the download has the last word, as for stock pip."""
    release = publish("pkg", "1.0", DATA, hash=False)
    req = _hash_pinned(release, tmp_path, *pinned)
    chosen, _, stderr = pick(variant_venv, index, req, *args, "--require-hashes", "-r")
    assert chosen == expected, stderr
    assert_clean(stderr)
    # a warning only where the pins must name variant wheels; else an info line (stdout)
    assert ("lists no hashes for its variant wheels" in stderr) is (pinned == ("ob", "mkl")), stderr


def test_hash_pins_an_index_cannot_check_say_how_to_name_the_build(variant_venv, publish, index, tmp_path):
    """Only mkl pinned, no digests on the index: no way to know before the
    download that mkl is the pinned one. pip's hash error follows a line that
    says what to do, and doing it works."""
    release = publish("pkg", "1.0", DATA, hash=False)
    req = _hash_pinned(release, tmp_path, "mkl")
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(index), "--require-hashes", "-r", req,
                   check=False)
    assert proc.returncode != 0
    assert_clean(proc.stderr)
    assert ("pkg: the index lists no hashes for its variant wheels and your --hash pins are no more than its "
            "non-variant files" in proc.stdout and "name the pinned build: --variant pkg=LABEL" in proc.stdout), (
        proc.stdout)
    chosen, _, stderr = pick(variant_venv, index, req, "--variant", "pkg=mkl", "--require-hashes", "-r")
    assert chosen == vfile("mkl"), stderr


def test_variant_of_an_unpinned_label_says_hashes_decide(variant_venv, release, index, tmp_path):
    req = _hash_pinned(release, tmp_path, "ob")
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(index), "--variant", "pkg=mkl",
                   "--require-hashes", "-r", req, check=False)
    assert proc.returncode != 0
    assert_clean(proc.stderr)
    assert "no variant labelled 'mkl'" in proc.stderr, proc.stderr
    assert "in hash-checking mode, wheels whose hashes are not pinned are not available" in proc.stderr, \
        proc.stderr


def test_hash_checking_mode_with_only_an_unsupported_build(variant_venv, release, index, tmp_path):
    req = _hash_pinned(release, tmp_path, "acc")
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(index), "--require-hashes", "-r", req, check=False)
    assert proc.returncode != 0
    assert_clean(proc.stderr)
    assert "accelerate" in proc.stderr and "pip-variants explain pkg" in proc.stderr, proc.stderr
    assert f"Run 'pip-variants explain pkg --index-url {index.url}' for details" in proc.stderr  # where pip looked
    # The builds that fit were set aside by the pins, not by this machine: the warning says so.
    assert ("In hash-checking mode only the files your --hash pins name are available (variant acc); "
            "to install that build anyway: --variant pkg=acc.") in " ".join(proc.stderr.split()), proc.stderr
    # Forcing the pinned build is the way to install it anyway.
    chosen, _, stderr = pick(variant_venv, index, req, "--variant", "pkg=acc", "--require-hashes", "-r")
    assert chosen == vfile("acc"), stderr


def _pip_compile(venv, index, tmp_path):
    """``pip-compile --generate-hashes`` of ``pkg`` in ``venv``: the lock file, or
    ``None`` with pip-compile's output when it fails."""
    req_in = tmp_path / f"{venv.path.name}.in"
    req_in.write_text("pkg\n")
    lock = tmp_path / f"{venv.path.name}.txt"
    proc = run_python(
        venv, "-m", "piptools", "compile", "--quiet", "--no-header", "--generate-hashes",
        "--no-emit-index-url", "--index-url", index.url, "--output-file", lock, req_in,
        timeout=300,
    )
    return (lock.read_text() if proc.returncode == 0 else None), proc.stdout + proc.stderr


def test_pip_compile_locks_every_build_and_pip_installs_the_best(
    fresh_venv, stock_venv, release, index, tmp_path
):
    """pip-tools drives pip's internals itself. With pip-variants in the same
    environment it still resolves, and --generate-hashes pins every build of the
    release (variant and plain wheels alike), so one lock file installs the best
    build on each machine."""
    stock = clone_venv(stock_venv, tmp_path / "stock-tools")
    try:
        for venv in (fresh_venv, stock):
            install_from_registry(venv, "pip-tools")
    except HarnessError as exc:
        harness_failure(exc, "install pip-tools")
    stock_lock, output = _pip_compile(stock, index, tmp_path)
    if stock_lock is None:
        pytest.skip(f"pip-tools does not work with stock pip {stock.pip_version} either:\n{output[-2000:]}")
    lock, output = _pip_compile(fresh_venv, index, tmp_path)
    assert lock is not None, output
    assert_clean(output)
    digests = {hashlib.sha256(p.read_bytes()).hexdigest() for p in release if p.name.endswith(".whl")}
    assert set(re.findall(r"--hash=sha256:([0-9a-f]{64})", lock)) == digests, lock
    req = tmp_path / "requirements.txt"
    req.write_text(lock)
    chosen, _, stderr = pick(fresh_venv, index, req, "--require-hashes", "-r")
    assert chosen == vfile("ob"), stderr


GPU_DATA = variants_json(
    "pkg",
    "1.0",
    namespaces=["nvidia"],
    providers={"nvidia": NVIDIA_PROVIDER},
    variants={
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["90_real"]}},
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
    },
)
LOWER = ["12.8", "12.7", "12.6", "12.5", "12.4", "12.3", "12.2", "12.1", "12.0", "12"]
PROFILES = {
    # The shape the project brief gives.
    "flat": {"nvidia": {"cuda_version_lower_bound": LOWER, "sm_arch": ["90_real", "90_virtual"]}},
    # The shape of a providers entry (PROVIDERS.md §4.3, JSON form).
    "providers-entry": {
        "nvidia": {
            "feature-order": ["cuda_version_lower_bound", "sm_arch"],
            "static-properties": {
                "cuda_version_lower_bound": LOWER,
                "sm_arch": ["90_real", "90_virtual"],
            },
        }
    },
}


@pytest.mark.parametrize("shape", sorted(PROFILES))
@pytest.mark.parametrize("how", ["option", "env"])
def test_variant_profile_selects_the_gpu_build_without_a_gpu(
    variant_venv, publish, index, tmp_path, shape, how
):
    if os.path.exists("/proc/driver/nvidia/version"):
        pytest.skip("a real NVIDIA driver is present")
    publish("pkg", "1.0", GPU_DATA)
    assert pick(variant_venv, index, "pkg")[0] == PLAIN  # no GPU, no override
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps(PROFILES[shape]))
    args, env = (
        (["--variant-profile", str(profile)], {})
        if how == "option"
        else ([], {"PIP_VARIANT_PROFILE": str(profile)})
    )
    chosen, _, stderr = pick(variant_venv, index, "pkg", *args, **env)
    assert chosen == vfile("cu128"), stderr


CROSS_TARGET = ("--platform", "manylinux_2_28_aarch64", "--python-version", "3.12", "--only-binary=:all:")


def test_download_for_another_machine_without_a_profile_is_stock(variant_venv, publish, index, dist, tmp_path):
    """``pip download --platform ...`` (a Docker or CI builder filling a wheelhouse for
    other machines): this machine's providers would answer for the wrong machine,
    so variants are off, with one warning that says what to do."""
    publish("pkg", "1.0", GPU_DATA)
    out = tmp_path / "wheelhouse"
    proc = run_pip(variant_venv, "download", "--no-deps", "-d", out, *index_args(index), *CROSS_TARGET, "pkg",
                   env={"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8",
                        "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0"})
    assert_clean(proc.stderr)
    assert sorted(p.name for p in out.iterdir()) == [PLAIN]
    assert proc.stderr.count("--variant-profile") == 1, proc.stderr
    assert "--platform, --python-version, --only-binary" not in proc.stderr  # only what selects a machine
    # the same from a find-links folder (pip 24.0+ drops its variant wheels while scanning it)
    house = tmp_path / "house"
    run_pip(variant_venv, "download", "--no-deps", "-d", house, *index_args(index), "pkg", "--variant", "pkg=cu128")
    offline = run_pip(variant_venv, "download", "--no-deps", "-d", tmp_path / "again", "--no-index",
                      "--find-links", house, *CROSS_TARGET, "pkg==1.0", check=False)
    assert offline.stderr.count("--variant-profile FILE") == 1, offline.stderr
    # another project of that folder, without variants: pkg's variant wheel is no concern of its download
    shutil.copy(build_wheel(dist, "plainpkg", "1.0"), house)
    plain = run_pip(variant_venv, "download", "--no-deps", "-d", tmp_path / "plain", "--no-index",
                    "--find-links", house, *CROSS_TARGET, "plainpkg")
    assert "pip-variants" not in plain.stderr, plain.stderr


def test_a_variant_wheel_named_directly_for_another_machine_says_how(variant_venv, publish, index, tmp_path):
    """A file path is no index link to drop quietly: pip refuses its name, and the way out is said."""
    publish("pkg", "1.0", GPU_DATA)
    wheel = tmp_path / vfile("cu128")
    run_pip(variant_venv, "download", "--no-deps", "-d", tmp_path, *index_args(index), "pkg", "--variant", "pkg=cu128")
    proc = run_pip(variant_venv, "download", "--no-deps", "-d", tmp_path / "out", "--no-index", *CROSS_TARGET,
                   str(wheel), check=False)
    assert proc.returncode != 0
    assert_clean(proc.stderr)
    text = " ".join(proc.stderr.split())
    assert ("is a variant wheel (label cu128), and --platform, --python-version select for another machine, where "
            "variant wheels are ignored. Pass --variant pkg=cu128 (or a --variant-profile FILE") in text, proc.stderr
    proc = run_pip(variant_venv, "download", "--no-deps", "-d", tmp_path / "out", "--no-index", *CROSS_TARGET,
                   "--variant", "pkg=cu128", str(wheel))
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [vfile("cu128"), "pkg-1.0-variants.json"]


def test_download_for_another_machine_says_which_newer_release_it_leaves_out(variant_venv, publish, index, tmp_path):
    """BC-1 for a cross-target download: a newest release with only variant
    wheels is named, and the way to select one for that machine."""
    one = publish("pkg", "1.0", None)
    two = publish("pkg", "2.0", variants_json("pkg", "2.0", namespaces=["blas_lapack"],
                                              providers={"blas_lapack": static_provider({"library": ["openblas"]})},
                                              variants={"ob": {"blas_lapack": {"library": ["openblas"]}}}),
                  plain=False)
    said = ("pkg 2.0 has only variant wheels for the target platform, and variant wheels are ignored (--platform, "
            "--python-version select for another machine): pip takes pkg 1.0 instead.")
    folder = tmp_path / "wheelhouse"
    folder.mkdir()
    for path in [*one, *two]:
        shutil.copy(path, folder)
    for source in (index_args(index), ("--no-index", "--find-links", folder)):
        out = tmp_path / f"out{len(source)}"
        proc = run_pip(variant_venv, "download", "--no-deps", "-d", out, *source, *CROSS_TARGET, "pkg")
        assert_clean(proc.stderr)
        assert sorted(p.name for p in out.iterdir()) == [PLAIN], proc.stderr
        assert " ".join(proc.stderr.split()).count(said) == 1, proc.stderr
        assert proc.stderr.count("--variant-profile FILE") == 1, proc.stderr  # the way there: said once
    # --variant for another project: pkg stays stock, and the same is said
    out = tmp_path / "out-other"
    proc = run_pip(variant_venv, "download", "--no-deps", "-d", out, *index_args(index), *CROSS_TARGET,
                   "--variant", "other=cu128", "pkg")
    assert sorted(p.name for p in out.iterdir()) == [PLAIN], proc.stderr
    assert " ".join(proc.stderr.split()).count(said) == 1, proc.stderr


def test_download_for_another_machine_of_a_release_without_variants_is_silent(variant_venv, index, dist, tmp_path):
    # stock pip says nothing here: neither does pip-variants
    index.add_file("plainpkg", build_wheel(dist, "plainpkg", "1.0"))
    proc = run_pip(variant_venv, "download", "--no-deps", "-d", tmp_path / "out", *index_args(index),
                   *CROSS_TARGET, "plainpkg")
    assert "pip-variants" not in proc.stderr, proc.stderr


def test_download_for_another_machine_takes_the_builds_variant_names(variant_venv, publish, index, tmp_path):
    """``--variant`` states the build for the other machine: it is honoured with
    ``--platform``; a release it does not name stays stock (its plain wheel)."""
    publish("pkg", "1.0", GPU_DATA)
    other = dict(GPU_DATA, variants={"cu128": GPU_DATA["variants"]["cu128"], "null": {}})
    publish("other", "1.0", other)
    out = tmp_path / "wheelhouse"
    proc = run_pip(variant_venv, "download", "--no-deps", "-d", out, *index_args(index), *CROSS_TARGET,
                   "--variant", "pkg=cu126", "pkg", "other", env={"NV_VARIANT_PROVIDER_FORCE_SM_ARCH": None})
    assert_clean(proc.stderr)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [vfile("cu126"), "pkg-1.0-variants.json", "other-1.0-py3-none-any.whl"]), proc.stderr
    assert proc.stderr.count("--variant-profile") == 1 and "(pkg=cu126)" in proc.stderr, proc.stderr
    assert "does not support" not in proc.stderr and "says nothing" not in proc.stderr, proc.stderr
    assert not index.requested("other-1.0-variants.json")  # a stock project: its file is not wanted


def test_download_for_another_machine_with_its_profile(variant_venv, publish, index, tmp_path):
    publish("pkg", "1.0", GPU_DATA)
    profile = tmp_path / "gpu-node.json"
    profile.write_text(json.dumps(PROFILES["flat"]))
    out = tmp_path / "wheelhouse"
    proc = run_pip(variant_venv, "download", "--no-deps", "-d", out, *index_args(index), *CROSS_TARGET,
                   "--variant-profile", profile, "pkg")
    assert_clean(proc.stderr)
    assert sorted(p.name for p in out.iterdir()) == sorted([vfile("cu128"), "pkg-1.0-variants.json"])


def test_download_keeps_the_index_file_for_offline_installs(variant_venv, release, index, tmp_path):
    downloads = tmp_path / "downloads"
    run_pip(variant_venv, "download", "--no-deps", "--index-url", index.url, "-d", downloads, "pkg")
    saved = sorted(p.name for p in downloads.iterdir())
    assert saved == sorted([vfile("ob"), variants_json_filename("pkg", "1.0")])
    assert json.loads((downloads / variants_json_filename("pkg", "1.0")).read_text()) == DATA
    chosen, _, stderr = pick(variant_venv, downloads, "pkg")
    assert chosen == vfile("ob"), stderr


@pytest.mark.parametrize("command", [
    "download",
    # the same preparer hook (H10) as download: once is enough
    pytest.param("wheel", marks=newest_pip_only("pip wheel saves through the same hook as pip download")),
])
def test_a_wheelhouse_for_several_machines_keeps_every_build_installable(
        variant_venv, publish, index, tmp_path, command):
    """One folder filled for two machines: the index's file for one, then a local
    wheel file (whose own file lists only its label) for the other. The folder's
    index file must still describe both, or the first machine's offline install fails."""
    paths = publish("pkg", "1.0", GPU_DATA)
    sm75 = {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "7.5"}
    h100 = dict(sm75, NV_VARIANT_PROVIDER_FORCE_SM_ARCH="9.0")
    house = tmp_path / "wheelhouse"
    run_pip(variant_venv, "download", "--no-deps", "-d", house, *index_args(index), "pkg", env=sm75)
    cu128 = next(p for p in paths if p.name == vfile("cu128"))
    flag = "-d" if command == "download" else "-w"
    proc = run_pip(variant_venv, command, "--no-deps", flag, house, "--no-index", cu128, env=h100)
    assert_clean(proc.stderr)
    listed = json.loads((house / variants_json_filename("pkg", "1.0")).read_text())
    assert sorted(listed["variants"]) == ["cu126", "cu128"]
    for env, label in ((sm75, "cu126"), (h100, "cu128")):
        chosen, _, stderr = pick(variant_venv, house, "pkg", "--no-index", **env)
        assert chosen == vfile(label), stderr


def test_reading_a_folders_index_file_leaves_no_file_open(variant_venv, dist):
    # -X dev reports every file left for the garbage collector to close (pip's
    # local adapter answers with an open file); stock pip leaves none here
    build_release(dist, "pkg", "1.0", DATA)
    proc = run_pip(variant_venv, "install", "--dry-run", "--no-index", "--find-links", dist, "pkg",
                   launcher=[variant_venv.python, "-X", "dev", "-m", "pip"])
    assert "ResourceWarning" not in proc.stderr, proc.stderr
    assert "pkg 1.0: variant ob" in proc.stdout + proc.stderr


def test_download_and_wheel_take_the_options(variant_venv, release, index, tmp_path):
    plain_dir, wheel_dir = tmp_path / "plain", tmp_path / "wheels"
    run_pip(
        variant_venv,
        "download",
        "--no-deps",
        "--no-variants",
        "--index-url",
        index.url,
        "-d",
        plain_dir,
        "pkg",
    )
    assert [p.name for p in plain_dir.iterdir()] == [PLAIN]
    run_pip(
        variant_venv,
        "wheel",
        "--no-deps",
        "--variant",
        "pkg=mkl",
        "--index-url",
        index.url,
        "-w",
        wheel_dir,
        "pkg",
    )
    assert vfile("mkl") in [p.name for p in wheel_dir.iterdir()]


def test_local_supported_variant_wheel_installs(variant_venv, dist, tmp_path):
    wheel = build_wheel(dist, "pkg", "1.0", label="ob", variant_json=DATA)
    chosen, _, stderr = pick(variant_venv, None, wheel)
    assert chosen == wheel.name, stderr
    target = tmp_path / "target"
    run_pip(variant_venv, "install", "--no-index", "--target", target, wheel)
    assert (target / "pkg" / "__init__.py").read_text().strip() == 'VARIANT = "ob"'
    assert (target / "pkg-1.0.dist-info" / "variant.json").is_file()


def test_local_unsupported_variant_wheel_is_a_clean_error(variant_venv, dist):
    wheel = build_wheel(dist, "pkg", "1.0", label="acc", variant_json=DATA)
    proc = run_pip(variant_venv, "install", "--dry-run", "--no-index", wheel, check=False)
    assert proc.returncode != 0
    assert_clean(proc.stderr)
    assert wheel.name in proc.stderr, proc.stderr
    assert "variant" in proc.stderr.lower(), proc.stderr


def test_a_constraint_naming_an_unsupported_build_says_why(variant_venv, release, index, tmp_path):
    # pip turns an unsupported constraint link into "no candidates" and reports a
    # bare conflict; the warning names the wheel, why, and the --variant way out
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(f"pkg @ {index.file_url('pkg', vfile('acc'))}\n")
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(index), "-c", constraints, "pkg",
                   check=False)
    assert proc.returncode != 0
    assert_clean(proc.stderr)
    assert (f"the constraint {index.file_url('pkg', vfile('acc'))} cannot be used: {vfile('acc')} is not a "
            "supported variant on this system") in proc.stderr, proc.stderr
    assert "add --variant pkg=acc" in proc.stderr
    assert proc.stderr.count("cannot be used") == 1
    forced = run_pip(variant_venv, "install", "--dry-run", *index_args(index), "-c", constraints, "pkg",
                     "--variant", "pkg=acc")
    assert vfile("acc") in forced.stdout + forced.stderr


def test_yanked_builds_that_fit_are_not_blamed_on_the_machine(variant_venv, release, index):
    for label in ("ob", "mkl"):
        index.yank("pkg", vfile(label), "broken BLAS")
    chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == PLAIN, stderr
    assert ("the variant wheels of pkg 1.0 that fit this machine are yanked (broken BLAS); installing a "
            "non-variant wheel instead. To install the yanked build anyway: 'pkg==1.0' --variant pkg=ob") in stderr, \
        stderr
    assert "no variant fits" not in stderr
    chosen, _, stderr = pick(variant_venv, index, "pkg==1.0", "--variant", "pkg=ob")  # the way out it names
    assert chosen == vfile("ob"), stderr


def test_variant_naming_a_yanked_build_says_it_is_yanked(variant_venv, release, index):
    index.yank("pkg", vfile("mkl"), "broken BLAS")
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(index), "pkg", "--variant", "pkg=mkl",
                   check=False)
    assert_clean(proc.stderr)
    assert ("the mkl wheel of pkg 1.0 (--variant pkg=mkl) is yanked (broken BLAS); pip installs a yanked "
            "file only when its version is pinned: pkg==1.0") in proc.stderr, proc.stderr
    chosen, _, stderr = pick(variant_venv, index, "pkg==1.0", "--variant", "pkg=mkl")
    assert chosen == vfile("mkl"), stderr
    assert "pip installs a yanked file only" not in stderr, stderr  # pinned: pip's own warning is enough


@pytest.mark.parametrize("how", ["url", "name @ url"])
def test_a_url_without_a_release_file_is_checked_by_the_wheels_own_variant_json(
        variant_venv, release, index, tmp_path, how):
    # A CDN keeps every file in a folder of its own: no variants.json beside the wheel
    index.remove("pkg", variants_json_filename("pkg", "1.0"))

    def arg(label: str) -> str:
        url = index.file_url("pkg", vfile(label))
        return url if how == "url" else f"pkg @ {url}"

    refused = run_pip(variant_venv, "install", "--dry-run", *index_args(index), arg("acc"), check=False)
    assert refused.returncode != 0, refused.stdout
    assert_clean(refused.stderr)
    assert (f"{vfile('acc')} is not a supported variant on this system: needs blas_lapack :: library :: "
            "accelerate") in refused.stderr, refused.stderr
    assert "add --variant pkg=acc" in refused.stderr
    target = tmp_path / "target"
    taken = run_pip(variant_venv, "install", "--target", target, *index_args(index), arg("ob"))
    assert (target / "pkg" / "__init__.py").read_text().strip() == 'VARIANT = "ob"'
    assert "pkg 1.0: variant ob (blas_lapack :: library :: openblas)" in taken.stdout + taken.stderr
    assert "cannot check" not in taken.stderr, taken.stderr
    forced = run_pip(variant_venv, "install", "--dry-run", *index_args(index), arg("acc"), "--variant", "pkg=acc")
    assert forced.stderr.count("variant acc was chosen with --variant, but this machine does not support it") == 1, \
        forced.stderr


def test_a_url_of_a_labelled_wheel_without_variant_json_is_refused(variant_venv, index, dist):
    wheel = build_wheel(dist, "pkg", "1.0", filename=vfile("ob"))  # a label, no .dist-info/variant.json
    index.add_file("pkg", wheel)
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(index), index.file_url("pkg", wheel.name),
                   check=False)
    assert proc.returncode != 0
    assert_clean(proc.stderr)
    assert (f"{index.file_url('pkg', wheel.name)} is not a valid variant wheel: "
            "variant wheel has no *.dist-info/variant.json") in proc.stderr, proc.stderr


@pytest.mark.parametrize("how", ["requirement", "constraint"])
def test_variant_forcing_a_url_of_an_unsupported_build_warns_once(variant_venv, release, index, tmp_path, how):
    url = index.file_url("pkg", vfile("acc"))
    if how == "requirement":
        args = [url]
    else:
        (tmp_path / "c.txt").write_text(f"pkg @ {url}\n")
        args = ["-c", tmp_path / "c.txt", "pkg"]
    proc = run_pip(variant_venv, "install", "--dry-run", *index_args(index), *args, "--variant", "pkg=acc")
    assert_clean(proc.stderr)
    assert proc.stderr.count("variant acc was chosen with --variant, but this machine does not support it") == 1, \
        proc.stderr
