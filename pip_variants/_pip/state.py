"""Process-wide state of the pip integration.

pip runs one command per process; H8 (``_build_package_finder``) decides
whether that command selects variants and records it here. Every wrapper
reads these flags first and passes straight through when variants are off.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Set, Tuple

__all__ = ["STATE", "ProcessState", "ChosenVariant", "selecting", "labels_enabled", "turned_off_by", "variant_option",
           "reset"]


# Plain classes, not dataclasses: every pip command imports this module, and
# generating dataclass methods costs more than the rest of it.


class ChosenVariant:
    """What the report (H9) and ``pip download`` (H10) need about a variant link."""

    __slots__ = ("label", "properties", "variants_json_url", "json_bytes", "json_text", "name_version", "abi",
                 "supported", "metadata")

    def __init__(
        self,
        label: str,
        properties: List[str],
        variants_json_url: Optional[str],
        json_bytes: Optional[bytes] = None,
        json_text: Optional[str] = None,
        name_version: Optional[Tuple[str, str]] = None,
        abi: Tuple[Any, ...] = (),
        supported: Optional[Any] = None,
        metadata: Optional[Any] = None,
    ) -> None:
        self.label = label
        self.properties = properties
        self.variants_json_url = variants_json_url
        #: the index file exactly as fetched, or ``None`` (metadata merged from wheels)
        self.json_bytes = json_bytes
        #: regenerated 0.2.0 document when there are no original bytes
        self.json_text = json_text
        #: ``(name, version)`` as written in the wheel filename
        self.name_version = name_version
        #: ``AbiRequirement`` s the resolver must honour for this wheel (H15)
        self.abi = abi
        #: what the target supports for this release (``Supported``), as
        #: computed during selection: the variant markers' values (MK-1)
        self.supported = supported
        #: the index file as read during selection (``VariantMetadata``), so
        #: that H12 compares the wheel with it without reading it again
        self.metadata = metadata


class ProcessState:
    def __init__(self) -> None:
        #: H8 enabled variant selection for this process's command
        self.enabled = False
        #: H1 accepts labelled wheel names; once on, stays on, so that candidates
        #: already collected never meet a Wheel() that rejects them
        self.labels = False
        #: pip has native variant options: pip-variants does nothing (H11)
        self.stepped_aside = False
        #: a hook failed: stock behaviour (variant wheels dropped) from now on
        self.broken = False
        self.command: Optional[str] = None
        #: ``--variant-strict`` for the command with variants on: inconsistencies are errors
        self.strict = False
        #: link URL (no fragment) -> what was chosen, for H9 / H10
        self.chosen: Dict[str, ChosenVariant] = {}
        #: link URL (no fragment) -> ``(FinderContext, label)`` of a variant wheel named by
        #: URL whose release file could not be read: H12 checks the wheel's own
        #: ``variant.json`` once pip has downloaded it (:func:`.factory.check_downloaded_wheel`)
        self.unchecked_urls: Dict[str, Tuple[Any, str]] = {}
        #: (canonical name, release key) -> the label a chosen-variant line named
        self.announced: Dict[Tuple[str, str], str] = {}
        #: some chosen wheel carries ABI requirements (H15/H16 act only then)
        self.abi_links = False
        #: (canonical name, version) -> {dependency: ABI values of its builds} (H17)
        self.abi_builds: Dict[Tuple[str, str], Dict[str, Set[str]]] = {}
        #: the command's :class:`pip_variants.abi.AbiContext` (H8 makes it, H14 fills it)
        self.abi_context: Optional[Any] = None
        #: H8's maker of that context (set with the engine, so a release without an ABI
        #: namespace never imports abi.py)
        self.abi_factory: Optional[Any] = None
        #: H14's ``(installed reader, named projects, all changing)`` for that context
        self.abi_binding: Optional[Tuple[Any, List[str], bool, List[str]]] = None
        #: H14: the projects the command installs itself (not those only constrained)
        self.abi_required: Set[str] = set()
        #: (canonical name, version) -> a release H4 left for the resolver to
        #: settle when it gets there (:mod:`.deferred`)
        self.deferred: Dict[Tuple[str, str], Any] = {}
        #: variant metadata -> what the target supports for it (``Supported``), or
        #: ``None`` for "every declared value": the command's engine (H8), nothing
        #: where variants are off for it, else this machine's providers (set on
        #: first use); installed wheels' variant markers see what selection sees
        self.target_support: Optional[Callable[[Any], Any]] = None
        #: pip 23.2-24.0: (canonical name, version) -> dependencies with variant
        #: markers a warning already named (left out: pip cannot read them)
        self.unread_markers_said: Dict[Tuple[str, str], Set[str]] = {}
        #: variants are off for this command by option (``--no-variants``, pip.conf):
        #: labelled links are dropped, and what that leaves out is said (BC-1, :mod:`.variants_off`)
        self.off_by_option = False
        #: ... and it was pip's configuration that said so (the message names it)
        self.no_variants_in_configuration = False
        #: cross-target options without ``--variant`` or a profile: the warning that
        #: variant wheels are ignored, said once one is met (H2, H6), not before
        self.cross_target_note: Optional[str] = None
        #: ... and the options that made it (``--platform``, ...), for a variant wheel named directly
        self.cross_target: Tuple[str, ...] = ()
        #: canonical names with variant wheels in a find-links folder scanned under that note
        self.cross_target_projects: Set[str] = set()
        #: canonical name -> the versions labelled wheels offered under ``off_by_option``
        self.left_out_by_no_variants: Dict[str, Set[Any]] = {}
        #: (canonical name, a version's identity) -> the spelling seen first (:func:`release_key`)
        self.spellings: Dict[Tuple[str, Tuple[Any, ...]], str] = {}
        #: canonical name -> label as the ``PIP_VARIANT`` variable names them: messages
        #: about such a choice name the variable, which the user may have forgotten
        self.forced_by_variable: Dict[str, str] = {}
        #: the same for pip's configuration files
        self.forced_from_config: Dict[str, str] = {}
        #: pip commands that built a finder in this process (a program may run several)
        self.commands_seen = 0
        #: ... and of those, the ones inside pip's main() that have not ended
        self.commands_running = 0
        #: resolutions running (pip 26's in-process build dependencies nest one)
        self.resolve_depth = 0


STATE = ProcessState()


def selecting() -> bool:
    """Do the selection hooks act in this process?"""
    s = STATE
    return s.enabled and not s.broken and not s.stepped_aside


def labels_enabled() -> bool:
    s = STATE
    return s.labels and not s.stepped_aside


def turned_off_by() -> Tuple[str, str]:
    """For a message where variants are off by option: what turned them off, and
    the way back (``"--no-variants"``, ``"Drop --no-variants"``)."""
    if STATE.command == "lock":
        return "pip lock cannot record wheel variants yet", "Use pip install"
    if STATE.no_variants_in_configuration:
        return "no-variants in pip's configuration", "Unset no-variants"
    return "--no-variants", "Drop --no-variants"


def variant_option(name: str, label: str) -> str:
    """How the user asked for build ``label`` of ``name``: ``--variant name=label``,
    ``PIP_VARIANT="name=label"`` when that variable names it, or the pip.conf
    setting when the option was not typed."""
    if STATE.forced_by_variable.get(name) == label:
        return f'PIP_VARIANT="{name}={label}"'
    if STATE.forced_from_config.get(name) == label:
        return f"variant = {name}={label} (pip's configuration)"
    return f"--variant {name}={label}"


def release_key(canonical: str, version: Any) -> str:
    """The text a release of project ``canonical`` is keyed by, from a parsed ``Version``.

    Versions pip counts as one release share it: ``1.0`` and ``1.0.0`` compare
    equal (WHEEL-VARIANTS §3.1: an index file belongs to the wheels whose
    version equals its own), so both get the project's spelling seen first,
    which messages show. Every key of a release (index files, H4's outcomes,
    deferred releases, ABI builds) is made here.
    """
    release = version.release
    if release[-1:] == (0,):
        trimmed = list(release)
        while len(trimmed) > 1 and trimmed[-1] == 0:
            trimmed.pop()
        release = tuple(trimmed)
    key = (canonical, (version.epoch, release, version.pre, version.post, version.dev, version.local))
    text = STATE.spellings.get(key)
    if text is None:  # setdefault: one spelling wins, whichever thread (look-ahead) gets here first
        text = STATE.spellings.setdefault(key, str(version))
    return text


def reset() -> None:
    """Back to a fresh process (tests, ``uninstall()``)."""
    ProcessState.__init__(STATE)  # in place: other modules hold STATE
