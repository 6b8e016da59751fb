"""Small one-expression functions inlined: a call replaced by the function's body.

`f(S, v_e)` of `function f(e: edge) -> bool = e.length > 2` becomes `(K_edge__length[v_e]
> 2)`: no call, and what the body reads is in sight of the code around it. Lowering marks the
calls that may be inlined (`Call.inline`): of a function with one version and one expression,
not charged when it starts, of at most MAX_NODES rule nodes, whose arguments are names, `me`,
integers or fields. The stage replaces them, and the marked calls of the bodies it puts in, up
to MAX_DEPTH inlined bodies deep.
"""

from __future__ import annotations

from dataclasses import replace

from compiler import ir
from compiler.checked import CheckedProgram
from compiler.expr import Call, Const, Expr, Local, Name, Paren, rebuilt, substitute_free
from compiler.printer import ir_expr
from compiler.pyexpr import PyExpr
from compiler.refs import FunctionRef
from dsl import ast
from dsl.visitor import walk

MAX_NODES = 80  # the rule nodes of a body worth inlining
MAX_DEPTH = 4  # calls inlined inside this many inlined bodies, but no deeper


def inlinable(cp: CheckedProgram, costs, node: ast.Call):
    """The declaration of the function `node` calls if the call may be inlined, else None."""
    if not isinstance(cp.ref(node), FunctionRef):
        return None
    versions = cp.program.functions[node.func].versions
    decl = versions[-1]
    if decl.expr is None or len(versions) > 1:
        return None
    if costs.entry_charge(node.func):  # its call is charged when it starts: keep the call
        return None
    if any(not isinstance(a, ast.Name | ast.MeLit | ast.IntLit | ast.Field) for a in node.args):
        return None
    return decl if sum(1 for _ in walk(decl.expr)) <= MAX_NODES else None


def inline_functions(module: ir.Module) -> None:
    """Replace, in every expression of `module`, each call marked inlinable by the body of the
    function it calls (in place)."""
    functions = [*module.functions, *module.scenario_functions]
    bodies = {
        f.name: (tuple(Local(p) for p in f.params[1:]), f.body[0].value.node)
        for f in functions
        if isinstance(f, ir.Function) and _one_expression(f)
    }
    tags: dict[tuple, int] = {}  # (function, arguments) -> the number its body's locals take

    def inlined(node: Expr, depth: int) -> Expr:
        def change(sub: Expr) -> Expr:
            if not (isinstance(sub, Call) and sub.inline):
                return sub
            if depth > MAX_DEPTH or not isinstance(sub.func, Name) or sub.func.id not in bodies:
                return replace(sub, inline=False)
            params, body = bodies[sub.func.id]
            args = sub.args[1:]  # after the state
            # The same call inlined twice reads the same: a later pass may compute it once.
            tag = tags.setdefault((sub.func.id, args), len(tags))
            bound = dict(zip(params, (_grouped(arg) for arg in args), strict=True))
            copy = substitute_free(body, bound, lambda local: Local(f"{local.id}_i{tag}"))
            return Paren(inlined(copy, depth + 1))

        return rebuilt(node, change)

    def rewrite(expr: PyExpr) -> PyExpr:
        node = inlined(expr.node, 0)
        return expr if node is expr.node else ir_expr(node)

    ir.rewrite_expressions(module, rewrite)


def _grouped(arg: Expr) -> Expr:
    """An argument as the body reads it: in parentheses unless it is one name or constant (so
    `p.hand` of `me` is `S.p_hand[me]`, as if written so, which later stages recognise)."""
    return arg if isinstance(arg, Name | Local | Const) else Paren(arg)


def _one_expression(function: ir.Function) -> bool:
    """True for a function whose body returns one expression (a node)."""
    body = function.body
    return (
        len(body) == 1
        and isinstance(body[0], ir.Return)
        and body[0].value is not None
        and body[0].value.node is not None
    )
