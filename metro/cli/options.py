"""The options and helpers every command group shares: games on the command line, seeds, bots, errors."""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from dsl.diagnostics import CompileError
from dsl.terminal import printable
from loader import load_game
from loader.games import UnknownGame, game_path
from metro.analysis.executors import STALL_SECONDS, DaskMissing, WorkersLost
from metro.bots import bot_names, make_bot
from runtime.errors import MetroRuntimeError
from runtime.machine import Game


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


def rich_text(text: str) -> str:
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
            help="Play on this map file in place of the game's default map files of its kinds (the others, such as cards, stay).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def load_with_players(
    path: str, variants, expansions, map_path, players: int | None
) -> tuple[Game, int]:
    game = load_game(path, expansions=expansions, variants=variants, map=map_path)
    if players is None:
        return game, game.min_players
    if not game.min_players <= players <= game.max_players:
        raise click.BadParameter(
            f"{game.name} takes {game.min_players} to {game.max_players} players, not {players}.",
            param_hint="'--players'",
        )
    return game, players


def chosen_bot(game: Game, chosen: str | None, option: str = "--bot") -> str:
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


def seat_bots(game: Game, bot: str | None, bots: str | None, seats: int, whose: str) -> list[str]:
    """One bot spec per seat: `--bots A,B,...` (as many as `seats`), else `--bot` for all."""
    if bots is None:
        return [chosen_bot(game, bot)] * seats
    if bot is not None:
        raise click.UsageError("give --bot (all seats) or --bots (one per seat), not both")
    specs = [spec.strip() for spec in bots.split(",")]
    if len(specs) != seats:
        raise click.BadParameter(
            f"{plural(len(specs), 'bot')} named for {plural(seats, whose)}; "
            "give one per seat, in seat order",
            param_hint="'--bots'",
        )
    return [chosen_bot(game, spec, "--bots") for spec in specs]


MAX_SEED_LENGTH = 1000


def valid_seed(ctx, param, text: str | None) -> str | None:
    """A seed is printable text of at most MAX_SEED_LENGTH characters (a longer number cannot be read)."""
    if text is not None and not (text.isprintable() and len(text) <= MAX_SEED_LENGTH):
        raise click.BadParameter(f"a seed is at most {MAX_SEED_LENGTH} printable characters")
    return text


def seed_value(text: str) -> int | str:
    # `--seed 7` means the same game as `new_game(seed=7)` in Python.
    return int(text) if text.lstrip("-").isdigit() else text


PLAYERS_OPTION = click.option(
    "--players", type=click.IntRange(min=1), help="Number of players [default: the game's minimum]."
)
BOT_OPTION = click.option(
    "--bot",
    metavar="NAME",
    help="Bot for the seats no person plays [default: the game's default bot, else random]: "
    "a level (easy, medium, hard) or a bot, whose budget may follow a colon: mcts:500 "
    "(iterations), mcts:250ms, greedy:8.",
)
BOTS_OPTION = click.option(
    "--bots",
    metavar="A,B,...",
    help="One bot per seat that no person plays, in seat order (e.g. hard,easy or mcts,random).",
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


def require_report_extra(report: str | None) -> None:
    """A usage error, before any game, when `--report` is asked for without matplotlib."""
    if report is None:
        return
    from metro.analysis.pages import PlotsMissing, require_plots  # jinja2, matplotlib

    try:
        require_plots()
    except PlotsMissing as error:
        raise click.UsageError(str(error)) from None


def show_result(
    result,
    as_json: bool,
    report: str | None,
    render: Callable[[object], str],
    show: Callable[[object, Console], None],
) -> None:
    """Write the HTML report if asked (`render` makes its text), then print the result: one JSON
    object (`result.to_dict()`), or `show`'s tables."""
    if report is not None:
        from metro.analysis.pages import write_page

        try:
            write_page(render(result), report)
        except OSError as error:
            raise Failure(f"error: cannot write {report}: {error.strerror or error}") from None
    if as_json:
        say(json.dumps(result.to_dict()))
    else:
        show(result, Console(highlight=False))
        if report is not None:
            say(f"report: {report}")


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
