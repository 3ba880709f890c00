"""`typing.NamedTuple`'s class syntax, without importing typing or compiling per class.

A warm `mem recall` creates some twenty NamedTuple classes while it starts. The standard
one imports `typing` (about 3 ms) and compiles a constructor and a ForwardRef per
field for every class (0.2-0.4 ms each), several times what the query itself costs. This
builds the same kind of class from the annotated class body with one generic constructor:
a tuple subclass with the same fields, defaults, properties, `_make`, `_replace`,
`_asdict`, `_fields`, `_field_defaults`, repr, equality, pickling and body members
(tests/test_named_tuples.py compares it with typing's, case by case). A class that goes on
to make many instances (a build's records) then takes collections.namedtuple's compiled
constructor, as fast as typing's. Type checkers see `typing.NamedTuple` itself, so every
class is checked as before.
"""

from __future__ import annotations

from collections import _tuplegetter, namedtuple  # type: ignore[attr-defined]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any
    from typing import NamedTuple as NamedTuple

# Instances made through the generic constructor before a class compiles its own: a recall
# makes a few of most classes, a build thousands of some.
COMPILE_AFTER = 256

# What the class body may not define (typing's rule), and what it does not copy.
_PROHIBITED = frozenset(
    {
        "__new__",
        "__init__",
        "__slots__",
        "__getnewargs__",
        "_fields",
        "_field_defaults",
        "_make",
        "_replace",
        "_asdict",
        "_source",
    }
)
_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})


def _bind(
    cls: type,
    fields: tuple[str, ...],
    defaults: dict[str, Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[Any, ...]:
    """Positional and keyword arguments as the field values, with Python's own errors."""
    name = cls.__name__
    if len(args) > len(fields):
        raise TypeError(
            f"{name}.__new__() takes {len(fields) + 1} positional arguments"
            f" but {len(args) + 1} were given"
        )
    for given in fields[: len(args)]:
        if given in kwargs:
            raise TypeError(f"{name}.__new__() got multiple values for argument '{given}'")
    values = list(args)
    missing = []
    for field in fields[len(args) :]:
        if field in kwargs:
            values.append(kwargs.pop(field))
        elif field in defaults:
            values.append(defaults[field])
        else:
            missing.append(field)
    if kwargs:
        unexpected = next(iter(kwargs))
        raise TypeError(f"{name}.__new__() got an unexpected keyword argument '{unexpected}'")
    if missing:
        raise TypeError(
            f"{name}.__new__() missing {len(missing)} required positional"
            f" argument{'s' if len(missing) > 1 else ''}: {', '.join(map(repr, missing))}"
        )
    return tuple(values)


def _build(typename: str, namespace: dict[str, Any]) -> type:
    annotations: dict[str, Any] = namespace.get("__annotations__", {})
    fields = tuple(annotations)
    defaults: dict[str, Any] = {}
    for field in fields:
        if field in namespace:
            defaults[field] = namespace[field]
        elif defaults:
            names = ", ".join(defaults)
            raise TypeError(
                f"Non-default namedtuple field {field} cannot follow default"
                f" field{'s' if len(defaults) > 1 else ''} {names}"
            )
    module = namespace["__module__"]
    count = len(fields)
    required = count - len(defaults)
    tail = tuple(defaults.values())
    tuple_new = tuple.__new__

    calls = 0

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == COMPILE_AFTER:
            # Many instances to come (a build, a long query): from now on the class takes
            # collections.namedtuple's compiled constructor, which binds arguments in C.
            compiled = vars(namedtuple(typename, fields, defaults=tail, module=module))
            type.__setattr__(built, "__new__", compiled["__new__"])
        if not kwargs:
            given = len(args)
            if given == count:
                return tuple_new(cls, args)
            if required <= given < count:
                return tuple_new(cls, args + tail[given - required :])
        return tuple_new(cls, _bind(cls, fields, defaults, args, kwargs))

    def _make(cls: type, iterable: Iterable[Any]) -> Any:
        result: tuple[Any, ...] = tuple_new(cls, iterable)
        if len(result) != count:
            raise TypeError(f"Expected {count} arguments, got {len(result)}")
        return result

    def _replace(self: tuple[Any, ...], /, **changes: Any) -> Any:
        result = self._make(map(changes.pop, fields, self))  # type: ignore[attr-defined]
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return result

    def __repr__(self: tuple[Any, ...]) -> str:
        shown = ", ".join(f"{field}={value!r}" for field, value in zip(fields, self, strict=True))
        return f"{self.__class__.__name__}({shown})"

    def _asdict(self: tuple[Any, ...]) -> dict[str, Any]:
        return dict(zip(fields, self, strict=True))

    def __getnewargs__(self: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(self)

    body: dict[str, Any] = {
        "__doc__": f"{typename}({', '.join(fields)})",
        "__slots__": (),
        "_fields": fields,
        "_field_defaults": defaults,
        "__new__": __new__,
        "_make": classmethod(_make),
        "_replace": _replace,
        "__repr__": __repr__,
        "_asdict": _asdict,
        "__getnewargs__": __getnewargs__,
        "__match_args__": fields,
        "__module__": namespace["__module__"],
        "__annotations__": annotations,
    }
    for index, field in enumerate(fields):
        body[field] = _tuplegetter(index, f"Alias for field number {index}")
    for key, value in namespace.items():
        if key in _PROHIBITED:
            raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
        if key not in _SPECIAL and key not in fields:
            body[key] = value
    if "__qualname__" not in namespace:
        body["__qualname__"] = typename
    built = type(typename, (tuple,), body)
    return built


class _Meta(type):
    def __new__(cls, typename: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        if bases != (_Base,):
            raise TypeError("can only inherit from a NamedTuple type")
        return _build(typename, namespace)


_Base = type.__new__(_Meta, "NamedTuple", (), {})


if not TYPE_CHECKING:

    def NamedTuple(typename, fields=None, /, **kwargs):  # noqa: N802 - typing's name
        raise TypeError("mem.tuples.NamedTuple supports the class syntax only")

    # `class X(NamedTuple)` names a function; like typing, it stands for the real base.
    NamedTuple.__mro_entries__ = lambda bases: (_Base,)
