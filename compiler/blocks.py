"""A frame procedure's blocks as they run: what follows a terminator never does, and a jump to
a block that only jumps on may go straight to where it leads (used by compiler/entries.py and
compiler/emit.py alike, so an entry is planned over the blocks emit writes)."""

from __future__ import annotations

from dataclasses import replace

from compiler import ir

# Statements after which nothing in the same block runs.
TERMINATORS = (
    ir.Jump,
    ir.Suspend,
    ir.PushCall,
    ir.Yield,
    ir.FrameReturn,
    ir.Return,
    ir.Break,
    ir.Continue,
    ir.RaiseEndGame,
    ir.RaiseRuleError,
)


def reachable(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
    """The statements up to the first one after which nothing runs (the rest is never reached)."""
    for number, stmt in enumerate(stmts):
        if isinstance(stmt, TERMINATORS):
            return stmts[: number + 1]
    return stmts


def threaded(proc: ir.FrameProc) -> ir.FrameProc:
    """The procedure with every jump to a block that only jumps on sent straight to where it
    leads (blocks keep their numbers: a frame may be waiting at any resume point)."""
    onward: dict[int, int] = {}
    for number, block in enumerate(proc.blocks):
        run = reachable(block)
        if len(run) == 1 and isinstance(run[0], ir.Jump) and run[0].target != number:
            onward[number] = run[0].target

    def final(target: int) -> int:
        seen = {target}
        while target in onward and onward[target] not in seen:
            target = onward[target]
            seen.add(target)
        return target

    def rewrite(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for stmt in stmts:
            if isinstance(stmt, ir.Jump):
                stmt = ir.Jump(final(stmt.target), stmt.span)
            elif isinstance(stmt, ir.If):
                branches = [replace(b, body=rewrite(b.body)) for b in stmt.branches]
                orelse = None if stmt.orelse is None else rewrite(stmt.orelse)
                stmt = replace(stmt, branches=branches, orelse=orelse)
            out.append(stmt)
        return out

    return replace(proc, blocks=[rewrite(block) for block in proc.blocks])
