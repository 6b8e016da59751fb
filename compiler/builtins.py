"""Signatures of the library functions rule files may call (all game-agnostic)."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.types import (
    ANY,
    BOOL,
    BUILDING,
    INT,
    PLACEMENT,
    PLAYER,
    STR,
    AnyT,
    CollT,
    ElemT,
    EnumT,
    GeoT,
    IntT,
    OptT,
    TupleT,
    Type,
)


@dataclass(frozen=True, slots=True)
class Builtin:
    """A library function: arity, whether it changes state or draws randomness, and its doc."""

    name: str
    arity: tuple[int, int]
    mutates: bool
    doc: str


BUILTINS = {
    b.name: b
    for b in [
        Builtin("size", (1, 1), False, "number of items (a bag counts repeats)"),
        Builtin("min", (1, 2), False, "the smaller of two numbers, or the least of a collection"),
        Builtin("max", (1, 2), False, "the larger of two numbers, or the greatest of a collection"),
        Builtin("sum", (1, 1), False, "total of a collection of numbers"),
        Builtin("count", (1, 1), False, "number of true items (or items) of a comprehension"),
        Builtin("any", (1, 1), False, "true if any item is true"),
        Builtin("all", (1, 1), False, "true if every item is true"),
        Builtin("abs", (1, 1), False, "absolute value"),
        Builtin("ceil_to", (2, 2), False, "round a number up to a multiple"),
        Builtin("floor_to", (2, 2), False, "round a number down to a multiple"),
        Builtin("ceil_div", (2, 2), False, "a / b rounded up"),
        Builtin("seat", (1, 1), False, "the player in seat i (1-based)"),
        Builtin("next_player", (1, 1), False, "the next player clockwise"),
        Builtin("seat_number", (1, 1), False, "the 1-based seat of a player"),
        Builtin("to_move", (0, 0), False, "the players who must decide now"),
        Builtin("game_over", (0, 0), False, "true once the game has ended"),
        Builtin("name", (1, 1), False, "the name of an element or enum value"),
        Builtin("top", (1, 1), False, "the top item of a pile (none if empty)"),
        Builtin("sorted", (1, 1), False, "the items in ascending order"),
        Builtin("reversed", (1, 1), False, "the items in reverse order"),
        Builtin("distinct", (1, 1), False, "the items without repeats, in ascending order"),
        Builtin("index_of", (2, 2), False, "position (0-based) of an item in a list, -1 if absent"),
        Builtin("connected", (3, 3), False, "true if two vertices are joined by a list of edges"),
        Builtin("graph_connected", (2, 2), False, "true if every vertex is joined to every other"),
        Builtin(
            "grid_edges",
            (1, 1),
            False,
            "pairs of orthogonally adjacent cells from (cell, x, y) tuples",
        ),
        Builtin(
            "reachable", (4, 4), False, "vertices within n steps over edges, avoiding blocked ones"
        ),
        Builtin(
            "longest_trail",
            (1, 1),
            False,
            "heaviest trail (no edge twice) over (a, b, weight) edges",
        ),
        Builtin(
            "placements",
            (4, 4),
            False,
            "legal placements of a shape in a frame on a building (max floors, 0: any)",
        ),
        Builtin("fits", (4, 4), False, "true if a shape may be placed there on the building"),
        Builtin("place", (3, 3), False, "the building with a shape added at a placement"),
        Builtin("without", (2, 2), False, "the building with piece i taken away"),
        Builtin(
            "removable",
            (1, 1),
            False,
            "pieces that can be taken away leaving the rest supported and each of their floors in one part",
        ),
        Builtin("floor_count", (1, 1), False, "number of floors of a building"),
        Builtin("piece_count", (1, 1), False, "number of pieces of a building"),
        Builtin(
            "build",
            (2, 2),
            False,
            "stack (shape, placement) pieces in order in a frame; none if a step is illegal",
        ),
        Builtin("empty_building", (0, 0), False, "a building with no pieces"),
        Builtin("first", (1, 1), False, "the first item of a collection, none if it is empty"),
        Builtin("cells_of", (1, 1), False, "the (x, y) ground cells of a frame"),
        Builtin("remove_at", (2, 2), True, "remove the item at a position of a list"),
        Builtin("roll", (1, 1), True, "a random number from 1 to n, from the state's generator"),
        Builtin("take_top", (1, 1), True, "remove and return the top item of a pile"),
        Builtin("add", (2, 2), True, "add an item to a collection"),
        Builtin("remove", (2, 2), True, "remove one occurrence of an item from a collection"),
        Builtin("put_bottom", (2, 2), True, "put an item under a pile"),
        Builtin("clear", (1, 1), True, "empty a collection"),
    ]
}

NUMERIC_AGGREGATES = ("sum", "min", "max")


def item_type(t: Type) -> Type | None:
    """The item type of an iterable type, None if not iterable."""
    if isinstance(t, AnyT):
        return ANY
    if isinstance(t, CollT):
        return t.item
    if isinstance(t, GeoT) and t.kind == "frame":
        return TupleT((INT, INT))
    return None


def builtin_result(name: str, args: list[Type]) -> Type | str:
    """The result type of a builtin call, or an error message."""

    def coll(i: int) -> Type | None:
        return item_type(args[i])

    if name == "size":
        return INT if coll(0) is not None else f"size() needs a collection, not {args[0]}"
    if name in ("min", "max"):
        if len(args) == 2:
            return (
                INT if all(isinstance(a, IntT | AnyT) for a in args) else f"{name}() of two numbers"
            )
        item = coll(0)
        return item if item is not None else f"{name}() needs a collection"
    if name == "sum":
        return INT if coll(0) is not None else "sum() needs a collection of numbers"
    if name in ("count",):
        return INT if coll(0) is not None else "count() needs a collection"
    if name in ("any", "all"):
        return BOOL if coll(0) is not None else f"{name}() needs a collection"
    if name in ("abs", "ceil_to", "floor_to", "ceil_div"):
        return INT if all(isinstance(a, IntT | AnyT) for a in args) else f"{name}() needs numbers"
    if name == "seat":
        return PLAYER if isinstance(args[0], IntT | AnyT) else "seat() needs a number"
    if name == "next_player":
        return PLAYER
    if name == "seat_number":
        return INT
    if name == "to_move":
        return CollT("list", PLAYER)
    if name == "game_over":
        return BOOL
    if name == "name":
        return STR
    if name == "top":
        item = coll(0)
        return OptT(item) if item is not None else "top() needs a pile"
    if name in ("sorted", "reversed", "distinct"):
        item = coll(0)
        return CollT("list", item) if item is not None else f"{name}() needs a collection"
    if name == "index_of":
        return INT
    if name in ("connected", "graph_connected"):
        return BOOL
    if name == "grid_edges":
        item = coll(0)
        if not isinstance(item, TupleT | AnyT) or (
            isinstance(item, TupleT) and len(item.items) != 3
        ):
            return "grid_edges() needs a list of (cell, x, y) tuples"
        cell = item.items[0] if isinstance(item, TupleT) else ANY
        return CollT("list", TupleT((cell, cell)))
    if name == "reachable":
        item = coll(2)
        if item is None:
            return "reachable(edges, start, blocked, steps) needs a collection of blocked vertices"
        start = args[1].inner if isinstance(args[1], OptT) else args[1]
        return CollT("list", start)
    if name == "longest_trail":
        item = coll(0)
        if item is None or not (isinstance(item, TupleT | AnyT)):
            return "longest_trail() needs a list of (a, b, weight) tuples"
        return INT
    if name == "placements":
        return CollT("list", PLACEMENT)
    if name in ("fits",):
        return BOOL
    if name in ("place", "without"):
        return BUILDING
    if name == "removable":
        return CollT("list", INT)
    if name in ("floor_count", "piece_count"):
        return INT
    if name == "remove_at":
        return ANY
    if name == "build":
        return OptT(BUILDING)
    if name == "empty_building":
        return BUILDING
    if name == "first":
        item = coll(0)
        return OptT(item) if item is not None else "first() needs a collection"
    if name == "cells_of":
        return CollT("list", TupleT((INT, INT)))
    if name == "roll":
        return INT
    if name == "take_top":
        item = coll(0)
        return item if item is not None else "take_top() needs a pile"
    if name in ("add", "remove", "put_bottom", "clear"):
        return ANY
    return f"unknown builtin {name}"


def vertex_like(t: Type) -> bool:
    """Types usable as graph vertices."""
    return isinstance(t, ElemT | EnumT | IntT | AnyT) or t == PLAYER
