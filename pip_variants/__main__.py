"""``python -m pip_variants`` and the ``pip-variants`` console script."""

import sys

__all__ = ["main"]


def main() -> int:
    from pip_variants.cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
