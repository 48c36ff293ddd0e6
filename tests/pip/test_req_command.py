"""H8: settings from the options, exported to the environment."""

from __future__ import annotations

import json
import os

import pytest
from _helpers import make_finder, options, variant_finder

from pip_variants._pip.context import ATTR
from pip_variants._pip.errors import VariantInstallationError
from pip_variants._pip.req_command import configure_finder
from pip_variants._pip.state import STATE


def _configure(command="install", finder=None, **opts):
    finder = finder or make_finder()
    return finder, configure_finder(command, options(**opts), finder._link_collector.session, finder)


def test_enables_variants(patched):
    finder, ctx = _configure()
    assert ctx is getattr(finder, ATTR)
    assert STATE.enabled and STATE.labels and STATE.command == "install"


def test_settings_reach_the_engine(patched, tmp_path):
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps({"nvidia": {"sm_arch": ["90_real"]}}))
    _, ctx = _configure(
        pip_variants_variant=["Torch=cu128"], pip_variants_profile=str(profile),
        pip_variants_allow_plugin=["foo-plugin"], pip_variants_enable=["tpu,x"],
        pip_variants_strict=True,
    )
    settings = ctx.engine.settings
    assert dict(settings.forced) == {"torch": "cu128"}
    assert settings.support.profile == {"nvidia": {"sm_arch": ("90_real",)}}
    assert settings.support.allowed_plugins == ("foo-plugin",)
    assert settings.support.enabled_optional == ("tpu", "x")
    assert settings.support.strict is True


def test_exports_effective_settings(patched, tmp_path):
    profile = tmp_path / "p.json"
    profile.write_text("{}")
    _configure(pip_variants_variant=["torch=cu128", "numpy=v3"], pip_variants_profile=str(profile),
               pip_variants_allow_plugin=["a"], pip_variants_strict=True)
    assert os.environ["PIP_VARIANT"] == "torch=cu128 numpy=v3"
    assert os.environ["PIP_VARIANT_PROFILE"] == str(profile)
    assert os.environ["PIP_ALLOW_VARIANT_PLUGIN"] == "a"
    assert os.environ["PIP_VARIANT_STRICT"] == "1"
    assert "PIP_NO_VARIANTS" not in os.environ


def test_every_exported_variable_is_restored_after_the_command():
    from pip_variants._pip.req_command import _EXPORTED, Options

    assert set(_EXPORTED) == set(Options(options()).environment())


def test_exclusions_disabled_namespaces_and_priorities_reach_the_engine(patched, tmp_path):
    config = tmp_path / "variants.toml"
    config.write_text('namespace_priorities = ["x86_64"]\nenable_optional_plugins = ["dbg"]\n')
    _, ctx = _configure(pip_variants_exclude=["Torch=cu126 torch=cu128"], pip_variants_disable=["tpu,amd"],
                        pip_variants_config=str(config), pip_variants_enable=["x"])
    settings = ctx.engine.settings
    assert dict(settings.excluded) == {"torch": ("cu126", "cu128")}
    assert settings.preferences.namespaces == ("x86_64",)
    assert settings.support.disabled == ("tpu", "amd")
    assert settings.support.enabled_optional == ("x", "dbg")
    assert os.environ["PIP_VARIANT_EXCLUDE"] == "Torch=cu126 torch=cu128"
    assert os.environ["PIP_VARIANT_DISABLE"] == "tpu amd"
    assert os.environ["PIP_VARIANT_CONFIG"] == str(config)


def test_bad_config_or_exclusion_is_a_pip_error(patched, tmp_path):
    bad = tmp_path / "variants.toml"
    bad.write_text("namespace_priorities = 'x86_64'\n")
    with pytest.raises(VariantInstallationError, match=f"variant config {bad}: namespace_priorities must be a list"):
        _configure(pip_variants_config=str(bad))
    with pytest.raises(VariantInstallationError, match="invalid --variant-exclude value 'torch'"):
        _configure(pip_variants_exclude=["torch"])


