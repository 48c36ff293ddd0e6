"""``pip-variants platform``: what every provider supports on this machine."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Tuple

from . import add_subcommand, print_json

__all__ = [
    "register",
    "NamespaceReport",
    "PlatformReport",
    "gather_platform",
    "format_table",
    "OVERRIDE_ENV_VARS",
    "OVERRIDE_ENV_PREFIXES",
    "overrides_in_effect",
]

#: Variables that change what the built-in providers report (PROVIDERS.md §6.3;
#: the names are uv's and the upstream plugins', so both tools agree).
OVERRIDE_ENV_VARS: Tuple[str, ...] = (
    "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION",
    "NV_VARIANT_PROVIDER_FORCE_SM_ARCH",
    "PIP_VARIANTS_X86_64_LEVEL",
    "PIP_VARIANTS_AARCH64_VERSION",
    "TPU_VARIANT_PROVIDER_FORCE_PRESENT",
    "AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH",
    "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION",
    "AMD_PREFERRED_GFX_ARCHS",
    "HSA_OVERRIDE_GFX_VERSION",
    "ROCR_VISIBLE_DEVICES",
    "ROCM_PATH",
    "INTEL_VARIANT_PROVIDER_FORCE_DEVICE_IP",
    # what the abi_dependency provider takes an installed version to be (variantlib's name)
    "VARIANT_ABI_DEPENDENCY",
)
#: ... and the families of them: ROCm's per-GPU ``HSA_OVERRIDE_GFX_VERSION_<node>``
OVERRIDE_ENV_PREFIXES: Tuple[str, ...] = ("HSA_OVERRIDE_GFX_VERSION_",)

_MAX_VALUES = 6


@dataclass
class NamespaceReport:
    """One provider's answer for one namespace."""

    namespace: str
    source: str  # "built-in" or "plugin <dist> <version> (<api>)"
    features: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    error: Optional[str] = None
    note: Optional[str] = None

    def add_note(self, text: str) -> None:
        self.note = f"{self.note}; {text}" if self.note else text


@dataclass
class PlatformReport:
    namespaces: List[NamespaceReport] = field(default_factory=list)
    #: problems not tied to one namespace (e.g. plugins could not be listed)
    problems: List[str] = field(default_factory=list)

    def supported(self) -> Dict[str, Dict[str, Tuple[str, ...]]]:
        """``{namespace: {feature: values}}``; failed or empty providers give ``{}``."""
        return {r.namespace: dict(r.features) for r in self.namespaces}

    def to_json(self) -> Dict[str, Dict[str, List[str]]]:
        return {ns: {f: list(v) for f, v in feats.items()} for ns, feats in self.supported().items()}


