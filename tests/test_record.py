"""``@record`` behaves as ``@dataclass(frozen=True[, order=True])``."""

from __future__ import annotations

import dataclasses
import pickle
from typing import Mapping, Tuple

import pytest

from pip_variants._record import record


@record(order=True)
class Point:
    x: str
    y: str = "b"
    z: Tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, order=True)
class DcPoint:
    x: str
    y: str = "b"
    z: Tuple[str, ...] = ()


@record
class Holder:
    """Holds things."""

    name: str
    items: Mapping[str, int] = dataclasses.field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.items)


def test_init_defaults_and_keywords() -> None:
    assert Point("a") == Point(x="a", y="b", z=())
    assert Point("a", z=("q",)).z == ("q",)
    h1, h2 = Holder("n"), Holder("n")
    assert h1.items == {} and h1.items is not h2.items
    assert Holder("n", {"a": 1}).size == 1
    for bad in (lambda: Point(), lambda: Point("a", "b", (), 4), lambda: Point("a", x="b"),
                lambda: Point("a", w=1)):
        with pytest.raises(TypeError):
            bad()


def test_every_field_positional_is_the_same_object() -> None:
    # the common call takes a shorter path; it must build the very same thing
    full, keywords = Point("a", "c", ("q",)), Point(z=("q",), y="c", x="a")
    assert full == keywords and vars(full) == vars(keywords) and list(vars(full)) == ["x", "y", "z"]
    assert Holder("n", {"a": 1}).items == {"a": 1}


def test_same_behaviour_as_dataclass() -> None:
    a, b = Point("a", "c"), Point("a", "d")
    da, db = DcPoint("a", "c"), DcPoint("a", "d")
    assert repr(a) == repr(da).replace("DcPoint", "Point")
    assert hash(a) == hash(da)
    assert (a < b, a <= b, a > b, a >= b) == (da < db, da <= db, da > db, da >= db)
    assert sorted([b, a]) == [a, b]
    assert a != da and a.__eq__(da) is NotImplemented
    assert Point("a") in {Point("a")}
    with pytest.raises(TypeError):
        _ = a < da
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.x = "z"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del a.x
    with pytest.raises(TypeError):
        hash(Holder("n"))  # a dict field: unhashable, as with dataclass


def test_still_a_dataclass() -> None:
    a = Point("a", "c")
    assert dataclasses.is_dataclass(a)
    assert [f.name for f in dataclasses.fields(a)] == ["x", "y", "z"]
    assert dataclasses.replace(a, y="q") == Point("a", "q")
    assert dataclasses.asdict(Holder("n", {"k": 1})) == {"name": "n", "items": {"k": 1}}
    assert pickle.loads(pickle.dumps(a)) == a
    assert Holder.__doc__ == "Holds things."
    assert Point.__doc__ == "Point(x, y, z)"
    assert list(vars(Point("a", z=(), y="q"))) == ["x", "y", "z"]


def test_collected_fields_match_what_dataclass_collects() -> None:
    for ours, theirs in ((Point, DcPoint),):
        mine = [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare,
                 getattr(f, "kw_only", None)) for f in dataclasses.fields(ours)]
        stock = [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare,
                  getattr(f, "kw_only", None)) for f in dataclasses.fields(theirs)]
        assert mine == stock
    expected = ("x", "y", "z")
    assert Point.__match_args__ == getattr(DcPoint, "__match_args__", expected) == expected
    assert Point.y == "b" and "items" not in Holder.__dict__  # as dataclass leaves them


def test_what_a_record_refuses() -> None:
    with pytest.raises(TypeError, match="plain fields only"):
        @record
        class WithClassVar:
            kind: "ClassVar[str]" = "x"  # noqa: F821

    with pytest.raises(TypeError, match="plain fields only"):
        @record
        class WithKwOnly:
            _: "KW_ONLY"  # noqa: F821
            name: str

    with pytest.raises(ValueError, match="default_factory"):
        @record
        class WithListDefault:
            items: list = []  # noqa: RUF012

    with pytest.raises(TypeError, match="plain fields only"):
        @record
        class WithSlots:  # fields live in the instance dict
            __slots__ = ("name",)
            name: str


def test_annotation_objects_are_checked_too() -> None:
    import typing

    with pytest.raises(TypeError, match="plain fields only"):
        annotations = {"kind": typing.ClassVar[int]}
        record(type("Evaluated", (), {"__annotations__": annotations, "kind": 1}))
    Plain = record(type("Plain", (), {"__annotations__": {"n": int}, "n": 1}))
    assert Plain() == Plain(1) and [f.type for f in dataclasses.fields(Plain)] == [int]


def test_a_class_without_own_annotations_goes_through_dataclass() -> None:
    Empty = record(type("Empty", (), {"__doc__": "nothing"}))
    assert dataclasses.fields(Empty) == () and Empty() == Empty()


def test_field_objects_are_made_when_first_asked_for() -> None:
    @record
    class Late:
        name: str
        items: Mapping[str, int] = dataclasses.field(default_factory=dict)

    assert not isinstance(Late.__dict__["__dataclass_fields__"], dict)  # nothing made yet
    assert Late("a") == Late("a", {}) and repr(Late("a")).endswith("Late(name='a', items={})")
    fields = dataclasses.fields(Late("a"))
    assert [(f.name, f.type, f.default_factory) for f in fields] == [
        ("name", "str", dataclasses.MISSING), ("items", "Mapping[str, int]", dict)]
    assert isinstance(Late.__dict__["__dataclass_fields__"], dict)  # kept, as dataclass keeps it
    assert dataclasses.fields(Late) == fields


def test_argument_errors_name_the_argument() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'w'"):
        Point("a", y="b", w=1)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        Point("a", y="b", x="c")
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        Point("a", x="c", w=1)  # the first bad one, in the order given
    with pytest.raises(TypeError, match="missing required argument: 'x'"):
        Point(y="b", z=())
    assert list(vars(Point(z=("q",), x="a", y="b"))) == ["x", "y", "z"]


def test_threads_asking_first_get_one_table(monkeypatch) -> None:
    import threading
    import time

    @record
    class Slow:
        a: int = 1
        b: str = "x"

    made = dataclasses.field

    def slow_field(**kwargs):  # widens the window in which a second thread could build its own
        time.sleep(0.01)
        return made(**kwargs)

    monkeypatch.setattr(dataclasses, "field", slow_field)
    start = threading.Barrier(4)
    tables = []

    def ask() -> None:
        start.wait()
        tables.append(dataclasses.fields(Slow))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(tables) == 4
    assert all(a is b for table in tables[1:] for a, b in zip(tables[0], table))
