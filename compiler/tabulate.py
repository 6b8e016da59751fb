"""Stage `tabulate_listings`: in an action's listing, an aggregate over one parameter is
computed once for each of its values, not once for each combination of the arguments.

A parameter whose values the listing computes once (a domain of subsets that hoisting makes
once, or a few fixed values) may have aggregates that read it alone besides the state and `me`
(a list comprehension, a sum/any/min/… over a generator, a rule function's result). Each of the
largest such aggregates gets a name `_eN`, and the parameter's loop walks its values paired with
those aggregates, `for v, _e0 in [(v, sum(…)) for v in values]`. The pairs read no parameter: the
stage `hoist_listings` makes them once per listing, the first time the loop is reached (and falls
back to the plain listing if one fails). A loop whose test reads none of the parameters before
it keeps only the values that pass it: the test too is made once per value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import count

from compiler import ir
from compiler.expr import (
    Call,
    Comp,
    Const,
    Display,
    Expr,
    For,
    Helper,
    If,
    Local,
    Name,
    Operand,
    Paren,
    Unary,
    walk,
    with_fields,
)
from compiler.invariance import SUBSETS, Invariance, aggregate
from compiler.listing_shape import Loop, listing_loops
from compiler.printer import ir_expr
from compiler.pyexpr import PyExpr

TABULATED_CONSTANTS = 16  # aggregates over at most this many fixed values are tabulated
EACH = Helper("_l", "each")  # a walk charged to the step budget as a whole


def tabulate_listings(module: ir.Module) -> None:
    """In every action's optimised listing, tabulate the aggregates over one parameter (in place)."""
    for action in module.actions:
        tabulate(action.legal)


def tabulate(listing: ir.Function) -> None:
    """Pair each loop whose values are computed once with the aggregates over them (in place)."""
    _, loops = listing_loops(listing.body)
    facts = Invariance()
    names = count()
    outer: set[Expr] = set()  # the locals the loops before bind
    for loop in loops:
        var = loop.loop.target.node
        values = _values(loop)
        if values is not None and isinstance(var, Local):
            found = Aggregates(var, facts, names)
            ir.rewrite_expressions(loop.loop.body, found.rewritten)
            if found.names:
                _walk_pairs(loop, var, values, found.names, outer)
        outer |= {sub for sub in walk(loop.loop.target.node) if isinstance(sub, Local)}


@dataclass
class Aggregates:
    """The largest aggregates over one loop's local alone, each replaced by its name."""

    var: Local
    facts: Invariance
    numbers: Iterator[int]  # the listing's: its names are `_e0`, `_e1`, …
    names: dict[Expr, Local] = field(default_factory=dict)  # an aggregate -> its name

    def rewritten(self, code: PyExpr) -> PyExpr:
        """An expression with its aggregates over the local replaced by their names."""
        node = self.replaced(code.node)
        return code if node is code.node else ir_expr(node)

    def replaced(self, node: Expr) -> Expr:
        if aggregate(node) and self.facts.free(node) == frozenset((self.var,)):
            if node not in self.names:
                self.names[node] = Local(f"_e{next(self.numbers)}")
            return self.names[node]
        return with_fields(node, lambda _, child: self.replaced(child))


def _walk_pairs(
    loop: Loop, var: Local, values: Expr, aggregates: dict[Expr, Local], outer: set[Expr]
) -> None:
    """The loop over `var` walking its values paired with their aggregates (those that pass
    its test, if the test reads no earlier loop's local)."""
    row = Display("bare", (var, *aggregates.values()))
    paired = Paren(Display("bare", (var, *aggregates)))
    pairs: Expr = Comp("list", paired, (For(var, values),))
    test = _test(loop)
    if test is not None and outer and not any(sub in outer for sub in walk(test)):
        if any(sub in aggregates.values() for sub in walk(test)):
            pairs = Comp("list", Paren(row), (For(row, pairs), If(test)))
        else:
            pairs = Comp("list", paired, (For(var, values), If(test)))
        loop.loop.body.remove(loop.test)
    loop.loop.target, loop.loop.iterable = ir_expr(row), ir_expr(pairs)
    loop.loop.bind_from = None  # its values come in rows: no element's attributes to bind


def _test(loop: Loop) -> Expr | None:
    """The condition a loop's values must meet (its test is `if not (condition): continue`)."""
    if loop.test is None:
        return None
    node = loop.test.branches[0].cond.node
    if not (isinstance(node, Unary) and node.op == "not"):
        return None
    inner = node.operand
    return inner.inner if isinstance(inner, Operand) else inner


def _values(loop: Loop) -> Expr | None:
    """The values a parameter's loop walks, if the listing computes them once (else None).

    Lowering walks a domain itself, or names it in the loop's setup (`_d1 = domain`, to count
    its values), charged as a whole (`_l.each(S, domain, at)`) where its walk may cost steps.
    """
    walked = loop.loop.iterable.node
    for stmt in loop.setup:
        if isinstance(stmt, ir.Assign) and stmt.op == "=" and stmt.target.node == walked:
            walked = stmt.value.node
    if isinstance(walked, Call) and walked.func == EACH:
        walked = walked.args[1]
    return walked if once_per_listing(walked) else None


def once_per_listing(domain: Expr) -> bool:
    """True if a parameter's values are computed once per listing, or fixed and few.

    An aggregate over a fixed domain is worth tabulating when the domain is small: the table
    takes every value's aggregate, and the loop may be reached for one outer value only.
    """
    if isinstance(domain, Call) and domain.func == SUBSETS:
        return Invariance().invariant(domain)  # hoisting computes it once
    if not (isinstance(domain, Call) and domain.func == Name("range") and len(domain.args) == 1):
        return False
    size = domain.args[0]
    return isinstance(size, Const) and type(size.value) is int and size.value <= TABULATED_CONSTANTS
