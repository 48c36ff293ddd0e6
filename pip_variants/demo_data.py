"""The made-up release that ``pip-variants demo`` publishes and installs.

``demo-tensor 1.0``: a plain wheel, turned into variant wheels with the
publisher tools (:mod:`pip_variants.publish`), plus the plain wheel itself,
and a static index. Pure file writing; no network.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .publish import build_index, make_variant

__all__ = [
    "DEMO_PROJECT",
    "DEMO_VERSION",
    "DEMO_NAMESPACES",
    "DEMO_VARIANTS",
    "DemoMachine",
    "DEMO_MACHINES",
    "CPU_PROFILE",
    "build_plain_wheel",
    "build_demo_index",
]

DEMO_PROJECT = "demo-tensor"
DEMO_VERSION = "1.0"
DEMO_NAMESPACES: Tuple[str, ...] = ("nvidia", "x86_64")

#: label -> properties. Built like a real GPU library: a CUDA 12.8 build for
#: Ampere and newer, a CUDA 12.6 build that still covers Turing (sm 7.5), a
#: CPU build for x86-64-v3, and the null variant for everything else.
DEMO_VARIANTS: Mapping[str, Tuple[str, ...]] = {
    "cu128": (
        "nvidia :: cuda_version_lower_bound :: 12.8",
        "nvidia :: sm_arch :: 80_real",
        "nvidia :: sm_arch :: 86_real",
        "nvidia :: sm_arch :: 89_real",
        "nvidia :: sm_arch :: 90_real",
    ),
    "cu126": (
        "nvidia :: cuda_version_lower_bound :: 12.6",
        "nvidia :: sm_arch :: 75_real",
        "nvidia :: sm_arch :: 80_real",
        "nvidia :: sm_arch :: 86_real",
    ),
    "x86_64_v3": ("x86_64 :: level :: v3",),
    "null": (),
}

#: What a CPU-only x86-64-v2 box reports (``pip-variants profile export`` there).
CPU_PROFILE: Mapping[str, object] = {
    "profile-version": 1,
    "created-by": "pip-variants demo",
    "platform": {"system": "Linux", "machine": "x86_64", "note": "made-up CPU-only x86-64-v2 box"},
    "namespaces": {"nvidia": {}, "x86_64": {"level": ["v2", "v1"]}},
}


@dataclass(frozen=True)
class DemoMachine:
    name: str
    #: variables set for this machine (None removes one)
    env: Mapping[str, Optional[str]]
    #: ``True``: PIP_VARIANT_PROFILE points at CPU_PROFILE written to a file
    use_cpu_profile: bool = False


DEMO_MACHINES: Tuple[DemoMachine, ...] = (
    DemoMachine("this machine", {}),
    DemoMachine(
        "T4 (CUDA 12.8 driver, sm 7.5)",
        {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "7.5"},
    ),
    DemoMachine(
        "H100 (CUDA 12.8 driver, sm 9.0)",
        {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": "12.8", "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": "9.0"},
    ),
    # A profile rather than overrides: no variable can hide a GPU that this
    # machine really has, a profile replaces detection entirely.
    DemoMachine("CPU-only box (x86-64-v2)", {"PIP_VARIANTS_X86_64_LEVEL": "v2"}, use_cpu_profile=True),
)


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_plain_wheel(out_dir: Union[str, Path], name: str = DEMO_PROJECT, version: str = DEMO_VERSION) -> Path:
    """A minimal pure-Python wheel, as a build backend would produce it."""
    dist = name.replace("-", "_")
    dist_info = f"{dist}-{version}.dist-info"
    files: Dict[str, bytes] = {
        f"{dist}/__init__.py": (
            '"""A made-up package from the pip-variants demo."""\n'
            "import pathlib\n\n"
            "def build():\n"
            '    """The variant label of the installed build ("" for the plain wheel)."""\n'
            f'    here = pathlib.Path(__file__).resolve().parent.parent / "{dist_info}" / "variant.json"\n'
            "    if not here.exists():\n"
            '        return ""\n'
            "    import json\n"
            '    return next(iter(json.loads(here.read_text())["variants"]))\n'
        ).encode(),
        f"{dist_info}/METADATA": (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            "Summary: made-up package of the pip-variants demo\n\n"
        ).encode(),
        f"{dist_info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: pip-variants-demo\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ).encode(),
    }
    record = [f"{arc},{_record_hash(data)},{len(data)}" for arc, data in files.items()]
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for arc, data in files.items():
            info = zipfile.ZipInfo(arc, date_time=(2025, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return path


def build_demo_index(root: Union[str, Path]) -> List[Path]:
    """Write the demo release into ``root`` (wheels, variants.json, simple/ pages).

    Returns the wheels, variant wheels first.
    """
    root = Path(root)
    work = root / ".build"
    plain = build_plain_wheel(work)
    wheels: List[Path] = []
    for label, props in DEMO_VARIANTS.items():
        wheels.append(make_variant(
            plain, root, label=label, properties=props, null=(label == "null"),
            namespaces=DEMO_NAMESPACES,
        ))
    wheels.append(Path(shutil.copy2(plain, root / plain.name)))
    shutil.rmtree(work, ignore_errors=True)
    build_index(root)
    return wheels


def describe_variants() -> Sequence[str]:
    """One line per demo label, for the progress output."""
    out = []
    for label, props in DEMO_VARIANTS.items():
        if not props:
            out.append(f"{label}: no properties (fits any machine)")
            continue
        feats: Dict[str, List[str]] = {}
        for p in props:
            ns, feature, value = (x.strip() for x in p.split("::"))
            feats.setdefault(f"{ns} :: {feature}", []).append(value)
        out.append(f"{label}: " + "; ".join(f"{k} :: {' | '.join(v)}" for k, v in feats.items()))
    return out