def test_no_variants(patched):
    finder, ctx = _configure(pip_variants_no_variants=True)
    assert ctx is None and getattr(finder, ATTR, None) is None
    assert not STATE.enabled
    assert os.environ["PIP_NO_VARIANTS"] == "1"


def test_lock_runs_with_variants_off(patched, caplog):
    with caplog.at_level("INFO", logger="pip_variants"):
        _, ctx = _configure("lock")
    assert ctx is None and not STATE.enabled
    assert "pip lock cannot record wheel variants yet" in caplog.text


def _warnings(caplog):
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


def _from_pip(tmp_path, monkeypatch, *argv, conf="", **variables):
    """configure_finder as pip calls it: the options pip parsed from ``argv``,
    pip.conf ``conf`` and ``variables``, and the command's parser."""
    from pip._internal.commands import create_command

    path = tmp_path / "pip.conf"
    path.write_text(conf)
    monkeypatch.setenv("PIP_CONFIG_FILE", str(path))
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    command = create_command("install", isolated="--isolated" in argv)  # as pip's main() does
    parsed, _ = command.parse_args(list(argv))
    finder = make_finder()
    return configure_finder("install", parsed, finder._link_collector.session, finder, command.parser)


def test_no_variants_says_a_variant_option_is_ignored(patched, caplog):
    _configure(pip_variants_no_variants=True, pip_variants_variant=["torch=cu126"])
    assert _warnings(caplog) == ["pip-variants: variants are off (--no-variants), so --variant torch=cu126 "
                                 "is ignored: pip takes no variant wheel"]


def test_no_variants_from_pip_config_says_so(patched, caplog, monkeypatch):
    monkeypatch.setattr(STATE, "no_variants_in_configuration", True)
    _configure(pip_variants_no_variants=True, pip_variants_variant=["torch=cu126", "jax=tpu"])
    assert _warnings(caplog) == ["pip-variants: variants are off (no-variants in pip's configuration), so "
                                 "--variant torch=cu126 --variant jax=tpu is ignored: pip takes no variant wheel"]


def test_a_variant_from_pip_config_is_named_as_such(patched, caplog, tmp_path, monkeypatch):
    _from_pip(tmp_path, monkeypatch, "--no-variants", "--variant", "acme=a2",
              conf="[install]\nvariant = torch=cu126 jax=tpu\n")
    assert _warnings(caplog) == ["pip-variants: variants are off (--no-variants), so --variant acme=a2 "
                                 "variant = torch=cu126 jax=tpu (pip's configuration) is ignored: "
                                 "pip takes no variant wheel"]


def test_no_variants_alone_warns_nothing(patched, caplog):
    _configure(pip_variants_no_variants=True, pip_variants_variant_profile=None)
    assert _warnings(caplog) == []


def test_lock_says_a_variant_option_is_ignored(patched, caplog):
    _, ctx = _configure("lock", pip_variants_variant=["torch=cu126"])
    assert ctx is None
    assert _warnings(caplog) == ["pip-variants: pip lock cannot record wheel variants yet and locks with variants "
                                 "off, so --variant torch=cu126 is ignored: pip takes no variant wheel"]


def test_cross_target_without_profile_turns_variants_off(patched, caplog):
    from pip._internal.models.target_python import TargetPython

    finder = make_finder()
    finder._target_python = TargetPython(platforms=["manylinux_2_28_aarch64"])
    with caplog.at_level("WARNING", logger="pip_variants"):
        _, ctx = _configure(finder=finder)
    assert ctx is None
    # said once a variant wheel is met (H2, H6): a download without any stays silent
    assert "for another machine" not in caplog.text
    assert STATE.cross_target_note.startswith("pip-variants: --platform selects for another machine, so variant "
                                              "wheels are ignored; pass --variant-profile FILE")


def test_cross_target_with_profile(patched, tmp_path):
    from pip._internal.models.target_python import TargetPython

    profile = tmp_path / "p.json"
    profile.write_text("{}")
    finder = make_finder()
    finder._target_python = TargetPython(py_version_info=(3, 12))
    _, ctx = _configure(finder=finder, pip_variants_profile=str(profile))
    assert ctx is not None


