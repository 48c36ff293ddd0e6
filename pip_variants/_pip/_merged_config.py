"""pip's configuration as pip's option parser takes it, printed as JSON.

Run as ``python -c`` (never imported) with the environment's Python by ``pip-variants
status``: ``pip config list`` prints every file's line, sorted by file name
from pip 26 on, so its last line for a key is not always the one in force,
and it keeps values that pip's parser drops as empty. This prints each
``section.key`` with the value the parser uses: files in the order pip loads
them, a later one overriding; empty values dropped after merging.
"""

import json

from pip._internal.configuration import Configuration


def main() -> None:
    config = Configuration(isolated=False)
    config.load()
    merged = {}
    for key, value in config.items():
        if isinstance(value, dict):  # pip 26+: (file, its keys) in load order
            merged.update(value)
        else:  # before: already merged
            merged[key] = value
    print(json.dumps({key: value for key, value in merged.items() if value}))


if __name__ == "__main__":
    main()
