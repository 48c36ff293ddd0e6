"""The built-in intel provider: IP decoding, the 0.0.3 table, Level Zero (mocked), FORCE.

Expected lists are those of intel-variant-provider 0.0.3 on the same machine
(digest PROVIDERS-AMD-INTEL.md §2.2-§2.6). Only the ctypes layer
(``_level_zero_devices``) is replaced; the thread, time bound and decoding run.
"""

from __future__ import annotations

import threading
import time

import pytest

from pip_variants.providers import intel
from pip_variants.providers.base import FeatureConfig, ProviderError
from pip_variants.providers.cache import cache_key
from pip_variants.providers.intel import (
    DEVICE_TABLE,
    FORCE_DEVICE_IP_ENV,
    IntelProvider,
    decode_ip,
    device_ips,
    query_level_zero,
)
from support.fakehw import encode_ip, ze_devices


def ips(*values: str) -> list:
    return [FeatureConfig("device_ip", values, multi_value=True)]


@pytest.fixture
def level_zero(mocker):
    """Replace the ctypes layer; returns a setter for the devices it reports."""
    mocker.patch.object(intel.sys, "platform", "linux")
    mocker.patch.object(IntelProvider, "_worth_asking", return_value=True)
    fake = mocker.patch.object(intel, "_level_zero_devices", return_value=[])

    def set_devices(devices=None, *, error=None):
        fake.side_effect = error
        fake.return_value = devices or []
        return fake

    return set_devices


# -- decoding and the table ---------------------------------------------------------------


# PROVIDERS-AMD-INTEL.md §2.4, every row of release 0.0.3:
# (device_ip, raw ipVersion, what a machine with that one device supports)
TABLE_0_0_3 = [
    ("30.1.0", 0x07804000, ("30.1.0", "30.0.4")),  # PTL-U
    ("30.0.4", 0x07800004, ("30.0.4",)),  # PTL-H
    ("20.4.4", 0x05010004, ("20.4.4", "20.1.0")),  # Lunar Lake
    ("20.2.0", 0x05008000, ("20.2.0", "20.1.0")),  # BMG-G31
    ("20.1.0", 0x05004000, ("20.1.0",)),  # BMG-G21
    ("12.74.4", 0x03128004, ("12.74.4",)),  # ARL-H
    ("12.71.4", 0x0311C004, ("12.71.4", "12.70.4")),  # Meteor Lake H
    ("12.70.4", 0x03118004, ("12.70.4",)),  # MTL-U / ARL-U / ARL-S
    ("12.60.7", 0x030F0007, ("12.60.7",)),  # Data Center GPU Max
    ("12.57.0", 0x030E4000, ("12.57.0", "12.55.8")),  # DG2-G12
    ("12.56.5", 0x030E0005, ("12.56.5", "12.55.8")),  # Arc A380 / A310 / Flex 140
    ("12.55.8", 0x030DC008, ("12.55.8",)),  # Arc A770
    ("12.10.0", 0x03028000, ("12.10.0",)),  # DG1
    ("12.4.0", 0x03010000, ("12.4.0",)),  # ADL-N
    ("12.3.0", 0x0300C000, ("12.3.0",)),  # ADL-P / RPL-P
    ("12.2.0", 0x03008000, ("12.2.0",)),  # ADL-S / RPL-S
    ("12.1.0", 0x03004000, ("12.1.0",)),  # RKL
    ("12.0.0", 0x03000000, ("12.0.0",)),  # TGL
]


@pytest.mark.parametrize("ip, raw", [(ip, raw) for ip, raw, _ in TABLE_0_0_3])
def test_decode_ip(raw, ip):
    assert decode_ip(raw) == ip
    assert encode_ip(ip) == raw


def test_reserved_bits_are_ignored():
    assert decode_ip(0x030DC008 | (0xFF << 6)) == "12.55.8"


def test_table_is_release_0_0_3():
    assert list(DEVICE_TABLE) == [ip for ip, _, _ in TABLE_0_0_3]
    assert list(DEVICE_TABLE)[:2] == ["30.1.0", "30.0.4"] and list(DEVICE_TABLE)[-1] == "12.0.0"
    assert "35.11.0" not in DEVICE_TABLE  # unreleased HEAD entries are not emulated


# -- the digest's vectors: one device each (own IP, then compat) ----------------------------


@pytest.mark.parametrize("device, expected", [(ip, supported) for ip, _, supported in TABLE_0_0_3])
def test_single_device(level_zero, device, expected):
    level_zero(ze_devices([device]))
    assert IntelProvider().supported_configs() == ips(*expected)


