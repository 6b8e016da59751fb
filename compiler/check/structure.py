"""Pass `structure`: the game's frame — players, flow, map, scenarios' player counts, choice names,
the members of action groups.

Input: a CheckedProgram after `types` (it reads the types of choices). Output: none besides
errors.
"""

from __future__ import annotations

import difflib

from compiler.check.choices import choices
from compiler.checked import CheckedProgram
from compiler.types import Type
from dsl import ast
from dsl.diagnostics import (
    DUPLICATE,
    SCENARIO,
    STRUCTURE,
    TYPE,
    UNDEFINED_NAME,
    Diagnostics,
    whole_file,
)


def check_structure(cp: CheckedProgram, diags: Diagnostics) -> None:
    """The declarations every game needs, and names that must mean one thing."""
    p = cp.program
    file_span = whole_file(p.game_file)  # what is missing has no line of its own
    if p.players is None:
        diags.error(
            STRUCTURE, "the game does not say how many players it takes (`players 2..5`)", file_span
        )
    elif not 1 <= p.players.lo <= p.players.hi <= 64:
        diags.error(STRUCTURE, "players must be a range within 1..64", p.players.span)
    if p.flow is None:
        diags.error(STRUCTURE, "the game has no `flow`", file_span)
    if p.kinds and not p.map_files:
        diags.error(
            STRUCTURE,
            "the game declares a map schema but no map was given "
            '(`default map "file.metro"` or --map)',
            file_span,
        )
    lo, hi = (p.players.lo, p.players.hi) if p.players else (1, 99)
    for decl in p.scenarios.values():
        # Under a variant that changes the player range, the base's scenarios just do not apply.
        if not lo <= decl.players <= hi and not p.applied:
            diags.error(
                SCENARIO,
                f"scenario uses {decl.players} players; the game allows {lo}..{hi}",
                decl.span,
            )
    _choice_names(cp, diags)
    _group_members(cp, diags)


def _group_members(cp: CheckedProgram, diags: Diagnostics) -> None:
    """Every action a group offers exists (reported once, at the group, not where it is offered)."""
    p = cp.program
    for group, members in p.groups.items():
        for name in members:
            if name not in p.actions:
                close = difflib.get_close_matches(name, sorted(p.actions), n=1, cutoff=0.75)
                diags.error(
                    UNDEFINED_NAME,
                    f"action group '{group}' offers unknown action '{name}'",
                    p.group_decls[group].span,
                    *((f"did you mean '{close[0]}'?",) if close else ()),
                )


def _choice_names(cp: CheckedProgram, diags: Diagnostics) -> None:
    """Choices are recorded by name in histories, so one name must always mean one type."""
    p = cp.program
    seen: dict[str, tuple[Type, ast.Node]] = {}
    for choice in choices(cp):
        node, t = choice.node, choice.type
        if node.name in seen and seen[node.name][0] != t:
            diags.error(
                TYPE,
                f"choice '{node.name}' is {t} here but {seen[node.name][0]} "
                f"at line {seen[node.name][1].span.line}; give it another name",
                node.span,
            )
        if node.name in p.actions:  # its ids would read as the action's: b(red)
            diags.error(
                DUPLICATE,
                f"choice '{node.name}' has the name of an action; give it another name",
                node.span,
            )
        seen.setdefault(node.name, (t, node))
