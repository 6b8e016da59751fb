"""The library functions rule files may call: each declared once, for every pass that meets it.

One `Builtin` entry says how the checker types a call (`arity`, `params`, `result`, `effect`),
how constant evaluation computes it (`const`), what runs while the game is played (`runtime`,
a function of `runtime/`) and how code generation writes the call (`emit`); the rules,
evaluations and emitters it names live in `compiler/builtin_rules.py`. The language
reference's list (`docs/builtins.md`) is generated from this table by
`python -m compiler.builtin_docs --markdown`.

To add a builtin: add one entry to TABLE (and its runtime function, if it has one), then
regenerate docs/builtins.md; tests/test_builtins.py checks the entry is complete.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from string import Formatter

from compiler.builtin_rules import (
    TypeRule,
    always,
    count_true,
    edges_connected,
    emit_add,
    emit_clear,
    emit_count,
    emit_extreme,
    emit_mix,
    emit_name,
    emit_put_bottom,
    emit_remove,
    emit_size,
    extreme,
    graph_connected,
    greatest,
    grid_edges_rule,
    in_order,
    item_type,
    least,
    listed,
    longest_trail_rule,
    mixer_rule,
    numbers,
    numeric,
    of_items,
    over_items,
    pair_or_items,
    path_cost_rule,
    reachable_rule,
    seat_rule,
    truth,
)
from compiler.expr import Call, Code, Expr, Helper, S, StateField
from compiler.types import (
    ANY,
    BOOL,
    BUILDING,
    FRAME,
    INT,
    PLACEMENT,
    PLAYER,
    SHAPE,
    STR,
    CollT,
    OptT,
    TupleT,
    Type,
)
from runtime import floor_plans, graph, grid, lib, shapes

# Modules of `runtime/` as the generated module imports them (compiler/templates/module.py.jinja).
RUNTIME_ALIASES = {
    "runtime.floor_plans": "_plans",
    "runtime.graph": "_g",
    "runtime.grid": "_grid",
    "runtime.lib": "_l",
    "runtime.shapes": "_shapes",
}


@dataclass(frozen=True, slots=True)
class Over:
    """How a builtin takes a comprehension `f(x for x in xs)`: what items it needs, its result."""

    result: Callable[[Type], Type]  # item type -> result type
    item_ok: Callable[[Type], bool] | None = None
    needs: str = ""  # the error when an item is refused: `{name}`, `{item}`


@dataclass(frozen=True, slots=True)
class Builtin:
    """One library function: its checking, constant evaluation, runtime and code generation."""

    name: str
    args: str  # the parameter names as the reference shows them (" | " between two forms)
    doc: str
    arity: tuple[int, int]
    result: TypeRule
    params: tuple[Type | None, ...] = ()  # argument types checked first (None: any)
    effect: str = "reads"  # or "changes" (its first argument, in place) or "random"
    mutates: bool = False  # a random builtin that also changes its first argument in place
    adds_item: bool = False  # the second argument is an item of the first (a collection)
    counts_only: bool = False  # reads only how many items there are (so guards may see secrets)
    small_result: bool = False  # an integer small by nature (a count, seat, position): in range
    reads_position: bool = False  # reads who decides now, not the state: never computed once
    sorted_unique: bool = False  # its list is ascending, without repeats: never sorted again
    runtime: str | None = None  # dotted name of the function in runtime/ that does the work
    emit: str | Callable | None = None  # template, or fn(gen, node, args, env); None: call runtime
    const: Callable[[list], object] | None = None  # compile-time value of the arguments' values
    lazy: bool = False  # constant evaluation passes a range without listing it
    over: Over | None = None

    def emit_code(self, gen, node, args: list[Expr], env) -> Expr:
        """The expression for a call: the emit function's, or the template filled in.

        A template takes the arguments as `{0}`, `{1}`, …, the first argument's items in a
        defined order as `{items}` (charged to the step budget) or `{walk}` (not), the state
        as `{S}`, a state field as `{S.name}` and a runtime helper as `{_l.name}`; its text
        between holes is operators, brackets and Python's own functions.
        """
        if callable(self.emit):
            return self.emit(gen, node, args, env)
        if self.emit is None:
            module, _, function = self.runtime.rpartition(".")
            return Call(Helper(RUNTIME_ALIASES[module], function), tuple(args))
        parts: list[str | Expr] = []
        for text, hole, _, _ in Formatter().parse(self.emit):
            parts.append(text)
            if hole is not None:
                parts.append(_filled(hole, gen, node, args, env))
        return Code(tuple(part for part in parts if part != ""))


def template_reads_state(builtin: Builtin) -> bool:
    """True if a builtin's template passes the state or reads a state field (`{S}`, `{S.name}`)."""
    if not isinstance(builtin.emit, str):
        return False
    holes = [hole for _, hole, _, _ in Formatter().parse(builtin.emit) if hole is not None]
    return any(hole == "S" or hole.startswith("S.") for hole in holes)


