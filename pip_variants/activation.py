"""Find, write or remove the start-up shim that makes pip variant-aware.

``pip install pip-variants`` puts ``pip_variants.pth``, ``pip_variants.start``
(PEP 829) and the tiny module they name, ``_pip_variants_shim.py``, at the
root of the wheel, hence into whichever site directory pip installs into: an
environment's site-packages, the user site (``pip install --user``), a conda
prefix, or the base installation a ``--system-site-packages`` venv inherits.

The wheel also ships copies of these files inside the package
(``pip_variants/_shim/``; ``sitecustomize_shim/`` in a source checkout), so
``pip-variants activate`` can always restore what ``deactivate`` removed, with
the contents of the installed release.

Where the shim can run is where ``site.py`` processes ``.pth`` files: the user
site (when enabled) and ``site.getsitepackages()``, which for a
``--system-site-packages`` venv includes the base installation's.
"""

from __future__ import annotations

import errno
import os
import site
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ._atomic import replacing

__all__ = [
    "PTH_NAME",
    "START_NAME",
    "SHIM_MODULE_NAME",
    "ActivationError",
    "Shim",
    "SiteDir",
    "shipped_shim_dir",
    "shipped_files",
    "site_packages",
    "site_dirs",
    "find_shims",
    "active_shim",
    "activate",
    "deactivate",
    "is_active",
]

PTH_NAME = "pip_variants.pth"
START_NAME = "pip_variants.start"
SHIM_MODULE_NAME = "_pip_variants_shim.py"
_HOOK_SUFFIXES = (".pth", ".start")
#: The folder inside the package that holds the shipped copies (see pyproject.toml).
_SHIPPED_DIR = "_shim"

#: What each kind of site directory is, for messages.
KIND_TEXT = {
    "environment": "this environment's site-packages",
    "user": "the user site (pip install --user)",
    "base": "the base installation this venv inherits (--system-site-packages)",
    "prefix": "the site-packages of the given prefix",
}


class ActivationError(OSError):
    """The shim files cannot be written or removed; the message says what to do.

    ``done`` lists the files that were written or removed before the failure.
    """

    def __init__(self, code: int, message: str, done: Sequence[Path] = ()) -> None:
        super().__init__(code, message)
        self.done: List[Path] = list(done)

    def __str__(self) -> str:
        return str(self.strerror)


# ---------------------------------------------------------------- shipped copies


