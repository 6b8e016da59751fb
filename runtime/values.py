"""Value descriptors: how each declared type is labelled, parsed, serialised, copied and hidden.

`decode` is strict: it is how a save is read back, and a save is untrusted input. Every
`decode(doc, n)` (n = the game's player count) returns the value or raises `InvalidSave`
naming the JSON path of the bad part.
"""

from __future__ import annotations

import re

from runtime import action_ids as ids
from runtime.errors import InvalidSave

# Integers are 64-bit signed: every stored value, score and constant lies in
# -INT_LIMIT .. INT_LIMIT - 1 (larger ones are refused where they are made, and in saves).
INT_LIMIT = 2**63
# The most items one saved collection may hold (list, set, table, frame locals; a bag's total count).
MAX_ITEMS = 100_000
# Saved geometry: at most this many cells, each coordinate within -GEO_LIMIT..GEO_LIMIT.
GEO_CELLS = 4096
GEO_LIMIT = 1024
# Nesting of the untyped values kept in procedure frames.
MAX_DEPTH = 64


class Desc:
    """Base descriptor: values are immutable scalars stored as themselves."""

    __slots__ = ()
    mutable = False  # class default; OptD stores its own

    def encode(self, value):
        """JSON form."""
        return value

    def decode(self, doc, n: int):
        """Value from its JSON form; InvalidSave if `doc` is not one (n: the game's player count)."""
        return check_int(doc)

    def label(self, value) -> str:
        """The value as written in action ids (grammar in runtime/action_ids.py): an integer here."""
        return str(value)

    def display(self, value) -> str:
        """The value as a person reads it (labels, screens): an integer here."""
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


class RangeD(IntD):
    """Integers of a declared range `lo..hi [step s]` (a save is checked against it)."""

    __slots__ = ("hi", "lo", "step")

    def __init__(self, lo: int, hi: int, step: int = 1):
        self.lo = lo
        self.hi = hi
        self.step = step

    def decode(self, doc, n: int):
        value = check_int(doc)
        if not self.lo <= value <= self.hi or (value - self.lo) % self.step:
            step = f" step {self.step}" if self.step != 1 else ""
            raise InvalidSave(f"{value} is outside the declared range {self.lo}..{self.hi}{step}")
        return value


class BoolD(Desc):
    """Truth values."""

    __slots__ = ()

    def label(self, value) -> str:
        return "yes" if value else "no"

    display = label

    def read(self, node):
        text = _bare(node, "yes or no")
        if text not in ("yes", "no"):
            raise ValueError(f"expected yes or no, not {text!r}")
        return text == "yes"

    def decode(self, doc, n: int):
        if type(doc) is not bool:
            raise InvalidSave(f"expected true or false, found {show(doc)}")
        return doc


class StrD(Desc):
    """Text."""

    __slots__ = ()

    def label(self, value) -> str:
        return ids.atom(value)

    def display(self, value) -> str:
        return value

    def read(self, node):
        return _word(node, "a text")

    def decode(self, doc, n: int):
        return check_text(doc)


