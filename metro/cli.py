"""The `metro` command line: check, compile, simulate and play games written as .metro files."""

from __future__ import annotations

import json
import os
import random
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

import compiler
from compiler import load_game
from dsl.diagnostics import CompileError
from dsl.terminal import printable
from metro.adapter import Adapter, EngineError, LocalAdapter, SubprocessAdapter
from metro.bots import bot_names, make_bot
from metro.compare import compare, configurations
from metro.compare_view import print_comparison
from metro.conform import VectorResult, load_vectors, run_vectors
from metro.coverage import format_coverage, game_coverage
from metro.engine_pipe import RUN_DEADLINE, RunLimits
from metro.executors import STALL_SECONDS, DaskMissing, WorkersLost
from metro.games import UnknownGame, game_path
from metro.play import Session
from metro.playthrough import transcript
from metro.saved_games import SaveError, Setup, load_saved_game
from metro.scenarios import own_scenarios, run_scenarios
from metro.simulate import SimulationStats, simulate
from metro.stats import ScipyMissing
from runtime.errors import MetroRuntimeError
from runtime.machine import Game
from runtime.values import PLAYER


class GameParam(click.ParamType):
    """A game on the command line: a shipped game's name, or a path to a rules file or folder."""

    name = "GAME"

    def convert(self, value, param, ctx) -> str:
        try:
            return game_path(value)
        except UnknownGame as error:
            self.fail(str(error), param, ctx)


GAME_PATH = GameParam()


def say(message: str = "", err: bool = False, nl: bool = True) -> None:
    """click.echo for text that may quote rule files: no control or escape sequence reaches the terminal."""
    click.echo(printable(message, keep="\n\t"), err=err, nl=nl)


def _rich(text: str) -> str:
    """Rule-file text for rich: printable, and its markup (`[bold]`) shown as written."""
    return escape(printable(text))


class Failure(click.ClickException):
    """An error already worded for the user: printed as it is to stderr, exit status 1."""

    def show(self, file=None) -> None:
        """Print the message alone (no "Error:" prefix; diagnostics carry their own)."""
        say(self.message, err=True)


@contextmanager
def reported() -> Iterator[None]:
    """Turn rule, runtime and unexpected errors into one clean message (never a traceback)."""
    try:
        yield
    except (click.ClickException, click.exceptions.Exit, click.Abort):
        raise
    except CompileError as error:
        raise Failure(error.render()) from None
    except MetroRuntimeError as error:
        raise Failure(f"error: {error}") from None
    except BrokenPipeError:
        # The reader went away (`metro … | head`): stop quietly, as Unix tools do.
        sys.stderr.close()
        raise click.exceptions.Exit(0) from None
    except Exception as error:  # noqa: BLE001 - the last resort: no traceback reaches a user, the error is reported with its place
        where = traceback.extract_tb(error.__traceback__)[-1]
        raise Failure(
            f"internal error: {type(error).__name__}: {error} "
            f"(at {where.filename}:{where.lineno}; please report it)"
        ) from None


class MetroGroup(click.Group):
    """The command group; every subcommand runs inside `reported`."""

    def invoke(self, ctx: click.Context):
        """Run the chosen subcommand with errors reported cleanly."""
        with reported():
            return super().invoke(ctx)


@click.group(cls=MetroGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="metro-games", prog_name="metro")
def main() -> None:
    """Check, compile, simulate and play board games written as .metro rule files."""


