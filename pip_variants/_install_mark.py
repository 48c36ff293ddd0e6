"""The mark of an install from a wheel without a label (PEP 825: a non-variant
wheel, whatever ``variant.json`` it carries).

Written by the pip hook H22 (:mod:`pip_variants._pip.wheel_install`) while pip
installs, read by :mod:`pip_variants.installed` and the hooks. A module of its
own, importing nothing: pip 26.3 imports it before every install, as it must
import whatever runs during one.
"""

from __future__ import annotations

import os

__all__ = ["NON_VARIANT_FILE", "mark_installed_without_label"]

#: In the ``.dist-info`` of a distribution installed from a wheel without a label: its ``variant.json`` does not apply.
NON_VARIANT_FILE = "NON-VARIANT"
_NON_VARIANT_TEXT = (b"Installed from a wheel without a variant label: a non-variant wheel (PEP 825),\n"
                     b"whatever its variant.json says. Written by pip-variants.\n")


def mark_installed_without_label(lib_dir: str, dist_info_name: str) -> None:
    """Mark ``lib_dir/dist_info_name`` as installed from a wheel without a label:
    write :data:`NON_VARIANT_FILE` and list it in ``RECORD``, so that uninstalling
    removes it with the rest."""
    import base64
    import hashlib

    dist_info = os.path.join(lib_dir, dist_info_name)
    record = os.path.join(dist_info, "RECORD")
    if not os.path.isfile(record) or os.path.exists(os.path.join(dist_info, NON_VARIANT_FILE)):
        return
    digest = base64.urlsafe_b64encode(hashlib.sha256(_NON_VARIANT_TEXT).digest()).rstrip(b"=").decode()
    line = f"{dist_info_name}/{NON_VARIANT_FILE},sha256={digest},{len(_NON_VARIANT_TEXT)}\r\n".encode()
    with open(record, "rb+") as fh:  # pip writes RECORD with csv's \r\n
        size = fh.seek(0, os.SEEK_END)
        if size:
            fh.seek(size - 1)
            if fh.read(1) != b"\n":
                line = b"\r\n" + line
        fh.write(line)
    # RECORD first: a file it lists but that is missing does not stop pip uninstall;
    # a file it does not list would stay behind, with its folder
    with open(os.path.join(dist_info, NON_VARIANT_FILE), "wb") as fh:
        fh.write(_NON_VARIANT_TEXT)
