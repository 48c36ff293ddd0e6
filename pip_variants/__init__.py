"""pip-variants: make stock pip variant-aware (PEP 817 / PEP 825 wheel variants).

This module is imported by the start-up shim in every Python process of the
environment, so it must stay free of imports: the public API lives in
:mod:`pip_variants.api` and the submodules.
"""

__version__ = "0.1.0"
