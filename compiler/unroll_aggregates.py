"""Aggregates over a few constant values, written out.

`any(c in col[d] for d in range(3))` becomes `c in col[0] or c in col[1] or c in col[2]`: the
same values tested in the same order, without making and running a generator. Only `any`,
`all`, `sum`, `min` and `max` over a walk that is not charged (`for x in range(n)`, n a
constant of at most UNROLL) and has no condition; a charged walk is `_l.each(S, …)`.

`max(a, b)` of two cheap values becomes `(b if b > a else a)`: both are evaluated twice, still
faster than a builtin call, with Python's result (the first unless the second is strictly
beyond it). In a listing a read of a global or of `me`'s field counts as one name: the stage
hoist_listings reads it once there.
"""

from __future__ import annotations

from compiler import ir
from compiler.expr import (
    Attr,
    BinOp,
    Call,
    Comp,
    Cond,
    Const,
    Expr,
    For,
    FrameLocal,
    Helper,
    Index,
    Local,
    Name,
    Operand,
    Paren,
    StateField,
    Table,
    Unary,
    call,
    rebuilt,
    substitute_free,
)
from compiler.hoist import VALUE_SITES
from compiler.invariance import field_read
from compiler.printer import ir_expr
from compiler.pyexpr import PyExpr

UNROLL = 8  # aggregates over at most this many constant values are written out

# How the written-out values are joined: an operator, or the arguments of a builtin.
JOINED = {"any": "or", "all": "and", "sum": "+"}
EXTREMES = {Helper("_l", "least"): "min", Helper("_l", "greatest"): "max"}


def unroll_aggregates(module: ir.Module) -> None:
    """Write out, in every expression of `module`, the aggregates over a few constant values and
    the extremes of two cheap values (in place)."""

    def rewriter(fields_once: bool):
        def change(node: Expr) -> Expr:
            return _two_extreme(unrolled(node), fields_once)

        def rewrite(expr: PyExpr) -> PyExpr:
            node = rebuilt(expr.node, change)
            return expr if node is expr.node else ir_expr(node)

        return rewrite

    listings = [action.legal for action in module.actions]
    listings += [site.legal for site in module.sites if site.kind in VALUE_SITES]
    for listing in listings:
        ir.rewrite_expressions(listing, rewriter(True))
    ir.rewrite_expressions(module, rewriter(False))  # what is written out stays so


def unrolled(node: Expr) -> Expr:
    """`node` written out if it is an aggregate over a few constant values, else `node`."""
    if not (isinstance(node, Call) and len(node.args) == 1 and isinstance(node.args[0], Comp)):
        return node
    comp = node.args[0]
    builtin = node.func.id if isinstance(node.func, Name) else EXTREMES.get(node.func)
    if builtin not in (*JOINED, "min", "max") or comp.kind != "gen":
        return node
    if builtin == "sum" and comp.elem == Const(1):
        return node  # `count` of the items (`sum(1 for …)`), kept as lowering writes it
    count = _constant_range(comp.clauses)
    if count is None or not 1 <= count <= UNROLL:
        return node
    var = comp.clauses[0].target
    parts = [Operand(substitute_free(comp.elem, {var: Const(value)})) for value in range(count)]
    if builtin in ("min", "max"):
        return call(builtin, *parts)
    joined = parts[0]
    for part in parts[1:]:
        joined = BinOp(joined, JOINED[builtin], part)
    return Paren(joined)


def _two_extreme(node: Expr, fields_once: bool) -> Expr:
    """`max(a, b)` or `min(a, b)` of two cheap values as a conditional, else `node`."""
    if not (isinstance(node, Call) and node.func in (Name("min"), Name("max"))):
        return node
    if len(node.args) != 2 or not all(cheap_and_pure(a, fields_once) for a in node.args):
        return node
    first, second = node.args
    beyond = ">" if node.func == Name("max") else "<"
    return Paren(Cond(second, BinOp(second, beyond, first), first))


CHEAP_OPERANDS = 8  # names, constants, items, fields and operations in one cheap expression


def cheap_and_pure(code: Expr, fields_once: bool = False) -> bool:
    """True if `code` only reads names, items and fields, adds and subtracts (a few of them);
    with `fields_once`, a read of a global or of `me`'s field counts as one name."""
    operands = _cheap_operands(code, fields_once)
    return operands is not None and operands <= CHEAP_OPERANDS


def _cheap_operands(code: Expr, fields_once: bool) -> int | None:
    """The operands of `code` as Python counts them (a field read is two), None if not cheap."""
    if isinstance(code, Paren | Operand):
        return _cheap_operands(code.inner, fields_once)
    if isinstance(code, Name | Local | Table) or (fields_once and field_read(code)):
        return 1
    if isinstance(code, StateField):
        return 2  # `S.x`: the attribute and the name
    if isinstance(code, FrameLocal):
        return 3  # `L['x']`: the item, the name and the key
    if isinstance(code, Const):
        if type(code.value) is int and code.value < 0:
            return 2  # `-1` is a negation of a constant
        return 1 if code.value is None or isinstance(code.value, bool | int | str) else None
    parts: tuple[Expr, ...] | None = None
    if isinstance(code, Attr):
        parts = (code.obj,)
    elif isinstance(code, Index):
        parts = (code.obj, code.index)
    elif isinstance(code, BinOp) and code.op in ("+", "-"):
        parts = (code.left, code.right)
    elif isinstance(code, Unary) and code.op == "-":
        parts = (code.operand,)
    if parts is None:
        return None
    counts = [_cheap_operands(part, fields_once) for part in parts]
    return None if None in counts else 1 + sum(counts)


def _constant_range(clauses: tuple) -> int | None:
    """n, if `clauses` are just `for x in range(n)` (a walk of constant values, not charged)."""
    if len(clauses) != 1 or not isinstance(clauses[0], For):
        return None
    clause = clauses[0]
    walked = clause.iterable
    if not isinstance(clause.target, Local):
        return None
    if not (isinstance(walked, Call) and walked.func == Name("range") and len(walked.args) == 1):
        return None
    count = walked.args[0]
    if not isinstance(count, Const) or type(count.value) is not int or count.value < 0:
        return None
    return count.value
