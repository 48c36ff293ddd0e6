"""The built-in tpu provider: PCI scan and FORCE_PRESENT override."""

from __future__ import annotations

from pathlib import Path

import pytest

from pip_variants.providers import tpu
from pip_variants.providers.base import FeatureConfig
from pip_variants.providers.tpu import FORCE_PRESENT_ENV, TpuProvider, scan_pci_for_tpu

TRUE = [FeatureConfig("present", ("true",))]
FALSE = [FeatureConfig("present", ("false",))]


def pci_tree(root: Path, devices) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i, (vendor, device) in enumerate(devices):
        dev = root / f"0000:00:{i:02x}.0"
        dev.mkdir()
        (dev / "vendor").write_text(f"{vendor}\n")
        (dev / "device").write_text(f"{device}\n")
    return root


@pytest.fixture
def linux(mocker) -> None:
    mocker.patch.object(tpu.sys, "platform", "linux")


@pytest.fixture
def tpu_host(tmp_path) -> TpuProvider:
    root = pci_tree(tmp_path / "pci-tpu", [("0x8086", "0x1237"), ("0x1ae0", "0x0063"), ("0x1af4", "0x1000")])
    return TpuProvider(pci_root=str(root))


@pytest.fixture
def cpu_host(tmp_path) -> TpuProvider:
    # A Google device that is not a TPU (gVNIC), next to ordinary ones.
    root = pci_tree(tmp_path / "pci-cpu", [("0x8086", "0x1237"), ("0x1ae0", "0x0042")])
    return TpuProvider(pci_root=str(root))


@pytest.mark.parametrize("device", sorted(tpu.TPU_DEVICE_IDS))
def test_every_tpu_id_detected(tmp_path, device) -> None:
    assert scan_pci_for_tpu(str(pci_tree(tmp_path / "pci", [("0x1ae0", f"0x{device:04x}")])))


def test_tpu_host(linux, tpu_host) -> None:
    assert tpu_host.supported_configs() == TRUE


def test_cpu_host(linux, cpu_host) -> None:
    assert cpu_host.supported_configs() == FALSE


def test_other_vendor_with_tpu_device_id(linux, tmp_path) -> None:
    root = pci_tree(tmp_path / "pci", [("0x10de", "0x0063")])
    assert TpuProvider(pci_root=str(root)).supported_configs() == FALSE


def test_missing_sysfs(linux, tmp_path) -> None:
    assert TpuProvider(pci_root=str(tmp_path / "none")).supported_configs() == FALSE


def test_garbage_sysfs_files(linux, tmp_path) -> None:
    root = pci_tree(tmp_path / "pci", [("zzz", "0x0063"), ("0x1ae0", "")])
    assert TpuProvider(pci_root=str(root)).supported_configs() == FALSE


def test_non_linux_is_false_without_scanning(mocker, tpu_host) -> None:
    mocker.patch.object(tpu.sys, "platform", "darwin")
    scan = mocker.patch.object(tpu, "scan_pci_for_tpu")
    assert tpu_host.supported_configs() == FALSE
    scan.assert_not_called()


@pytest.mark.parametrize("value", ["1", "true", "True", "TRUE", "yes", "YES"])
def test_spec_9_force_present(monkeypatch, linux, cpu_host, value) -> None:
    monkeypatch.setenv(FORCE_PRESENT_ENV, value)
    assert cpu_host.supported_configs() == TRUE


@pytest.mark.parametrize("value", ["no", "", "0", "false", "2", "y", "on", " yes ", "true "])
def test_spec_9_force_absent(monkeypatch, linux, tpu_host, value) -> None:
    monkeypatch.setenv(FORCE_PRESENT_ENV, value)
    assert tpu_host.supported_configs() == FALSE


def test_spec_9_unset_scans(linux, tpu_host, cpu_host) -> None:
    assert tpu_host.supported_configs() == TRUE
    assert cpu_host.supported_configs() == FALSE


def test_exactly_one_value(linux, tpu_host) -> None:
    (cfg,) = tpu_host.supported_configs()
    assert len(cfg.values) == 1 and not cfg.multi_value


def test_all_configs() -> None:
    assert TpuProvider().all_configs() == [FeatureConfig("present", ("true", "false"))]


def test_cache_inputs_distinguish_empty_from_unset(monkeypatch, tpu_host) -> None:
    unset = tpu_host.cache_inputs()
    monkeypatch.setenv(FORCE_PRESENT_ENV, "")
    assert tpu_host.cache_inputs() != unset


def test_cache_inputs_follow_device_set(tmp_path) -> None:
    root = pci_tree(tmp_path / "pci", [("0x8086", "0x1237")])
    provider = TpuProvider(pci_root=str(root))
    before = provider.cache_inputs()
    (root / "0000:00:1f.0").mkdir()
    assert provider.cache_inputs() != before
