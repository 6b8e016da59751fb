"""A listing's loop value's fixed attributes, read once per value by the loops inside it.

`r.length` of a kind's element is a lookup in a constant table (`K_route__length[v_r]`).
A listing whose inner loops read it for each of their values (`c` in `claim(r, c, n)`,
say) looks it up once per value of `r` instead: after `r`'s own test, it is bound to a
local that the code inside the loop reads. Reads in `r`'s own test are left alone (most
values fail it before reading everything), and so are attributes read only once inside.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import fields

from compiler import ir
from compiler.pyexpr import PyExpr

REPEATED = 2  # reads worth a local: two per value, or one inside an inner loop


def bind_attributes(var: str, body: list[ir.Stmt], names: Iterator[str]) -> list[ir.Stmt]:
    """`body` (what runs for each value of the loop variable `var` after its test), with each
    fixed attribute of `var` it reads repeatedly read once into a local, first."""
    attribute = re.compile(rf"(?<![\w.])K_\w+__\w+\[{re.escape(var)}\]")
    weights: dict[str, int] = {}
    _weigh(body, attribute, 1, weights)
    bound = {read: next(names) for read, weight in weights.items() if weight >= REPEATED}
    if not bound:
        return body
    pattern = re.compile(r"(?<![\w.])(?:" + "|".join(re.escape(read) for read in bound) + ")")
    for stmt in ir.statements(body):
        _substitute(stmt, pattern, bound)
    return [ir.Assign(PyExpr.of(local), PyExpr.of(read)) for read, local in bound.items()] + body


def _weigh(stmts: list[ir.Stmt], attribute: re.Pattern, repeat: int, weights: dict) -> None:
    """Add each attribute read's count to `weights`, those inside inner loops counted twice."""
    for stmt in stmts:
        for f in fields(stmt):
            value = getattr(stmt, f.name)
            inner = (
                repeat * 2 if isinstance(stmt, ir.For | ir.While) and f.name == "body" else repeat
            )
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, ir.Stmt):
                    _weigh([item], attribute, inner, weights)
                elif isinstance(item, ir.Branch):
                    _count(item.cond, attribute, repeat, weights)
                    _weigh(item.body, attribute, repeat, weights)
                elif isinstance(item, PyExpr):
                    _count(item, attribute, repeat, weights)


def _count(expr: PyExpr, attribute: re.Pattern, repeat: int, weights: dict) -> None:
    for read in attribute.findall(expr.code):
        weights[read] = weights.get(read, 0) + repeat


def _substitute(stmt: ir.Stmt, pattern: re.Pattern, bound: dict[str, str]) -> None:
    """Replace, in `stmt`'s own expressions (not those of statements nested in it), each read."""

    def local(expr: PyExpr) -> PyExpr:
        code = pattern.sub(lambda m: bound[m.group()], expr.code)
        # A read is one operand and so is its local: the expression's shape is unchanged.
        return expr if code == expr.code else PyExpr(code, expr.atomic, expr.enclosed)

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
