"""Pass `effects`: the call graph, suspension (who can wait for a decision) and recursion.

Input: a CheckedProgram after `types`. Output: `cp.calls` (each function, procedure and
action -> the rules it calls) and `cp.suspends` (those that can wait for a decision, directly
or through a call). Errors: recursion (direct or through a cycle), a function that waits,
a waiting call that is not a whole statement or a let's whole value.
"""

from __future__ import annotations

from compiler.check.control import CHOOSE_NODES
from compiler.checked import CheckedProgram
from compiler.refs import BuiltinRef
from dsl import ast
from dsl.diagnostics import PURITY, STRUCTURE, Diagnostics
from dsl.visitor import walk


def check_effects(cp: CheckedProgram, diags: Diagnostics) -> None:
    """Fill `cp.calls` and `cp.suspends`; refuse recursion and misplaced waiting calls."""
    p = cp.program
    bodies: dict[str, list[ast.Node]] = {}
    for table in (p.functions, p.procedures, p.actions):
        for name, versions in table.items():
            bodies[name] = list(versions.versions)
    direct = _call_graph(cp, bodies, diags)
    cp.suspends = _closure(direct, cp.calls)
    _cycles(cp.calls, bodies, diags)
    for name in cp.suspends & set(p.functions):
        diags.error(
            PURITY,
            f"function '{name}' waits for a decision; make it a procedure",
            p.functions[name].active.span,
        )
    # Calls to a waiting procedure must be whole statements (or a let's whole value).
    for decls in bodies.values():
        for decl in decls:
            _check_waiting_calls(cp, decl, diags)
    if p.flow is not None:
        _check_waiting_calls(cp, p.flow.active, diags)


def _call_graph(
    cp: CheckedProgram, bodies: dict[str, list[ast.Node]], diags: Diagnostics
) -> set[str]:
    """Fill `cp.calls`; return the rules that wait for a decision themselves."""
    direct: set[str] = set()
    for name, decls in bodies.items():
        out: set[str] = set()
        for decl in decls:
            for node in walk(decl):
                if isinstance(node, CHOOSE_NODES):
                    direct.add(name)
                if not isinstance(node, ast.Call) or not _calls_a_rule(cp, node):
                    continue
                if node.func in bodies and node.func != name:
                    out.add(node.func)
                if node.func == name:
                    diags.error(
                        STRUCTURE, f"'{name}' calls itself; rules may not recurse", node.span
                    )
        cp.calls[name] = out
    return direct


def _calls_a_rule(cp: CheckedProgram, node: ast.Call) -> bool:
    """True unless the call resolved to a builtin (an action's name may also be a builtin's)."""
    return not isinstance(cp.ref(node), BuiltinRef)


def _closure(direct: set[str], calls: dict[str, set[str]]) -> set[str]:
    """Every rule that waits itself or calls one that does."""
    suspends = set(direct)
    changed = True
    while changed:
        changed = False
        for name, out in calls.items():
            if name not in suspends and out & suspends:
                suspends.add(name)
                changed = True
    return suspends


def _cycles(
    calls: dict[str, set[str]], bodies: dict[str, list[ast.Node]], diags: Diagnostics
) -> None:
    """Cycles through several procedures are recursion too (an iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in sorted(calls):
        stack = [(root, iter(sorted(calls[root])))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                decl = bodies[nxt][-1]
                diags.error(
                    STRUCTURE,
                    f"'{nxt}' is reached again through its own calls; rules may not recurse",
                    decl.span,
                )
                state[nxt] = 2
            elif state.get(nxt) is None and nxt in calls:
                state[nxt] = 1
                stack.append((nxt, iter(sorted(calls[nxt]))))


def _check_waiting_calls(cp: CheckedProgram, decl: ast.Node, diags: Diagnostics) -> None:
    allowed: set[int] = set()
    for node in walk(decl):
        if isinstance(node, ast.ExprStmt) and isinstance(node.expr, ast.Call):
            allowed.add(id(node.expr))
        if isinstance(node, ast.Let | ast.Assign) and isinstance(node.value, ast.Call):
            allowed.add(id(node.value))
    for node in walk(decl):
        if (
            isinstance(node, ast.Call)
            and node.func in cp.suspends
            and _calls_a_rule(cp, node)
            and id(node) not in allowed
        ):
            diags.error(
                STRUCTURE,
                f"'{node.func}' waits for decisions, so it can only be called as a "
                "statement or as the whole value of `let`",
                node.span,
            )
