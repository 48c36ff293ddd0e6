"""Hostile providers: plugins that crash, hang, shout or lie, and a failing NVML.

End to end, each misbehaving plugin is a real distribution installed in the
target venv (``hostile-<kind>``, endpoint ``hostile_<kind>.plugin:Plugin``,
registered in ``variant_plugins``), named by the release's ``requires``: the
support ladder runs it out of process (PROVIDERS.md §3.3 step 5). Whatever it
does, pip must finish, install the ``null`` variant (its namespace counts as
unsupported), name the plugin in one warning, and show no traceback. A plugin
that merely writes to stdout/stderr or reads stdin must not disturb pip nor
lose its answer.

The plugin timeout is ``SupportSettings.plugin_timeout`` (30 s, the value of
WHEEL-VARIANTS.md §5.3); pip runs cannot change it, so the e2e hang costs
30 s once and the ladder is also checked with a short timeout at library
level. NVML (missing, failing, zero GPUs, nonsense) is faked with pytest-mock.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import pytest

from pip_variants.engine import VariantEngine, VariantSettings
from pip_variants.metadata import parse_metadata
from pip_variants.providers import nvidia
from pip_variants.providers.cache import cached_supported_configs
from pip_variants.support import StrictVariantError, SupportResolver, SupportSettings
from support.venvs import clone_venv, pick, run_pip, scrubbed_env
from support.wheels import NVIDIA_PROVIDER, variants_json

PLAIN = "pkg-1.0-py3-none-any.whl"
NULL = "pkg-1.0-py3-none-any-null.whl"


def vfile(label: str) -> str:
    return f"pkg-1.0-py3-none-any-{label}.whl"


def assert_no_crash(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text
        assert "internal error" not in text, text


# -- the plugins -------------------------------------------------------------------------

GOOD = 'return [{"name": "tech", "values": ["x2", "x1"], "multi_value": False}]'

# kind -> (module prelude, body of get_supported_configs)
PLUGINS = {
    "good": ("", GOOD),
    "raises": ("", 'raise RuntimeError("kaboom from the hostile plugin")'),
    "import-fails": ('raise ImportError("no driver library here")', GOOD),
    "sys-exit": ("", 'sys.exit("bye")'),
    "os-exit": ("", "os._exit(7)"),
    "keyboard-interrupt": ("", "raise KeyboardInterrupt"),
    "hangs": ("", "time.sleep(600)"),
    "stdout-garbage": (
        "",
        'print("GARBAGE{{not json")\n'
        '        sys.__stdout__.write("GARBAGE via __stdout__\\n"); sys.__stdout__.flush()\n'
        '        os.write(1, b"GARBAGE on fd 1\\n")\n'
        '        os.write(2, b"GARBAGE on fd 2\\n")\n'
        "        " + GOOD,
    ),
    "huge-output": (
        "",
        'chunk = "G" * (1 << 20)\n'
        "        for _ in range(16):\n"
        "            sys.stdout.write(chunk); sys.stderr.write(chunk)\n"
        "        " + GOOD,
    ),
    "huge-result": ("", 'return [{"name": "tech", "values": ["v%d" % i for i in range(300000)]}]'),
    "reads-stdin": (
        "",
        "data = sys.stdin.read() + os.read(0, 1024).decode()\n"
        '        if data:\n            return [{"name": "tech", "values": ["stolen"]}]\n'
        "        " + GOOD,
    ),
    "input-prompt": ("", 'input("password: ")\n        ' + GOOD),
    "bad-value": ("", 'return [{"name": "tech", "values": ["X 1; rm -rf /"]}]'),
    "bad-feature": ("", 'return [{"name": "Tech-Name", "values": ["x1"]}]'),
    "not-a-list": ("", 'return {"tech": ["x1"]}'),
    "non-string-value": ("", 'return [{"name": "tech", "values": [1, None]}]'),
    "nan-value": ("", 'return [{"name": "tech", "values": [float("nan")]}]'),
    "duplicate-feature": (
        "",
        'return [{"name": "tech", "values": ["x1"]}, {"name": "tech", "values": ["x2"]}]',
    ),
    "wrong-namespace": ("", GOOD),
    "grandchild": (
        "",
        "proc = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'])\n"
        "        open(os.environ['HOSTILE_PID_FILE'], 'w').write(str(proc.pid))\n"
        "        " + GOOD,
    ),
}

# kind -> words its one warning must contain (null is chosen)
FAILURES = {
    "raises": "raised RuntimeError: kaboom from the hostile plugin",
    "import-fails": "cannot import module 'hostile_import_fails.plugin'",
    "sys-exit": "raised SystemExit: bye",
    "os-exit": "exited with code 7",
    "keyboard-interrupt": "KeyboardInterrupt",
    "huge-result": "more than",
    "input-prompt": "raised EOFError",
    "bad-value": "'X 1; rm -rf /' does not match",
    "bad-feature": "'Tech-Name' does not match",
    "not-a-list": "expected a list",
    "non-string-value": "is a int, not a string",
    "nan-value": "unusable result",
    "duplicate-feature": "listed twice",
}
# plugins that misbehave harmlessly: their answer must still be used (hw2 chosen)
# (a ``namespace`` attribute other than the metadata key is a PEP 817 leftover: ignored, PV-12)
ANSWERS = ["good", "stdout-garbage", "huge-output", "reads-stdin", "grandchild", "wrong-namespace"]


def _dist(kind: str) -> str:
    return f"hostile-{kind}"


def _module(kind: str) -> str:
    return f"hostile_{kind.replace('-', '_')}"


def _namespace(kind: str) -> str:
    return f"hw_{kind.replace('-', '_')}"


def _endpoint(kind: str) -> str:
    return f"{_module(kind)}.plugin:Plugin"


def _source(kind: str) -> str:
    prelude, body = PLUGINS[kind]
    namespace = "someone_else" if kind == "wrong-namespace" else _namespace(kind)
    return (
        "import os, subprocess, sys, time\n"
        f"{prelude}\n"
        "class Plugin:\n"
        f"    namespace = {namespace!r}\n"
        "    @staticmethod\n"
        "    def get_supported_configs():\n"
        f"        {body}\n"
        "    @staticmethod\n"
        "    def get_all_configs():\n"
        '        return [{"name": "tech", "values": ["x1", "x2"]}]\n'
    )


def release_for(kind: str) -> dict:
    ns = _namespace(kind)
    return variants_json(
        "pkg",
        "1.0",
        namespaces=[ns],
        providers={ns: {"requires": [f"{_dist(kind)}>=1.0"], "plugin-api": _endpoint(kind)}},
        variants={"hw1": {ns: {"tech": ["x1"]}}, "hw2": {ns: {"tech": ["x2"]}}, "null": {}},
    )


@pytest.fixture(scope="module")
def plugin_venv(variant_venv, tmp_path_factory, make_plugin):
    """A copy of the variant venv with every hostile plugin installed in it."""
    root = tmp_path_factory.mktemp("hostile-plugins")
    venv = clone_venv(variant_venv, root / "venv")
    wheels = [
        make_plugin(root / "wheels", _dist(kind), _source(kind), namespace=_namespace(kind))
        for kind in PLUGINS
    ]
    run_pip(venv, "install", "--no-index", "--no-deps", *wheels)
    return venv


# -- end to end ------------------------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_failing_plugin_gives_null_and_names_the_plugin(plugin_venv, publish, index, kind):
    publish("pkg", "1.0", release_for(kind))
    started = time.monotonic()
    chosen, _, stderr = pick(plugin_venv, index, "pkg", timeout=120)
    assert chosen == NULL, stderr
    assert_no_crash(stderr)
    lines = [line for line in stderr.splitlines() if _endpoint(kind) in line]
    assert len(lines) == 1, f"expected one warning naming {_endpoint(kind)}:\n{stderr}"
    assert lines[0].startswith("WARNING:") and FAILURES[kind] in lines[0], lines[0]
    assert f"variants using namespace {_namespace(kind)!r} are skipped" in lines[0], lines[0]
    assert time.monotonic() - started < 30


@pytest.mark.e2e
@pytest.mark.parametrize("kind", ANSWERS)
def test_noisy_plugin_still_answers_and_pip_output_stays_clean(
    plugin_venv, publish, index, tmp_path, kind
):
    publish("pkg", "1.0", release_for(kind))
    pid_file = tmp_path / "grandchild.pid"
    started = time.monotonic()
    chosen, _, stderr = pick(plugin_venv, index, "pkg", HOSTILE_PID_FILE=str(pid_file), timeout=120)
    elapsed = time.monotonic() - started
    assert chosen == vfile("hw2"), stderr  # the plugin's order: x2 before x1
    assert_no_crash(stderr)
    assert "GARBAGE" not in stderr and "GGGG" not in stderr, stderr[:2000]
    assert len(stderr) < 4000, stderr[:2000]
    if kind == "grandchild":
        # The plugin's leftover process neither keeps pip waiting nor survives it.
        assert elapsed < 20, f"pip took {elapsed:.1f}s"
        pid = int(pid_file.read_text())
        for _ in range(50):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.kill(pid, signal.SIGKILL)
            pytest.fail(f"the plugin's child process {pid} outlived pip")


@pytest.mark.e2e
def test_plugin_output_never_reaches_pip_stdout(plugin_venv, publish, index, tmp_path):
    """A real install (pip's stdout is where its own progress goes)."""
    publish("pkg", "1.0", release_for("stdout-garbage"))
    target = tmp_path / "target"
    proc = run_pip(plugin_venv, "install", "--index-url", index.url, "--target", target, "pkg")
    assert_no_crash(proc.stderr)
    assert "GARBAGE" not in proc.stdout + proc.stderr
    assert (target / "pkg" / "__init__.py").read_text().strip() == 'VARIANT = "hw2"'


@pytest.mark.e2e
def test_stdin_reading_plugin_with_an_open_terminal_like_stdin(
    plugin_venv, publish, index, tmp_path
):
    """pip's stdin is a pipe nobody writes to or closes: the plugin must not hang on it."""
    publish("pkg", "1.0", release_for("reads-stdin"))
    report = tmp_path / "report.json"
    read_end, write_end = os.pipe()
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with tempfile.TemporaryDirectory() as tmp, open(out, "w") as fo, open(err, "w") as fe:
        proc = subprocess.Popen(
            [
                plugin_venv.python,
                "-m",
                "pip",
                "install",
                "--dry-run",
                "--report",
                report,
                "--index-url",
                index.url,
                "pkg",
            ],
            stdin=read_end,
            stdout=fo,
            stderr=fe,
            env=scrubbed_env(tmp=tmp),
        )
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("pip hung on a plugin reading stdin")
        finally:
            os.close(read_end)
            os.close(write_end)
    stderr = err.read_text()
    assert code == 0, stderr
    assert_no_crash(stderr)
    assert "stolen" not in report.read_text() and vfile("hw2") in report.read_text(), stderr


@pytest.mark.e2e
def test_hanging_plugin_is_killed_at_the_timeout(plugin_venv, publish, index):
    """The one slow test: the pip path has the fixed 30 s plugin timeout."""
    publish("pkg", "1.0", release_for("hangs"))
    started = time.monotonic()
    chosen, _, stderr = pick(plugin_venv, index, "pkg", timeout=120)
    elapsed = time.monotonic() - started
    assert chosen == NULL, stderr
    assert_no_crash(stderr)
    lines = [line for line in stderr.splitlines() if _endpoint("hangs") in line]
    assert len(lines) == 1 and "timed out after 30 s" in lines[0], stderr
    assert 29 < elapsed < 60, elapsed


@pytest.mark.e2e
def test_strict_mode_turns_a_plugin_failure_into_a_clean_error(
    plugin_venv, publish, index, tmp_path
):
    publish("pkg", "1.0", release_for("raises"))
    target = tmp_path / "target"
    proc = run_pip(
        plugin_venv,
        "install",
        "--variant-strict",
        "--index-url",
        index.url,
        "--target",
        target,
        "pkg",
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert_no_crash(proc.stderr)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("ERROR:")]
    assert (
        errors and _endpoint("raises") in errors[0] and "--variant-strict" in errors[0]
    ), proc.stderr
    assert not target.exists() or not any(target.iterdir())


# -- library level: the ladder with a short timeout --------------------------------------


def _extracted_plugin(tmp_path, make_plugin, kind: str) -> Path:
    """Plugin ``kind`` unpacked into a directory (an isolated ``--target`` install)."""
    import zipfile

    site = tmp_path / "site"
    wheel = make_plugin(tmp_path / "wheels", _dist(kind), _source(kind), namespace=_namespace(kind))
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    return site


def test_ladder_applies_its_plugin_timeout(tmp_path, make_plugin):
    site = _extracted_plugin(tmp_path, make_plugin, "hangs")
    md = parse_metadata(release_for("hangs"), "hangs.json")

    def resolver(strict: bool) -> SupportResolver:
        # The allow-listed path; the "installer" hands back the directory.
        settings = SupportSettings(
            plugin_timeout=1.5, use_cache=False, allowed_plugins=(_dist("hangs"),), strict=strict
        )
        return SupportResolver(settings, plugin_installer=lambda reqs: str(site))

    started = time.monotonic()
    supported, answers = resolver(strict=False).supported_for(md)
    elapsed = time.monotonic() - started
    assert supported == {}
    assert answers[0].source == "failed"
    assert "timed out after 1.5 s" in answers[0].notice and _endpoint("hangs") in answers[0].notice
    assert elapsed < 10, elapsed
    with pytest.raises(StrictVariantError, match="timed out"):
        resolver(strict=True).supported_for(md)


@pytest.mark.parametrize(
    "error",
    [
        OSError(30, "Read-only file system"),
        MemoryError("out of memory"),
        RuntimeError("pip crashed"),
    ],
    ids=["read-only-cache", "memory", "runtime"],
)
def test_ladder_survives_a_plugin_installer_that_explodes(error):
    md = parse_metadata(release_for("good"), "good.json")

    def installer(reqs):
        raise error

    settings = SupportSettings(allowed_plugins=(_dist("good"),), use_cache=False)
    supported, answers = SupportResolver(settings, plugin_installer=installer).supported_for(md)
    assert supported == {} and answers[0].source == "failed"
    assert "could not be installed" in answers[0].notice and str(error) in answers[0].notice


# -- library level: NVML -------------------------------------------------------------------


class FakeNVMLError(Exception):
    pass


def fake_pynvml(
    mocker,
    *,
    cuda=12080,
    ccs=((8, 9),),
    init_error=False,
    count=None,
    count_error=False,
    driver_error=False,
    cc_override=None,
    shutdown_error=False,
):
    mod = types.ModuleType("pynvml")
    mod.NVMLError = FakeNVMLError

    def boom(*_a, **_k):
        raise FakeNVMLError("NVML_ERROR_UNKNOWN")

    mod.nvmlInit = mocker.Mock(side_effect=boom if init_error else None)
    mod.nvmlShutdown = mocker.Mock(side_effect=boom if shutdown_error else None)
    mod.nvmlSystemGetCudaDriverVersion_v2 = mocker.Mock(
        side_effect=boom if driver_error else None, return_value=cuda
    )
    mod.nvmlSystemGetCudaDriverVersion = mocker.Mock(
        side_effect=boom if driver_error else None, return_value=cuda
    )
    mod.nvmlDeviceGetCount = mocker.Mock(
        side_effect=boom if count_error else None, return_value=len(ccs) if count is None else count
    )
    mod.nvmlDeviceGetHandleByIndex = mocker.Mock(side_effect=lambda i: i)

    def cc(handle):
        if cc_override is not None:
            return cc_override(handle)
        return ccs[handle]

    mod.nvmlDeviceGetCudaComputeCapability = mocker.Mock(side_effect=cc)
    mocker.patch.dict(sys.modules, {"pynvml": mod})
    return mod


@pytest.fixture
def nv(mocker, monkeypatch, tmp_path):
    for name in (nvidia.FORCE_CUDA_ENV, nvidia.FORCE_SM_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PIP_VARIANTS_CACHE_DIR", str(tmp_path / "cache"))
    mocker.patch.object(nvidia, "_driver_may_be_present", return_value=True)
    return mocker


def _names(configs):
    return [c.name for c in configs]


def _lost(handle):
    raise FakeNVMLError("GPU is lost")


NVML_CASES = {
    # case -> (fake_pynvml kwargs or None for "module missing", expected feature names)
    "module-missing": (None, []),
    "module-empty": ("empty", []),
    "init-fails": ({"init_error": True}, []),
    "driver-query-fails": ({"driver_error": True}, []),
    "zero-gpus": ({"ccs": ()}, [nvidia.LOWER, nvidia.UPPER]),
    "count-fails": ({"count_error": True}, [nvidia.LOWER, nvidia.UPPER]),
    "negative-count": ({"count": -3}, [nvidia.LOWER, nvidia.UPPER]),
    "every-gpu-lost": (
        {"ccs": ((8, 9), (9, 0)), "cc_override": _lost},
        [nvidia.LOWER, nvidia.UPPER],
    ),
    "cc-is-garbage": ({"cc_override": lambda h: None}, [nvidia.LOWER, nvidia.UPPER]),
    "cc-not-numbers": ({"cc_override": lambda h: ("eight", "nine")}, [nvidia.LOWER, nvidia.UPPER]),
    "cc-below-5.0": ({"ccs": ((3, 5),)}, [nvidia.LOWER, nvidia.UPPER]),
    "driver-absurd": ({"cuda": 999990}, []),
    "driver-zero": ({"cuda": 0}, []),
    "driver-not-a-number": ({"cuda": "twelve"}, []),
    "shutdown-fails": ({"shutdown_error": True}, [nvidia.LOWER, nvidia.UPPER, nvidia.SM]),
    "one-gpu-lost-of-two": (
        {
            "ccs": ((8, 9), (9, 0)),
            "cc_override": lambda h: (
                (_ for _ in ()).throw(FakeNVMLError("lost")) if h == 1 else (8, 9)
            ),
        },
        [nvidia.LOWER, nvidia.UPPER, nvidia.SM],
    ),
}


@pytest.mark.parametrize("case", sorted(NVML_CASES))
def test_nvml_failures_mean_fewer_features_never_an_exception(nv, case):
    kwargs, expected = NVML_CASES[case]
    if kwargs is None:
        nv.patch.dict(sys.modules, {"pynvml": None})
    elif kwargs == "empty":
        nv.patch.dict(sys.modules, {"pynvml": types.ModuleType("pynvml")})
    else:
        fake_pynvml(nv, **kwargs)
    configs = nvidia.NvidiaProvider().supported_configs()
    assert _names(configs) == expected
    if case == "one-gpu-lost-of-two":
        assert configs[-1].values[0] == "89_real"
    # The same through the persistent cache and the support ladder.
    assert cached_supported_configs(nvidia.NvidiaProvider()) == configs
    md = parse_metadata(
        variants_json(
            "pkg",
            "1.0",
            namespaces=["nvidia"],
            providers={"nvidia": NVIDIA_PROVIDER},
            variants={"sm89": {"nvidia": {"sm_arch": ["89_real"]}}, "null": {}},
        ),
        "nv.json",
    )
    selection = VariantEngine(VariantSettings()).select("pkg", "1.0", md)
    assert selection.order == (("sm89", "null") if nvidia.SM in expected else ("null",))


def test_overrides_bypass_a_broken_nvml_entirely(nv, monkeypatch):
    """NVML runs in pip's process (trusted driver code); with both override
    variables set it is never touched, so a wedged driver can be worked around."""
    mod = fake_pynvml(nv, init_error=True)
    monkeypatch.setenv(nvidia.FORCE_CUDA_ENV, "12.8")
    monkeypatch.setenv(nvidia.FORCE_SM_ENV, "9.0")
    configs = nvidia.NvidiaProvider().supported_configs()
    assert not mod.nvmlInit.called
    assert _names(configs) == [nvidia.LOWER, nvidia.UPPER, nvidia.SM]


@pytest.mark.parametrize(
    "value", ["12.2000", "99999", "1e400", "12.8\n--index-url=http://evil", " ", "１２.８"]
)
def test_hostile_override_values_never_raise_past_the_ladder(nv, monkeypatch, value):
    fake_pynvml(nv)
    monkeypatch.setenv(nvidia.FORCE_CUDA_ENV, value)
    resolver = SupportResolver(SupportSettings(use_cache=False))
    md = parse_metadata(
        variants_json(
            "pkg",
            "1.0",
            namespaces=["nvidia"],
            providers={"nvidia": NVIDIA_PROVIDER},
            variants={"cu12": {"nvidia": {"cuda_version_lower_bound": ["12"]}}, "null": {}},
        ),
        "nv.json",
    )
    supported, answers = resolver.supported_for(md)
    answer = answers[0]
    assert answer.source in ("builtin:nvidia", "failed")
    if answer.source == "failed":
        assert nvidia.FORCE_CUDA_ENV in answer.notice or "limit" in answer.notice
    for values in supported.get("nvidia", {}).values():
        assert len(values) <= nvidia.MAX_LOWER_BOUND_VALUES
