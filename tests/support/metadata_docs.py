"""Variant metadata documents shared by the metadata tests, one per schema."""

import json
from pathlib import Path

V020 = "https://variants-schema.wheelnext.dev/peps/850/v0.2.0.json"

V003 = {
    "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {
        "namespace": ["x86_64", "blas_lapack"],
        "feature": {"blas_lapack": ["library", "int"]},
        "property": {"x86_64": {"level": ["v3"]}},
    },
    "providers": {
        "x86_64": {"requires": ["provider-variant-x86-64>=0.0.1"], "plugin-api": "provider_variant_x86_64.plugin:X8664Plugin"},
        "blas_lapack": {"install-time": False, "optional": True},
    },
    "static-properties": {"blas_lapack": {"int": ["lp64"], "library": ["openblas", "mkl"]}},
    "variants": {"v3": {"x86_64": {"level": ["v3"]}}, "mkl": {"blas_lapack": {"library": ["mkl"]}}, "null": {}},
}

V011 = {
    "$schema": "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json",
    "default-priorities": {"namespace": ["simd"]},
    "variants": {"fast": {"simd": {"level": ["v2"]}}, "null": {}},
}

V020_DOC = {
    "$schema": V020,
    "default-priorities": {"namespace": ["nvidia", "blas_lapack", "abi"]},
    "providers": {
        "nvidia": {"requires": ["nvidia-variant-provider>=0.0.1,<1"], "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin"},
        "blas_lapack": {"static-properties": {"library": ["openblas", "mkl"], "int": ["lp64", "ilp64"]}, "feature-order": ["library", "int"]},
        "abi": {"builtin": "abi_dependency"},
    },
    "variants": {"cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"]}}, "null": {}},
}

# torch 2.8 as served by WheelNext's index: unversioned $schema, enable-if,
# and the legacy null variant "00000000".
TORCH_28 = {
    "$schema": "https://variants-schema.wheelnext.dev/",
    "default-priorities": {"namespace": ["nvidia"]},
    "providers": {
        "nvidia": {
            "enable-if": "platform_system == 'Linux' or platform_system == 'Windows'",
            "plugin-api": "nvidia_variant_provider.plugin:NvidiaVariantPlugin",
            "requires": ["nvidia-variant-provider>=0.0.1,<1.0.0"],
        }
    },
    "variants": {
        "00000000": {},
        "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"], "sm_arch": ["50_real", "90_real"]}},
        "cu128": {"nvidia": {"cuda_version_lower_bound": ["12.8"], "sm_arch": ["100_real", "75_real"]}},
    },
}

V002 = {
    "$schema": "https://variants-schema.wheelnext.dev/v0.0.2.json",
    "default-priorities": {
        "namespace": ["blas"],
        "feature": {"blas": ["lib"]},
        "property": {"blas": {"lib": ["mkl", "openblas"]}},
    },
    "providers": {"blas": {"requires": [], "plugin-use": "none"}},
    "variants": {"mkl": {"blas": {"lib": "mkl"}}},
}

#: torch 2.9.0's variants.json as served by WheelNext's index
TORCH_29 = json.loads((Path(__file__).resolve().parents[1] / "data" / "torch-2.9.0-variants.json").read_text())

STATIC_003 = {
    "$schema": "https://variants-schema.wheelnext.dev/v0.0.3.json",
    "default-priorities": {"namespace": ["blas"]},
    "providers": {"blas": {"install-time": False, "enable-if": "python_version >= '3'"}},
    "static-properties": {"blas": {"lib": ["mkl", "openblas"], "int": ["lp64"]}},
    "variants": {"mkl": {"blas": {"lib": ["mkl"], "int": ["lp64"]}}, "null": {}},
}
