"""The built-in nvidia provider: value lists, overrides, NVML detection."""

from __future__ import annotations

import sys
from typing import Dict, List, Tuple

import pytest

from pip_variants.providers import nvidia
from pip_variants.providers.base import FeatureConfig, ProviderError, configs_to_supported
from pip_variants.providers.nvidia import (
    FORCE_CUDA_ENV,
    FORCE_SM_ENV,
    NvidiaProvider,
    all_configs,
    lower_bound_values,
    parse_cuda_version,
    parse_sm_arch,
    sm_arch_values,
    upper_bound_values,
)

# --------------------------------------------------------------- golden tables
# Written out by hand from PROVIDERS.md §2.3 (nvidia-variant-provider 0.0.2).

L_11 = "11.20 11.19 11.18 11.17 11.16 11.15 11.14 11.13 11.12 11.11 11.10 11.9 11.8 11.7 11.6 11.5 11.4 11.3 11.2 11.1 11.0 11"
L_12 = "12.20 12.19 12.18 12.17 12.16 12.15 12.14 12.13 12.12 12.11 12.10 12.9 12.8 12.7 12.6 12.5 12.4 12.3 12.2 12.1 12.0 12"
U_15 = "15.20 15.19 15.18 15.17 15.16 15.15 15.14 15.13 15.12 15.11 15.10 15.9 15.8 15.7 15.6 15.5 15.4 15.3 15.2 15.1 15.0 15"
U_14 = "14.20 14.19 14.18 14.17 14.16 14.15 14.14 14.13 14.12 14.11 14.10 14.9 14.8 14.7 14.6 14.5 14.4 14.3 14.2 14.1 14.0 14"
U_13 = "13.20 13.19 13.18 13.17 13.16 13.15 13.14 13.13 13.12 13.11 13.10 13.9 13.8 13.7 13.6 13.5 13.4 13.3 13.2 13.1 13.0 13"

LOWER_12_4 = "12.4 12.3 12.2 12.1 12.0 12 " + L_11
UPPER_12_4 = f"{U_15} {U_14} {U_13} 12.20 12.19 12.18 12.17 12.16 12.15 12.14 12.13 12.12 12.11 12.10 12.9 12.8 12.7 12.6 12.5"
LOWER_12_2 = "12.2 12.1 12.0 12 " + L_11
UPPER_12_2 = f"{U_15} {U_14} {U_13} 12.20 12.19 12.18 12.17 12.16 12.15 12.14 12.13 12.12 12.11 12.10 12.9 12.8 12.7 12.6 12.5 12.4 12.3"
LOWER_12_8 = "12.8 12.7 12.6 12.5 12.4 12.3 12.2 12.1 12.0 12 " + L_11
UPPER_12_8 = f"{U_15} {U_14} {U_13} 12.20 12.19 12.18 12.17 12.16 12.15 12.14 12.13 12.12 12.11 12.10 12.9"
LOWER_13_0 = f"13.0 13 {L_12} {L_11}"
UPPER_13_0 = f"{U_15} {U_14} 13.20 13.19 13.18 13.17 13.16 13.15 13.14 13.13 13.12 13.11 13.10 13.9 13.8 13.7 13.6 13.5 13.4 13.3 13.2 13.1"

SM_8_9 = "89_real 88_real 87_real 86_real 85_real 84_real 83_real 82_real 81_real 80_real 80_virtual"
SM_7_5 = "75_real 74_real 73_real 72_real 71_real 70_real 70_virtual"
SM_9_0 = "90_real 90_virtual"
SM_12_0 = "120_real 120_virtual"


def _cfgs(lower: str, upper: str, sm: str = "") -> List[FeatureConfig]:
    out = [
        FeatureConfig("cuda_version_lower_bound", tuple(lower.split())),
        FeatureConfig("cuda_version_upper_bound", tuple(upper.split())),
    ]
    if sm:
        out.append(FeatureConfig("sm_arch", tuple(sm.split()), multi_value=True))
    return out


def _force(monkeypatch: pytest.MonkeyPatch, cuda: str = None, sm: str = None) -> None:
    if cuda is not None:
        monkeypatch.setenv(FORCE_CUDA_ENV, cuda)
    if sm is not None:
        monkeypatch.setenv(FORCE_SM_ENV, sm)


