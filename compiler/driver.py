"""The compiler façade: named stages over one context, `compile_game` and `generate_python`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from compiler import ir
from compiler.check import check
from compiler.checked import CheckedProgram
from compiler.consteval import Evaluator, MapData
from compiler.cost import StepCosts, step_costs
from compiler.draw_eval import map_items, report
from compiler.drives import plan_drives
from compiler.emit import emit_module, emit_scenarios
from compiler.entries import plan_entries
from compiler.fold_constants import fold_constants
from compiler.hoist import hoist_listings
from compiler.inline_functions import inline_functions
from compiler.inline_helpers import inline_helpers
from compiler.loop_bindings import bind_listings
from compiler.lower_labels import element_labels
from compiler.lower_module import lower_program
from compiler.maps import build_map_data, run_checks
from compiler.program import Program
from compiler.resolve import DISK, SourceFiles, resolve
from compiler.shared_listings import share_listings
from compiler.sizes import Sizes
from compiler.tabulate import tabulate_listings
from compiler.unroll_aggregates import unroll_aggregates
from dsl.diagnostics import TOO_DEEP, CompileError, Diagnostics
from dsl.memory import paused_gc
from dsl.source import Span


@dataclass
class CompileContext:
    """Everything the stages share: inputs, diagnostics and each stage's result."""

    game_path: str
    expansions: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    map_path: str | None = None
    files: SourceFiles = DISK  # where rule files are read (an editor gives its unsaved texts)
    library_root: str | None = None  # None: the shipped games/components
    diags: Diagnostics = field(default_factory=Diagnostics)
    program: Program | None = None
    checked: CheckedProgram | None = None
    data: MapData | None = None
    evaluator: Evaluator | None = None
    sizes: Sizes | None = None
    costs: StepCosts | None = None
    module: ir.Module | None = None
    python: str | None = None  # the game module: the game and only the game
    line_map: dict[int, tuple[str, int]] = field(default_factory=dict)
    scenarios_python: str | None = None  # its scenarios and invariants, run over its names
    scenarios_line_map: dict[int, tuple[str, int]] = field(default_factory=dict)

    @property
    def sources(self):
        """Source files read so far (for rendering diagnostics)."""
        return self.program.sources if self.program else {}


def stage_resolve(ctx: CompileContext) -> None:
    """Read every file and merge patches."""
    ctx.program = resolve(
        ctx.game_path,
        list(ctx.expansions),
        list(ctx.variants),
        ctx.map_path,
        ctx.files,
        ctx.library_root,
    )


def stage_check(ctx: CompileContext) -> None:
    """The eight check passes: names, types, control, effects, visibility, labels, structure, draws."""
    ctx.checked = check(ctx.program, ctx.diags)


def stage_validate_maps(ctx: CompileContext) -> None:
    """Map data against the schema, then the declared checks (networkx graphs)."""
    ctx.data = build_map_data(ctx.checked, ctx.diags)
    ctx.evaluator = Evaluator(ctx.checked, ctx.data)
    run_checks(ctx.checked, ctx.data, ctx.evaluator, ctx.diags)  # also past data errors
    if not ctx.diags.has_errors:
        ctx.data.labels = element_labels(ctx.checked, ctx.data, ctx.evaluator, ctx.diags)
    if not ctx.diags.has_errors:  # the map's drawings: colours, marks and places that are wrong
        report(map_items(ctx.checked.draws, ctx.data, ctx.evaluator)[1], ctx.diags)


def stage_weigh_steps(ctx: CompileContext) -> None:
    """How many steps each walk, loop and call may take, over the call graph (pass `cost`).

    The weights the generated code charges the step budget with, the small walks that must be
    charged after all, and the calls charged when they start: not an optimisation, the budget's
    bounds (every later stage keeps them)."""
    ctx.sizes = Sizes(ctx.checked, ctx.data, ctx.evaluator)
    ctx.costs = step_costs(ctx.checked, ctx.sizes.free_size)


def stage_lower(ctx: CompileContext) -> None:
    """The checked program as an IR of the state machine."""
    ctx.module = lower_program(
        ctx.checked, ctx.data, ctx.evaluator, ctx.sizes, ctx.costs, ctx.diags
    )


def stage_inline_functions(ctx: CompileContext) -> None:
    """A call of a small one-expression function is replaced by its body (an optimisation)."""
    inline_functions(ctx.module)


def stage_inline_helpers(ctx: CompileContext) -> None:
    """Loops' step charges, bag additions and removals, checked integer stores written inline (an optimisation)."""
    inline_helpers(ctx.module)


def stage_tabulate_listings(ctx: CompileContext) -> None:
    """An action listing's aggregate over one parameter is computed once per value (an optimisation)."""
    tabulate_listings(ctx.module)


def stage_unroll_aggregates(ctx: CompileContext) -> None:
    """An aggregate over a few constant values is written out value by value (an optimisation)."""
    unroll_aggregates(ctx.module)


def stage_fold_constants(ctx: CompileContext) -> None:
    """What depends only on the rules' constants is computed while compiling (an optimisation)."""
    fold_constants(ctx.module)


def stage_hoist_listings(ctx: CompileContext) -> None:
    """A listing computes once what depends on none of its loops (an optimisation)."""
    hoist_listings(ctx.module)


