"""The `metro` command line: check, compile, simulate and play games written as .metro files."""

from __future__ import annotations

import json
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

from compiler import compile_game, generate_python, load_game
from dsl.diagnostics import CompileError
from dsl.terminal import printable
from metro.bots import bot_names, make_bot
from metro.coverage import format_coverage, game_coverage
from metro.diff import describe_patches
from metro.fmt import format_file, format_stdin, metro_files, write_atomically
from metro.games import UnknownGame, game_path
from metro.playthrough import transcript
from metro.simulate import SimulationStats, simulate
from metro.testgen import generate_tests
from runtime.errors import MetroRuntimeError
from runtime.machine import Action, Game, State
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
PLACES = {1: "1st", 2: "2nd", 3: "3rd"}
MENU_LIMIT = 40  # longer lists of legal actions are summarised by action name


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
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (schemas/check.schema.json) instead of text.",
)
@game_options
def check(paths: tuple[str, ...], as_json: bool, variants, expansions, map_path) -> None:
    """Compile games and print their diagnostics.

    Each GAME is a shipped game's name, a game directory (holding rules.metro) or a rules file. Exit status 1
    if any game has errors.
    """
    results = [_check_one(path, variants, expansions, map_path, echo=not as_json) for path in paths]
    if as_json:
        say(json.dumps({"games": results}))
    if not all(result["ok"] for result in results):
        raise click.exceptions.Exit(1)


def _check_one(path: str, variants, expansions, map_path, echo: bool) -> dict:
    """Compile one game; print its diagnostics when `echo`; its JSON-able result."""
    result = {"path": path, "ok": False, "game": None, "scenarios": 0, "invariants": 0}
    try:
        ctx = compile_game(path, expansions, variants, map_path)
    except CompileError as error:
        if echo:
            say(error.render(), err=True)
        return result | {"diagnostics": [d.to_dict() for d in error.diagnostics]}
    program = ctx.program
    if echo:
        for diagnostic in ctx.diags.items:
            say(diagnostic.render(ctx.sources), err=True)
        say(
            f"ok: {printable(program.game_name)} ({_plural(len(program.scenarios), 'scenario')}, "
            f"{_plural(len(program.invariants), 'invariant')})"
        )
    return result | {
        "ok": True,
        "game": program.game_name,
        "scenarios": len(program.scenarios),
        "invariants": len(program.invariants),
        "diagnostics": [d.to_dict() for d in ctx.diags.items],
    }


@main.command("compile")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=str),
    help="Where to write the generated Python module ('-' for standard output).",
)
@game_options
def compile_command(path: str, output: str, variants, expansions, map_path) -> None:
    """Write the Python module that the compiler generates for a game."""
    text = generate_python(path, expansions, variants, map_path)  # nothing is written on errors
    try:
        with click.open_file(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise Failure(f"error: cannot write {output}: {error.strerror or error}") from None


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
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes (results do not depend on it).",
)
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
    as_json: bool,
    variants,
    expansions,
    map_path,
) -> None:
    """Play seeded bot games; report wins, scores and speed."""
    game, players = _load(path, variants, expansions, map_path, players)
    specs = _seat_bots(game, bot, bots, players, "player")
    console = Console(stderr=True)
    # No refresh thread: worker processes may be forked, and forking a threaded process is unsafe.
    with Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        auto_refresh=False,
        disable=as_json or not console.is_terminal,
    ) as bar:
        task = bar.add_task("games", total=games)

        def advance(finished: int) -> None:
            bar.advance(task, finished)
            bar.refresh()

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
        )
    if as_json:
        summary = stats.to_dict() | {
            "variants": list(variants),
            "expansions": list(expansions),
            "jobs": jobs,
        }
        say(json.dumps(summary))
    else:
        _print_stats(stats, jobs)


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _print_stats(stats: SimulationStats, jobs: int) -> None:
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
        f"decisions/s ({stats.seconds:.2f} s, {_plural(jobs, 'job')})"
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


@main.command("testgen")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option(
    "-o",
    "--output",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=str),
    help="Directory for the generated pytest module(s).",
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
    coverage: bool,
    games: int,
    as_json: bool,
    variants,
    expansions,
    map_path,
) -> None:
    """Write a standalone pytest module for a game: scenarios, invariants under Hypothesis, the battery."""
    written = generate_tests(path, out_dir, variants, expansions, map_path)
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


