"""The built-in amd provider: KFD sysfs, the ROCm tools fallback, .info/version, overrides.

Expected lists are those of amd-variant-provider 0.0.2 on the same machine
(digest PROVIDERS-AMD-INTEL.md §1.2-§1.5).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pip_variants.providers import amd
from pip_variants.providers.amd import (
    ALL_GFX_ARCHS,
    ALL_ROCM_VERSIONS,
    FORCE_GFX_ENV,
    FORCE_ROCM_ENV,
    HSA_OVERRIDE_ENV,
    VISIBLE_DEVICES_ENV,
    AmdProvider,
    gfx_name,
    kfd_gfx_archs,
    parse_hsa_override,
    parse_forced_rocm_version,
    read_rocm_version,
    tool_gfx_archs,
)
from pip_variants.providers.base import FeatureConfig, ProviderError
from pip_variants.providers.cache import cache_key, cached_supported_configs
from support.fakehw import GFX_TARGET_VERSIONS, UNIQUE_ID_BASE, dev_tree, kfd_tree, rocm_tree


def gfx(*names: str) -> FeatureConfig:
    return FeatureConfig("gfx_arch", names, multi_value=True)


def rocm(version: str) -> FeatureConfig:
    return FeatureConfig("rocm_version", (version,))


@pytest.fixture
def no_tools(monkeypatch, tmp_path):
    """No rocminfo / rocm_agent_enumerator anywhere on PATH."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def provider(tmp_path: Path, gpus=(), version=None, **kwargs) -> AmdProvider:
    sysfs = kfd_tree(tmp_path / "sys", gpus)
    root = rocm_tree(tmp_path / "rocm", version) if version else tmp_path / "no-rocm"
    return AmdProvider(sysfs_root=str(sysfs), rocm_path=str(root), **kwargs)


# -- gfx_target_version decoding ---------------------------------------------------------


@pytest.mark.parametrize("name, version", sorted(GFX_TARGET_VERSIONS.items()))
def test_gfx_name_decodes_every_known_target(name, version):
    assert gfx_name(version) == name


def test_gfx_name_zero_is_a_cpu():
    assert gfx_name(0) is None


# -- test vectors (digest §1.5) -------------------------------------------------------------


def test_nothing_installed_gives_nothing(tmp_path, no_tools):
    p = AmdProvider(sysfs_root=str(tmp_path / "no-sys"), rocm_path=str(tmp_path / "no-rocm"))
    assert p.supported_configs() == []


def test_mi300x_with_rocm_6_4_1(tmp_path, no_tools):
    assert provider(tmp_path, ["gfx942"], "6.4.1-120").supported_configs() == [
        gfx("gfx942"),
        rocm("6.4"),
    ]


def test_forced_list_keeps_user_order_and_three_part_version(tmp_path, no_tools, monkeypatch):
    monkeypatch.setenv(FORCE_GFX_ENV, "gfx1100, gfx90a;gfx1030")
    monkeypatch.setenv(FORCE_ROCM_ENV, "6.3.0")
    p = AmdProvider(sysfs_root=str(tmp_path / "no-sys"), rocm_path=str(tmp_path / "no-rocm"))
    assert p.supported_configs() == [gfx("gfx1100", "gfx90a", "gfx1030"), rocm("6.3")]


@pytest.mark.parametrize("value, expected", [
    ("6.4", "6.4"), ("6.4.1", "6.4"), (" 7.10 ", "7.10"),
    # the text of .info/version pasted in; a pre-release: the plugin takes both
    ("6.4.1-120", "6.4"), ("6.4.0rc1", "6.4"), ("06.4.0", "6.4"),
])
def test_forced_rocm_version_two_or_three_parts(value, expected):
    # The plugin asserts three parts and crashes on "6.4"; we accept both.
    assert parse_forced_rocm_version(value) == expected