def game_options(command: Callable) -> Callable:
    """The options that choose which rules a game runs with: variants, expansions, map."""
    options = [
        click.option(
            "--variant",
            "variants",
            multiple=True,
            metavar="NAME",
            help="Apply a variant (a name under the game's variants/ or a .metro file). Repeatable.",
        ),
        click.option(
            "--with",
            "expansions",
            multiple=True,
            metavar="EXPANSION",
            help="Add an expansion (a name beside the game or a .metro file). Repeatable.",
        ),
        click.option(
            "--map",
            "map_path",
            type=click.Path(exists=True, dir_okay=False, path_type=str),
            help="Play on this map file instead of the game's default map.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


@main.command()
@click.argument("paths", nargs=-1, required=True, type=GAME_PATH, metavar="GAME...")
@click.option(
    "--scenarios",
    "run",
    is_flag=True,
    help="Also run every scenario (a game whose scenarios fail is not ok).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (schemas/check.schema.json) instead of text.",
)
@game_options
def check(paths: tuple[str, ...], run: bool, as_json: bool, variants, expansions, map_path) -> None:
    """Compile games and print their diagnostics; with --scenarios, run their scenarios too.

    Each GAME is a shipped game's name, a game directory (holding rules.metro) or a rules file. Exit status 1
    if any game has errors (or, with --scenarios, a failing scenario).
    """
    results = [
        _check_one(path, variants, expansions, map_path, run, echo=not as_json) for path in paths
    ]
    if as_json:
        say(json.dumps({"games": results}))
    if not all(result["ok"] for result in results):
        raise click.exceptions.Exit(1)


def _check_one(path: str, variants, expansions, map_path, run: bool, echo: bool) -> dict:
    """Compile one game (and run its scenarios); print findings when `echo`; its JSON-able result."""
    result = {"path": path, "ok": False, "game": None, "scenarios": 0, "invariants": 0}
    failed: list[dict] = []
    try:
        ctx = compiler.compile_game(path, expansions, variants, map_path)
    except CompileError as error:
        if echo:
            say(error.render(), err=True)
        return result | {
            "scenarios_passed": None,
            "scenario_failures": failed,
            "diagnostics": [d.to_dict() for d in error.diagnostics],
        }
    program = ctx.program
    declared = len(program.scenarios)
    passed = None
    changed = 0
    if run:
        game = load_game(path, expansions=expansions, variants=variants, map=map_path)
        outcomes = run_scenarios(game, set(own_scenarios(game, path, variants, expansions)))
        failed = [r.to_doc() for r in outcomes if not r.passed and r.own]
        changed = sum(not r.passed and not r.own for r in outcomes)
        passed = sum(r.passed for r in outcomes)
    if echo:
        for diagnostic in ctx.diags.items:
            say(diagnostic.render(ctx.sources), err=True)
        for failure in failed:
            say(
                f"{failure['where']}: scenario {failure['name']} fails: {failure['error']}",
                err=True,
            )
        if not run:
            ran = f"{_plural(declared, 'scenario')} declared, not run"
        else:
            ran = f"{passed} of {_plural(declared, 'scenario')} pass" + (
                f", {changed} base ones changed by the patches" if changed else ""
            )
        verdict = "FAIL" if failed else "ok"
        say(
            f"{verdict}: {printable(program.game_name)} ({ran}; "
            f"{_plural(len(program.invariants), 'invariant')})"
        )
    return result | {
        "ok": not failed,
        "game": program.game_name,
        "scenarios": declared,
        "invariants": len(program.invariants),
        "scenarios_passed": passed,
        "scenario_failures": failed,
        "diagnostics": [d.to_dict() for d in ctx.diags.items],
    }


@main.command("test")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option(
    "-k", "only", default="", metavar="TEXT", help="Run the scenarios whose name has TEXT."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (schemas/test.schema.json) instead of text.",
)
@game_options
def test_command(path: str, only: str, as_json: bool, variants, expansions, map_path) -> None:
    """Run a game's scenarios: pass/fail each, then a summary; exit 1 if one fails.

    With --variant or --with the base scenarios run too (the base of variants is the game with
    its expansions); one that fails under the patches is reported as changed by them (the rule
    it checks changed), not as a failure.
    """
    game = load_game(path, expansions=expansions, variants=variants, map=map_path)
    own = set(own_scenarios(game, path, variants, expansions))
    results = run_scenarios(game, own, only)
    failed = [r for r in results if not r.passed and r.own]
    changed = [r for r in results if not r.passed and not r.own]
    if as_json:
        summary = {"passed": sum(r.passed for r in results), "failed": len(failed)}
        say(
            json.dumps(
                {"game": game.name, **summary, "changed": len(changed)}
                | {"results": [r.to_doc() for r in results]},
                ensure_ascii=False,
            )
        )
    else:
        for result in results:
            verdict = "pass" if result.passed else "FAIL" if result.own else "changed"
            say(f"{verdict} {result.scenario.name}")
            if not result.passed:
                say(f"     {result.error}")
        say(
            f"{sum(r.passed for r in results)} passed, {len(failed)} failed"
            + (f", {len(changed)} base scenarios changed by the patches" if changed else "")
        )
    if failed:
        raise click.exceptions.Exit(1)


@main.command("compile")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=str),
    help="Where to write the generated Python module ('-' for standard output).",
)
@click.option(
    "--scenarios",
    "scenarios_output",
    type=click.Path(dir_okay=False, path_type=str),
    help="Also write the module of the game's scenarios and invariants (run over the game module's names).",
)
@game_options
def compile_command(
    path: str, output: str, scenarios_output: str | None, variants, expansions, map_path
) -> None:
    """Write the Python module that the compiler generates for a game (the game alone)."""
    ctx = compiler.compile_game(path, expansions, variants, map_path)  # none written on errors
    texts = [(output, ctx.python)]
    if scenarios_output:
        texts.append((scenarios_output, ctx.scenarios_python))
    for name, text in texts:
        try:
            with click.open_file(name, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as error:
            raise Failure(f"error: cannot write {name}: {error.strerror or error}") from None


def _load(path: str, variants, expansions, map_path, players: int | None) -> tuple[Game, int]:
    game = load_game(path, expansions=expansions, variants=variants, map=map_path)
    if players is None:
        return game, game.min_players
    if not game.min_players <= players <= game.max_players:
        raise click.BadParameter(
            f"{game.name} takes {game.min_players} to {game.max_players} players, not {players}.",
            param_hint="'--players'",
        )
    return game, players


def _bot_name(game: Game, chosen: str | None, option: str = "--bot") -> str:
    if chosen is not None:
        try:
            make_bot(chosen, 0, game)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint=f"'{option}'") from None
        return chosen
    if game.default_bot is None:
        return "random"
    if game.default_bot not in bot_names(game):
        say(
            f"warning: the game's default bot '{game.default_bot}' is not available; "
            "using 'random'",
            err=True,
        )
        return "random"
    return game.default_bot


