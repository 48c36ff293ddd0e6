"""One project, ``pkg`` 1.0, published in a test and picked by pip: the names the
selection tests share."""

from __future__ import annotations

import os

from .wheels import variants_json

PLAIN = "pkg-1.0-py3-none-any.whl"


def meta(namespaces, providers, variants, **kwargs):
    return variants_json(
        "pkg", "1.0", namespaces=namespaces, providers=providers, variants=variants, **kwargs
    )


def variant_file(label: str, version: str = "1.0") -> str:
    return f"pkg-{version}-py3-none-any-{label}.whl"


def assert_clean(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr


def gpu_host_present() -> bool:
    return any(
        os.path.exists(p) for p in ("/proc/driver/nvidia/version", "/sys/module/nvidia/version")
    )
