"""Value descriptors: how each declared type is labelled, parsed, serialised, copied and hidden."""

from __future__ import annotations

import re

from runtime import action_ids as ids


class Desc:
    """Base descriptor: values are immutable scalars stored as themselves."""

    __slots__ = ()
    mutable = False  # class default; OptD stores its own

    def encode(self, value):
        """JSON form."""
        return value

    def decode(self, doc):
        """Value from its JSON form."""
        return doc

    def label(self, value) -> str:
        """The value as written in action ids (grammar in runtime/action_ids.py): an integer here."""
        return str(value)

    def parse(self, text):
        """Inverse of label, from id text or a node of `action_ids` (ValueError if it is not one)."""
        return self.read(ids.parse_value(text) if isinstance(text, str) else text)

    def read(self, node):
        """The value a parsed id node stands for (ValueError if it stands for none of this type)."""
        text = _bare(node, "an integer")
        if not _INTEGER.fullmatch(text):
            raise ValueError(f"expected an integer, not {text!r}")
        return int(text)

    def copy(self, value):
        """An independent copy."""
        return value

    def size(self, value) -> int | None:
        """How many items a collection holds (shown when its content is hidden)."""
        return None


class IntD(Desc):
    """Integers."""

    __slots__ = ()


class BoolD(Desc):
    """Truth values."""

    __slots__ = ()

    def label(self, value) -> str:
        return "yes" if value else "no"

    def read(self, node):
        text = _bare(node, "yes or no")
        if text not in ("yes", "no"):
            raise ValueError(f"expected yes or no, not {text!r}")
        return text == "yes"

    def decode(self, doc):
        return bool(doc)


class StrD(Desc):
    """Text."""

    __slots__ = ()

    def label(self, value) -> str:
        return ids.atom(value)

    def read(self, node):
        return _word(node, "a text")


class NamedD(Desc):
    """Enum values and map elements: an index at run time, a name outside."""

    __slots__ = ("names", "index", "atoms")

    def __init__(self, names: tuple[str, ...]):
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}
        self.atoms = tuple(map(ids.atom, names))  # id forms, computed once: ids are made often

    def encode(self, value):
        return self.names[value]

    def decode(self, doc):
        return self.index[doc]

    def label(self, value) -> str:
        return self.atoms[value]

    def read(self, node):
        name = _word(node, "a name")
        found = self.index.get(name)
        if found is None:
            raise ValueError(
                f"{name!r} is not one of {', '.join(self.atoms[:5])}"
                + (", ..." if len(self.atoms) > 5 else "")
            )
        return found


class PlayerD(Desc):
    """Players: 0-based seats inside, P1…Pn outside."""

    __slots__ = ()

    def encode(self, value):
        return f"P{value + 1}"

    def decode(self, doc):
        if not (isinstance(doc, str) and doc[:1] == "P" and doc[1:].isdigit()):
            raise ValueError(f"not a player: {doc!r}")
        return int(doc[1:]) - 1

    label = encode

    def read(self, node):
        name = _word(node, "a player")
        if not _PLAYER.fullmatch(name):
            raise ValueError(f"expected a player P1, P2, ..., not {name!r}")
        return int(name[1:]) - 1


class OptD(Desc):
    """A value or none."""

    __slots__ = ("inner", "mutable")

    def __init__(self, inner: Desc):
        self.inner = inner
        self.mutable = inner.mutable

    def encode(self, value):
        return None if value is None else self.inner.encode(value)

    def decode(self, doc):
        return None if doc is None else self.inner.decode(doc)

    def label(self, value) -> str:
        return "none" if value is None else self.inner.label(value)

    def read(self, node):
        # Only a bare `none` is the none value: a text or element named none is written quoted.
        return None if node == ids.Atom("none") else self.inner.read(node)

    def copy(self, value):
        return None if value is None else self.inner.copy(value)


class ListD(Desc):
    """Lists and piles (a pile's top is the list's end)."""

    __slots__ = ("item",)
    mutable = True

    def __init__(self, item: Desc):
        self.item = item

    def encode(self, value):
        return list(map(self.item.encode, value))

    def decode(self, doc):
        return [self.item.decode(v) for v in doc]

    def label(self, value) -> str:
        return "[" + " ".join(map(self.item.label, value)) + "]"

    def read(self, node):
        return tuple(map(self.item.read, _group(node, "[", "a list [...]")))

    def copy(self, value):
        if self.item.mutable:
            return [self.item.copy(v) for v in value]
        return list(value)

    def size(self, value) -> int:
        return len(value)


class BagD(Desc):
    """A multiset of enum values/elements/players: a list of counts inside, {name: count} outside."""

    __slots__ = ("item", "n", "keys")
    mutable = True

    def __init__(self, item: Desc, n: int):
        self.item = item
        self.n = n
        self.keys = tuple(item.encode(i) for i in range(n))

    def encode(self, value):
        # A bag of players holds counts for this game's players only: fewer than `keys`.
        return {key: count for key, count in zip(self.keys, value, strict=False) if count}

    def decode(self, doc):
        counts = [0] * self.n
        for key, count in doc.items():
            counts[self.item.decode(key)] = count
        return counts

    def copy(self, value):
        return list(value)

    def size(self, value) -> int:
        return sum(value)


class SetD(Desc):
    """A set, written as a sorted list."""

    __slots__ = ("item",)
    mutable = True

    def __init__(self, item: Desc):
        self.item = item

    def encode(self, value):
        return list(map(self.item.encode, sorted(value)))

    def decode(self, doc):
        return {self.item.decode(v) for v in doc}

    def copy(self, value):
        return set(value)

    def size(self, value) -> int:
        return len(value)


