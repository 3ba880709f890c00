"""mem.tuples.NamedTuple behaves as typing.NamedTuple for every use the code makes of it."""

from __future__ import annotations

import copy
import pickle
import typing

import pytest

from mem import tuples


class Cheap(tuples.NamedTuple):
    """A record."""

    id: int
    path: str
    size: int = 0
    note: str | None = None

    @property
    def label(self) -> str:
        return f"{self.path}#{self.id}"

    def grown(self, by: int) -> Cheap:
        return self._replace(size=self.size + by)


class Typed(typing.NamedTuple):
    """A record."""

    id: int
    path: str
    size: int = 0
    note: str | None = None

    @property
    def label(self) -> str:
        return f"{self.path}#{self.id}"

    def grown(self, by: int) -> Typed:
        return self._replace(size=self.size + by)


CALLS = [
    ((1, "a"), {}),
    ((1, "a", 2), {}),
    ((1, "a", 2, "n"), {}),
    ((1,), {"path": "a"}),
    ((), {"id": 1, "path": "a", "note": "n"}),
    ((1, "a"), {"size": 3}),
]
BAD_CALLS = [
    ((), {}),
    ((1,), {}),
    ((1, "a", 2, "n", 5), {}),
    ((1, "a"), {"id": 2}),
    ((1, "a"), {"colour": "red"}),
    ((), {"path": "a"}),
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_construction_gives_the_same_tuple(
    args: tuple[object, ...], kwargs: dict[str, object]
) -> None:
    cheap, typed = Cheap(*args, **kwargs), Typed(*args, **kwargs)  # type: ignore[arg-type]
    assert tuple(cheap) == tuple(typed)
    assert repr(cheap) == repr(typed).replace("Typed", "Cheap")
    assert cheap == typed and hash(cheap) == hash(typed)
    assert cheap._asdict() == typed._asdict()
    assert (cheap.id, cheap.path, cheap.size, cheap.note) == (
        typed.id,
        typed.path,
        typed.size,
        typed.note,
    )
    assert cheap.label == typed.label and cheap.grown(2) == typed.grown(2)


@pytest.mark.parametrize(("args", "kwargs"), BAD_CALLS)
def test_wrong_arguments_fail_alike(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    with pytest.raises(TypeError):
        Typed(*args, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Cheap(*args, **kwargs)  # type: ignore[arg-type]


def test_class_attributes_match() -> None:
    assert Cheap._fields == Typed._fields == ("id", "path", "size", "note")
    assert Cheap._field_defaults == Typed._field_defaults == {"size": 0, "note": None}
    assert Cheap.__match_args__ == Typed.__match_args__
    assert Cheap.__doc__ == Typed.__doc__ == "A record."
    assert Cheap.__mro__[1:] == Typed.__mro__[1:] == (tuple, object)
    assert Cheap.__module__ == Typed.__module__
    assert Cheap.__annotations__.keys() == Typed.__annotations__.keys()
    assert Cheap._make([1, "a", 2, None]) == Typed._make([1, "a", 2, None])
    with pytest.raises(TypeError):
        Cheap._make([1, "a"])
    with pytest.raises(ValueError):
        Cheap(1, "a")._replace(colour="red")  # type: ignore[call-arg]


def test_fields_are_read_only_and_instances_have_no_dict() -> None:
    cheap = Cheap(1, "a")
    with pytest.raises(AttributeError):
        cheap.id = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        cheap.colour = "red"  # type: ignore[attr-defined]


def test_copies_and_pickles_round_trip() -> None:
    cheap = Cheap(1, "a", 2, "n")
    assert copy.copy(cheap) == cheap and copy.deepcopy(cheap) == cheap
    assert pickle.loads(pickle.dumps(cheap)) == cheap
    assert type(pickle.loads(pickle.dumps(cheap))) is Cheap


def test_a_default_before_a_required_field_is_refused_as_typing_does() -> None:
    with pytest.raises(TypeError, match="Non-default namedtuple field"):

        class Bad(tuples.NamedTuple):
            size: int = 0
            path: str


def test_namedtuple_attributes_cannot_be_overwritten() -> None:
    with pytest.raises(AttributeError):

        class Bad(tuples.NamedTuple):
            id: int

            def _asdict(self) -> dict[str, object]:
                return {}


def test_a_class_made_many_times_keeps_behaving_the_same() -> None:
    # After COMPILE_AFTER instances a class switches to a compiled constructor.
    class Busy(tuples.NamedTuple):
        id: int
        path: str
        size: int = 0
        note: str | None = None

    for number in range(tuples.COMPILE_AFTER + 1):
        assert Busy(number, "a") == (number, "a", 0, None)
    for args, kwargs in CALLS:
        busy, typed = Busy(*args, **kwargs), Typed(*args, **kwargs)  # type: ignore[arg-type]
        assert busy == typed and repr(busy) == repr(typed).replace("Typed", "Busy")
    for args, kwargs in BAD_CALLS:
        with pytest.raises(TypeError):
            Busy(*args, **kwargs)  # type: ignore[arg-type]
    assert type(Busy(1, "a")) is Busy and Busy(1, "a")._replace(size=2).size == 2
