"""The shape lowering gives an action's optimised listing (compiler/lower_listings.py): its
guard, then one loop per parameter, each inside the one before, each loop's body starting
with its test. The stages that rework a listing's loops read it through `listing_loops`.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import ir


@dataclass
class Loop:
    """One loop of an action's listing: the statements before it, and its test (if any)."""

    setup: list[ir.Stmt]
    loop: ir.For
    test: ir.If | None


def listing_loops(body: list[ir.Stmt]) -> tuple[list[ir.Stmt], list[Loop]]:
    """An action listing's guard and its loops, outermost first (compiler/lower_listings.py
    nests them: each loop's body is its test, then the next loop's setup and loop)."""
    start = 0
    while start < len(body) and skips(body[start], ir.Return):
        start += 1
    guard, rest, loops = body[:start], body[start:], []
    while True:
        at = next((i for i, stmt in enumerate(rest) if isinstance(stmt, ir.For)), None)
        if at is None:
            return guard, loops
        loop = rest[at]
        test = loop.body[0] if loop.body and skips(loop.body[0], ir.Continue) else None
        loops.append(Loop(rest[:at], loop, test))
        rest = loop.body[1 if test else 0 :]


def skips(stmt: ir.Stmt, kind: type) -> bool:
    """True for `if not test: return` (a guard) or `if not test: continue` (a loop's test)."""
    if not (isinstance(stmt, ir.If) and len(stmt.branches) == 1 and stmt.orelse is None):
        return False
    (skip,) = stmt.branches[0].body or [None]
    return isinstance(skip, kind) and getattr(skip, "value", None) is None
