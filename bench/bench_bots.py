"""Strength of one bot against another: two-player games with seats alternating, wins with a 95% interval.

Run from the repository root, e.g.
`python bench/bench_bots.py ticket_to_ride mcts random --games 10 [--seed 1] [--jobs 2]`
(`--with drinks` adds an expansion).
Game i is seeded `SEED/i`; bot A sits in seat 1 in even games and seat 2 in odd ones. A win
shared with the other bot counts one half. Prints one line per game, then A's wins out of N
with the Wilson interval and the mean time per game.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import click

from loader import load_game
from loader.games import game_path
from metro.analysis.simulate import play_game, wilson_interval
from metro.bots import make_bot
from runtime.machine import Game

_GAMES: dict[tuple[str, tuple[str, ...]], Game] = {}


@dataclass(frozen=True)
class Match:
    """One game's outcome from bot A's side."""

    index: int
    seat_of_a: int
    scores: list[int]
    points: float  # 1 win, 0.5 shared, 0 loss
    decisions: int
    seconds: float


def _game(name: str, expansions: tuple[str, ...] = ()) -> Game:
    if (name, expansions) not in _GAMES:
        _GAMES[name, expansions] = load_game(game_path(name), expansions=expansions)
    return _GAMES[name, expansions]


def play_match(
    name: str, a: str, b: str, seed: str, index: int, expansions: tuple[str, ...] = ()
) -> Match:
    """Game `index`: A in seat 1 when the index is even, else in seat 2."""
    game = _game(name, expansions)
    seat_of_a = index % 2
    specs = [a, b] if seat_of_a == 0 else [b, a]
    game_seed = f"{seed}/{index}"
    bots = [make_bot(spec, f"{game_seed}/{seat}", game) for seat, spec in enumerate(specs)]
    started = time.perf_counter()
    result = play_game(game, 2, game_seed, bots)
    seconds = time.perf_counter() - started
    if result.winners == [seat_of_a]:
        points = 1.0
    elif seat_of_a in result.winners:
        points = 0.5
    else:
        points = 0.0
    return Match(index, seat_of_a, result.scores, points, result.decisions, seconds)


@click.command()
@click.argument("game")
@click.argument("a")
@click.argument("b")
@click.option("--games", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--seed", default="1", show_default=True)
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--with", "expansions", multiple=True, help="An expansion (repeatable).")
def main(game: str, a: str, b: str, games: int, seed: str, jobs: int, expansions) -> None:
    """Play GAMES two-player games of GAME, bot A against bot B, and print A's wins."""
    expansions = tuple(expansions)
    _game(game, expansions)  # compile once; forked workers inherit it
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(play_match, game, a, b, seed, i, expansions) for i in range(games)]
        matches = []
        for future in futures:
            match = future.result()
            matches.append(match)
            click.echo(
                f"game {match.index}: {a} in seat {match.seat_of_a + 1}, scores {match.scores}, "
                f"{a} {'wins' if match.points == 1 else 'ties' if match.points else 'loses'} "
                f"({match.decisions} decisions, {match.seconds:.1f} s)"
            )
    wins = sum(m.points for m in matches)
    low, high = wilson_interval(wins, games)
    per_game = sum(m.seconds for m in matches) / games
    click.echo(
        f"{game}: {a} beats {b} in {wins:g}/{games} games "
        f"(95% Wilson interval {low:.2f}-{high:.2f}); {per_game:.1f} s per game, "
        f"{time.perf_counter() - started:.0f} s wall"
    )


if __name__ == "__main__":
    main()