def test_bad_profile_is_a_pip_error(patched, tmp_path):
    from pip._internal.exceptions import InstallationError

    with pytest.raises(InstallationError, match="not valid JSON"):
        bad = tmp_path / "bad.json"
        bad.write_text("{")
        _configure(pip_variants_profile=str(bad))


def test_bad_variant_value_is_a_pip_error(patched, monkeypatch, tmp_path):
    monkeypatch.delenv("PIP_VARIANT", raising=False)
    with pytest.raises(VariantInstallationError, match="expected NAME=LABEL, e.g. torch=cu128$"):
        _configure(pip_variants_variant=["torch"])
    # in pip.conf (with a good one typed): said so
    monkeypatch.delenv("PIP_VARIANT", raising=False)  # (the first command exported it)
    with pytest.raises(VariantInstallationError, match=r"'torch'.* torch=cu128 \(from pip's configuration: "
                                                        r"'pip config list' shows which file\)$"):
        _from_pip(tmp_path, monkeypatch, "--variant", "acme=a2", conf="[install]\nvariant = torch\n")


def test_isolated_mode_reads_no_variable(patched, monkeypatch, tmp_path):
    # pip --isolated ignores PIP_* variables: so does what pip-variants says about them
    ctx = _from_pip(tmp_path, monkeypatch, "--isolated", "--variant", "demo=x2", PIP_VARIANT="demo=BAD")
    assert ctx is not None and STATE.forced_by_variable == {}
    from pip_variants._pip.state import variant_option

    assert variant_option("demo", "x2") == "--variant demo=x2"
    # ... but still reads PIP_CONFIG_FILE (and the global and site files)
    monkeypatch.delenv("PIP_VARIANT", raising=False)
    _from_pip(tmp_path, monkeypatch, "--isolated", conf="[install]\nvariant = demo=x3\n")
    assert variant_option("demo", "x3") == "variant = demo=x3 (pip's configuration)"


def test_comma_separated_namespace_variables_are_read_as_pip_variants_reads_them(patched, monkeypatch, tmp_path):
    with pytest.raises(VariantInstallationError) as failure:
        _from_pip(tmp_path, monkeypatch, "--variant-disable", "bad!", PIP_VARIANT_DISABLE="nvidia,x86_64")
    assert "'bad!'" in str(failure.value) and "environment variable" not in str(failure.value)


def test_a_bad_variant_value_from_the_environment_says_so(patched, monkeypatch):
    monkeypatch.setenv("PIP_VARIANT", "torch")  # pip merges it into the option
    with pytest.raises(VariantInstallationError, match=r"'torch'.*\(from the PIP_VARIANT environment variable\)"):
        _configure(pip_variants_variant=["torch"])


def test_plugin_installer_runs_this_pip(patched, monkeypatch):
    from pip_variants.providers import isolated

    seen = {}

    def fake(requirements, cache_root, **kwargs):
        seen.update(kwargs, requirements=requirements, cache_root=cache_root)
        return "/plugins"

    monkeypatch.setattr(isolated, "isolated_plugin_dir", fake)
    finder = make_finder(find_links=["/tmp/somewhere"], index_urls=["https://example.invalid/simple"])
    _, ctx = _configure(finder=finder)
    assert ctx.engine.resolver.plugin_installer(["foo>=1"]) == "/plugins"
    import sys

    assert seen["pip_command"][0] == sys.executable
    assert seen["pip_command"][1].endswith(("__pip-runner__.py", "pip"))
    args = seen["pip_args"]
    assert args[:2] == ["--index-url", "https://example.invalid/simple"]
    assert "--find-links" in args


