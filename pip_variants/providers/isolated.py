"""Plugin packages installed out of the environment: ``pip install --target``
into a directory of pip-variants' cache, keyed by the requirement set, reused.

When a release names a plugin that is not installed and the user allows
installing it (PROVIDERS.md §3.5), :func:`isolated_plugin_dir` gives the
directory to pass to :func:`pip_variants.providers.plugins.run_plugins` as an
extra path. The environment itself is never touched; the child pip runs with
``PIP_NO_VARIANTS=1``.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from typing import List, Mapping, Optional, Sequence, Tuple

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from .base import ProviderError

__all__ = ["install_isolated", "isolated_plugin_dir"]


def _pip_failure_summary(output: str, max_lines: int = 5) -> str:
    lines = [" ".join(line.split()) for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR:")]
    if errors and errors[-1].endswith(":") and lines[-1] != errors[-1]:
        # "ERROR: Exception:" then a traceback (pip 24.0 on a broken connection):
        # its last line is the cause
        errors.append(lines[-1])
    chosen = (errors or lines)[-max_lines:]
    return " | ".join(chosen) if chosen else "no output"


def install_isolated(
    requirements: Sequence[str],
    *,
    pip_command: Sequence[str],
    target_dir: str,
    pip_args: Sequence[str] = (),
    timeout: float = 600,
    env: Optional[Mapping[str, str]] = None,
) -> None:
    """``pip install --target target_dir`` the plugin ``requirements``.

    ``pip_command`` is how to start pip (e.g. ``[sys.executable, "-m", "pip"]``);
    ``pip_args`` carries the index options of the main install. Only wheels
    are installed (``--only-binary :all:``). The child gets
    ``PIP_NO_VARIANTS=1``, so it is stock pip: no variant logic, no recursion.
    ``env`` replaces ``os.environ`` as the base environment.
    Raises :class:`ProviderError` (naming the requirements) on failure.
    """
    label = ", ".join(requirements) or "(no requirements)"
    cmd = [
        *pip_command,
        "install",
        "--target",
        target_dir,
        "--no-warn-script-location",
        "--disable-pip-version-check",
        *pip_args,
        # Wheels only (PV-9): building a source distribution would run its code.
        "--only-binary",
        ":all:",
        *requirements,
    ]
    child_env = dict(os.environ if env is None else env)
    child_env["PIP_NO_VARIANTS"] = "1"
    try:
        proc = subprocess.run(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=child_env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise ProviderError(
            label, f"installing the plugin timed out after {timeout:g} s; check the index or network"
        ) from None
    except OSError as exc:
        raise ProviderError(label, f"cannot run pip ({' '.join(pip_command)}) to install the plugin: {exc}") from None
    if proc.returncode != 0:
        output = proc.stdout.decode("utf-8", "replace") if proc.stdout else ""
        # pip's "(from versions: none)" reads as "no such release" where only a source
        # distribution was found, which --only-binary set aside
        wheels_only = ("; plugins and their dependencies are installed from wheels only (no source "
                       "distribution is built)" if "No matching distribution found" in output else "")
        raise ProviderError(
            label,
            f"installing the plugin failed (pip exit code {proc.returncode}): "
            f"{_pip_failure_summary(output)}{wheels_only}",
        )


def _normalize_requirement(text: str) -> str:
    try:
        req = Requirement(text)
    except InvalidRequirement as exc:
        raise ValueError(f"invalid provider requirement {text!r}: {exc}") from None
    req.name = canonicalize_name(req.name)
    return str(req)


def _default_key_extra() -> str:
    # pip --target installs wheels built for the interpreter that runs pip.
    return f"{sys.implementation.cache_tag}-{sys.platform}-{platform.machine()}"


def _isolated_dir_path(
    requirements: Sequence[str], cache_root: str, key_extra: Optional[str], pip_args: Sequence[str] = ()
) -> Tuple[str, List[str], str]:
    """``(final directory, normalised requirements, key extra)`` for a set.

    The index options are part of the key: a plugin installed from one index
    is not what another index would give (they may carry credentials, so
    only their hash is kept)."""
    normalized = sorted({_normalize_requirement(r) for r in requirements})
    extra = _default_key_extra() if key_extra is None else key_extra
    digest = hashlib.sha256("\n".join([extra, *normalized, "\0", *pip_args]).encode("utf-8")).hexdigest()
    return os.path.join(cache_root, f"plugins-{digest[:32]}"), normalized, extra


def isolated_plugin_dir(
    requirements: Sequence[str],
    cache_root: str,
    *,
    pip_command: Optional[Sequence[str]] = None,
    pip_args: Sequence[str] = (),
    timeout: float = 600,
    env: Optional[Mapping[str, str]] = None,
    key_extra: Optional[str] = None,
    network_args: Sequence[str] = (),
) -> str:
    """A directory under ``cache_root`` holding ``requirements`` installed with
    :func:`install_isolated`; pass it to
    :func:`~pip_variants.providers.plugins.run_plugins` as an extra path.

    The directory is keyed by the sha256 of the sorted, normalised requirement
    set, ``key_extra`` (default: the running interpreter's cache tag and
    platform, since installed wheels are interpreter-specific) and
    ``pip_args``, so later runs reuse it. ``network_args`` (``--isolated``,
    ``--timeout``, ``--retries``) go to the child too, but change nothing it
    installs: they are not in the key. Installs go to a temporary sibling that
    is renamed into place; when a concurrent installer wins the rename, its
    directory is used.
    ``pip_command`` defaults to ``[sys.executable, "-m", "pip"]``.
    Raises :class:`ProviderError` when the install fails, :class:`ValueError`
    for an invalid requirement.
    """
    final, normalized, extra = _isolated_dir_path(requirements, cache_root, key_extra, pip_args)
    if os.path.isdir(final):
        return final
    os.makedirs(cache_root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(final)}-", dir=cache_root)
    try:
        install_isolated(
            normalized,
            pip_command=[sys.executable, "-m", "pip"] if pip_command is None else pip_command,
            target_dir=tmp,
            pip_args=[*network_args, *pip_args],
            timeout=timeout,
            env=env,
        )
        # A record of what is inside, for people looking at the cache.
        with open(os.path.join(tmp, "pip-variants-plugins.json"), "w", encoding="utf-8") as fh:
            json.dump({"requirements": normalized, "key_extra": extra}, fh, indent=1)
        try:
            os.rename(tmp, final)
        except OSError:
            if not os.path.isdir(final):
                raise
            # Lost the race to a concurrent install of the same set: use the winner.
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final
