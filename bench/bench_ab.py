"""Two generated modules of one game side by side: how much faster the second one plays.

Run from the repository root, for instance with the module an older commit generates and the
one of today (write each with `metro compile GAME -o FILE`):
`python bench/bench_ab.py OLD.py NEW.py [--players 4] [--bot random] [--rounds 8] [--games 40]`.
Both modules are loaded in this process, pinned to one core; rounds alternate one batch of each
on the same seeded games, timed in CPU seconds, so a busy machine slows both alike. It prints the
second module's rate over the first's, pooled over the rounds (the rounds' lowest and highest
beside it), and whether the two played every game to the same scores in as many decisions.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import click
from yardstick import pin_to_one_core

from compiler.loading import game_from_source
from metro.bots import make_bot
from metro.simulate import play_game
from runtime.machine import Game


@dataclass
class Batch:
    """One batch of games: its CPU seconds and what each game ended with."""

    seconds: float
    outcomes: list[tuple]


def play_batch(game: Game, players: int, bot: str, seeds: list[str]) -> Batch:
    """Play the seeded games with the bots `metro simulate` would make; time them."""
    outcomes = []
    started = time.process_time()
    for seed in seeds:
        bots = [make_bot(bot, f"{seed}/{seat}", game) for seat in range(players)]
        result = play_game(game, players, seed, bots, trusted=True)
        outcomes.append((result.scores, result.decisions))
    return Batch(time.process_time() - started, outcomes)


@click.command()
@click.argument("first", type=click.Path(exists=True, dir_okay=False))
@click.argument("second", type=click.Path(exists=True, dir_okay=False))
@click.option("--players", default=4, show_default=True, type=click.IntRange(1, 16))
@click.option("--bot", default="random", show_default=True, help="The bot every seat plays.")
@click.option("--rounds", default=8, show_default=True, type=click.IntRange(1, 1000))
@click.option("--games", default=40, show_default=True, type=click.IntRange(1, 100_000))
def main(first: str, second: str, players: int, bot: str, rounds: int, games: int) -> None:
    """Compare two generated modules of one game: the second's speed ÷ the first's."""
    pin_to_one_core()
    modules = []
    for path in (first, second):
        with open(path, encoding="utf-8") as source:
            modules.append(game_from_source(source.read(), f"<{path}>"))
    warm = [f"bench-ab/warm/{index}" for index in range(min(games, 5))]
    for game in modules:  # the first games of a run fill caches: not timed
        play_batch(game, players, bot, warm)
    totals, ratios, same = [0.0, 0.0], [], True
    for number in range(rounds):
        seeds = [f"bench-ab/{number}/{index}" for index in range(games)]
        a, b = (play_batch(game, players, bot, seeds) for game in modules)
        totals[0] += a.seconds
        totals[1] += b.seconds
        ratios.append(a.seconds / b.seconds)
        same = same and a.outcomes == b.outcomes
    print(
        f"{second} ÷ {first}: {totals[0] / totals[1]:.3f}× as fast "
        f"(rounds {min(ratios):.3f}–{max(ratios):.3f}; {rounds} × {games} games of "
        f"{players} {bot} players, CPU time of one pinned process); "
        + ("the same scores in as many decisions" if same else "the games went differently")
    )


if __name__ == "__main__":
    sys.exit(main())