@pytest.mark.parametrize("value", ["six", "6", "6.4.1.2", "6.x", "v6.4", "6.x.0", "6.4.", "6.\u00b2"])
def test_bad_forced_rocm_version_is_one_clear_error(tmp_path, monkeypatch, value):
    monkeypatch.setenv(FORCE_ROCM_ENV, value)
    with pytest.raises(ProviderError) as info:
        provider(tmp_path, ["gfx942"], "6.4.1").supported_configs()
    assert FORCE_ROCM_ENV in str(info.value) and "6.4.1" in str(info.value)


def test_bad_forced_gfx_name_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv(FORCE_GFX_ENV, "gfx9-4-generic")
    with pytest.raises(ProviderError, match=FORCE_GFX_ENV):
        provider(tmp_path, ["gfx942"]).supported_configs()


def test_forced_names_lowercased_and_unique(tmp_path, monkeypatch):
    monkeypatch.setenv(FORCE_GFX_ENV, "GFX942 gfx942,gfx90a")
    assert provider(tmp_path).supported_configs() == [gfx("gfx942", "gfx90a")]


def test_forced_gfx_keeps_detected_rocm(tmp_path, monkeypatch, no_tools):
    monkeypatch.setenv(FORCE_GFX_ENV, "gfx1100")
    assert provider(tmp_path, ["gfx942"], "6.3.2").supported_configs() == [
        gfx("gfx1100"),
        rocm("6.3"),
    ]


def test_empty_force_counts_as_unset(tmp_path, monkeypatch, no_tools):
    monkeypatch.setenv(FORCE_GFX_ENV, "")  # unset, as pip and the plugin read an empty variable
    monkeypatch.setenv(FORCE_ROCM_ENV, " ")
    assert provider(tmp_path, ["gfx90a"], "6.4.0").supported_configs() == [
        gfx("gfx90a"),
        rocm("6.4"),
    ]


@pytest.mark.parametrize("value", ["  ", ",", " ; "])
def test_force_of_blanks_or_separators_names_no_gpu_like_the_plugin(tmp_path, monkeypatch, no_tools, value):
    monkeypatch.setenv(FORCE_GFX_ENV, value)
    assert provider(tmp_path, ["gfx90a"], "6.4.0").supported_configs() == [rocm("6.4")]


def test_several_gpus_unique_and_sorted_as_strings(tmp_path, no_tools):
    p = provider(tmp_path, ["gfx942", "gfx1100", "gfx942", "gfx90a"], "6.4.1")
    assert p.supported_configs() == [gfx("gfx1100", "gfx90a", "gfx942"), rocm("6.4")]


def test_unlisted_arch_is_still_reported(tmp_path, no_tools):
    # The plugin's rocm_agent_enumerator fallback lists unknown arches too.
    assert provider(tmp_path, ["gfx1036", "gfx1100"]).supported_configs() == [
        gfx("gfx1036", "gfx1100")
    ]


def test_gpu_without_rocm_has_no_rocm_version(tmp_path, no_tools):
    assert provider(tmp_path, ["gfx942"]).supported_configs() == [gfx("gfx942")]


def test_rocm_without_gpu_has_only_rocm_version(tmp_path, no_tools):
    assert provider(tmp_path, [], "6.2.4").supported_configs() == [rocm("6.2")]


def test_hsa_override_applies_to_every_gpu(tmp_path, no_tools, monkeypatch):
    monkeypatch.setenv(HSA_OVERRIDE_ENV, "11.0.0")
    assert provider(tmp_path, ["gfx1103", "gfx1036"]).supported_configs() == [gfx("gfx1100")]


