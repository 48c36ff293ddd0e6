"""Tests for pip_variants.providers.plugins: third-party plugins run out of process."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Dict

import pytest

from pip_variants.providers import plugins
from pip_variants.providers.base import FeatureConfig, ProviderError
from pip_variants.providers.plugins import (
    InstalledPlugin,
    PluginResult,
    default_plugin_api,
    discover_installed_plugins,
    parse_plugin_api,
    run_plugins,
)

# --------------------------------------------------------------------------- fake plugins

# One module per plugin generation / misbehaviour, all on one extra path.
PLUGIN_SOURCES: Dict[str, str] = {
    "p_module": """
        namespace = "mod_ns"
        def get_supported_configs():
            return [{"name": "level", "values": ["v3", "v2"], "multi_value": False}]
        def get_all_configs():
            return [{"name": "level", "values": ["v1", "v2", "v3"]}]
    """,
    "p_classmethods": """
        class Cfg:
            def __init__(self, name, values, multi_value=False):
                self.name, self.values, self.multi_value = name, values, multi_value
        class Plugin:
            namespace = "cls_ns"
            @classmethod
            def get_supported_configs(cls):
                return [Cfg("arch", ["b", "a"], True), Cfg("gpu", [])]
    """,
    "p_static": """
        class Cfg:  # no multi_value attribute at all
            def __init__(self, name, values):
                self.name, self.values = name, values
        class Outer:
            class Plugin:
                @staticmethod
                def get_supported_configs():
                    return (Cfg("feat", ("x", "y.1")),)
    """,
    "p_namedtuple": """
        from collections import namedtuple
        Cfg = namedtuple("VariantFeatureConfig", "name values multi_value")
        class Plugin:
            @staticmethod
            def get_supported_configs():
                return [Cfg("arch", ["a", "b"], False), Cfg("gpu", ["x"], True)]
    """,
    "p_instance": """
        class Plugin:
            namespace = "inst_ns"
            def __init__(self):
                self.values = ["on"]
            def get_supported_configs(self, known_properties):
                assert known_properties is None
                return [{"name": "avx", "values": self.values}]
    """,
    "p_bare_function_in_class": """
        class Plugin:
            def __init__(self):
                raise RuntimeError("must not be instantiated (Providers PEP)")
            def get_supported_configs():  # no self: variantlib 0.2 calls it on the class
                return [{"name": "d", "values": ["dy"], "multi_value": 0}]
    """,
    # Functions without a required first parameter, called on the class as variantlib 0.2 calls them
    "p_shapes_without_self": """
        class Cfg:
            def __init__(self, n, v, m=False):
                self.name, self.values, self.multi_value = n, v, m
        def memo(f):  # a decorator without functools.wraps: its wrapper is (*a, **k)
            box = []
            def inner(*a, **k):
                if not box:
                    box.append(f(*a, **k))
                return box[0]
            return inner
        class NoWraps:
            @memo
            def get_supported_configs():
                return [Cfg("w", ["w2", "w1"])]
        class DefArg:
            def get_supported_configs(known_properties=None):  # an instance would arrive as the argument
                return [Cfg("d", ["d2", "d1"])] if known_properties is None else [Cfg("d", ["d1"])]
        class DefArgInit(DefArg):
            def __init__(self, required):
                raise AssertionError("must not be instantiated")
        class WrappedSelf:  # the older API's instance method behind such a wrapper: retried on an instance
            @memo
            def get_supported_configs(self):
                return [Cfg("s", ["s1"])]
        calls = []
        class WrappedRaises:  # its own TypeError: reported, not retried on an instance
            @memo
            def get_supported_configs():
                calls.append(1)
                raise TypeError("bad config table (call %d)" % len(calls))
    """,
    "p_needs_a_dependency": """
        from variantlib_not_installed.models import VariantFeatureConfig
    """,
    "p_fails_at_import": """
        raise RuntimeError("no hardware library found")
    """,
    "p_compiled_method": """
        class Plugin(list):
            # A C-implemented instance method: only an instance can call it.
            get_supported_configs = list.copy
    """,
    "p_known_props_module": """
        def get_supported_configs(known_properties):
            return [{"name": "k", "values": ["1"] if known_properties is None else []}]
    """,
    "p_raises": """
        def get_supported_configs():
            raise RuntimeError("no device\\nsecond line")
    """,
    "p_hangs": """
        import subprocess, sys, time
        def get_supported_configs():
            # A grandchild holding our pipes must not keep the caller waiting.
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            time.sleep(60)
    """,
    "p_noisy": """
        import os, sys
        def get_supported_configs():
            print("garbage {not json")
            sys.stdout.write("x" * (3 << 20))
            sys.stderr.write("y" * (3 << 20))
            os.write(1, b"raw fd 1 garbage\\n")
            data = sys.stdin.read()
            return [{"name": "stdin_len", "values": [str(len(data))]}]
    """,
    "p_huge": """
        def get_supported_configs():
            return [{"name": "big", "values": ["v%d" % i for i in range(300000)]}]
    """,
    "p_upper": """
        def get_supported_configs():
            return [{"name": "level", "values": ["V2"]}]
    """,
    "p_upper_name": """
        def get_supported_configs():
            return [{"name": "Level", "values": ["v2"]}]
    """,
    "p_dup_values": """
        def get_supported_configs():
            return [{"name": "level", "values": ["v2", "v2"]}]
    """,
    "p_non_str_value": """
        def get_supported_configs():
            return [{"name": "level", "values": [2]}]
    """,
    "p_not_list": """
        def get_supported_configs():
            return {"name": "level", "values": ["v2"]}
    """,
    "p_object_item": """
        def get_supported_configs():
            return [object()]
    """,
    "p_empty": """
        def get_supported_configs():
            return []
    """,
    "p_exits": """
        import os
        def get_supported_configs():
            os._exit(3)
    """,
    "p_exits_too": """
        import os
        def get_supported_configs():
            os._exit(3)
    """,
    "p_sysexit": """
        import sys
        sys.exit(5)
    """,
    "p_threads": """
        import threading, time
        threading.Thread(target=time.sleep, args=(60,)).start()  # non-daemon
        def get_supported_configs():
            return [{"name": "t", "values": ["1"]}]
    """,
    "p_env": """
        import os
        def get_supported_configs():
            url = os.environ.get("PIP_INDEX_URL", "")
            return [
                {"name": "token_seen", "values": [str("MY_API_TOKEN" in os.environ).lower()]},
                {"name": "url_has_user", "values": [str("@" in url).lower()]},
                {"name": "kept", "values": [os.environ.get("KEEP_ME", "missing")]},
                {"name": "no_variants", "values": [os.environ.get("PIP_NO_VARIANTS", "unset")]},
            ]
    """,
    "p_no_method": """
        x = 1
    """,
    "p_pids": """
        import os, subprocess, sys, time
        def get_supported_configs():
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            with open(os.environ["PIDS_FILE"], "w") as f:
                f.write("%d %d" % (os.getpid(), child.pid))
            time.sleep(60)
    """,
}


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("plugins")
    for name, source in PLUGIN_SOURCES.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source))
    return str(root)


def run_one(api: str, plugin_path: str, **kwargs):
    result = run_plugins([api], extra_paths=[plugin_path], **kwargs)
    assert list(result) == [api]
    return result[api]


# --------------------------------------------------------------------------- parse / default


@pytest.mark.parametrize(
    "ref, expected",
    [
        ("mod", ("mod", None)),
        ("pkg.mod:Obj", ("pkg.mod", "Obj")),
        ("pkg.mod : Obj.inner", ("pkg.mod", "Obj.inner")),
        # the entry-point object reference syntax (and variantlib): any blanks, word characters
        ("mod\t:\tObj", ("mod", "Obj")),
        ("mod:Obj ", ("mod", "Obj")),
        ("mödul:Klasse", ("mödul", "Klasse")),
        ("nvidia_variant_provider.plugin:NvidiaVariantPlugin", ("nvidia_variant_provider.plugin", "NvidiaVariantPlugin")),
    ],
)
def test_parse_plugin_api_good(ref, expected):
    assert parse_plugin_api(ref) == expected


@pytest.mark.parametrize("ref", ["", "mod:", ":Obj", "a b", "mod:Obj:x", "mod-x", "a..b", ".mod:Obj"])
def test_parse_plugin_api_bad(ref):
    with pytest.raises(ValueError, match="invalid plugin API"):
        parse_plugin_api(ref)


def test_default_plugin_api_normalises():
    assert default_plugin_api(["Provider.Variant_x86-64 >=1"]) == "provider_variant_x86_64"


def test_default_plugin_api_markers():
    requires = [
        "win-provider; sys_platform == 'win32'",
        "Linux.Provider>=2; sys_platform == 'linux'",
        "fallback-provider",
    ]
    assert default_plugin_api(requires, {"sys_platform": "linux"}) == "linux_provider"
    assert default_plugin_api(requires, {"sys_platform": "win32"}) == "win_provider"
    assert default_plugin_api(requires, {"sys_platform": "darwin"}) == "fallback_provider"


def test_default_plugin_api_nothing_applies():
    with pytest.raises(ValueError, match="no provider requirement applies"):
        default_plugin_api(["a; python_version < '2'"])
    with pytest.raises(ValueError, match="invalid provider requirement"):
        default_plugin_api(["not a requirement !"])


# --------------------------------------------------------------------------- plugin generations


def test_module_plugin(plugin_path):
    res = run_one("p_module", plugin_path)
    assert res == PluginResult("p_module", [FeatureConfig("level", ("v3", "v2"))], "mod_ns")


def test_get_all_configs_method(plugin_path):
    res = run_one("p_module", plugin_path, method="get_all_configs")
    assert res.configs == [FeatureConfig("level", ("v1", "v2", "v3"))]
    with pytest.raises(ValueError):
        run_plugins(["p_module"], method="namespace")


def test_namedtuple_configs(plugin_path):
    # PEP 817: any object with name, values and multi_value is a config, tuple or not.
    res = run_one("p_namedtuple:Plugin", plugin_path)
    assert res.configs == [FeatureConfig("arch", ("a", "b"), False), FeatureConfig("gpu", ("x",), True)]


def test_classmethods_and_empty_values(plugin_path):
    res = run_one("p_classmethods:Plugin", plugin_path)
    assert isinstance(res, PluginResult)
    # A feature with no values is "unsupported", not an error.
    assert res.configs == [FeatureConfig("arch", ("b", "a"), True), FeatureConfig("gpu", ())]
    assert res.namespace == "cls_ns"


def test_staticmethods_nested_object_without_multi_value(plugin_path):
    res = run_one("p_static:Outer.Plugin", plugin_path)
    assert res.configs == [FeatureConfig("feat", ("x", "y.1"), False)]
    assert res.namespace is None


def test_class_needing_instantiation_with_known_properties(plugin_path):
    res = run_one("p_instance:Plugin", plugin_path)
    assert res.configs == [FeatureConfig("avx", ("on",))]
    assert res.namespace == "inst_ns"


def test_a_function_without_self_in_a_class_is_called_on_the_class(plugin_path):
    # ... and multi_value is read as a truth value, as variantlib reads it
    assert run_one("p_bare_function_in_class:Plugin", plugin_path).configs == [FeatureConfig("d", ("dy",), False)]


@pytest.mark.parametrize("api, configs", [
    ("p_shapes_without_self:NoWraps", [FeatureConfig("w", ("w2", "w1"))]),
    ("p_shapes_without_self:DefArg", [FeatureConfig("d", ("d2", "d1"))]),
    ("p_shapes_without_self:DefArgInit", [FeatureConfig("d", ("d2", "d1"))]),
    ("p_shapes_without_self:WrappedSelf", [FeatureConfig("s", ("s1",))]),
])
def test_a_class_function_without_a_required_first_parameter_is_called_on_the_class(plugin_path, api, configs):
    res = run_one(api, plugin_path)
    assert isinstance(res, PluginResult), res
    assert res.configs == configs


def test_a_missing_dependency_of_the_plugin_is_named_as_such(plugin_path):
    err = run_one("p_needs_a_dependency", plugin_path)
    assert isinstance(err, ProviderError)
    assert "No module named 'variantlib_not_installed'" in err.message
    assert ("the plugin imports 'variantlib_not_installed', which cannot be imported in the plugin's "
            "environment") in err.message
    assert "should declare it" not in err.message  # it may be declared, and installed where the runner does not look
    missing = run_one("p_not_there_at_all:Plugin", plugin_path)
    assert "check that the plugin package is installed there" in missing.message
    # found, but its own code raised while importing: the plugin needs fixing, not installing
    broken = run_one("p_fails_at_import:Plugin", plugin_path)
    assert "RuntimeError: no hardware library found" in broken.message
    assert "fix or upgrade the plugin" in broken.message and "is installed there" not in broken.message


def test_a_dependency_importable_only_through_pythonpath_is_found(tmp_path, monkeypatch):
    """The runner starts with -I (no PYTHONPATH), yet a plugin's dependency may
    live only there (HPC module systems, pip install --target): its absolute
    entries are appended after site-packages, so they shadow nothing there."""
    plugin_dir, dep_dir = tmp_path / "plugin", tmp_path / "pythonpath"
    plugin_dir.mkdir()
    dep_dir.mkdir()
    (dep_dir / "pp_dependency.py").write_text("VALUES = ['p2', 'p1']\n")
    (dep_dir / "packaging.py").write_text("SHADOW = True\n")  # installed in site-packages: must not win
    # Python runs no .pth file of a PYTHONPATH folder: nor does the runner
    (dep_dir / "front.pth").write_text(f"import sys; sys.path.insert(0, {str(dep_dir)!r})\n")
    (plugin_dir / "pp_plugin.py").write_text(textwrap.dedent("""
        import packaging
        import pp_dependency
        def get_supported_configs():
            return [{"name": "p", "values": pp_dependency.VALUES},
                    {"name": "shadowed", "values": [str(hasattr(packaging, "SHADOW")).lower()]}]
    """))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["", "pythonpath", str(dep_dir)]))
    res = run_one("pp_plugin", str(plugin_dir))
    assert isinstance(res, PluginResult), res
    assert res.configs == [FeatureConfig("p", ("p2", "p1")), FeatureConfig("shadowed", ("false",))]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["", "pythonpath"]))  # the working directory: kept out
    missing = run_one("pp_plugin", str(plugin_dir))
    assert isinstance(missing, ProviderError)
    assert "No module named 'pp_dependency'" in missing.message


def test_wrapped_function_raising_type_error_runs_once(plugin_path):
    err = run_one("p_shapes_without_self:WrappedRaises", plugin_path)
    assert isinstance(err, ProviderError)
    assert "TypeError: bad config table (call 1)" in err.message


def test_unrecognised_instance_method_retried_on_instance(plugin_path):
    assert run_one("p_compiled_method:Plugin", plugin_path) == PluginResult("p_compiled_method:Plugin", [], None)


def test_known_properties_argument_on_module(plugin_path):
    assert run_one("p_known_props_module", plugin_path).configs == [FeatureConfig("k", ("1",))]


def test_empty_list_accepted(plugin_path):
    assert run_one("p_empty", plugin_path) == PluginResult("p_empty", [], None)


# --------------------------------------------------------------------------- failures


def test_plugin_raises(plugin_path):
    err = run_one("p_raises", plugin_path)
    assert isinstance(err, ProviderError)
    assert err.provider == "p_raises"
    assert "RuntimeError: no device second line" in str(err)
    assert "Traceback" not in str(err) and "\n" not in str(err)


def test_plugin_hangs_times_out(plugin_path):
    start = time.monotonic()
    res = run_plugins(["p_module", "p_hangs", "p_empty"], extra_paths=[plugin_path], timeout=2)
    assert time.monotonic() - start < 6
    # Endpoints that answered before the hang keep their results ...
    assert isinstance(res["p_module"], PluginResult)
    # ... the hanging one times out, and the one queued after it is asked in a
    # child of its own: it is not blamed for the hang.
    assert isinstance(res["p_hangs"], ProviderError)
    assert "timed out after 2 s" in str(res["p_hangs"])
    assert res["p_empty"] == PluginResult("p_empty", [], None)
    assert list(res) == ["p_module", "p_hangs", "p_empty"]


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie no one reaped is gone too
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_runner_and_its_children_end_with_a_killed_parent(plugin_path, tmp_path):
    """SIGTERM, SIGKILL or a hang-up of pip never reaches the runner's own
    session: it ends itself, and what the plugin started, once pip is gone."""
    import signal

    pids = tmp_path / "pids"
    parent = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pip_variants.providers.plugins import run_plugins; "
         f"run_plugins(['p_pids'], extra_paths=[{plugin_path!r}], timeout=120)"],
        env=dict(os.environ, PIDS_FILE=str(pids)))
    deadline = time.monotonic() + 30
    while not (pids.exists() and pids.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    runner, child = map(int, pids.read_text().split())
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while (_running(runner) or _running(child)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(runner) and not _running(child)


def test_plugin_prints_to_stdout_and_reads_stdin(plugin_path):
    res = run_one("p_noisy", plugin_path)
    assert res == PluginResult("p_noisy", [FeatureConfig("stdin_len", ("0",))], None)


def test_huge_result_rejected(plugin_path):
    err = run_one("p_huge", plugin_path)
    assert isinstance(err, ProviderError)
    assert "more than the 1048576 allowed" in str(err)


@pytest.mark.parametrize(
    "api, needle",
    [
        ("p_upper", "value 'V2' does not match ^[a-z0-9_.]+$"),
        ("p_upper_name", "feature name 'Level' does not match ^[a-z0-9_]+$"),
        ("p_dup_values", "value 'v2' is listed twice"),
        ("p_non_str_value", "value 2 is a int, not a string"),
        ("p_not_list", "expected a list of feature configs, got dict"),
        ("p_object_item", "config #1 is a object without 'name' and 'values'"),
        ("p_no_method", "plugin has no get_supported_configs()"),
        ("p_sysexit", "cannot import module 'p_sysexit': SystemExit: 5"),
        ("missing_module_xyz", "cannot import module 'missing_module_xyz': ModuleNotFoundError"),
        ("p_module:Nope", "module 'p_module' has no attribute path 'Nope'"),
        ("bad ref!", "invalid plugin API"),
    ],
)
def test_invalid_plugins_give_provider_errors(plugin_path, api, needle):
    err = run_one(api, plugin_path)
    assert isinstance(err, ProviderError), err
    assert err.provider == api
    assert needle in str(err)
    assert "\n" not in str(err)


def test_failures_are_isolated(plugin_path):
    res = run_plugins(["p_raises", "p_module", "p_upper", "p_module"], extra_paths=[plugin_path])
    assert list(res) == ["p_raises", "p_module", "p_upper"]
    assert isinstance(res["p_raises"], ProviderError)
    assert isinstance(res["p_upper"], ProviderError)
    assert res["p_module"].configs == [FeatureConfig("level", ("v3", "v2"))]


def test_process_killed_by_plugin_keeps_earlier_results(plugin_path):
    res = run_plugins(["p_module", "p_exits", "p_empty", "p_exits_too", "p_classmethods:Plugin"],
                      extra_paths=[plugin_path])
    assert isinstance(res["p_module"], PluginResult)
    # Only the endpoints that killed the process are blamed for it.
    for api in ("p_exits", "p_exits_too"):
        assert isinstance(res[api], ProviderError)
        assert "exited with code 3 before reporting" in str(res[api])
    assert res["p_empty"] == PluginResult("p_empty", [], None)
    assert isinstance(res["p_classmethods:Plugin"], PluginResult)
    assert list(res) == ["p_module", "p_exits", "p_empty", "p_exits_too", "p_classmethods:Plugin"]


def test_leftover_threads_do_not_block(plugin_path):
    start = time.monotonic()
    res = run_one("p_threads", plugin_path, timeout=20)
    assert isinstance(res, PluginResult)
    assert time.monotonic() - start < 10


def test_bad_interpreter():
    res = run_plugins(["anything"], python="/nonexistent/python3")
    assert "cannot start the plugin runner" in str(res["anything"])


def test_interpreter_too_old_or_broken(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'SyntaxError: boom' >&2\nexit 1\n")
    fake.chmod(0o755)
    res = run_plugins(["anything"], python=str(fake))
    assert "plugin runner failed to start (exit code 1) (stderr: SyntaxError: boom)" in str(res["anything"])


def test_empty_request_runs_nothing(mocker):
    spy = mocker.spy(plugins, "_run_runner")
    assert run_plugins([]) == {}
    assert spy.call_count == 0


def test_child_environment_is_scrubbed(plugin_path, monkeypatch):
    monkeypatch.setenv("MY_API_TOKEN", "s3cret")
    monkeypatch.setenv("PIP_INDEX_URL", "https://user:pass@example.invalid/simple")
    monkeypatch.setenv("KEEP_ME", "yes")
    monkeypatch.delenv("PIP_NO_VARIANTS", raising=False)
    res = run_one("p_env", plugin_path)
    values = {cfg.name: cfg.values for cfg in res.configs}
    assert values == {
        "token_seen": ("false",),
        "url_has_user": ("false",),
        "kept": ("yes",),
        "no_variants": ("1",),
    }


def _python39() -> str:
    candidates = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.9*/bin/python3.9")))
    candidates += ["/usr/bin/python3.9", "/usr/local/bin/python3.9"]
    for candidate in candidates:
        if os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("no Python 3.9 interpreter here")


def test_runner_works_on_python39(plugin_path):
    python = _python39()
    res = run_plugins(["p_module", "p_instance:Plugin", "p_raises"], python=python, extra_paths=[plugin_path])
    assert res["p_module"].configs == [FeatureConfig("level", ("v3", "v2"))]
    assert res["p_instance:Plugin"].namespace == "inst_ns"
    assert isinstance(res["p_raises"], ProviderError)


# --------------------------------------------------------------------------- discovery

DIST_PLUGIN = """
namespace = "venv_ns"
class Plugin:
    namespace = "venv_cls_ns"
    @classmethod
    def get_supported_configs(cls):
        return [{"name": "f", "values": ["a"]}]
