"""Plain value classes for the start-up path: what `@dataclass` gives, without building methods at import.

On Python 3.11 each `@dataclass` compiles its methods with `exec` when its module is imported (about 4M
instructions a class), and a clean-file scan imports some fifteen of them. A class here lists its fields
in `__slots__` (in the order `__init__` takes them) and writes its `__init__` by hand; `Plain` gives
the rest as `@dataclass` would: `__eq__` (same class, fields in order), `__repr__`, `__hash__ = None`,
pickling; `Frozen` adds the hash of the fields and refuses to change (`dataclasses.FrozenInstanceError`).
`replace(obj, **changes)` stands for `dataclasses.replace`. A slot named `_...` is private state (a
dataclass's `field(init=False, compare=False, repr=False)`): kept when pickled, not compared or shown.
A class without `__slots__` of its own (`advisor.core.settings.Settings`, whose fields carry their
declarations) has its annotated names as fields, in order, as a dataclass finds them.
A subclass must not be subclassed again (its fields are its own).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T", bound="Plain")


class Plain:
    __slots__: tuple[str, ...] = ()
    _state: tuple[str, ...] = ()  # every slot (or field): what pickling keeps
    _fields: tuple[str, ...] = ()  # the public ones: compared, shown, hashed, replaced

    def __init_subclass__(cls) -> None:
        own = cls.__dict__
        cls._state = tuple(own["__slots__"] if "__slots__" in own else own.get("__annotations__", ()))
        cls._fields = tuple(name for name in cls._state if not name.startswith("_"))

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()  # type: ignore[attr-defined]
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as @dataclass(eq=True) leaves it

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{self.__class__.__qualname__}({shown})"

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._state)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        init(self, *state)


class Frozen(Plain):
    __slots__ = ()

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        _refuse(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        _refuse(f"cannot delete field {name!r}")


def init(obj: Plain, *values: Any) -> None:
    """Sets `obj`'s fields, in `__slots__` order (also on a frozen one: its `__init__` calls this)."""
    for name, value in zip(obj._state, values):
        object.__setattr__(obj, name, value)


def _refuse(message: str) -> None:
    from dataclasses import FrozenInstanceError  # lazy: only a bug gets here

    raise FrozenInstanceError(message)


def replace(obj: T, **changes: Any) -> T:
    """`obj` with these fields changed, as `dataclasses.replace` makes it (through `__init__`)."""
    unknown = set(changes) - set(obj._fields)
    if unknown:
        raise TypeError(f"{obj.__class__.__qualname__} has no field {sorted(unknown)[0]!r}")
    return obj.__class__(**{**dict(zip(obj._fields, obj._values())), **changes})