@pytest.mark.parametrize("value", ["eleven", "11.0", "11.0.0 ", "11.0.0-rc", "64.0.0", "11.-1.0", "9.256.0"])
def test_an_override_rocm_refuses_is_one_warning(tmp_path, no_tools, monkeypatch, value):
    # ROCm's thunk fails its topology on such a value: no GPU at all, so no
    # gfx_arch; the ProviderError says which variable and what to do.
    monkeypatch.setenv(HSA_OVERRIDE_ENV, value)
    with pytest.raises(ProviderError, match=r"HSA_OVERRIDE_GFX_VERSION=.*X\.Y\.Z.*correct or unset it"):
        provider(tmp_path, ["gfx1103"]).supported_configs()


def test_an_empty_override_is_unset(tmp_path, no_tools, monkeypatch):
    monkeypatch.setenv(HSA_OVERRIDE_ENV, "")
    monkeypatch.setenv(f"{HSA_OVERRIDE_ENV}_1", "")
    assert provider(tmp_path, ["gfx1103"]).supported_configs() == [gfx("gfx1103")]


@pytest.mark.parametrize("value, name", [("11.0.0", "gfx1100"), (" 9.4.2", "gfx942"), ("9.0.10", "gfx90a"),
                                         ("+10.3.0", "gfx1030"), ("9.0.255", "gfx90ff")])
def test_override_values_read_as_rocm_reads_them(value, name):
    assert parse_hsa_override(value) == name


def test_a_per_gpu_override_names_its_kfd_node(tmp_path, no_tools, monkeypatch):
    # Node 0 is the CPU: GPU 1 (gfx1103) is node 1, GPU 2 (gfx1032) node 2.
    monkeypatch.setenv(f"{HSA_OVERRIDE_ENV}_1", "11.0.0")
    assert provider(tmp_path, ["gfx1103"]).supported_configs() == [gfx("gfx1100")]
    monkeypatch.delenv(f"{HSA_OVERRIDE_ENV}_1")
    monkeypatch.setenv(f"{HSA_OVERRIDE_ENV}_2", "10.3.0")
    assert provider(tmp_path, ["gfx1101", "gfx1032"]).supported_configs() == [gfx("gfx1030", "gfx1101")]


def test_a_per_gpu_override_comes_before_the_global_one(tmp_path, no_tools, monkeypatch):
    monkeypatch.setenv(HSA_OVERRIDE_ENV, "11.0.0")
    monkeypatch.setenv(f"{HSA_OVERRIDE_ENV}_2", "10.3.0")
    assert provider(tmp_path, ["gfx1101", "gfx1032"]).supported_configs() == [gfx("gfx1030", "gfx1100")]


def test_a_refused_per_gpu_override_is_named(tmp_path, no_tools, monkeypatch):
    monkeypatch.setenv(f"{HSA_OVERRIDE_ENV}_1", "gfx1100")
    with pytest.raises(ProviderError, match=f"{HSA_OVERRIDE_ENV}_1='gfx1100'"):
        provider(tmp_path, ["gfx1103"]).supported_configs()


def test_per_gpu_overrides_count_the_nodes_rocm_reaches(tmp_path, no_tools, monkeypatch):
    # In a container given only the second GPU (KFD node 2), ROCm numbers it 1:
    # the CPU is 0 and the GPU it cannot reach gets no number.
    p = provider(tmp_path, ["gfx1100", "gfx1032"], dev_root=str(dev_tree(tmp_path / "dev", [2])))
    monkeypatch.setenv(f"{HSA_OVERRIDE_ENV}_1", "10.3.0")
    assert p.supported_configs() == [gfx("gfx1030")]
    monkeypatch.delenv(f"{HSA_OVERRIDE_ENV}_1")
    monkeypatch.setenv(f"{HSA_OVERRIDE_ENV}_2", "10.3.0")
    assert p.supported_configs() == [gfx("gfx1032")]


def test_per_gpu_overrides_are_in_the_cache_key(tmp_path, no_tools, monkeypatch):
    p = provider(tmp_path, ["gfx1103"])
    before = cache_key(p)
    monkeypatch.setenv(f"{HSA_OVERRIDE_ENV}_1", "11.0.0")
    assert cache_key(p) != before


