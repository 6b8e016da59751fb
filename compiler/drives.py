"""Stage `frameless_driver`: every frame procedure also gets a driven version for the
frameless driver (runtime/driver.py).

A bot that never copies, saves or restores the position it is asked about (a random bot, a
rules-declared preference) needs no frames: the flow, the procedures and the actions can run
as plain Python calls that ask the bot where a decision is. The driven version of a procedure
(`<name>_drive(S, D, <its arguments>)`, an action's `(S, D, me, <its arguments' tuple>)`,
written by compiler/emit_procs.py) runs its blocks with
the locals as variables and calls its callees' driven versions; at a decision it makes the frame
the procedure has there, so that the bot sees the same position, and asks the driver `D`.

The plan is all or nothing: if a procedure uses its frame outside a decision, no procedure gets
a driven version and games run framed only.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import ir
from compiler.entries import frame_locals, needs_frame


@dataclass(frozen=True)
class Drive:
    """What writing a procedure's driven version needs: its frame locals as variables."""

    params: tuple[str, ...]  # those a call or an action's frame sets, in argument order
    others: tuple[str, ...]  # the other frame locals, set as the procedure runs
    packed: bool = False  # an action's body: its arguments after `me` come as one tuple


def plan_drives(module: ir.Module) -> None:
    """The frameless_driver stage: plan the driven version of every frame procedure
    (`FrameProc.drive`), or of none."""
    procs = module.frame_procs()
    if any(needs_frame(block) for proc in procs for block in proc.blocks):
        return
    given = {action.body.name: ("me", *action.params) for action in module.actions}
    for proc in procs:
        params = given.get(proc.name, tuple(proc.params or ()))
        names = frame_locals(proc)
        others = tuple(name for name in names if name not in params)
        proc.drive = Drive(params, others, packed=proc.name in given)
