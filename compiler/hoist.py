"""Stage `hoist_listings`: a listing computes once what depends on none of its loops.

An optimised listing (an action's `A_<name>_legal`, a value choice's `site<N>_legal`) reads
the state without changing it, so every value that reads no loop's local has one value for
the whole listing (compiler/invariance.py). Each of the largest such values worth it (a state
read, a comprehension, an aggregate, a rule function's result, a value computed from those)
becomes an alias `_hN`, computed once, before the loops or, for a value first needed inside
a loop, the first time the listing gets there. Computing a value early may evaluate one that a
test would have skipped; if one fails, the plain listing runs instead, so the result is always
exactly the plain one.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from enum import Enum

from compiler import ir
from compiler.expr import (
    ME,
    BinOp,
    Call,
    Comp,
    Cond,
    Expr,
    For,
    Hoisted,
    If,
    Index,
    Local,
    Name,
    S,
    Slice,
    walk,
    with_fields,
)
from compiler.invariance import OUT, Invariance, computed, costly, field_read
from compiler.listing_shape import Loop, listing_loops
from compiler.printer import ir_expr

X = ir_expr
LISTED = Local("_k")  # how many actions were listed before a lazily computed group
UNSET = Name("_UNSET")  # a lazily computed value not computed yet
VALUE_SITES = ("value", "each")  # sites whose listing walks a domain (a menu calls listings)


class Runs(Enum):
    """How often a part of a listing's expression is evaluated, which decides what is hoisted."""

    REPEATEDLY = "repeatedly"  # in a loop or comprehension: every invariant value worth it
    ONCE = "once"  # in a value computed once: a costly value or a read another one may share
    MAYBE = "maybe"  # there, in a branch that may not run: nothing (it would run always)


def hoist_listings(module: ir.Module) -> None:
    """In every optimised listing, compute once the values that depend on no loop (in place)."""
    for action in module.actions:
        hoister = Hoister()
        action.legal.body = hoister.rewrite(action.legal.body)
        if hoister.codes:
            action.legal.body = place_in_loops(action.legal.body, hoister.codes, action.name)
    for site in module.sites:
        if site.kind not in VALUE_SITES:
            continue
        plain = site.legal_plain or copy.deepcopy(site.legal)
        hoister = Hoister()
        if site.legal_plain is not None:  # a guard table's lookup, moved before the test
            hoister.rewrite(site.legal.body)
        else:  # its domain is walked once: what its test reads
            for stmt in site.legal.body:
                if isinstance(stmt, ir.For):
                    hoister.rewrite(stmt.body)
        if not hoister.codes:
            continue
        if site.legal_plain is None:
            plain.name = f"{site.legal.name}_plain"
            site.legal_plain = plain
        fallback = ir.Return(X(Call(Name(plain.name), (S, Name("F"), ME))))
        site.legal.body = _alias_block(hoister.codes, [fallback]) + site.legal.body


@dataclass
class Hoister:
    """Replaces the invariant values of one listing's statements by aliases (code -> alias,
    in the order they must be computed: a value after those it reads)."""

    codes: dict[Expr, Hoisted] = field(default_factory=dict)
    aliases: dict[Expr, Hoisted] = field(default_factory=dict)  # by the node replaced
    facts: Invariance = field(default_factory=Invariance)

    def rewrite(self, stmts: list[ir.Stmt]) -> list[ir.Stmt]:
        """The statements (in place) with their tests', domains' and assigned values' invariant
        parts replaced (what a statement does for its effect, such as listing an action, is
        left). Those outside the loops too: the loops or the other listings of a menu may need
        them (compiler/shared_listings.py), and a value that lowering moved before the test it
        follows in the plain listing (a guard table's keys) must fall back to it if it fails."""
        for stmt in ir.statements(stmts):
            if isinstance(stmt, ir.If):
                for branch in stmt.branches:
                    branch.cond = self._pyexpr(branch.cond)
            elif isinstance(stmt, ir.For):
                stmt.iterable = self._pyexpr(stmt.iterable)
            elif isinstance(stmt, ir.Assign):
                stmt.value = self._pyexpr(stmt.value)
        return stmts

    def _pyexpr(self, code):
        if code.node is None:
            return code
        node = self.expr(code.node, Runs.REPEATEDLY)
        return code if node is code.node else X(node)

    def expr(self, node: Expr, runs: Runs) -> Expr:
        """`node` with its largest invariant values worth it replaced by aliases: as often as
        it `runs`, in a value computed once only a costly one or a field read, which another
        value may share, and none in a branch of it that may not run."""
        if runs is Runs.MAYBE:  # but a value computed anyway is read from its alias
            return self.aliases.get(node) or self._parts(node, runs)
        worth = costly(node) or (runs is Runs.REPEATEDLY and computed(node))
        if worth and self.facts.invariant(node):
            return self._alias(node)
        return self._parts(node, runs)

    def _alias(self, node: Expr) -> Hoisted:
        alias = self.aliases.get(node)
        if alias is None:
            code = self._parts(node, Runs.ONCE)  # what it reads is registered first
            alias = self.aliases[node] = self.codes.setdefault(code, Hoisted(len(self.codes)))
        return alias

    def _parts(self, node: Expr, runs: Runs) -> Expr:
        """`node` with its subexpressions rewritten."""
        if isinstance(node, Comp):
            return self._comp(node, runs)
        # A conditional's test runs first: what the test computes, a branch reads.
        first = "cond" if isinstance(node, Cond) else None
        return with_fields(
            node, lambda name, value: self.expr(value, _branch(node, name, runs)), first
        )

    def _comp(self, node: Comp, runs: Runs) -> Comp:
        """A comprehension rewritten: its first walk runs as often as the comprehension, the
        rest once per item (a loop's target is never a value)."""
        each = Runs.MAYBE if runs is Runs.MAYBE else Runs.REPEATEDLY
        clauses: list[For | If] = []
        for number, clause in enumerate(node.clauses):
            if isinstance(clause, For):
                walked = self.expr(clause.iterable, each if number else runs)
                clauses.append(For(clause.target, walked))
            else:
                clauses.append(If(self.expr(clause.cond, each)))
        new = Comp(node.kind, self.expr(node.elem, each), tuple(clauses))
        return node if new == node else new


