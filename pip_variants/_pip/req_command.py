"""H8: ``RequirementCommand._build_package_finder`` turns variants on for a command.

In ``install``, ``download``, ``wheel`` and ``lock`` the finder is built
before any requirement is parsed (PIP-HOOKS §8), so this is where the
process decides: read the H11 options, build the selection engine, attach a
:class:`~pip_variants._pip.context.FinderContext` to the finder, and export
the effective settings as ``PIP_*`` variables for pip's build-dependency
subprocesses (which get pip's finder options but not ours, §7.5).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from . import _compat, _patching, messages
from .context import ATTR, FinderContext
from .errors import VariantInstallationError
from .state import STATE, turned_off_by

__all__ = ["patch", "VARIANT_COMMANDS", "configure_finder", "Options"]

#: Commands whose finder selects variants; ``lock`` only carries the options.
VARIANT_COMMANDS = ("install", "download", "wheel", "lock")


class Options:
    """The H11 option values of one command, with defaults when absent."""

    def __init__(self, options: Any) -> None:
        self.no_variants = bool(getattr(options, "pip_variants_no_variants", False))
        self.variant = _words(getattr(options, "pip_variants_variant", None))
        profile = getattr(options, "pip_variants_profile", None)
        self.profile = os.path.abspath(os.path.expanduser(profile)) if profile else None
        self.allow_plugin = _words(getattr(options, "pip_variants_allow_plugin", None))
        self.enable = _words(getattr(options, "pip_variants_enable", None), commas=True)
        self.strict = bool(getattr(options, "pip_variants_strict", False))
        self.exclude = _words(getattr(options, "pip_variants_exclude", None))
        self.disable = _words(getattr(options, "pip_variants_disable", None), commas=True)
        config = getattr(options, "pip_variants_config", None)
        self.config = os.path.abspath(os.path.expanduser(config)) if config else None

    def environment(self) -> Dict[str, Optional[str]]:
        """``PIP_*`` values reproducing these settings (``None``: unset)."""
        return {
            "PIP_NO_VARIANTS": "1" if self.no_variants else None,
            "PIP_VARIANT": " ".join(self.variant) or None,
            "PIP_VARIANT_PROFILE": self.profile,
            "PIP_ALLOW_VARIANT_PLUGIN": " ".join(self.allow_plugin) or None,
            "PIP_VARIANT_ENABLE": " ".join(self.enable) or None,
            "PIP_VARIANT_STRICT": "1" if self.strict else None,
            "PIP_VARIANT_EXCLUDE": " ".join(self.exclude) or None,
            "PIP_VARIANT_DISABLE": " ".join(self.disable) or None,
            "PIP_VARIANT_CONFIG": self.config,
        }


def _words(values: Optional[Sequence[str]], commas: bool = False) -> List[str]:
    out: List[str] = []
    for value in values or ():
        for word in (value.replace(",", " ") if commas else value).split():
            if word not in out:
                out.append(word)
    return out


def _export(opts: Options) -> None:
    _set_environment(opts.environment())


def _set_environment(values: Mapping[str, Optional[str]]) -> None:
    """Set each variable of ``values``; ``None``: unset it."""
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


#: what :func:`_export` sets, for this command's child pips (build environments)
_EXPORTED = ("PIP_NO_VARIANTS", "PIP_VARIANT", "PIP_VARIANT_PROFILE", "PIP_ALLOW_VARIANT_PLUGIN",
             "PIP_VARIANT_ENABLE", "PIP_VARIANT_STRICT", "PIP_VARIANT_EXCLUDE", "PIP_VARIANT_DISABLE",
             "PIP_VARIANT_CONFIG")


@contextmanager
def _environment_kept(saved: Dict[str, Optional[str]]) -> Iterator[None]:
    STATE.commands_running += 1
    try:
        yield
    finally:
        STATE.commands_running -= 1
        _set_environment(saved)


def _restore_environment_after(command: Any) -> Optional[Dict[str, Optional[str]]]:
    """Put the exported variables back as they were when the command ends: a
    program that runs pip's ``main()`` twice, or starts its own pip later, must
    not inherit one command's ``--variant`` or ``--no-variants``. Returns the
    values to put back at once where the command cannot say when it ends."""
    if getattr(command, "_pip_variants_environment", None) is not None:
        return None  # (a second finder of the same command: the first one's values are the user's)
    saved = {name: os.environ.get(name) for name in _EXPORTED}
    try:
        command._pip_variants_environment = saved
        command.enter_context(_environment_kept(saved))
    except Exception:
        # Outside pip's main(): a program that builds pip's finder itself
        # (pip-tools). Its child pips lose the options rather than every pip
        # the program runs later inheriting them.
        return saved
    return None


def _new_command(command: Any) -> None:
    """A command other than the last one of this process (a program that runs
    pip's ``main()`` twice): its lines are said again, as in a pip of its own."""
    if getattr(command, "_pip_variants_seen", False):
        return
    try:
        command._pip_variants_seen = True
    except Exception:  # a command class with __slots__: said once per process
        return
    # (not pip's in-process build-dependency install, inside a running command)
    if STATE.commands_seen and not STATE.commands_running:
        messages.reset()
        STATE.announced.clear()
        STATE.unread_markers_said.clear()
        STATE.abi_builds.clear()
    STATE.commands_seen += 1


def _index_args(finder: Any, options: Any) -> List[str]:
    """The finder settings pip's own build-env installer forwards to its child."""
    args: List[str] = []
    urls = list(finder.index_urls)
    if urls:
        args += ["--index-url", urls[0]]
        for url in urls[1:]:
            args += ["--extra-index-url", url]
    else:
        args.append("--no-index")
    for link in finder.find_links:
        args += ["--find-links", link]
    for host in finder.trusted_hosts:
        args += ["--trusted-host", host]
    for attr, flag in (("cert", "--cert"), ("client_cert", "--client-cert"), ("proxy", "--proxy")):
        value = getattr(options, attr, None)
        if value:
            args += [flag, str(value)]
    return args


def _plugin_installer(finder: Any, options: Any) -> Callable[[Sequence[str]], str]:
    def install(requirements: Sequence[str]) -> str:
        from ..providers.cache import cache_dir
        from ..providers.isolated import isolated_plugin_dir

        # The running pip, as a child with PIP_NO_VARIANTS=1: no recursion, and
        # zipapp / --python runs install with the same pip (PIP-HOOKS §9.2).
        return isolated_plugin_dir(
            list(requirements),
            os.path.join(str(cache_dir()), "plugins"),
            pip_command=[sys.executable, _compat.get_runnable_pip()],
            pip_args=_index_args(finder, options),
            network_args=_network_args(options),
        )

    return install


def _network_args(options: Any) -> List[str]:
    """``--isolated`` (or the child reads index variables the command ignored),
    ``--timeout`` and ``--retries`` of the command, for its plugin installer."""
    args = ["--isolated"] if getattr(options, "isolated_mode", False) else []
    for attr, flag in (("timeout", "--timeout"), ("retries", "--retries")):
        value = getattr(options, attr, None)
        if value is not None:
            args += [flag, str(value)]
    return args


def _variable_name(key: str) -> str:
    """``variant-disable`` -> ``PIP_VARIANT_DISABLE``, as pip names the variable of an option."""
    return "PIP_" + key.upper().replace("-", "_")


class _Sources:
    """Where pip found the value of one of our options before the command
    line added to it: ``PIP_*`` (the environment wins over files, as in pip's
    defaults) or pip's configuration files. Read from what ``parser`` loaded;
    under ``--isolated`` pip reads no variable (but still the global, site and
    ``PIP_CONFIG_FILE`` files)."""

    def __init__(self, parser: Any, isolated: bool) -> None:
        from .options import OPTION_NAMES

        # as the command found them, before _export replaces them
        self._variables: Dict[str, Optional[str]] = {} if isolated else {
            name[2:]: os.environ.get(_variable_name(name[2:])) or None for name in OPTION_NAMES
        }
        self._parser = parser
        self._items: Optional[Dict[str, str]] = None  # read when a message needs them

    def variable(self, key: str) -> Optional[str]:
        """The ``PIP_*`` value of option ``--key`` pip took, as the command found it."""
        return self._variables.get(key)

    def file(self, key: str) -> Optional[str]:
        """The configuration files' value of ``--key``, where no variable overrides it."""
        if self.variable(key) is not None:
            return None
        if self._items is None:
            self._items = {}
            try:  # pip's own order: [global], the command's section, the environment
                for name, value in self._parser._get_ordered_configuration_items() if self._parser else ():
                    self._items[name] = str(value)
            except Exception as exc:  # only the wording of messages depends on it
                messages.debug("pip-variants: pip's configuration could not be read: %r", exc)
        return self._items.get(key) or None

    def words(self, key: str) -> Tuple[List[str], List[str]]:
        """The option's words from the variable and from the files (before the command line's)."""
        return _words([self.variable(key) or ""]), _words([self.file(key) or ""])

    def _given(self, key: str) -> Tuple[Tuple[Optional[str], str], ...]:
        return ((self.variable(key), f" (from the {_variable_name(key)} environment variable)"),
                (self.file(key), " (from pip's configuration: 'pip config list' shows which file)"))

    def where(self, key: str, read: Callable[[str], Any]) -> str:
        """Where a refused value of ``--key`` came from, unless from the command line:
        the one of the variable or the files that ``read`` refuses on its own."""
        for value, where in self._given(key):
            if value:
                try:
                    read(value)
                except Exception:  # noqa: BLE001 - any refusal of those words
                    return where
        return ""

    def origin(self, key: str, value: Any) -> str:
        """Where the one value of ``--key`` (a file name) came from, unless from
        the command line: re-reading the file could not tell."""
        for given, where in self._given(key):
            if given is not None and given == value:
                return where
        return ""


def _read_option(read: Callable[[Any], Any], value: Any, errors: Any, where: Callable[[], str]) -> Any:
    """``read(value)``; its own error (a bad file or value) becomes pip's one-line
    error, ending with ``where()`` the value came from."""
    try:
        return read(value)
    except errors as exc:
        raise VariantInstallationError(f"{exc}{where()}") from None


def configure_finder(command: str, options: Any, session: Any, finder: Any,
                     parser: Any = None) -> Optional[FinderContext]:
    """Decide variants for this command and attach the state to ``finder``
    (``parser``: the command's, for where a setting came from)."""
    opts = Options(options)
    sources = _Sources(parser, bool(getattr(options, "isolated_mode", False)))
    _export(opts)
    STATE.command = command
    # Until variants are on for this command: no provider runs for installed wheels' markers.
    STATE.target_support = lambda metadata: None
    # pip lock runs with variants off whatever the option says; what that leaves out is said as for the option
    STATE.off_by_option = opts.no_variants or command == "lock"
    if opts.no_variants and command != "lock":
        messages.debug("pip-variants: variants off (--no-variants)")
        if opts.variant:
            _warn_variant_ignored(opts, f"variants are off ({turned_off_by()[0]})", sources)
        return None
    from . import verify_untested_pip

    if not verify_untested_pip():  # a pip newer than the tested range that has changed
        return None
    if command == "lock":
        why = turned_off_by()[0]  # (the command is lock)
        if opts.variant:
            _warn_variant_ignored(opts, f"{why} and locks with variants off", sources)
        else:  # a notice, not a warning: most locks involve no variant at all
            messages.info_once(f"pip-variants: {why}; locking with variants off")
        return None
    profile = None
    if opts.profile:
        from ..profile import InvalidProfile, load_profile

        profile = _read_option(load_profile, opts.profile, InvalidProfile,
                               lambda: sources.origin("variant-profile", opts.profile))
    config = None
    if opts.config:
        from ..variant_config import InvalidVariantConfig, load_variant_config

        config = _read_option(load_variant_config, opts.config, InvalidVariantConfig,
                              lambda: sources.origin("variant-config", opts.config))
    excluded: Dict[str, Tuple[str, ...]] = {}
    if opts.exclude:
        from ..engine import VariantError, parse_excluded

        excluded = _read_option(parse_excluded, opts.exclude, VariantError, lambda: sources.where(
            "variant-exclude", lambda value: parse_excluded(_words([value]))))
    if opts.disable or opts.enable:
        from ..engine import VariantError, parse_namespaces

        for option, values, also in (("--variant-disable", opts.disable, ()),
                                     ("--variant-enable", opts.enable, (":all:",))):
            try:
                parse_namespaces(values, option, also=also)
            except VariantError as exc:
                where = sources.where(option[2:], lambda value: parse_namespaces(
                    _words([value], commas=True), option, also=also))
                raise VariantInstallationError(f"{exc}{where}") from None
    if opts.allow_plugin:
        from ..engine import VariantError, parse_allowed_plugins

        try:
            parse_allowed_plugins(opts.allow_plugin)
        except VariantError as exc:
            where = sources.where("allow-variant-plugin", lambda value: parse_allowed_plugins(value.split()))
            raise VariantInstallationError(f"{exc}{where}") from None
    forced: Dict[str, str] = {}
    if opts.variant:
        from ..engine import VariantError, parse_forced

        try:
            forced = parse_forced(opts.variant)
        except VariantError as exc:
            where = sources.where("variant", lambda value: parse_forced([value]))
            raise VariantInstallationError(f"{exc}{where}") from None
        # (each parsed alone above already, as part of the whole)
        from_variable, from_files = sources.words("variant")
        STATE.forced_by_variable = parse_forced(from_variable)
        STATE.forced_from_config = parse_forced(from_files)
    cross = _compat.cross_target_options(getattr(finder, "target_python", None))
    only_forced = bool(cross) and profile is None
    if only_forced:
        # This machine's providers would answer for the wrong machine: only what
        # --variant names is chosen, as named; everything else stays stock.
        named = ", ".join(f"{name}={label}" for name, label in forced.items())
        what = (f"only the builds --variant names are chosen ({named}) and other variant wheels are ignored"
                if forced else "variant wheels are ignored")
        note = (f"pip-variants: {', '.join(cross)} {'select' if len(cross) > 1 else 'selects'} for another "
                f"machine, so {what}; pass --variant-profile FILE (from 'pip-variants profile export' on "
                "that machine) to select variants for it")
        STATE.cross_target = tuple(cross)
        if not forced:
            # Said once a variant wheel is met: a download without any stays silent, as stock pip is.
            STATE.cross_target_note = note
            return None
        messages.warn_once(note)
        profile = {}

    def make_engine() -> Any:
        # Deferred: only a pip run that meets a variant wheel pays for the core.
        from ..engine import VariantEngine, VariantSettings
        from ..support import SupportSettings

        def abi_context() -> Any:
            # Made on first use: abi.py is imported only for a release with an ABI
            # namespace, or here when VARIANT_ABI_DEPENDENCY has something to warn about.
            if STATE.abi_context is None:
                from ..abi import AbiContext

                STATE.abi_context = AbiContext.from_environment(profile=profile)
                if STATE.abi_binding is not None:
                    STATE.abi_context.bind(*STATE.abi_binding)
                for problem in STATE.abi_context.problems:
                    messages.warn_once(f"pip-variants: {problem}")
            return STATE.abi_context

        STATE.abi_factory = abi_context
        if os.environ.get("VARIANT_ABI_DEPENDENCY"):  # its problems are reported up front, as before
            abi_context()

        support = SupportSettings(
            profile=profile,
            profile_source=opts.profile or "",
            profile_notices=not only_forced,
            allowed_plugins=tuple(opts.allow_plugin),
            enabled_optional=tuple(opts.enable) + (config.enable_optional if config is not None else ()),
            disabled=tuple(opts.disable),
            strict=opts.strict,
            python=sys.executable,
            abi=STATE.abi_context,
            abi_factory=abi_context,
        )
        extra: Dict[str, Any] = {"excluded": excluded}
        if config is not None:
            extra["preferences"] = config.preferences
        return VariantEngine(
            VariantSettings(enabled=True, forced=forced, support=support, **extra),
            plugin_installer=_plugin_installer(finder, options),
        )

    ctx = FinderContext(make_engine, session, command=command, forced=forced)
    ctx.profile = profile is not None
    ctx.choice_options = _choice_options(opts)
    ctx.only_forced = only_forced
    scope = getattr(finder, "search_scope", None)
    ctx.search_scope = scope
    ctx.several_sources = len(getattr(scope, "index_urls", ()) or ()) + len(getattr(scope, "find_links", ()) or ()) > 1
    # The legacy resolver never calls H12: local wheels are checked when selected.
    ctx.check_local_wheels = "legacy-resolver" in (getattr(options, "deprecated_features_enabled", None) or ())
    setattr(finder, ATTR, ctx)
    STATE.target_support = lambda metadata: ctx.engine.supported_for(metadata)[0]
    STATE.strict = opts.strict
    STATE.enabled = True
    STATE.labels = True
    return ctx


def _choice_options(opts: Options) -> List[Tuple[str, str, Optional[str]]]:
    """The options of this command that change what is chosen, for the explain hint."""
    def of(item: str) -> str:
        return _compat.canonical_name(item.partition("=")[0])

    out: List[Tuple[str, str, Optional[str]]] = []
    out += [("--variant-profile", opts.profile, None)] if opts.profile else []
    out += [("--variant-config", opts.config, None)] if opts.config else []
    out += [("--variant", item, of(item)) for item in opts.variant]
    out += [("--variant-exclude", item, of(item)) for item in opts.exclude]
    out += [("--variant-disable", ns, None) for ns in opts.disable]
    out += [("--variant-enable", ns, None) for ns in opts.enable]
    out += [("--allow-variant-plugin", item, None) for item in opts.allow_plugin]
    out += [("--variant-strict", "", None)] if opts.strict else []
    return out


def _warn_variant_ignored(opts: Options, why: str, sources: _Sources) -> None:
    """``--variant`` asks for a build by name: never drop it without a word,
    named as the user set it (option, ``PIP_VARIANT``, pip.conf)."""
    from_variable, from_files = sources.words("variant")
    typed = [item for item in opts.variant if item not in from_variable and item not in from_files]
    named = " ".join([f"--variant {item}" for item in typed]
                     + ([f'PIP_VARIANT="{" ".join(from_variable)}"'] if from_variable else [])
                     + ([f"variant = {' '.join(from_files)} (pip's configuration)"] if from_files else []))
    messages.warn_once(f"pip-variants: {why}, so {named} is ignored: pip takes no variant wheel")


def _wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    def _build_package_finder(self: Any, options: Any, session: Any, *args: Any, **kwargs: Any) -> Any:
        finder = original(self, options, session, *args, **kwargs)
        command = getattr(self, "name", "")
        if STATE.stepped_aside or STATE.broken or command not in VARIANT_COMMANDS:
            return finder
        if getattr(options, "pip_variants_no_variants", False):
            try:  # only the wording of a notice depends on it: never worth more than a debug line
                from .variants_off import set_in_configuration

                STATE.no_variants_in_configuration = set_in_configuration(getattr(self, "parser", None))
            except Exception as exc:
                messages.debug("pip-variants: where no-variants was set is unknown: %r", exc)
        pending = None
        try:
            _new_command(self)
            pending = _restore_environment_after(self)
            configure_finder(command, options, session, finder, getattr(self, "parser", None))
        except VariantInstallationError:
            raise
        except Exception as exc:
            messages.internal_error("RequirementCommand._build_package_finder", exc)
        finally:
            if pending is not None:
                _set_environment(pending)
        return finder

    return _build_package_finder


def patch(module: Any) -> None:
    _patching.patch(module.RequirementCommand, "_build_package_finder", _wrap)
