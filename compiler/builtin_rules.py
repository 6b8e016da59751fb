"""What the builtin table (compiler/builtins.py) refers to: type rules, constant evaluation, emitters.

A type rule takes the argument types and returns the result type or an error message. A
constant evaluation takes the arguments' values. An emitter takes the code generator, the
call, the arguments' expression nodes and the environment, and returns the call's node
(compiler/expr.py); it may use `gen.t` (a node's type), `gen.items` (a walk of a collection
in a defined order) and `gen.checked` (a value range-checked before it is stored).
"""

from __future__ import annotations

from collections.abc import Callable

import networkx as nx

from compiler.expr import (
    PLAYER_COUNT,
    Attr,
    BinOp,
    Call,
    Const,
    Display,
    Expr,
    Helper,
    Index,
    Name,
    S,
    call,
    helper,
)
from compiler.literals import ident
from compiler.types import (
    ANY,
    INT,
    PLAYER,
    AnyT,
    BoolT,
    CollT,
    ElemT,
    EnumT,
    GeoT,
    IntT,
    OptT,
    PlayerT,
    TupleT,
    Type,
)
from dsl import ast

TypeRule = Callable[[list[Type]], "Type | str"]  # argument types -> result type, or an error


class ConstError(Exception):
    """A builtin cannot compute a value at compile time (constant evaluation reports it)."""


# ---------------------------------------------------------------- type rules


def item_type(t: Type) -> Type | None:
    """The item type of an iterable type, None if not iterable."""
    if isinstance(t, AnyT):
        return ANY
    if isinstance(t, CollT):
        return t.item
    if isinstance(t, GeoT) and t.kind == "frame":
        return TupleT((INT, INT))
    return None


def always(t: Type) -> TypeRule:
    """The rule of a builtin whose result is always `t`."""
    return lambda args: t


def numbers(name: str) -> TypeRule:
    """A number from numbers."""
    return lambda args: (
        INT if all(isinstance(a, IntT | AnyT) for a in args) else f"{name}() needs numbers"
    )


def of_items(make: Callable[[Type], Type], error: str) -> TypeRule:
    """A rule for a collection argument: `make(item type)`, or `error` if it is not one."""

    def rule(args: list[Type]) -> Type | str:
        item = item_type(args[0])
        return make(item) if item is not None else error

    return rule


def extreme(name: str) -> TypeRule:
    """min/max: of two numbers, or the item type of one collection."""

    def rule(args: list[Type]) -> Type | str:
        if len(args) == 2:
            return (
                INT if all(isinstance(a, IntT | AnyT) for a in args) else f"{name}() of two numbers"
            )
        item = item_type(args[0])
        return item if item is not None else f"{name}() needs a collection"

    return rule


def seat_rule(args: list[Type]) -> Type | str:
    """seat(i): a player from a number."""
    return PLAYER if isinstance(args[0], IntT | AnyT) else "seat() needs a number"


def grid_edges_rule(args: list[Type]) -> Type | str:
    """grid_edges(cells): pairs of cells from (cell, x, y) tuples."""
    item = item_type(args[0])
    if not isinstance(item, TupleT | AnyT) or (isinstance(item, TupleT) and len(item.items) != 3):
        return "grid_edges() needs a list of (cell, x, y) tuples"
    cell = item.items[0] if isinstance(item, TupleT) else ANY
    return CollT("list", TupleT((cell, cell)))


def reachable_rule(args: list[Type]) -> Type | str:
    """reachable(edges, start, blocked, steps): vertices of the start's type."""
    if item_type(args[2]) is None:
        return "reachable(edges, start, blocked, steps) needs a collection of blocked vertices"
    start = args[1].inner if isinstance(args[1], OptT) else args[1]
    return CollT("list", start)


def longest_trail_rule(args: list[Type]) -> Type | str:
    """longest_trail(edges): a number from (a, b, weight) tuples."""
    item = item_type(args[0])
    if item is None or not (isinstance(item, TupleT | AnyT)):
        return "longest_trail() needs a list of (a, b, weight) tuples"
    return INT


def path_cost_rule(args: list[Type]) -> Type | str:
    """path_cost(edges, a, b, limit): a number from (a, b, weight) tuples and a number."""
    item = item_type(args[0])
    if item is None or not (isinstance(item, TupleT | AnyT)):
        return "path_cost() needs a list of (a, b, weight) tuples"
    if not isinstance(args[3], IntT | AnyT):
        return "path_cost()'s limit is a number"
    return INT


def listed(item: Type) -> Type:
    """A list of `item`."""
    return CollT("list", item)


def numeric(t: Type) -> bool:
    """True for numbers (and unknown types)."""
    return isinstance(t, IntT | AnyT)


def truth(t: Type) -> bool:
    """True for truth values (and unknown types)."""
    return isinstance(t, BoolT | AnyT)


# ---------------------------------------------------------------- constant evaluation


def least(values: list):
    """The least value (an error at compile time if there is none)."""
    if not values:
        raise ConstError("min() of nothing")
    return min(values)


def greatest(values: list):
    """The greatest value (an error at compile time if there is none)."""
    if not values:
        raise ConstError("max() of nothing")
    return max(values)


def in_order(value):
    """A collection's items in a defined order (sets sorted)."""
    return sorted(value) if isinstance(value, set) else value


def over_items(aggregate: Callable[[list], object]) -> Callable[[list], object]:
    """Constant evaluation of a builtin over the items of its one collection argument."""
    return lambda args: aggregate(list(args[0]))