def _branch(node: Expr, part: str, runs: Runs) -> Runs:
    """How often a part of `node` runs: in a value computed once, a conditional's branches and
    the right operand of `and`/`or` may not."""
    if runs is not Runs.ONCE:
        return runs
    if isinstance(node, Cond) and part != "cond":
        return Runs.MAYBE
    if isinstance(node, BinOp) and node.op in ("and", "or") and part == "right":
        return Runs.MAYBE
    return runs


def place_in_loops(body: list[ir.Stmt], codes: dict[Expr, Hoisted], name: str) -> list[ir.Stmt]:
    """An action's listing with its aliases computed at the first loop whose tests need them:
    those of inner loops only once an outer value has passed its (cheaper) tests."""
    guard, loops = listing_loops(body)
    depths = first_use(codes, guard, loops)
    for code, alias in codes.items():
        if field_read(code):  # a field read costs less than checking whether it was made
            depths[alias] = min(depths[alias], 0)
    first = at_depth(codes, depths, -1)
    groups = [at_depth(codes, depths, d) for d in range(len(loops))]
    plain = Call(Name(f"A_{name}_legal_plain"), (S, ME, OUT))
    for depth in range(1, len(loops)):
        outer = loops[depth - 1]
        at = 1 if outer.test else 0
        outer.loop.body[at:at] = _lazy_block(groups[depth], plain)
    lazy = [group for group in groups[1:] if group]
    return (
        _alias_block(first, [ir.Return(X(plain))])
        + guard
        + _alias_block(groups[0] if groups else {}, [ir.Return(X(plain))])
        + ([ir.Assign(X(LISTED), X(Call(Name("len"), (OUT,))))] if lazy else [])
        + [ir.Assign(X(_lazy_marker(group)), X(UNSET)) for group in lazy]
        + body[len(guard) :]
    )


def first_use(codes: dict, guard: list[ir.Stmt], loops: list[Loop]) -> dict[Hoisted, int]:
    """For each alias, the first loop whose setup, domain or test needs it (-1: the guard); one
    read only where the innermost loop lists its actions (a row's bounds) goes with that loop."""
    depth = {alias: len(loops) - 1 for alias in codes.values()}
    parts = [(-1, _read(guard))]
    for number, loop in enumerate(loops):
        stmts = loop.setup + ([loop.test] if loop.test else [])
        parts.append((number, set(walk(loop.loop.iterable.node)) | _read(stmts)))
    for number, read in parts:
        for alias in read:
            if alias in depth:
                depth[alias] = min(depth[alias], number)
    # A value used to compute another one is needed where that one is.
    by_alias = {alias: code for code, alias in codes.items()}
    for alias in reversed(list(by_alias)):
        for used in walk(by_alias[alias]):
            if used in depth:
                depth[used] = min(depth[used], depth[alias])
    return depth


def _read(stmts: list[ir.Stmt]) -> set[Expr]:
    """Every expression node the statements' expressions hold (what they read, among others)."""
    return {sub for code in ir.expressions(stmts) if code.node for sub in walk(code.node)}


def at_depth(codes: dict, depths: dict[Hoisted, int], depth: int) -> dict:
    """The aliases first needed at one loop depth, in the order they must be computed."""
    return {code: alias for code, alias in codes.items() if depths[alias] == depth}


def _lazy_marker(group: dict) -> Hoisted:
    """The alias whose being unset tells a lazily computed group has not run yet (its last)."""
    return list(group.values())[-1]


def _lazy_block(aliases: dict, plain: Call) -> list[ir.Stmt]:
    """Values needed first inside a loop: computed the first time it gets there.

    If one fails, what was listed so far is dropped and the plain listing runs instead.
    """
    if not aliases:
        return []
    fallback = [
        ir.Delete(X(Index(OUT, Slice(LISTED, None)))),
        ir.Return(X(plain)),
    ]
    marker = _lazy_marker(aliases)
    return [ir.If([ir.Branch(X(BinOp(marker, "is", UNSET)), _alias_block(aliases, fallback))])]


def _alias_block(aliases: dict, fallback: list[ir.Stmt]) -> list[ir.Stmt]:
    """The aliases bound, falling back to the plain listing if one fails."""
    if not aliases:
        return []
    assigns: list[ir.Stmt] = [ir.Assign(X(alias), X(code)) for code, alias in aliases.items()]
    return [ir.Try(assigns, fallback)]