def overrides_in_effect(environ: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    env = os.environ if environ is None else environ
    found = {name: env[name] for name in OVERRIDE_ENV_VARS if name in env}
    found.update(sorted((name, value) for name, value in env.items() if name.startswith(OVERRIDE_ENV_PREFIXES)))
    return found


def gather_platform(*, use_cache: bool = True, plugins: bool = True) -> PlatformReport:
    """Ask every built-in provider, then every installed plugin, in that order.

    A plugin whose namespace a built-in already serves is not run: the
    built-in answers for that namespace, as it does during installs
    (resolution ladder, PROVIDERS.md §3.3, step 4 before step 5).
    """
    from ..providers.base import ProviderError, configs_to_supported
    from ..providers.detect import detect

    report = PlatformReport()
    for ns, result in detect(use_cache=use_cache).items():
        if isinstance(result, ProviderError):
            report.namespaces.append(NamespaceReport(ns, "built-in", error=str(result)))
        else:
            report.namespaces.append(NamespaceReport(ns, "built-in", configs_to_supported(result)))
    _explain_silent_intel(report)
    if plugins:
        _gather_plugins(report)
    return report


def _explain_silent_intel(report: PlatformReport) -> None:
    """An Intel GPU on PCI but no device IP: say the two usual reasons (the
    provider logs them at debug level only, as pip runs it on every install)."""
    from ..providers.intel import FORCE_DEVICE_IP_ENV, NAMESPACE, IntelProvider

    entry = next((r for r in report.namespaces if r.namespace == NAMESPACE and r.source == "built-in"), None)
    if entry is None or entry.features or entry.error or os.environ.get(FORCE_DEVICE_IP_ENV):
        return

    found = IntelProvider().gpus_on_pci()
    if found:
        entry.add_note(
            f"an Intel GPU is on PCI ({', '.join(found[:3])}) but no device IP was found: Level Zero (the "
            "loader and Intel's GPU compute runtime) is missing or failing, or intel-variant-provider "
            "does not know this GPU; see 'Intel GPU but the CPU build' in docs/troubleshooting.md"
        )


def _gather_plugins(report: PlatformReport) -> None:
    from ..providers.base import ProviderError, configs_to_supported

    try:
        from ..providers.plugins import discover_installed_plugins, run_plugins
    except ImportError as exc:  # the plugin runner is optional at this layer
        report.problems.append(f"installed plugins not checked: {exc}")
        return
    try:
        installed = discover_installed_plugins()
    except ProviderError as exc:
        report.problems.append(str(exc))
        return
    taken = {r.namespace: r for r in report.namespaces}
    to_run = []
    for plugin in installed:
        source = f"plugin {plugin.distribution} {plugin.version} ({plugin.plugin_api})"
        if plugin.namespace is not None and plugin.namespace in taken:
            owner = taken[plugin.namespace]
            owner.add_note(
                f"installed {plugin.distribution} {plugin.version} is not run: "
                f"the {owner.source} provider serves {plugin.namespace!r}"
            )
            continue
        to_run.append((plugin, source))
    if not to_run:
        return
    results = run_plugins([p.plugin_api for p, _ in to_run])
    for plugin, source in to_run:
        result = results.get(plugin.plugin_api)
        ns = plugin.namespace or getattr(result, "namespace", None)
        if isinstance(result, ProviderError) or result is None:
            label = ns or plugin.plugin_api
            report.namespaces.append(NamespaceReport(label, source, error=str(result or "no answer")))
            continue
        if ns is None:
            report.problems.append(
                f"{source}: neither a 'namespace' attribute nor its entry-point name in the "
                "'variant_plugins' group names a namespace, so its answer cannot be used: tell the "
                "plugin's authors (variantlib takes the entry-point name, e.g. nvidia = MODULE:OBJECT)"
            )
            continue
        if ns in taken:
            taken[ns].add_note(f"{source} also claims {ns!r}; the first one found is used")
            continue
        entry = NamespaceReport(ns, source, configs_to_supported(result.configs))
        report.namespaces.append(entry)
        taken[ns] = entry


def _shorten(values: Tuple[str, ...], limit: int = _MAX_VALUES) -> str:
    if len(values) <= limit:
        return ", ".join(values)
    return ", ".join(values[:limit]) + f", ... ({len(values)} values)"


def format_table(report: PlatformReport, *, full: bool = False) -> str:
    """The human view: a namespace/feature/values table, then one line per
    provider that failed or found nothing."""
    rows: List[Tuple[str, str, str]] = []
    quiet: List[str] = []
    for r in report.namespaces:
        if r.error:
            quiet.append(f"{r.namespace}: {r.source} provider failed: {r.error}")
            continue
        if not r.features:
            why = "the profile lists nothing" if r.source == "profile" else f"{r.source} provider found nothing"
            quiet.append(f"{r.namespace}: nothing supported ({why})")
        for i, (feature, values) in enumerate(r.features.items()):
            shown = ", ".join(values) if full else _shorten(values)
            rows.append((r.namespace if i == 0 else "", feature, shown))
        if r.note:
            quiet.append(f"{r.namespace}: note: {r.note}")
    lines: List[str] = []
    if rows:
        w_ns = max(len("NAMESPACE"), *(len(r[0]) for r in rows))
        w_f = max(len("FEATURE"), *(len(r[1]) for r in rows))
        lines.append(f"{'NAMESPACE':<{w_ns}}  {'FEATURE':<{w_f}}  VALUES (most preferred first)")
        for ns, feature, shown in rows:
            lines.append(f"{ns:<{w_ns}}  {feature:<{w_f}}  {shown}")
    else:
        lines.append("No provider reports any supported property on this machine.")
    if quiet:
        lines.append("")
        lines.extend(quiet)
    lines.extend(f"warning: {p}" for p in report.problems)
    overrides = overrides_in_effect()
    if overrides:
        lines.append("")
        lines.append("overrides in effect: " + ", ".join(f"{k}={v}" for k, v in overrides.items()))
    return "\n".join(lines) + "\n"


def _run(args: argparse.Namespace) -> int:
    report = gather_platform(use_cache=not args.no_cache, plugins=not args.no_plugins)
    if args.json:
        print_json(report.to_json())
        for r in report.namespaces:
            if r.error:
                sys.stderr.write(f"pip-variants: warning: {r.namespace}: {r.error}\n")
        for p in report.problems:
            sys.stderr.write(f"pip-variants: warning: {p}\n")
    else:
        sys.stdout.write(format_table(report, full=args.full))
    return 0


_EXAMPLES = """\
  pip-variants platform
  pip-variants platform --json | python -c 'import json,sys; print(json.load(sys.stdin)["x86_64"])'
  # what a T4 (CUDA 12.8 driver, compute capability 7.5) would report:
  NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=12.8 NV_VARIANT_PROVIDER_FORCE_SM_ARCH=7.5 \\
      pip-variants platform --json"""


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = add_subcommand(
        sub,
        "platform",
        help="show what every variant provider supports on this machine",
        description=(
            "Show, per namespace, the features and values this machine supports, most preferred\n"
            "first: the built-in providers (nvidia, x86_64, aarch64, tpu, amd, intel), then the\n"
            "provider plugins installed in this environment. These lists decide which variant wheels fit.\n\n"
            "--json prints exactly {\"<namespace>\": {\"<feature>\": [\"<best value>\", ...]}};\n"
            "a provider that failed or found nothing maps to {} (failures go to stderr)."
        ),
        examples=_EXAMPLES,
        handler=_run,
    )
    p.add_argument("--json", action="store_true", help="print JSON for machines")
    p.add_argument("--full", action="store_true", help="list every value instead of shortening long lists")
    p.add_argument("--no-cache", action="store_true", help="ask the providers again instead of reading the cache")
    p.add_argument("--no-plugins", action="store_true", help="only the built-in providers; run no installed plugin")
