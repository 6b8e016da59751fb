"""Values several listings of one menu compute alike: computed once per listing of the menu.

A menu (`choose by p { a, b, c }`) lists each offered action's legal arguments in turn, at one
position, for one player. Each listing computes once what depends on no parameter (hoisting,
compiler/lower.py); when two listings of a menu hoist the same costly value (the subsets of
the player's tokens, say), the menu passes them a dict in which the first one leaves
the value for the others. The value is the same (same position, same player, and listings
only read the state); only its charge to the step budget is made once, by the first listing,
at its own line.
"""

from __future__ import annotations

import re
from collections import Counter

from compiler import ir
from compiler.pyexpr import PyExpr

X = PyExpr.of

_ALIAS = re.compile(r"\b_h\d+\b")
_CALL = re.compile(r"A_(\w+)_legal\(S, me, out\)")
_BOUND = re.compile(r"\bfor ([A-Za-z_]\w*) in\b")


def share_listings(module: ir.Module, files) -> None:
    """Make the menus' listings share the costly values they compute alike (in place).

    `files` are the rule files: a walk's charge names one of them, a line and a column (and a
    weight) as its last arguments, which the values' keys leave out.
    """
    quoted = "|".join(re.escape(repr(file)) for file in sorted(files))
    charge_at = re.compile(rf", \((?:{quoted}), \d+, \d+\)(?:, \d+)?(?=\))") if quoted else None
    listings = {action.name: action.legal for action in module.actions}
    keys = {name: _hoisted_keys(function, charge_at) for name, function in listings.items()}
    shared: set[str] = set()
    for site in module.sites:
        offered = [name for name in site.offered if name in listings]
        counts = Counter(key for name in offered for key in set(keys[name].values()))
        shared |= {key for key, count in counts.items() if count > 1}
    if not shared:
        return
    numbers = {key: number for number, key in enumerate(sorted(shared))}
    takers = set()
    for name, function in listings.items():
        wanted = {alias: numbers[key] for alias, key in keys[name].items() if key in shared}
        if wanted:
            _take_shared(function, wanted)
            takers.add(name)
    for site in module.sites:
        if any(name in takers for name in site.offered):
            _pass_shared(site.legal, takers)


def _hoisted_keys(function: ir.Function, charge_at: re.Pattern | None) -> dict[str, str]:
    """Each costly hoisted value of a listing (alias -> what it computes, charges aside)."""
    codes = {
        stmt.target.code: stmt.value.code
        for stmt in ir.statements(function.body)
        if _computes_alias(stmt)
    }
    expanded: dict[str, str] = {}

    def expand(alias: str) -> str:
        if alias not in expanded:
            inner = _ALIAS.sub(lambda m: f"({expand(m.group())})", codes[alias])
            expanded[alias] = charge_at.sub("", inner) if charge_at is not None else inner
        return expanded[alias]

    return {alias: canonical(expand(alias)) for alias in codes if _costly(codes[alias])}


def canonical(code: str) -> str:
    """`code` with the variables its comprehensions bind renamed in order (`_b0`, `_b1`, …):
    listings name them apart, and the same comprehension must have the same key."""
    names = dict.fromkeys(_BOUND.findall(code))
    for number, name in enumerate(names):
        code = re.sub(rf"\b{re.escape(name)}\b", f"_b{number}", code)
    return code


def _computes_alias(stmt: ir.Stmt) -> bool:
    """True for `_hN = code` (not the marker `_hN = _UNSET` of a value not computed yet)."""
    return (
        isinstance(stmt, ir.Assign)
        and _ALIAS.fullmatch(stmt.target.code) is not None
        and stmt.value.code != "_UNSET"
    )


def _costly(code: str) -> bool:
    """True for a value worth sharing: a comprehension, an aggregate or a set of subsets."""
    return " for " in code or "_l.subsets(" in code


def _take_shared(function: ir.Function, wanted: dict[str, int]) -> None:
    """Rewrite `alias = code` as: the menu's value if another listing made it, else made and left."""

    def rewrite(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for stmt in stmts:
            if _computes_alias(stmt) and stmt.target.code in wanted:
                alias, number = stmt.target.code, wanted[stmt.target.code]
                made = [stmt, ir.Assign(X(f"_shared[{number}]"), X(alias))]
                out += [
                    ir.Assign(stmt.target, X(f"_shared.get({number}, _UNSET)"), stmt.span),
                    ir.If([ir.Branch(X(f"{alias} is _UNSET"), made)]),
                ]
                continue
            ir.rewrite_nested(stmt, rewrite)
            out.append(stmt)
        return out

    function.body = [
        ir.If([ir.Branch(X("_shared is None"), [ir.Assign(X("_shared"), X("{}"))])]),
        *rewrite(function.body),
    ]
    function.params = [*function.params, "_shared=None"]


def _pass_shared(menu: ir.Function, takers: set[str]) -> None:
    """The menu's listing: one dict for its listings' shared values, passed to those that take it."""
    body: list[ir.Stmt] = [ir.Assign(X("_shared"), X("{}"))]
    for stmt in menu.body:
        call = _CALL.fullmatch(stmt.expr.code) if isinstance(stmt, ir.Eval) else None
        if call is not None and call.group(1) in takers:
            stmt = ir.Eval(X(f"A_{call.group(1)}_legal(S, me, out, _shared)"), stmt.span)
        body.append(stmt)
    menu.body = body