def _supported(monkeypatch, cuda=None, sm=None) -> Dict[str, Tuple[str, ...]]:
    _force(monkeypatch, cuda, sm)
    return configs_to_supported(NvidiaProvider().supported_configs())


def _compatible(supported: Dict[str, Tuple[str, ...]], props: Dict[str, List[str]]) -> bool:
    """PEP 825 check within one namespace: AND over features, OR over values."""
    return all(set(values) & set(supported.get(feature, ())) for feature, values in props.items())


# ------------------------------------------------------------------ value lists


def test_lower_bound_12_4_golden() -> None:
    values = lower_bound_values((12, 4))
    assert values == LOWER_12_4.split()
    assert len(values) == 28


def test_upper_bound_12_4_golden() -> None:
    assert upper_bound_values((12, 4)) == UPPER_12_4.split()


@pytest.mark.parametrize(
    "cc, expected",
    [((8, 9), SM_8_9), ((9, 0), SM_9_0), ((12, 0), SM_12_0), ((7, 5), SM_7_5), ((5, 0), "50_real 50_virtual")],
)
def test_sm_arch_golden(cc, expected) -> None:
    assert sm_arch_values(cc) == expected.split()


def test_sm_arch_below_5_is_empty() -> None:
    assert sm_arch_values((4, 0)) == []
    assert sm_arch_values((3, 7)) == []


def test_upper_bound_never_has_own_bare_major() -> None:
    assert "13" not in upper_bound_values((13, 0))
    assert "12" not in upper_bound_values((12, 4))
    assert upper_bound_values((15, 20)) == []


@pytest.mark.parametrize(
    "cuda, sm, expected",
    [
        ("12.2", "7.5", _cfgs(LOWER_12_2, UPPER_12_2, SM_7_5)),  # T4 on an older driver
        ("12.8", "7.5", _cfgs(LOWER_12_8, UPPER_12_8, SM_7_5)),  # T4
        ("12.8", "9.0", _cfgs(LOWER_12_8, UPPER_12_8, SM_9_0)),  # H100
        ("13.0", "9.0", _cfgs(LOWER_13_0, UPPER_13_0, SM_9_0)),  # H100, CUDA 13
        ("12.4", "8.9", _cfgs(LOWER_12_4, UPPER_12_4, SM_8_9)),
        ("12.4", "12.0", _cfgs(LOWER_12_4, UPPER_12_4, SM_12_0)),
    ],
    ids=["t4-12.2", "t4-12.8", "h100-12.8", "h100-13.0", "ada-12.4", "blackwell-12.4"],
)
def test_full_configs_forced(monkeypatch, cuda, sm, expected) -> None:
    _force(monkeypatch, cuda, sm)
    assert NvidiaProvider().supported_configs() == expected


@pytest.mark.parametrize(
    "cuda_int, ccs, expected",
    [
        (12080, [(7, 5)], _cfgs(LOWER_12_8, UPPER_12_8, SM_7_5)),
        (12020, [(7, 5)], _cfgs(LOWER_12_2, UPPER_12_2, SM_7_5)),
        (13000, [(9, 0)], _cfgs(LOWER_13_0, UPPER_13_0, SM_9_0)),
        (12080, [(9, 0)] * 8, _cfgs(LOWER_12_8, UPPER_12_8, SM_9_0)),
    ],
    ids=["t4-12.8", "t4-12.2", "h100-13.0", "8xh100-12.8"],
)
def test_full_configs_detected(fake_nvml, cuda_int, ccs, expected) -> None:
    fake_nvml(cuda=cuda_int, ccs=ccs)
    assert NvidiaProvider().supported_configs() == expected


def test_feature_order_and_multi_value(monkeypatch) -> None:
    _force(monkeypatch, "12.8", "8.9")
    configs = NvidiaProvider().supported_configs()
    assert [c.name for c in configs] == ["cuda_version_lower_bound", "cuda_version_upper_bound", "sm_arch"]
    assert [c.multi_value for c in configs] == [False, False, True]


