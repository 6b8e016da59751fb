"""Aggregates over a few constant values, written out.

`any(c in col[d] for d in range(3))` becomes `c in col[0] or c in col[1] or c in col[2]`: the
same values tested in the same order, without making and running a generator. Only `any`,
`all`, `sum`, `min` and `max` over a walk that is not charged (`for x in range(n)`, n a
constant of at most UNROLL) and has no condition; a charged walk is `_l.each(S, …)`.
"""

from __future__ import annotations

from compiler import ir
from compiler.expr import (
    BinOp,
    Call,
    Comp,
    Const,
    Expr,
    For,
    Helper,
    Local,
    Name,
    Operand,
    Paren,
    call,
    rebuilt,
    substitute_free,
)
from compiler.printer import ir_expr
from compiler.pyexpr import PyExpr

UNROLL = 8  # aggregates over at most this many constant values are written out

# How the written-out values are joined: an operator, or the arguments of a builtin.
JOINED = {"any": "or", "all": "and", "sum": "+"}
EXTREMES = {Helper("_l", "least"): "min", Helper("_l", "greatest"): "max"}


def unroll_aggregates(module: ir.Module) -> None:
    """Write out, in every expression of `module`, the aggregates over a few constant values (in place)."""

    def rewrite(expr: PyExpr) -> PyExpr:
        node = rebuilt(expr.node, unrolled)
        return expr if node is expr.node else ir_expr(node)

    ir.rewrite_expressions(module, rewrite)


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
