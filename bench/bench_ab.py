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

import click
from yardstick import MetroRunner, pin_to_one_core

from loader.loading import game_from_source

WARM_GAMES = 5  # the first games of a run fill caches: played, not timed


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
    runners = []
    for path in (first, second):
        with open(path, encoding="utf-8") as source:
            game = game_from_source(source.read(), f"<{path}>")
        runners.append(MetroRunner(game, players, bot, "bench-ab", keep_outcomes=True))
    for runner in runners:
        runner.batch(WARM_GAMES)
    totals, ratios = [0.0, 0.0], []
    for _ in range(rounds):
        a, b = (runner.batch(games) for runner in runners)
        totals[0] += a.seconds
        totals[1] += b.seconds
        ratios.append(a.seconds / b.seconds)
    same = runners[0].outcomes == runners[1].outcomes
    print(
        f"{second} ÷ {first}: {totals[0] / totals[1]:.3f}× as fast "
        f"(rounds {min(ratios):.3f}–{max(ratios):.3f}; {rounds} × {games} games of "
        f"{players} {bot} players, CPU time of one pinned process); "
        + ("the same scores in as many decisions" if same else "the games went differently")
    )


if __name__ == "__main__":
    sys.exit(main())
