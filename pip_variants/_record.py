"""``@record``: a frozen dataclass whose methods are built without ``exec``.

``@dataclass(frozen=True)`` compiles source text for each generated method
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ...):
0.4-0.6 ms per class on Python 3.12, paid by every pip process that meets a
variant release (about 15 such classes sit on that path). ``record`` adds
closures with the same behaviour as the generated methods: frozen, equal and
hashed by field values in field order, ordered like tuples with
``order=True``, the same ``repr``. The class stays a dataclass for
:func:`dataclasses.replace`, ``fields`` and ``asdict``: ``record`` fills in
``__dataclass_fields__`` itself, since even a :func:`dataclasses.dataclass` that
generates nothing checks every annotation for ``ClassVar`` and ``InitVar``
(about three quarters of what a class cost), and makes its
:class:`dataclasses.Field` objects only when something asks for them (the
record's own methods never do). Where ``dataclasses`` lacks the
private marker this relies on, or keeps annotations lazily (Python 3.14+
without ``from __future__ import annotations``), ``dataclass()`` collects them.
Supported: plain fields with defaults or ``default_factory``, no ``__post_init__``,
no ``InitVar``/``ClassVar``, no ``__slots__``, no subclassing of a record.
"""

from __future__ import annotations

import dataclasses
import threading
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple, TypeVar

__all__ = ["record"]

T = TypeVar("T", bound=type)

_MISSING = dataclasses.MISSING
# What dataclasses.fields() keeps: a private marker, hence the guard (and the fallback).
_FIELD = getattr(dataclasses, "_FIELD", None)
_NOT_FIELDS = ("ClassVar", "InitVar", "KW_ONLY")
#: held while a class's ``Field`` table is built (:class:`_LazyFields`)
_BUILDING = threading.Lock()


if TYPE_CHECKING:  # type checkers are told what it behaves as: a frozen dataclass
    from typing_extensions import dataclass_transform

    @dataclass_transform(frozen_default=True)
    def record(cls: Any = None, *, order: bool = False) -> Any: ...

else:

    def record(cls: Optional[T] = None, *, order: bool = False) -> Any:
        """``@record`` / ``@record(order=True)``: ``@dataclass(frozen=True[, order=True])``."""
        if cls is None:
            return lambda c: _build(c, order)
        return _build(cls, order)


class _LazyFields:
    """``__dataclass_fields__`` built on first access: :func:`dataclasses.fields`,
    ``replace`` and ``asdict`` read it, the record's own methods never do, and
    a :class:`dataclasses.Field` per field is most of what a class cost."""

    def __init__(self, cls: Any, plan: Tuple[Tuple[str, Any, Any], ...]) -> None:
        self._cls, self._plan = cls, plan

    def __get__(self, obj: Any, owner: Any = None) -> Dict[str, dataclasses.Field]:
        # One table per class, whichever thread asks first (the look-ahead reads
        # metadata in threads): the others wait and get that same table.
        with _BUILDING:
            built = self._cls.__dict__.get("__dataclass_fields__")
            if built is not self:
                return built
            fields: Dict[str, dataclasses.Field] = {}
            for name, annotation, spec in self._plan:
                if not isinstance(spec, dataclasses.Field):
                    spec = dataclasses.field(default=spec)
                spec.name, spec.type = name, annotation
                spec._field_type = _FIELD
                if getattr(spec, "kw_only", False) is _MISSING:  # 3.10+: as dataclass() settles it
                    spec.kw_only = False
                fields[name] = spec
            self._cls.__dataclass_fields__ = fields  # from now on a plain attribute, as dataclass sets it
            return fields


class _Plain:
    """What :func:`_collect` needs of a field: its :class:`dataclasses.Field`,
    or these stand-ins for a plain default."""

    __slots__ = ("name", "default", "default_factory")
    init = repr = compare = True
    hash = None

    def __init__(self, name: str, default: Any) -> None:
        self.name, self.default, self.default_factory = name, default, _MISSING


def _collect(cls: Any) -> Tuple[Any, ...]:
    """The fields ``dataclass`` would collect from ``cls``'s own annotations,
    their defaults set on the class as it sets them; the ``Field`` objects
    themselves are made when asked for (:class:`_LazyFields`)."""
    plan = []
    specs = []
    for name, annotation in cls.__dict__["__annotations__"].items():
        # A string, or an object whose repr names it (typing.ClassVar[int])
        text = annotation if isinstance(annotation, str) else repr(annotation)
        if text.strip("'\" ").split("[", 1)[0].rpartition(".")[2] in _NOT_FIELDS:
            raise TypeError(f"{cls.__qualname__}: @record supports plain fields only")
        default = cls.__dict__.get(name, _MISSING)
        if isinstance(default, dataclasses.Field):
            spec: Any = default
            if spec.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
            spec.name = name
            plan.append((name, annotation, spec))
        else:
            if default.__class__ in (list, dict, set):
                raise ValueError(f"mutable default {type(default)} for field {name} is not "
                                 "allowed: use default_factory")
            spec = _Plain(name, default)
            plan.append((name, annotation, default))
        specs.append(spec)
    cls.__dataclass_fields__ = _LazyFields(cls, tuple(plan))
    cls.__match_args__ = tuple(name for name, _, _ in plan)  # type: ignore[misc]  # mypy: a special name
    return tuple(specs)


