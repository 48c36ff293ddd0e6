"""Shared by the CLI tests (imported by name: tests/cli is on sys.path under pytest)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, Mapping, Optional

REPO = Path(__file__).resolve().parents[2]

# Variables that would make a test depend on this machine's settings.
_SCRUB_PREFIXES = (
    "PIP_", "UV_", "NV_VARIANT_PROVIDER_", "TPU_VARIANT_PROVIDER_", "AMD_VARIANT_PROVIDER_",
    "INTEL_VARIANT_PROVIDER_", "AMD_PREFERRED_GFX_ARCHS", "HSA_OVERRIDE_GFX_VERSION", "ROCM_PATH",
)


def cli_env(tmp: Path, extra: Optional[Mapping[str, Optional[str]]] = None) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_SCRUB_PREFIXES)}
    env["PYTHONPATH"] = str(REPO)
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    env["PIP_VARIANTS_CACHE_DIR"] = str(tmp / "variants-cache")
    for k, v in (extra or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env