class NamedD(Desc):
    """Enum values and map elements: an index at run time, a name outside, words for people."""

    __slots__ = ("atoms", "index", "names", "words")

    def __init__(self, names: tuple[str, ...], words: tuple[str, ...] | None = None):
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}
        self.atoms = tuple(map(ids.atom, names))  # id forms, computed once: ids are made often
        # How each reads: declared words or labels, else the name with spaces for underscores.
        self.words = words if words is not None else tuple(map(plain_words, names))

    def display(self, value) -> str:
        return self.words[value]

    def encode(self, value):
        return self.names[value]

    def decode(self, doc, n: int):
        index = self.index.get(doc) if type(doc) is str else None
        if index is None:
            sample = ", ".join(self.names[:4]) + (", …" if len(self.names) > 4 else "")
            raise InvalidSave(
                f"expected one of the {len(self.names)} names ({sample}), found {show(doc)}"
            )
        return index

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

    def decode(self, doc, n: int):
        # Only the canonical spelling P1…Pn: no "P01", no other scripts' digits.
        number = doc[1:] if type(doc) is str and doc[:1] == "P" and len(doc) <= 8 else ""
        if not (
            number.isascii()
            and number.isdigit()
            and doc == f"P{int(number)}"
            and 1 <= int(number) <= n
        ):
            raise InvalidSave(f"expected a player P1..P{n}, found {show(doc)}")
        return int(number) - 1

    label = display = encode

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

    def decode(self, doc, n: int):
        return None if doc is None else self.inner.decode(doc, n)

    def label(self, value) -> str:
        return "none" if value is None else self.inner.label(value)

    def display(self, value) -> str:
        return NOTHING if value is None else self.inner.display(value)

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

    def decode(self, doc, n: int):
        return each_item(check_list(doc), self.item.decode, n)

    def label(self, value) -> str:
        return "[" + " ".join(map(self.item.label, value)) + "]"

    def display(self, value) -> str:
        return ", ".join(map(self.item.display, value)) or NOTHING

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

    __slots__ = ("item", "keys", "lookup", "n")
    mutable = True

    def __init__(self, item: Desc, n: int):
        self.item = item
        self.n = n
        self.keys = tuple(item.encode(i) for i in range(n))
        self.lookup = _key_lookup(item, self.keys)

    def display(self, value) -> str:
        shown = [
            self.item.display(i) + (f" ×{count}" if count > 1 else "")
            for i, count in enumerate(value)
            if count
        ]
        return ", ".join(shown) or NOTHING

    def encode(self, value):
        # A bag of players holds counts for this game's players only: fewer than `keys`.
        return {key: count for key, count in zip(self.keys, value, strict=False) if count}

    def decode(self, doc, n: int):
        counts, total = [0] * self.n, 0
        for key, count in check_object(doc).items():
            index = _key_index(self.lookup, self.item, key, n)
            if type(count) is not int or not 0 <= count <= MAX_ITEMS:
                raise InvalidSave(
                    f"a count is a whole number 0..{MAX_ITEMS}, found {show(count)}", (key,)
                )
            counts[index] = count
            total += count
        if total > MAX_ITEMS:
            raise InvalidSave(f"a bag holds at most {MAX_ITEMS} items, this one {total}")
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

    def display(self, value) -> str:
        return ", ".join(map(self.item.display, sorted(value))) or NOTHING

    def decode(self, doc, n: int):
        items = ListD.decode(self, doc, n)
        out = set(items)
        if len(out) != len(items):
            raise InvalidSave("a set lists an item twice")
        return out

    def copy(self, value):
        return set(value)

    def size(self, value) -> int:
        return len(value)


class MapD(Desc):
    """A table: a list indexed by a finite key inside, or a dict for number keys."""

    __slots__ = ("key", "keys", "lookup", "n", "value")
    mutable = True

    def __init__(self, key: Desc, value: Desc, n: int | None):
        self.key = key
        self.value = value
        self.n = n
        # The outside names of a finite table's keys, computed once (views encode tables often).
        self.keys = None if n is None else tuple(key.encode(i) for i in range(n))
        self.lookup = None if n is None else _key_lookup(key, self.keys)

    def encode(self, value):
        keys = self.keys
        if keys is None:
            return [[self.key.encode(k), self.value.encode(v)] for k, v in sorted(value.items())]
        if len(value) > len(keys):  # keyed by player: as many as this game has
            return {self.key.encode(k): self.value.encode(v) for k, v in enumerate(value)}
        return dict(zip(keys, map(self.value.encode, value), strict=True))

    def decode(self, doc, n: int):
        if self.n is None:  # [[key, value], …]
            pairs = each_item(check_list(doc), self._pair, n)
            out = dict(pairs)
            if len(out) != len(pairs):
                raise InvalidSave("a key appears twice")
            return out
        size = self.n or n  # n is 0 when keyed by player: one entry per player of this game
        out, seen = [None] * size, set()
        decode = self.value.decode
        for k, v in check_object(doc).items():
            index = _key_index(self.lookup, self.key, k, n)
            seen.add(index)
            try:
                out[index] = decode(v, n)
            except InvalidSave as error:
                raise error.within(str(k)) from None
        if len(seen) != size:
            names = self.keys if self.n else [PLAYER.encode(p) for p in range(n)]
            missing = next(str(names[i]) for i in range(size) if i not in seen)
            raise InvalidSave(f"the table has no entry for {missing!r}")
        return out

    def display(self, value) -> str:
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        shown = [
            f"{self.key.display(k)}: {self.value.display(x)}"
            for k, x in sorted(pairs)
            if x is not None
        ]
        return ", ".join(shown) or NOTHING

    def _pair(self, pair, n: int) -> tuple:
        if type(pair) is not list or len(pair) != 2:
            raise InvalidSave(f"expected a [key, value] pair, found {show(pair)}")
        return self.key.decode(pair[0], n), self.value.decode(pair[1], n)

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

    def decode(self, doc, n: int):
        if type(doc) is not list or len(doc) != len(self.items):
            raise InvalidSave(f"expected a list of {len(self.items)} items, found {show(doc)}")
        out = []
        for i, (d, v) in enumerate(zip(self.items, doc, strict=True)):
            try:
                out.append(d.decode(v, n))
            except InvalidSave as error:
                raise error.within(i) from None
        return tuple(out)

    def label(self, value) -> str:
        return "(" + " ".join(d.label(v) for d, v in zip(self.items, value, strict=True)) + ")"

    def display(self, value) -> str:
        return "(" + ", ".join(d.display(v) for d, v in zip(self.items, value, strict=True)) + ")"

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

    def decode(self, doc, n: int):
        from runtime.geometry import Building, Frame, Shape

        try:
            if self.kind == "building":
                pieces = each_item(check_list(doc), _cells, 3)
                total = sum(map(len, pieces))
                if total > GEO_CELLS:
                    raise InvalidSave(f"a building has at most {GEO_CELLS} cells, this one {total}")
                return Building(tuple(pieces))
            if self.kind == "frame":
                return Frame(_cells(doc, 2))
            return Shape(_cells(doc, 3))
        except ValueError as error:  # the geometry's own rules: overlaps, cells below ground
            if isinstance(error, InvalidSave):
                raise
            raise InvalidSave(f"not a valid {self.kind}: {error}") from None

    def size(self, value) -> int:
        return len(value.pieces) if hasattr(value, "pieces") else len(value.cells)

    def display(self, value) -> str:
        if hasattr(value, "pieces"):
            count, floors = len(value.pieces), value.floors
            if not count:
                return NOTHING
            return f"{count} piece{'s' * (count != 1)}, {floors} floor{'s' * (floors != 1)}"
        return f"{len(value.cells)} cells"


