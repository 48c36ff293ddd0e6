"""Trust: code from an index never runs without consent (WHEEL-VARIANTS.md §9).

The index serves ``provider-fictional-hw``, a plugin whose module writes a
marker file as soon as it is imported (and records each call). Then:

* without ``--allow-variant-plugin`` it is never requested from the index,
  never installed, never imported, whatever else the user allows;
* ``--allow-variant-plugin provider-fictional-hw`` installs it into an
  isolated directory (never into the user's environment: ``pip list``) and
  its ordering decides; ``NAME==VERSION`` trusts that version only;
* ``--no-variants`` / ``PIP_NO_VARIANTS=1`` run no provider at all, even an
  installed plugin or an allowed one; pip commands that do not install
  (``list``, ``index versions``) never run one either;
* the metadata cannot turn the "already installed plugin" rule into a way to
  import any installed module (``requires`` naming pip, ``plugin-api``
  naming something else).

The same decisions are checked at library level on the support ladder
(what it would install, and that no plugin process starts when it must not).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from support.venvs import pick, run_pip, run_python
from support.wheels import FICTIONAL_PROVIDER, build_wheel, variants_json

PLAIN = "pkg-1.0-py3-none-any.whl"
PLUGIN = "provider-fictional-hw"
NS = "fictional_hw"


def vfile(label: str) -> str:
    return f"pkg-1.0-py3-none-any-{label}.whl"


def assert_no_crash(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text
        assert "internal error" not in text, text


def release(providers=None, namespaces=(NS,)) -> dict:
    return variants_json(
        "pkg",
        "1.0",
        namespaces=list(namespaces),
        providers=providers or {NS: FICTIONAL_PROVIDER},
        variants={"hw1": {NS: {"tech": ["x1"]}}, "hw2": {NS: {"tech": ["x2"]}}, "null": {}},
    )


def plugin_source(marker: Path, values, tag: str = "1.0") -> str:
    return f"""
import os
with open({str(marker)!r}, "a") as _f:
    _f.write("imported {tag} in pid %d\\n" % os.getpid())

class FictionalHwPlugin:
    namespace = {NS!r}

    @staticmethod
    def get_supported_configs():
        with open({str(marker)!r}, "a") as f:
            f.write("called {tag}\\n")
        return [{{"name": "tech", "values": {list(values)!r}}}]

    @staticmethod
    def get_all_configs():
        return [{{"name": "tech", "values": ["x1", "x2"]}}]