def get_supported_configs():
    return []
class Plugin02:  # variantlib 0.2's shape: no namespace attribute
    @staticmethod
    def get_supported_configs():
        return []
"""


def _write_dist(site_dir: Path, name: str, version: str, entry_points: str, module: str, source: str) -> None:
    (site_dir / f"{module}.py").write_text(source)
    dist_info = site_dir / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (dist_info / "entry_points.txt").write_text(entry_points)


ENTRY_POINTS = """\
[variant_plugins]
whatever = venv_fake_plugin:Plugin
other = venv_fake_plugin
broken = venv_fake_missing:Plugin
bad = not a valid ref
fict_g = venv_fake_plugin:Plugin02
Not-A-Namespace = venv_fake_plugin:Plugin02.get_supported_configs

[console_scripts]
ignored = venv_fake_plugin:main
a line without an equals sign, which importlib.metadata refuses for the whole file
"""


@pytest.fixture(scope="module")
def fake_venv(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site_dir = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    _write_dist(site_dir, "Fake-Plugin", "1.2", ENTRY_POINTS, "venv_fake_plugin", DIST_PLUGIN)
    return str(python)


EXPECTED_DISCOVERY = [
    InstalledPlugin("venv_cls_ns", "venv_fake_plugin:Plugin", "Fake-Plugin", "1.2"),
    InstalledPlugin("venv_ns", "venv_fake_plugin", "Fake-Plugin", "1.2"),
    # without a namespace attribute (variantlib 0.2's plugins), the entry-point name
    # names it, as variantlib does; one that fails to import is not named after it
    InstalledPlugin(None, "venv_fake_missing:Plugin", "Fake-Plugin", "1.2"),
    InstalledPlugin("fict_g", "venv_fake_plugin:Plugin02", "Fake-Plugin", "1.2"),
    InstalledPlugin(None, "venv_fake_plugin:Plugin02.get_supported_configs", "Fake-Plugin", "1.2"),
]


def test_discover_in_other_interpreter(fake_venv):
    assert discover_installed_plugins(fake_venv) == EXPECTED_DISCOVERY
    # And the discovered endpoints run in that interpreter.
    res = run_plugins(["venv_fake_plugin:Plugin"], python=fake_venv)
    assert res["venv_fake_plugin:Plugin"].configs == [FeatureConfig("f", ("a",))]


def test_discover_in_process(tmp_path, monkeypatch, mocker):
    _write_dist(tmp_path, "Fake-Plugin", "1.2", ENTRY_POINTS, "venv_fake_plugin", DIST_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    spy = mocker.spy(plugins, "_run_runner")
    found = discover_installed_plugins()
    mine = [p for p in found if p.distribution == "Fake-Plugin"]
    assert mine == EXPECTED_DISCOVERY
    # Entry points were read here; only the namespace query ran in a child.
    assert spy.call_count == 1
    assert spy.call_args.args[0]["command"] == "namespace"
    assert "venv_fake_plugin" not in sys.modules


def test_discover_other_interpreter_failure():
    with pytest.raises(ProviderError, match="could not list installed plugins"):
        discover_installed_plugins("/nonexistent/python3")


def test_user_site_seen_like_plain_python(tmp_path, monkeypatch, fake_venv):
    # -I drops user site; the runner restores it where plain Python has it.
    if sys.prefix != sys.base_prefix:
        pytest.skip("the test interpreter is a venv")
    monkeypatch.setenv("PYTHONUSERBASE", str(tmp_path))
    monkeypatch.delenv("PYTHONNOUSERSITE", raising=False)
    user_site = subprocess.run(
        [sys.executable, "-c", "import site; print(site.getusersitepackages())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    os.makedirs(user_site)
    Path(user_site, "p_user_site.py").write_text(textwrap.dedent(PLUGIN_SOURCES["p_empty"]))
    assert isinstance(run_plugins(["p_user_site"])["p_user_site"], PluginResult)
    # A venv without system site packages has no user site either.
    assert isinstance(run_plugins(["p_user_site"], python=fake_venv)["p_user_site"], ProviderError)
    monkeypatch.setenv("PYTHONNOUSERSITE", "1")
    assert isinstance(run_plugins(["p_user_site"])["p_user_site"], ProviderError)