def _seat_bots(game: Game, bot: str | None, bots: str | None, seats: int, whose: str) -> list[str]:
    """One bot spec per seat: `--bots A,B,...` (as many as `seats`), else `--bot` for all."""
    if bots is None:
        return [_bot_name(game, bot)] * seats
    if bot is not None:
        raise click.UsageError("give --bot (all seats) or --bots (one per seat), not both")
    specs = [spec.strip() for spec in bots.split(",")]
    if len(specs) != seats:
        raise click.BadParameter(
            f"{_plural(len(specs), 'bot')} named for {_plural(seats, whose)}; "
            "give one per seat, in seat order",
            param_hint="'--bots'",
        )
    return [_bot_name(game, spec, "--bots") for spec in specs]


MAX_SEED_LENGTH = 1000


def _valid_seed(ctx, param, text: str | None) -> str | None:
    """A seed is printable text of at most MAX_SEED_LENGTH characters (a longer number cannot be read)."""
    if text is not None and not (text.isprintable() and len(text) <= MAX_SEED_LENGTH):
        raise click.BadParameter(f"a seed is at most {MAX_SEED_LENGTH} printable characters")
    return text


def _seed(text: str) -> int | str:
    # `--seed 7` means the same game as `new_game(seed=7)` in Python.
    return int(text) if text.lstrip("-").isdigit() else text


PLAYERS_OPTION = click.option(
    "--players", type=click.IntRange(min=1), help="Number of players [default: the game's minimum]."
)
BOT_OPTION = click.option(
    "--bot",
    metavar="NAME",
    help="Bot for the seats no person plays [default: the game's default bot, else random]; "
    "a budget may follow a colon: mcts:500 (iterations), mcts:250ms, greedy:8.",
)
BOTS_OPTION = click.option(
    "--bots",
    metavar="A,B,...",
    help="One bot per seat that no person plays, in seat order (e.g. mcts,random,greedy).",
)


