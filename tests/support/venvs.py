"""Real virtual environments and real pip runs for end-to-end tests.

Two kinds of pip call, with two environments:

* against the **real registry** (installing pip, pip-variants' dependencies,
  building the pip-variants wheel): the machine's own pip configuration is kept
  (it carries certificates, mirrors, ...); only pip-variants' own knobs are
  dropped and ``PIP_NO_VARIANTS=1`` keeps a pip-variants-enabled outer pip stock;
* against a :class:`support.index.LocalIndex` (every test): a scrubbed
  environment (:func:`scrubbed_env`): ``PIP_CONFIG_FILE=/dev/null`` (pip then
  loads no configuration file at all), every other ``PIP_*``/``UV_*`` variable
  and every provider override removed unless the test sets it, caches in a
  temporary directory.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

__all__ = [
    "REPO_ROOT",
    "Venv",
    "RegistryUnavailable",
    "HarnessError",
    "registry_env",
    "scrubbed_env",
    "build_project_wheel",
    "create_venv",
    "clone_venv",
    "run_pip",
    "run_python",
    "pick",
    "report_item",
    "chosen_filename",
]

REPO_ROOT = Path(__file__).resolve().parents[2]

# Variables a test must set explicitly to have them: anything that changes what
# pip, pip-variants, uv or a provider decides.
_SCRUB_PREFIXES = (
    "PIP_",
    "UV_",
    "NV_VARIANT_PROVIDER_",
    "TPU_VARIANT_PROVIDER_",
    "AMD_VARIANT_PROVIDER_",
    "INTEL_VARIANT_PROVIDER_",
    "ASCEND_VARIANT_PROVIDER_",
    "HSA_OVERRIDE_GFX_VERSION_",
)
_SCRUB_NAMES = (
    "VARIANT_ABI_DEPENDENCY",
    "AMD_PREFERRED_GFX_ARCHS",
    "HSA_OVERRIDE_GFX_VERSION",
    "ROCM_PATH",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PYTHONUSERBASE",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "http_proxy",
    "https_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "all_proxy",
)

# Test knobs a whole run may set (not user settings): PIP_VARIANTS_TESTED_PIP_MAX
# caps the tested pip range, so `PIP_VARIANTS_TESTED_PIP_MAX=26.0
# PIP_VARIANTS_TEST_PIP=26.3 pytest -m e2e` runs the suite as on an untested pip.
_PASS_THROUGH = ("PIP_VARIANTS_TESTED_PIP_MAX",)

# Output that means "the registry could not be reached", as opposed to a real
# failure (which must never turn into a skip).
_NETWORK_ERRORS = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Temporary failure in name "
    r"resolution|Name or service not known|Network is unreachable|Connection refused|"
    r"ConnectTimeoutError|Max retries exceeded|ProxyError|Connection aborted|"
    r"No route to host|Could not fetch URL|ReadTimeoutError",
)

PathLike = Union[str, "os.PathLike[str]"]


class HarnessError(RuntimeError):
    """The harness could not build what a test needs (not a product failure)."""


class RegistryUnavailable(HarnessError):
    """The package registry could not be reached while building a venv."""


@dataclass(frozen=True)
class Venv:
    path: Path
    python: Path
    bin: Path
    site_packages: Path
    pip_version: str
    has_pip_variants: bool

    def script(self, name: str) -> Path:
        return self.bin / name

    @property
    def pth_file(self) -> Path:
        return self.site_packages / "pip_variants.pth"


# -- environments -------------------------------------------------------------


def default_sigint() -> None:
    """``preexec_fn`` for a child a test interrupts: SIGINT back to its default.

    A runner started in the background by a non-interactive shell inherits
    SIGINT ignored, Python then keeps it ignored, and so would the child."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt(proc: "subprocess.Popen[str]", *, within: float = 5) -> str:
    """Ctrl-C a running pip: it must answer with its own one-line message, no
    traceback, a failing exit status, within ``within`` seconds. Its stderr."""
    import signal
    import time

    proc.send_signal(signal.SIGINT)
    started = time.monotonic()
    try:
        _, stderr = proc.communicate(timeout=15)
    finally:
        proc.kill()
    assert time.monotonic() - started < within
    assert proc.returncode != 0
    assert "Traceback" not in stderr, stderr
    assert "cancelled" in stderr.lower() or "interrupt" in stderr.lower(), stderr
    return stderr


