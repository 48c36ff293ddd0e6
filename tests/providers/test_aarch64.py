"""The built-in aarch64 provider: Arm architecture version."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pytest

from pip_variants.providers import aarch64
from pip_variants.providers.aarch64 import (
    OVERRIDE_ENV,
    AArch64Provider,
    Core,
    parse_proc_cpuinfo,
    version_from_cores,
    versions_from,
)
from pip_variants.providers.base import FeatureConfig, ProviderError

N1_FEATURES = "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs"
V1_FEATURES = (
    "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt fcma lrcpc "
    "dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs paca pacg dcpodp svei8mm "
    "svebf16 i8mm bf16 dgh rng"
)
A53_FEATURES = "fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid"
TX2_FEATURES = "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics cpuid asimdrdm"


def block(i: int, implementer: str, part: str, features: str) -> str:
    return (
        f"processor\t: {i}\nBogoMIPS\t: 243.75\nFeatures\t: {features}\n"
        f"CPU implementer\t: {implementer}\nCPU architecture: 8\nCPU variant\t: 0x1\n"
        f"CPU part\t: {part}\nCPU revision\t: 1\n"
    )


def cpuinfo(*cores: tuple) -> str:
    return "\n".join(block(i, *core) for i, core in enumerate(cores)) + "\n"


def provider_for(tmp_path: Path, text: str, machine: str = "aarch64") -> AArch64Provider:
    path = tmp_path / "cpuinfo"
    path.write_text(text)
    return AArch64Provider(proc_cpuinfo=str(path), machine=machine)


def versions(provider: AArch64Provider) -> List[str]:
    configs = provider.supported_configs()
    assert len(configs) == 1 and configs[0].name == "version"
    return list(configs[0].values)


@pytest.mark.parametrize(
    "cores, expected",
    [
        ([("0x41", "0xd0c", N1_FEATURES)] * 2, ["8.2a", "8.1a", "8a"]),  # Graviton2 / Altra
        ([("0x41", "0xd40", V1_FEATURES)] * 4, ["8.4a", "8.3a", "8.2a", "8.1a", "8a"]),  # Graviton3
        ([("0x41", "0xd4f", V1_FEATURES)], ["8.4a", "8.3a", "8.2a", "8.1a", "8a"]),  # Grace (V2)
        ([("0x43", "0x0af", TX2_FEATURES)], ["8.1a", "8a"]),  # ThunderX2
        ([("0x41", "0xd03", A53_FEATURES)], ["8a"]),  # Raspberry Pi 3
        ([("0x41", "0xd03", A53_FEATURES), ("0x41", "0xd08", A53_FEATURES)], ["8a"]),
        # cores uv does not know are 8a, whatever their HWCAPs (uv's ceiling table)
        ([("0x41", "0xd05", N1_FEATURES), ("0x41", "0xd0b", N1_FEATURES)], ["8a"]),  # A55 + A76
        ([("0x41", "0xd0b", N1_FEATURES)] * 4, ["8a"]),  # Raspberry Pi 5 (A76)
        ([("0x41", "0xd0c", N1_FEATURES), ("0x41", "0xd40", V1_FEATURES)], ["8.2a", "8.1a", "8a"]),  # lowest core
        ([("0xff", "0x123", "fp asimd")], ["8a"]),  # unknown core, no HWCAPs
        ([("0xff", "0x123", V1_FEATURES)], ["8a"]),  # unknown core: no climbing
        # the kernel's HWCAPs cap a known core: no pointer authentication (RHEL kernels), no DIT
        ([("0x41", "0xd40", V1_FEATURES.replace(" paca pacg", ""))], ["8.2a", "8.1a", "8a"]),
        ([("0x41", "0xd49", V1_FEATURES.replace(" dit", ""))], ["8.3a", "8.2a", "8.1a", "8a"]),
        ([("0x61", "0x023", V1_FEATURES)], ["8.4a", "8.3a", "8.2a", "8.1a", "8a"]),  # Apple M1 (Asahi)
        ([("0x61", "0x023", "fp asimd")], ["8a"]),
        ([("0xc0", "0xac3", V1_FEATURES)], ["8.4a", "8.3a", "8.2a", "8.1a", "8a"]),  # AmpereOne
    ],
    ids=[
        "neoverse-n1", "neoverse-v1", "neoverse-v2", "thunderx2", "a53", "a53+a72",
        "a55+a76", "rpi5-a76", "n1+v1", "unknown-bare", "unknown-84-hwcaps", "v1-without-pac",
        "n2-without-dit", "apple", "apple-bare-hwcaps", "ampereone",
    ],
)
def test_linux_detection(tmp_path, cores, expected) -> None:
    assert versions(provider_for(tmp_path, cpuinfo(*cores))) == expected


def test_hwcaps_must_be_on_every_core() -> None:
    cores = [Core(0xFF, 1, frozenset(TX2_FEATURES.split())), Core(0xFF, 2, frozenset(A53_FEATURES.split()))]
    assert version_from_cores(cores) == "8a"


def test_parse_proc_cpuinfo_skips_trailer() -> None:
    text = cpuinfo(("0x41", "0xd0c", N1_FEATURES)) + "\nHardware\t: BCM2835\nSerial\t\t: 0000\n"
    cores = parse_proc_cpuinfo(text)
    assert cores == [Core(0x41, 0xD0C, frozenset(N1_FEATURES.split()))]


def test_no_cores_defaults_to_8a() -> None:
    assert version_from_cores([]) == "8a"


def test_spec_8_missing_cpu_info_gives_8a(tmp_path) -> None:
    provider = AArch64Provider(proc_cpuinfo=str(tmp_path / "missing"), machine="aarch64")
    supported = versions(provider)
    assert supported == ["8a"]
    assert "8a" in supported and "8.4a" not in supported  # arm8 compatible, arm84 not


@pytest.mark.parametrize("machine", ["x86_64", "AMD64", "armv7l", "ppc64le"])
def test_spec_8_non_aarch64_is_empty(tmp_path, machine) -> None:
    assert provider_for(tmp_path, cpuinfo(("0x41", "0xd40", V1_FEATURES)), machine).supported_configs() == []


@pytest.mark.parametrize("machine", ["aarch64", "arm64", "ARM64"])
def test_aarch64_machine_spellings(tmp_path, machine) -> None:
    assert versions(provider_for(tmp_path, cpuinfo(("0x41", "0xd0c", N1_FEATURES)), machine))[0] == "8.2a"


def test_macos_apple_silicon(mocker) -> None:
    mocker.patch.object(aarch64.sys, "platform", "darwin")
    mocker.patch.object(aarch64, "_macos_version", return_value="8.4a")
    assert versions(AArch64Provider(machine="arm64"))[0] == "8.4a"


@pytest.mark.parametrize("value, first", [("8.2a", "8.2a"), ("8a", "8a"), ("8.0a", "8a"), ("8.4A", "8.4a")])
def test_override(tmp_path, monkeypatch, value, first) -> None:
    monkeypatch.setenv(OVERRIDE_ENV, value)
    got = versions(provider_for(tmp_path, cpuinfo(("0x41", "0xd40", V1_FEATURES))))
    assert got == versions_from(first)


def test_override_applies_on_other_machines(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(OVERRIDE_ENV, "8.1a")
    assert versions(provider_for(tmp_path, "", machine="x86_64")) == ["8.1a", "8a"]


@pytest.mark.parametrize("value", ["9a", "8.5a", "armv8.2-a", "8"])
def test_invalid_override(tmp_path, monkeypatch, value) -> None:
    monkeypatch.setenv(OVERRIDE_ENV, value)
    with pytest.raises(ProviderError):
        provider_for(tmp_path, "").supported_configs()


def test_all_configs() -> None:
    assert AArch64Provider().all_configs() == [FeatureConfig("version", ("8.4a", "8.3a", "8.2a", "8.1a", "8a"))]


def test_cache_inputs_env_sensitive(monkeypatch) -> None:
    provider = AArch64Provider()
    before = provider.cache_inputs()
    monkeypatch.setenv(OVERRIDE_ENV, "8a")
    assert provider.cache_inputs() != before


# -- macOS (sysctl feature flags) and Windows on Arm, with the values those machines report --

# `sysctl hw.optional` on an M2 MacBook Air, macOS 14 (the flags the provider reads).
M2_SYSCTL = {
    "machdep.cpu.brand_string": "Apple M2",
    "hw.optional.arm.FEAT_LSE": 1, "hw.optional.arm.FEAT_RDM": 1, "hw.optional.armv8_crc32": 1,
    "hw.optional.armv8_1_atomics": 1, "hw.optional.arm.FEAT_DPB": 1, "hw.optional.arm.FEAT_JSCVT": 1,
    "hw.optional.arm.FEAT_FCMA": 1, "hw.optional.arm.FEAT_LRCPC": 1, "hw.optional.arm.FEAT_DIT": 1,
    "hw.optional.arm.FEAT_LSE2": 1, "hw.optional.arm.FEAT_LRCPC2": 1, "hw.optional.arm.FEAT_FlagM": 1,
    "hw.optional.arm.FEAT_SPECRES": 0,
}
# macOS 11 on an M1 knows only the older armv8_* names.
M1_BIG_SUR_SYSCTL = {
    "machdep.cpu.brand_string": "Apple M1",
    "hw.optional.armv8_1_atomics": 1, "hw.optional.armv8_crc32": 1, "hw.optional.armv8_3_compnum": 1,
}


def fake_sysctl(mocker, values) -> None:
    from pip_variants.providers import _darwin

    def as_int(name):
        value = values.get(name)
        return value if isinstance(value, int) else None

    def as_str(name):
        value = values.get(name)
        return value if isinstance(value, str) else None

    mocker.patch.object(_darwin, "sysctl_int", side_effect=as_int)
    mocker.patch.object(_darwin, "sysctl_str", side_effect=as_str)
    mocker.patch.object(aarch64.sys, "platform", "darwin")


@pytest.mark.parametrize("chip", ["Apple M1", "Apple M2", "Apple M3 Max", "Apple M4 Pro"])
def test_macos_m_series_flags_give_8_4a_like_uv(mocker, chip) -> None:
    fake_sysctl(mocker, {**M2_SYSCTL, "machdep.cpu.brand_string": chip})
    assert versions(AArch64Provider(machine="arm64")) == ["8.4a", "8.3a", "8.2a", "8.1a", "8a"]


def test_macos_m1_on_big_sur_without_feat_names_is_8_4a_by_brand(mocker) -> None:
    fake_sysctl(mocker, M1_BIG_SUR_SYSCTL)
    assert versions(AArch64Provider(machine="arm64"))[0] == "8.4a"


def test_macos_other_chips_are_8a_whatever_their_flags_as_uv(mocker) -> None:
    fake_sysctl(mocker, {**M2_SYSCTL, "machdep.cpu.brand_string": "Apple processor"})
    assert versions(AArch64Provider(machine="arm64")) == ["8a"]


def test_macos_12_on_an_m1_is_8_4a_without_feat_dit(mocker) -> None:
    flags = {k: v for k, v in M2_SYSCTL.items() if k != "hw.optional.arm.FEAT_DIT"}
    fake_sysctl(mocker, {**flags, "machdep.cpu.brand_string": "Apple M1"})
    assert versions(AArch64Provider(machine="arm64"))[0] == "8.4a"


def test_macos_nothing_readable_is_8a(mocker) -> None:
    fake_sysctl(mocker, {})
    assert versions(AArch64Provider(machine="arm64")) == ["8a"]


def test_windows_on_arm_is_8a_like_uv(tmp_path, mocker) -> None:
    mocker.patch.object(aarch64.sys, "platform", "win32")
    p = AArch64Provider(proc_cpuinfo=str(tmp_path / "no-proc"), machine="ARM64")
    assert versions(p) == ["8a"]


def test_real_sysctl_layer_is_harmless_off_macos() -> None:
    import sys

    from pip_variants.providers import _darwin

    if sys.platform != "darwin":
        assert _darwin.sysctl_int("hw.optional.arm.FEAT_LSE") is None