def test_unknown_ip_gets_nothing_not_even_compat(level_zero):
    level_zero(ze_devices(["30.3.1"]))  # WCL: only in unreleased HEAD
    assert IntelProvider().supported_configs() == []


def test_igpu_plus_dgpu_in_enumeration_order_without_repeats(level_zero):
    level_zero(ze_devices(["12.71.4", "12.56.5", "12.57.0"]))
    assert IntelProvider().supported_configs() == ips(
        "12.71.4", "12.70.4", "12.56.5", "12.55.8", "12.57.0"
    )


def test_other_vendors_are_ignored():
    assert device_ips([(0x10DE, encode_ip("12.55.8"))] + ze_devices(["20.1.0"])) == ["20.1.0"]


# -- no Level Zero, errors, hangs -------------------------------------------------------------


def test_no_loader_gives_nothing(level_zero):
    level_zero(error=OSError("libze_loader.so.1: cannot open shared object file"))
    assert IntelProvider().supported_configs() == []


def test_level_zero_error_gives_nothing(level_zero):
    level_zero(error=intel._ZeError("zeInit returned 0x78000001"))
    assert IntelProvider().supported_configs() == []


def test_hanging_driver_is_abandoned_and_never_asked_twice(mocker):
    release = threading.Event()
    mocker.patch.object(intel.sys, "platform", "linux")
    mocker.patch.object(IntelProvider, "_worth_asking", return_value=True)
    mocker.patch.object(
        intel, "_level_zero_devices", side_effect=lambda lib: release.wait(5) and []
    )
    mocker.patch.object(intel, "_hung_worker", None)
    start = time.perf_counter()
    with pytest.raises(intel.LevelZeroTimeout):
        query_level_zero(timeout=0.2)
    assert time.perf_counter() - start < 2
    # No second zeInit beside the stuck one; the provider warns (a ProviderError
    # is never cached, so the next run asks again).
    with pytest.raises(ProviderError, match="still not answering"):
        IntelProvider().supported_configs()
    release.set()
    intel._hung_worker.join(5)


def test_real_loader_absent_on_this_machine_is_harmless():
    # Whatever this host has, the real ctypes path must answer, not raise.
    assert isinstance(query_level_zero(library="/nonexistent/libze_loader.so.1"), list)


def test_linux_host_without_intel_display_device_skips_level_zero(tmp_path, mocker):
    mocker.patch.object(intel.sys, "platform", "linux")
    mocker.patch.object(intel.os.path, "exists", return_value=False)  # no /dev/dxg
    dev = tmp_path / "0000:01:00.0"
    dev.mkdir()
    (dev / "vendor").write_text("0x10de\n")
    (dev / "class").write_text("0x030000\n")
    spy = mocker.patch.object(intel, "query_level_zero", return_value=ze_devices(["12.55.8"]))
    assert IntelProvider(pci_root=str(tmp_path)).supported_configs() == []
    spy.assert_not_called()
    igpu = tmp_path / "0000:00:02.0"
    igpu.mkdir()
    (igpu / "vendor").write_text("0x8086\n")
    (igpu / "class").write_text("0x030000\n")
    assert IntelProvider(pci_root=str(tmp_path)).supported_configs() == ips("12.55.8")


@pytest.mark.parametrize("platform", ["darwin", "freebsd14"])
def test_other_platforms_give_nothing(mocker, platform):
    # The plugin raises NameError there; a built-in answers [].
    mocker.patch.object(intel.sys, "platform", platform)
    spy = mocker.patch.object(intel, "query_level_zero")
    assert IntelProvider().supported_configs() == []
    spy.assert_not_called()


def test_windows_loader_path(mocker, monkeypatch):
    mocker.patch.object(intel.sys, "platform", "win32")
    monkeypatch.setenv("WINDIR", "D:/Win")
    assert intel.level_zero_library().replace("\\", "/") == "D:/Win/System32/ze_loader.dll"


# -- FORCE ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        ("12.60.7", ips("12.60.7")),
        ("20.2.0", ips("20.2.0")),
        ("12.55.8", ips("12.55.8")),
    ],
)
def test_force_is_verbatim_without_compat(level_zero, monkeypatch, value, expected):
    spy = level_zero(ze_devices(["12.71.4"]))
    monkeypatch.setenv(FORCE_DEVICE_IP_ENV, value)
    assert IntelProvider().supported_configs() == expected
    spy.assert_not_called()