def pair_or_items(pair: Callable, aggregate: Callable[[list], object]) -> Callable[[list], object]:
    """Constant evaluation of min/max: of two values, or of one collection's items."""
    return lambda args: pair(args) if len(args) == 2 else aggregate(list(args[0]))


def count_true(values: list) -> int:
    """How many values are not false (count() of truth values or of items)."""
    return sum(1 for v in values if v is not False)


def edges_connected(edges: list, a, b) -> bool:
    """True if a path of edges joins a and b (networkx)."""
    g = _graph(edges, [a, b])
    return nx.has_path(g, a, b)


def graph_connected(edges: list, vertices: list) -> bool:
    """True if the edges join every listed vertex to every other (networkx)."""
    if len(vertices) <= 1:
        return True
    return nx.is_connected(_graph(edges, vertices))


def _graph(edges: list, vertices: list = ()) -> nx.MultiGraph:
    g = nx.MultiGraph()
    g.add_nodes_from(vertices)
    g.add_edges_from((a, b) for a, b, *_ in edges)
    return g


# ---------------------------------------------------------------- code generation


def _kind(gen, node) -> str | None:
    """The kind (list, bag, set, pile) of the first argument's collection type, if it is one."""
    t = gen.t(node.args[0]) if node.args else None
    return t.kind if isinstance(t, CollT) else None


def emit_size(gen, node, args, env) -> Expr:
    """size(): the number of players, the total of a bag's counts, or len()."""
    if isinstance(node.args[0], ast.PlayersLit):
        return PLAYER_COUNT
    if _kind(gen, node) == "bag":
        return call("sum", args[0])
    return call("len", args[0])


def emit_extreme(runtime_name: str) -> Callable:
    """min/max: of two values Python's (the stage unroll_aggregates may write it out), the
    runtime's of a collection."""

    def emit(gen, node, args, env) -> Expr:
        if len(args) == 2:
            return call(node.func, *args)
        return helper("_l", runtime_name, gen.items(node.args[0], env))

    return emit


def emit_count(gen, node, args, env) -> Expr:
    """count(): the total of a bag's counts, or the number of items."""
    if _kind(gen, node) == "bag":
        return call("sum", args[0])
    return call("len", gen.items(node.args[0], env, charge=False))


def emit_name(gen, node, args, env) -> Expr:
    """name(): from the enum's, kind's or players' name table, else str()."""
    t = gen.t(node.args[0])
    t = t.inner if isinstance(t, OptT) else t
    if isinstance(t, EnumT):
        return Index(Name(f"E_{ident(t.name)}"), args[0])
    if isinstance(t, ElemT):
        return Index(Name(f"K_{ident(t.kind)}"), args[0])
    if isinstance(t, PlayerT):
        return Call(Attr(Helper("_v", "PLAYER"), "label"), (args[0],))
    return call("str", args[0])


def _stored_item(gen, node, args) -> Expr:
    """The item's code, range-checked for the collection it is stored in."""
    if _kind(gen, node) is None:
        return args[1]
    return gen.checked(args[1], node.args[1], gen.t(node.args[0]).item)


def emit_add(gen, node, args, env) -> Expr:
    """add(): by the kind of collection, the item range-checked where stored."""
    kind = _kind(gen, node)
    if kind == "bag":
        return helper("_l", "bag_add", args[0], args[1])
    item = _stored_item(gen, node, args)
    return Call(Attr(args[0], "add" if kind == "set" else "append"), (item,))


def emit_remove(gen, node, args, env) -> Expr:
    """remove(): the runtime's for the kind of collection."""
    kind = _kind(gen, node)
    name = "bag_remove" if kind == "bag" else "set_remove" if kind == "set" else "list_remove"
    return helper("_l", name, args[0], args[1])


def emit_put_bottom(gen, node, args, env) -> Expr:
    """put_bottom(): insert at the bottom of a pile."""
    return Call(Attr(args[0], "insert"), (Const(0), _stored_item(gen, node, args)))


def mixer_rule(args: list[Type]) -> Type | str:
    """mix(): a list or pile, items of its type; the result is a list of them."""
    mixer, items = args[0], args[1]
    if isinstance(mixer, AnyT):
        return listed(ANY)
    if not isinstance(mixer, CollT) or mixer.kind not in ("list", "pile"):
        return f"mix() puts items into a list or pile, not {mixer}"
    if isinstance(items, AnyT) or (
        isinstance(items, CollT)
        and items.kind in ("list", "pile")
        and (items.item == mixer.item or isinstance(items.item, AnyT))
    ):
        return listed(mixer.item)
    return f"mix() puts a list of {mixer.item} into {mixer}, not {items}"


def emit_mix(gen, node, args, env) -> Expr:
    """mix(): the runtime's, with how the items are written (for chance outcomes)."""
    mixer = gen.t(node.args[0])
    desc = Name(gen.desc(mixer.item)) if isinstance(mixer, CollT) else Const(None)
    return helper("_l", "mix", S, args[0], args[1], args[2], desc)


def emit_clear(gen, node, args, env) -> Expr:
    """clear(): a bag keeps its slots with count 0."""
    if _kind(gen, node) == "bag":
        zeros = BinOp(Display("list", (Const(0),)), "*", call("len", args[0]))
        whole = call("slice", Const(None))
        return Call(Attr(args[0], "__setitem__"), (whole, zeros))
    return Call(Attr(args[0], "clear"), ())
