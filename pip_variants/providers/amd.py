"""Built-in ``amd`` provider: a reimplementation of amd-variant-provider 0.0.2.

Two features, in the plugin's order (PROVIDERS-AMD-INTEL.md §1.2):

* ``gfx_arch`` (multi-value): the GPU architectures present, unique and
  sorted as plain strings (``gfx1100`` before ``gfx90a``), like the plugin.
* ``rocm_version``: ``major.minor`` of the installed ROCm, read from
  ``$ROCM_PATH/.info/version`` (default ``/opt/rocm``) exactly as the plugin.

The plugin runs ``rocminfo`` and ``rocm_agent_enumerator``; we read the
kernel's KFD topology in sysfs first (no subprocess, no ROCm userspace needed,
~0.1 ms) and only run those tools when sysfs shows no GPU node. Both name the
same targets: ``rocm_agent_enumerator`` itself decodes ``gfx_target_version``
the same way, and ROCm applies ``HSA_OVERRIDE_GFX_VERSION`` to every GPU
(``HSA_OVERRIDE_GFX_VERSION_<node>`` to the GPU with that ROCm node number), so
we do too. Like ROCm (and so like the tools), we count only the GPUs this
process can reach: ``/dev/kfd`` and each GPU's render node present
(a container gets the host's ``/sys`` but only the devices passed to it), then
``ROCR_VISIBLE_DEVICES``.

Overrides: ``AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH`` (list split on commas,
semicolons or whitespace, order kept; set to blanks or separators only: no
GPU architecture, as the plugin) and
``AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION`` (``X.Y`` or ``X.Y.Z``, ``Z`` any text; the
plugin asserts three parts and crashes on ``6.4``). A malformed value is a
:class:`ProviderError`: one warning, the namespace unsupported, never a crash.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from pip_variants.providers.base import FeatureConfig, ProviderError

__all__ = [
    "AmdProvider",
    "ALL_GFX_ARCHS",
    "ALL_ROCM_VERSIONS",
    "FORCE_GFX_ENV",
    "FORCE_ROCM_ENV",
    "PREFERRED_GFX_ENV",
    "HSA_OVERRIDE_ENV",
    "VISIBLE_DEVICES_ENV",
    "SYSFS_ROOT_ENV",
    "gfx_name",
    "parse_hsa_override",
    "node_overrides",
    "kfd_gfx_archs",
    "tool_gfx_archs",
    "read_rocm_version",
    "parse_forced_rocm_version",
    "parse_forced_gfx_archs",
]

logger = logging.getLogger(__name__)

NAMESPACE = "amd"
GFX_FEATURE = "gfx_arch"
ROCM_FEATURE = "rocm_version"

FORCE_GFX_ENV = "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH"
FORCE_ROCM_ENV = "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION"
PREFERRED_GFX_ENV = "AMD_PREFERRED_GFX_ARCHS"
HSA_OVERRIDE_ENV = "HSA_OVERRIDE_GFX_VERSION"
VISIBLE_DEVICES_ENV = "ROCR_VISIBLE_DEVICES"
ROCM_PATH_ENV = "ROCM_PATH"
DEFAULT_ROCM_PATH = "/opt/rocm"
#: Test-only (private): a directory standing in for ``/sys``, so end-to-end
#: tests can fake a GPU inside a pip subprocess. Not a user setting.
SYSFS_ROOT_ENV = "PIP_VARIANTS_TEST_SYSFS_ROOT"
DEFAULT_SYSFS_ROOT = "/sys"
DEFAULT_DEV_ROOT = "/dev"
KFD_NODES = os.path.join("class", "kfd", "kfd", "topology", "nodes")

#: The plugin's ``get_all_configs`` lists (its order).
ALL_GFX_ARCHS: Tuple[str, ...] = (
    "gfx900",
    "gfx906",
    "gfx908",
    "gfx90a",
    "gfx942",
    "gfx1030",
    "gfx1100",
    "gfx1101",
    "gfx1102",
    "gfx1200",
    "gfx1201",
)
ALL_ROCM_VERSIONS: Tuple[str, ...] = (
    "7.10",
    "7.9",
    "7.8",
    "7.7",
    "7.6",
    "7.5",
    "7.4",
    "7.3",
    "7.2",
    "7.1",
    "7.0",
    "6.4",
    "6.3",
)

# The plugin's token: gfx, decimal digits, then any lower-case hex run, word-bounded.
# (Patterns are strings: re caches them, and only the tool and override paths need them.)
_GFX_TOKEN = r"\bgfx\d+[0-9a-f]*\b"
_LIST_SPLIT = r"[,;\s]+"
_VALUE = r"[a-z0-9_.]+"
_ROCMINFO_TIMEOUT = 7.0  # the plugin's timeouts
_ENUMERATOR_TIMEOUT = 5.0


# -- gfx names ----------------------------------------------------------------------


def gfx_name(target_version: int) -> Optional[str]:
    """KFD ``gfx_target_version`` → ``gfxNNN`` (None for 0, a CPU node).

    ``major = v // 10000 % 100``, ``minor = v // 100 % 100``,
    ``stepping = v % 100``; the name is major in decimal, minor and stepping
    in hex (90010 → gfx90a), as ``rocm_agent_enumerator`` prints it.
    """
    if target_version <= 0:
        return None
    return _gfx(target_version // 10000 % 100, target_version // 100 % 100, target_version % 100)


def _gfx(major: int, minor: int, stepping: int) -> str:
    """The name ROCm gives a GFX version: major in decimal, minor and stepping in hex."""
    return f"gfx{major}{minor:x}{stepping:x}"


def parse_hsa_override(text: str) -> Optional[str]:
    """``HSA_OVERRIDE_GFX_VERSION=X.Y.Z`` → the gfx name ROCm then reports (``11.0.0`` → ``gfx1100``).

    ROCm's thunk reads the value with ``sscanf("%u.%u.%u%c")`` and takes a major
    up to 63, minor and stepping up to 255: three decimal numbers (blanks
    allowed before each), nothing after the last one. The name is formatted as
    ROCm formats it (major in decimal, minor and stepping in hex). ``None`` for
    anything else, which ROCm refuses (and then finds no GPU at all).
    """
    match = re.fullmatch(r"\s*\+?(\d+)\.\s*\+?(\d+)\.\s*\+?(\d+)", text)
    if match is None:
        return None
    major, minor, stepping = (int(g) for g in match.groups())
    if major > 63 or minor > 255 or stepping > 255:
        return None
    return _gfx(major, minor, stepping)


def node_overrides(environ: Mapping[str, str]) -> Dict[str, str]:
    """``HSA_OVERRIDE_GFX_VERSION_<node>`` values by node number (ROCm reads the
    variable of each GPU's node before the global one). The number is ROCm's:
    the node's place among the nodes this process can reach, CPUs included,
    which is the KFD node number unless a container hides some GPUs."""
    prefix = HSA_OVERRIDE_ENV + "_"
    return {name[len(prefix):]: value for name, value in environ.items() if name.startswith(prefix)}


def _checked_override(name: str, value: str) -> str:
    gfx = parse_hsa_override(value)
    if gfx is None:
        raise ProviderError(
            NAMESPACE,
            f"{name}={value!r} is not a gfx version ROCm accepts (X.Y.Z, e.g. 11.0.0): with it ROCm "
            "finds no GPU at all; correct or unset it",
        )
    return gfx


def _node_key(name: str) -> Tuple[int, str]:
    return (int(name), name) if name.isdigit() else (1 << 30, name)


def _properties(path: str) -> Dict[str, str]:
    out: Dict[str, str] = {}
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for line in f:
                key, _, value = line.strip().partition(" ")
                if key:
                    out[key] = value.strip()
    except OSError:
        pass
    return out


def _nodes_dir(sysfs_root: str) -> str:
    return os.path.join(sysfs_root, KFD_NODES)


def kfd_gfx_archs(
    sysfs_root: str = DEFAULT_SYSFS_ROOT, hsa_override: Optional[str] = None,
    visible: Optional[str] = None, dev_root: Optional[str] = None,
    per_node: Optional[Mapping[str, str]] = None,
) -> List[str]:
    """The gfx name of each GPU node in the KFD topology, in node order (duplicates kept).

    Nodes without SIMDs (CPUs) are skipped, as ROCm's runtime does; a GPU
    node whose version has no gfx name (or is 0) is left out of the result but
    keeps its number for ``visible``. ``hsa_override`` (``X.Y.Z``) replaces every GPU's
    version, as ROCm honours ``HSA_OVERRIDE_GFX_VERSION``, and ``per_node``
    (:func:`node_overrides`) the version of the GPU with that node number, before
    the global value, as ROCm honours ``HSA_OVERRIDE_GFX_VERSION_<node>``. A value
    ROCm refuses is a :class:`ProviderError`: ROCm then sees no GPU. ``visible``
    (``ROCR_VISIBLE_DEVICES``, ``None`` when unset) keeps the GPUs it names, see
    :func:`visible_gpus`.

    With ``dev_root`` (``/dev``), the devices decide as in ROCm's thunk: a
    container sees the host's whole ``/sys`` but only the devices passed to
    it, and a GPU whose ``renderD<drm_render_minor>`` is missing is skipped;
    without ``kfd`` (``docker build``), or with a device this user may not
    open (not in the ``render`` group), ROCm sees no GPU at all. A node
    without ``drm_render_minor`` (which makes the thunk fail) is kept: what
    the KFD says is the better guess there.
    """
    if dev_root is not None and not _usable(os.path.join(dev_root, "kfd")):
        return []
    nodes = _nodes_dir(sysfs_root)
    try:
        entries = sorted(os.listdir(nodes), key=_node_key)
    except OSError:
        return []
    per_node = per_node or {}
    gpus: List[Tuple[Optional[str], str]] = []
    reached = 0  # ROCm's node number: the nodes it keeps, CPUs included, in KFD order
    for entry in entries:
        props = _properties(os.path.join(nodes, entry, "properties"))
        try:
            version = int(props.get("gfx_target_version", "0"))
            simds = int(props.get("simd_count", "0"))
        except ValueError:
            continue
        if simds <= 0:  # a CPU; ROCm numbers every node with SIMDs as a GPU
            reached += 1
            continue
        minor = props.get("drm_render_minor", "")
        if dev_root is not None and minor.isdigit():
            render = os.path.join(dev_root, "dri", f"renderD{minor}")
            if not os.path.exists(render):
                continue  # not passed to this container: ROCm does not number it
            if not _usable(render):
                return []
        node, reached = str(reached), reached + 1
        name = gfx_name(version) if version > 0 else None
        # (an empty value is taken as unset, where ROCm would refuse it)
        if per_node.get(node):
            name = _checked_override(f"{HSA_OVERRIDE_ENV}_{node}", per_node[node])
        elif hsa_override:
            name = _checked_override(HSA_OVERRIDE_ENV, hsa_override)
        # An unknown version still counts for ROCR_VISIBLE_DEVICES' numbering.
        gpus.append((name, props.get("unique_id", "")))
    return [name for name, _ in visible_gpus(gpus, visible) if name is not None]


def _usable(device: str) -> bool:
    return os.path.exists(device) and os.access(device, os.R_OK | os.W_OK)


def visible_gpus(
    gpus: Sequence[Tuple[Optional[str], str]], visible: Optional[str]
) -> List[Tuple[Optional[str], str]]:
    """The ``(gfx name, KFD unique_id)`` pairs that ``ROCR_VISIBLE_DEVICES`` lets through.

    ``None`` (unset) keeps every GPU. Otherwise the rules of ROCm's runtime,
    which the tools the reference plugin runs apply: set but empty shows no
    GPU; comma-separated tokens (trimmed, any case) are GPU indices in KFD
    node order (C ``strtol`` base 0: ``1``, ``0x1``, ``01``) or ``GPU-`` UUIDs
    (a prefix of ``GPU-`` and the ``unique_id`` as 16 hex digits, matching one
    GPU only; a GPU whose ``unique_id`` is 0 never matches). The first token
    that is malformed, out of range, ambiguous or already seen ends the list,
    and at most as many tokens as there are GPUs are read; an empty one among
    them stops ROCm from starting, so no GPU is shown.
    """
    if visible is None:
        return list(gpus)
    if not visible:
        return []
    uuids = [
        f"GPU-{int(unique_id):016X}" if unique_id.isdigit() and int(unique_id) else None
        for _, unique_id in gpus
    ]
    chosen: List[int] = []
    for token in [token.strip().upper() for token in visible.split(",")][: len(gpus)]:
        if not token:
            return []  # ROCm's runtime fails to start on an empty entry
        if token.startswith("G"):
            matches = [at for at, uuid in enumerate(uuids) if uuid and uuid.startswith(token)]
            found: Optional[int] = matches[0] if len(matches) == 1 and 5 <= len(token) <= 20 else None
        else:
            found = _strtol(token)
        if found is None or not 0 <= found < len(gpus) or found in chosen:
            break
        chosen.append(found)
    return [gpus[at] for at in chosen]


def _strtol(token: str) -> Optional[int]:
    """C's ``strtol(token, &end, 0)`` when it reads the whole token, else ``None``."""
    match = re.fullmatch(r"([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)", token)
    if match is None:
        return None
    digits = match.group(2)
    if digits[:2] in ("0x", "0X"):
        value = int(digits, 16)
    elif digits.startswith("0"):
        value = int(digits, 8)
    else:
        value = int(digits)
    return -value if match.group(1) == "-" else value


# -- the plugin's tool path ------------------------------------------------------------


def _run_tool(argv: Sequence[str], timeout: float) -> Optional[str]:
    import subprocess

    try:
        proc = subprocess.run(
            list(argv),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        logger.debug("amd: %s failed: %s", argv[0], exc)
        return None
    return proc.stdout.decode("utf-8", "replace")


def _which(name: str, path: Optional[str]) -> Optional[str]:
    """``shutil.which`` for a POSIX tool, without importing shutil (the common
    case, no ROCm, is a few failed stats)."""
    if sys.platform == "win32":
        import shutil

        return shutil.which(name, path=path)
    search = os.environ.get("PATH", os.defpath) if path is None else path
    for folder in search.split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def tool_gfx_archs(path: Optional[str] = None) -> List[str]:
    """The plugin's detection: ``rocminfo`` (allow-listed), then ``rocm_agent_enumerator -name``.

    ``path`` is the ``PATH`` to search (default: the process's).
    """
    rocminfo = _which("rocminfo", path) if sys.platform.startswith("linux") else None
    if rocminfo:
        text = _run_tool([rocminfo], _ROCMINFO_TIMEOUT)
        if text:
            found = sorted(set(re.findall(_GFX_TOKEN, text)))
            preferred = os.environ.get(PREFERRED_GFX_ENV)
            # as the plugin: a list naming nothing means the default list
            allowed = {a.strip() for a in (preferred or "").split(",") if a.strip()} or set(ALL_GFX_ARCHS)
            # The plugin drops the whole rocminfo answer when one name is unknown.
            if found and all(name in allowed for name in found):
                return found
    enumerator = _which("rocm_agent_enumerator", path)
    if not enumerator:
        return []
    text = _run_tool([enumerator, "-name"], _ENUMERATOR_TIMEOUT)
    names = set()
    for line in (text or "").splitlines():
        match = re.search(_GFX_TOKEN, line.lower())
        if match and match.group(0) != "gfx000":
            names.add(match.group(0))
    return sorted(names)


# -- ROCm version -------------------------------------------------------------------------


def rocm_root() -> str:
    return os.environ.get(ROCM_PATH_ENV) or DEFAULT_ROCM_PATH


def read_rocm_version(root: Optional[str] = None) -> Optional[str]:
    """``major.minor`` from ``<root>/.info/version`` (``6.4.1-120`` → ``6.4``), or None."""
    path = os.path.join(root if root is not None else rocm_root(), ".info", "version")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read().strip()
    except OSError:
        return None
    parts = re.split(r"[.-]", text)
    try:
        # The plugin takes three numeric parts, or two.
        numbers = [int(p) for p in parts[:3]] if len(parts) >= 3 else [int(p) for p in parts]
    except ValueError:
        logger.debug("amd: cannot parse ROCm version %r in %s", text, path)
        return None
    if len(numbers) < 2:
        return None
    return f"{numbers[0]}.{numbers[1]}"


def parse_forced_rocm_version(text: str) -> str:
    """``6.4``, ``6.4.1`` or ``6.4.1-120`` (what ``.info/version`` holds) → ``6.4``;
    anything else is a :class:`ProviderError`. As with the plugin, only the
    major and minor parts have to be numbers."""
    raw = text.strip()
    parts = raw.split(".")
    if len(parts) not in (2, 3) or not all(p.isascii() and p.isdigit() for p in parts[:2]) or not parts[-1]:
        raise ProviderError(
            NAMESPACE,
            f"{FORCE_ROCM_ENV}={text!r} is not a ROCm version; use MAJOR.MINOR or "
            "MAJOR.MINOR.PATCH (e.g. 6.4, 6.4.1 or 6.4.1-120)",
        )
    return f"{int(parts[0])}.{int(parts[1])}"


def parse_forced_gfx_archs(text: str) -> List[str]:
    """The forced list, split on commas/semicolons/whitespace, user order kept.

    Names are lower-cased and repeats dropped (the plugin passes them through
    and variantlib then rejects the whole answer); a name outside the property
    grammar is a :class:`ProviderError`.
    """
    out: List[str] = []
    for item in re.split(_LIST_SPLIT, text):
        name = item.strip().lower()
        if not name:
            continue
        if not re.fullmatch(_VALUE, name):
            raise ProviderError(
                NAMESPACE, f"{FORCE_GFX_ENV}={text!r}: {item!r} is not a gfx name (e.g. gfx942)"
            )
        if name not in out:
            out.append(name)
    return out


def _env(name: str) -> Optional[str]:
    value = os.environ.get(name)
    return value if value and value.strip() else None


def _sysfs_root_default() -> str:
    return os.environ.get(SYSFS_ROOT_ENV) or DEFAULT_SYSFS_ROOT


class AmdProvider:
    """Built-in stand-in for ``amd-variant-provider`` (see module docstring).

    ``sysfs_root`` (default ``/sys``) and ``rocm_path`` (default
    ``$ROCM_PATH`` or ``/opt/rocm``) can be pointed at fake trees.
    """

    namespace = NAMESPACE
    packages: Tuple[str, ...] = ("amd-variant-provider",)
    versions: Mapping[str, Tuple[str, ...]] = {"amd-variant-provider": ("0.0.2",)}
    plugin_apis: Tuple[str, ...] = ("amd_variant_provider.plugin:AMDVariantPlugin",)

    def __init__(
        self, *, sysfs_root: Optional[str] = None, rocm_path: Optional[str] = None,
        dev_root: Optional[str] = None,
    ) -> None:
        self._sysfs_root = sysfs_root
        self._rocm_path = rocm_path
        self._dev_root = dev_root

    def _sysfs(self) -> str:
        return self._sysfs_root if self._sysfs_root is not None else _sysfs_root_default()

    def _dev(self) -> Optional[str]:
        """Where the device files are; ``None`` (not checked) for a fake ``/sys`` tree."""
        if self._dev_root is not None:
            return self._dev_root
        return DEFAULT_DEV_ROOT if self._sysfs() == DEFAULT_SYSFS_ROOT else None

    def _rocm(self) -> str:
        return self._rocm_path if self._rocm_path is not None else rocm_root()

    def detect_gfx_archs(self) -> List[str]:
        """Detected names, unique and string-sorted like the plugin."""
        names = kfd_gfx_archs(
            self._sysfs(), os.environ.get(HSA_OVERRIDE_ENV), os.environ.get(VISIBLE_DEVICES_ENV),
            self._dev(), node_overrides(os.environ),
        )
        if not names and not kfd_gfx_archs(self._sysfs()):
            # The tools only where the topology itself shows no GPU: GPUs this
            # process cannot reach (or hides) are hidden from them too.
            names = tool_gfx_archs()
        return sorted(set(names))

    def supported_configs(self) -> List[FeatureConfig]:
        # Validate both overrides before detecting: a bad one disables the
        # namespace with one warning (ProviderError), whatever else is found.
        force_gfx = os.environ.get(FORCE_GFX_ENV) or None  # blanks too: set, naming no GPU (as the plugin)
        force_rocm = _env(FORCE_ROCM_ENV)
        archs = parse_forced_gfx_archs(force_gfx) if force_gfx is not None else None
        version = parse_forced_rocm_version(force_rocm) if force_rocm is not None else None
        if archs is None:
            archs = self.detect_gfx_archs()
        if version is None:
            version = read_rocm_version(self._rocm())
        out: List[FeatureConfig] = []
        if archs:
            out.append(FeatureConfig(GFX_FEATURE, tuple(archs), multi_value=True))
        if version is not None:
            out.append(FeatureConfig(ROCM_FEATURE, (version,)))
        return out

    def all_configs(self) -> List[FeatureConfig]:
        return [
            FeatureConfig(ROCM_FEATURE, ALL_ROCM_VERSIONS),
            FeatureConfig(GFX_FEATURE, ALL_GFX_ARCHS, multi_value=True),
        ]

    def cache_inputs(self) -> Dict[str, str]:
        # A GPU set change re-creates the topology nodes (or needs a reboot:
        # boot id); a ROCm install or update rewrites .info/version; the tool
        # fallback depends on PATH.
        from pip_variants.providers._host import host_fingerprint

        sysfs = self._sysfs()
        nodes = _nodes_dir(sysfs)
        try:
            listing = ",".join(sorted(os.listdir(nodes)))
            generation = _read(
                os.path.join(sysfs, "class", "kfd", "kfd", "topology", "generation_id")
            )
        except OSError:
            listing, generation = "", ""
        rocm = self._rocm()
        inputs = host_fingerprint()
        inputs.update(
            sysfs_root=sysfs,
            kfd_nodes=listing,
            kfd_generation=generation,
            kfd_versions=";".join(
                _properties(os.path.join(nodes, n, "properties")).get("gfx_target_version", "")
                for n in listing.split(",")
                if n
            ),
            rocm_path=rocm,
            rocm_version_file=_read(os.path.join(rocm, ".info", "version")),
            path=os.environ.get("PATH", ""),
            devices=_device_files(self._dev()),
        )
        for name in (FORCE_GFX_ENV, FORCE_ROCM_ENV, PREFERRED_GFX_ENV, HSA_OVERRIDE_ENV, VISIBLE_DEVICES_ENV):
            inputs[name] = os.environ.get(name, "")
        for node, value in sorted(node_overrides(os.environ).items()):
            inputs[f"{HSA_OVERRIDE_ENV}_{node}"] = value
        return inputs


def _device_files(dev_root: Optional[str]) -> str:
    """What the device checks of :func:`kfd_gfx_archs` see (a container passes other devices)."""
    if dev_root is None:
        return ""
    try:
        render = sorted(n for n in os.listdir(os.path.join(dev_root, "dri")) if n.startswith("renderD"))
    except OSError:
        render = []
    # Usable, not only present: joining the render group changes the answer too.
    seen = [("" if _usable(os.path.join(dev_root, "dri", n)) else "denied:") + n for n in render]
    kfd = "kfd" if _usable(os.path.join(dev_root, "kfd")) else "no-kfd"
    return ",".join([kfd, *seen])


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(256).strip()
    except OSError:
        return ""
