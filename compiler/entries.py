"""Frameless entries: a called frame procedure runs as a plain function until it must wait.

A frame procedure keeps its locals in its frame (`L['x']`) so that a game can be saved while
it waits for a decision. Most calls never wait (a condition fails, nobody can board), yet each
would build a frame, push it and run it through the dispatch loop. The entry
`<name>_enter(S, <arguments>)` (planned on the IR by the `frameless_entries` stage, written by
compiler/emit.py) runs the same blocks with the locals as Python variables: each expression is
rebuilt with its `FrameLocal` nodes as locals `l_x` and `F.ret` as `_ret` (`in_entry`). Where a
decision starts (`ir.NeedsFrame`), it makes the frame the procedure would have had there — the
same locals and last call's result — and goes on as the frame version (which the runner then
resumes as always); when a call inside it waits, it puts the frame it would have had under the
callee's.
Saves, clones and replays see the same frames.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import expr as e
from compiler import ir
from compiler.blocks import threaded
from compiler.names import names_of
from compiler.printer import ir_expr
from compiler.pyexpr import PyExpr

LOCAL_PREFIX = "l_"  # a frame local `x` as a Python variable of an entry


@dataclass(frozen=True)
class Entry:
    """What writing a procedure's frameless entry needs."""

    params: tuple[str, ...]  # the frame locals a call sets, in argument order
    others: tuple[str, ...]  # the other frame locals, set as the procedure runs
    written: frozenset[int]  # the blocks the entry runs (reached from the first before a decision)
    framed_jumps: frozenset[int]  # where its frame goes on after a decision starts (no wait)


def plan_entries(module: ir.Module) -> None:
    """The frameless_entries stage: plan the entry of each called procedure that can finish
    without a frame (`FrameProc.entry`); emit writes `<name>_enter` for those planned."""
    for part in module.functions:
        if isinstance(part, ir.FrameProc):
            part.entry = plan_entry(threaded(part))


def plan_entry(proc: ir.FrameProc) -> Entry | None:
    """The entry of a called procedure that can finish without a frame, else None (also when
    a block it would run uses the frame before a decision: only the frame version runs those)."""
    if proc.params is None:
        return None
    written, finishes = _reached(proc)
    if not finishes or any(needs_frame(proc.blocks[number]) for number in written):
        return None
    names = frame_locals(proc)
    params = tuple(proc.params)
    framed_jumps = frozenset(
        stmt.target
        for number in written
        for stmt in ir.statements(proc.blocks[number][len(before_frame(proc.blocks[number])) :])
        if isinstance(stmt, ir.Jump)
    )
    return Entry(params, tuple(n for n in names if n not in params), written, framed_jumps)


def frame_locals(proc: ir.FrameProc) -> list[str]:
    """The frame locals a procedure's blocks read or set, in the order they first appear."""
    names: list[str] = []
    for block in proc.blocks:
        for expr in ir.expressions(block):
            for name in names_of(expr).frame_locals:
                if name not in names:
                    names.append(name)
    return names


def local(name: str) -> str:
    """The Python variable holding frame local `name` in an entry."""
    return LOCAL_PREFIX + name


_RET = e.Attr(e.Name("F"), "ret")


def in_entry(x: PyExpr) -> PyExpr:
    """An expression of the frame version as an entry writes it: each frame local `L['x']` the
    variable `l_x`, the last call's result `F.ret` the variable `_ret` (its node rebuilt)."""
    found = names_of(x)
    if not found.frame_locals and not found.reads_ret:
        assert not found.uses_frame, f"a frameless entry cannot use the frame: {x.code!r}"
        return x
    replace = {e.FrameLocal(name): e.Local(local(name)) for name in found.frame_locals}
    replace[_RET] = e.Local("_ret")
    rebuilt = ir_expr(e.substitute(x.node, replace))
    left = names_of(rebuilt)
    assert not left.uses_frame and "L" not in left.names, (
        f"an entry cannot use the frame: {x.code!r}"
    )
    return rebuilt


def before_frame(block: list[ir.Stmt]) -> list[ir.Stmt]:
    """The statements of a block before its decision (`NeedsFrame`), if it has one."""
    for number, stmt in enumerate(block):
        if isinstance(stmt, ir.NeedsFrame):
            return block[:number]
    return block


def needs_frame(block: list[ir.Stmt]) -> bool:
    """True for a block that uses its frame before any decision."""
    head = before_frame(block)
    for stmt in ir.statements(head):
        if isinstance(stmt, ir.Suspend | ir.Yield):
            return True
    return any(names_of(expr).uses_frame for expr in ir.expressions(head))


def _reached(proc: ir.FrameProc) -> tuple[frozenset[int], bool]:
    """The blocks reached from the first before any decision, and whether one returns."""
    seen: set[int] = set()
    finishes = False
    todo = [0]
    while todo:
        number = todo.pop()
        if number in seen:
            continue
        seen.add(number)
        for stmt in ir.statements(before_frame(proc.blocks[number])):
            if isinstance(stmt, ir.FrameReturn):
                finishes = True
            elif isinstance(stmt, ir.Jump):
                todo.append(stmt.target)
            elif isinstance(stmt, ir.PushCall):
                todo.append(stmt.resume)
    return frozenset(seen), finishes
