"""The commands for other engines: testgen writes test vectors, conform runs an engine against them."""

from __future__ import annotations

import json
import os

import click

from loader import load_game
from metro.cli.options import (
    GAME_PATH,
    Failure,
    game_options,
    say,
)
from metro.conformance.adapter import Adapter, EngineError, LocalAdapter, SubprocessAdapter
from metro.conformance.conform import (
    Tally,
    VectorResult,
    load_vectors,
    read_manifest,
    run_vectors,
)
from metro.conformance.engine_pipe import RUN_DEADLINE, RunLimits
from metro.conformance.perft import (
    DEFAULT_BUDGET,
    ChanceInPerft,
    PerftBudget,
    initial_position,
    perft,
)
from metro.conformance.suite import OPTIONAL, REQUIRED
from metro.output_files import write_output
from metro.testing.coverage import format_coverage, game_coverage

WRITTEN_SUFFIXES = (".py", ".json")


def _output_directory(ctx, param, value: str) -> str:
    """`-o` names a directory: refuse, before any work, a name that reads as a file's."""
    if not os.path.isdir(value) and value.lower().endswith(WRITTEN_SUFFIXES):
        raise click.BadParameter(
            f"'{value}' looks like a file name; -o names the directory the files are written "
            "into (the pytest module is named test_metro_<game>.py inside it)"
        )
    return value


@click.command("testgen")
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
            from metro.conformance.vectorgen import VectorError, VectorOptions, generate_vectors

            options = VectorOptions(playouts=playouts, perft_depth=perft_depth)
            try:
                written = generate_vectors(path, out_dir, variants, expansions, map_path, options)
            except VectorError as error:
                raise Failure(f"error: {error}") from None
        else:
            from metro.testing.testgen import generate_tests

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


@click.command("conform")
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
    "--required-only",
    is_flag=True,
    help="Exit 0 when every required vector passes, whatever the optional ones (metro's "
    "conventions) do; both are still run and reported.",
)
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
    required_only: bool,
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
        manifest = read_manifest(folder)
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
            tag = " (optional)" if result.requirement == OPTIONAL else ""
            say(
                f"{verdict} {result.id}{tag}"
                + ("" if result.passed else f"\n     {result.difference}")
            )

    results = run_vectors(start, vectors, report, fail_fast)
    failed = sum(not r.passed for r in results)
    required, optional = Tally.of(results, REQUIRED), Tally.of(results, OPTIONAL)
    stopped = bool(results) and results[-1].stopped
    if as_json:
        say(
            json.dumps(
                {
                    "game": game_name,
                    "suite": manifest["suite"] if manifest else None,
                    "passed": len(results) - failed,
                    "failed": failed,
                    "required": {"passed": required.passed, "failed": required.failed},
                    "optional": {"passed": optional.passed, "failed": optional.failed},
                    "stopped": results[-1].difference if stopped else None,
                    "results": [r.to_doc() for r in results],
                },
                ensure_ascii=False,
            )
        )
    else:
        if manifest:
            say(f"suite {manifest['suite']} (rules {manifest['rules']})")
        say(
            f"required: {required.passed} passed, {required.failed} failed; "
            f"optional: {optional.passed} passed, {optional.failed} failed"
        )
        say(f"{len(results) - failed} passed, {failed} failed")
        if stopped:
            say(
                f"stopped after {len(results)} of {len(vectors)} vectors: the engine used up what "
                "the run allows, so it fails"
            )
    if (required.failed if required_only else failed) or (required_only and stopped):
        raise click.exceptions.Exit(1)


@click.command("reference")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option(
    "-o",
    "--output",
    "out_file",
    type=click.Path(dir_okay=False, path_type=str),
    help="Write the page to this file instead of printing it.",
)
def reference_command(path: str, out_file: str | None) -> None:
    """Print a game's engine reference page (Markdown): fields, actions, chance, ranking."""
    from metro.conformance.reference import reference_page

    page = reference_page(path)
    if out_file is None:
        say(page, nl=False)
        return
    try:
        write_output(out_file, page)
    except OSError as error:
        raise Failure(f"error: cannot write {out_file}: {error.strerror or error}") from None
    say(f"wrote {out_file}")


@click.command("perft")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option("--players", type=click.IntRange(min=1), required=True, help="How many players.")
@click.option(
    "--depth", type=click.IntRange(min=0, max=8), required=True, help="The deepest count."
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=DEFAULT_BUDGET,
    show_default=True,
    help="The most positions one count may visit.",
)
@game_options
def perft_command(
    path: str, players: int, depth: int, budget: int, variants, expansions, map_path
) -> None:
    """Count action sequences of each length up to DEPTH from the initial position of vector
    initial-<N>p (docs/protocol.md, section 6): one `depth count` line per depth."""
    game = load_game(path, expansions=expansions, variants=variants, map=map_path)
    if not game.min_players <= players <= game.max_players:
        raise Failure(
            f"error: {game.name} is for {game.min_players}-{game.max_players} players, not {players}"
        )
    state = initial_position(game, players)
    for level in range(depth + 1):
        try:
            count = perft(state, level, budget)
        except (ChanceInPerft, PerftBudget) as error:
            raise Failure(f"error: depth {level}: {error}") from None
        say(f"{level} {count}")
