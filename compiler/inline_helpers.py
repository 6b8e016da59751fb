"""Stage `inline_helpers`: the runtime's smallest statement helpers written where they are called.

A loop's step charge `_l.tick(S, at, w)` becomes `S._iters += w` and a test against the budget
(the helper is called only when the budget is spent, to fail at the loop's line); adding to a
bag, `_l.bag_add(B, x)`, becomes `B[x] += 1` (the bag and the item are read in the same order);
taking out of one, `_l.bag_remove(B, x)`, becomes `B[x] -= 1` when `B[x] > 0` (the helper is
called otherwise, to fail as it does), where the bag and the item are plain reads, read twice;
storing an integer checked for its range, `T = _l.int_ok(E)`, becomes `_int = E`, the range's
test (the helper called only to fail) and `T = _int`, in that order.
Only statements change: each of these helpers is a call of its own in a hot loop (a game of
some 300 decisions may charge hundreds of loop steps, move hundreds of items in and out of bags
and check as many stored integers), and a call costs more than what it does.
"""

from __future__ import annotations

from compiler import ir
from compiler.expr import (
    Attr,
    BinOp,
    Call,
    Const,
    Expr,
    FrameLocal,
    Helper,
    Index,
    Local,
    Name,
    StateField,
    helper,
)
from compiler.printer import ir_expr
from runtime.limits import STEP_BUDGET
from runtime.values import INT_LIMIT

TICK = Helper("_l", "tick")
BAG_ADD = Helper("_l", "bag_add")
BAG_REMOVE = Helper("_l", "bag_remove")
INT_OK = Helper("_l", "int_ok")
CHECKED = Local("_int")  # an integer between its computation and its store
ITERS = StateField("_iters")


def inline_helpers(module: ir.Module) -> None:
    """Write the step charges of loops and the additions to bags inline, everywhere in `module`."""
    ir.rewrite_statement_lists(module, inlined)


def inlined(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
    """The statements with each call of an inlined helper written out."""
    out: list[ir.Stmt] = []
    for stmt in stmts:
        call = stmt.expr.node if isinstance(stmt, ir.Eval) else None
        if _stores_checked(stmt):
            out += _checked_store(stmt)
            continue
        if isinstance(call, Call) and call.func == TICK:
            out += _tick(call, stmt.span)
        elif isinstance(call, Call) and call.func == BAG_ADD and len(call.args) == 2:
            bag, item = call.args
            out.append(ir.Assign(ir_expr(Index(bag, item)), ir_expr(Const(1)), stmt.span, "+="))
        elif isinstance(call, Call) and call.func == BAG_REMOVE and all(map(_plain, call.args)):
            out.append(_bag_remove(call, stmt))
        else:
            out.append(stmt)
    return out


def _tick(call: Call, span) -> list[ir.Stmt]:
    """`S._iters += weight`, then the budget's test (`_l.tick`'s body)."""
    at, weight = call.args[1], call.args[2] if len(call.args) > 2 else Const(1)
    over = ir.Eval(ir_expr(helper("_l", "over_budget", at)))
    return [
        ir.Assign(ir_expr(ITERS), ir_expr(weight), span, "+="),
        ir.If([ir.Branch(ir_expr(BinOp(ITERS, ">", Const(STEP_BUDGET))), [over])]),
    ]


def _bag_remove(call: Call, stmt: ir.Eval) -> ir.If:
    """`B[x] -= 1` if the bag holds the item, else the helper's call (which fails)."""
    count = Index(*call.args)
    taken = ir.Assign(ir_expr(count), ir_expr(Const(1)), stmt.span, "-=")
    return ir.If([ir.Branch(ir_expr(BinOp(count, ">", Const(0))), [taken])], [stmt])


def _plain(node: Expr) -> bool:
    """A read of a name, a constant, a state field or an entry of one: read again, the same."""
    if isinstance(node, Index):
        return _plain(node.obj) and _plain(node.index)
    if isinstance(node, Attr):
        return _plain(node.obj)
    return isinstance(node, Name | Local | FrameLocal | StateField | Const)


def _stores_checked(stmt: ir.Stmt) -> bool:
    """True for `target = _l.int_ok(value)`."""
    if not (isinstance(stmt, ir.Assign) and stmt.op == "="):
        return False
    value = stmt.value.node
    return isinstance(value, Call) and value.func == INT_OK and len(value.args) == 1


def _checked_store(stmt: ir.Assign) -> list[ir.Stmt]:
    """The value computed, its range tested (`_l.int_ok` called only to fail), then stored."""
    (value,) = stmt.value.node.args
    below = BinOp(CHECKED, "<", Const(-INT_LIMIT))
    above = BinOp(CHECKED, ">=", Const(INT_LIMIT))
    fail = ir.Eval(ir_expr(Call(INT_OK, (CHECKED,))), stmt.span)  # fails at the store's line
    return [
        ir.Assign(ir_expr(CHECKED), ir_expr(value), stmt.span),
        ir.If([ir.Branch(ir_expr(BinOp(below, "or", above)), [fail])]),
        ir.Assign(stmt.target, ir_expr(CHECKED), stmt.span),
    ]