def test_a_choice_from_the_variable_is_named_as_the_variable(patched, monkeypatch):
    from pip_variants._pip.state import variant_option

    monkeypatch.setenv("PIP_VARIANT", "Torch=cu128")  # pip merges it into the option
    _configure(pip_variants_variant=["Torch=cu128", "numpy=v3"])
    assert variant_option("torch", "cu128") == 'PIP_VARIANT="torch=cu128"'
    assert variant_option("numpy", "v3") == "--variant numpy=v3"
    assert variant_option("torch", "cu126") == "--variant torch=cu126"


def test_the_plugin_installer_gets_the_commands_network_options():
    from pip_variants._pip.req_command import _network_args

    assert _network_args(options(isolated_mode=True, timeout=2.0, retries=1)) == [
        "--isolated", "--timeout", "2.0", "--retries", "1"]
    assert _network_args(options(isolated_mode=False, timeout=15.0, retries=5)) == [
        "--timeout", "15.0", "--retries", "5"]


@pytest.mark.parametrize("from_variable", [True, False])
def test_a_bad_namespace_is_blamed_on_the_variable_only_when_it_came_from_there(patched, monkeypatch,
                                                                                from_variable):
    if from_variable:
        monkeypatch.setenv("PIP_VARIANT_ENABLE", "NVIDIA")  # pip merges it into the option
    with pytest.raises(VariantInstallationError) as failure:
        _configure(pip_variants_enable=["NVIDIA"])
    assert ("from the PIP_VARIANT_ENABLE environment variable" in str(failure.value)) is from_variable


@pytest.mark.parametrize("value", ["acme-variant-provider>=1", "acme-variant-provider==1.*", "acme[x]",
                                   "acme-variant-provider===1.0", "acme==", "==1.0", "acme==latest", "acme==1.0-"])
def test_allow_variant_plugin_takes_a_name_or_one_version(patched, value, monkeypatch):
    monkeypatch.delenv("PIP_ALLOW_VARIANT_PLUGIN", raising=False)
    with pytest.raises(VariantInstallationError, match=r"invalid --allow-variant-plugin value .*expected NAME or "
                                                        r"NAME==VERSION") as failure:
        variant_finder(pip_variants_allow_plugin=[value])
    if value[0].isalpha():
        assert "--allow-variant-plugin acme" in str(failure.value)
    monkeypatch.setenv("PIP_ALLOW_VARIANT_PLUGIN", value)  # pip merges it into the option
    with pytest.raises(VariantInstallationError, match=r"\(from the PIP_ALLOW_VARIANT_PLUGIN environment variable\)"):
        variant_finder(pip_variants_allow_plugin=[value])


def test_allow_variant_plugin_accepts_names_and_pins(patched, monkeypatch):
    monkeypatch.delenv("PIP_ALLOW_VARIANT_PLUGIN", raising=False)
    variant_finder(pip_variants_allow_plugin=["Acme.Variant_Provider", "x==1.0.post1", "y==2!1.0+local"])


def test_a_choice_from_pip_config_is_named_as_the_config_setting(patched, monkeypatch, tmp_path):
    from pip_variants._pip.state import variant_option

    monkeypatch.delenv("PIP_VARIANT", raising=False)
    _from_pip(tmp_path, monkeypatch, conf="[global]\nvariant = torch=cu126\n")
    assert variant_option("torch", "cu126") == "variant = torch=cu126 (pip's configuration)"
    monkeypatch.delenv("PIP_VARIANT", raising=False)  # (the first command exported it)
    _from_pip(tmp_path, monkeypatch, "--variant", "torch=cu126")
    assert variant_option("torch", "cu126") == "--variant torch=cu126"


