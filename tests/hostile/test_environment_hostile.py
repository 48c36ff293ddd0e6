"""Hostile environments: concurrency, broken caches, interruptions, half removals.

* several pips selecting at once with one shared ``PIP_VARIANTS_CACHE_DIR``;
* a cache dir that is corrupted, a file, a symlink trap, or read-only;
* detection interrupted mid-write (SIGKILL at the worst moment; library level)
  and a pip run interrupted with Ctrl-C while a plugin runs (nothing left
  running, no traceback);
* ``pip-variants activate`` / ``deactivate`` on a read-only site-packages;
* ``pip uninstall -y pip-variants`` (pip keeps working; reinstalling works);
* the ``.pth`` file left behind while the package (or the start-up shim
  module it imports) is gone or broken: Python still starts silently.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from pip_variants.providers import cache as pv_cache
from pip_variants.providers.base import FeatureConfig
from pip_variants.providers.isolated import isolated_plugin_dir
from pip_variants.providers.plugins import run_plugins
from support.venvs import REPO_ROOT, clone_venv, default_sigint, pick, run_pip, run_python, scrubbed_env
from support.wheels import BLAS_RELEASE, NVIDIA_PROVIDER, variants_json

PLAIN = "pkg-1.0-py3-none-any.whl"
BEST = "pkg-1.0-py3-none-any-ob.whl"
FORCE_CUDA = "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION"

NV_DATA = variants_json(
    "pkg",
    "1.0",
    namespaces=["nvidia"],
    providers={"nvidia": NVIDIA_PROVIDER},
    variants={
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"]}},
        "cu124": {"nvidia": {"cuda_version_lower_bound": ["12.4"]}},
        "cu12": {"nvidia": {"cuda_version_lower_bound": ["12"]}},
    },
)
BLAS_DATA = BLAS_RELEASE


def vfile(label: str) -> str:
    return f"pkg-1.0-py3-none-any-{label}.whl"


def assert_no_crash(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text
        assert "internal error" not in text, text


def leftovers(root: Path):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.tmp"))


# -- several pips at once ------------------------------------------------------------------


@pytest.mark.e2e
def test_three_concurrent_pips_share_one_cache_dir(variant_venv, publish, index, tmp_path):
    """Three ``pip install --target`` at once, one cache dir, three different
    (faked) drivers: each must get its own variant, and the cache must end up
    whole (one valid file, no temporary leftovers)."""
    publish("pkg", "1.0", NV_DATA)
    shared = tmp_path / "shared"
    jobs = {"12.8": "cu126", "12.4": "cu124", "12.1": "cu12"}
    procs = {}
    for driver in jobs:
        env = scrubbed_env(
            {
                FORCE_CUDA: driver,
                "PIP_CACHE_DIR": shared / "pip-cache",
                "PIP_VARIANTS_CACHE_DIR": shared / "variants-cache",
            },
            tmp=tmp_path / f"env-{driver}",
        )
        cmd = [
            variant_venv.python,
            "-m",
            "pip",
            "install",
            "--index-url",
            index.url,
            "--target",
            tmp_path / f"target-{driver}",
            "pkg",
        ]
        procs[driver] = subprocess.Popen(
            [str(c) for c in cmd],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    for driver, proc in procs.items():
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        assert_no_crash(err)
        installed = (tmp_path / f"target-{driver}" / "pkg" / "__init__.py").read_text().strip()
        assert installed == f'VARIANT = "{jobs[driver]}"', (driver, err)
    cache_root = shared / "variants-cache"
    assert leftovers(cache_root) == []
    for path in (cache_root / "providers").glob("*.json"):
        json.loads(path.read_text())  # whole, parseable
    # A fourth run reuses (or recomputes) the shared cache and still gets it right.
    chosen, _, stderr = pick(
        variant_venv, index, "pkg", PIP_VARIANTS_CACHE_DIR=str(cache_root), **{FORCE_CUDA: "12.4"}
    )
    assert chosen == vfile("cu124"), stderr


# -- a broken cache dir ----------------------------------------------------------------------


def _corrupt(kind: str, root: Path, tmp_path: Path) -> Path:
    """Make ``root`` (the PIP_VARIANTS_CACHE_DIR) hostile; returns the path to use."""
    providers = root / "providers"
    target = providers / "nvidia.json"
    if kind == "cache-dir-is-a-file":
        root.parent.mkdir(parents=True, exist_ok=True)
        root.write_bytes(b"not a directory")
        return root
    if kind == "providers-is-a-file":
        root.mkdir(parents=True)
        providers.write_bytes(b"not a directory")
        return root
    providers.mkdir(parents=True)
    if kind == "garbage":
        target.write_bytes(os.urandom(4096))
    elif kind == "truncated":
        target.write_text('{"key": "0123", "namespace": "nvidia", "configs": [{"name": "cuda_ver')
    elif kind == "right-key-wrong-types":
        # The right key for this machine and override, with nonsense configs.
        os.environ[FORCE_CUDA] = "12.4"
        try:
            from pip_variants.providers.nvidia import NvidiaProvider

            key = pv_cache.cache_key(NvidiaProvider())
        finally:
            del os.environ[FORCE_CUDA]
        target.write_text(json.dumps({"key": key, "namespace": "nvidia", "configs": [{"name": 5}]}))
    elif kind == "directory-instead-of-file":
        target.mkdir()
        (target / "inner").write_text("x")
    elif kind == "symlink-loop":
        target.symlink_to(target)
    elif kind == "symlink-to-a-victim":
        victim = tmp_path / "victim.txt"
        victim.write_text("precious")
        target.symlink_to(victim)
    else:
        raise AssertionError(kind)
    return root


CORRUPTIONS = [
    "garbage",
    "truncated",
    "right-key-wrong-types",
    "directory-instead-of-file",
    "symlink-loop",
    "symlink-to-a-victim",
    "providers-is-a-file",
    "cache-dir-is-a-file",
]


@pytest.mark.e2e
@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_corrupted_cache_is_ignored_silently(variant_venv, publish, index, tmp_path, kind):
    publish("pkg", "1.0", NV_DATA)
    cache_dir = _corrupt(kind, tmp_path / "variants-cache", tmp_path)
    chosen, _, stderr = pick(
        variant_venv, index, "pkg", PIP_VARIANTS_CACHE_DIR=str(cache_dir), **{FORCE_CUDA: "12.4"}
    )
    assert chosen == vfile("cu124"), stderr
    assert_no_crash(stderr)
    assert "WARNING" not in stderr, stderr  # the cache is an optimisation: silent
    if kind == "symlink-to-a-victim":
        assert (tmp_path / "victim.txt").read_text() == "precious"
    if cache_dir.is_dir():
        assert leftovers(cache_dir) == []


@pytest.mark.e2e
@pytest.mark.parametrize("populated", [False, True], ids=["empty", "populated"])
def test_read_only_cache_dir(variant_venv, publish, index, tmp_path, readonly, populated):
    publish("pkg", "1.0", NV_DATA)
    cache_dir = tmp_path / "variants-cache"
    (cache_dir / "providers").mkdir(parents=True)
    if populated:  # a cache written earlier, for another driver
        pick(
            variant_venv,
            index,
            "pkg",
            PIP_VARIANTS_CACHE_DIR=str(cache_dir),
            **{FORCE_CUDA: "12.8"},
        )
    before = sorted(p.name for p in (cache_dir / "providers").iterdir())
    with readonly([cache_dir, cache_dir / "providers"]) as prefix:
        chosen, _, stderr = pick(
            variant_venv,
            index,
            "pkg",
            PIP_VARIANTS_CACHE_DIR=str(cache_dir),
            launcher=[*prefix, variant_venv.python, "-m", "pip"],
            **{FORCE_CUDA: "12.4"},
        )
    assert chosen == vfile("cu124"), stderr
    assert_no_crash(stderr)
    assert "WARNING" not in stderr, stderr
    assert sorted(p.name for p in (cache_dir / "providers").iterdir()) == before


# -- interrupted detection (library level) ------------------------------------------------


class _SlowProvider:
    namespace = "fake_ns"
    packages = ("fake",)
    plugin_apis = ("fake:Plugin",)

    def __init__(self, value: str) -> None:
        self.value = value

    def cache_inputs(self):
        return {"value": self.value}

    def supported_configs(self):
        return [FeatureConfig("feat", (self.value, "fallback"))]


def _child_write_and_die(cache_dir: str, value: str, stage: str, ready) -> None:
    """Run one cached detection and freeze at ``stage`` (parent kills us)."""
    if stage == "before-rename":

        def frozen_replace(src, dst):
            ready.set()
            time.sleep(600)

        pv_cache.os.replace = frozen_replace  # type: ignore[assignment]
    else:  # "mid-write": half the payload is on disk
        real_fdopen = os.fdopen

        class HalfFile:
            def __init__(self, f):
                self.f = f

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def write(self, data):
                self.f.write(data[: len(data) // 2])
                self.f.flush()
                os.fsync(self.f.fileno())
                ready.set()
                time.sleep(600)

        def half_fdopen(fd, mode="r", *args, **kwargs):
            return HalfFile(real_fdopen(fd, mode, *args, **kwargs))

        pv_cache.os.fdopen = half_fdopen  # this forked child only
    pv_cache.cached_supported_configs(_SlowProvider(value), cache_dir=cache_dir)


@pytest.mark.skipif(sys.platform == "win32", reason="fork and SIGKILL")
@pytest.mark.parametrize("stage", ["mid-write", "before-rename"])
@pytest.mark.parametrize("had_cache", [False, True], ids=["no-cache-yet", "old-cache"])
def test_killed_detection_never_leaves_a_half_written_cache_file(
    tmp_path, monkeypatch, stage, had_cache
):
    monkeypatch.delenv(pv_cache.NO_CACHE_ENV, raising=False)
    cache_dir = str(tmp_path / "cache")
    path = pv_cache.cache_file("fake_ns", cache_dir)
    if had_cache:
        assert pv_cache.cached_supported_configs(_SlowProvider("old"), cache_dir=cache_dir)
        old_bytes = path.read_bytes()
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    child = ctx.Process(target=_child_write_and_die, args=(cache_dir, "new", stage, ready))
    child.start()
    try:
        assert ready.wait(30), "the child never reached the write"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.join(10)
    # The cache file is the old one or absent: never a mix, never half a file.
    if had_cache:
        assert path.read_bytes() == old_bytes
    else:
        assert not path.exists()
    assert list(path.parent.glob(".fake_ns.*.tmp")), "expected the dead writer's temporary file"
    # The next run computes the right answer, stores it, and is not confused by the leftover.
    configs = pv_cache.cached_supported_configs(_SlowProvider("new"), cache_dir=cache_dir)
    assert configs == [FeatureConfig("feat", ("new", "fallback"))]
    assert json.loads(path.read_text())["configs"][0]["values"] == ["new", "fallback"]
    assert pv_cache.clear_cache(cache_dir) >= 2  # the file and the leftover
    assert list(path.parent.iterdir()) == []


def _child_install_and_die(cache_root: str, fake_pip: str) -> None:
    isolated_plugin_dir(
        ["provider-fictional-hw>=1.0"],
        cache_root,
        pip_command=[sys.executable, fake_pip],
        timeout=600,
    )


@pytest.mark.skipif(sys.platform == "win32", reason="fork and SIGKILL")
def test_killed_isolated_plugin_install_is_never_used_half_done(tmp_path):
    """Killed mid-install: the final directory must not exist, and the next
    call installs again instead of trusting a half-filled directory."""
    cache_root = tmp_path / "plugins"
    pid_file = tmp_path / "fake-pip.pid"
    slow_pip = tmp_path / "slow_pip.py"
    slow_pip.write_text(textwrap.dedent(f"""
        import os, sys, time
        target = sys.argv[sys.argv.index("--target") + 1]
        os.makedirs(os.path.join(target, "provider_fictional_hw"))
        open(os.path.join(target, "provider_fictional_hw", "__init__.py"), "w").write("# half")
        open({str(pid_file)!r}, "w").write(str(os.getpid()))
        time.sleep(600)
    """))
    good_pip = tmp_path / "good_pip.py"
    good_pip.write_text(textwrap.dedent("""
        import os, sys
        target = sys.argv[sys.argv.index("--target") + 1]
        pkg = os.path.join(target, "provider_fictional_hw")
        os.makedirs(pkg, exist_ok=True)
        open(os.path.join(pkg, "__init__.py"), "w").write("")
        open(os.path.join(pkg, "plugin.py"), "w").write(
            "class FictionalHwPlugin:\\n"
            "    namespace = 'fictional_hw'\\n"
            "    @staticmethod\\n"
            "    def get_supported_configs():\\n"
            "        return [{'name': 'tech', 'values': ['x1']}]\\n"
        )
    """))
    ctx = multiprocessing.get_context("fork")
    child = ctx.Process(target=_child_install_and_die, args=(str(cache_root), str(slow_pip)))
    child.start()
    try:
        for _ in range(300):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        else:
            pytest.fail("the fake pip never started")
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.join(10)
        if pid_file.exists() and pid_file.read_text():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
    finals = [p for p in cache_root.iterdir() if not p.name.startswith(".")]
    assert finals == [], "a half-installed plugin directory was put in place"
    path = isolated_plugin_dir(
        ["provider-fictional-hw>=1.0"], str(cache_root), pip_command=[sys.executable, str(good_pip)]
    )
    result = run_plugins(["provider_fictional_hw.plugin:FictionalHwPlugin"], extra_paths=[path])
    assert [c.values for c in result["provider_fictional_hw.plugin:FictionalHwPlugin"].configs] == [
        ("x1",)
    ]


HANG_WITH_PID = """
import os, time
class Plugin:
    namespace = "hw_slow"
    @staticmethod
    def get_supported_configs():
        open(os.environ["HOSTILE_PID_FILE"], "w").write(str(os.getpid()))
        time.sleep(600)