def test_all_configs_catalogue() -> None:
    lower, upper, sm = all_configs()
    assert lower.values == upper.values
    assert len(lower.values) == 5 * 22
    assert lower.values[:3] == ("15.20", "15.19", "15.18")
    assert lower.values[20:23] == ("15.0", "15", "14.20")
    assert lower.values[-2:] == ("11.0", "11")
    assert sm.multi_value
    assert len(sm.values) == 160
    assert sm.values[:2] == ("129_real", "128_real")
    assert sm.values[79:82] == ("50_real", "129_virtual", "128_virtual")
    assert sm.values[-1] == "50_virtual"
    assert NvidiaProvider().all_configs() == all_configs()


def test_supported_is_subset_of_catalogue(monkeypatch) -> None:
    catalogue = configs_to_supported(all_configs())
    for cuda in ("11.0", "12.4", "13.0", "15.20"):
        for sm in ("5.0", "8.9", "12.9"):
            monkeypatch.setenv(FORCE_CUDA_ENV, cuda)
            monkeypatch.setenv(FORCE_SM_ENV, sm)
            for name, values in configs_to_supported(NvidiaProvider().supported_configs()).items():
                assert set(values) <= set(catalogue[name]), (cuda, sm, name)


# ------------------------------------------------------- PROVIDERS.md §7 tests


def test_spec_1_driver_12_4(monkeypatch) -> None:
    sup = _supported(monkeypatch, "12.4")
    lower = sup["cuda_version_lower_bound"]
    assert not _compatible(sup, {"cuda_version_lower_bound": ["12.6"]})  # cu126
    assert _compatible(sup, {"cuda_version_lower_bound": ["12.4"]})  # cu124
    assert _compatible(sup, {"cuda_version_lower_bound": ["12"]})  # cu12
    assert lower.index("12.4") < lower.index("12")  # cu124 before cu12


def test_spec_2_driver_12_8(monkeypatch) -> None:
    lower = _supported(monkeypatch, "12.8")["cuda_version_lower_bound"]
    assert lower.index("12.6") < lower.index("12.4") < lower.index("12")


def test_spec_2_bare_major_means_dot_zero(monkeypatch) -> None:
    sup = _supported(monkeypatch, "12")
    lower = sup["cuda_version_lower_bound"]
    assert lower[:2] == ("12.0", "12")
    assert "12.4" not in lower and "12.6" not in lower
    assert "12.1" in sup["cuda_version_upper_bound"]


def test_spec_2_driver_11_8(monkeypatch) -> None:
    sup = _supported(monkeypatch, "11.8")
    for v in ("12.6", "12.4", "12"):
        assert not _compatible(sup, {"cuda_version_lower_bound": [v]})


def test_spec_2_override_skips_range_check(monkeypatch) -> None:
    sup = _supported(monkeypatch, "16.0")
    lower = sup["cuda_version_lower_bound"]
    assert lower[:3] == ("16.0", "16", "15.20")
    assert "12.6" in lower
    assert "cuda_version_upper_bound" not in sup  # nothing above 15.20


def test_override_below_range(monkeypatch) -> None:
    sup = _supported(monkeypatch, "10.2")
    assert "cuda_version_lower_bound" not in sup  # M < 11: no lower bounds
    upper = sup["cuda_version_upper_bound"]
    assert upper[-18:] == tuple(f"10.{m}" for m in range(20, 2, -1))


@pytest.mark.parametrize("value", ["abc", "12.x", "1.2.3-foo-bar!"])
def test_spec_2_invalid_driver_override_errors(monkeypatch, no_nvml, value) -> None:
    monkeypatch.setenv(FORCE_CUDA_ENV, value)
    with pytest.raises(ProviderError) as info:
        NvidiaProvider().supported_configs()
    assert info.value.provider == "nvidia"
    assert FORCE_CUDA_ENV in str(info.value)


@pytest.mark.parametrize("value", ["", "   "])
def test_spec_2_empty_driver_override_is_unset(monkeypatch, no_nvml, value) -> None:
    monkeypatch.setenv(FORCE_CUDA_ENV, value)
    assert NvidiaProvider().supported_configs() == []


def test_spec_3_no_driver(no_nvml) -> None:
    assert NvidiaProvider().supported_configs() == []


def test_spec_3_no_driver_sm_forced(monkeypatch, no_nvml) -> None:
    monkeypatch.setenv(FORCE_SM_ENV, "8.9")
    assert NvidiaProvider().supported_configs() == []