Plugin = FictionalHwPlugin
"""


@pytest.fixture
def marker(tmp_path) -> Path:
    return tmp_path / "plugin-ran.txt"


@pytest.fixture
def plugin_on_index(index, tmp_path, marker, make_plugin):
    """provider-fictional-hw 1.0 on the index (x2 before x1)."""
    wheel = make_plugin(
        tmp_path / "plugin-1.0", PLUGIN, plugin_source(marker, ["x2", "x1"]), namespace=NS
    )
    index.add_file(PLUGIN, wheel)
    return wheel


def provider_requests(index):
    return [p for p in index.requested() if "provider" in p]


def installed_names(venv):
    listed = json.loads(run_pip(venv, "list", "--format", "json").stdout)
    return {item["name"].lower().replace("_", "-") for item in listed}


# -- without consent ---------------------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize(
    "allow",
    [
        [],
        ["some-other-plugin"],
        ["provider-fictional"],
        ["provider-fictional-hw-evil"],
        ["fictional_hw"],
    ],
    ids=["nothing", "another-name", "a-prefix", "a-longer-name", "the-namespace"],
)
def test_untrusted_plugin_is_never_fetched_installed_or_imported(
    variant_venv, publish, index, plugin_on_index, marker, tmp_path, allow
):
    publish("pkg", "1.0", release())
    cache = tmp_path / "variants-cache"
    args = [a for name in allow for a in ("--allow-variant-plugin", name)]
    chosen, _, stderr = pick(variant_venv, index, "pkg", *args, PIP_VARIANTS_CACHE_DIR=str(cache))
    assert chosen == vfile("null"), stderr
    assert_no_crash(stderr)
    assert provider_requests(index) == [], index.requests_log
    assert not marker.exists(), marker.read_text()
    assert not (cache / "plugins").exists()
    hint = [
        line
        for line in stderr.splitlines()
        if "--allow-variant-plugin provider-fictional-hw" in line
    ]
    assert len(hint) == 1 and "not installed and not trusted" in hint[0], stderr
    assert PLUGIN not in installed_names(variant_venv)


@pytest.mark.e2e
def test_untrusted_plugin_with_a_real_install(fresh_venv, publish, index, plugin_on_index, marker):
    publish("pkg", "1.0", release())
    proc = run_pip(fresh_venv, "install", "--index-url", index.url, "pkg")
    assert_no_crash(proc.stderr)
    assert run_python(fresh_venv, "-c", "import pkg; print(pkg.VARIANT)").stdout.strip() == "null"
    assert provider_requests(index) == [] and not marker.exists()
    assert PLUGIN not in installed_names(fresh_venv)


# -- with consent --------------------------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize("how", ["option", "env"])
def test_allowed_plugin_is_installed_isolated_and_its_order_used(
    fresh_venv, publish, index, plugin_on_index, marker, tmp_path, how
):
    publish("pkg", "1.0", release())
    cache = tmp_path / "variants-cache"
    args, env = (
        (["--allow-variant-plugin", PLUGIN], {})
        if how == "option"
        else ([], {"PIP_ALLOW_VARIANT_PLUGIN": PLUGIN})
    )
    proc = run_pip(
        fresh_venv,
        "install",
        "--index-url",
        index.url,
        *args,
        "pkg",
        env={"PIP_VARIANTS_CACHE_DIR": str(cache), **env},
    )
    assert_no_crash(proc.stderr)
    # The plugin ran (out of process) and its order decided: x2 before x1.
    assert run_python(fresh_venv, "-c", "import pkg; print(pkg.VARIANT)").stdout.strip() == "hw2"
    log = marker.read_text()
    assert "imported 1.0" in log and "called 1.0" in log
    assert f"imported 1.0 in pid {os.getpid()}" not in log
    assert any(p.startswith("/files/provider-fictional-hw/") for p in provider_requests(index))
    # Isolated: in the cache, not in the environment.
    assert PLUGIN not in installed_names(fresh_venv)
    probe = run_python(fresh_venv, "-c", "import provider_fictional_hw")
    assert probe.returncode != 0 and "ModuleNotFoundError" in probe.stderr
    isolated = list((cache / "plugins").glob("plugins-*/provider_fictional_hw/plugin.py"))
    assert len(isolated) == 1, list((cache / "plugins").rglob("*"))


@pytest.mark.e2e
def test_allowed_version_pin_is_honoured(
    variant_venv, publish, index, tmp_path, marker, make_plugin
):
    """``--allow-variant-plugin NAME==1.0`` trusts 1.0 only: a newer (say,
    compromised) 2.0 on the index must never be fetched or run."""
    publish("pkg", "1.0", release())
    for version, values in (("1.0", ["x2", "x1"]), ("2.0", ["x1", "x2"])):
        wheel = make_plugin(
            tmp_path / f"plugin-{version}",
            PLUGIN,
            plugin_source(marker, values, tag=version),
            namespace=NS,
            version=version,
        )
        index.add_file(PLUGIN, wheel)
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--allow-variant-plugin", f"{PLUGIN}==1.0")
    assert_no_crash(stderr)
    assert not [p for p in index.downloaded() if "-2.0-" in p], index.downloaded()
    assert "2.0" not in marker.read_text(), marker.read_text()
    assert chosen == vfile("hw2"), stderr


@pytest.mark.e2e
def test_allowed_version_that_the_metadata_excludes_runs_nothing(
    variant_venv, publish, index, plugin_on_index, marker
):
    """The user trusts 0.9 only; the release requires >=1.0: nothing is trusted."""
    publish("pkg", "1.0", release())
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--allow-variant-plugin", f"{PLUGIN}==0.9")
    assert chosen == vfile("null"), stderr
    assert_no_crash(stderr)
    assert provider_requests(index) == [] and not marker.exists()


@pytest.mark.e2e
def test_allowed_plugin_that_cannot_be_installed_falls_back(variant_venv, publish, index, tmp_path):
    """Allowed, but the index does not have it: one warning naming it, null chosen."""
    publish("pkg", "1.0", release())
    chosen, _, stderr = pick(variant_venv, index, "pkg", "--allow-variant-plugin", PLUGIN)
    assert chosen == vfile("null"), stderr
    assert_no_crash(stderr)
    lines = [
        line
        for line in stderr.splitlines()
        if PLUGIN in line and "installing the plugin failed" in line
    ]
    assert len(lines) == 1, stderr


# -- switched off --------------------------------------------------------------------------


@pytest.fixture
def plugin_installed(fresh_venv, index, tmp_path, marker, make_plugin):
    """provider-fictional-hw installed in the environment itself (trusted by
    installation) and also on the index."""
    wheel = make_plugin(
        tmp_path / "plugin-1.0", PLUGIN, plugin_source(marker, ["x2", "x1"]), namespace=NS
    )
    run_pip(fresh_venv, "install", "--no-index", "--no-deps", wheel)
    index.add_file(PLUGIN, wheel)
    marker.unlink(missing_ok=True)  # pip may byte-compile; imports only count from here
    return fresh_venv


@pytest.mark.e2e
def test_installed_plugin_runs_when_variants_are_on(plugin_installed, publish, index, marker):
    """The control for the next test: the marker does show a run."""
    publish("pkg", "1.0", release())
    chosen, _, stderr = pick(plugin_installed, index, "pkg")
    assert chosen == vfile("hw2"), stderr
    assert "called 1.0" in marker.read_text()


@pytest.mark.e2e
@pytest.mark.parametrize(
    "args, env",
    [
        (["--no-variants"], {}),
        ([], {"PIP_NO_VARIANTS": "1"}),
        (["--no-variants", "--allow-variant-plugin", PLUGIN], {}),
        ([], {"PIP_NO_VARIANTS": "yes", "PIP_ALLOW_VARIANT_PLUGIN": PLUGIN}),
    ],
    ids=["option", "env", "option-and-allow", "env-and-allow"],
)
def test_no_variants_runs_no_provider_at_all(plugin_installed, publish, index, marker, args, env):
    publish("pkg", "1.0", release())
    chosen, _, stderr = pick(plugin_installed, index, "pkg", *args, **env)
    assert chosen == PLAIN, stderr
    assert_no_crash(stderr)
    assert not marker.exists(), marker.read_text()
    assert provider_requests(index) == [], index.requests_log


@pytest.mark.e2e
def test_commands_that_install_nothing_run_no_provider(plugin_installed, publish, index, marker):
    publish("pkg", "1.0", release())
    for cmd in (
        ["list"],
        ["index", "versions", "pkg", "--index-url", index.url],
        ["check"],
        ["show", PLUGIN],
    ):
        proc = run_pip(plugin_installed, *cmd, check=False)
        assert_no_crash(proc.stderr)
    assert not marker.exists(), marker.read_text()


# -- the metadata cannot pick which installed code runs ------------------------------------

HIJACK = (
    "pip_variants/support.py SupportResolver._from_code: an 'installed plugin' is recognised by "
    "the requires name only, and plugin-api is imported whatever module it names, so an index "
    "can make pip-variants import any installed module (e.g. requires pip, plugin-api "
    "unittest.__main__, which runs tests found in the current directory)"
)


@pytest.mark.e2e
def test_plugin_api_cannot_name_a_module_outside_the_required_distribution(
    fresh_venv, publish, index, tmp_path, marker
):
    """``requires: ["pip"]`` is always installed; ``plugin-api`` names an
    unrelated installed module with import-time side effects."""
    lib = build_wheel(
        tmp_path / "lib",
        "innocent-lib",
        "1.0",
        files={"innocent_lib/effects.py": f"open({str(marker)!r}, 'a').write('imported\\n')\n"},
    )
    run_pip(fresh_venv, "install", "--no-index", "--no-deps", lib)
    marker.unlink(missing_ok=True)
    publish(
        "pkg", "1.0", release({NS: {"requires": ["pip>=1"], "plugin-api": "innocent_lib.effects"}})
    )
    chosen, _, stderr = pick(fresh_venv, index, "pkg")
    assert chosen == vfile("null"), stderr
    assert_no_crash(stderr)
    assert not marker.exists(), HIJACK


@pytest.mark.e2e
def test_plugin_api_cannot_run_test_files_of_the_current_directory(
    variant_venv, publish, index, tmp_path, marker
):
    work = tmp_path / "project"
    work.mkdir()
    (work / "test_local.py").write_text(f"open({str(marker)!r}, 'a').write('local test ran\\n')\n")
    publish("pkg", "1.0", release({NS: {"requires": ["pip"], "plugin-api": "unittest.__main__"}}))
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(work)
        chosen, _, stderr = pick(variant_venv, index, "pkg")
    assert chosen == vfile("null"), stderr
    assert_no_crash(stderr)
    assert not marker.exists(), HIJACK


# -- library level: the ladder's trust decisions ------------------------------------------


def _ladder(allow=(), installer=None):
    from pip_variants.support import SupportResolver, SupportSettings

    settings = SupportSettings(allowed_plugins=tuple(allow), use_cache=False)
    return SupportResolver(settings, plugin_installer=installer)


def _answer(resolver, providers=None):
    from pip_variants.metadata import parse_metadata

    supported, answers = resolver.supported_for(parse_metadata(release(providers), "t.json"))
    return supported, answers[0]


@pytest.fixture
def no_runner(mocker):
    """Fail the test if any plugin process would be started."""
    return mocker.patch(
        "pip_variants.providers.plugins.run_plugins", side_effect=AssertionError("a plugin ran")
    )


@pytest.mark.parametrize(
    "allow, installed",
    [
        ([PLUGIN], ["provider-fictional-hw>=1.0"]),
        ([f"{PLUGIN}==1.2"], ["provider-fictional-hw==1.2"]),
        (["Provider_Fictional.HW == 1.2"], ["provider-fictional-hw==1.2"]),
    ],
)
def test_ladder_installs_exactly_what_the_user_allowed(no_runner, allow, installed):
    calls = []

    def installer(reqs):
        calls.append(list(reqs))
        raise OSError("stop here")

    _, answer = _answer(_ladder(allow, installer))
    assert calls == [installed]
    assert answer.source == "failed"


@pytest.mark.parametrize("allow", [[f"{PLUGIN}==0.9"], ["provider-fictional"], ["fictional-hw"]])
def test_ladder_never_installs_what_the_user_did_not_allow(no_runner, allow):
    def installer(reqs):
        raise AssertionError(f"installed {reqs}")

    supported, answer = _answer(_ladder(allow, installer))
    assert supported == {} and answer.source == "untrusted", answer


@pytest.mark.parametrize(
    "requires, allow, installed",
    [
        ([PLUGIN, "helper-lib>=2"], [PLUGIN, "helper-lib"], [PLUGIN, "helper-lib>=2"]),
        ([PLUGIN, "helper-lib"], [f"{PLUGIN}==1.2", "helper-lib==3"], [f"{PLUGIN}==1.2", "helper-lib==3"]),
        ([PLUGIN, "helper-lib ; python_version < '3'"], [PLUGIN], [PLUGIN]),
    ],
)
def test_ladder_installs_every_required_package_once_each_is_allowed(no_runner, requires, allow, installed):
    calls = []

    def installer(reqs):
        calls.append(list(reqs))
        raise OSError("stop here")

    _answer(_ladder(allow, installer), {NS: {"requires": requires, "plugin-api": "fictional_hw:Plugin"}})
    assert calls == [installed]


@pytest.mark.parametrize(
    "requires, allow, notice",
    [
        # PV-17: one untrusted package makes the whole entry untrusted
        ([PLUGIN, "evil-pkg"], [PLUGIN], "also needs evil-pkg, which is not trusted"),
        ([PLUGIN, "evil-pkg", "other"], [PLUGIN], "--allow-variant-plugin evil-pkg --allow-variant-plugin other"),
        # allowed by name, but the code would come from anywhere
        ([f"{PLUGIN} @ https://evil.example/p-1.0.tar.gz"], [PLUGIN], "is to come from https://evil.example/"),
        ([PLUGIN, "helper @ https://evil.example/h.whl"], [PLUGIN, "helper"], "not from an index"),
    ],
)
def test_ladder_installs_nothing_when_one_required_package_is_not_trusted(no_runner, requires, allow, notice):
    def installer(reqs):
        raise AssertionError(f"installed {reqs}")

    supported, answer = _answer(_ladder(allow, installer),
                                {NS: {"requires": requires, "plugin-api": "fictional_hw:Plugin"}})
    assert supported == {} and answer.source == "untrusted", answer
    assert notice in answer.notice


@pytest.mark.parametrize(
    "requires, api",
    [
        (["pip"], "unittest.__main__"),
        (["pip>=1"], "antigravity"),
        (["pytest"], "os:system"),
        (["pip"], "pip_variants.cli:main"),
    ],
)
def test_installed_distribution_does_not_vouch_for_another_module(no_runner, requires, api):
    supported, answer = _answer(_ladder(), {NS: {"requires": requires, "plugin-api": api}})
    assert supported == {} and answer.source == "untrusted"
    what = "names a __main__ module" if "__main__" in api else "is not part of"
    assert f"plugin-api {api!r} {what}" in answer.notice


@pytest.mark.parametrize("requires, api", [(["pip"], "pip.__main__"), (["pytest"], "pytest.__main__:x")])
def test_installed_distribution_does_not_vouch_for_its_own_program(no_runner, requires, api):
    """An installed package's __main__ runs its command line when imported: an
    index must not be able to start it by naming it as a plugin."""
    supported, answer = _answer(_ladder(), {NS: {"requires": requires, "plugin-api": api}})
    assert supported == {} and answer.source == "untrusted"
    assert f"plugin-api {api!r} names a __main__ module (importing it runs a program)" in answer.notice


def test_installed_distribution_vouches_for_its_own_module(mocker):
    """The same rule lets a real installed plugin run (pytest stands in for it)."""
    from pip_variants.providers.plugins import PluginResult
    from pip_variants.providers.base import FeatureConfig

    api = "_pytest.main:Plugin"  # a module every pytest release ships
    run = mocker.patch(
        "pip_variants.providers.plugins.run_plugins",
        return_value={api: PluginResult(api, [FeatureConfig("tech", ("x2", "x1"))], NS)},
    )
    supported, answer = _answer(_ladder(), {NS: {"requires": ["pytest"], "plugin-api": api}})
    assert run.called and answer.source == f"plugin:{api}"
    assert supported == {NS: {"tech": ("x2", "x1")}}