def _uuid(gpu_index: int) -> str:
    # the fake tree's CPU is node 0, so GPU n is node n + 1
    return f"GPU-{UNIQUE_ID_BASE + gpu_index + 1:016x}"


@pytest.mark.parametrize(
    "visible, expected",
    [
        (None, ["gfx1100", "gfx1036", "gfx942"]),  # unset: every GPU
        ("1", ["gfx1036"]),  # indices count GPU agents only, in KFD node order
        ("2,0", ["gfx942", "gfx1100"]),
        (" 0 , 2 ", ["gfx1100", "gfx942"]),
        ("0x2", ["gfx942"]),  # strtol base 0
        ("02", ["gfx942"]),
        ("+1", ["gfx1036"]),
        (_uuid(2), ["gfx942"]),
        (_uuid(1).lower(), ["gfx1036"]),  # any case
        (_uuid(2)[:-1], []),  # a prefix of every GPU's UUID here: ambiguous, the list ends
        ("GPU-5C5A", []),  # a prefix of every UUID: ambiguous, the list ends
        ("GPU-", []),  # too short
        (f"{_uuid(2)},0", ["gfx942", "gfx1100"]),
        ("", []),  # set but empty: no GPU, as ROCm
        ("-1", []),  # out of range ends the list
        ("7", []),
        ("0,7,1", ["gfx1100"]),
        ("0,x,1", ["gfx1100"]),  # malformed ends the list
        ("0,08", ["gfx1100"]),
        ("0,1,0,2", ["gfx1100", "gfx1036"]),  # a repeated index ends the list
        ("all", []),
        ("0,1,2,0x0", ["gfx1100", "gfx1036", "gfx942"]),  # no more tokens read than GPUs
        ("0,,1", []),  # ROCm fails to start: no GPU
        ("0, ,1", []),
        ("0,1,2,", ["gfx1100", "gfx1036", "gfx942"]),  # not read
    ],
)
def test_rocr_visible_devices(tmp_path, visible, expected):
    sysfs = kfd_tree(tmp_path / "sys", ["gfx1100", "gfx1036", "gfx942"])
    assert kfd_gfx_archs(str(sysfs), visible=visible) == expected


def test_rocr_visible_devices_numbering_counts_unknown_gpus_and_skips_zero_uuids(tmp_path):
    sysfs = kfd_tree(tmp_path / "sys", [10101, "gfx942", "gfx1100"])  # the first: no gfx name known
    assert kfd_gfx_archs(str(sysfs), visible="1") == ["gfx942"]
    props = sysfs / "class/kfd/kfd/topology/nodes/3/properties"
    props.write_text(props.read_text().replace(f"unique_id {UNIQUE_ID_BASE + 3}", "unique_id 0"))
    assert kfd_gfx_archs(str(sysfs), visible="GPU-0000000000000000") == []
    assert kfd_gfx_archs(str(sysfs), visible=_uuid(1)) == ["gfx942"]


