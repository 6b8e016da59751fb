"""`metro play`: a game in the terminal, against bots or people at the same terminal."""

from __future__ import annotations

import random

import click
from rich.console import Console

from metro.cli.options import (
    BOT_OPTION,
    BOTS_OPTION,
    GAME_PATH,
    PLAYERS_OPTION,
    Failure,
    game_options,
    load_with_players,
    seat_bots,
    seed_value,
    valid_seed,
)
from metro.play.saved_games import SaveError, Setup, load_saved_game
from metro.play.session import Session
from runtime.values import PLAYER


@click.command()
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
    callback=valid_seed,
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
    game, players = load_with_players(path, variants, expansions, map_path, players)
    seats = sorted({h - 1 for h in humans})
    if seats[-1] >= players:
        raise click.BadParameter(
            f"there is no seat {seats[-1] + 1} in a {players}-player game.", param_hint="'--human'"
        )
    seed = seed if seed is not None else str(random.randrange(1_000_000))
    others = [p for p in range(players) if p not in seats]
    specs = seat_bots(game, bot, bots, len(others), "bot seat")
    setup = Setup(
        path,
        tuple(variants),
        tuple(expansions),
        map_path,
        tuple(seats),
        dict(zip(others, specs, strict=True)),
        seed,
    )
    return Session(game, setup, game.new_game(players, seed_value(seed)), console)


def _loaded_session(path, load_path: str, console) -> Session:
    """A session continuing a save: the save is untrusted, every part of it is checked."""
    try:
        saved = load_saved_game(load_path, path)
    except SaveError as error:
        raise Failure(f"error: cannot continue {load_path}: {error}") from None
    session = Session(saved.game, saved.setup, saved.state, console, saved.log)
    session.seen_up_to = {p: len(saved.log.moves) for p in saved.setup.humans}
    return session