def registry_env(extra: Optional[Mapping[str, Optional[str]]] = None) -> Dict[str, str]:
    """Environment for pip calls that go to the real registry."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PIP_VARIANT", "PIP_NO_VARIANTS", "PIP_ALLOW_VARIANT"))
        and k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")
    }
    env["PIP_NO_VARIANTS"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.setdefault("PIP_NO_INPUT", "1")
    _apply(env, extra)
    return env


def scrubbed_env(
    extra: Optional[Mapping[str, Optional[str]]] = None, *, tmp: Optional[PathLike] = None
) -> Dict[str, str]:
    """Environment for pip calls against a local index.

    ``tmp`` holds the pip cache, the pip-variants cache and an empty XDG config
    directory (a fresh temporary directory when omitted). ``extra`` is applied
    last; a ``None`` value removes that variable.
    """
    base = Path(tmp) if tmp is not None else Path(tempfile.mkdtemp(prefix="pv-env-"))
    env = {
        k: v
        for k, v in os.environ.items()
        if (not k.startswith(_SCRUB_PREFIXES) and k not in _SCRUB_NAMES) or k in _PASS_THROUGH
    }
    (base / "xdg-config").mkdir(parents=True, exist_ok=True)
    env.update(
        PIP_CONFIG_FILE=os.devnull,
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        PIP_NO_PYTHON_VERSION_WARNING="1",
        PIP_ROOT_USER_ACTION="ignore",
        PIP_CACHE_DIR=str(base / "pip-cache"),
        PIP_VARIANTS_CACHE_DIR=str(base / "variants-cache"),
        UV_CACHE_DIR=str(base / "uv-cache"),
        UV_NO_CONFIG="1",
        XDG_CONFIG_DIRS=str(base / "xdg-config"),
        XDG_CONFIG_HOME=str(base / "xdg-config"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    _apply(env, extra)
    return env


def _apply(env: Dict[str, str], extra: Optional[Mapping[str, Optional[str]]]) -> None:
    for key, value in (extra or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = str(value)


# -- subprocesses ---------------------------------------------------------------


def _run(
    cmd: Sequence[PathLike],
    *,
    env: Mapping[str, str],
    timeout: float,
    cwd: Optional[PathLike] = None,
) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            [str(c) for c in cmd],
            env=dict(env),
            cwd=None if cwd is None else str(cwd),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        out = (
            exc.stdout.decode(errors="replace")
            if isinstance(exc.stdout, bytes)
            else (exc.stdout or "")
        )
        err = (
            exc.stderr.decode(errors="replace")
            if isinstance(exc.stderr, bytes)
            else (exc.stderr or "")
        )
        raise AssertionError(
            f"timed out after {timeout}s: {_fmt(cmd)}\n--- stdout ---\n{out[-4000:]}\n"
            f"--- stderr ---\n{err[-4000:]}"
        ) from None


def _fmt(cmd: Sequence[PathLike]) -> str:
    return " ".join(str(c) for c in cmd)


def _describe(proc: subprocess.CompletedProcess) -> str:
    return (
        f"command: {_fmt(proc.args)}\nexit code: {proc.returncode}\n"
        f"--- stdout ---\n{proc.stdout[-6000:]}\n--- stderr ---\n{proc.stderr[-6000:]}"
    )


def _registry_call(
    cmd: Sequence[PathLike], *, what: str, timeout: float = 600, cwd: Optional[PathLike] = None
) -> subprocess.CompletedProcess:
    proc = _run(cmd, env=registry_env(), timeout=timeout, cwd=cwd)
    if proc.returncode != 0:
        text = proc.stdout + proc.stderr
        cls = RegistryUnavailable if _NETWORK_ERRORS.search(text) else HarnessError
        raise cls(f"{what} failed\n{_describe(proc)}")
    return proc


def run_pip(
    venv: Venv,
    *args: PathLike,
    env: Optional[Mapping[str, Optional[str]]] = None,
    check: bool = True,
    timeout: float = 300,
    cwd: Optional[PathLike] = None,
    launcher: Sequence[PathLike] = (),
) -> subprocess.CompletedProcess:
    """Run ``venv``'s pip (``python -m pip`` unless ``launcher`` replaces
    ``[python, -m, pip]``) in a :func:`scrubbed_env` updated with ``env``.

    Caches live in a temporary directory removed afterwards, unless ``env``
    names ``PIP_CACHE_DIR`` / ``PIP_VARIANTS_CACHE_DIR`` itself.
    ``check``: raise ``AssertionError`` (with both outputs) on a non-zero exit.
    """
    cmd = list(launcher) if launcher else [venv.python, "-m", "pip"]
    cmd += list(args)
    with tempfile.TemporaryDirectory(prefix="pv-pip-") as tmp:
        proc = _run(cmd, env=scrubbed_env(env, tmp=tmp), timeout=timeout, cwd=cwd)
    if check and proc.returncode != 0:
        raise AssertionError(f"pip failed\n{_describe(proc)}")
    return proc


def run_python(
    venv: Venv,
    *args: PathLike,
    env: Optional[Mapping[str, Optional[str]]] = None,
    timeout: float = 120,
    isolated_env: bool = True,
) -> subprocess.CompletedProcess:
    """Run ``venv``'s interpreter (scrubbed environment unless ``isolated_env`` is false)."""
    with tempfile.TemporaryDirectory(prefix="pv-py-") as tmp:
        e = scrubbed_env(env, tmp=tmp) if isolated_env else registry_env(env)
        return _run([venv.python, *args], env=e, timeout=timeout)


