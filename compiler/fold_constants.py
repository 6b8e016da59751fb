"""Stage `fold_constants`: what depends only on the rules' constants is computed while compiling.

Inlined functions bring constants into the code that reads them: `min(size(ROWS[r]) for r in
0..5)` becomes `min(len(C_ROWS[0]), …, len(C_ROWS[5]))` once its aggregate is written out, and
`C_SEATS if (C_SEATS > 0) else S.n` tests a constant. The stage evaluates such parts with the
values the module is written with (a constant is written as the literal of its value, so Python
computes the same thing at run time) and writes a number, truth value, text or none in their
place; a conditional whose test is known keeps only the branch it takes. Aggregates over
constant values are computed too (`max(len(C_ROWS[r]) for r in range(0, 3))`), up to
FOLD_STEPS values a part. A part that fails (an index out of range, a division by zero, the
maximum of nothing) is left to fail when run.
"""

from __future__ import annotations

import operator

from compiler import ir
from compiler.expr import (
    BinOp,
    Call,
    Comp,
    Cond,
    Const,
    Expr,
    For,
    Helper,
    If,
    Index,
    Local,
    Name,
    Operand,
    Paren,
    Table,
    Unary,
    rebuilt,
)
from compiler.literals import ident
from compiler.printer import ir_expr
from compiler.pyexpr import PyExpr

UNKNOWN = object()  # a part whose value is known only when the game runs

FOLD_STEPS = 4096  # the values a folded aggregate may walk, all its comprehensions together


def _nonempty(aggregate):
    """`aggregate` of a collection that is not empty (else a ValueError: left to the game); the
    runtime's helper may be given a name for its message, which changes nothing here."""

    def computed(values, *_named):
        values = list(values)
        if not values:
            raise ValueError("empty")
        return aggregate(values)

    return computed


# The builtins folded when all their arguments are known (pure, and cheap to call here), and the
# runtime's aggregates that are builtins but for their error on nothing.
BUILTINS = {
    Name("len"): len,
    Name("min"): min,
    Name("max"): max,
    Name("abs"): abs,
    Name("sum"): sum,
    Name("any"): any,
    Name("all"): all,
    Name("range"): range,
    Helper("_l", "greatest"): _nonempty(max),
    Helper("_l", "least"): _nonempty(min),
}
# Builtins that walk their argument: folded only over at most FOLD_STEPS items.
WALKING = frozenset(
    (Name("min"), Name("max"), Name("sum"), Name("any"), Name("all"))
    + (Helper("_l", "greatest"), Helper("_l", "least"))
)
ARITHMETIC = frozenset(("+", "-", "*", "//", "%"))  # folded on numbers only (a list times n is not)
OPERATORS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": operator.floordiv,
    "%": operator.mod,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    # Lowering writes `is` only against none; folded, a known value never stays to be compared
    # with `is` (Python warns at `0 is None`).
    "is": operator.is_,
    "is not": operator.is_not,
}
LARGEST = 1 << 63  # a folded number beyond this is left as written (the range check reports it)


def fold_constants(module: ir.Module) -> None:
    """Replace, in every expression of `module`, each part computed from constants alone by its
    value (in place)."""
    known = {f"C_{ident(name)}": value for name, value in module.consts}
    columns = {
        (kind, field): values for kind, _, fields in module.tables for field, values in fields
    }
    folder = Folder(known, columns)

    def rewrite(expr: PyExpr) -> PyExpr:
        node = rebuilt(expr.node, folder.fold)
        return expr if node is expr.node else ir_expr(node)

    ir.rewrite_expressions(module, rewrite)