def run_options(command: Callable) -> Callable:
    """Where games run: `--jobs N` local processes or `--dask ADDRESS|local`; `--stall-timeout S`."""
    options = [
        click.option(
            "--jobs",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            help="Worker processes (results do not depend on it); with --dask local, its workers.",
        ),
        click.option(
            "--dask",
            metavar="ADDRESS",
            help="Run the games on a Dask cluster: a scheduler's address (tcp://host:8786), "
            "or 'local' to start one on this machine (needs the dask extra).",
        ),
        click.option(
            "--stall-timeout",
            "stall",
            type=click.FloatRange(min=0.1),
            default=STALL_SECONDS,
            show_default=True,
            help="Seconds a worker may show no sign of life (stopped, or unreachable) before "
            "the run is given up.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@contextmanager
def progress_bar(label: str, total: int, hidden: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (only on a terminal); yields the function that advances it."""
    console = Console(stderr=True)
    # No refresh thread: worker processes may be forked, and forking a threaded process is unsafe.
    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        auto_refresh=False,
        disable=hidden or not console.is_terminal,
    ) as bar:
        task = bar.add_task("games", total=total)

        def advance(finished: int) -> None:
            bar.advance(task, finished)
            bar.refresh()

        try:
            yield advance
        except DaskMissing as error:
            raise click.UsageError(str(error)) from None
        except WorkersLost as error:
            raise Failure(f"error: {error}") from None


@main.command("simulate")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@PLAYERS_OPTION
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="How many games to play.",
)
@click.option(
    "--seed",
    default="1",
    show_default=True,
    help="Base seed: game i is seeded with SEED/i.",
    callback=_valid_seed,
)
@BOT_OPTION
@BOTS_OPTION
@run_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@game_options
def simulate_command(
    path: str,
    players,
    games: int,
    seed: str,
    bot,
    bots,
    jobs: int,
    dask: str | None,
    stall: float,
    as_json: bool,
    variants,
    expansions,
    map_path,
) -> None:
    """Play seeded bot games; report wins, scores and speed."""
    game, players = _load(path, variants, expansions, map_path, players)
    specs = _seat_bots(game, bot, bots, players, "player")
    with progress_bar("simulating", games, as_json) as advance:
        stats = simulate(
            path,
            players,
            games,
            seed,
            variants=variants,
            expansions=expansions,
            map=map_path,
            jobs=jobs,
            progress=advance,
            bots=specs,
            dask=dask,
            stall=stall,
        )
    where = f"Dask at {dask}" if dask else _plural(jobs, "job")
    if as_json:
        summary = stats.to_dict() | {
            "variants": list(variants),
            "expansions": list(expansions),
            "jobs": jobs,
            "dask": dask,
        }
        say(json.dumps(summary))
    else:
        _print_stats(stats, where)


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _print_stats(stats: SimulationStats, where: str) -> None:
    table = Table(
        title=f"{_rich(stats.game)}: {_plural(stats.games, 'game')}, {stats.players} players",
        caption=f"seed {_rich(stats.seed)}, {_rich(stats.bot)} bots",
    )
    for heading in ("Seat", "Wins", "Win rate", "95% interval", "Mean score"):
        table.add_column(heading, justify="left" if heading == "Seat" else "right")
    for seat in range(stats.players):
        low, high = stats.win_interval(seat)
        table.add_row(
            PLAYER.label(seat),
            _number(stats.wins[seat]),
            f"{stats.win_rate(seat):.1%}",
            f"{low:.1%} - {high:.1%}",
            f"{stats.mean_scores[seat]:,.2f}",
        )
    console = Console(highlight=False)
    console.print(table)
    console.print(f"Mean decisions per game: {stats.mean_decisions:,.1f}")
    console.print(
        f"Speed: {stats.games_per_second:,.1f} games/s, {stats.decisions_per_second:,.0f} "
        f"decisions/s ({stats.seconds:.2f} s, {where})"
    )
    if stats.unfinished:
        console.print(f"Unfinished games (nobody could move): {stats.unfinished}")


@main.command("playthrough")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@PLAYERS_OPTION
@click.option(
    "--seed", default="1", show_default=True, help="Seed of the game.", callback=_valid_seed
)
@BOT_OPTION
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=str),
    help="Write the transcript to this file (the golden file) instead of printing it.",
)
@game_options
def playthrough_command(
    path: str, players, seed: str, bot, output, variants, expansions, map_path
) -> None:
    """Print (or write) the deterministic transcript of one seeded game, for golden-file tests."""
    game, players = _load(path, variants, expansions, map_path, players)
    text = transcript(game, players, _seed(seed), _bot_name(game, bot))
    if output is None:
        say(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise Failure(f"error: cannot write {output}: {error.strerror or error}") from None


# What testgen writes into its output directory: a name ending so names a file, not a directory.
WRITTEN_SUFFIXES = (".py", ".json")


def _output_directory(ctx, param, value: str) -> str:
    """`-o` names a directory: refuse, before any work, a name that reads as a file's."""
    if not os.path.isdir(value) and value.lower().endswith(WRITTEN_SUFFIXES):
        raise click.BadParameter(
            f"'{value}' looks like a file name; -o names the directory the files are written "
            "into (the pytest module is named test_metro_<game>.py inside it)"
        )
    return value


@main.command("testgen")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option(
    "-o",
    "--output",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=str),
    callback=_output_directory,
    help="Directory to write into, made if missing: the pytest module "
    "(test_metro_<game>.py) or the vector files.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["pytest", "vectors"]),
    default="pytest",
    show_default=True,
    help="A pytest module, or language-neutral JSON test vectors for any engine (docs/protocol.md).",
)
@click.option(
    "--playouts",
    type=click.IntRange(min=0, max=100),
    default=1,
    show_default=True,
    help="Vectors: random playouts per player count.",
)
@click.option(
    "--perft-depth",
    type=click.IntRange(min=0, max=8),
    default=3,
    show_default=True,
    help="Vectors: the deepest perft count published.",
)
@click.option(
    "--coverage", is_flag=True, help="Also print which .metro lines scenarios and random games run."
)
@click.option(
    "--games",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="Random games played for the coverage report.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (schemas/testgen.schema.json) instead of text.",
)
@game_options
def testgen_command(
    path: str,
    out_dir: str,
    output_format: str,
    playouts: int,
    perft_depth: int,
    coverage: bool,
    games: int,
    as_json: bool,
    variants,
    expansions,
    map_path,
) -> None:
    """Write tests for a game: a standalone pytest module, or JSON test vectors for any engine."""
    # code generation: imported only when asked for
    try:
        if output_format == "vectors":
            from metro.vectorgen import VectorError, VectorOptions, generate_vectors

            options = VectorOptions(playouts=playouts, perft_depth=perft_depth)
            try:
                written = generate_vectors(path, out_dir, variants, expansions, map_path, options)
            except VectorError as error:
                raise Failure(f"error: {error}") from None
        else:
            from metro.testgen import generate_tests

            written = generate_tests(path, out_dir, variants, expansions, map_path)
    except OSError as error:  # the output directory cannot be made or written
        where = error.filename or out_dir
        raise Failure(f"error: cannot write {where}: {error.strerror or error}") from None
    report = None
    if coverage:
        game = load_game(path, expansions=expansions, variants=variants, map=map_path)
        report = game_coverage(game, random_games=games)
    if as_json:
        say(
            json.dumps({"written": list(written), "coverage": report.to_dict() if report else None})
        )
        return
    for name in written:
        say(f"wrote {name}")
    if report is not None:
        say(format_coverage(report))


@main.command("conform")
@click.argument(
    "folder", type=click.Path(exists=True, file_okay=False, path_type=str), metavar="DIR"
)
@click.option(
    "--engine",
    "command",
    metavar="CMD",
    help="The engine to test: a command line speaking the JSON-lines protocol (docs/protocol.md).",
)
@click.option(
    "--reference",
    type=GAME_PATH,
    metavar="GAME",
    help="Test metro's own runtime of GAME instead of an engine (with --variant/--with/--map).",
)
@click.option(
    "--only", default="", metavar="TEXT", help="Run only the vectors whose id contains TEXT."
)
@click.option("-x", "--fail-fast", is_flag=True, help="Stop at the first vector that fails.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Seconds the engine may take to answer one request.",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0.1),
    default=RUN_DEADLINE,
    show_default=True,
    help="Seconds the whole run may take; an engine still running then fails and the run ends.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (schemas/conform.schema.json) instead of text.",
)
@game_options
def conform_command(
    folder: str,
    command: str | None,
    reference: str | None,
    only: str,
    fail_fast: bool,
    timeout: float,
    deadline: float,
    as_json: bool,
    variants,
    expansions,
    map_path,
) -> None:
    """Run the test vectors in DIR against an engine: pass/fail per vector, exit 1 on any failure."""
    if (command is None) == (reference is None):
        raise click.UsageError("give --engine CMD (an engine to test) or --reference GAME")
    try:
        game_name, vectors = load_vectors(folder, only)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise Failure(f"error: cannot read the vectors: {error}") from None
    if command is not None:
        limits = RunLimits.lasting(deadline)  # shared by every engine the run starts

        def start() -> Adapter:
            engine = SubprocessAdapter(command, timeout=timeout, limits=limits)
            try:
                served = engine.info()["game"]
            except EngineError:
                engine.close()
                raise
            if served != game_name:
                engine.close()
                raise Failure(
                    f"error: the engine serves {served!r}; the vectors are of {game_name!r}"
                )
            return engine

    else:
        game = load_game(reference, expansions=expansions, variants=variants, map=map_path)

        def start() -> Adapter:
            return LocalAdapter(game)

    def report(result: VectorResult) -> None:
        if not as_json:
            verdict = "pass" if result.passed else "FAIL"
            say(f"{verdict} {result.id}" + ("" if result.passed else f"\n     {result.difference}"))

    results = run_vectors(start, vectors, report, fail_fast)
    failed = sum(not r.passed for r in results)
    stopped = bool(results) and results[-1].stopped
    if as_json:
        say(
            json.dumps(
                {
                    "game": game_name,
                    "passed": len(results) - failed,
                    "failed": failed,
                    "stopped": results[-1].difference if stopped else None,
                    "results": [r.to_doc() for r in results],
                },
                ensure_ascii=False,
            )
        )
    else:
        say(f"{len(results) - failed} passed, {failed} failed")
        if stopped:
            say(
                f"stopped after {len(results)} of {len(vectors)} vectors: the engine used up what "
                "the run allows, so it fails"
            )
    if failed:
        raise click.exceptions.Exit(1)


@main.command("compare")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option(
    "--variant",
    "variants",
    multiple=True,
    metavar="NAME[,NAME]",
    help="A configuration to compare with the base: this variant (commas: several at once). "
    "Repeatable.",
)
@click.option(
    "--with",
    "expansions",
    multiple=True,
    metavar="EXPANSION[,…]",
    help="A configuration to compare with the base: with this expansion. Repeatable.",
)
@click.option(
    "--map",
    "map_path",
    type=click.Path(exists=True, dir_okay=False, path_type=str),
    help="Play every configuration on this map file.",
)
@PLAYERS_OPTION
@click.option(
    "--games",
    type=click.IntRange(min=2),
    default=100,
    show_default=True,
    help="Games per configuration.",
)
@click.option(
    "--seed",
    default="1",
    show_default=True,
    help="Base seed: game i of every configuration is seeded with SEED/i.",
    callback=_valid_seed,
)
@BOT_OPTION
@BOTS_OPTION
@run_options
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (schemas/compare.schema.json) with every game's record.",
)
@click.option(
    "--report",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="FILE.html",
    help="Also write a self-contained HTML report with plots (needs the report extra).",
)
def compare_command(
    path: str,
    variants,
    expansions,
    map_path,
    players,
    games: int,
    seed: str,
    bot,
    bots,
    jobs: int,
    dask: str | None,
    stall: float,
    as_json: bool,
    report: str | None,
) -> None:
    """Play the base game and each variant or expansion on the same seeds, and compare them.

    Reports win rates by seat, scores, margins, game length and the game's metrics per
    configuration, and each configuration's differences from the base with 95% intervals and
    paired tests, in words.
    """
    if not variants and not expansions:
        raise click.UsageError("name at least one configuration: --variant NAME or --with NAME")
    try:
        configs = configurations(variants, expansions)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    if report is not None:
        from metro.report import PlotsMissing, require_plots, write_report  # jinja2, matplotlib

        try:
            require_plots()
        except PlotsMissing as error:
            raise click.UsageError(str(error)) from None
    game, players = _load(path, (), (), map_path, players)
    specs = _seat_bots(game, bot, bots, players, "player")
    try:
        with progress_bar("comparing", games * len(configs), as_json) as advance:
            result = compare(
                path, players, games, seed, specs, configs, map_path, jobs, dask, advance, stall
            )
    except ScipyMissing as error:
        raise click.UsageError(str(error)) from None
    if report is not None:
        try:
            write_report(result, report)
        except OSError as error:
            raise Failure(f"error: cannot write {report}: {error.strerror or error}") from None
    if as_json:
        say(json.dumps(result.to_dict()))
    else:
        print_comparison(result, Console(highlight=False))
        if report is not None:
            say(f"report: {report}")