@main.command("diff")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@game_options
def diff_command(path: str, variants, expansions, map_path) -> None:
    """List, in words, every declaration the expansions and variants add, replace or remove."""
    with reported():
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
@click.argument("path", type=GAME_PATH, metavar="GAME")
@PLAYERS_OPTION
@click.option(
    "--human",
    "humans",
    type=click.IntRange(min=1),
    multiple=True,
    default=(1,),
    show_default=True,
    help="Seat played by a person at this terminal (1-based). Repeatable.",
)
@click.option(
    "--seed",
    help="Seed of the game [default: a random one, printed at the start].",
    callback=_valid_seed,
)
@BOT_OPTION
@BOTS_OPTION
@game_options
def play(
    path: str, players, humans: tuple[int, ...], seed, bot, bots, variants, expansions, map_path
) -> None:
    """Play a game in the terminal against bots."""
    game, players = _load(path, variants, expansions, map_path, players)
    seats = sorted({h - 1 for h in humans})
    if seats[-1] >= players:
        raise click.BadParameter(
            f"there is no seat {seats[-1] + 1} in a {players}-player game.", param_hint="'--human'"
        )
    seed = seed if seed is not None else str(random.randrange(1_000_000))
    others = [p for p in range(players) if p not in seats]
    specs = _seat_bots(game, bot, bots, len(others), "bot seat")
    state = game.new_game(players, _seed(seed))
    bots = {p: make_bot(spec, f"{seed}/{p}", game) for p, spec in zip(others, specs, strict=True)}
    you = ", ".join(PLAYER.label(p) for p in seats)
    named = ", ".join(dict.fromkeys(specs)) or "no"
    say(
        f"{printable(game.name)}: {players} players, seed {printable(seed)}. You play {you}; "
        f"the others are {named} bots."
    )
    say("Answer with a number or an action id; q quits.")
    while state.to_move:
        player = state.to_move[0]
        if player in bots:
            action = bots[player].choose(state, player)
            say(f"{PLAYER.label(player)}: {_public_label(state, action)}")
        else:
            action = _ask(state, player)
            if action is None:
                say("You left the game.")
                return
        state.apply(player, action)
    _show_end(state, seats)


def _public_label(state: State, action: Action) -> str:
    # Only menu actions (`choose by p { ... }`) are public moves. A simultaneous choice stays
    # secret until the rules reveal its effect: not even which action it was is shown. Other
    # choices may pick private things (e.g. which cards to keep), so only their name is shown.
    site = state.game.sites[state.site]
    if site.secret:
        return "has chosen (in secret)"
    if site.kind == "actions":
        return printable(action.label)
    return f"chose {action.name.replace('_', ' ')}"


def _ask(state: State, player: int) -> Action | None:
    _show_view(state.view(player), player)
    actions = state.legal_actions(player)
    _show_menu(actions)
    while True:
        answer = click.prompt(f"{PLAYER.label(player)}, your move", prompt_suffix="> ").strip()
        if answer.lower() in ("q", "quit"):
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(actions):
            return actions[int(answer) - 1]
        for action in actions:
            if answer == action.id:
                return action
        matches = [(n, a) for n, a in enumerate(actions, 1) if answer.lower() in a.label.lower()]
        if matches and not answer.isdigit():
            for number, action in matches:
                say(f"{number:>4}. {printable(action.label)}")
            continue
        say(
            f"'{answer}' is not one of the choices: type a number from 1 to {len(actions)}, "
            f"an action id such as {printable(actions[0].id)}, or q to quit."
        )


def _show_menu(actions: list[Action]) -> None:
    if len(actions) <= MENU_LIMIT:
        for number, action in enumerate(actions, 1):
            say(f"{number:>4}. {printable(action.label)}")
        return
    # Long menus are shown as runs of one action name; typing a word lists its members.
    first = 0
    for number in range(1, len(actions) + 1):
        if number == len(actions) or actions[number].name != actions[first].name:
            if number - first == 1:
                say(f"{first + 1:>9}. {printable(actions[first].label)}")
            else:
                name = actions[first].name.replace("_", " ")
                say(f"{f'{first + 1}-{number}':>9}. {name} ({number - first} choices)")
            first = number
    say("Type part of a choice, such as its name, to list the matching ones with their numbers.")


def _show_view(view: dict, player: int) -> None:
    say("")
    say(
        f"== {printable(view['game'])}: you are {view['you']}; to move: {', '.join(view['to_move'])} =="
    )
    say("Table:")
    for name, value in view["state"].items():
        say(f"  {name}: {_text(value)}")
    say(f"You ({view['you']}):")
    for name, value in view["player_state"][player].items():
        say(f"  {name}: {_text(value)}")
    for other, fields in enumerate(view["player_state"]):
        if other != player:
            shown = "; ".join(f"{name} {_text(value)}" for name, value in fields.items())
            say(f"{PLAYER.label(other)}: {shown}")


def _text(value, nested: bool = False) -> str:
    """A view value as short readable text (entries that are none are left out of maps)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        if value.get("hidden") is True:
            return "hidden" if value.get("size") is None else f"hidden ({value['size']})"
        items = [f"{key}={_text(item, True)}" for key, item in value.items() if item is not None]
        text = ", ".join(items) or "-"
    elif isinstance(value, list):
        text = ", ".join(_text(item, True) for item in value) or "-"
    else:
        return printable(str(value))
    return f"[{text}]" if nested else text


def _show_end(state: State, seats: list[int]) -> None:
    say("")
    say("Game over." if state.is_over else "The game stopped: nobody can move.")
    scores, places = state.scores(), state.ranking()
    for player in sorted(range(state.n), key=lambda p: (places[p], p)):
        place = PLACES.get(places[player], f"{places[player]}th")
        mark = " (you)" if player in seats else ""
        say(f"  {place:>4}  {PLAYER.label(player)}{mark}: {scores[player]} points")
