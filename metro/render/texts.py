"""Values of drawings as the text a person reads: elements, enum values, players, numbers."""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.types import BoolT, CollT, ElemT, EnumT, IntT, OptT, PlayerT, TupleT, Type
from runtime.values import PLAYER


@dataclass
class Names:
    """How the values of a game read: its map elements and enum values as people read them."""

    elements: dict[str, list[str]]  # map kind -> element labels (else ids), by index
    enums: dict[str, list[str]]  # enum -> value words, by index
    element_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)  # kind -> ids, by index
    enum_ids: dict[str, tuple[str, ...]] = field(default_factory=dict)  # enum -> value names

    def element(self, kind: str, index: int) -> str:
        """How a map element reads."""
        return self.elements[kind][index]

    def text(self, value, t: Type) -> str:
        """A value of type `t` as text (a tuple's parts are joined as written)."""
        if value is None:
            return ""
        if isinstance(t, OptT):
            return self.text(value, t.inner)
        if isinstance(t, TupleT):
            return "".join(self.text(v, i) for v, i in zip(value, t.items, strict=True))
        if isinstance(t, CollT):
            return ", ".join(self.text(v, t.item) for v in _in_order(value, t))
        if isinstance(t, ElemT):
            return self.element(t.kind, value)
        if isinstance(t, EnumT):
            return self.enums[t.name][value]
        if isinstance(t, PlayerT):
            return PLAYER.label(value)
        if isinstance(t, BoolT):
            return "yes" if value else "no"
        return str(value)

    def keys(self, value, t: Type) -> tuple[str, ...]:
        """The things a value stands for, as `kind:id`, `enum:name` or `player:seat` keys."""
        if value is None:
            return ()
        if isinstance(t, OptT):
            return self.keys(value, t.inner)
        if isinstance(t, CollT):
            return tuple(k for v in _in_order(value, t) for k in self.keys(v, t.item))
        if isinstance(t, TupleT):
            return tuple(k for v, i in zip(value, t.items, strict=True) for k in self.keys(v, i))
        if isinstance(t, ElemT):
            return (f"{t.kind}:{self.element_ids[t.kind][value]}",)
        if isinstance(t, EnumT):
            return (f"{t.name}:{self.enum_ids[t.name][value]}",)
        if isinstance(t, PlayerT):
            return (f"player:{value}",)
        return ()

    def choice_keys(self, value, t: Type) -> tuple[str, ...]:
        """The arguments of the choice a value stands for (`chooses`): the keys of things as
        `keys` gives them, a number as `n:3`, a tuple of numbers (a placement) as `n:7,2,0,1`;
        a tuple of several values stands for each of them (a choice with all those arguments)."""
        if value is None:
            return ()
        if isinstance(t, OptT):
            return self.choice_keys(value, t.inner)
        if isinstance(t, IntT):
            return (number_key(value),)
        if isinstance(t, TupleT):
            if t.items and all(isinstance(i, IntT) for i in t.items):
                return (number_key(value),)
            return tuple(
                k for v, i in zip(value, t.items, strict=True) for k in self.choice_keys(v, i)
            )
        return self.keys(value, t)


def number_key(value: int | tuple[int, ...]) -> str:
    """The key of a number or a tuple of numbers (a placement) among a choice's arguments."""
    if isinstance(value, tuple | list):
        return "n:" + ",".join(str(int(v)) for v in value)
    return f"n:{int(value)}"


def _in_order(value, t: CollT) -> list:
    """A collection's items in a fixed order (a bag is a list of counts by item index)."""
    if t.kind == "bag" and isinstance(value, list) and all(isinstance(n, int) for n in value):
        return [i for i, n in enumerate(value) for _ in range(n)]
    return sorted(value) if isinstance(value, set | frozenset) else list(value)
