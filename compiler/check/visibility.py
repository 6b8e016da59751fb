"""Pass `visibility`: legal choices are shown to the chooser, so their guards may not read secrets.

Input: a CheckedProgram after `types` (it reads `cp.refs`). Output: none besides errors —
an action's `when`, its parameters' `where` and domains, and every choice's `where` and
domain may read a hidden or owner-only field only through a builtin that only counts
(size()), and a player's own owner-only fields only as that player (`me`, or the chooser
of `each p in … choose`). The same holds for the `estimate` a bot values positions by,
whose player is its parameter: a bot must learn nothing from it that its view does not show.
"""

from __future__ import annotations

from compiler.builtins import BUILTINS
from compiler.checked import CheckedProgram
from compiler.refs import GlobalRef, PlayerFieldRef
from dsl import ast
from dsl.diagnostics import VISIBILITY, Diagnostics
from dsl.visitor import walk


def check_visibility(cp: CheckedProgram, diags: Diagnostics) -> None:
    """Report every guard of a legal choice that would reveal hidden information."""
    p = cp.program
    for versions in p.actions.values():
        decl = versions.active
        guards = (
            [decl.when]
            + [param.where for param in decl.params]
            + [_domain_expr(param.domain) for param in decl.params]
        )
        for guard in guards:
            guard_reads(cp, diags, guard, set())
    bodies = [v for t in (p.procedures, p.actions) for vs in t.values() for v in vs.versions]
    if p.flow is not None:
        bodies += p.flow.versions
    for body in bodies:
        for node in walk(body):
            if isinstance(node, ast.Choose):
                for guard in (node.where, _domain_expr(node.domain)):
                    guard_reads(cp, diags, guard, set())
            elif isinstance(node, ast.EachChoose):
                for guard in (node.where, _domain_expr(node.domain)):
                    guard_reads(cp, diags, guard, {node.var})
    if p.estimate is not None:
        decl = p.estimate.active
        guard_reads(cp, diags, decl.expr, {decl.var}, what="the estimate")


def guard_reads(
    cp: CheckedProgram,
    diags: Diagnostics,
    guard: ast.Node | None,
    choosers: set[str],
    seen: set[str] | None = None,
    what: str = "the legal choices",
) -> None:
    """Report the secrets a guard reads (`choosers`: names bound to the deciding player).

    `what` names what would show them (the legal choices, a drawing).
    """
    if guard is None:
        return
    p = cp.program
    seen = set() if seen is None else seen
    for node in walk(guard):
        # Functions a guard calls are read through too (for hidden state; their player
        # parameters are not tracked, so owner fields read inside them are not checked).
        if isinstance(node, ast.Call) and node.func in p.functions and node.func not in seen:
            seen.add(node.func)
            decl = p.functions[node.func].active
            guard_reads(
                cp, diags, decl.expr or decl.body, {q.name for q in decl.params}, seen, what
            )
    counted: set[int] = set()
    for node in walk(guard):
        builtin = BUILTINS.get(node.func) if isinstance(node, ast.Call) else None
        if builtin is not None and builtin.counts_only:  # size(): how many, not which
            for arg in node.args:
                counted.add(id(arg))
                while isinstance(arg, ast.Index):  # size(piles[k]): the table's entry is counted
                    arg = arg.obj
                    counted.add(id(arg))
    for node in walk(guard):
        ref = cp.ref(node)
        if isinstance(ref, GlobalRef) and id(node) not in counted:
            spec = p.state.get(node.name)
            if spec is not None and spec.visibility != "public":
                diags.error(
                    VISIBILITY,
                    f"{what} would reveal the {spec.visibility} field "
                    f"'{node.name}' (only its size() may be used here)",
                    node.span,
                )
        if isinstance(ref, PlayerFieldRef) and id(node) not in counted:
            spec = p.per_player.get(node.name)
            obj = node.obj
            own = isinstance(obj, ast.MeLit) or (isinstance(obj, ast.Name) and obj.name in choosers)
            if spec is not None and (
                spec.visibility == "hidden" or (spec.visibility == "owner" and not own)
            ):
                diags.error(
                    VISIBILITY,
                    f"{what} would reveal another player's {spec.visibility} field '{node.name}'",
                    node.span,
                )


def _domain_expr(domain) -> ast.Expr | None:
    if isinstance(domain, ast.InDomain | ast.SubsetDomain):
        return domain.collection
    return None
