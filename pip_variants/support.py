"""Which properties does the target support, namespace by namespace?

The resolution ladder of the Providers PEP (PROVIDERS.md §3.3), first rule wins:

1. disabled (``optional`` and not enabled, disabled by the user, legacy
   ``enable-if`` false) -> nothing supported;
2. the metadata's own ``static-properties``;
3. the user's profile (``--variant-profile``);
4. a built-in provider (a reimplementation of the published plugin);
5. a plugin already installed in the target environment;
6. a plugin the user allowed by name (``--allow-variant-plugin``), installed
   into an isolated directory;
7. anything else is untrusted: nothing supported, never installed or run.

The ABI-dependency namespace (``abi_dependency``, or any ``{"builtin":
"abi_dependency"}`` entry) sits outside the ladder: :mod:`pip_variants.abi`
answers it from the dependency versions of the target.

Imports no pip. Plugins always run out of process.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._record import record
from .filename import canonicalize_name
from .metadata import ProviderInfo, VariantMetadata
from .properties import Supported
from .providers.base import FeatureConfig, ProviderError, configs_to_supported

if TYPE_CHECKING:  # abi.py is imported only for a release with an ABI namespace
    from .abi import AbiContext, AbiSource

__all__ = [
    "SupportSettings",
    "NamespaceSupport",
    "SupportResolver",
    "PluginInstaller",
]

#: ``requirements -> directory`` holding the installed plugin (for ``--allow-variant-plugin``).
PluginInstaller = Callable[[Sequence[str]], str]


@record
class SupportSettings:
    profile: Optional[Supported] = None
    profile_source: str = ""
    #: say when the profile names none of a release's namespaces (off where the
    #: profile is the empty stand-in for a target only ``--variant`` describes)
    profile_notices: bool = True
    allowed_plugins: Tuple[str, ...] = ()
    enabled_optional: Tuple[str, ...] = ()
    disabled: Tuple[str, ...] = ()
    strict: bool = False
    python: str = sys.executable
    marker_environment: Optional[Mapping[str, str]] = None
    use_cache: bool = True
    #: seconds a plugin may run: ``PIP_VARIANTS_PLUGIN_TIMEOUT``, default 30, for pip and the CLI alike
    plugin_timeout: float = dataclasses.field(default_factory=lambda: plugin_timeout_from_environment())
    #: the ABI provider's inputs; ``None``: this process's environment and ``VARIANT_ABI_DEPENDENCY``
    abi: Optional[AbiContext] = None
    #: called once, on the first ABI namespace, when ``abi`` is ``None`` (pip's hooks
    #: make the command's context there, so a run without one never imports abi.py)
    abi_factory: Optional[Callable[[], AbiContext]] = None


def plugin_timeout_from_environment() -> float:
    """``PIP_VARIANTS_PLUGIN_TIMEOUT``: seconds a provider plugin may run (30 when unset or not a positive number)."""
    text = os.environ.get("PIP_VARIANTS_PLUGIN_TIMEOUT", "").strip()
    try:
        value = float(text) if text else 30.0
    except ValueError:
        value = 30.0
    return value if value > 0 else 30.0


@record
class NamespaceSupport:
    """One namespace's answer: features best first, where it came from, and any notice."""

    namespace: str
    features: Mapping[str, Tuple[str, ...]]
    source: str  # "static", "profile", "builtin:<name>", "plugin:<api>", "disabled", "untrusted", "failed"
    notice: Optional[str] = None
    #: ABI-dependency namespaces: where each dependency's version came from
    abi_sources: Tuple[AbiSource, ...] = ()


class StrictVariantError(Exception):
    """``--variant-strict`` made a fallback fatal: a provider failed, may not run
    (untrusted), or its ``providers`` entry cannot be used."""


def _shell_word(text: str) -> str:
    """``text`` quoted for a command the user may paste: the index chose it (a
    ``===`` specifier takes backticks and ``$(...)``)."""
    from ._display import shell_word

    return shell_word(text)