"""


def _wait_for_pid(pid_file: Path, proc: subprocess.Popen, seconds: float = 60) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pid_file.exists() and pid_file.read_text():
            return int(pid_file.read_text())
        if proc.poll() is not None:
            raise AssertionError(f"exited early: {proc.communicate()}")
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the plugin never started")


def _gone(pid: int, seconds: float = 5) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)  # do not leak it past the test
    return False


INTERRUPT_LEAK = (
    "pip_variants/providers/plugins.py _run_runner: on KeyboardInterrupt (Ctrl-C) while "
    "waiting for the plugin runner, the runner (in its own session, so the terminal's SIGINT "
    "never reaches it) was left running"
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT semantics")
def test_ctrl_c_during_plugin_detection_kills_the_plugin(tmp_path, make_plugin):
    """Library level: Ctrl-C in the process that runs plugins."""
    import zipfile

    site = tmp_path / "site"
    with zipfile.ZipFile(make_plugin(tmp_path / "w", "hostile-slow", HANG_WITH_PID)) as zf:
        zf.extractall(site)
    pid_file = tmp_path / "plugin.pid"
    code = (
        "from pip_variants.providers.plugins import run_plugins\n"
        f"run_plugins(['hostile_slow.plugin:Plugin'], extra_paths=[{str(site)!r}], timeout=120)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), HOSTILE_PID_FILE=str(pid_file))
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint, text=True,
    )
    plugin_pid = _wait_for_pid(pid_file, proc)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode != 0
    assert _gone(plugin_pid), INTERRUPT_LEAK


@pytest.mark.e2e
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT semantics")
def test_ctrl_c_pip_during_plugin_detection(fresh_venv, publish, index, tmp_path, make_plugin):
    """End to end: Ctrl-C on pip while an installed plugin runs: pip's usual one
    line, no traceback, no plugin process left, nothing installed."""
    run_pip(
        fresh_venv,
        "install",
        "--no-index",
        "--no-deps",
        make_plugin(tmp_path / "w", "hostile-slow", HANG_WITH_PID),
    )
    publish(
        "pkg",
        "1.0",
        variants_json(
            "pkg",
            "1.0",
            namespaces=["hw_slow"],
            providers={
                "hw_slow": {
                    "requires": ["hostile-slow"],
                    "plugin-api": "hostile_slow.plugin:Plugin",
                }
            },
            variants={"a": {"hw_slow": {"tech": ["x"]}}, "null": {}},
        ),
    )
    pid_file = tmp_path / "plugin.pid"
    target = tmp_path / "target"
    with tempfile.TemporaryDirectory() as tmp:
        env = scrubbed_env({"HOSTILE_PID_FILE": pid_file}, tmp=tmp)
        proc = subprocess.Popen(
            [
                str(fresh_venv.python),
                "-m",
                "pip",
                "install",
                "--index-url",
                index.url,
                "--target",
                str(target),
                "pkg",
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=default_sigint, text=True,
        )
        plugin_pid = _wait_for_pid(pid_file, proc)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert_no_crash(stderr)
    assert "cancelled" in stderr.lower() or "interrupt" in stderr.lower(), stderr
    assert not target.exists() or not any(target.iterdir())
    assert _gone(plugin_pid), INTERRUPT_LEAK


# -- activate / deactivate on a read-only site-packages -----------------------------------


def _cli(venv, *args, launcher=()):
    with tempfile.TemporaryDirectory() as tmp:
        env = scrubbed_env({"HOME": tmp}, tmp=tmp)
        return subprocess.run(
            [*launcher, str(venv.python), "-m", "pip_variants", *args],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )


@pytest.mark.e2e
def test_activate_and_deactivate_on_a_read_only_site_packages(fresh_venv, readonly):
    site = fresh_venv.site_packages
    proc = _cli(fresh_venv, "deactivate")
    assert proc.returncode == 0, proc.stderr
    assert not fresh_venv.pth_file.exists()
    before = sorted(p.name for p in site.iterdir())
    with readonly([site]) as prefix:
        activate = _cli(fresh_venv, "activate", launcher=prefix)
    assert activate.returncode == 1, activate.stdout + activate.stderr
    assert_no_crash(activate.stderr)
    lines = activate.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pip-variants: error:"), activate.stderr
    assert str(site) in lines[0], lines[0]
    assert sorted(p.name for p in site.iterdir()) == before  # no .tmp, no half activation
    # And the other way round: deactivating a read-only environment.
    assert _cli(fresh_venv, "activate").returncode == 0
    assert fresh_venv.pth_file.exists()
    with readonly([site]) as prefix:
        deactivate = _cli(fresh_venv, "deactivate", launcher=prefix)
    assert deactivate.returncode == 1, deactivate.stdout + deactivate.stderr
    assert_no_crash(deactivate.stderr)
    assert len(deactivate.stderr.strip().splitlines()) == 1, deactivate.stderr
    assert fresh_venv.pth_file.exists()
    proc = run_python(fresh_venv, "-c", "pass")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


# -- uninstalling pip-variants -------------------------------------------------------------


@pytest.mark.e2e
def test_uninstall_then_pip_keeps_working_and_reinstall_works(
    fresh_venv, publish, index, pip_variants_wheel
):
    publish("pkg", "1.0", BLAS_DATA)
    proc = run_pip(fresh_venv, "uninstall", "-y", "pip-variants", env={"PIP_VARIANT": "pkg=ob"})
    assert_no_crash(proc.stderr)
    assert "WARNING" not in proc.stderr, proc.stderr
    site = fresh_venv.site_packages
    assert not [p.name for p in site.iterdir() if p.name.startswith("pip_variants")]
    proc = run_python(fresh_venv, "-c", "pass")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    # pip is stock again: real install into site-packages, list, check, uninstall.
    proc = run_pip(fresh_venv, "install", "--index-url", index.url, "pkg")
    assert_no_crash(proc.stderr)
    assert run_python(fresh_venv, "-c", "import pkg; print(pkg.VARIANT)").stdout.strip() == ""
    listed = run_pip(fresh_venv, "list", "--format", "json").stdout
    assert "pip-variants" not in listed and "pip_variants" not in listed
    assert run_pip(fresh_venv, "uninstall", "-y", "pkg").returncode == 0
    # Reinstalling brings it back, active.
    run_pip(fresh_venv, "install", "--no-index", "--no-deps", pip_variants_wheel)
    assert fresh_venv.pth_file.exists()
    chosen, _, stderr = pick(fresh_venv, index, "pkg")
    assert chosen == BEST, stderr


# -- the .pth left behind ------------------------------------------------------------------


@pytest.fixture(scope="module")
def pth_venv(variant_venv, tmp_path_factory):
    return clone_venv(variant_venv, tmp_path_factory.mktemp("pth-venv") / "venv")


SHIM_MODULE = "_pip_variants_shim.py"  # what the .start file (Python 3.15+) imports


@pytest.fixture
def pkg_dir(pth_venv):
    """pip_variants (and the start-up shim module) in ``pth_venv``; restored
    after the test breaks them."""
    site = pth_venv.site_packages
    saved = {}
    for name in ("pip_variants", SHIM_MODULE):
        path = site / name
        if path.exists():
            backup = site / f".{name}.backup"
            if path.is_dir():
                shutil.copytree(path, backup)
            else:
                shutil.copy2(path, backup)
            saved[path] = backup
    yield site / "pip_variants"
    for path, backup in saved.items():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        shutil.move(str(backup), str(path))


def _break(kind: str, pkg: Path) -> None:
    shim = pkg.parent / SHIM_MODULE
    if kind == "package-gone":
        shutil.rmtree(pkg)
    elif kind == "shim-module-gone":
        if not shim.exists():
            pytest.skip(f"this wheel has no {SHIM_MODULE}")
        shim.unlink()
    elif kind == "shim-module-broken":
        if not shim.exists():
            pytest.skip(f"this wheel has no {SHIM_MODULE}")
        shim.write_text("def find_spec(name, path=None\n")  # cut short by a crash
    elif kind == "bootstrap-gone":
        (pkg / "_bootstrap.py").unlink()
    elif kind == "init-raises":
        (pkg / "__init__.py").write_text("raise RuntimeError('half-upgraded pip-variants')\n")
    elif kind == "bootstrap-syntax-error":
        (pkg / "_bootstrap.py").write_text("def broken(:\n")
    elif kind == "package-is-a-file":
        shutil.rmtree(pkg)
        pkg.write_text("not a package")
    elif kind == "hooks-gone":
        shutil.rmtree(pkg / "_pip")
    else:
        raise AssertionError(kind)


PTH_KINDS = [
    "package-gone",
    "shim-module-gone",
    "shim-module-broken",
    "bootstrap-gone",
    "init-raises",
    "bootstrap-syntax-error",
    "package-is-a-file",
    "hooks-gone",
]
HOOKS_GONE = (
    "pip_variants/_bootstrap.py _patch: when pip_variants._pip cannot be imported, the "
    "warning is written once per watched pip module (and STATE.broken cannot be set), so "
    "pip shows the same 'internal error while patching' line many times"
)
SHIM_GONE = (
    "sitecustomize_shim/pip_variants.pth is a bare 'import _pip_variants_shim': when that "
    "module is missing or raises, site.py prints 'Error processing line 1 of pip_variants.pth' "
    "and a traceback at every Python start-up"
)
XFAILS: dict = {}  # HOOKS_GONE and SHIM_GONE were fixed; kept above as the record of why


@pytest.mark.e2e
@pytest.mark.parametrize(
    "kind",
    [
        (
            pytest.param(k, marks=pytest.mark.xfail(strict=True, reason=XFAILS[k]))
            if k in XFAILS
            else k
        )
        for k in PTH_KINDS
    ],
)
def test_pth_with_a_missing_or_broken_package(pth_venv, pkg_dir, publish, index, kind):
    publish("pkg", "1.0", BLAS_DATA)
    _break(kind, pkg_dir)
    assert pth_venv.pth_file.exists()
    for flags in ([], ["-I"]):
        proc = run_python(pth_venv, *flags, "-c", "pass")
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", ""), (flags, proc.stderr)
    chosen, _, stderr = pick(pth_venv, index, "pkg")
    if kind.startswith("shim-module") and sys.version_info < (3, 15):
        # Before 3.15 the .pth line is the finder itself; the module serves the .start file only.
        assert chosen != PLAIN, stderr
    else:
        assert chosen == PLAIN, stderr
    assert "Traceback" not in stderr and "Error processing line" not in stderr, stderr
    # At most one line about it, never a wall of warnings.
    assert len([line for line in stderr.splitlines() if "pip-variants" in line]) <= 1, stderr