# -- choosing a wheel -------------------------------------------------------------

_NAME_RE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def report_item(report: Mapping, name: Optional[str]) -> Optional[Mapping]:
    """The ``install`` item of a ``--report`` for project ``name`` (the only
    item when ``name`` is ``None``)."""
    items = list(report.get("install", []))
    if name is None:
        return items[0] if len(items) == 1 else None
    for item in items:
        if _canonical(item.get("metadata", {}).get("name", "")) == _canonical(name):
            return item
    return None


def chosen_filename(item: Optional[Mapping]) -> Optional[str]:
    if not item:
        return None
    from urllib.parse import unquote

    url = item.get("download_info", {}).get("url", "")
    return unquote(url.rsplit("/", 1)[-1]) or None


def index_args(index) -> List[str]:
    """pip arguments that point at ``index``: a :class:`LocalIndex` or its URL,
    a find-links directory (``--no-index --find-links``), or ``None`` (no index
    at all, for local files)."""
    if index is None:
        return ["--no-index"]
    url = getattr(index, "url", None)
    if isinstance(url, str):
        return ["--index-url", url]
    if isinstance(index, str) and index.startswith(("http://", "https://")):
        return ["--index-url", index]
    return ["--no-index", "--find-links", str(index)]


def pick(
    venv: Venv,
    index,
    requirement: PathLike,
    *args: PathLike,
    check: bool = True,
    timeout: float = 300,
    launcher: Sequence[PathLike] = (),
    **env: Optional[str],
) -> Tuple[Optional[str], dict, str]:
    """What ``pip install requirement`` would install from ``index``.

    Runs ``pip install --dry-run --report FILE`` (plus ``args``) with ``env``
    (``None`` values remove a variable) and returns ``(file name chosen for the
    requirement's project, the whole report, stderr)``. With ``check=False`` a
    failing pip gives ``(None, {}, stderr)``.
    """
    req = str(requirement)
    looks_local = req.endswith(".whl") or os.sep in req
    match = None if looks_local else _NAME_RE.match(req)
    name = match.group(1) if match else None
    with tempfile.TemporaryDirectory(prefix="pv-report-") as tmp:
        report_path = Path(tmp) / "report.json"
        proc = run_pip(
            venv,
            "install",
            "--dry-run",
            "--report",
            report_path,
            *index_args(index),
            *args,
            req,
            env=env,
            check=check,
            timeout=timeout,
            launcher=launcher,
        )
        if proc.returncode != 0:
            return None, {}, proc.stderr
        report = json.loads(report_path.read_text(encoding="utf-8"))
    item = report_item(report, name)
    filename = chosen_filename(item)
    if filename is None and check:
        raise AssertionError(
            f"no install item for {req!r} in the report\n{json.dumps(report)[:3000]}\n"
            f"{_describe(proc)}"
        )
    return filename, report, proc.stderr


# -- building venvs ---------------------------------------------------------------