def _first_requirement(requires: Sequence[str], env: Optional[Mapping[str, str]]):
    from packaging.requirements import Requirement

    from .requirements import first_active_requirement

    text = first_active_requirement(requires, env)
    return Requirement(text) if text is not None else None


def _location_of(dist_name: str) -> Tuple[str, ...]:
    """The directory an installed distribution was found in, if it can tell."""
    try:
        return (os.fspath(_metadata_module().distribution(dist_name).locate_file("")),)
    except Exception:
        return ()


def _requirement_name(text: str) -> Optional[str]:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text).name
    except InvalidRequirement:
        return None


def _installed_admitted(req) -> Optional[str]:
    """The installed version of ``req``'s distribution where ``req`` admits it, else ``None``."""
    version = _installed_version(req.name)
    if version is not None and (not req.specifier or req.specifier.contains(version, prereleases=True)):
        return version
    return None


def _allowance(settings: SupportSettings, req) -> Optional[str]:
    """How ``--allow-variant-plugin`` trusts this requirement: ``None`` not at
    all, ``""`` any version (``NAME``), else only that version (``NAME==VERSION``)."""
    name = canonicalize_name(req.name)
    for item in settings.allowed_plugins:
        head, _, pin = item.partition("==")
        if canonicalize_name(head.strip()) == name:
            return pin.strip()
    return None


def _metadata_module():
    if sys.version_info >= (3, 10):
        from importlib import metadata as importlib_metadata
    else:  # pragma: no cover - 3.9
        import importlib_metadata  # type: ignore[no-redef]
    return importlib_metadata


def _installed_version(name: str) -> Optional[str]:
    try:
        return _metadata_module().version(name)
    except Exception:
        return None


def _ships_endpoint(dist_name: str, plugin_api: str, path: Optional[str] = None) -> bool:
    """Does distribution ``dist_name`` (installed here, or in ``path``) contain the
    endpoint's module, or register the endpoint in ``variant_plugins``?

    The metadata names both the plugin distribution (``requires``) and the
    endpoint (``plugin-api``): trusting the distribution must not let an index
    import any other installed module (say ``unittest.__main__``).
    """
    module = "".join(plugin_api.split(":", 1)[0].split())
    parts = module.split(".")
    if "__main__" in parts:
        return False  # importing a __main__ module runs the package's program, not a plugin
    want = canonicalize_name(dist_name)
    from .providers._plugin_runner import group_entry_points  # one bad entry point must not hide the others

    try:
        md = _metadata_module()
        dists = md.distributions(path=[path]) if path is not None else [md.distribution(dist_name)]
        for dist in dists:
            if canonicalize_name(dist.metadata["Name"] or "") != want:
                continue
            for _, value in group_entry_points(dist, "variant_plugins"):
                if "".join(value.split("[", 1)[0].split()) == "".join(plugin_api.split()):
                    return True
            for file in dist.files or ():
                got = file.parts
                if len(got) > len(parts) and list(got[: len(parts)]) == parts:
                    return True  # a file inside the endpoint's package
                if len(got) == len(parts) and list(got[:-1]) == parts[:-1]:
                    leaf = got[-1]
                    if leaf == parts[-1] + ".py" or (
                        leaf.startswith(parts[-1] + ".") and leaf.endswith((".so", ".pyd"))
                    ):
                        return True
    except Exception:
        return False
    return False


def _is_editable(dist_name: str) -> bool:
    """Is ``dist_name`` installed here in editable mode (PEP 660, ``direct_url.json``)?"""
    import json

    try:
        text = _metadata_module().distribution(dist_name).read_text("direct_url.json")
        return bool(text) and bool((json.loads(text).get("dir_info") or {}).get("editable"))
    except Exception:
        return False


