"""Cheap construction for the engine's frozen, slotted dataclasses (events, actions, ballots).

A frozen dataclass's generated ``__init__`` stores every field through ``object.__setattr__``,
about five times the cost of a plain slot store. A random full game builds several hundred such
values (every event, every ballot, every legal action listed), and that cost was a quarter of its
time. :func:`quick_frozen` gives such a class a generated ``__new__`` that fills the slots of a
private *builder* class with the same layout (same base class, same slots, no freezing
``__setattr__``) by plain stores, then gives the object its real class.

From the outside nothing changes: the same fields, defaults and default factories, ``__eq__``,
``__hash__``, ``__repr__``, :func:`dataclasses.replace`, copying and pickling, and
``FrozenInstanceError`` on any assignment.

>>> from dataclasses import FrozenInstanceError, dataclass, field
>>> @quick_frozen
... @dataclass(frozen=True, slots=True)
... class Point:
...     x: int
...     y: int = 0
...     tags: list[str] = field(default_factory=list)
>>> p = Point(1, tags=["a"])
>>> p, p == Point(1, 0, ["a"]), type(p) is Point
(Point(x=1, y=0, tags=['a']), True, True)
>>> try:
...     p.x = 2
... except FrozenInstanceError:
...     print("frozen")
frozen
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=type)

_NO_VALUE = object()  # marks a field whose default comes from its default_factory


#: called with (class, field name, value, the classes the field's annotation admits) when a
#: checked field gets a value whose exact type is not one of them; it raises, or returns to
#: accept the value (a subclass, say)
FieldCheck = Callable[[type, str, Any, tuple[type, ...]], None]


def allowed_types(hint: Any) -> tuple[type, ...]:
    """The classes an annotation admits: ``str | None`` -> ``(str, NoneType)``.

    >>> allowed_types(typing.Optional[int]), allowed_types(list[str])
    ((<class 'int'>, <class 'NoneType'>), (<class 'list'>,))
    """
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return tuple(t for arg in typing.get_args(hint) for t in allowed_types(arg))
    if hint is None or hint is type(None):
        return (type(None),)
    origin = typing.get_origin(hint)  # list[str] -> list: values are checked, not their items
    return (origin if isinstance(origin, type) else hint,)


def field_types(cls: type) -> dict[str, tuple[type, ...]]:
    """Each dataclass field of ``cls`` and the classes its annotation admits."""
    module = sys.modules.get(cls.__module__)
    hints = typing.get_type_hints(cls, vars(module) if module else None)
    return {f.name: allowed_types(hints[f.name]) for f in dataclasses.fields(cls)}


@typing.overload
def quick_frozen(cls: T, *, check: FieldCheck | None = None) -> T: ...


@typing.overload
def quick_frozen(cls: None = None, *, check: FieldCheck | None = None) -> Callable[[T], T]: ...


def quick_frozen(cls: T | None = None, *, check: FieldCheck | None = None) -> Any:
    """Class decorator (put it above ``@dataclass(frozen=True, slots=True)``): cheap ``__new__``.

    With ``check``, every value is type-checked as it is stored: a value whose exact type is one
    its field's annotation names passes at the cost of one set lookup; any other goes to
    ``check(cls, name, value, allowed)``, which raises to refuse it. So an ill-typed value
    object never exists, and code that receives one need not look again.

    The decorated class may not be subclassed (a subclass would inherit a ``__new__`` built for
    the parent's fields).
    """
    if cls is None:
        return lambda c: _quick_frozen(c, check)
    return _quick_frozen(cls, check)


def _quick_frozen(cls: T, check: FieldCheck | None) -> T:
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: quick_frozen needs @dataclass(frozen=True, slots=True)")
    fields = dataclasses.fields(cls)
    # what the generated __new__ does not do: fail loudly rather than build a different object
    if hasattr(cls, "__post_init__") or any(
        not f.init or f.kw_only or f.name in {"cls", "self"} or f.name.startswith("_")
        for f in fields
    ):
        raise TypeError(
            f"{cls.__name__}: quick_frozen supports plain fields only "
            "(no __post_init__, init=False, kw_only, or names cls/self/_...)"
        )
    base = cls.__mro__[1]
    if base.__setattr__ is not object.__setattr__:
        raise TypeError(f"{cls.__name__}: quick_frozen needs a base class without __setattr__")
    # same base and same slots: the layout Python requires to change an object's class
    builder = type(
        f"_{cls.__name__}Builder",
        (base,),
        {"__slots__": cls.__dict__["__slots__"], "__module__": cls.__module__},
    )
    namespace: dict[str, Any] = {
        "_builder": builder,
        "_new": object.__new__,
        # the __class__ descriptor's own setter: object.__setattr__ would look it up every time
        "_set_class": object.__dict__["__class__"].__set__,
        "_owner": cls,
        "_NO_VALUE": _NO_VALUE,
    }
    params_src: list[str] = []
    head: list[str] = []  # runs before the object exists: a refused value builds nothing
    body: list[str] = []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            namespace[f"_default_{f.name}"] = f.default
            params_src.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            params_src.append(f"{f.name}=_NO_VALUE")
            head.append(f"    if {f.name} is _NO_VALUE: {f.name} = _factory_{f.name}()")
        else:
            params_src.append(f.name)
        body.append(f"    self.{f.name} = {f.name}")
    if check is not None:
        namespace["_check"] = check
        for name, allowed in field_types(cls).items():
            namespace[f"_types_{name}"] = frozenset(allowed)
            namespace[f"_allowed_{name}"] = allowed
            head.append(
                f"    if type({name}) not in _types_{name}: "
                f"_check(_owner, {name!r}, {name}, _allowed_{name})"
            )
    source = "\n".join(
        [
            f"def __new__(cls, {', '.join(params_src)}):" if params_src else "def __new__(cls):",
            *head,
            "    self = _new(_builder)",
            *body,
            "    _set_class(self, _owner)",
            "    return self",
        ]
    )
    exec(source, namespace)  # generated from the dataclass's own field names
    names = tuple(f.name for f in fields)

    def __reduce__(self: Any) -> tuple[Any, ...]:
        # copy and pickle rebuild through the constructor (the default path calls __new__ bare)
        return (type(self), tuple(getattr(self, n) for n in names))

    def __init_subclass__(sub: type, **kwargs: Any) -> None:
        raise TypeError(f"{cls.__name__} cannot be subclassed (it uses quick_frozen)")

    new = namespace["__new__"]
    new.__qualname__ = f"{cls.__qualname__}.__new__"
    cls.__new__ = staticmethod(new)  # type: ignore[method-assign]
    cls.__init__ = object.__init__  # type: ignore[misc]
    cls.__reduce__ = __reduce__  # type: ignore[assignment]
    cls.__init_subclass__ = classmethod(__init_subclass__)  # type: ignore[assignment]
    return cls


__all__ = ["FieldCheck", "allowed_types", "field_types", "quick_frozen"]