@pytest.mark.parametrize("value", ["12.99.99", "30.3.1", "12.55.8 ", "gen12", "12.55.8,12.60.7"])
def test_force_unknown_to_the_table_is_one_clear_error(level_zero, monkeypatch, value):
    # The plugin warns and supports nothing (an unknown IP, even one in its
    # unreleased table, or with a stray space); we raise the provider error.
    spy = level_zero(ze_devices(["12.71.4"]))
    monkeypatch.setenv(FORCE_DEVICE_IP_ENV, value)
    with pytest.raises(ProviderError, match=f"{FORCE_DEVICE_IP_ENV}.*takes exactly one"):
        IntelProvider().supported_configs()
    spy.assert_not_called()


def test_force_works_on_any_platform(mocker, monkeypatch):
    mocker.patch.object(intel.sys, "platform", "darwin")
    monkeypatch.setenv(FORCE_DEVICE_IP_ENV, "12.55.8")
    assert IntelProvider().supported_configs() == ips("12.55.8")


# -- all configs, cache --------------------------------------------------------------------


def test_all_configs_is_the_table_in_order():
    assert IntelProvider().all_configs() == [FeatureConfig("device_ip", tuple(DEVICE_TABLE), True)]


def test_cache_key_follows_devices_and_force(tmp_path, monkeypatch):
    p = IntelProvider(pci_root=str(tmp_path))
    first = cache_key(p)
    (tmp_path / "0000:03:00.0").mkdir()
    second = cache_key(p)
    assert second != first
    monkeypatch.setenv(FORCE_DEVICE_IP_ENV, "12.55.8")
    assert cache_key(p) != second
    monkeypatch.delenv(FORCE_DEVICE_IP_ENV)
    monkeypatch.setenv("ZE_AFFINITY_MASK", "0")
    assert cache_key(p) != second


def test_cache_key_follows_the_loader_library(tmp_path, monkeypatch):
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    p = IntelProvider(pci_root=str(tmp_path / "pci"))
    before = cache_key(p)
    (tmp_path / "libze_loader.so.1").write_bytes(b"\x7fELF")
    assert cache_key(p) != before


# -- the real ctypes layer against a compiled stand-in loader ------------------------------


@pytest.fixture(params=["zeInitDrivers", "zeInit"])
def fake_loader(request, tmp_path_factory):
    """``libze_loader.so.1`` built from tests/data/fake_ze_loader.c (skipped without a C compiler)."""
    from support.fakehw import build_fake_ze_loader

    built = build_fake_ze_loader(
        tmp_path_factory.mktemp("ze"), init_drivers=request.param == "zeInitDrivers"
    )
    if built is None:
        pytest.skip("no C compiler (or not Linux) to build the stand-in Level Zero loader")
    return str(built)


def test_ctypes_layer_reads_vendor_and_ip(fake_loader, monkeypatch):
    monkeypatch.setenv("FAKE_ZE_DEVICES", "8086:030e0005,10de:0,8086:0311c004")
    devices = query_level_zero(library=fake_loader)
    assert devices == [(0x8086, 0x030E0005), (0x10DE, 0), (0x8086, 0x0311C004)]
    assert device_ips(devices) == ["12.56.5", "12.55.8", "12.71.4", "12.70.4"]


@pytest.mark.parametrize("failing", ["0", "1"])
def test_ctypes_layer_one_failing_device_hides_not_the_others(fake_loader, monkeypatch, failing):
    # an iGPU whose driver misbehaves beside a working dGPU: the dGPU still counts
    monkeypatch.setenv("FAKE_ZE_DEVICES", "8086:030e0005,8086:0311c004")
    monkeypatch.setenv("FAKE_ZE_FAIL_DEVICE", failing)
    working = [(0x8086, 0x030E0005), (0x8086, 0x0311C004)][1 - int(failing)]
    assert query_level_zero(library=fake_loader) == [working]


def test_ctypes_layer_no_devices(fake_loader, monkeypatch):
    monkeypatch.setenv("FAKE_ZE_DEVICES", "")
    assert query_level_zero(library=fake_loader) == []


def test_ctypes_layer_init_failure_is_nothing(fake_loader, monkeypatch):
    monkeypatch.setenv("FAKE_ZE_FAIL", "1")
    monkeypatch.setenv("FAKE_ZE_DEVICES", "8086:030dc008")
    assert query_level_zero(library=fake_loader) == []
