"""Values several listings of one menu compute alike: computed once per listing of the menu.

A menu (`choose by p { a, b, c }`) lists each offered action's legal arguments in turn, at one
position, for one player. Each listing computes once what depends on no parameter (hoisting,
compiler/hoist.py); when two listings of a menu hoist the same costly value (the subsets of
the player's tokens, say), the menu passes them a list in which the first one leaves
the value for the others (a slot per shared value, read by index: cheaper than a dict's get). The value is the same (same position, same player, and listings
only read the state); only its charge to the step budget is made once, by the first listing,
at its own line.
"""

from __future__ import annotations

from collections import Counter

from compiler import ir
from compiler.expr import (
    ME,
    BinOp,
    Call,
    Comp,
    Const,
    Display,
    Expr,
    For,
    Helper,
    Hoisted,
    Index,
    Listing,
    Loc,
    Local,
    Name,
    Operand,
    Paren,
    S,
    rebuilt,
    substitute,
    walk,
)
from compiler.printer import ir_expr, py_expanded

X = ir_expr
SHARED = Name("_shared")  # the menu's list of the values its listings share
UNSET = Name("_UNSET")  # a value not computed yet


def share_listings(module: ir.Module) -> None:
    """Make the menus' listings share the costly values they compute alike (in place)."""
    listings = {action.name: action.legal for action in module.actions}
    keys = {name: _hoisted_keys(function) for name, function in listings.items()}
    shared: set[Expr] = set()
    for site in module.sites:
        offered = [name for name in site.offered if name in listings]
        counts = Counter(key for name in offered for key, _ in set(keys[name].values()))
        shared |= {key for key, count in counts.items() if count > 1}
    if not shared:
        return
    # Numbered in the order of their printed code, so that a module reads as it always did.
    texts = {key: text for name in listings for key, text in keys[name].values()}
    numbers = {key: number for number, key in enumerate(sorted(shared, key=texts.__getitem__))}
    takers = set()
    for name, function in listings.items():
        wanted = {alias: numbers[key] for alias, (key, _) in keys[name].items() if key in shared}
        if wanted:
            _take_shared(function, wanted, len(numbers))
            takers.add(name)
    for site in module.sites:
        if any(name in takers for name in site.offered):
            _pass_shared(site.legal, takers, len(numbers))


def _hoisted_keys(function: ir.Function) -> dict[Hoisted, tuple[Expr, str]]:
    """Each costly hoisted value of a listing (alias -> what it computes, charges aside, and
    its code as printed with the values it reads put in for their aliases)."""
    codes = {
        stmt.target.node: stmt.value.node
        for stmt in ir.statements(function.body)
        if _computes_alias(stmt)
    }
    expanded: dict[Hoisted, Expr] = {}

    def expand(alias: Hoisted) -> Expr:
        if alias not in expanded:
            inner = {used: Paren(expand(used)) for used in walk(codes[alias]) if used in codes}
            expanded[alias] = _uncharged(substitute(codes[alias], inner))
        return expanded[alias]

    keys = {}
    for alias, code in codes.items():
        if _costly(code):
            renamed = _renaming(expand(alias))
            pieces = {a: substitute(_uncharged(c), renamed) for a, c in codes.items()}
            keys[alias] = canonical(expand(alias)), py_expanded(pieces[alias], pieces)
    return keys


def _uncharged(code: Expr) -> Expr:
    """`code` without the locations (and weights) its walks are charged at: a walk's charge
    names a rule file, a line and a column (and a weight) as its last arguments."""

    def cut(node: Expr) -> Expr:
        if not isinstance(node, Call):
            return node
        at = next((i for i, arg in enumerate(node.args) if isinstance(arg, Loc)), None)
        if at is None or at == 0 or not all(_weight(arg) for arg in node.args[at + 1 :]):
            return node
        return Call(node.func, node.args[:at]) if len(node.args) - at <= 2 else node

    return rebuilt(code, cut)


def _weight(arg: Expr) -> bool:
    """True for a charge's weight (a constant number of steps)."""
    return isinstance(arg, Const) and type(arg.value) is int


def canonical(code: Expr) -> Expr:
    """What `code` computes, whatever its comprehensions' variables are named and however it is
    parenthesised: the key under which listings share it."""
    return rebuilt(substitute(code, _renaming(code)), _ungrouped)


def _ungrouped(node: Expr) -> Expr:
    """`node` without the parentheses around it (a tree needs none: they only print)."""
    return node.inner if isinstance(node, Paren | Operand) else node


def _renaming(code: Expr) -> dict[Expr, Local]:
    """The variables `code`'s comprehensions bind, renamed in order (`_b0`, `_b1`, …): listings
    name them apart, and the same comprehension must have the same key."""
    bound = dict.fromkeys(
        sub.target for sub in walk(code) if isinstance(sub, For) and isinstance(sub.target, Local)
    )
    return {name: Local(f"_b{number}") for number, name in enumerate(bound)}


def _computes_alias(stmt: ir.Stmt) -> bool:
    """True for `_hN = code` (not the marker `_hN = _UNSET` of a value not computed yet)."""
    return (
        isinstance(stmt, ir.Assign)
        and isinstance(stmt.target.node, Hoisted)
        and stmt.value.node != UNSET
    )


def _costly(code: Expr) -> bool:
    """True for a value worth sharing: a comprehension, an aggregate or a set of subsets."""
    return any(
        isinstance(sub, Comp) or (isinstance(sub, Call) and sub.func == Helper("_l", "subsets"))
        for sub in walk(code)
    )


def _slots(count: int) -> Expr:
    """`[_UNSET] * count`: a menu's shared values, none computed yet."""
    return BinOp(Display("list", (UNSET,)), "*", Const(count))


def _take_shared(function: ir.Function, wanted: dict[Hoisted, int], count: int) -> None:
    """Rewrite `alias = code` as: the menu's value if another listing made it, else made and left."""

    def rewrite(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for stmt in stmts:
            if _computes_alias(stmt) and stmt.target.node in wanted:
                alias = stmt.target.node
                number = Const(wanted[alias])
                made = [stmt, ir.Assign(X(Index(SHARED, number)), X(alias))]
                found = Index(SHARED, number)
                out += [
                    ir.Assign(stmt.target, X(found), stmt.span),
                    ir.If([ir.Branch(X(BinOp(alias, "is", UNSET)), made)]),
                ]
                continue
            ir.rewrite_nested(stmt, rewrite)
            out.append(stmt)
        return out

    made = ir.Assign(X(SHARED), X(_slots(count)))
    function.body = [
        ir.If([ir.Branch(X(BinOp(SHARED, "is", Const(None))), [made])]),
        *rewrite(function.body),
    ]
    function.params = [*function.params, "_shared=None"]


def _pass_shared(menu: ir.Function, takers: set[str], count: int) -> None:
    """The menu's listing: one list for its listings' shared values, passed to those that take it."""
    body: list[ir.Stmt] = [ir.Assign(X(SHARED), X(_slots(count)))]
    for stmt in menu.body:
        called = stmt.expr.node if isinstance(stmt, ir.Eval) else None
        listing = called.func if isinstance(called, Call) else None
        if isinstance(listing, Listing) and listing.action in takers:
            stmt = ir.Eval(X(Call(called.func, (S, ME, Name("out"), SHARED))), stmt.span)
        body.append(stmt)
    menu.body = body