@pytest.mark.parametrize("key", ["variant-profile", "variant-config"])
def test_a_bad_file_setting_says_where_it_came_from(patched, monkeypatch, tmp_path, key):
    variable = "PIP_" + key.upper().replace("-", "_")
    missing = str(tmp_path / "missing.json")
    monkeypatch.delenv(variable, raising=False)
    with pytest.raises(VariantInstallationError) as failure:
        _from_pip(tmp_path, monkeypatch, f"--{key}", missing)
    assert str(failure.value).endswith("No such file or directory")  # typed: nothing added
    monkeypatch.delenv(variable, raising=False)
    with pytest.raises(VariantInstallationError, match=rf"\(from the {variable} environment variable\)$"):
        _from_pip(tmp_path, monkeypatch, **{variable: missing})
    monkeypatch.delenv(variable, raising=False)
    with pytest.raises(VariantInstallationError, match=r"\(from pip's configuration: 'pip config list' shows "
                                                        r"which file\)$"):
        _from_pip(tmp_path, monkeypatch, conf=f"[install]\n{key} = {missing}\n")


def test_a_bad_exclude_setting_says_where_it_came_from(patched, monkeypatch, tmp_path):
    monkeypatch.delenv("PIP_VARIANT_EXCLUDE", raising=False)
    with pytest.raises(VariantInstallationError, match=r"expected NAME=LABEL, e.g. torch=cu128$"):
        _from_pip(tmp_path, monkeypatch, "--variant-exclude", "demopkg")
    monkeypatch.delenv("PIP_VARIANT_EXCLUDE", raising=False)
    with pytest.raises(VariantInstallationError, match=r"\(from the PIP_VARIANT_EXCLUDE environment variable\)$"):
        _from_pip(tmp_path, monkeypatch, "--variant-exclude", "demo=x1", PIP_VARIANT_EXCLUDE="demopkg")
    monkeypatch.delenv("PIP_VARIANT_EXCLUDE", raising=False)
    with pytest.raises(VariantInstallationError, match=r"\(from pip's configuration: 'pip config list' shows "
                                                        r"which file\)$"):
        _from_pip(tmp_path, monkeypatch, conf="[install]\nvariant-exclude = demopkg\n")


def _finder_outside_main(argv):
    """What pip-tools does: a command object's finder, built outside pip's main()."""
    from pip._internal.commands import create_command

    command = create_command("install")
    options, _ = command.parse_args(list(argv))
    session = command._build_session(options)
    return command, command._build_package_finder(options, session)


def test_a_finder_built_outside_pips_main_leaves_the_environment_as_it_was(patched, monkeypatch, tmp_path):
    monkeypatch.setenv("PIP_CONFIG_FILE", str(tmp_path / "none.conf"))
    monkeypatch.delenv("PIP_NO_VARIANTS", raising=False)
    monkeypatch.delenv("PIP_VARIANT", raising=False)
    _finder_outside_main(["--no-variants"])
    assert "PIP_NO_VARIANTS" not in os.environ  # the program's next pip is not turned off
    _finder_outside_main(["--variant", "pkg=fv1"])
    assert "PIP_VARIANT" not in os.environ
    assert STATE.enabled  # the second command chose variants: the first one's --no-variants is gone


def test_a_second_command_in_one_process_says_its_lines_again(patched, monkeypatch, tmp_path, caplog):
    from pip_variants._pip import messages

    monkeypatch.setenv("PIP_CONFIG_FILE", str(tmp_path / "none.conf"))
    with caplog.at_level("WARNING", logger="pip_variants"):
        for _ in range(2):
            _finder_outside_main(["--variant-disable", "nvida"])
            messages.warn_once("pip-variants: a line of the command")
    assert [r.getMessage() for r in caplog.records].count("pip-variants: a line of the command") == 2


def test_pips_main_run_twice_in_one_process_says_the_chosen_build_each_time(patched, pkg_dir, monkeypatch,
                                                                           tmp_path, capsys):
    from pip._internal.cli.main import main

    monkeypatch.setenv("PIP_CONFIG_FILE", str(tmp_path / "none.conf"))
    args = ["install", "--dry-run", "--no-index", "--find-links", str(pkg_dir), "--no-cache-dir",
            "--disable-pip-version-check", "pkg"]
    for _ in range(2):
        assert main(list(args)) == 0
    out = capsys.readouterr().out
    assert out.count("pkg 1.0: variant fv3") == 2, out
    assert STATE.commands_running == 0