def build_project_wheel(
    out_dir: PathLike,
    *,
    source: PathLike = REPO_ROOT,
    python: PathLike = sys.executable,
    timeout: float = 600,
) -> Path:
    """Build pip-variants' wheel from ``source`` once (build isolation fetches
    hatchling from the registry). ``PIP_VARIANTS_TEST_WHEEL``, else tox's
    ``TOX_PACKAGE``, may name an already built wheel to use instead."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    candidates = os.environ.get("PIP_VARIANTS_TEST_WHEEL") or os.environ.get("TOX_PACKAGE", "")
    prebuilt = [
        p
        for p in candidates.split(os.pathsep)
        if Path(p).name.startswith("pip_variants-") and p.endswith(".whl") and Path(p).is_file()
    ]
    if prebuilt:
        wheel = Path(shutil.copy2(prebuilt[0], out))
        _check_project_wheel(wheel)
        return wheel
    _registry_call(
        [python, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", out, source],
        what="building the pip-variants wheel",
        timeout=timeout,
    )
    wheels = sorted(out.glob("pip_variants-*.whl"))
    if len(wheels) != 1:
        raise HarnessError(f"expected one pip_variants wheel in {out}, found {wheels}")
    _check_project_wheel(wheels[0])
    return wheels[0]


def _check_project_wheel(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    if "pip_variants.pth" not in names:
        raise HarnessError(f"{wheel.name} has no pip_variants.pth at its root")


def _venv_paths(path: Path) -> Tuple[Path, Path]:
    bindir = path / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    return bindir, python


def create_venv(
    dest: PathLike,
    *,
    pip_version: Optional[str] = None,
    wheel: Optional[PathLike] = None,
    python: PathLike = sys.executable,
    timeout: float = 600,
) -> Venv:
    """A stdlib venv of ``python`` with pip ``pip_version`` (newest when
    ``None``) and, when ``wheel`` is given, pip-variants and its runtime
    dependencies from the registry."""
    path = Path(dest)
    if path.exists():
        shutil.rmtree(path)
    _registry_call([python, "-m", "venv", path], what="creating a venv", timeout=timeout)
    bindir, vpython = _venv_paths(path)
    spec = f"pip=={pip_version}" if pip_version else "pip"
    _registry_call(
        [vpython, "-m", "pip", "install", "--upgrade", spec],
        what=f"installing {spec}",
        timeout=timeout,
    )
    if wheel is not None:
        # Dependencies resolve against the pinned pip (pip-variants needs pip>=23.2).
        _registry_call(
            [vpython, "-m", "pip", "install", spec, Path(wheel)],
            what="installing pip-variants and its dependencies",
            timeout=timeout,
        )
    probe = _registry_call(
        [
            vpython,
            "-c",
            # the distribution's version: pip.__version__ stays 26.2.2 in 26.2.2.post1
            "import importlib.metadata, sysconfig; print(importlib.metadata.version('pip')); "
            "print(sysconfig.get_paths()['purelib'])",
        ],
        what="probing the venv",
        timeout=120,
    )
    lines = probe.stdout.strip().splitlines()
    venv = Venv(
        path=path,
        python=vpython,
        bin=bindir,
        site_packages=Path(lines[-1]),
        pip_version=lines[-2],
        has_pip_variants=wheel is not None,
    )
    if pip_version and venv.pip_version != pip_version:
        raise HarnessError(f"asked for pip {pip_version}, got {venv.pip_version}")
    if wheel is not None and not venv.pth_file.is_file():
        raise HarnessError(f"{venv.pth_file} missing after installing {wheel}")
    return venv


def install_from_registry(venv: Venv, *requirements: str, timeout: float = 600) -> None:
    """Install tools a test drives (pip-tools, ...) into ``venv`` from the
    registry, keeping its pip at the version under test."""
    _registry_call(
        [venv.python, "-m", "pip", "install", f"pip=={venv.pip_version}", *requirements],
        what=f"installing {' '.join(requirements)}",
        timeout=timeout,
    )


def clone_venv(src: Venv, dest: PathLike) -> Venv:
    """Copy ``src`` (fast: no registry access); console-script shebangs are
    rewritten to the copy's interpreter. For tests that change site-packages."""
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src.path, dest, symlinks=True)
    old, new = str(src.path).encode(), str(dest).encode()
    bindir, python = _venv_paths(dest)
    for script in bindir.iterdir():
        if script.is_symlink() or not script.is_file():
            continue
        data = script.read_bytes()
        if data.startswith(b"#!") and old in data[:1024]:
            script.write_bytes(data[:1024].replace(old, new) + data[1024:])
    rel = src.site_packages.relative_to(src.path)
    return replace(src, path=dest, python=python, bin=bindir, site_packages=dest / rel)


def find_files(root: PathLike, patterns: Iterable[str]) -> List[Path]:
    root = Path(root)
    return sorted(p for pattern in patterns for p in root.glob(pattern))