class ArgDescs(tuple):
    """The descriptors of an action's (or choice's) arguments, with its declared label.

    A tuple like any other action's descriptors (equal, hashed and compared as one); its
    `labeller` turns the argument values into the label the rules declare.
    """

    def __new__(cls, descs: tuple, labeller):
        out = super().__new__(cls, descs)
        out.labeller = labeller
        return out

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):  # pickled as a plain tuple: the label function belongs to a loaded module
        return (tuple, (tuple(self),))


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


# How nothing reads: a none value or an empty collection.
NOTHING = "none"


def plain_words(name: str) -> str:
    """A name as words: `speed_token` reads "speed token"."""
    return name.replace("_", " ")


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


def decode_any(doc, depth: int = 0):
    """Inverse of encode_any; InvalidSave for anything encode_any cannot have written."""
    kind = type(doc)
    if doc is None or kind is bool:
        return doc
    if kind is int:
        return check_int(doc)
    if kind is str:
        return check_text(doc)
    if depth >= MAX_DEPTH:
        raise InvalidSave(f"values are nested deeper than {MAX_DEPTH} levels")
    if kind is list:
        return _decode_items(doc, depth)
    if kind is not dict or len(doc) != 1 or next(iter(doc)) not in ("t", "s", "d"):
        raise InvalidSave(
            f'expected a value (null, true/false, number, text, list, {{"t"|"s"|"d": […]}}), '
            f"found {show(doc)}"
        )
    tag, items = next(iter(doc.items()))
    try:
        if tag == "t":
            return tuple(_decode_items(items, depth))
        if tag == "s":
            out = set(_decode_items(items, depth))
            _sortable(out)
            return out
        pairs = _decode_items(items, depth)
        for i, pair in enumerate(pairs):
            if type(pair) is not list or len(pair) != 2:
                raise InvalidSave(f"expected a [key, value] pair, found {show(items[i])}", (i,))
        out = dict(pairs)
        if len(out) != len(pairs):
            raise InvalidSave("a key appears twice")
        _sortable(out)
        return out
    except TypeError:  # a list or table used as a set item or key
        raise InvalidSave("a set item or table key is a list or table", (tag,)) from None
    except InvalidSave as error:
        raise error.within(tag) from None


def _decode_items(doc, depth: int) -> list:
    return each_item(check_list(doc), decode_any, depth + 1)


def _sortable(items) -> None:
    # encode_any writes sets and tables sorted: their items must compare with each other.
    try:
        sorted(items)
    except TypeError:
        raise InvalidSave(
            "the items of a set or the keys of a table are of different kinds"
        ) from None