@main.command("diff")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@game_options
def diff_command(path: str, variants, expansions, map_path) -> None:
    """List, in words, every declaration the expansions and variants add, replace or remove."""
    with reported():
        from metro.diff import describe_patches  # the front end: imported only when asked for

        changes = describe_patches(path, expansions=expansions, variants=variants)
    if not changes:
        say("no changes (name expansions with --with and variants with --variant)")
    for change in changes:
        say(str(change))


@main.command("lsp")
def lsp_command() -> None:
    """Run the language server for editors (LSP over standard input and output).

    Needs the lsp extra: pip install 'metro-games[lsp]'.
    """
    try:
        from metro.lsp.server import serve
    except ImportError as error:
        if error.name not in ("pygls", "lsprotocol") and not str(error.name).startswith("pygls."):
            raise
        raise Failure(
            "error: `metro lsp` needs the lsp extra: pip install 'metro-games[lsp]'"
        ) from None
    serve()


@main.command("serve")
@click.argument("games", nargs=-1, metavar="[GAME]...")
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="The port to listen on.",
)
@click.option(
    "--db",
    default=None,
    metavar="URL",
    help="The database (a SQLAlchemy URL); default: a SQLite file in the user's data directory.",
)
@click.option(
    "--absent-after",
    "absent_seconds",
    default=None,
    type=click.FloatRange(0),
    metavar="SECONDS",
    help="A bot stands in for a person whose page has been closed this long (0: never; default 60).",
)
@click.option(
    "--export",
    "export",
    nargs=2,
    default=None,
    metavar="MATCH FILE",
    help="Serve nothing: save match MATCH of the database as FILE, for `metro play --load FILE`.",
)
def serve_command(
    games: tuple[str, ...],
    host: str,
    port: int,
    db: str | None,
    absent_seconds: float | None,
    export: tuple[str, str] | None,
) -> None:
    """Play games in the browser: a lobby, matches with people and bots (all shipped games if none given).

    Needs the serve extra: pip install 'metro-games[serve]'.
    """
    if export is not None:
        _export_match(list(games), db, *export)
        return
    try:
        from metro.serve.server import run  # starlette, uvicorn and sqlalchemy load only now
    except ImportError as error:
        if str(error.name).split(".")[0] not in ("starlette", "uvicorn", "sqlalchemy", "anyio"):
            raise
        raise Failure(
            "error: `metro serve` needs the serve extra: pip install 'metro-games[serve]'"
        ) from None
    try:
        run(list(games), host, port, db, absent_seconds)
    except UnknownGame as error:
        raise Failure(f"error: {error}") from None