def _key_getter(names: Tuple[str, ...]) -> Callable[[Any], Tuple[Any, ...]]:
    """The field values named, as a tuple (``attrgetter`` returns a bare value for one name)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        single = attrgetter(names[0])
        return lambda obj: (single(obj),)
    return lambda obj: ()


def _build(cls: T, order: bool) -> T:
    had_doc = cls.__dict__.get("__doc__") is not None
    if not had_doc:
        cls.__doc__ = "-"  # dataclass would otherwise run inspect.signature for it
    # Annotations kept lazily (Python 3.14+ without the __future__ import) are
    # dataclass's to read.
    if _FIELD is None or "__annotations__" not in cls.__dict__:
        dataclasses.dataclass(cls, init=False, repr=False, eq=False)
        fields = dataclasses.fields(cls)
    else:
        fields = _collect(cls)
    if "__post_init__" in cls.__dict__ or "__slots__" in cls.__dict__:
        raise TypeError(f"{cls.__qualname__}: @record supports plain fields only")
    names_list, compared_list, hashed_list, shown_list = [], [], [], []
    defaults: Dict[str, Any] = {}
    factories: Dict[str, Callable[[], Any]] = {}
    for f in fields:  # one pass: this runs for every record class a pip process imports
        name = f.name
        if not f.init:
            raise TypeError(f"{cls.__qualname__}: @record supports plain fields only")
        names_list.append(name)
        if f.compare:
            compared_list.append(name)
        if f.compare if f.hash is None else f.hash:
            hashed_list.append(name)
        if f.repr:
            shown_list.append(name)
        if f.default is not _MISSING:
            defaults[name] = f.default
        if f.default_factory is not _MISSING:
            factories[name] = f.default_factory
    names: Tuple[str, ...] = tuple(names_list)
    name_set = frozenset(names)
    compared, hashed, shown = tuple(compared_list), tuple(hashed_list), tuple(shown_list)
    qualname = cls.__qualname__
    record_cls: Any = cls  # for super() below: mypy accepts no TypeVar there
    if not had_doc:
        cls.__doc__ = f"{cls.__name__}({', '.join(names)})"

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # Straight into the instance dict, as object.__setattr__ would put each
        # field (records have no slots and no field descriptors), in one call.
        if not kwargs and len(args) == len(names):  # every field given in order: the common call
            self.__dict__.update(zip(names, args))
            return
        if len(args) > len(names):
            raise TypeError(f"{qualname}.__init__() takes {len(names) + 1} positional arguments "
                            f"but {len(args) + 1} were given")
        given = dict(zip(names, args))
        if kwargs:
            if not name_set.issuperset(kwargs) or (given and not kwargs.keys().isdisjoint(given)):
                for key in kwargs:  # the first bad argument, in the order given, as dataclass says
                    if key not in name_set:
                        raise TypeError(f"{qualname}.__init__() got an unexpected keyword argument {key!r}")
                    if key in given:
                        raise TypeError(f"{qualname}.__init__() got multiple values for argument {key!r}")
            given.update(kwargs)
        if len(given) == len(names):  # every field given: in field order, as dataclass sets them
            self.__dict__.update([(name, given[name]) for name in names])
            return
        values: Dict[str, Any] = {}
        for name in names:
            if name in given:
                values[name] = given[name]
            elif name in defaults:
                values[name] = defaults[name]
            elif name in factories:
                values[name] = factories[name]()
            else:
                raise TypeError(f"{qualname}.__init__() missing required argument: {name!r}")
        self.__dict__.update(values)

    _key = _key_getter(compared)
    _hash_key = _key_getter(hashed)

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{n}={getattr(self, n)!r}" for n in shown)
        return f"{self.__class__.__qualname__}({inner})"

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return _key(self) == _key(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(_hash_key(self))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in name_set:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(record_cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in name_set:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(record_cls, self).__delattr__(name)

    methods: Dict[str, Any] = {
        "__init__": __init__, "__repr__": __repr__, "__eq__": __eq__, "__hash__": __hash__,
        "__setattr__": __setattr__, "__delattr__": __delattr__,
    }
    if order:
        def _compare(op: Callable[[Any, Any], bool], name: str) -> Callable[[Any, Any], Any]:
            def method(self: Any, other: Any) -> Any:
                if other.__class__ is self.__class__:
                    return op(_key(self), _key(other))
                return NotImplemented

            method.__name__ = name
            return method

        methods["__lt__"] = _compare(lambda a, b: a < b, "__lt__")
        methods["__le__"] = _compare(lambda a, b: a <= b, "__le__")
        methods["__gt__"] = _compare(lambda a, b: a > b, "__gt__")
        methods["__ge__"] = _compare(lambda a, b: a >= b, "__ge__")
    for name, method in methods.items():
        if name in cls.__dict__ and cls.__dict__[name] is not None:
            # As dataclass does: a method the class body defines is kept.
            continue
        method.__qualname__ = f"{qualname}.{name}"
        setattr(cls, name, method)
    return cls
