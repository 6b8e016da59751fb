"""Pass `control`: where each statement may stand.

Input: a CheckedProgram after `types` (it reads `cp.signatures`). Output: none besides
errors — nesting deeper than the runtime's limits, `break`/`continue` outside a loop,
`end game` inside `final`, changes or decisions inside a function, `play`/`refuse`/`expect`
outside a scenario and decisions inside one, and bodies that may end without their `return`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from compiler.checked import CheckedProgram
from compiler.visit import Visitor
from dsl import ast
from dsl.diagnostics import PURITY, SCENARIO, STRUCTURE, TOO_DEEP, Diagnostics
from runtime.limits import MAX_BLOCK_NESTING, MAX_LOOP_NESTING

CHOOSE_NODES = (ast.Choose, ast.EachChoose, ast.ChooseAction, ast.EachChooseAction)
LOOP_NODES = (ast.For, ast.Repeat, ast.While, ast.Loop)
BLOCK_NODES = (*LOOP_NODES, ast.If)
CHANGES = (ast.Draw, ast.Move, ast.Shuffle, ast.EndGame, *CHOOSE_NODES)
SCENARIO_STEPS = (ast.Play, ast.Refuse, ast.Expect, ast.ChanceStep)


@dataclass(frozen=True)
class Place:
    """Where a statement stands: the kind of body and how deeply it is nested."""

    pure: bool = False  # a function body
    scenario: bool = False
    final: bool = False  # the flow's `final` block
    loops: int = 0
    blocks: int = 0


def check_control(cp: CheckedProgram, diags: Diagnostics) -> None:
    """Check the placement of every statement of every body."""
    p = cp.program
    walker = Placement(diags)
    for name, versions in p.functions.items():
        for decl in versions.versions:
            if decl.body is not None:
                walker.visit(decl.body, Place(pure=True))
                if not always_returns(decl.body):
                    diags.error(STRUCTURE, f"function '{name}' may end without `return`", decl.span)
    for name, versions in p.procedures.items():
        sig = cp.signatures.get(name)
        for decl in versions.versions:
            walker.visit(decl.body, Place())
            if sig is not None and sig.ret is not None and not always_returns(decl.body):
                diags.error(
                    STRUCTURE, f"procedure '{name}' may end without returning a value", decl.span
                )
    for versions in p.actions.values():
        for decl in versions.versions:
            if len(decl.params) > MAX_LOOP_NESTING:  # listing the arguments nests one loop each
                diags.error(
                    TOO_DEEP,
                    f"an action has more than {MAX_LOOP_NESTING} parameters",
                    decl.params[MAX_LOOP_NESTING].span,
                )
            walker.visit(decl.body, Place())
    if p.flow is not None:
        for decl in p.flow.versions:
            walker.visit(decl.body, Place())
            if decl.final is not None:
                walker.visit(decl.final, Place(final=True))
    for decl in p.scenarios.values():
        for step in decl.steps:
            walker.statement(step, Place(scenario=True))


def always_returns(block: ast.Block) -> bool:
    """True if every path through the block ends in `return` or `end game`."""
    for stmt in block.stmts:
        if isinstance(stmt, ast.Return | ast.EndGame):
            return True
        if (
            isinstance(stmt, ast.If)
            and stmt.orelse is not None
            and all(always_returns(b) for _, b in stmt.branches)
            and always_returns(stmt.orelse)
        ):
            return True
    return False


class Placement(Visitor):
    """Visits blocks and the statements that hold blocks, tracking the `Place`."""

    def __init__(self, diags: Diagnostics):
        self.diags = diags

    def error(self, code, message: str, node: ast.Node) -> None:
        """Record an error at a node."""
        self.diags.error(code, message, node.span)

    def statement(self, node: ast.Stmt, place: Place) -> None:
        """Check where one statement stands, then the statements inside it."""
        if isinstance(node, LOOP_NODES) and place.loops == MAX_LOOP_NESTING:
            self.error(
                TOO_DEEP, f"loops are nested deeper than the limit of {MAX_LOOP_NESTING}", node
            )
        elif isinstance(node, BLOCK_NODES) and place.blocks == MAX_BLOCK_NESTING + 1:
            self.error(
                TOO_DEEP, f"blocks are nested deeper than the limit of {MAX_BLOCK_NESTING}", node
            )
        if place.pure and isinstance(node, CHANGES):
            self.error(
                PURITY, "a function or guard may not change the game or wait for a decision", node
            )
        if not place.scenario and isinstance(node, SCENARIO_STEPS):
            self.error(
                SCENARIO, "`play`, `refuse`, `expect` and `chance` belong in scenarios", node
            )
        if place.scenario and isinstance(node, CHOOSE_NODES):
            self.error(SCENARIO, "a scenario cannot wait for a decision; use `play`", node)
        self.visit(node, place)

    def generic_visit(self, node: ast.Node, place: Place) -> None:
        """A statement without blocks inside: nothing more to check."""

    def visit_Block(self, node: ast.Block, place: Place) -> None:
        inner = replace(place, blocks=place.blocks + 1)
        for stmt in node.stmts:
            self.statement(stmt, inner)

    def visit_If(self, node: ast.If, place: Place) -> None:
        for _, body in node.branches:
            self.visit(body, place)
        if node.orelse is not None:
            self.visit(node.orelse, place)

    def visit_ChooseAction(self, node: ast.ChooseAction, place: Place) -> None:
        if node.orelse is not None:
            self.visit(node.orelse, place)

    def visit_For(self, node: ast.For, place: Place) -> None:
        self.visit(node.body, replace(place, loops=place.loops + 1))

    visit_Repeat = visit_For
    visit_While = visit_For
    visit_Loop = visit_For

    def visit_Break(self, node: ast.Stmt, place: Place) -> None:
        if place.loops == 0:
            self.error(STRUCTURE, "`break` outside a loop", node)

    visit_Continue = visit_Break

    def visit_EndGame(self, node: ast.EndGame, place: Place) -> None:
        if place.final:
            self.error(STRUCTURE, "`end game` inside `final`: the game is already ending", node)
