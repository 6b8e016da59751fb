"""Speed of the search bot in self-play, and a digest of every decision it took.

Run from the repository root, e.g.
`python bench/bench_mcts.py ticket_to_ride [--games 4] [--players 2] [--bot mcts:100]
[--seed mcts] [--write FILE | --expect FILE]`.
Game i is seeded `SEED/i`, the bot of seat s `SEED/i/s` (as `bench_bots.py` seeds them), every
seat playing BOT. It prints each game's decisions, CPU seconds (`time.process_time`) and the
sha256 of its history (every (player, action id) taken, then the scores), then the games per
CPU second and one digest over all the games. Two versions of the code that take the same
decisions for the same seeds print the same digests: `--write FILE` stores them (JSON), and
`--expect FILE` compares this run's with the stored ones and exits with status 1 on the first
game that differs. `bench/mcts_digests/GAME.json` holds the decisions of 6 games of each of
Ticket to Ride and Tokyo Metro as commit 5728910 took them (the defaults otherwise), the
reference a pure speed-up must keep: `--games 6 --expect bench/mcts_digests/GAME.json`. The
game is loaded (compiled if need be) before the clock starts; the rate
counts the bots' search and the game's own play alike. The machine's speed varies: compare two
versions by alternating runs of each, never one run against a number written down.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time

import click

from loader import load_game
from loader.games import game_path
from metro.bots import make_bot


def history_digest(state) -> str:
    """sha256 of a finished game's decisions, in order, and its scores."""
    digest = hashlib.sha256()
    for player, action in state.history:
        digest.update(f"{player} {action.id}\n".encode())
    digest.update(f"scores {state.scores()}\n".encode())
    return digest.hexdigest()


def play(game, players: int, bot: str, seed: str) -> tuple[str, int, float]:
    """One seeded self-play game: its digest, its decisions and its CPU seconds."""
    started = time.process_time()
    state = game.new_game(players, seed)
    bots = [make_bot(bot, f"{seed}/{seat}", game) for seat in range(players)]
    while True:
        movers = state.to_move
        if not movers:
            break
        player = movers[0]
        state.apply(player, bots[player].choose(state, player))
    seconds = time.process_time() - started
    return history_digest(state), len(state.history), seconds


@click.command()
@click.argument("game")
@click.option("--games", type=click.IntRange(min=1), default=4, show_default=True)
@click.option("--players", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--bot", default="mcts:100", show_default=True, help="The bot of every seat.")
@click.option("--seed", default="mcts", show_default=True)
@click.option("--write", "write", type=click.Path(dir_okay=False), help="Store the digests here.")
@click.option(
    "--expect",
    type=click.Path(exists=True, dir_okay=False),
    help="Digests stored by --write: fail unless this run's are the same.",
)
def main(
    game: str, games: int, players: int, bot: str, seed: str, write: str | None, expect: str | None
) -> None:
    """Play GAMES seeded self-play games of GAME with BOT in every seat; print games per CPU second."""
    loaded = load_game(game_path(game))
    expected = None
    if expect is not None:
        with open(expect, encoding="utf-8") as stored:
            expected = json.load(stored)
        setup = {"game": game, "players": players, "bot": bot, "seed": seed}
        if {k: expected.get(k) for k in setup} != setup or len(expected["games"]) < games:
            raise click.UsageError(f"{expect} holds the digests of another setup")
    digests, total = [], 0.0
    for index in range(games):
        digest, decisions, seconds = play(loaded, players, bot, f"{seed}/{index}")
        digests.append(digest)
        total += seconds
        same = ""
        if expected is not None:
            same = " same" if expected["games"][index] == digest else " DIFFERENT"
        click.echo(f"game {index}: {decisions} decisions, {seconds:.2f} s, {digest[:16]}{same}")
        if same == " DIFFERENT":
            click.echo(f"game {index} took other decisions than {expect}'s", err=True)
            sys.exit(1)
    overall = hashlib.sha256("".join(digests).encode()).hexdigest()
    click.echo(
        f"{game}: {games} games of {players} x {bot} in {total:.2f} CPU s, "
        f"{games / total:.4f} games per CPU second; digest {overall[:16]}"
    )
    if write is not None:
        doc = {"game": game, "players": players, "bot": bot, "seed": seed, "games": digests}
        with open(write, "w", encoding="utf-8") as out:
            json.dump(doc, out, indent=1)
            out.write("\n")


if __name__ == "__main__":
    main()
