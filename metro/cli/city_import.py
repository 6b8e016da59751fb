"""The `import` commands: a city's transit network made into a game's map file."""

from __future__ import annotations

import os
from collections import Counter

import click

from metro.cli.options import GAME_PATH, PLAYERS_OPTION


@click.group("import")
def import_group() -> None:
    """Make a game's map from open transit data."""


@import_group.command("gtfs")
@click.argument("feed", type=click.Path(exists=True, path_type=str))
@click.option("--game", "game", type=GAME_PATH, required=True, help="The game to make a map for.")
@click.option(
    "--lines",
    default="",
    metavar="A,B,...",
    help="Only these routes (route ids or short names); all of the chosen types by default.",
)
@click.option(
    "--route-types",
    default="1",
    show_default=True,
    metavar="T,...",
    help="GTFS route types to read (0 tram, 1 metro, 2 rail, ...; extended types fold in).",
)
@click.option("--name", default=None, help="The city's name (default: the feed's file name).")
@click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=str),
    help="The map file to write (CITY.metro).",
)
@click.option("--force", is_flag=True, help="Replace the output file if it exists.")
@click.option(
    "--compare-with",
    "compare_with",
    metavar="default|FILE",
    help="Then play the game on the new map and on this one ('default': the game's own) on the "
    "same seeds, and print what differs (seat balance, length, scores): metro compare.",
)
@click.option(
    "--games",
    type=click.IntRange(min=2),
    default=40,
    show_default=True,
    help="Games per map of --compare-with.",
)
@PLAYERS_OPTION
def gtfs_command(
    feed, game, lines, route_types, name, output, force, compare_with, games, players
) -> None:
    """Read a GTFS feed (a zip or a folder) and write GAME's map of its network, checked."""
    from dsl.diagnostics import CompileError
    from metro.cli.options import Failure, load_with_players
    from metro.network.game_import import NoImporter, map_builder
    from metro.network.gtfs import read_network
    from metro.network.model import FeedError
    from metro.output_files import write_output

    types = _numbers(route_types, "--route-types")
    if compare_with not in (None, "default") and not os.path.isfile(compare_with):
        raise click.BadParameter(
            f"{compare_with!r} is neither 'default' nor a map file", param_hint="'--compare-with'"
        )
    if not os.path.isdir(os.path.dirname(os.path.abspath(output))):
        raise click.BadParameter(
            f"no folder {os.path.dirname(output)!r} to write into", param_hint="'-o'"
        )
    if os.path.exists(output) and not force:
        raise click.BadParameter(f"{output} exists (--force replaces it)", param_hint="'-o'")
    try:
        build = map_builder(game)
    except NoImporter as error:
        raise click.BadParameter(str(error), param_hint="'--game'") from None
    try:
        network, report = read_network(feed, types, _names(lines), name)
    except FeedError as error:
        where = "" if error.origin.file == feed else f"{feed}: "
        raise click.ClickException(f"{where}{error}") from None
    except ModuleNotFoundError as error:
        raise click.ClickException(
            f"reading GTFS needs the import extra ({error.name} is missing): "
            "pip install 'metro-games[import]'"
        ) from None
    try:
        text, notes = build(network)
    except ValueError as error:
        raise click.ClickException(f"{feed}: {error}") from None
    # Checked before it is written: a map the game refuses is not left behind.
    folder = os.path.dirname(os.path.abspath(output))
    trial = os.path.join(folder, f".{os.path.basename(output)}.check.metro")
    write_output(trial, text)
    try:
        checked, _ = load_with_players(game, (), (), trial, None)
    except CompileError as error:
        raise Failure(
            f"{error.render()}\n{output} not written: {os.path.basename(game.rstrip(os.sep))} "
            "refuses the map above (the comment beside an element says which of the feed's "
            "stations and lines it comes from)"
        ) from None
    finally:
        os.unlink(trial)
    write_output(output, text)
    for note in report.notes + notes:
        click.echo(f"note: {note}", err=True)
    entries = ", ".join(f"{kind} {count}" for kind, count in _entries(text, output).items())
    click.echo(
        f"wrote {output}: {entries} (from {len(network.lines)} lines and "
        f"{len(network.stations)} stations of the feed), checked: {checked.name}"
    )
    if compare_with is not None:
        _compare(game, output, None if compare_with == "default" else compare_with, games, players)


def _compare(game: str, output: str, base_map: str | None, games: int, players: int | None) -> None:
    """The game on the base map and on the new one, on the same seeds, compared in words."""
    from rich.console import Console

    from metro.analysis.compare import Config, compare
    from metro.analysis.compare_view import print_comparison
    from metro.analysis.stats import ScipyMissing
    from metro.cli.options import load_with_players, progress_bar, seat_bots

    checked, players = load_with_players(game, (), (), base_map, players)
    bots = seat_bots(checked, None, None, players, "player")
    configs = [Config("base"), Config(f"map {os.path.basename(output)}", map=output)]
    try:
        with progress_bar("comparing", games * len(configs), False) as advance:
            result = compare(game, players, games, 1, bots, configs, base_map, progress=advance)
    except ScipyMissing as error:
        raise click.UsageError(str(error)) from None
    print_comparison(result, Console(highlight=False))


def _entries(text: str, path: str) -> dict[str, int]:
    """How many entries of each kind a map file has, in the order the kinds first appear."""
    from dsl.parser import parse

    return dict(Counter(item.kind for item in parse(text, path).items))


def _names(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _numbers(text: str, option: str) -> tuple[int, ...]:
    try:
        numbers = tuple(int(part) for part in _names(text))
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a list of numbers", param_hint=option) from None
    if not numbers:
        raise click.BadParameter("give at least one route type", param_hint=option)
    return numbers
