"""A listing's loop value's fixed attributes, read once per value by the loops inside it.

`r.length` of a kind's element is a lookup in a constant table (`K_route__length[v_r]`).
A listing whose inner loops read it for each of their values (`c` in `claim(r, c, n)`,
say) looks it up once per value of `r` instead: after `r`'s own test, it is bound to a
local that the code inside the loop reads. Reads in `r`'s own test are left alone (most
values fail it before reading everything), and so are attributes read only once inside.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import fields

from compiler import ir
from compiler.expr import Expr, Index, Local, Table, children, unparen
from compiler.printer import ir_expr
from compiler.pyexpr import PyExpr

REPEATED = 2  # reads worth a local: two per value, or one inside an inner loop


def bind_listings(module: ir.Module) -> None:
    """In every action's listing, each loop over map elements reads the fixed attributes of its
    value that the code inside reads repeatedly once per value (in place)."""
    for action in module.actions:
        names = (Local(f"_a{number}") for number in itertools.count())
        loops = [
            stmt
            for stmt in ir.statements(action.legal.body)
            if isinstance(stmt, ir.For) and stmt.bind_from is not None
        ]
        for loop in reversed(loops):  # the innermost first: its locals are numbered first
            start = loop.bind_from
            inner = bind_attributes(loop.target.node, loop.body[start:], names)
            loop.body = loop.body[:start] + inner


def bind_attributes(var: Local, body: list[ir.Stmt], names: Iterator[Local]) -> list[ir.Stmt]:
    """`body` (what runs for each value of the loop variable `var` after its test), with each
    fixed attribute of `var` it reads repeatedly read once into a local, first."""
    weights: dict[Index, int] = {}
    _weigh(body, var, 1, weights)
    bound = {read: next(names) for read, weight in weights.items() if weight >= REPEATED}
    if not bound:
        return body
    for stmt in ir.statements(body):
        _substitute(stmt, var, bound)
    return [ir.Assign(ir_expr(local), ir_expr(read)) for read, local in bound.items()] + body


def _attribute(node: Expr, var: Local) -> Index | None:
    """The read `node` makes of one of `var`'s fixed attributes (written `K_kind__field[var]`)."""
    if isinstance(node, Index) and isinstance(node.obj, Table) and unparen(node.index) == var:
        return Index(node.obj, var)
    return None


def _weigh(stmts: list[ir.Stmt], var: Local, repeat: int, weights: dict) -> None:
    """Add each attribute read's count to `weights`, those inside inner loops counted twice."""
    for stmt in stmts:
        for f in fields(stmt):
            value = getattr(stmt, f.name)
            inner = (
                repeat * 2 if isinstance(stmt, ir.For | ir.While) and f.name == "body" else repeat
            )
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ir.Stmt):
                    _weigh([item], var, inner, weights)
                elif isinstance(item, ir.Branch):
                    _count(item.cond.node, var, repeat, weights)
                    _weigh(item.body, var, repeat, weights)
                elif isinstance(item, PyExpr):
                    _count(item.node, var, repeat, weights)


def _count(node: Expr, var: Local, repeat: int, weights: dict) -> None:
    """Count the attribute reads in `node`, in the order they are written."""
    read = _attribute(node, var)
    if read is not None:
        weights[read] = weights.get(read, 0) + repeat
        return
    for child in children(node):
        _count(child, var, repeat, weights)


def _replaced(node: Expr, var: Local, bound: dict[Index, Local]) -> Expr:
    """`node` with each bound attribute read replaced by its local."""
    read = _attribute(node, var)
    if read is not None:
        return bound.get(read, node)
    changed = {}
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, Expr):
            changed[f.name] = _replaced(value, var, bound)
        elif isinstance(value, tuple):
            changed[f.name] = tuple(
                _replaced(item, var, bound) if isinstance(item, Expr) else item for item in value
            )
    return type(node)(**{f.name: changed.get(f.name, getattr(node, f.name)) for f in fields(node)})


def _substitute(stmt: ir.Stmt, var: Local, bound: dict[Index, Local]) -> None:
    """Replace, in `stmt`'s own expressions (not those of statements nested in it), each read."""

    def local(expr: PyExpr) -> PyExpr:
        node = _replaced(expr.node, var, bound)
        return expr if node == expr.node else ir_expr(node)

    for f in fields(stmt):
        value = getattr(stmt, f.name)
        if isinstance(value, PyExpr):
            setattr(stmt, f.name, local(value))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ir.Branch):
                    item.cond = local(item.cond)
                elif isinstance(item, PyExpr):
                    value[i] = local(item)
                elif isinstance(item, tuple) and any(isinstance(x, PyExpr) for x in item):
                    value[i] = tuple(local(x) if isinstance(x, PyExpr) else x for x in item)