def test_no_kernel_driver_skips_nvml(monkeypatch, mocker) -> None:
    mocker.patch.object(nvidia, "_driver_may_be_present", return_value=False)
    sentinel = mocker.MagicMock()
    mocker.patch.dict(sys.modules, {"pynvml": sentinel})
    assert NvidiaProvider().supported_configs() == []
    sentinel.nvmlInit.assert_not_called()


SM_VARIANTS = {"sm90": ["90_real"], "sm89": ["89_real"], "sm86": ["86_real"], "sm80v": ["80_virtual"]}


def _sm_compatible(sup) -> List[str]:
    order = sup.get("sm_arch", ())
    ok = [label for label, vals in SM_VARIANTS.items() if _compatible(sup, {"sm_arch": vals})]
    return sorted(ok, key=lambda label: min(order.index(v) for v in SM_VARIANTS[label] if v in order))


@pytest.mark.parametrize(
    "cc, expected",
    [
        ("8.9", ["sm89", "sm86", "sm80v"]),
        ("9.0", ["sm90"]),
        ("8.0", ["sm80v"]),
        ("10.0", []),
        ("7.5", []),
    ],
)
def test_spec_4_sm_selection(monkeypatch, cc, expected) -> None:
    assert _sm_compatible(_supported(monkeypatch, "12.8", cc)) == expected


@pytest.mark.parametrize("value", ["89", "9", "8.", ".9", "8.9.1", "sm89", "x.y"])
def test_spec_4_invalid_sm_skips_provider(monkeypatch, fake_nvml, value) -> None:
    fake_nvml()
    _force(monkeypatch, "12.8", value)
    with pytest.raises(ProviderError):
        NvidiaProvider().supported_configs()


def test_spec_4_cc_below_5_drops_only_sm_arch(monkeypatch, caplog) -> None:
    _force(monkeypatch, "12.8", "4.0")
    configs = NvidiaProvider().supported_configs()
    assert configs == _cfgs(LOWER_12_8, UPPER_12_8)
    assert "below" in caplog.text


def test_sm_forced_overrides_detected_cc(monkeypatch, fake_nvml) -> None:
    fake_nvml(cuda=12080, ccs=[(9, 0)])
    monkeypatch.setenv(FORCE_SM_ENV, "7.5")
    assert NvidiaProvider().supported_configs() == _cfgs(LOWER_12_8, UPPER_12_8, SM_7_5)


def test_driver_forced_cc_detected(monkeypatch, fake_nvml) -> None:
    fake_nvml(cuda=None, ccs=[(8, 9)])
    monkeypatch.setenv(FORCE_CUDA_ENV, "12.4")
    assert NvidiaProvider().supported_configs() == _cfgs(LOWER_12_4, UPPER_12_4, SM_8_9)


def test_both_forced_never_touch_nvml(monkeypatch, fake_nvml) -> None:
    mod = fake_nvml()
    _force(monkeypatch, "12.8", "9.0")
    NvidiaProvider().supported_configs()
    mod.nvmlInit.assert_not_called()


@pytest.mark.parametrize(
    "driver, label_ok",
    [
        ("12.4", {"ub125": True, "ub124": False, "ub12": False, "ub13": True}),
        ("12.5", {"ub125": False, "ub124": False, "ub12": False, "ub13": True}),
        ("13.0", {"ub125": False, "ub124": False, "ub12": False, "ub13": False}),
    ],
)
def test_spec_5_upper_bounds(monkeypatch, driver, label_ok) -> None:
    sup = _supported(monkeypatch, driver)
    variants = {"ub125": "12.5", "ub124": "12.4", "ub12": "12", "ub13": "13"}
    got = {label: _compatible(sup, {"cuda_version_upper_bound": [v]}) for label, v in variants.items()}
    assert got == label_ok


def test_spec_5_looser_upper_bound_ranks_first(monkeypatch) -> None:
    upper = _supported(monkeypatch, "12.4")["cuda_version_upper_bound"]
    assert upper.index("13") < upper.index("12.5")


def test_spec_6_excessive_override(monkeypatch) -> None:
    monkeypatch.setenv(FORCE_CUDA_ENV, "12.2000")
    with pytest.raises(ProviderError, match="1024"):
        NvidiaProvider().supported_configs()