def test_gpus_hidden_on_purpose_do_not_run_the_tools(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(amd, "tool_gfx_archs", lambda *a: calls.append(a) or ["gfx90a"])
    monkeypatch.setenv(VISIBLE_DEVICES_ENV, "")
    assert provider(tmp_path, ["gfx942"]).detect_gfx_archs() == []
    assert calls == []
    assert provider(tmp_path / "empty", []).detect_gfx_archs() == ["gfx90a"]  # no GPU node at all


def test_rocr_visible_devices_hides_a_gpu_from_the_provider(tmp_path, no_tools, monkeypatch):
    monkeypatch.setenv(VISIBLE_DEVICES_ENV, "1")
    assert provider(tmp_path, ["gfx1036", "gfx1100"]).supported_configs() == [gfx("gfx1100")]


def test_a_container_sees_the_gpus_it_was_passed(tmp_path):
    sysfs = kfd_tree(tmp_path / "sys", ["gfx1100", "gfx1036", "gfx942"])
    dev = dev_tree(tmp_path / "dev", [2, 3])  # --device /dev/kfd --device /dev/dri/renderD129 ...
    assert kfd_gfx_archs(str(sysfs), dev_root=str(dev)) == ["gfx1036", "gfx942"]
    # ROCR_VISIBLE_DEVICES counts the GPUs ROCm can open, not the host's
    assert kfd_gfx_archs(str(sysfs), visible="1", dev_root=str(dev)) == ["gfx942"]
    assert kfd_gfx_archs(str(sysfs)) == ["gfx1100", "gfx1036", "gfx942"]  # no device check


def test_without_dev_kfd_rocm_sees_no_gpu(tmp_path):
    # docker build on a GPU host: the host's /sys, no devices
    sysfs = kfd_tree(tmp_path / "sys", ["gfx942"])
    assert kfd_gfx_archs(str(sysfs), dev_root=str(dev_tree(tmp_path / "dev", [1], kfd=False))) == []
    assert kfd_gfx_archs(str(sysfs), dev_root=str(tmp_path / "nothing")) == []


def test_a_device_this_user_may_not_open_hides_every_gpu(tmp_path, monkeypatch):
    # not in the render group: ROCm's thunk fails as a whole
    sysfs = kfd_tree(tmp_path / "sys", ["gfx1100", "gfx942"])
    dev = dev_tree(tmp_path / "dev", [1, 2])
    real_access = os.access
    denied = {str(dev / "dri" / "renderD129")}
    monkeypatch.setattr(amd.os, "access", lambda path, mode: str(path) not in denied and real_access(path, mode))
    assert kfd_gfx_archs(str(sysfs), dev_root=str(dev)) == []
    denied = {str(dev / "kfd")}
    assert kfd_gfx_archs(str(sysfs), dev_root=str(dev)) == []
    denied = set()
    assert kfd_gfx_archs(str(sysfs), dev_root=str(dev)) == ["gfx1100", "gfx942"]


def test_a_gpu_node_without_a_version_keeps_its_number(tmp_path):
    sysfs = kfd_tree(tmp_path / "sys", ["gfx1100", "gfx942"])
    props = sysfs / "class/kfd/kfd/topology/nodes/1/properties"
    props.write_text(props.read_text().replace("gfx_target_version 110000", "gfx_target_version 0"))
    assert kfd_gfx_archs(str(sysfs)) == ["gfx942"]
    assert kfd_gfx_archs(str(sysfs), visible="1") == ["gfx942"]
    assert kfd_gfx_archs(str(sysfs), hsa_override="9.4.2") == ["gfx942", "gfx942"]


def test_a_node_without_a_render_minor_is_kept(tmp_path):
    sysfs = kfd_tree(tmp_path / "sys", ["gfx942"])
    props = sysfs / "class/kfd/kfd/topology/nodes/1/properties"
    props.write_text("".join(line + "\n" for line in props.read_text().splitlines()
                             if not line.startswith("drm_render_minor")))
    assert kfd_gfx_archs(str(sysfs), dev_root=str(dev_tree(tmp_path / "dev", []))) == ["gfx942"]


def test_device_files_are_checked_only_on_the_real_sys(tmp_path, monkeypatch):
    monkeypatch.delenv(amd.SYSFS_ROOT_ENV, raising=False)
    assert AmdProvider()._dev() == "/dev"
    assert AmdProvider(sysfs_root=str(tmp_path))._dev() is None
    assert AmdProvider(sysfs_root=str(tmp_path), dev_root=str(tmp_path))._dev() == str(tmp_path)


def test_provider_in_a_container(tmp_path, no_tools):
    p = provider(tmp_path, ["gfx1100", "gfx942"], "6.4.1", dev_root=str(dev_tree(tmp_path / "dev", [2])))
    assert p.supported_configs() == [gfx("gfx942"), rocm("6.4")]
    before = cache_key(p)
    dev_tree(tmp_path / "dev", [1])
    assert cache_key(p) != before
    assert p.supported_configs() == [gfx("gfx1100", "gfx942"), rocm("6.4")]


def test_nodes_in_numeric_order_and_garbage_skipped(tmp_path):
    sysfs = kfd_tree(tmp_path / "sys", ["gfx90a"] * 11)
    nodes = sysfs / "class/kfd/kfd/topology/nodes"
    (nodes / "3" / "properties").write_text("gfx_target_version banana\n")
    (nodes / "5" / "properties").write_text("")
    (nodes / "10" / "properties").write_text("simd_count 4\ngfx_target_version 90402\n")
    names = kfd_gfx_archs(str(sysfs))
    # Node 10 comes after 9, not after 1; nodes 3 and 5 are skipped.
    assert names == ["gfx90a"] * 7 + ["gfx942", "gfx90a"]


def test_sysfs_root_from_test_variable(tmp_path, monkeypatch, no_tools):
    kfd_tree(tmp_path / "sys", ["gfx1201"])
    monkeypatch.setenv(amd.SYSFS_ROOT_ENV, str(tmp_path / "sys"))
    monkeypatch.setenv("ROCM_PATH", str(rocm_tree(tmp_path / "r", "6.4.0")))
    assert AmdProvider().supported_configs() == [gfx("gfx1201"), rocm("6.4")]


# -- .info/version ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("6.4.1-120", "6.4"),
        ("6.3.0", "6.3"),
        ("7.0", "7.0"),
        ("6.4.1-120-abc", "6.4"),
        ("garbage", None),
        ("6", None),
        ("", None),
    ],
)
def test_rocm_version_file(tmp_path, text, expected):
    assert read_rocm_version(str(rocm_tree(tmp_path, text))) == expected


