"""The checker's types: what each .metro expression denotes, and assignability."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Type:
    """Base of checker types."""

    def __str__(self) -> str:
        return type(self).__name__.removesuffix("T").lower()


@dataclass(frozen=True, slots=True)
class AnyT(Type):
    """An unknown type after an error; compatible with everything to avoid cascades."""


@dataclass(frozen=True, slots=True)
class IntT(Type):
    """Integers."""


@dataclass(frozen=True, slots=True)
class BoolT(Type):
    """Booleans."""


@dataclass(frozen=True, slots=True)
class StrT(Type):
    """Text (messages, element ids)."""

    def __str__(self) -> str:
        return "text"


@dataclass(frozen=True, slots=True)
class NoneT(Type):
    """The type of the `none` literal."""


@dataclass(frozen=True, slots=True)
class PlayerT(Type):
    """A player (a seat)."""


@dataclass(frozen=True, slots=True)
class EnumT(Type):
    """A value of a declared enum."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class ElemT(Type):
    """An element of a map kind (a vertex, an edge, a card, …)."""

    kind: str

    def __str__(self) -> str:
        return self.kind


@dataclass(frozen=True, slots=True)
class OptT(Type):
    """A value or none."""

    inner: Type

    def __str__(self) -> str:
        return f"{self.inner}?"


@dataclass(frozen=True, slots=True)
class CollT(Type):
    """A collection: list, pile, bag or set of items."""

    kind: str
    item: Type

    def __str__(self) -> str:
        return f"{self.kind} of {self.item}"


@dataclass(frozen=True, slots=True)
class MapT(Type):
    """A table from keys to values."""

    key: Type
    value: Type

    def __str__(self) -> str:
        return f"map {self.key} -> {self.value}"


@dataclass(frozen=True, slots=True)
class TupleT(Type):
    """A fixed-length tuple."""

    items: tuple[Type, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(str(t) for t in self.items) + ")"


@dataclass(frozen=True, slots=True)
class GeoT(Type):
    """Geometry values: a `shape` (polycube), a `frame` (ground cells) or a `building`."""

    kind: str

    def __str__(self) -> str:
        return self.kind


ANY = AnyT()
INT = IntT()
BOOL = BoolT()
STR = StrT()
NONE = NoneT()
PLAYER = PlayerT()
SHAPE = GeoT("shape")
FRAME = GeoT("frame")
BUILDING = GeoT("building")
PLACEMENT = TupleT((IntT(), IntT(), IntT(), IntT()))


def is_finite(t: Type) -> bool:
    """Types whose values can be enumerated (and index lists)."""
    return isinstance(t, EnumT | ElemT | PlayerT | BoolT)


def is_sequence(t: Type) -> bool:
    """Lists and piles: ordered, with repeats."""
    return isinstance(t, CollT) and t.kind in ("list", "pile")


class Subtyping:
    """Assignability given the enum extension table."""

    def __init__(self, enum_bases: dict[str, str | None]):
        self.enum_bases = enum_bases

    def enum_extends(self, sub: str, sup: str) -> bool:
        """True if enum `sup` is `sub` or extends it (so every `sub` value is a `sup` value)."""
        seen = 0
        current: str | None = sup
        while current is not None and seen < 100:
            if current == sub:
                return True
            current = self.enum_bases.get(current)
            seen += 1
        return False

    def assignable(self, src: Type, dst: Type) -> bool:
        """True if a value of type `src` may be stored where `dst` is expected."""
        if src == dst or isinstance(src, AnyT) or isinstance(dst, AnyT):
            return True
        if isinstance(dst, OptT):
            return isinstance(src, NoneT) or self.assignable(
                src.inner if isinstance(src, OptT) else src, dst.inner
            )
        if isinstance(src, EnumT) and isinstance(dst, EnumT):
            return self.enum_extends(src.name, dst.name)
        if isinstance(src, CollT) and isinstance(dst, CollT):
            if (
                src.kind == dst.kind
                or (is_sequence(src) and is_sequence(dst))
                or src.kind == "list"
            ):
                return self.assignable(src.item, dst.item)
            return False
        if isinstance(src, MapT) and isinstance(dst, MapT):
            return self.assignable(src.key, dst.key) and self.assignable(src.value, dst.value)
        if isinstance(src, TupleT) and isinstance(dst, TupleT):
            return len(src.items) == len(dst.items) and all(
                self.assignable(a, b) for a, b in zip(src.items, dst.items, strict=True)
            )
        return False

    def comparable(self, a: Type, b: Type) -> bool:
        """True if `a == b` is meaningful (one side's values are values of the other)."""
        a0 = a.inner if isinstance(a, OptT) else a
        b0 = b.inner if isinstance(b, OptT) else b
        if isinstance(a0, NoneT) or isinstance(b0, NoneT):
            return isinstance(a, OptT | NoneT | AnyT) or isinstance(b, OptT | NoneT | AnyT)
        return self.assignable(a0, b0) or self.assignable(b0, a0)

    def join(self, a: Type, b: Type) -> Type:
        """The smallest type both may be assigned to (for list literals and conditionals)."""
        if self.assignable(a, b):
            return b
        if self.assignable(b, a):
            return a
        if isinstance(a, NoneT):
            return OptT(b)
        if isinstance(b, NoneT):
            return OptT(a)
        return ANY
