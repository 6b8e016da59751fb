"""The `metro render` and `metro replay` commands: pictures of maps and positions, HTML replays."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import click

from loader import load_game
from metro.bots import make_bot
from metro.cli.options import (
    BOT_OPTION,
    BOTS_OPTION,
    GAME_PATH,
    PLAYERS_OPTION,
    Failure,
    game_options,
    load_with_players,
    say,
    seat_bots,
    seed_value,
    valid_seed,
)
from metro.play.moves import Move, last_moves, replayed
from metro.play.saved_games import (
    PATHS_AS_TYPED_FORMAT,
    SAVE_FORMAT,
    SaveError,
    read_save,
    read_save_text,
    setup_from_save,
)
from metro.render.files import PictureError, picture_kind, write_picture
from runtime import saves
from runtime.errors import InvalidSave, MetroRuntimeError
from runtime.machine import Game, State
from runtime.values import PLAYER

if TYPE_CHECKING:
    from metro.render.pictures import Pictures


OUTPUT = click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=str),
    help="The file to write.",
)
SEED = click.option("--seed", help="Seed of the game [default: 1].", callback=valid_seed)
LOAD = click.option(
    "--load",
    "load_path",
    type=click.Path(exists=True, dir_okay=False, path_type=str),
    help="A saved game (a position's JSON, as State.to_json() writes it) instead of playing one.",
)


@click.command("render")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@OUTPUT
@PLAYERS_OPTION
@SEED
@click.option(
    "--after",
    type=click.IntRange(min=0),
    help="Draw the position after this many decisions of bots [default: the map alone].",
)
@BOT_OPTION
@BOTS_OPTION
@LOAD
@click.option(
    "--as",
    "viewer",
    metavar="PLAYER",
    help="Draw what this player sees (P1, P2, ...) [default: what everyone sees].",
)
@game_options
def render_command(
    path, output, players, seed, after, bot, bots, load_path, viewer, variants, expansions, map_path
) -> None:
    """Draw a game's map (its check findings marked) or a position, as SVG or PNG.

    Without --after, --load, --players or --seed the map alone is drawn, even when it fails
    its checks: each finding is marked on the element it names and listed under the picture
    (exit status 1 when there are findings). The drawing is declared in the rules (`draw`).
    """
    kind = _kind(output)
    from metro.render.pictures import map_scene, open_pictures, position_scene

    pictures = open_pictures(path, expansions, variants, map_path)
    position = any(x is not None for x in (players, seed, after, bot, bots, load_path, viewer))
    if not position:
        _write(map_scene(pictures), pictures, output, kind)
        for finding in pictures.findings:
            say(f"{finding.where}: finding {finding.number}: {finding.message}", err=True)
        found = len(pictures.findings)
        say(f"wrote {output} ({_drawn_map(pictures)}; {_count(found, 'finding')} marked)")
        if found:
            raise click.exceptions.Exit(1)
        return
    game, state = _position(
        path, variants, expansions, map_path, players, seed, bot, bots, after, load_path
    )
    seat = _viewer(viewer, state.n)
    caption = [
        f"{pictures.title}: after {_count(len(state.history), 'decision')}; {_status(state)}"
    ]
    if seat is not None:
        caption[0] += f"; as {PLAYER.label(seat)} sees it"
    named = pictures.action_names.named([m.action for m in last_moves(_log(game, state), seat)])
    _write(position_scene(pictures, game, state, seat, caption, named), pictures, output, kind)
    say(f"wrote {output} ({caption[0]})")


def _drawn_map(pictures: Pictures) -> str:
    """What a map picture shows: its map files by name, of the game with its patches."""
    if not pictures.maps:
        return f"the drawings of {pictures.title}"
    names = " and ".join(f'"{name}"' for name in pictures.maps)
    return f"the map {names} of {pictures.title}"


@click.command("replay")
@click.argument("path", type=GAME_PATH, metavar="GAME", required=False)
@OUTPUT
@PLAYERS_OPTION
@SEED
@BOT_OPTION
@BOTS_OPTION
@LOAD
@click.option(
    "--as",
    "viewers",
    metavar="PLAYER",
    multiple=True,
    help="Put only this player's view in the page (repeatable) [default: everyone's view and "
    "each player's].",
)
@click.option(
    "--public/--no-public",
    default=None,
    help="Include the public view [default: yes, unless --as names players].",
)
@game_options
def replay_command(
    path,
    output,
    players,
    seed,
    bot,
    bots,
    load_path,
    viewers,
    public,
    variants,
    expansions,
    map_path,
) -> None:
    """Write one self-contained HTML page that replays a game: board, moves, views.

    The game is played by bots (--players, --seed, --bot/--bots) or read from a save (--load;
    GAME may then be left out for a game saved by `metro play`). Each view in the page holds
    only what that player saw.
    """
    if path is None:
        path, variants, expansions, map_path = _saved_setup(
            load_path, variants, expansions, map_path
        )
    from metro.render.pictures import open_pictures  # the compiler and the page's template
    from metro.render.replay import replay_page

    pictures = open_pictures(path, expansions, variants, map_path)
    game, state = _position(
        path, variants, expansions, map_path, players, seed, bot, bots, None, load_path
    )
    seats = [_viewer(v, state.n) for v in viewers]
    chosen: list[int | None] = list(dict.fromkeys(seats))
    if public if public is not None else not viewers:
        chosen.insert(0, None)
    if not viewers:
        chosen += list(range(state.n))
    if not chosen:
        raise click.UsageError("no view left: name a player with --as or keep --public")
    history = [(p, a.id) for p, a in state.history]
    page = replay_page(pictures, game, state.n, state.seed, history, chosen)
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(page)
    except OSError as error:
        raise Failure(f"error: cannot write {output}: {error.strerror or error}") from None
    say(
        f"wrote {output} ({_count(len(history), 'decision')}, {_count(len(chosen), 'view')}; {_status(state)})"
    )


def _kind(output: str) -> str:
    try:
        return picture_kind(output)
    except PictureError as error:
        raise click.BadParameter(str(error), param_hint="'-o'") from None


def _write(scene, pictures: Pictures, output: str, kind: str) -> None:
    try:
        write_picture(scene, pictures.label_size, output)
    except PictureError as error:
        raise Failure(f"error: {error}") from None
    except OSError as error:
        raise Failure(f"error: cannot write {output}: {error.strerror or error}") from None


def _position(
    path, variants, expansions, map_path, players, seed, bot, bots, after, load_path
) -> tuple[Game, State]:
    """The game and the position asked for: a save, or bots playing `after` decisions (all)."""
    if load_path is not None:
        if any(x is not None for x in (players, seed, bot, bots, after)):
            raise click.UsageError(
                "--load gives the position: it takes no --players, --seed, --after, --bot or --bots"
            )
        game = load_game(path, expansions=expansions, variants=variants, map=map_path)
        return game, _load_save(game, load_path)
    game, players = load_with_players(path, variants, expansions, map_path, players)
    seed = seed if seed is not None else "1"
    specs = seat_bots(game, bot, bots, players, "seat")
    state = game.new_game(players, seed_value(seed))
    seated = [make_bot(spec, f"{seed}/{p}", game) for p, spec in enumerate(specs)]
    limit = after if after is not None else game.max_decisions
    while state.to_move and len(state.history) < limit:
        player = state.to_move[0]
        state.apply(player, seated[player].choose(state, player))
    return game, state


def _log(game: Game, state: State) -> list[Move]:
    """The moves that led to a position (none if its saved history does not replay)."""
    try:
        return replayed(game, state.n, state.seed, state.history)[1].moves
    except (ValueError, MetroRuntimeError):
        return []


def _load_save(game: Game, load_path: str) -> State:
    try:
        text = read_save_text(load_path)
    except SaveError as error:
        raise Failure(f"error: {error}") from None
    try:
        doc = json.loads(text)
        if isinstance(doc, dict) and doc.get("format") in (SAVE_FORMAT, PATHS_AS_TYPED_FORMAT):
            with saves.at("state"):  # a game saved by `metro play`: its position
                return game.state_from_json(doc.get("state"))
        return game.state_from_json(doc)
    except (InvalidSave, json.JSONDecodeError, RecursionError) as error:
        raise Failure(f"error: {load_path}: {error}") from None


def _saved_setup(load_path: str | None, variants, expansions, map_path) -> tuple:
    """The game, variants, expansions and map a save of `metro play` names."""
    if load_path is None:
        raise click.UsageError("name a GAME, or --load a game saved by `metro play`")
    if variants or expansions or map_path is not None:
        raise click.UsageError(
            "--load without GAME continues the save's own game: name the GAME to change its "
            "variants, expansions or map"
        )
    try:
        doc = read_save(load_path)
        setup = setup_from_save(doc, os.path.dirname(os.path.abspath(load_path)))
    except SaveError as error:
        raise Failure(f"error: {error}") from None
    return setup.game, setup.variants, setup.expansions, setup.map


def _viewer(text: str | None, players: int) -> int | None:
    """A player named on the command line (P2 or 2), checked against the game's seats."""
    if text is None:
        return None
    number = text[1:] if text[:1] in "pP" else text
    if not number.isdigit() or not 1 <= int(number) <= players:
        raise click.BadParameter(
            f"{text!r} is not a player of this {players}-player game (P1 to P{players})",
            param_hint="'--as'",
        )
    return int(number) - 1


def _status(state: State) -> str:
    if state.to_move:
        return "to move: " + ", ".join(PLAYER.label(p) for p in state.to_move)
    if not state.is_over:
        return "nobody can move"
    scores = state.scores()
    winners = ", ".join(PLAYER.label(p) for p in state.winners())
    return f"game over, won by {winners} (scores {', '.join(map(str, scores))})"


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
