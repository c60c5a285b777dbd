"""Immutable value classes (types, attributes) without `dataclasses`.

`@dataclass(frozen=True, slots=True)` compiles six methods per class when the module is
imported (~1 ms each class, and `dataclasses` pulls in `inspect`); the tools import dozens
of such classes on every launch. A `Record` subclass instead lists its fields in `__slots__`
and writes its `__init__` (setting fields with `object.__setattr__`, as a frozen dataclass
does); equality, hashing, `repr`, immutability and pickling come from here, read off the
slots once per class:

- the *key fields* are the public slots of the class and its bases, base first (a slot named
  with a leading underscore is a cache, never compared); a class may leave more out of the
  key with `_uncompared`;
- two records are equal when they are of the same class with equal key fields, and hash
  like the tuple of those fields; `repr` shows them as a dataclass would.
"""

from __future__ import annotations

from operator import attrgetter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

set_field = object.__setattr__
"""How `__init__` (and a lazily filled cache slot) sets a field of a frozen record."""


def _no_fields(_: object) -> tuple[()]:
    return ()


class Record:
    """Base of the immutable value classes (see the module docstring)."""

    __slots__ = ()

    key_fields: ClassVar[tuple[str, ...]] = ()
    """The compared fields, in order (the bytecode writer keys attributes by them)."""
    _uncompared: ClassVar[tuple[str, ...]] = ()
    _all_slots: ClassVar[tuple[str, ...]] = ()
    _key: ClassVar[Any] = staticmethod(_no_fields)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        slots: list[str] = []
        for klass in reversed(cls.__mro__):
            own = klass.__dict__.get("__slots__", ())
            slots.extend((own,) if isinstance(own, str) else own)
        cls._all_slots = tuple(slots)
        fields = tuple(n for n in slots if not n.startswith("_") and n not in cls._uncompared)
        cls.key_fields = fields
        # attrgetter of 2+ names gives their tuple; of one name its value (equal values
        # still mean equal keys), so both compare and hash like the fields themselves.
        cls._key = staticmethod(attrgetter(*fields) if fields else _no_fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        key = self._key
        return bool(key(self) == key(other))

    def __hash__(self) -> int:
        return hash(self._key(self))

    def __repr__(self) -> str:
        body = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.key_fields)
        return f"{self.__class__.__qualname__}({body})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name, None) for name in self._all_slots)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self._all_slots, state, strict=True):
            set_field(self, name, value)


class Struct:
    """Base of small mutable classes that would be plain `@dataclass`es: the subclass writes
    its `__init__`; equality (same class, equal attributes) and `repr` come from here, and,
    as for a dataclass that is not frozen, instances are unhashable."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return bool(vars(self) == vars(other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        body = ", ".join(f"{name}={value!r}" for name, value in vars(self).items()
                         if not name.startswith("_"))
        return f"{self.__class__.__qualname__}({body})"
