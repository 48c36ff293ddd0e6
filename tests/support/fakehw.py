"""Fake hardware trees for the AMD and Intel providers (no GPU needed).

* :func:`kfd_tree`: a directory standing in for ``/sys`` with a KFD topology
  (``class/kfd/kfd/topology/nodes/N/properties``), as the amdgpu driver
  writes it: node 0 a CPU (``gfx_target_version 0``), then one node per GPU.
* :func:`rocm_tree`: a ROCm install folder with ``.info/version``.
* :func:`ze_devices`: ``(vendorId, ipVersion)`` pairs, what the Intel
  provider's Level Zero layer returns, from ``A.R.V`` strings.
* :func:`pci_display_device`: a display-class PCI device in a fake ``/sys``.
* :func:`real_gpu_host`: this machine has a GPU driver a provider would read.
* :func:`build_fake_ze_loader`: compile ``tests/data/fake_ze_loader.c`` into a
  ``libze_loader.so.1`` whose devices come from ``$FAKE_ZE_DEVICES``
  (:func:`ze_devices_env`), for the real ctypes path, even inside pip.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterable, List, Optional, Sequence, Tuple, Union

FAKE_ZE_LOADER_SOURCE = Path(__file__).resolve().parents[1] / "data" / "fake_ze_loader.c"


def real_gpu_host() -> bool:
    """An NVIDIA or AMD GPU driver is loaded here: providers would report it too."""
    return any(
        Path(p).exists()
        for p in (
            "/proc/driver/nvidia/version",
            "/sys/module/nvidia/version",
            "/sys/class/kfd/kfd/topology/nodes/1",
        )
    )

__all__ = [
    "real_gpu_host",
    "GFX_TARGET_VERSIONS",
    "kfd_tree",
    "rocm_tree",
    "ze_devices",
    "encode_ip",
    "pci_display_device",
    "build_fake_ze_loader",
    "ze_devices_env",
]

#: gfx name → KFD gfx_target_version (rocm-bootstrap 0.3.0 targets table, digest §1.7).
GFX_TARGET_VERSIONS = {
    "gfx900": 90000,
    "gfx902": 90002,
    "gfx904": 90004,
    "gfx906": 90006,
    "gfx908": 90008,
    "gfx909": 90009,
    "gfx90a": 90010,
    "gfx90c": 90012,
    "gfx942": 90402,
    "gfx950": 90500,
    "gfx1010": 100100,
    "gfx1011": 100101,
    "gfx1012": 100102,
    "gfx1013": 100103,
    "gfx1030": 100300,
    "gfx1031": 100301,
    "gfx1032": 100302,
    "gfx1033": 100303,
    "gfx1034": 100304,
    "gfx1035": 100305,
    "gfx1036": 100306,
    "gfx1100": 110000,
    "gfx1101": 110001,
    "gfx1102": 110002,
    "gfx1103": 110003,
    "gfx1150": 110500,
    "gfx1151": 110501,
    "gfx1152": 110502,
    "gfx1153": 110503,
    "gfx1200": 120000,
    "gfx1201": 120001,
    "gfx1250": 120500,
    "gfx1251": 120501,
}


#: GPU node ``n``'s ``unique_id`` in :func:`kfd_tree` (ROCm's UUID: ``GPU-`` and its 16 hex digits)
UNIQUE_ID_BASE = 0x5C5A7C3E2D3A1B00
#: GPU node ``n``'s ``drm_render_minor`` in :func:`kfd_tree` (its device: ``/dev/dri/renderD<minor>``)
RENDER_MINOR_BASE = 127


def kfd_tree(root: Union[str, Path], gpus: Sequence[Union[str, int]], *, cpu: bool = True) -> Path:
    """Write a fake ``/sys`` under ``root`` with a CPU node then one node per GPU.

    ``gpus`` items are gfx names (looked up in :data:`GFX_TARGET_VERSIONS`)
    or raw ``gfx_target_version`` integers. Returns ``root``.
    """
    root = Path(root)
    nodes = root / "class" / "kfd" / "kfd" / "topology" / "nodes"
    nodes.mkdir(parents=True, exist_ok=True)
    (root / "class" / "kfd" / "kfd" / "topology" / "generation_id").write_text("1\n")
    entries: List[Tuple[int, int]] = []
    if cpu:
        entries.append((0, 0))
    for gpu in gpus:
        version = GFX_TARGET_VERSIONS[gpu] if isinstance(gpu, str) else int(gpu)
        entries.append((version, 304 if version else 0))
    for index, (version, simds) in enumerate(entries):
        node = nodes / str(index)
        node.mkdir(exist_ok=True)
        (node / "properties").write_text(
            f"cpu_cores_count {0 if version else 16}\n"
            f"simd_count {simds}\n"
            "mem_banks_count 1\n"
            f"gfx_target_version {version}\n"
            "vendor_id 4098\n"
            + (f"unique_id {UNIQUE_ID_BASE + index}\ndrm_render_minor {RENDER_MINOR_BASE + index}\n"
               if version else "")
        )
    return root


def dev_tree(root: Union[str, Path], gpu_nodes: Sequence[int], *, kfd: bool = True) -> Path:
    """A fake ``/dev`` holding ``kfd`` and the render nodes of the given KFD node numbers
    (of a :func:`kfd_tree`; node 0 is its CPU): what a container is passed."""
    root = Path(root)
    (root / "dri").mkdir(parents=True, exist_ok=True)
    if kfd:
        (root / "kfd").write_text("")
    for node in gpu_nodes:
        (root / "dri" / f"renderD{RENDER_MINOR_BASE + node}").write_text("")
    return root


def rocm_tree(root: Union[str, Path], version: str) -> Path:
    """A ROCm install folder whose ``.info/version`` says ``version`` (e.g. ``6.4.1-120``)."""
    root = Path(root)
    (root / ".info").mkdir(parents=True, exist_ok=True)
    (root / ".info" / "version").write_text(version + "\n")
    return root


def encode_ip(ip: str) -> int:
    """``"12.55.8"`` → the 32-bit Level Zero ``ipVersion`` (``0x030dc008``)."""
    arch, release, revision = (int(p) for p in ip.split("."))
    return (arch << 22) | (release << 14) | revision


def ze_devices(ips: Iterable[str], vendor: int = 0x8086) -> List[Tuple[int, int]]:
    return [(vendor, encode_ip(ip)) for ip in ips]


def ze_devices_env(devices: Sequence[Tuple[int, int]]) -> str:
    """``$FAKE_ZE_DEVICES`` for the stand-in loader."""
    return ",".join(f"{vendor:x}:{raw:08x}" for vendor, raw in devices)


def pci_display_device(sys_root: Union[str, Path], address: str, vendor: int = 0x8086) -> Path:
    """A VGA-class PCI device ``address`` (``0000:00:02.0``) under a fake ``/sys``."""
    dev = Path(sys_root) / "bus" / "pci" / "devices" / address
    dev.mkdir(parents=True, exist_ok=True)
    (dev / "vendor").write_text(f"0x{vendor:04x}\n")
    (dev / "class").write_text("0x030000\n")
    return dev


def build_fake_ze_loader(out_dir: Union[str, Path], *, init_drivers: bool = True) -> Optional[Path]:
    """``out_dir/libze_loader.so.1`` built with the C compiler, or None (not Linux, no compiler)."""
    if not sys.platform.startswith("linux"):
        return None
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    out = Path(out_dir) / "libze_loader.so.1"
    out.parent.mkdir(parents=True, exist_ok=True)
    flags = ["-DWITH_INIT_DRIVERS"] if init_drivers else []
    subprocess.run(
        [cc, "-shared", "-fPIC", "-O1", *flags, "-o", str(out), str(FAKE_ZE_LOADER_SOURCE)],
        check=True,
    )
    return out