def test_rocm_path_default_and_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("ROCM_PATH", raising=False)
    assert amd.rocm_root() == "/opt/rocm"
    monkeypatch.setenv("ROCM_PATH", str(rocm_tree(tmp_path, "6.4.3")))
    assert read_rocm_version() == "6.4"


# -- the ROCm tools fallback (fake executables on PATH) -----------------------------------


def fake_tool(bindir: Path, name: str, output: str) -> None:
    bindir.mkdir(exist_ok=True)
    script = bindir / name
    script.write_text("#!/bin/sh\n/bin/cat <<'EOF'\n" + output + "EOF\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


ROCMINFO_MI300 = """\
*******
Agent 1
  Name:                    AMD EPYC 9654
  Device Type:             CPU
*******
Agent 2
  Name:                    gfx942
  Marketing Name:          AMD Instinct MI300X
  Device Type:             GPU
  ISA Info:
    ISA 1
      Name:                    amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-
"""

pytestmark_linux = pytest.mark.skipif(not os.name == "posix", reason="shell scripts")


@pytestmark_linux
def test_rocminfo_when_sysfs_says_nothing(tmp_path, monkeypatch, mocker):
    mocker.patch.object(amd.sys, "platform", "linux")
    fake_tool(tmp_path / "bin", "rocminfo", ROCMINFO_MI300)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    p = AmdProvider(
        sysfs_root=str(tmp_path / "no-sys"), rocm_path=str(rocm_tree(tmp_path / "r", "6.4.1-120"))
    )
    assert p.supported_configs() == [gfx("gfx942"), rocm("6.4")]


@pytestmark_linux
def test_generic_isa_noise_goes_to_the_enumerator_like_the_plugin(tmp_path, mocker):
    mocker.patch.object(amd.sys, "platform", "linux")
    generic = "    ISA 2\n      Name:                    amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+:xnack-\n"
    fake_tool(tmp_path / "bin", "rocminfo", ROCMINFO_MI300 + generic)
    fake_tool(
        tmp_path / "bin",
        "rocm_agent_enumerator",
        "gfx942:sramecc+:xnack-\ngfx9-4-generic:sramecc+:xnack-\n",
    )
    assert tool_gfx_archs(str(tmp_path / "bin")) == ["gfx9", "gfx942"]


@pytestmark_linux
def test_preferred_list_replaces_the_allow_list(tmp_path, monkeypatch, mocker):
    mocker.patch.object(amd.sys, "platform", "linux")
    fake_tool(tmp_path / "bin", "rocminfo", ROCMINFO_MI300)
    fake_tool(tmp_path / "bin", "rocm_agent_enumerator", "gfx000\ngfx942:sramecc+:xnack-\n")
    monkeypatch.setenv("AMD_PREFERRED_GFX_ARCHS", "gfx1100")
    # rocminfo's gfx942 is refused, the enumerator has no allow-list (gfx000 dropped).
    assert tool_gfx_archs(str(tmp_path / "bin")) == ["gfx942"]


@pytestmark_linux
@pytest.mark.parametrize("value", [" ", ",", " , "])
def test_a_preferred_list_naming_nothing_is_the_default_list(tmp_path, monkeypatch, mocker, value):
    mocker.patch.object(amd.sys, "platform", "linux")
    fake_tool(tmp_path / "bin", "rocminfo", ROCMINFO_MI300)
    monkeypatch.setenv("AMD_PREFERRED_GFX_ARCHS", value)
    assert tool_gfx_archs(str(tmp_path / "bin")) == ["gfx942"]


@pytestmark_linux
def test_failing_tool_gives_nothing(tmp_path, mocker):
    mocker.patch.object(amd.sys, "platform", "linux")
    (tmp_path / "bin").mkdir()
    tool = tmp_path / "bin" / "rocminfo"
    tool.write_text("#!/bin/sh\nexit 1\n")
    tool.chmod(0o755)
    assert tool_gfx_archs(str(tmp_path / "bin")) == []


def test_tools_not_run_when_sysfs_has_a_gpu(tmp_path, mocker):
    spy = mocker.patch.object(amd, "tool_gfx_archs", return_value=["gfx1100"])
    assert provider(tmp_path, ["gfx942"]).supported_configs() == [gfx("gfx942")]
    spy.assert_not_called()


# -- identity, all configs, cache -------------------------------------------------------------


def test_all_configs_like_the_plugin():
    configs = AmdProvider().all_configs()
    assert [c.name for c in configs] == ["rocm_version", "gfx_arch"]
    assert configs[0].values == ALL_ROCM_VERSIONS and len(ALL_ROCM_VERSIONS) == 13
    assert configs[1].values == ALL_GFX_ARCHS and len(ALL_GFX_ARCHS) == 11


def test_cache_key_follows_gpus_rocm_and_overrides(tmp_path, monkeypatch, no_tools):
    p = provider(tmp_path, ["gfx942"], "6.4.1")
    first = cache_key(p)
    assert cache_key(p) == first
    rocm_tree(tmp_path / "rocm", "6.3.0")
    second = cache_key(p)
    assert second != first
    kfd_tree(tmp_path / "sys", ["gfx942", "gfx90a"])
    third = cache_key(p)
    assert third != second
    monkeypatch.setenv(FORCE_ROCM_ENV, "6.4")
    fourth = cache_key(p)
    assert fourth != third
    monkeypatch.setenv(VISIBLE_DEVICES_ENV, "1")
    assert cache_key(p) != fourth


def test_cached_answer_is_recomputed_after_a_rocm_update(tmp_path, no_tools):
    p = provider(tmp_path, ["gfx942"], "6.3.0")
    cache = tmp_path / "cache"
    assert cached_supported_configs(p, cache_dir=cache) == [gfx("gfx942"), rocm("6.3")]
    rocm_tree(tmp_path / "rocm", "6.4.1")
    assert cached_supported_configs(p, cache_dir=cache) == [gfx("gfx942"), rocm("6.4")]