def _export_match(games: list[str], db: str | None, match_id: str, path: str) -> None:
    """`metro serve --export`: a match of the database as a `metro play` save."""
    try:
        from metro.serve.catalog import Catalog
        from metro.serve.export import ExportError, export_match
        from metro.serve.store import Store, default_url
    except ImportError as error:
        if str(error.name).split(".")[0] != "sqlalchemy":
            raise
        raise Failure(
            "error: `metro serve` needs the serve extra: pip install 'metro-games[serve]'"
        ) from None
    try:
        export_match(Store(db or default_url()), Catalog(games), match_id, path)
    except (ExportError, UnknownGame) as error:
        raise Failure(f"error: {error}") from None
    except OSError as error:
        raise Failure(f"error: cannot write {path}: {error.strerror or error}") from None
    click.echo(f"Saved match {match_id} to {path}. Continue it with: metro play --load {path}")


@main.command("fmt")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--check", is_flag=True, help="Change nothing; exit 1 if a file is not formatted.")
@click.option("--diff", "show_diff", is_flag=True, help="Change nothing; print what would change.")
def fmt_command(paths: tuple[str, ...], check: bool, show_diff: bool) -> None:
    """Lay out .metro files in the one canonical layout, keeping every comment.

    Each PATH is a .metro file or a directory searched for them; `-` reads standard input
    and writes the result to standard output. Exit status 1 if a file has errors, or, with
    --check, if one would change.
    """
    # imported here: the formatter needs the front end, which `metro simulate` never loads
    from metro.fmt import format_file, format_stdin, metro_files, write_atomically

    if paths == ("-",):
        say(format_stdin(sys.stdin.read()), nl=False)
        return
    changed = unchanged = failed = 0
    for path in metro_files(list(paths)):
        try:
            result = format_file(path)
        except CompileError as error:
            say(error.render(), err=True)
            failed += 1
            continue
        if not result.changed:
            unchanged += 1
            continue
        changed += 1
        if show_diff:
            say(result.diff(), nl=False)
        elif check:
            say(f"would reformat {path}", err=True)
        else:
            try:
                write_atomically(path, result.after)
            except OSError as error:
                say(f"{path}: error: cannot write the file: {error.strerror or error}", err=True)
                failed += 1
                changed -= 1
                continue
            say(f"reformatted {path}", err=True)
    verb = "would be reformatted" if check or show_diff else "reformatted"
    summary = f"{_plural(changed, 'file')} {verb}, {unchanged} unchanged"
    say(summary + (f", {failed} with errors" if failed else ""), err=True)
    if failed or (check and changed):
        raise click.exceptions.Exit(1)