def _filled(hole: str, gen, node, args: list[Expr], env) -> Expr:
    """What a template's `{hole}` stands for."""
    if hole.isdigit():
        return args[int(hole)]
    if hole in ("items", "walk"):
        return gen.items(node.args[0], env, charge=hole == "items")
    if hole == "S":
        return S
    owner, _, name = hole.partition(".")
    return StateField(name) if owner == "S" else Helper(owner, name)


# ---------------------------------------------------------------- the table

_SUM = Over(always(INT), numeric, "sum() needs numbers, not {item}")
_TRUTHS = Over(always(BOOL), truth, "{name}() needs truth values, not {item}")

TABLE: list[Builtin] = [
    # collections
    Builtin(
        "size",
        "xs",
        "number of items (a bag counts repeats)",
        (1, 1),
        lambda args: (
            INT if item_type(args[0]) is not None else f"size() needs a collection, not {args[0]}"
        ),
        counts_only=True,
        emit=emit_size,
        const=lambda args: len(args[0]),
        lazy=True,
        small_result=True,
    ),
    Builtin(
        "sum",
        "xs",
        "total of a collection of numbers",
        (1, 1),
        of_items(always(INT), "sum() needs a collection of numbers"),
        emit="sum({items})",
        const=over_items(sum),
        over=_SUM,
    ),
    Builtin(
        "count",
        "xs",
        "number of true items (or items) of a comprehension",
        (1, 1),
        of_items(always(INT), "count() needs a collection"),
        emit=emit_count,
        const=over_items(count_true),
        over=Over(always(INT)),
        small_result=True,
    ),
    Builtin(
        "any",
        "xs",
        "true if any item is true",
        (1, 1),
        of_items(always(BOOL), "any() needs a collection"),
        emit="any({items})",
        const=over_items(any),
        over=_TRUTHS,
    ),
    Builtin(
        "all",
        "xs",
        "true if every item is true",
        (1, 1),
        of_items(always(BOOL), "all() needs a collection"),
        emit="all({items})",
        const=over_items(all),
        over=_TRUTHS,
    ),
    Builtin(
        "min",
        "a, b | xs",
        "the smaller of two numbers, or the least of a collection",
        (1, 2),
        extreme("min"),
        runtime="runtime.lib.least",
        emit=emit_extreme("least"),
        const=pair_or_items(min, least),
        over=Over(lambda item: item),
    ),
    Builtin(
        "max",
        "a, b | xs",
        "the larger of two numbers, or the greatest of a collection",
        (1, 2),
        extreme("max"),
        runtime="runtime.lib.greatest",
        emit=emit_extreme("greatest"),
        const=pair_or_items(max, greatest),
        over=Over(lambda item: item),
    ),
    Builtin(
        "sorted",
        "xs",
        "the items in ascending order",
        (1, 1),
        of_items(listed, "sorted() needs a collection"),
        emit="sorted({items})",
        const=over_items(sorted),
        over=Over(listed),
    ),
    Builtin(
        "reversed",
        "xs",
        "the items in reverse order",
        (1, 1),
        of_items(listed, "reversed() needs a collection"),
        emit="list(reversed({items}))",
    ),
    Builtin(
        "distinct",
        "xs",
        "the items without repeats, in ascending order",
        (1, 1),
        of_items(listed, "distinct() needs a collection"),
        runtime="runtime.lib.distinct",
        sorted_unique=True,
        emit="{_l.distinct}({items})",
        const=over_items(lambda values: sorted(set(values))),
        over=Over(listed),
    ),
    Builtin(
        "first",
        "xs",
        "the first item of a collection, none if it is empty",
        (1, 1),
        of_items(OptT, "first() needs a collection"),
        emit="next(iter({walk}), None)",
        const=lambda args: next(iter(in_order(args[0])), None),
        lazy=True,
    ),
    Builtin(
        "top",
        "pile",
        "the top item of a pile (none if empty)",
        (1, 1),
        of_items(OptT, "top() needs a pile"),
        emit="(({0}) or [None])[-1]",
    ),
    Builtin(
        "index_of",
        "xs, x",
        "position (0-based) of an item in a list, -1 if absent",
        (2, 2),
        always(INT),
        runtime="runtime.lib.index_of",
        small_result=True,
        const=lambda args: lib.index_of(args[0], args[1]),
    ),
    # numbers
    Builtin(
        "abs",
        "n",
        "absolute value",
        (1, 1),
        numbers("abs"),
        emit="abs({0})",
        const=lambda args: abs(args[0]),
    ),
    Builtin(
        "ceil_to",
        "n, step",
        "round a number up to a multiple",
        (2, 2),
        numbers("ceil_to"),
        emit="(-(-({0}) // ({1})) * ({1}))",
        const=lambda args: -(-args[0] // args[1]) * args[1],
    ),
    Builtin(
        "floor_to",
        "n, step",
        "round a number down to a multiple",
        (2, 2),
        numbers("floor_to"),
        emit="(({0}) // ({1}) * ({1}))",
        const=lambda args: args[0] // args[1] * args[1],
    ),
    Builtin(
        "ceil_div",
        "a, b",
        "a / b rounded up",
        (2, 2),
        numbers("ceil_div"),
        emit="(-(-({0}) // ({1})))",
        const=lambda args: -(-args[0] // args[1]),
    ),
    # players and the game
    Builtin(
        "seat",
        "i",
        "the player in seat i (1-based)",
        (1, 1),
        seat_rule,
        runtime="runtime.lib.seat",
        emit="{_l.seat}({S}, {0})",
        small_result=True,
    ),
    Builtin(
        "next_player",
        "p",
        "the next player clockwise",
        (1, 1),
        always(PLAYER),
        emit="(({0}) + 1) % {S.n}",
        small_result=True,
    ),
    Builtin(
        "seat_number",
        "p",
        "the 1-based seat of a player",
        (1, 1),
        always(INT),
        emit="(({0}) + 1)",
        small_result=True,
    ),
    Builtin(
        "to_move",
        "",
        "the players who must decide now",
        (0, 0),
        always(listed(PLAYER)),
        emit="{S.to_move}",
        reads_position=True,
    ),
    Builtin("game_over", "", "true once the game has ended", (0, 0), always(BOOL), emit="{S.over}"),
    Builtin(
        "name",
        "x",
        "the name of an element or enum value",
        (1, 1),
        always(STR),
        emit=emit_name,
        const=lambda args: str(args[0]),
    ),
    # graphs and grids
    Builtin(
        "connected",
        "edges, a, b",
        "true if two vertices are joined by a list of edges",
        (3, 3),
        always(BOOL),
        runtime="runtime.graph.connected",
        const=lambda args: edges_connected(list(args[0]), args[1], args[2]),
    ),
    Builtin(
        "graph_connected",
        "edges, vertices",
        "true if every vertex is joined to every other",
        (2, 2),
        always(BOOL),
        runtime="runtime.lib.graph_connected",
        const=lambda args: graph_connected(list(args[0]), list(args[1])),
    ),
    Builtin(
        "grid_edges",
        "cells",
        "pairs of orthogonally adjacent cells from (cell, x, y) tuples",
        (1, 1),
        grid_edges_rule,
        runtime="runtime.grid.grid_edges",
        const=lambda args: grid.grid_edges(list(args[0])),
    ),
    Builtin(
        "reachable",
        "edges, start, blocked, steps",
        "vertices within n steps over edges, avoiding blocked ones",
        (4, 4),
        reachable_rule,
        runtime="runtime.grid.reachable",
        sorted_unique=True,
    ),
    Builtin(
        "longest_trail",
        "edges",
        "heaviest trail (no edge twice) over (a, b, weight) edges",
        (1, 1),
        longest_trail_rule,
        runtime="runtime.graph.longest_trail",
        const=lambda args: graph.longest_trail(list(args[0])),
    ),
    Builtin(
        "path_cost",
        "edges, a, b, limit",
        "least total weight of a path joining two vertices over (a, b, weight) edges; limit if none costs less",
        (4, 4),
        path_cost_rule,
        runtime="runtime.graph.path_cost",
        const=lambda args: graph.path_cost(list(args[0]), args[1], args[2], args[3]),
    ),
    # shapes and buildings
    Builtin(
        "placements",
        "shape, frame, building, floors",
        "legal placements of a shape in a frame on a building (max floors, 0: any)",
        (4, 4),
        always(listed(PLACEMENT)),
        params=(SHAPE, FRAME, BUILDING, INT),
        runtime="runtime.shapes.legal_placements",
        sorted_unique=True,
        const=lambda args: shapes.legal_placements(*args),
    ),
    Builtin(
        "fits",
        "building, frame, shape, placement",
        "true if a shape may be placed there on the building",
        (4, 4),
        always(BOOL),
        params=(BUILDING, FRAME, SHAPE, PLACEMENT),
        runtime="runtime.shapes.fits",
        const=lambda args: shapes.fits(*args),
    ),
    Builtin(
        "place",
        "building, shape, placement",
        "the building with a shape added at a placement",
        (3, 3),
        always(BUILDING),
        params=(BUILDING, SHAPE, PLACEMENT),
        runtime="runtime.shapes.place",
        const=lambda args: shapes.place(*args),
    ),
    Builtin(
        "without",
        "building, i",
        "the building with piece i taken away",
        (2, 2),
        always(BUILDING),
        params=(BUILDING, INT),
        runtime="runtime.shapes.without",
        const=lambda args: shapes.without(*args),
    ),
    Builtin(
        "removable",
        "building",
        "pieces that can be taken away leaving the rest supported and each of their floors in one part",
        (1, 1),
        always(listed(INT)),
        params=(BUILDING,),
        runtime="runtime.shapes.removable_pieces",
        sorted_unique=True,
        const=lambda args: shapes.removable_pieces(args[0]),
    ),
    Builtin(
        "floor_count",
        "building",
        "number of floors of a building",
        (1, 1),
        always(INT),
        params=(BUILDING,),
        emit="({0}).floors",
        const=lambda args: args[0].floors,
        small_result=True,
    ),
    Builtin(
        "piece_count",
        "building",
        "number of pieces of a building",
        (1, 1),
        always(INT),
        params=(BUILDING,),
        emit="({0}).piece_count",
        const=lambda args: args[0].piece_count,
        small_result=True,
    ),
    Builtin(
        "build",
        "frame, pieces",
        "stack (shape, placement) pieces in order in a frame; none if a step is illegal",
        (2, 2),
        always(OptT(BUILDING)),
        params=(FRAME, None),
        runtime="runtime.shapes.build",
        const=lambda args: shapes.build(args[0], list(args[1])),
    ),
    Builtin(
        "empty_building",
        "",
        "a building with no pieces",
        (0, 0),
        always(BUILDING),
        emit="{_shapes.Building}.empty()",
    ),
    Builtin(
        "columns",
        "building",
        "the (x, y, height) of each ground cell a building stands on, in (x, y) order",
        (1, 1),
        always(listed(TupleT((INT, INT, INT)))),
        params=(BUILDING,),
        emit="({0}).columns()",
        const=lambda args: args[0].columns(),
    ),
    Builtin(
        "cells_of",
        "frame",
        "the (x, y) ground cells of a frame",
        (1, 1),
        always(listed(TupleT((INT, INT)))),
        params=(FRAME,),
        emit="list(({0}).cells)",
        const=lambda args: list(args[0].cells),
    ),
    Builtin(
        "floor_plan",
        "building, frames, floors",
        "a building drawn floor by floor over its frames, as text (max floors, 0: any)",
        (3, 3),
        always(STR),
        params=(BUILDING, CollT("list", FRAME), INT),
        runtime="runtime.floor_plans.floor_plan",
        const=lambda args: floor_plans.floor_plan(args[0], list(args[1]), args[2]),
    ),
    Builtin(
        "placement_words",
        "shape, placement",
        "the ground sites and floors a shape covers at a placement, as text: `b2 c2 on floor 1`",
        (2, 2),
        always(STR),
        params=(SHAPE, PLACEMENT),
        runtime="runtime.floor_plans.placement_words",
        const=lambda args: floor_plans.placement_words(*args),
    ),
    # changing the state
    Builtin(
        "roll",
        "n",
        "a random number from 1 to n, from the state's generator",
        (1, 1),
        always(INT),
        effect="random",
        runtime="runtime.lib.roll",
        emit="{_l.roll}({S}, {0})",
    ),
    Builtin(
        "mix",
        "inside, items, percents",
        "put items into a mixer (a list, usually hidden); each item inside comes out with "
        "percents[k - 1]% when k are inside (the last entry for more): those out, first out first",
        (3, 3),
        mixer_rule,
        params=(None, None, listed(INT)),
        effect="random",
        mutates=True,
        runtime="runtime.lib.mix",
        emit=emit_mix,
    ),
    Builtin(
        "take_top",
        "pile",
        "remove and return the top item of a pile",
        (1, 1),
        of_items(lambda item: item, "take_top() needs a pile"),
        effect="changes",
        runtime="runtime.lib.take_top",
    ),
    Builtin(
        "remove_at",
        "xs, i",
        "remove the item at a position of a list",
        (2, 2),
        always(ANY),
        params=(None, INT),
        effect="changes",
        runtime="runtime.lib.remove_at",
    ),
    Builtin(
        "add",
        "xs, x",
        "add an item to a collection",
        (2, 2),
        always(ANY),
        effect="changes",
        adds_item=True,
        emit=emit_add,
    ),
    Builtin(
        "remove",
        "xs, x",
        "remove one occurrence of an item from a collection",
        (2, 2),
        always(ANY),
        effect="changes",
        adds_item=True,
        emit=emit_remove,
    ),
    Builtin(
        "put_bottom",
        "pile, x",
        "put an item under a pile",
        (2, 2),
        always(ANY),
        effect="changes",
        adds_item=True,
        emit=emit_put_bottom,
    ),
    Builtin(
        "clear", "xs", "empty a collection", (1, 1), always(ANY), effect="changes", emit=emit_clear
    ),
]

BUILTINS: dict[str, Builtin] = {b.name: b for b in TABLE}
COMPREHENSIONS = [b.name for b in TABLE if b.over is not None]