class _PluginProvider:
    """A plugin (installed, or allowed and installed aside) seen through the provider contract."""

    def __init__(self, namespace: str, plugin_api: str, dist: str, version: str,
                 python: str, extra_paths: Sequence[str], timeout: float,
                 fallback_paths: Sequence[str] = ()) -> None:
        self.namespace = namespace
        self.packages = (dist,)
        self.plugin_apis = (plugin_api,)
        self._api = plugin_api
        self._version = version
        self._python = python
        self._paths = tuple(extra_paths)
        self._fallback = tuple(fallback_paths)
        self._timeout = timeout

    def cache_inputs(self) -> Dict[str, str]:
        # Not cached across processes: what a third-party plugin reads (files,
        # tools on PATH, its own variables) is unknown, so no key could tell
        # when its answer went stale. The resolver still asks it once per
        # process, as PEP 817 allows ("cached for the session").
        return {}

    #: (plugin-api, python, paths) -> its answer, for this process: a plugin
    #: answers the same whatever namespace asks (the metadata names the
    #: namespace), so one that hangs costs its timeout once, not once per namespace
    _answers: Dict[Tuple[str, str, Tuple[str, ...]], Any] = {}

    def supported_configs(self) -> List[FeatureConfig]:
        from .providers.plugins import run_plugins

        key = (self._api, self._python, self._paths + self._fallback)
        result = _PluginProvider._answers.get(key)
        if result is None:
            result = run_plugins([self._api], python=self._python, extra_paths=self._paths,
                                 timeout=self._timeout, fallback_paths=self._fallback)[self._api]
            _PluginProvider._answers[key] = result
        if isinstance(result, ProviderError):
            # Name the package too: it is what the user installed or allowed.
            package = self.packages[0] if self._version == "*" else f"{self.packages[0]} {self._version}"
            raise ProviderError(f"{self._api} (package {package})", result.message)
        # A PEP 817 plugin may still carry a ``namespace`` attribute; the
        # metadata key names the namespace, whatever it says (PV-12).
        return list(result.configs)


def _beyond_builtin(info: ProviderInfo, metadata: VariantMetadata, settings: SupportSettings) -> bool:
    """Does ``metadata`` use, in ``info``'s namespace, a property that the built-in
    standing in (partly) for the entry's plugin never answers? Then that plugin,
    where installed or allowed, answers instead (``Provider.partly_for``)."""
    if not info.requires:
        return False
    from .providers.builtin import get_builtin

    provider = get_builtin(info.namespace)
    partly = getattr(provider, "partly_for", ())
    if not partly:
        return False
    answered = {c.name: set(c.values) for c in provider.all_configs()}  # type: ignore[union-attr]
    if not any(
        feature not in answered or not answered[feature].issuperset(values)
        for props in metadata.variants.values()
        for feature, values in props.get(info.namespace, {}).items()
    ):
        return False
    try:
        req = _first_requirement(info.requires, settings.marker_environment)
    except (ValueError, KeyError):
        return False  # the ladder says why the entry is unusable
    return req is not None and canonicalize_name(req.name) in partly