@main.command()
@click.argument("path", type=GAME_PATH, metavar="GAME", required=False)
@PLAYERS_OPTION
@click.option(
    "--human",
    "humans",
    type=click.IntRange(min=1),
    multiple=True,
    help="Seat played by a person at this terminal (1-based) [default: 1]. Repeatable (hot seat).",
)
@click.option(
    "--seed",
    help="Seed of the game [default: a random one, printed at the start].",
    callback=_valid_seed,
)
@BOT_OPTION
@BOTS_OPTION
@click.option(
    "--load",
    "load_path",
    type=click.Path(exists=True, dir_okay=False, path_type=str),
    help="Continue a game saved with `save FILE` (GAME may then be left out).",
)
@game_options
def play(
    path,
    players,
    humans: tuple[int, ...],
    seed,
    bot,
    bots,
    load_path,
    variants,
    expansions,
    map_path,
) -> None:
    """Play a game in the terminal, against bots or other people at this terminal.

    Each screen fits the terminal: what does not fit (the table, the players, your secrets) is
    named, and typing its name pages through it. A kind of action keeps its number in every
    menu (`3`, or `3.2` for its second choice); a save names a shipped game by its name.
    """
    console = Console(highlight=False)
    if load_path is not None:
        session = _loaded_session(path, load_path, console)
    else:
        if path is None:
            raise click.UsageError("name a GAME, or --load a saved game")
        session = _new_session(
            path, players, humans or (1,), seed, bot, bots, variants, expansions, map_path, console
        )
    setup = session.setup
    you = ", ".join(PLAYER.label(p) for p in setup.humans)
    named = ", ".join(dict.fromkeys(setup.bots.values())) or "no"
    session.say(
        f"{session.game.name}: {session.state.n} players, seed {setup.seed}. You play {you}; "
        f"the others are {named} bots. Type help for the commands."
    )
    session.run()