class Folder:
    """Folds one node at a time, its subexpressions already folded (see `rebuilt`)."""

    def __init__(self, known: dict[str, object], columns: dict[tuple[str, str], tuple]):
        self.known = known
        self.columns = columns
        self.steps = 0  # values walked by the part being folded

    def fold(self, node: Expr) -> Expr:
        """`node`, or the constant it computes, or the branch of a conditional it takes."""
        self.steps = 0
        if isinstance(node, Cond):
            test = self.value(node.cond, {})
            if test is not UNKNOWN:
                return Paren(node.then if test else node.orelse)
            return node
        if not isinstance(node, Index | Call | BinOp | Unary):
            # A name stays a name (a table is written once, under its name); parentheses keep
            # what is inside them, folded already (the printer drops those around one value).
            return node
        value = self.value(node, {})
        if value is UNKNOWN or not _literal(value):
            return node
        return Const(value)

    def value(self, node: Expr, bound: dict[Local, object]) -> object:
        """The value `node` computes with the comprehension variables `bound`, or UNKNOWN."""
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Paren | Operand):
            return self.value(node.inner, bound)
        if isinstance(node, Name):
            return self.known.get(node.id, UNKNOWN)
        if isinstance(node, Local):
            return bound.get(node, UNKNOWN)
        if isinstance(node, Table):
            return self.columns.get((node.kind, node.field), UNKNOWN)
        if isinstance(node, Comp):
            return self._items(node, bound)
        parts: list[Expr]
        if isinstance(node, Index):
            parts = [node.obj, node.index]
            compute = operator.getitem
        elif isinstance(node, Call) and node.func in BUILTINS:
            parts = list(node.args)
            compute = BUILTINS[node.func]
        elif isinstance(node, BinOp) and node.op in OPERATORS:
            parts = [node.left, node.right]
            compute = OPERATORS[node.op]
        elif isinstance(node, Unary) and node.op in ("-", "not"):
            parts = [node.operand]
            compute = operator.neg if node.op == "-" else operator.not_
        else:
            return UNKNOWN
        values = []
        for part in parts:
            value = self.value(part, bound)
            if value is UNKNOWN or not _foldable(value):
                return UNKNOWN
            values.append(value)
        if _too_costly(node, values):
            return UNKNOWN
        try:
            return compute(*values)
        except (ArithmeticError, LookupError, TypeError, ValueError):
            return UNKNOWN  # left for the game to report when it runs

    def _items(self, comp: Comp, bound: dict[Local, object]) -> object:
        """The values a list comprehension or generator makes, or UNKNOWN."""
        if comp.kind not in ("gen", "list"):
            return UNKNOWN
        out: list = []

        def walk(clauses: tuple, scope: dict[Local, object]) -> bool:
            if not clauses:
                value = self.value(comp.elem, scope)
                out.append(value)
                return value is not UNKNOWN
            clause, rest = clauses[0], clauses[1:]
            if isinstance(clause, If):
                test = self.value(clause.cond, scope)
                return test is not UNKNOWN and (not test or walk(rest, scope))
            if not (isinstance(clause, For) and isinstance(clause.target, Local)):
                return False
            items = self.value(clause.iterable, scope)
            if items is UNKNOWN or not isinstance(items, range | list | tuple | dict):
                return False
            for item in items:
                self.steps += 1
                if self.steps > FOLD_STEPS or not walk(rest, {**scope, clause.target: item}):
                    return False
            return True

        return out if walk(comp.clauses, bound) else UNKNOWN


def _too_costly(node: Expr, values: list) -> bool:
    """True if computing `node` from `values` could build or walk a large value: arithmetic
    on anything but numbers (a list times n), a walk of more than FOLD_STEPS items."""
    if isinstance(node, BinOp) and node.op in ARITHMETIC:
        return not all(isinstance(v, int) for v in values)
    if isinstance(node, Call) and node.func in WALKING:
        sized = (v for v in values if isinstance(v, str | list | tuple | dict | range))
        return any(len(v) > FOLD_STEPS for v in sized)
    return False


def _foldable(value: object) -> bool:
    """True for a value folding may compute with: a number, truth value, text, none or a
    container of them (the constants' values)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return -LARGEST <= value < LARGEST
    return value is None or isinstance(value, bool | str | list | tuple | dict | range)


def _literal(value: object) -> bool:
    """True for a value written in place of the part that computes it: a number in range, a
    truth value, none or a short text (never a container: a table keeps its name)."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return -LARGEST <= value < LARGEST
    return isinstance(value, str) and len(value) <= 40