def shipped_shim_dir() -> Path:
    """The folder with the shim files of this pip-variants release: inside the
    installed package, or ``sitecustomize_shim/`` of a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / _SHIPPED_DIR, here.parent / "sitecustomize_shim"):
        if (candidate / SHIM_MODULE_NAME).is_file():
            return candidate
    raise ActivationError(
        errno.ENOENT,
        f"the shim files are missing from {here / _SHIPPED_DIR}: this pip-variants installation is "
        "incomplete; reinstall it ('pip install --force-reinstall --no-deps pip-variants')",
    )


def shipped_files() -> Dict[str, bytes]:
    """Name -> contents of every shim file shipped with this release."""
    folder = shipped_shim_dir()
    out: Dict[str, bytes] = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and not path.name.startswith(".") and path.suffix in (".py",) + _HOOK_SUFFIXES:
            out[path.name] = path.read_bytes()
    return out


def _shim_names() -> Tuple[str, ...]:
    # The names deactivate removes: the known ones, plus any file a newer
    # release ships (read from the copies, so the two never disagree).
    names = [PTH_NAME, START_NAME, SHIM_MODULE_NAME]
    try:
        names += [n for n in shipped_files() if n not in names]
    except ActivationError:
        pass
    return tuple(names)


# ------------------------------------------------------------------- site dirs


@dataclass(frozen=True)
class SiteDir:
    path: Path
    kind: str  # see KIND_TEXT


@dataclass(frozen=True)
class Shim:
    """The shim files found in one site directory."""

    site: Path
    kind: str
    hooks: Tuple[Path, ...] = ()  # .pth / .start files: what runs at start-up
    modules: Tuple[Path, ...] = ()  # the module they import
    writable: bool = True

    @property
    def inherited(self) -> bool:
        return self.kind == "base"

    @property
    def files(self) -> Tuple[Path, ...]:
        return self.modules + self.hooks

    def describe(self) -> str:
        return f"{self.site} ({KIND_TEXT.get(self.kind, self.kind)})"


def site_packages(prefix: Optional[str] = None) -> Path:
    """The purelib site-packages of the environment at ``prefix`` (default: this one).

    A conda prefix made with another Python minor version has its
    site-packages under another ``pythonX.Y``: that of the prefix's own
    ``bin/python3`` wins (a Python upgrade can leave the old folder behind),
    else the only one that exists.
    """
    base = os.path.abspath(prefix if prefix is not None else sys.prefix)
    path = Path(sysconfig.get_paths(vars={"base": base, "platbase": base})["purelib"])
    if prefix is not None:
        version = _prefix_python_version(base)
        own = Path(base, "lib", f"python{version}", "site-packages") if version else None
        if own is not None and own.is_dir():
            return own
        if not path.is_dir():
            found = sorted(Path(base).glob("lib/python3*/site-packages"))
            if len(found) == 1:
                return found[0]
    return path


def _prefix_python_version(base: str) -> Optional[str]:
    """``"3.12"`` for a prefix whose ``bin/python3`` is (a link to) ``python3.12``."""
    import re

    for name in ("python3", "python"):
        python = os.path.join(base, "bin", name)
        if os.path.exists(python):
            m = re.fullmatch(r"python(3\.\d+)", os.path.basename(os.path.realpath(python)))
            if m:
                return m.group(1)
    return None


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _under(path: Path, root: str) -> bool:
    try:
        Path(os.path.realpath(path)).relative_to(os.path.realpath(root))
        return True
    except ValueError:
        return False


def site_dirs(prefix: Optional[str] = None, also: Sequence[SiteDir] = ()) -> List[SiteDir]:
    """The site directories whose ``.pth`` files run at start-up, in the order
    ``site.py`` processes them (user site first). With ``prefix``: that
    prefix's site-packages, and ``also`` (the other directories its own Python
    reads: user site, an inherited base), in the order that Python reads them."""
    if prefix is not None:
        own = SiteDir(site_packages(prefix), "prefix")
        others = [d for d in also if not _same(d.path, own.path)]
        return [d for d in others if d.kind == "user"] + [own] + [d for d in others if d.kind != "user"]
    dirs: List[SiteDir] = []
    if sys.flags.no_site:
        return dirs
    if site.ENABLE_USER_SITE:
        dirs.append(SiteDir(Path(site.getusersitepackages()), "user"))
    in_venv = sys.prefix != getattr(sys, "base_prefix", sys.prefix)
    for entry in site.getsitepackages():
        kind = "base" if in_venv and not _under(Path(entry), sys.prefix) else "environment"
        dirs.append(SiteDir(Path(entry), kind))
    out: List[SiteDir] = []
    for d in dirs:
        if not any(_same(d.path, o.path) for o in out):
            out.append(d)
    return out


def _writable(directory: Path) -> bool:
    if os.name != "nt":
        return os.access(directory, os.W_OK | os.X_OK)
    # Windows answers os.access from the read-only attribute alone, never from
    # the folder's permissions (Program Files): try it, as pip does.
    import tempfile

    try:
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".pip-variants-")
    except OSError:
        return False
    os.close(fd)
    try:
        os.unlink(probe)
    except OSError:
        pass
    return True


def find_shims(prefix: Optional[str] = None, also: Sequence[SiteDir] = ()) -> List[Shim]:
    """Every site directory that holds shim files, in processing order."""
    names = _shim_names()
    shims: List[Shim] = []
    for d in site_dirs(prefix, also):
        if not d.path.is_dir():
            continue
        present = [d.path / n for n in names if (d.path / n).is_file() or (d.path / n).is_symlink()]
        if not present:
            continue
        hooks = tuple(p for p in present if p.suffix in _HOOK_SUFFIXES)
        modules = tuple(p for p in present if p.suffix not in _HOOK_SUFFIXES)
        shims.append(Shim(d.path, d.kind, hooks, modules, _writable(d.path)))
    return shims


def _runs_alone(hook: Path) -> bool:
    """Is this start-up file the finder itself? The ``.pth`` line is, unless a
    matching ``.start`` takes its place (Python 3.15+, PEP 829), which imports
    the shim module."""
    if hook.suffix != ".pth":
        return False
    return sys.version_info < (3, 15) or not hook.with_suffix(".start").exists()


def active_shim(prefix: Optional[str] = None, also: Sequence[SiteDir] = ()) -> Optional[Shim]:
    """The shim that makes pip variant-aware here: the first site directory
    whose start-up file runs, on its own or with the module it imports (from
    any of the site directories). ``None`` when pip is stock."""
    shims = find_shims(prefix, also)
    have_module = any(s.modules for s in shims)
    for shim in shims:
        if shim.hooks and (have_module or any(_runs_alone(h) for h in shim.hooks)):
            return shim
    return None


def is_active(prefix: Optional[str] = None) -> bool:
    """Does a start-up shim make pip variant-aware here (or in ``prefix``)?"""
    return active_shim(prefix) is not None


# ----------------------------------------------------------- activate/deactivate


def _read_only(path: Path, action: str, exc: OSError, kind: str, done: Sequence[Path],
               more: int = 0, still: bool = False) -> ActivationError:
    where = KIND_TEXT.get(kind, kind)
    advice = "run the command as the user who owns it"
    if kind == "base":
        advice += (
            f" (the base installation {sys.base_prefix}; every venv made from it with "
            "--system-site-packages shares it)"
        )
    reason = exc.strerror or str(exc)
    if exc.errno == errno.EROFS:
        # Its owner cannot write there either: the mount (or the image) decides.
        advice = "mount it read-write (or change it where the image is built)"
        if "read-only" not in reason.lower():
            reason += " (read-only file system)"
    if action == "remove":
        advice += (
            ", or leave it and turn variants off where you need: PIP_NO_VARIANTS=1 in the "
            "environment, 'no-variants = true' in pip.conf, or 'pip install --no-variants'"
        )
    else:
        advice += ", or use a virtual environment you can write to"
    others = f" (and {more} more file(s) there)" if more else ""
    effect = " pip stays variant-aware here." if still else ""
    return ActivationError(
        exc.errno or errno.EACCES,
        f"cannot {action} {path}{others}, in {where}: {reason}.{effect} To fix: {advice}.",
        done,
    )


def _is_denied(exc: OSError) -> bool:
    return isinstance(exc, PermissionError) or exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)


def _write_file(path: Path, data: bytes) -> None:
    # A temporary name of its own and a rename: a Python starting meanwhile sees
    # the old file or the new one, never half of it, and two activations at once
    # do not share (and lose) one temporary file. The path itself is replaced, a
    # link included (never its target: it may be read-only, or shared). open()
    # honours the umask.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    with replacing(tmp, path), open(tmp, "xb") as f:
        f.write(data)


def _activation_target(prefix: Optional[str]) -> SiteDir:
    if prefix is not None:
        return SiteDir(site_packages(prefix), "prefix")
    dirs = site_dirs()
    own = SiteDir(site_packages(), "environment")
    # An existing shim (even half of one) is repaired where it is.
    shims = find_shims()
    if shims:
        return SiteDir(shims[0].site, shims[0].kind)
    # Where pip installed pip-variants is where 'pip uninstall' will remove it from.
    package_home = Path(__file__).resolve().parent.parent
    for d in dirs:
        if _same(d.path, package_home):
            if _writable(d.path) or not own.path.is_dir():
                return d
            break
    return own


def _installs_pip_variants(directory: Path) -> bool:
    """Did pip install pip-variants into this site directory (and so its shim)?"""
    return (directory / "pip_variants").is_dir() and any(directory.glob("pip_variants-*.dist-info"))


def activate(prefix: Optional[str] = None) -> List[Path]:
    """Write the shim files from this release's shipped copies; returns the paths
    written (a file already identical is left alone and not listed).

    Without ``prefix``: where a shim already is (repaired), else the site
    directory pip-variants is installed in (environment, user site or an
    inherited base), else this environment's site-packages. Also every other
    site directory here that pip installed pip-variants into and that has lost
    its shim (to ``deactivate``, which removes them all), where it can be written.
    """
    target = _activation_target(prefix)
    site_dir = target.path
    if not site_dir.is_dir():
        raise ActivationError(
            errno.ENOENT,
            f"no site-packages directory at {site_dir}: is {prefix or sys.prefix} a Python "
            "environment (a venv or conda prefix)?",
        )
    files = shipped_files()
    written: List[Path] = []
    _write_shim(target, files, written)
    if prefix is None:
        shimmed = [shim.site for shim in find_shims()]
        for other in site_dirs():
            if (not any(_same(other.path, site) for site in shimmed) and _installs_pip_variants(other.path)
                    and _writable(other.path)):
                _write_shim(other, files, written)
    return written


def _write_shim(target: SiteDir, files: Mapping[str, bytes], written: List[Path]) -> None:
    """Write ``files`` into ``target``, adding each path written to ``written``
    (what an error reports as done)."""
    # Modules first, the start-up files last: a .pth naming a module not yet
    # there would be a broken start-up hook for a moment.
    order = sorted(files, key=lambda n: (n.endswith(_HOOK_SUFFIXES), n))
    for name in order:
        path = target.path / name
        try:
            if path.is_file() and not path.is_symlink() and path.read_bytes() == files[name]:
                continue
            _write_file(path, files[name])
        except OSError as exc:
            if _is_denied(exc):
                raise _read_only(path, "write", exc, target.kind, written) from None
            raise
        written.append(path)


def deactivate(prefix: Optional[str] = None) -> List[Path]:
    """Remove every shim that makes pip variant-aware here (or in ``prefix``);
    returns the removed paths. A file that cannot be removed raises
    :class:`ActivationError` naming it and why (after removing the others)."""
    removed: List[Path] = []
    failures: List[Tuple[Path, OSError, str]] = []
    for shim in find_shims(prefix):
        # Start-up files first: without them the module never runs.
        for path in shim.hooks + shim.modules:
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            except OSError as exc:
                if not _is_denied(exc):
                    raise
                failures.append((path, exc, shim.kind))
                continue
            removed.append(path)
    if failures:
        path, error, kind = failures[0]
        raise _read_only(path, "remove", error, kind, removed, more=len(failures) - 1,
                         still=is_active(prefix))
    return removed


@dataclass
class ShimReport:
    """What ``status`` says about the shim (see :func:`shim_report`)."""

    active: bool
    site: Optional[str] = None
    kind: Optional[str] = None
    inherited: bool = False
    files: List[str] = field(default_factory=list)
    others: List[str] = field(default_factory=list)  # shim files elsewhere that do not run first
    problem: Optional[str] = None
    writable: bool = True  # can this user remove the active shim?


def shim_report(prefix: Optional[str] = None, also: Sequence[SiteDir] = ()) -> ShimReport:
    """Where the active shim lives, whether it is inherited, and half-removed
    states (``also``: see :func:`site_dirs`)."""
    shims = find_shims(prefix, also)
    active = active_shim(prefix, also)
    others = [str(p) for s in shims if active is None or s.site != active.site for p in s.files]
    if active is not None:
        return ShimReport(True, str(active.site), active.kind, active.inherited,
                          [str(p) for p in active.files], others, writable=active.writable)
    problem = None
    if any(s.hooks for s in shims):
        hook = next(p for s in shims for p in s.hooks)
        problem = f"{hook} is there but {SHIM_MODULE_NAME} is missing: run 'pip-variants activate'"
    return ShimReport(False, others=others, problem=problem)