def stage_bind_attributes(ctx: CompileContext) -> None:
    """A listing's loop over map elements reads their repeated fixed attributes once (an optimisation)."""
    bind_listings(ctx.module)


def stage_share_listings(ctx: CompileContext) -> None:
    """The listings of one menu share the costly values they compute alike (an optimisation)."""
    share_listings(ctx.module)


def stage_frameless_entries(ctx: CompileContext) -> None:
    """A called procedure gets an entry run without a frame until it must wait (an optimisation).

    Without it, every call builds a frame, pushes it and runs it through the dispatch loop."""
    plan_entries(ctx.module)


def stage_frameless_driver(ctx: CompileContext) -> None:
    """Every frame procedure also gets a driven version, for bots that never copy a position (an optimisation)."""
    plan_drives(ctx.module)


def stage_emit_python(ctx: CompileContext) -> None:
    """The game module's and the scenarios module's Python texts, which Python must accept."""
    table = ctx.program.source_table  # the files' names relative to the game's folder
    inputs = sorted(table.name(f) for f in ctx.program.sources)
    ctx.python, ctx.line_map = emit_module(ctx.module, ctx.checked, inputs, ctx.variants)
    ctx.scenarios_python, ctx.scenarios_line_map = emit_scenarios(ctx.module, ctx.checked)
    for text, line_map in (
        (ctx.python, ctx.line_map),
        (ctx.scenarios_python, ctx.scenarios_line_map),
    ):
        _compiles(ctx, text, line_map)


def _compiles(ctx: CompileContext, text: str, line_map: dict[int, tuple[str, int]]) -> None:
    """Report a generated text Python refuses at the .metro line it came from."""
    try:
        compile(text, f"<metro:{ctx.program.game_file}>", "exec")
    except (SyntaxError, RecursionError, MemoryError, ValueError) as error:
        file, line = _metro_line(line_map, getattr(error, "lineno", None)) or (
            ctx.program.game_file,
            1,
        )
        detail = (
            f"{type(error).__name__}: {error.msg}"
            if isinstance(error, SyntaxError)
            else type(error).__name__
        )
        ctx.diags.error(
            TOO_DEEP,
            f"this construct is too large or deep for Python to compile ({detail})",
            Span.point(file, line, 1),
        )


def _metro_line(line_map: dict[int, tuple[str, int]], lineno: int | None) -> tuple[str, int] | None:
    """The .metro position of a generated line, or of the nearest generated line before it."""
    if not lineno:
        return None
    before = [n for n in line_map if n <= lineno]
    return line_map[max(before)] if before else None


STAGES: list[tuple[str, Callable[[CompileContext], None]]] = [
    ("resolve", stage_resolve),
    ("check", stage_check),
    ("validate_maps", stage_validate_maps),
    ("weigh_steps", stage_weigh_steps),
    ("lower", stage_lower),
    ("inline_functions", stage_inline_functions),
    ("tabulate_listings", stage_tabulate_listings),
    ("unroll_aggregates", stage_unroll_aggregates),
    ("fold_constants", stage_fold_constants),
    ("hoist_listings", stage_hoist_listings),
    ("bind_attributes", stage_bind_attributes),
    ("share_listings", stage_share_listings),
    ("inline_helpers", stage_inline_helpers),
    ("frameless_entries", stage_frameless_entries),
    ("frameless_driver", stage_frameless_driver),
    ("emit_python", stage_emit_python),
]
# Stages that only make the module faster: each may be left out (the games play the same).
OPTIMISATIONS = frozenset(
    {
        "inline_functions",
        "tabulate_listings",
        "unroll_aggregates",
        "fold_constants",
        "hoist_listings",
        "bind_attributes",
        "share_listings",
        "inline_helpers",
        "frameless_entries",
        "frameless_driver",
    }
)


def run_stages(
    ctx: CompileContext, stop_after: str | None = None, without: tuple[str, ...] = ()
) -> CompileContext:
    """Run the stages in order (but the optimisations `without` names), raising CompileError at
    the end of the first failing stage."""
    unknown = set(without) - OPTIMISATIONS
    if unknown:
        raise ValueError(f"only optimisation stages may be left out, not {sorted(unknown)}")
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 10_000))
    try:
        with paused_gc():
            for name, stage in STAGES:
                if name in without:
                    continue
                stage(ctx)
                ctx.diags.raise_if_errors(ctx.sources)
                if name == stop_after:
                    break
    finally:
        sys.setrecursionlimit(old_limit)
    return ctx


def compile_game(
    path: str,
    expansions=(),
    variants=(),
    map: str | None = None,
    stop_after: str | None = None,
    library_root: str | None = None,
    without: tuple[str, ...] = (),
) -> CompileContext:
    """Compile a game (with expansions/variants/map) and return the context (its IR after
    `stop_after`, its module without the optimisation stages `without` names)."""
    ctx = CompileContext(path, tuple(expansions), tuple(variants), map, library_root=library_root)
    return run_stages(ctx, stop_after, without)


def generate_python(path: str, expansions=(), variants=(), map: str | None = None) -> str:
    """The generated Python module for a game."""
    return compile_game(path, expansions, variants, map).python


__all__ = [
    "OPTIMISATIONS",
    "STAGES",
    "CompileContext",
    "CompileError",
    "compile_game",
    "generate_python",
]
