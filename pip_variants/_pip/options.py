"""H11: the variant options on ``install``, ``download``, ``wheel`` and ``lock``.

Real optparse options appended to ``self.cmd_opts`` after the original
``add_options`` (an option group shares its parser's option maps, so they
register even though the group is already in the parser). pip's
``ConfigOptionParser`` then maps ``PIP_<LONG_NAME>`` variables and pip.conf
keys onto them by long name, with pip's precedence and ``--isolated`` rules
(PIP-HOOKS §8). If pip already knows any of these names it has native variant
support: pip-variants steps aside for the whole process.
"""

from __future__ import annotations

from optparse import Option
from typing import Any, Callable, List, Tuple

from . import _patching, messages
from .state import STATE

__all__ = ["patch", "OPTION_NAMES", "make_options", "COMMAND_CLASSES"]

#: module suffix -> command class name
COMMAND_CLASSES: Tuple[Tuple[str, str], ...] = (
    ("install", "InstallCommand"),
    ("download", "DownloadCommand"),
    ("wheel", "WheelCommand"),
    ("lock", "LockCommand"),
)

OPTION_NAMES = (
    "--no-variants",
    "--variant",
    "--variant-profile",
    "--allow-variant-plugin",
    "--variant-enable",
    "--variant-strict",
    "--variant-exclude",
    "--variant-disable",
    "--variant-config",
)


def make_options() -> List[Option]:
    # dest names with a prefix pip itself will not use (§8).
    return [
        Option(
            "--no-variants",
            dest="pip_variants_no_variants",
            action="store_true",
            default=False,
            help="Ignore wheel variants (PEP 817/825): take non-variant wheels only.",
        ),
        Option(
            "--variant",
            dest="pip_variants_variant",
            action="append",
            default=[],
            metavar="NAME=LABEL",
            help="Take the variant LABEL of project NAME (e.g. torch=cu128), whether or "
            "not this machine supports it. Can be given several times.",
        ),
        Option(
            "--variant-profile",
            dest="pip_variants_profile",
            metavar="FILE",
            default=None,
            help="Select variants for the machine described by FILE (from 'pip-variants "
            "profile export') instead of detecting this one.",
        ),
        Option(
            "--allow-variant-plugin",
            dest="pip_variants_allow_plugin",
            action="append",
            default=[],
            metavar="NAME[==VERSION]",
            help="Allow pip-variants to install and run the variant provider plugin NAME "
            "(only that VERSION with NAME==VERSION) in an isolated environment. Can be given "
            "several times.",
        ),
        Option(
            "--variant-enable",
            dest="pip_variants_enable",
            action="append",
            default=[],
            metavar="NAMESPACE",
            help="Enable the optional variant provider of NAMESPACE. Can be given several times.",
        ),
        Option(
            "--variant-strict",
            dest="pip_variants_strict",
            action="store_true",
            default=False,
            help="Fail instead of falling back when a variant provider fails or is not trusted, "
            "or when variant metadata disagree (a wheel with its index file, two indexes).",
        ),
        Option(
            "--variant-exclude",
            dest="pip_variants_exclude",
            action="append",
            default=[],
            metavar="NAME=LABEL",
            help="Never choose the variant LABEL of project NAME (pip takes the next best "
            "build; --variant naming it still installs it). Can be given several times.",
        ),
        Option(
            "--variant-disable",
            dest="pip_variants_disable",
            action="append",
            default=[],
            metavar="NAMESPACE",
            help="Treat variant NAMESPACE as unsupported here: no provider runs for it and "
            "its variants are not chosen. Can be given several times.",
        ),
        Option(
            "--variant-config",
            dest="pip_variants_config",
            metavar="FILE",
            default=None,
            help="Variant priorities in variantlib's variants.toml format "
            "(namespace_priorities, feature_priorities, property_priorities): they reorder "
            "the variants this machine supports, never add one; its enable_optional_plugins "
            "enables optional providers, as --variant-enable does.",
        ),
    ]


def _wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    def add_options(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        if STATE.stepped_aside:
            return result
        try:
            parser = self.parser
            native = [name for name in OPTION_NAMES if parser.has_option(name)]
            if native:
                STATE.stepped_aside = True
                messages.debug(
                    "pip-variants: pip already has %s; stepping aside (native variant support)",
                    ", ".join(native),
                )
                return result
            for option in make_options():
                self.cmd_opts.add_option(option)
        except Exception as exc:
            messages.internal_error(f"{type(self).__name__}.add_options", exc)
        return result

    return add_options


def patch(module: Any) -> None:
    suffix = module.__name__.rsplit(".", 1)[-1]
    for mod_suffix, class_name in COMMAND_CLASSES:
        if mod_suffix == suffix:
            cls = getattr(module, class_name, None)
            if cls is not None:
                _patching.patch(cls, "add_options", _wrap)
