"""Lowering of the drawings of the game state: one generated function per drawing.

`draw_<n>(S, me)` returns the drawing's items as `compiler/draw_rules.py` describes them,
for the position `S` seen by player `me` (None: the public view). Drawings of the map
alone are not generated: the constant evaluator computes them (`compiler/draw_eval.py`).
"""

from __future__ import annotations

from compiler import ir
from compiler.expr import ME
from compiler.lower_exprs import Env
from compiler.lower_stmts import LoweringContext
from compiler.printer import ir_expr


def lower_draws(ctx: LoweringContext) -> list[tuple[str, ir.Function]]:
    """(drawing name, function) for every drawing that reads the game state, in drawing order."""
    out = []
    for index, draw in enumerate(ctx.gen.cp.draws):
        if not draw.dynamic:
            continue
        env = Env(frame=False).bind("me", ME)
        body = [ir.Return(ir_expr(ctx.gen.expr(draw.whole, env)), draw.decl.span)]
        out.append((draw.name, ir.Function(f"draw_{index}", ["S", "me"], body, draw.decl.span)))
    return out