class SupportResolver:
    """Answers, per namespace, what the target supports; memoised for the process."""

    def __init__(self, settings: SupportSettings = SupportSettings(),
                 plugin_installer: Optional[PluginInstaller] = None) -> None:
        self.settings = settings
        self.plugin_installer = plugin_installer
        self._memo: Dict[Tuple[ProviderInfo, bool], NamespaceSupport] = {}
        self._abi: Optional[AbiContext] = settings.abi

    @classmethod
    def for_profile_path(cls, path: str = "", python: str = sys.executable) -> "SupportResolver":
        """This machine's providers, or the variant profile at ``path`` where one is named.

        Raises :class:`~pip_variants.profile.InvalidProfile` for a bad profile.
        """
        if not path:
            return cls(SupportSettings(python=python))
        from .profile import load_profile

        return cls(SupportSettings(profile=load_profile(path), profile_source=path, python=python))

    # -- public -------------------------------------------------------------------

    def supported_for(self, metadata: VariantMetadata) -> Tuple[Dict[str, Dict[str, Tuple[str, ...]]], List[NamespaceSupport]]:
        """``({namespace: {feature: values}}, answers)`` for every namespace a variant of the release uses."""
        supported: Dict[str, Dict[str, Tuple[str, ...]]] = {}
        answers: List[NamespaceSupport] = []
        # Only namespaces some variant uses: a namespace listed but used by no
        # variant ranks nothing, so its provider is neither installed, run nor
        # reported (a spurious untrusted-provider warning, a strict-mode error).
        used = metadata.used_namespaces
        namespaces = [ns for ns in metadata.namespaces if ns in used] + [
            ns for ns in used if ns not in metadata.namespaces
        ]
        for ns in namespaces:
            info = metadata.provider(ns)
            if metadata.is_abi_namespace(ns):
                answer = self.abi_support(info, metadata)
            else:
                answer = self.namespace_support(info, _beyond_builtin(info, metadata, self.settings))
            answers.append(answer)
            if answer.features:
                supported[ns] = dict(answer.features)
        return supported, answers

    @property
    def abi_context(self) -> AbiContext:
        if self._abi is None:
            if self.settings.abi_factory is not None:
                self._abi = self.settings.abi_factory()
            else:
                from .abi import AbiContext

                self._abi = AbiContext.from_environment(profile=self.settings.profile)
        return self._abi

    def abi_support(self, info: ProviderInfo, metadata: VariantMetadata) -> NamespaceSupport:
        """The ABI provider for one release: per dependency, the values that fit
        its version (fixed), or every declared value (the resolver chooses)."""
        ns = info.namespace
        off = self._disabled(info)
        if off is not None:
            return off
        declared: Dict[str, List[str]] = {}
        for props in metadata.variants.values():
            for feature, declared_values in props.get(ns, {}).items():
                declared.setdefault(feature, []).extend(declared_values)
        from .abi import supported_values

        ctx = self.abi_context
        features: Dict[str, Tuple[str, ...]] = {}
        sources = []
        for feature, values in declared.items():
            source = ctx.source_for(feature)
            sources.append(source)
            features[feature] = supported_values(values, source.version, source.preferred)
        return NamespaceSupport(ns, features, "builtin:abi_dependency", None, tuple(sources))

    def namespace_support(self, info: ProviderInfo, beyond_builtin: bool = False) -> NamespaceSupport:
        """``beyond_builtin``: the release uses properties the built-in standing in
        for this entry's plugin does not answer (:func:`_beyond_builtin`)."""
        key = (info, beyond_builtin)
        if key not in self._memo:
            try:
                self._memo[key] = self._resolve(info, beyond_builtin)
            except (ValueError, KeyError) as exc:  # not packaging's classes: importing it costs
                # packaging's InvalidRequirement, UndefinedComparison, UndefinedEnvironmentName
                # (a KeyError), ...: the metadata's 'requires' or 'enable-if' is unusable. That
                # namespace is off (an error in strict mode); the rest of the release goes on.
                detail = " ".join(str(exc).split())  # packaging's text spans lines, with a caret line
                self._memo[key] = self._unusable(
                    info.namespace, f"cannot be used ({type(exc).__name__}: {detail})"
                )
        return self._memo[key]

    # -- the ladder ---------------------------------------------------------------

    def _disabled(self, info: ProviderInfo) -> Optional[NamespaceSupport]:
        ns = info.namespace
        s = self.settings
        enabled_optional = ns in s.enabled_optional or ":all:" in s.enabled_optional
        if ns in s.disabled:
            return NamespaceSupport(ns, {}, "disabled", f"variant namespace {ns!r} disabled by the user")
        if info.optional and not enabled_optional:
            return NamespaceSupport(
                ns, {}, "disabled",
                f"variant namespace {ns!r} is optional; enable it with --variant-enable {ns}",
            )
        if info.enable_if is not None and not self._marker_true(info.enable_if):
            return NamespaceSupport(ns, {}, "disabled", None)
        return None

    def _resolve(self, info: ProviderInfo, beyond_builtin: bool = False) -> NamespaceSupport:
        ns = info.namespace
        s = self.settings
        off = self._disabled(info)
        if off is not None:
            return off
        if info.builtin is not None:  # a built-in this release does not know
            return NamespaceSupport(
                ns, {}, "disabled",
                f"variants using {ns!r} skipped (built-in provider {info.builtin!r} is unknown to pip-variants)",
            )
        if info.static_properties is not None:
            return NamespaceSupport(ns, {f: v for f, v in info.static_properties if v}, "static")
        if s.profile is not None:
            if ns in s.profile:
                return NamespaceSupport(ns, dict(s.profile[ns]), "profile")
            return NamespaceSupport(
                ns, {}, "profile",
                f"variant profile {s.profile_source} says nothing about namespace {ns!r}: unsupported"
                if s.profile_notices else None,
            )
        return self._from_code(info, beyond_builtin)

    def _marker_true(self, marker: str) -> bool:
        from packaging.markers import Marker

        env = self.settings.marker_environment
        return bool(Marker(marker).evaluate(dict(env) if env else None))

    def _from_code(self, info: ProviderInfo, beyond_builtin: bool = False) -> NamespaceSupport:
        from .providers.builtin import builtin_for

        ns = info.namespace
        builtin = builtin_for(ns, info.requires, info.plugin_api, self.settings.marker_environment)
        if builtin is not None:
            if beyond_builtin:
                return self._plugin_beyond_builtin(info, builtin)
            return self._run(ns, builtin, f"builtin:{ns}")
        if info.kind == "unspecified":
            return self._untrusted(ns, f"no provider known for variant namespace {ns!r} (the metadata names none)")
        return self._from_plugin(info)

    def _from_plugin(self, info: ProviderInfo) -> NamespaceSupport:
        """Steps 5-6: the installed plugin, else the allowed one (installed now), else untrusted."""
        ns = info.namespace
        req = _first_requirement(info.requires, self.settings.marker_environment)
        if req is None:  # PROVIDERS §PV-3: one entry must survive the markers in every environment
            return self._unusable(ns, "has no usable 'requires' entry (each one is unparsable or excluded "
                                      "by its marker here)" if info.requires else "has no 'requires'")
        from .providers.plugins import default_plugin_api

        api = info.plugin_api or default_plugin_api(info.requires, self.settings.marker_environment)
        version = _installed_admitted(req)
        if version is not None:
            owner = self._endpoint_owner(info, api)
            if owner is None:
                return self._foreign_endpoint(ns, req, api, info)
            # Where this process found it: the child (python -I) does not see PYTHONPATH
            # (plugins._run_runner appends PYTHONPATH's entries after it, for the plugin's dependencies).
            plugin = _PluginProvider(ns, api, canonicalize_name(owner[0].name), owner[1] or version, self.settings.python,
                                     (), self.settings.plugin_timeout, _location_of(owner[0].name))
            return self._run(ns, plugin, f"plugin:{api}")
        allowance = _allowance(self.settings, req)
        if allowance is not None and self.plugin_installer is not None:
            requirements = self._trusted_requirements(ns, info)
            if isinstance(requirements, NamespaceSupport):
                return requirements
            try:
                path = self.plugin_installer(requirements)
            except ProviderError as exc:
                return self._failed(ns, exc)
            except Exception as exc:  # the installer runs pip: never let it take pip down
                return self._failed(ns, ProviderError(str(req), f"could not be installed: {exc}"))
            if self._endpoint_owner(info, api, path) is None:
                return self._foreign_endpoint(ns, req, api, info)
            plugin = _PluginProvider(ns, api, canonicalize_name(req.name),
                                     f"=={allowance}" if allowance else (str(req.specifier) or "*"),
                                     self.settings.python, (path,), self.settings.plugin_timeout)
            return self._run(ns, plugin, f"plugin:{api}")
        installed = _installed_version(req.name)
        pip_install = f"pip install {_shell_word(f'{req.name}{req.specifier}')}"
        if installed is not None:  # there, but not a version the release accepts
            return self._untrusted(
                ns, f"variant provider {req.name!r} for namespace {ns!r} is installed as {installed}, but the "
                    f"release needs {req.name}{req.specifier}",
                f"install such a version ('{pip_install}'), or pass "
                f"--allow-variant-plugin {canonicalize_name(req.name)} to have one installed aside",
            )
        if self.plugin_installer is None:  # pip-variants check, platform: nothing can be installed aside
            advice = (f"install it here to let pip-variants ask it ('{pip_install}'), "
                      "or check against a profile exported where it runs (--variant-profile)")
        else:
            advice = f"to allow it, pass --allow-variant-plugin {canonicalize_name(req.name)}"
        return self._untrusted(
            ns, f"variant provider {req.name!r} for namespace {ns!r} is not installed and not trusted", advice,
        )

    def _endpoint_owner(self, info: ProviderInfo, api: str, path: Optional[str] = None) -> Optional[Tuple[Any, str]]:
        """The active ``requires`` entry whose distribution ships the endpoint
        (the first one that does) and its version: installed here and admitted
        by the entry, or (``path``) among what was installed there for an allowed
        plugin. Only the default endpoint is tied to the first entry (PV-3)."""
        from packaging.requirements import Requirement

        from .requirements import active_requirements

        for text in active_requirements(info.requires, self.settings.marker_environment):
            req = Requirement(text)
            version = _installed_admitted(req) if path is None else ""
            if version is not None and _ships_endpoint(req.name, api, path):
                return req, version
        return None

    def _plugin_beyond_builtin(self, info: ProviderInfo, builtin: Any) -> NamespaceSupport:
        """The release uses properties the built-in does not answer: the plugin it
        stands in for answers where it is installed or allowed, else the built-in
        does and says what that leaves out (and why the plugin did not answer)."""
        ns = info.namespace
        req = _first_requirement(info.requires, self.settings.marker_environment)
        name = canonicalize_name(req.name) if req is not None else ns
        why = f"to have {name} itself answer, install it or pass --allow-variant-plugin {name}"
        if req is not None:
            allowed = _allowance(self.settings, req) is not None and self.plugin_installer is not None
            if allowed or _installed_admitted(req) is not None:
                answer = self._from_plugin(info)  # in strict mode its failure is an error
                if answer.source.startswith("plugin:") and not answer.notice:
                    return answer
                why = f"{name} did not answer ({answer.notice or answer.source})"
        answer = self._run(ns, builtin, f"builtin:{ns}")
        if answer.notice or not answer.features:
            return answer  # nothing here for that namespace (another CPU): the plugin would say the same
        answered = "; ".join(f"{c.name} {', '.join(c.values)}" for c in builtin.all_configs())
        return NamespaceSupport(
            ns, answer.features, answer.source,
            f"variants using {ns!r} properties beyond what pip-variants' built-in stand-in for {name} "
            f"answers ({answered}) are skipped; {why}",
        )

    def _trusted_requirements(self, ns: str, info: ProviderInfo) -> Union[List[str], NamespaceSupport]:
        """What to install for an allowed plugin: every active ``requires``
        entry, each one trusted (``--allow-variant-plugin NAME==VERSION`` pins
        it), or why nothing is installed. One untrusted package makes the whole
        entry untrusted (PV-17, PV-20): installing it runs its code (a build
        from source, a plugin module)."""
        from packaging.requirements import Requirement

        from .requirements import active_requirements

        requirements: List[str] = []
        untrusted: List[str] = []
        for text in active_requirements(info.requires, self.settings.marker_environment):
            req = Requirement(text)
            if req.url:
                return self._untrusted(
                    ns,
                    f"variant provider {req.name!r} for namespace {ns!r} is to come from {req.url}, not from "
                    f"an index: pip-variants installs plugins only from the install's own indexes",
                    "install the plugin yourself to use it",
                )
            allowance = _allowance(self.settings, req)
            if allowance is None:
                untrusted.append(canonicalize_name(req.name))
            elif allowance:  # NAME==VERSION: that version only
                if req.specifier and not req.specifier.contains(allowance, prereleases=True):
                    return self._untrusted(
                        ns,
                        f"variant provider {req.name!r} for namespace {ns!r}: only version {allowance} "
                        f"is allowed, but the metadata requires '{req}'",
                    )
                extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
                requirements.append(f"{req.name}{extras}=={allowance}")
            else:
                requirements.append(str(req))
        if untrusted:
            return self._untrusted(
                ns,
                f"variant provider for namespace {ns!r} also needs {', '.join(untrusted)}, which "
                f"{'is' if len(untrusted) == 1 else 'are'} not trusted",
                f"to allow {'it' if len(untrusted) == 1 else 'them'}, pass "
                + " ".join(f"--allow-variant-plugin {name}" for name in untrusted),
            )
        return requirements

    def _run(self, ns: str, provider, source: str) -> NamespaceSupport:
        from .providers.cache import cached_supported_configs

        try:
            configs = cached_supported_configs(provider, use_cache=self.settings.use_cache)
        except ProviderError as exc:
            return self._failed(ns, exc)
        except Exception as exc:  # a provider bug must never break pip
            return self._failed(ns, ProviderError(source, f"{type(exc).__name__}: {exc}"))
        return NamespaceSupport(ns, configs_to_supported(configs), source)

    def _foreign_endpoint(self, ns: str, req, api: str, info: ProviderInfo) -> NamespaceSupport:
        if "__main__" in "".join(api.split(":", 1)[0].split()).split("."):
            what = "names a __main__ module (importing it runs a program)"
        else:
            from .requirements import active_requirements

            names = [n for n in (_requirement_name(t) for t in active_requirements(
                info.requires, self.settings.marker_environment)) if n]
            what = (f"is not part of {req.name!r}" if len(names) < 2 else
                    f"is not part of any of its 'requires' distributions ({', '.join(names)})")
            if _is_editable(req.name):
                what += (" (an editable install lists none of its modules: register the plugin in its "
                         "'variant_plugins' entry-point group, or install it without -e)")
        return self._untrusted(ns, f"variant provider for namespace {ns!r}: plugin-api {api!r} {what}",
                               consequence="so it is not run and its variants are skipped")

    def _untrusted(self, ns: str, reason: str, hint: str = "", *,
                   consequence: str = "so its variants are skipped") -> NamespaceSupport:
        """A provider that may not run: its namespace supports nothing, or, in
        strict mode, an error (WHEEL-VARIANTS §11 #22) saying ``reason`` and ``hint``."""
        if self.settings.strict:
            raise StrictVariantError(f"{reason}; {hint}" if hint else reason)
        tail = f"; {hint}" if hint else ""
        return NamespaceSupport(ns, {}, "untrusted", f"{reason}, {consequence}{tail}")

    def _unusable(self, ns: str, what: str) -> NamespaceSupport:
        """A ``providers`` entry the metadata gets wrong (PV-3, an unreadable
        ``requires`` or ``enable-if``): its namespace supports nothing, or, in
        strict mode, an error that says how to go on without it."""
        what = f"the variant metadata's provider entry for namespace {ns!r} {what}"
        if self.settings.strict:
            raise StrictVariantError(
                f"{what}; tell the release's publisher (--variant-disable {ns} goes on without this namespace)"
            )
        return NamespaceSupport(ns, {}, "failed", f"{what}; variants using it are skipped")

    def _failed(self, ns: str, exc: ProviderError) -> NamespaceSupport:
        if self.settings.strict:
            raise StrictVariantError(str(exc))
        return NamespaceSupport(
            ns, {}, "failed", f"{exc}; variants using namespace {ns!r} are skipped"
        )
