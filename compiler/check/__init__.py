"""Stage `check`: the passes that judge a merged program, in order, over one CheckedProgram.

| pass         | reads                          | fills / reports                                      |
|--------------|--------------------------------|------------------------------------------------------|
| `names`      | the Program                    | global_names, enum_values, value_enum; bad, clashing names |
| `types`      | + names                        | kind_fields, const/state/player types, signatures, types, refs; type, purity, finiteness errors |
| `control`    | + signatures                   | nesting limits, break/end game/play placement, missing returns |
| `effects`    | + refs                         | calls, suspends; recursion, waiting functions and calls |
| `visibility` | + refs                         | guards of legal choices that would reveal secrets    |
| `labels`     | + signatures, types of choices | placeholder types, label_kinds; labels that read the game, breakdowns that read secrets |
| `structure`  | + types of choices             | players, flow, map, scenario player counts, choice names |
| `draws`      | + refs, visibility             | draws (compiler/draw_rules.py); types of places, colours, texts; what nothing draws |

Every pass adds its findings to one Diagnostics; none stops the others.
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.check.control import check_control
from compiler.check.draws import check_draws
from compiler.check.effects import check_effects
from compiler.check.labels import check_labels
from compiler.check.names import check_names
from compiler.check.structure import check_structure
from compiler.check.types import check_types
from compiler.check.visibility import check_visibility
from compiler.checked import CheckedProgram
from compiler.program import Program
from dsl.diagnostics import Diagnostics

PASSES: list[tuple[str, Callable[[CheckedProgram, Diagnostics], None]]] = [
    ("names", check_names),
    ("types", check_types),
    ("control", check_control),
    ("effects", check_effects),
    ("visibility", check_visibility),
    ("labels", check_labels),
    ("structure", check_structure),
    ("draws", check_draws),
]


def check(program: Program, diags: Diagnostics, until: str | None = None) -> CheckedProgram:
    """Run the check passes in order (through pass `until`, if given) and return the result."""
    cp = CheckedProgram.start(program)
    for name, run in PASSES:
        run(cp, diags)
        if name == until:
            break
    return cp


__all__ = ["PASSES", "CheckedProgram", "check"]