def test_spec_6_exactly_1024_values_ok(monkeypatch) -> None:
    lower = _supported(monkeypatch, "12.1000")["cuda_version_lower_bound"]
    assert len(lower) == 1024
    assert "12.6" in lower


# ------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "text, expected",
    [("12.8", (12, 8)), ("12", (12, 0)), ("12.8.1", (12, 8)), ("13.0", (13, 0)), ("12.8rc1", (12, 8)), (" 12.4 ", (12, 4))],
)
def test_parse_cuda_version(text, expected) -> None:
    assert parse_cuda_version(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("8.9", (8, 9)), ("10.0", (10, 0)), ("12.1", (12, 1)),
    # int() in the plugin and uv take a sign; uv reads each part as a byte
    ("+8.9", (8, 9)), ("8.+9", (8, 9)), ("+8.+9", (8, 9)), ("8.255", (8, 255)), ("255.0", (255, 0)),
])
def test_parse_sm_arch(text, expected) -> None:
    assert parse_sm_arch(text) == expected


@pytest.mark.parametrize("text", [
    "89", "9", "8.9.1", "8.", ".9", "8,9", "a.b", "8 .9", "", "++8.9", "+.9", "-8.9",
    # beyond a byte, as uv: 8.4294967297 would claim 4e9 sm_arch values
    "8.256", "256.0", "8.4294967297",
])
def test_parse_sm_arch_refuses(text) -> None:
    with pytest.raises(ProviderError, match="MAJOR.MINOR"):
        parse_sm_arch(text)


@pytest.mark.parametrize("value, expected", [(12080, (12, 8)), (13000, (13, 0)), (11020, (11, 2)), (12090, (12, 9))])
def test_decode_nvml_cuda_int(value, expected) -> None:
    assert nvidia._decode_cuda_int(value) == expected


# --------------------------------------------------------------------- NVML


def test_nvml_library_missing(fake_nvml) -> None:
    mod = fake_nvml(init_error=True)
    assert NvidiaProvider().supported_configs() == []
    mod.nvmlShutdown.assert_not_called()


def test_nvml_init_error_with_forced_driver(monkeypatch, fake_nvml) -> None:
    fake_nvml(init_error=True)
    monkeypatch.setenv(FORCE_CUDA_ENV, "12.8")
    # A driver override still yields the bounds; no GPU info, so no sm_arch.
    assert NvidiaProvider().supported_configs() == _cfgs(LOWER_12_8, UPPER_12_8)


def test_pynvml_not_installed(no_nvml) -> None:
    assert nvidia.query_nvml() == nvidia.NvmlInfo()


def test_nvml_zero_gpus(fake_nvml) -> None:
    mod = fake_nvml(cuda=12080, ccs=[])
    assert NvidiaProvider().supported_configs() == _cfgs(LOWER_12_8, UPPER_12_8)
    mod.nvmlShutdown.assert_called_once()


def test_nvml_cannot_list_gpus(fake_nvml) -> None:
    fake_nvml(cuda=12080, count_error=True)
    assert NvidiaProvider().supported_configs() == _cfgs(LOWER_12_8, UPPER_12_8)


def test_nvml_driver_version_fails(fake_nvml) -> None:
    mod = fake_nvml(cuda=None)
    assert NvidiaProvider().supported_configs() == []
    mod.nvmlShutdown.assert_called_once()


def test_nvml_v2_missing_falls_back_to_v1(fake_nvml, mocker) -> None:
    mod = fake_nvml(cuda=12040)
    del mod.nvmlSystemGetCudaDriverVersion_v2
    mod.nvmlSystemGetCudaDriverVersion = mocker.Mock(return_value=12040)
    assert nvidia.query_nvml().driver == (12, 4)


def test_nvml_highest_cc_wins(fake_nvml) -> None:
    fake_nvml(cuda=12080, ccs=[(7, 5), (9, 0), (8, 6), (8, 9)])
    assert NvidiaProvider().supported_configs()[-1] == FeatureConfig(
        "sm_arch", tuple(SM_9_0.split()), multi_value=True
    )


def test_nvml_bad_device_ignored(fake_nvml) -> None:
    fake_nvml(cuda=12080, ccs=[(9, 0), (8, 9)], bad_devices=[0])
    assert nvidia.query_nvml() == nvidia.NvmlInfo((12, 8), (8, 9))


