"""Variant metadata documents shared by the metadata tests, one per schema."""

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