def _new_session(
    path, players, humans, seed, bot, bots, variants, expansions, map_path, console
) -> Session:
    game, players = _load(path, variants, expansions, map_path, players)
    seats = sorted({h - 1 for h in humans})
    if seats[-1] >= players:
        raise click.BadParameter(
            f"there is no seat {seats[-1] + 1} in a {players}-player game.", param_hint="'--human'"
        )
    seed = seed if seed is not None else str(random.randrange(1_000_000))
    others = [p for p in range(players) if p not in seats]
    specs = _seat_bots(game, bot, bots, len(others), "bot seat")
    setup = Setup(
        path,
        tuple(variants),
        tuple(expansions),
        map_path,
        tuple(seats),
        dict(zip(others, specs, strict=True)),
        seed,
    )
    return Session(game, setup, game.new_game(players, _seed(seed)), console)


def _loaded_session(path, load_path: str, console) -> Session:
    """A session continuing a save: the save is untrusted, every part of it is checked."""
    try:
        saved = load_saved_game(load_path, path)
    except SaveError as error:
        raise Failure(f"error: cannot continue {load_path}: {error}") from None
    session = Session(saved.game, saved.setup, saved.state, console, saved.log)
    session.seen_up_to = {p: len(saved.log.moves) for p in saved.setup.humans}
    return session


# The picture commands live in their own module, which reads this one's options and helpers.
from metro.cli_pictures import render_command, replay_command  # noqa: E402

main.add_command(render_command)
main.add_command(replay_command)
