"""pip-variants: make stock pip variant-aware (PEP 817 / PEP 825 wheel variants).

Imported by the start-up hook's finder when pip first imports its internals,
so it stays free of imports. The spec model lives in :mod:`pip_variants.metadata`,
:mod:`pip_variants.selection` and :mod:`pip_variants.engine`; the pip hooks in
:mod:`pip_variants._pip`; the command line in :mod:`pip_variants.cli`.
"""

__version__ = "0.2.0.dev0"
