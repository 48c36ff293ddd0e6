"""The built-in x86_64 provider: psABI levels from CPU flags."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pip_variants.providers import x86_64
from pip_variants.providers.base import FeatureConfig, ProviderError
from pip_variants.providers.x86_64 import (
    OVERRIDE_ENV,
    X8664Provider,
    level_from_flags,
    levels_from,
    normalize_flags,
    read_proc_cpuinfo_flags,
)

BASE = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx lm"
V2 = BASE + " pni ssse3 cx16 sse4_1 sse4_2 popcnt lahf_lm"
V3 = V2 + " avx avx2 bmi1 bmi2 f16c fma abm movbe xsave"
V4 = V3 + " avx512f avx512dq avx512cd avx512bw avx512vl avx512_bf16"
# A v3 CPU minus one v3 extension (e.g. a VM that masks MOVBE).
V3_NO_MOVBE = V3.replace(" movbe", "")
# Xeon Phi: AVX-512F/CD but not BW/DQ/VL.
KNL = V3 + " avx512f avx512cd avx512er avx512pf"


def cpuinfo_text(flags: str, cores: int = 2, other_flags: str = "") -> str:
    blocks = []
    for i in range(cores):
        f = other_flags if (other_flags and i) else flags
        blocks.append(
            textwrap.dedent(
                f"""\
                processor\t: {i}
                vendor_id\t: GenuineIntel
                cpu family\t: 6
                model name\t: Test CPU
                flags\t\t: {f}
                bugs\t\t: spectre_v1
                """
            )
        )
    return "\n".join(blocks) + "\n"


def provider_for(tmp_path: Path, text: str, machine: str = "x86_64") -> X8664Provider:
    path = tmp_path / "cpuinfo"
    path.write_text(text)
    return X8664Provider(proc_cpuinfo=str(path), machine=machine)


def levels(provider: X8664Provider):
    configs = provider.supported_configs()
    assert len(configs) == 1 and configs[0].name == "level" and not configs[0].multi_value
    return list(configs[0].values)


@pytest.mark.parametrize(
    "flags, expected",
    [
        (BASE, ["v1"]),
        (V2, ["v2", "v1"]),
        (V3, ["v3", "v2", "v1"]),
        (V4, ["v4", "v3", "v2", "v1"]),
        (V3_NO_MOVBE, ["v2", "v1"]),
        (KNL, ["v3", "v2", "v1"]),
    ],
    ids=["v1", "v2", "v3", "v4", "v3-minus-movbe", "xeon-phi"],
)
def test_levels_from_proc_cpuinfo(tmp_path, flags, expected) -> None:
    assert levels(provider_for(tmp_path, cpuinfo_text(flags))) == expected


def test_spec_7_avx512_host_selects_v4(tmp_path) -> None:
    supported = levels(provider_for(tmp_path, cpuinfo_text(V4)))
    variants = {"v1": "v1", "v2": "v2", "v3": "v3", "v4": "v4"}
    compatible = [label for label, v in variants.items() if v in supported]
    assert min(compatible, key=lambda label: supported.index(variants[label])) == "v4"


def test_spec_7_extension_features_unsupported(tmp_path) -> None:
    configs = provider_for(tmp_path, cpuinfo_text(V4)).supported_configs()
    assert [c.name for c in configs] == ["level"]  # no `avx2 :: on` style features


def test_only_first_block_is_read(tmp_path) -> None:
    text = cpuinfo_text(V3, cores=2, other_flags=BASE)
    assert levels(provider_for(tmp_path, text)) == ["v3", "v2", "v1"]


def test_aliases_pni_and_abm() -> None:
    flags = normalize_flags(["pni", "abm"])
    assert {"sse3", "lzcnt"} <= flags
    # Without the aliases this flag set would be v1.
    assert level_from_flags(V3.split()) == "v3"
    assert level_from_flags(V3.replace("pni", "sse3").replace("abm", "lzcnt").split()) == "v3"


def test_macos_sysctl_spellings() -> None:
    # Lower-cased py-cpuinfo output of `sysctl machdep.cpu` on a Skylake-X Mac.
    features = "fpu sse3 pclmulqdq ssse3 fma cx16 sse4.1 sse4.2 movbe popcnt aes avx1.0 rdrand f16c"
    leaf7 = "bmi1 avx2 bmi2 avx512f avx512dq avx512cd avx512bw avx512vl"
    ext = "syscall xd em64t lahf lzcnt prefetchw"
    assert level_from_flags(f"{features} {leaf7} {ext}".split()) == "v4"
    assert level_from_flags(f"{features} {ext}".split()) == "v2"
    assert level_from_flags("SSE3 SSSE3 CX16 SSE4.1 SSE4.2 POPCNT LAHF".split()) == "v2"


def test_levels_from() -> None:
    assert levels_from("v1") == ["v1"]
    assert levels_from("v4") == ["v4", "v3", "v2", "v1"]


@pytest.mark.parametrize("machine", ["aarch64", "arm64", "i686", "ppc64le", "riscv64"])
def test_non_x86_64_machine_is_empty(tmp_path, machine) -> None:
    assert provider_for(tmp_path, cpuinfo_text(V4), machine=machine).supported_configs() == []


@pytest.mark.parametrize("machine", ["x86_64", "AMD64", "amd64"])
def test_x86_64_machine_spellings(tmp_path, machine) -> None:
    assert levels(provider_for(tmp_path, cpuinfo_text(V2), machine=machine)) == ["v2", "v1"]


@pytest.mark.parametrize("value, expected", [("v1", ["v1"]), ("v3", ["v3", "v2", "v1"]), ("V4", ["v4", "v3", "v2", "v1"])])
def test_override(tmp_path, monkeypatch, value, expected) -> None:
    monkeypatch.setenv(OVERRIDE_ENV, value)
    assert levels(provider_for(tmp_path, cpuinfo_text(V2))) == expected


def test_override_applies_on_other_machines(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(OVERRIDE_ENV, "v3")
    assert levels(provider_for(tmp_path, "", machine="aarch64")) == ["v3", "v2", "v1"]


def test_empty_override_is_unset(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(OVERRIDE_ENV, "")
    assert levels(provider_for(tmp_path, cpuinfo_text(V3))) == ["v3", "v2", "v1"]


@pytest.mark.parametrize("value", ["v5", "3", "x86-64-v3", "v0"])
def test_invalid_override(tmp_path, monkeypatch, value) -> None:
    monkeypatch.setenv(OVERRIDE_ENV, value)
    with pytest.raises(ProviderError) as info:
        provider_for(tmp_path, cpuinfo_text(V3)).supported_configs()
    assert info.value.provider == "x86_64"


def test_no_proc_cpuinfo_falls_back_to_py_cpuinfo_off_linux(tmp_path, mocker) -> None:
    mocker.patch.object(x86_64.sys, "platform", "freebsd14")
    fallback = mocker.patch.object(x86_64, "_py_cpuinfo_flags", return_value=normalize_flags(V3.split()))
    provider = X8664Provider(proc_cpuinfo=str(tmp_path / "missing"), machine="x86_64")
    assert levels(provider) == ["v3", "v2", "v1"]
    fallback.assert_called_once()


@pytest.mark.parametrize("text", [
    "processor\t: 0\nmodel name\t: ?\n",               # no flags line (a sandbox)
    "processor\t: 0\nflags\t\t: \n",                    # an empty one
    "processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n",  # an Arm host under qemu-user
])
def test_linux_without_cpuinfo_flags_is_v2_as_uv_says(tmp_path, mocker, text) -> None:
    # uv takes its default level; CPUID (py-cpuinfo) is not asked on Linux
    mocker.patch.object(x86_64.sys, "platform", "linux")
    fallback = mocker.patch.object(x86_64, "_py_cpuinfo_flags", return_value=normalize_flags(V3.split()))
    assert levels(provider_for(tmp_path, text)) == ["v2", "v1"]
    fallback.assert_not_called()


def test_no_cpu_information_defaults_to_v2(tmp_path, mocker) -> None:
    mocker.patch.object(x86_64, "_py_cpuinfo_flags", return_value=None)
    mocker.patch.object(x86_64, "_windows_flags", return_value=None)
    provider = X8664Provider(proc_cpuinfo=str(tmp_path / "missing"), machine="x86_64")
    assert levels(provider) == ["v2", "v1"]


def test_flags_line_missing_falls_back(tmp_path, mocker) -> None:
    mocker.patch.object(x86_64, "_py_cpuinfo_flags", return_value=None)
    assert levels(provider_for(tmp_path, "processor\t: 0\nmodel name\t: ?\n")) == ["v2", "v1"]


def test_py_cpuinfo_fallback_uses_its_flags(mocker) -> None:
    import types

    fake = types.ModuleType("cpuinfo.cpuinfo")
    fake.get_cpu_info = mocker.Mock(return_value={"flags": V2.split()})  # type: ignore[attr-defined]
    pkg = types.ModuleType("cpuinfo")
    pkg.cpuinfo = fake  # type: ignore[attr-defined]
    mocker.patch.dict(sys.modules, {"cpuinfo": pkg, "cpuinfo.cpuinfo": fake})
    mocker.patch.object(x86_64.sys, "platform", "freebsd14")
    assert level_from_flags(x86_64._py_cpuinfo_flags()) == "v2"


def test_py_cpuinfo_macos_uses_sysctl_path(mocker) -> None:
    import types

    fake = types.ModuleType("cpuinfo.cpuinfo")
    fake._get_cpu_info_from_sysctl = mocker.Mock(return_value={"flags": ["sse4.1", "avx1.0"]})  # type: ignore[attr-defined]
    fake.get_cpu_info = mocker.Mock(side_effect=AssertionError("slow path"))  # type: ignore[attr-defined]
    pkg = types.ModuleType("cpuinfo")
    pkg.cpuinfo = fake  # type: ignore[attr-defined]
    mocker.patch.dict(sys.modules, {"cpuinfo": pkg, "cpuinfo.cpuinfo": fake})
    mocker.patch.object(x86_64.sys, "platform", "darwin")
    assert {"sse4_1", "avx"} <= x86_64._py_cpuinfo_flags()


def test_read_proc_cpuinfo_flags_missing_file(tmp_path) -> None:
    assert read_proc_cpuinfo_flags(str(tmp_path / "nope")) is None


def test_all_configs() -> None:
    assert X8664Provider().all_configs() == [FeatureConfig("level", ("v4", "v3", "v2", "v1"))]


def test_cache_inputs(monkeypatch) -> None:
    provider = X8664Provider()
    before = provider.cache_inputs()
    assert before["machine"]
    monkeypatch.setenv(OVERRIDE_ENV, "v2")
    assert provider.cache_inputs() != before


@pytest.mark.skipif(not os.path.exists("/proc/cpuinfo"), reason="Linux fast path only")
def test_linux_fast_path_does_not_import_py_cpuinfo() -> None:
    code = (
        "import sys\n"
        "from pip_variants.providers.x86_64 import X8664Provider\n"
        "X8664Provider().supported_configs()\n"
        "assert 'cpuinfo' not in sys.modules, 'py-cpuinfo was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- Windows and macOS, with the values those machines report ---------------------------------

# IsProcessorFeaturePresent on an Alder Lake laptop (i7-12700H, Windows 11): x86-64-v3, no AVX-512.
ALDER_LAKE_PF = {13: True, 14: True, 36: True, 37: True, 38: True, 39: True, 40: True, 41: False}


def fake_windows(mocker, answers) -> None:
    import ctypes

    kernel32 = mocker.Mock()
    kernel32.IsProcessorFeaturePresent = mocker.Mock(side_effect=lambda pf: answers.get(pf, False))
    mocker.patch.object(ctypes, "windll", mocker.Mock(kernel32=kernel32), create=True)
    mocker.patch.object(x86_64.sys, "platform", "win32")
    mocker.patch.object(x86_64, "_py_cpuinfo_flags", side_effect=AssertionError("slow path"))


def test_windows_v3_laptop(tmp_path, mocker) -> None:
    fake_windows(mocker, ALDER_LAKE_PF)
    p = X8664Provider(proc_cpuinfo=str(tmp_path / "no-proc"), machine="AMD64")
    assert p.supported_configs() == [FeatureConfig("level", ("v3", "v2", "v1"))]


def test_windows_v4_workstation(tmp_path, mocker) -> None:
    fake_windows(mocker, {**ALDER_LAKE_PF, 41: True})
    p = X8664Provider(proc_cpuinfo=str(tmp_path / "no-proc"), machine="AMD64")
    assert p.supported_configs()[0].values[0] == "v4"


def test_windows_os_without_avx_state_is_v2(tmp_path, mocker) -> None:
    # AVX present in CPUID but not enabled by the OS: Windows answers False for 39/40.
    fake_windows(mocker, {**ALDER_LAKE_PF, 39: False, 40: False})
    p = X8664Provider(proc_cpuinfo=str(tmp_path / "no-proc"), machine="AMD64")
    assert p.supported_configs()[0].values[0] == "v2"


# `sysctl machdep.cpu` on a 16-inch MacBook Pro 2019 (Core i9-9880H, Coffee Lake: v3).
COFFEE_LAKE_MAC = {
    "machdep.cpu.features": (
        "FPU VME DE PSE TSC MSR PAE MCE CX8 APIC SEP MTRR PGE MCA CMOV PAT PSE36 CLFSH DS ACPI MMX "
        "FXSR SSE SSE2 SS HTT TM PBE SSE3 PCLMULQDQ DTES64 MON DSCPL VMX SMX EST TM2 SSSE3 FMA CX16 "
        "TPR PDCM SSE4.1 SSE4.2 x2APIC MOVBE POPCNT AES PCID XSAVE OSXSAVE SEGLIM64 TSCTMR AVX1.0 "
        "RDRAND F16C"
    ),
    "machdep.cpu.leaf7_features": (
        "RDWRFSGS TSC_THREAD_OFFSET SGX BMI1 HLE AVX2 SMEP BMI2 ERMS INVPCID RTM FPU_CSDS MPX RDSEED "
        "ADX SMAP CLFSOPT IPT SGXLC MDCLEAR TSXFA IBRS STIBP L1DF ACAPMSR SSBD"
    ),
    "machdep.cpu.extfeatures": "SYSCALL XD 1GBPAGE EM64T LAHF LZCNT PREFETCHW RDTSCP TSCI",
}
# x86-64 Python under Rosetta 2 on an M1 (macOS 14): SSE4.2 and no AVX.
ROSETTA_MAC = {
    "machdep.cpu.features": (
        "FPU VME DE PSE TSC MSR PAE MCE CX8 APIC SEP MTRR PGE MCA CMOV PAT PSE36 CLFSH DS ACPI MMX "
        "FXSR SSE SSE2 SS HTT TM PBE SSE3 PCLMULQDQ DTSE64 MON DSCPL VMX EST TM2 SSSE3 CX16 TPR PDCM "
        "SSE4.1 SSE4.2 AES SEGLIM64 POPCNT"
    ),
    "machdep.cpu.leaf7_features": "RDWRFSGS BMI1 SMEP BMI2 ERMS ADX SMAP CLFSOPT",
    "machdep.cpu.extfeatures": "SYSCALL XD 1GBPAGE EM64T LAHF LZCNT PREFETCHW RDTSCP TSCI",
}


def fake_mac(mocker, values) -> None:
    from pip_variants.providers import _darwin

    mocker.patch.object(_darwin, "sysctl_str", side_effect=values.get)
    mocker.patch.object(x86_64.sys, "platform", "darwin")
    mocker.patch.object(x86_64, "_py_cpuinfo_flags", side_effect=AssertionError("slow path"))


@pytest.mark.parametrize("values, expected", [(COFFEE_LAKE_MAC, ("v3", "v2", "v1")), (ROSETTA_MAC, ("v2", "v1"))])
def test_macos_intel_and_rosetta(tmp_path, mocker, values, expected) -> None:
    fake_mac(mocker, values)
    p = X8664Provider(proc_cpuinfo=str(tmp_path / "no-proc"), machine="x86_64")
    assert p.supported_configs() == [FeatureConfig("level", expected)]


def test_macos_without_sysctl_falls_back_to_py_cpuinfo(tmp_path, mocker) -> None:
    fake_mac(mocker, {})
    mocker.patch.object(x86_64, "_py_cpuinfo_flags", return_value=frozenset({"sse3"}))
    p = X8664Provider(proc_cpuinfo=str(tmp_path / "no-proc"), machine="x86_64")
    assert p.supported_configs()[0].values[0] == "v1"