class MapD(Desc):
    """A table: a list indexed by a finite key inside, or a dict for number keys."""

    __slots__ = ("key", "value", "n", "keys")
    mutable = True

    def __init__(self, key: Desc, value: Desc, n: int | None):
        self.key = key
        self.value = value
        self.n = n
        # The outside names of a finite table's keys, computed once (views encode tables often).
        self.keys = None if n is None else tuple(key.encode(i) for i in range(n))

    def encode(self, value):
        keys = self.keys
        if keys is None:
            return [[self.key.encode(k), self.value.encode(v)] for k, v in sorted(value.items())]
        if len(value) > len(keys):  # keyed by player: as many as this game has
            return {self.key.encode(k): self.value.encode(v) for k, v in enumerate(value)}
        return dict(zip(keys, map(self.value.encode, value), strict=True))

    def decode(self, doc):
        if self.n is None:
            return {self.key.decode(k): self.value.decode(v) for k, v in doc}
        out = [None] * (self.n or len(doc))  # n is 0 when keyed by player: the doc has each one
        for k, v in doc.items():
            out[self.key.decode(k)] = self.value.decode(v)
        return out

    def copy(self, value):
        if self.n is None:
            return {k: self.value.copy(v) for k, v in value.items()}
        if self.value.mutable:
            return [self.value.copy(v) for v in value]
        return list(value)

    def size(self, value) -> int:
        return len(value)


class TupleD(Desc):
    """A fixed-length tuple."""

    __slots__ = ("items",)

    def __init__(self, items: tuple[Desc, ...]):
        self.items = items

    def encode(self, value):
        return [d.encode(v) for d, v in zip(self.items, value, strict=True)]

    def decode(self, doc):
        return tuple(d.decode(v) for d, v in zip(self.items, doc, strict=True))

    def label(self, value) -> str:
        return "(" + " ".join(d.label(v) for d, v in zip(self.items, value, strict=True)) + ")"

    def read(self, node):
        items = _group(node, "(", "a tuple (...)")
        if len(items) != len(self.items):
            raise ValueError(f"expected a tuple of {len(self.items)} values, not {len(items)}")
        return tuple(d.read(item) for d, item in zip(self.items, items, strict=True))


class GeoD(Desc):
    """Shapes, frames and buildings: lists of cells outside."""

    __slots__ = ("kind",)

    def __init__(self, kind: str):
        self.kind = kind

    def encode(self, value):
        from runtime.geometry import Building

        if isinstance(value, Building):
            return [[list(cell) for cell in piece] for piece in value.pieces]
        return [list(cell) for cell in value.cells]

    def decode(self, doc):
        from runtime.geometry import Building, Frame, Shape

        if self.kind == "building":
            return Building(tuple(tuple(tuple(cell) for cell in piece) for piece in doc))
        if self.kind == "frame":
            return Frame(tuple(tuple(cell) for cell in doc))
        return Shape(tuple(tuple(cell) for cell in doc))

    def size(self, value) -> int:
        return len(value.pieces) if hasattr(value, "pieces") else len(value.cells)


_INTEGER = re.compile(r"-?[0-9]+")
_PLAYER = re.compile(r"P[1-9][0-9]*")


def _word(node, what: str) -> str:
    """The text of an atom, bare or quoted."""
    if not isinstance(node, ids.Atom):
        raise ValueError(f"expected {what}, not {_shown(node)}")
    return node.text


def _bare(node, what: str) -> str:
    """The text of a bare atom (numbers, yes/no and none are never quoted)."""
    if not isinstance(node, ids.Atom) or node.quoted:
        raise ValueError(f"expected {what}, not {_shown(node)}")
    return node.text


def _shown(node) -> str:
    text = str(node)
    return text if len(text) <= 60 else text[:57] + "..."


def _group(node, opener: str, what: str) -> tuple:
    """The items of a bracketed node opened by `opener`."""
    if not isinstance(node, ids.Group) or node.open != opener:
        raise ValueError(f"expected {what}, not {_shown(node)}")
    return node.items


INT = IntD()
BOOL = BoolD()
STR = StrD()
PLAYER = PlayerD()


def encode_any(value):
    """Tagged JSON for values of unknown type (procedure frames): keeps tuples, sets, dict keys."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, list):
        return [encode_any(v) for v in value]
    if isinstance(value, tuple):
        return {"t": [encode_any(v) for v in value]}
    if isinstance(value, set | frozenset):
        return {"s": [encode_any(v) for v in sorted(value)]}
    if isinstance(value, dict):
        return {"d": [[encode_any(k), encode_any(v)] for k, v in sorted(value.items())]}
    raise TypeError(f"cannot serialise {type(value).__name__}")


def decode_any(doc):
    """Inverse of encode_any."""
    if doc is None or isinstance(doc, bool | int | str):
        return doc
    if isinstance(doc, list):
        return [decode_any(v) for v in doc]
    if "t" in doc:
        return tuple(decode_any(v) for v in doc["t"])
    if "s" in doc:
        return {decode_any(v) for v in doc["s"]}
    return {decode_any(k): decode_any(v) for k, v in doc["d"]}


def copy_any(value):
    """Deep copy of frame values (lists, dicts and sets are copied; scalars shared)."""
    if isinstance(value, list):
        return [copy_any(v) for v in value]
    if isinstance(value, dict):
        return {k: copy_any(v) for k, v in value.items()}
    if isinstance(value, set):
        return set(value)
    return value
