"""Rule coverage: which .metro lines the scenarios and random games actually ran.

`rule_coverage(game, run)` traces `run(game)` with `sys.settrace`, keeps the line events of the
generated module's own code, and maps each executed generated line back to its .metro line
through the module's `METRO_LINES` table. A .metro line "carries code" when some generated
line inside a function comes from it; it is covered when one of those lines ran.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType, FunctionType, ModuleType

from dsl.files import UnreadableFile, read_regular
from dsl.input_checks import MAX_FILE_BYTES
from metro.testing.scenarios import broken_invariants, run_scenario, scenarios
from runtime.errors import MetroRuntimeError
from runtime.machine import Game


@dataclass
class FileCoverage:
    """One .metro file: lines that carry code, those that ran, those only inlined elsewhere."""

    path: str
    code_lines: set[int] = field(default_factory=set)
    executed: set[int] = field(default_factory=set)
    inlined: set[int] = field(default_factory=set)
    source: list[str] = field(default_factory=list)

    @property
    def missed(self) -> list[int]:
        """Lines that carry code but never ran, in order."""
        return sorted(self.code_lines - self.executed)

    @property
    def percent(self) -> float:
        """Share of code-carrying lines that ran (100 when none carry code)."""
        if not self.code_lines:
            return 100.0
        return 100.0 * len(self.code_lines & self.executed) / len(self.code_lines)

    def text(self, line: int) -> str:
        """The source text of a line ('' when unknown)."""
        return self.source[line - 1].strip() if 0 < line <= len(self.source) else ""


@dataclass
class CoverageReport:
    """Coverage of every .metro file that generated code came from."""

    files: dict[str, FileCoverage] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    @property
    def percent(self) -> float:
        """Share of all code-carrying lines that ran."""
        total = sum(len(f.code_lines) for f in self.files.values())
        ran = sum(len(f.code_lines & f.executed) for f in self.files.values())
        return 100.0 * ran / total if total else 100.0

    def missed(self) -> list[tuple[str, int, str]]:
        """(file, line, source text) of every line that carries code but never ran."""
        return [
            (path, line, cov.text(line))
            for path, cov in sorted(self.files.items())
            for line in cov.missed
        ]

    def to_dict(self) -> dict:
        """JSON-able form (schemas/coverage.schema.json)."""
        files = {
            path: {
                "percent": round(cov.percent, 2),
                "code_lines": len(cov.code_lines),
                "executed": len(cov.code_lines & cov.executed),
                "inlined": sorted(cov.inlined),
                "missed": [{"line": line, "text": cov.text(line)} for line in cov.missed],
            }
            for path, cov in sorted(self.files.items())
        }
        return {"percent": round(self.percent, 2), "files": files, "failures": list(self.failures)}


# Module functions the runtime calls by name (runtime/machine.py); everything else is reached
# from these, from the module's tables (SITES, PROCS, ...) or by name from reachable code.
ENTRY_POINTS = frozenset(
    {
        "init_fields",
        "copy_fields",
        "encode_fields",
        "encode_player",
        "view_fields",
        "view_player",
        "score",
        "rank_key",
    }
)


def traced_files(game: Game) -> dict[str, int]:
    """The generated files whose lines count, each with the sign its line numbers are kept with:
    the game module's as they are, its scenarios module's negated (one set holds both)."""
    files = {game.module.__file__: 1}
    if game.scenarios_module is not None:
        files[game.scenarios_module.__file__] = -1
    return files


def code_lines(game: Game) -> tuple[dict[int, tuple[str, int]], dict[int, tuple[str, int]]]:
    """(runnable, inlined) maps of generated line -> .metro position, for lines inside functions
    (the scenarios module's lines negated, as `traced_files` keeps them)."""
    # Module-level lines ran at import and are left out. A rule function whose calls were all
    # inlined by the compiler is never called itself: its lines are "inlined", covered at the callers.
    live, inlined = {}, {}
    modules = [game.module, game.scenarios_module]
    for sign, module in zip((1, -1), modules, strict=True):
        if module is None:
            continue
        # The game module's functions the scenarios and invariants call are reached from there.
        runnable, every = function_lines(module, modules[1] if module is modules[0] else None)
        for number, (source, line) in module.METRO_LINES.items():
            where = (
                module.SOURCE_PATHS[source],
                line,
            )  # the file by its index in the module's table
            if number in runnable:
                live[sign * number] = where
            elif number in every:
                inlined[sign * number] = where
    return live, inlined


def function_lines(
    module: ModuleType, callers: ModuleType | None = None
) -> tuple[set[int], set[int]]:
    """(lines of code that can be called, lines of every function) in the generated module;
    the functions of `callers` (its scenarios module) may call it too."""
    filename = module.__file__
    # The drawings of the state (`draw`) are pictures, not rules: they count in no coverage.
    drawings = {id(fn) for fn in getattr(module, "DRAWS", {}).values()}
    functions = {
        name: value
        for name, value in vars(module).items()
        if isinstance(value, FunctionType)
        and value.__code__.co_filename == filename
        and id(value) not in drawings
    }
    roots = [fn.__code__ for name, fn in functions.items() if name in ENTRY_POINTS]
    for name, value in vars(module).items():
        if name != "DRAWS" and not isinstance(value, FunctionType | ModuleType):
            roots += [fn.__code__ for fn in _functions_in(value, 0)]
    if callers is not None:
        calling = [
            value.__code__
            for value in vars(callers).values()
            if isinstance(value, FunctionType) and value.__code__.co_filename == callers.__file__
        ]
        while calling:
            code = calling.pop()
            roots += [functions[name].__code__ for name in code.co_names if name in functions]
            calling += [const for const in code.co_consts if isinstance(const, CodeType)]
    reachable = _lines_from(roots, functions, filename, follow_names=True)
    every = _lines_from(
        [fn.__code__ for fn in functions.values()], functions, filename, follow_names=False
    )
    return reachable, every | reachable


def _lines_from(
    roots: list[CodeType], functions: dict, filename: str, follow_names: bool
) -> set[int]:
    lines: set[int] = set()
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        code = todo.pop()
        if id(code) in seen or code.co_filename != filename:
            continue
        seen.add(id(code))
        lines.add(code.co_firstlineno)
        lines.update(line for _, _, line in code.co_lines() if line is not None)
        todo.extend(const for const in code.co_consts if isinstance(const, CodeType))
        if follow_names:
            todo.extend(functions[name].__code__ for name in code.co_names if name in functions)
    return lines


def _functions_in(value, depth: int):
    """Functions held in a module-level table (lists, dicts, tuples, slotted records)."""
    if depth > 4:
        return
    if isinstance(value, FunctionType):
        yield value
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _functions_in(item, depth + 1)
    elif isinstance(value, dict):
        for item in (*value.keys(), *value.values()):
            yield from _functions_in(item, depth + 1)
    elif not isinstance(value, type) and hasattr(type(value), "__slots__"):
        for slot in type(value).__slots__:
            yield from _functions_in(getattr(value, slot, None), depth + 1)


def trace_lines(files: str | dict[str, int], run: Callable[[], object]) -> set[int]:
    """Line numbers of the files executed while `run()` runs (function entries count their def
    line); `files` maps each file to the sign its numbers are kept with (`traced_files`)."""
    signs = {files: 1} if isinstance(files, str) else files
    hit: set[int] = set()

    def tracer(frame, event, arg):
        sign = signs.get(frame.f_code.co_filename)
        if sign is None:
            return None
        hit.add(sign * frame.f_code.co_firstlineno)

        def local(frame, event, arg):
            if event == "line":
                hit.add(sign * frame.f_lineno)
            return local

        return local

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(previous)
    return hit


def rule_coverage(game: Game, run: Callable[[Game], object]) -> CoverageReport:
    """Trace `run(game)` and report, per .metro file, the code-carrying lines that did or did not run."""
    return coverage_of(game, trace_lines(traced_files(game), lambda: run(game)))


def coverage_of(game: Game, executed: set[int]) -> CoverageReport:
    """The report for a set of executed lines of the game's generated module."""
    live, inlined = code_lines(game)
    report = CoverageReport()
    for table, lines in ((live, "code_lines"), (inlined, "inlined")):
        for number, (path, line) in table.items():
            cov = report.files.get(path)
            if cov is None:
                cov = report.files[path] = FileCoverage(path, source=_read(path))
            getattr(cov, lines).add(line)
            if number in executed:
                cov.executed.add(line)
    for cov in report.files.values():
        cov.inlined -= cov.code_lines
    return report


def _read(path: str) -> list[str]:
    try:
        return read_regular(path, MAX_FILE_BYTES).decode("utf-8").split("\n")
    except (UnreadableFile, UnicodeDecodeError):
        return []


def exercise(
    game: Game, random_games: int = 20, seed: int = 0, failures: list[str] | None = None
) -> None:
    """Run every scenario, then seeded random games checking invariants (failures noted, not raised)."""
    failures = failures if failures is not None else []
    for scenario in scenarios(game):
        try:
            run_scenario(game, scenario)
        except (AssertionError, MetroRuntimeError) as error:
            failures.append(f"{scenario.where}: scenario {scenario.name!r}: {error}")
    counts = range(game.min_players, game.max_players + 1)
    for index in range(random_games):
        players, game_seed = counts[index % len(counts)], f"{seed}/{index}"
        try:
            _random_game(game, players, game_seed, failures)
        except (IndexError, MetroRuntimeError) as error:
            failures.append(f"random game {players}p seed {game_seed!r}: {error}")


def _random_game(game: Game, players: int, seed: str, failures: list[str]) -> None:
    rng = random.Random(seed)
    state = game.new_game(players, seed)
    broken = set(broken_invariants(state))
    while not state.is_over:
        player = rng.choice(state.to_move)
        state.apply(player, rng.choice(state.legal_actions(player)))
        broken.update(broken_invariants(state))
    state.scores()
    state.ranking()
    failures.extend(
        f"random game {players}p seed {seed!r}: {message} broke" for message in sorted(broken)
    )


def game_coverage(game: Game, random_games: int = 20, seed: int = 0) -> CoverageReport:
    """Coverage of the game's scenarios plus `random_games` seeded random games."""
    failures: list[str] = []
    report = rule_coverage(game, lambda g: exercise(g, random_games, seed, failures))
    report.failures = failures
    return report


def format_coverage(report: CoverageReport, show_missed: bool = True) -> str:
    """The report as text: a line per file, then each never-run line with its source."""
    out = [f"rule coverage: {report.percent:.1f}% of the .metro lines that carry code ran"]
    width = max((len(p) for p in report.files), default=0)
    for path, cov in sorted(report.files.items()):
        ran = len(cov.code_lines & cov.executed)
        inlined = f"  (+{len(cov.inlined)} inlined)" if cov.inlined else ""
        out.append(
            f"  {path:<{width}}  {ran:>5}/{len(cov.code_lines):<5} {cov.percent:5.1f}%{inlined}"
        )
    missed = report.missed()
    if show_missed and missed:
        out.append(f"never run ({len(missed)}):")
        out.extend(f"  {path}:{line}: {text}" for path, line, text in missed)
    if any(cov.inlined for cov in report.files.values()):
        out.append(
            "inlined: lines of functions the compiler copied into their callers (covered there)"
        )
    if report.failures:
        out.append(f"{len(report.failures)} problem(s) while measuring:")
        out.extend(f"  {failure}" for failure in report.failures)
    return "\n".join(out)