@pytest.mark.parametrize("cuda", [10020, 16000, 11000 - 10])
def test_detected_driver_outside_range_disables(fake_nvml, cuda) -> None:
    fake_nvml(cuda=cuda, ccs=[(9, 0)])
    assert NvidiaProvider().supported_configs() == []


@pytest.mark.parametrize("cuda, first", [(11000, "11.0"), (15200, "15.20")])
def test_detected_driver_range_edges(fake_nvml, cuda, first) -> None:
    fake_nvml(cuda=cuda, ccs=[])
    assert NvidiaProvider().supported_configs()[0].values[0] == first


# --------------------------------------------------------------- cache inputs


def test_cache_inputs_cheap_and_env_sensitive(monkeypatch, mocker) -> None:
    mocker.patch.dict(sys.modules, {"pynvml": None})  # importing it would fail
    provider = NvidiaProvider()
    base = provider.cache_inputs()
    assert all(isinstance(v, str) for v in base.values())
    monkeypatch.setenv(FORCE_CUDA_ENV, "12.8")
    forced = provider.cache_inputs()
    monkeypatch.setenv(FORCE_SM_ENV, "8.9")
    assert len({repr(sorted(d.items())) for d in (base, forced, provider.cache_inputs())}) == 3


def test_cache_inputs_reads_driver_files(mocker) -> None:
    mocker.patch.object(nvidia, "_read_first_line", side_effect=lambda p: "570.86.15" if "sys" in p else "")
    mocker.patch.object(nvidia.os, "listdir", return_value=["0000:01:00.0", "0000:02:00.0"])
    inputs = NvidiaProvider().cache_inputs()
    assert inputs["kernel_driver"] == "570.86.15"
    assert inputs["gpus"] == "0000:01:00.0,0000:02:00.0"


def test_cache_inputs_without_a_gpu_list_change_with_a_reboot(mocker) -> None:
    """Windows (and a container without /proc/driver/nvidia) lists no GPUs: a GPU
    swapped under the same driver is seen after the reboot it takes."""
    mocker.patch.object(nvidia.os, "listdir", side_effect=FileNotFoundError)
    mocker.patch.object(nvidia, "boot_id", return_value="boot-1")
    first = NvidiaProvider().cache_inputs()
    mocker.patch.object(nvidia, "boot_id", return_value="boot-2")
    assert first["gpus"] == "boot boot-1" and NvidiaProvider().cache_inputs() != first


@pytest.mark.parametrize("body", ["raise SystemExit('bye')", "raise RuntimeError('half installed')"])
def test_a_broken_pynvml_is_one_provider_error(mocker, monkeypatch, tmp_path, body) -> None:
    (tmp_path / "pynvml.py").write_text(body + "\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mocker.patch.object(nvidia, "_driver_may_be_present", return_value=True)
    mocker.patch.dict(sys.modules)
    sys.modules.pop("pynvml", None)
    with pytest.raises(ProviderError) as err:
        nvidia.query_nvml()
    assert "nvidia-ml-py is broken" in str(err.value)
    assert "--force-reinstall nvidia-ml-py" in str(err.value)


def test_nvml_init_exiting_is_one_provider_error(fake_nvml) -> None:
    mod = fake_nvml(cuda=12080, ccs=[(9, 0)])
    mod.nvmlInit.side_effect = SystemExit(3)
    with pytest.raises(ProviderError, match="NVML failed: SystemExit"):
        nvidia.query_nvml()


def test_a_hanging_nvml_gives_up_after_the_timeout(fake_nvml, monkeypatch) -> None:
    import threading

    release = threading.Event()
    mod = fake_nvml(cuda=12080, ccs=[(9, 0)])
    mod.nvmlInit.side_effect = lambda: release.wait(30)
    monkeypatch.setattr(nvidia, "_hung_worker", None)
    try:
        with pytest.raises(ProviderError, match="did not answer within 0 s"):
            nvidia.query_nvml(timeout=0.2)
        with pytest.raises(ProviderError, match="still not answering"):  # never a second query beside it
            nvidia.query_nvml(timeout=0.2)
    finally:
        release.set()
        worker = nvidia._hung_worker
        if worker is not None:
            worker.join(5)