# ---------------------------------------------------------------- checks shared by the decoders


def show(doc) -> str:
    """A short description of a JSON value for messages."""
    kind = type(doc)
    if doc is None:
        return "null"
    if kind is bool:
        return "true" if doc else "false"
    if kind is int:
        return (
            str(doc) if -INT_LIMIT <= doc < INT_LIMIT else f"an integer of {doc.bit_length()} bits"
        )
    if kind is str:
        return repr(doc if len(doc) <= 40 else doc[:40] + "…")
    if kind is list:
        return f"a list of {len(doc)} items"
    if kind is dict:
        return f"an object of {len(doc)} keys"
    return f"a {kind.__name__}"


def check_int(doc) -> int:
    """`doc` if it is a JSON integer within the 64-bit signed range (true/false are not numbers)."""
    if type(doc) is not int:
        raise InvalidSave(f"expected an integer, found {show(doc)}")
    if not -INT_LIMIT <= doc < INT_LIMIT:
        raise InvalidSave(f"{show(doc)} is outside the integer range -2**63..2**63-1")
    return doc


def check_text(doc) -> str:
    """`doc` if it is text that can be written as UTF-8."""
    if type(doc) is not str:
        raise InvalidSave(f"expected text, found {show(doc)}")
    if not doc.isascii():
        try:
            doc.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidSave("text holds a lone surrogate") from None
    return doc


def check_list(doc) -> list:
    """`doc` if it is a JSON list of at most MAX_ITEMS items."""
    if type(doc) is not list:
        raise InvalidSave(f"expected a list, found {show(doc)}")
    if len(doc) > MAX_ITEMS:
        raise InvalidSave(f"a list holds at most {MAX_ITEMS} items, this one {len(doc)}")
    return doc


def each_item(items: list, decode, arg) -> list:
    """`decode(item, arg)` of every item; an InvalidSave names the item's index."""
    out = []
    for i, item in enumerate(items):
        try:
            out.append(decode(item, arg))
        except InvalidSave as error:
            raise error.within(i) from None
    return out


def check_object(doc) -> dict:
    """`doc` if it is a JSON object of at most MAX_ITEMS keys."""
    if type(doc) is not dict:
        raise InvalidSave(f"expected an object, found {show(doc)}")
    if len(doc) > MAX_ITEMS:
        raise InvalidSave(f"an object holds at most {MAX_ITEMS} keys, this one {len(doc)}")
    return doc


def _key_lookup(item: Desc, keys: tuple) -> dict[str, int]:
    # JSON object keys are text: a table over bool keys is saved with keys "0" and "1".
    return {str(key): i for i, key in enumerate(keys)}


def _key_index(lookup: dict[str, int], item: Desc, key, n: int) -> int:
    if isinstance(item, PlayerD):
        return item.decode(key, n)
    index = lookup.get(key if type(key) is str else str(key) if type(key) is int else None)
    if index is None:
        raise InvalidSave(f"{show(key)} is not a key of this table or bag")
    return index


def _cell(cell, size: int) -> tuple:
    if type(cell) is not list or len(cell) != size:
        raise InvalidSave(f"a cell is a list of {size} integers, found {show(cell)}")
    for c in cell:
        if type(c) is not int or not -GEO_LIMIT <= c <= GEO_LIMIT:
            raise InvalidSave(f"a coordinate is an integer within ±{GEO_LIMIT}, found {show(c)}")
    return tuple(cell)


def _cells(doc, size: int) -> tuple:
    cells = each_item(check_list(doc), _cell, size)
    if not cells:
        raise InvalidSave("a shape, frame or piece has at least one cell")
    if len(cells) > GEO_CELLS:
        raise InvalidSave(f"at most {GEO_CELLS} cells, found {len(cells)}")
    return tuple(cells)


# Values copy_any shares as they are, told by their exact type without a call (the common case).
_SHARED = frozenset((int, str, bool, float, type(None), tuple))


def copy_any(value):
    """Deep copy of frame values (lists, dicts and sets are copied; scalars shared)."""
    if isinstance(value, list):
        return [v if type(v) in _SHARED else copy_any(v) for v in value]
    if isinstance(value, dict):
        return {k: v if type(v) in _SHARED else copy_any(v) for k, v in value.items()}
    if isinstance(value, set):
        return set(value)
    return value
