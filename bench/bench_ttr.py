"""Ticket to Ride speed on one core: random 4-player games, compile and load, state.clone().

Run from the repository root: `python bench/bench_ttr.py [--games 300] [--json]
[--yardstick PATH]`. The process is pinned to one CPU; every figure is CPU time of this
process (steady on a busy machine), and loading the game is not part of the games' rate.
With the hand-written yardstick (or $METRO_YARDSTICK) the rate is also given as a ratio to
its games per second, measured in the same process (bench/bench_ratios.py alternates them).
"""

from __future__ import annotations

import json
import os
import platform
import time
import timeit
from dataclasses import asdict, dataclass

import click
from yardstick import (
    ROOT,
    MetroRunner,
    YardstickRunner,
    load_yardstick,
    median_ms,
    pin_to_one_core,
    yardstick_option,
)

from loader import load_game
from metro.analysis.simulate import play_game
from metro.bots import make_bot

GAME = os.path.join(ROOT, "games", "ticket_to_ride")


@dataclass
class Figures:
    """What one benchmark run measured (rates per CPU second)."""

    games: int
    players: int
    games_per_second: float
    decisions_per_second: float
    mean_decisions: float
    ratio: float | None
    compile_ms: float
    cached_load_ms: float
    clone_us: float
    clone_at_decision: int
    python: str
    machine: str
    cpus: int


def clone_time_us(players: int, seed: str) -> tuple[float, int]:
    """Best CPU time per state.clone() halfway through a random game, and that decision number."""
    game = load_game(GAME)
    length = play_game(
        game, players, seed, [make_bot("random", f"{seed}/{p}") for p in range(players)]
    ).decisions
    state = game.new_game(players, seed)
    bots = [make_bot("random", f"{seed}/{p}") for p in range(players)]
    while len(state.history) < length // 2:
        player = state.to_move[0]
        state.apply(player, bots[player].choose(state, player))
    timer = timeit.Timer(state.clone, timer=time.process_time)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number * 1e6, len(state.history)


def measure(games: int, players: int, yardstick) -> Figures:
    """Run every measurement."""
    cpus = pin_to_one_core()
    load_game(GAME, use_cache=False)  # warm-up: imports, grammar
    game = load_game(GAME)  # and the module cache
    compile_ms = median_ms(lambda: load_game(GAME, use_cache=False), 5)
    cached_ms = median_ms(lambda: load_game(GAME), 20)
    clone_us, at = clone_time_us(players, "bench")
    runner = MetroRunner(game, players, "random")
    runner.batch(1)
    tally = runner.batch(games)
    ratio = None
    if yardstick is not None:
        reference = YardstickRunner(yardstick, players)
        reference.batch(1)
        ratio = tally.games_per_second / reference.batch(games * 5).games_per_second
    return Figures(
        games,
        players,
        tally.games_per_second,
        tally.decisions / tally.seconds,
        tally.decisions_per_game,
        ratio,
        compile_ms,
        cached_ms,
        clone_us,
        at,
        platform.python_version(),
        platform.platform(),
        cpus,
    )


@click.command()
@click.option("--games", type=click.IntRange(min=1), default=300, show_default=True)
@click.option("--players", type=click.IntRange(2, 5), default=4, show_default=True)
@yardstick_option(required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
def main(games: int, players: int, yardstick_path: str | None, as_json: bool) -> None:
    """Measure Ticket to Ride speed on one core and print a small table."""
    yardstick = load_yardstick(yardstick_path) if yardstick_path else None
    figures = measure(games, players, yardstick)
    if as_json:
        click.echo(json.dumps(asdict(figures)))
        return
    rows = [
        (
            f"{players}-player games, random bots ({games})",
            f"{figures.games_per_second:,.1f} games/s",
        ),
        ("", f"{figures.decisions_per_second:,.0f} decisions/s"),
        ("", f"{figures.mean_decisions:,.1f} decisions/game"),
        ("compile, no module cache (median of 5)", f"{figures.compile_ms:,.0f} ms"),
        ("load from the module cache (median of 20)", f"{figures.cached_load_ms:,.1f} ms"),
        (f"state.clone() at decision {figures.clone_at_decision}", f"{figures.clone_us:,.1f} µs"),
    ]
    if figures.ratio is not None:
        rows.insert(3, ("  ÷ the yardstick's games/s", f"{figures.ratio:.3f}"))
    for label, value in rows:
        click.echo(f"{label:<44} {value}")
    click.echo(
        f"Python {figures.python}, {figures.machine}, 1 of {figures.cpus} CPUs; "
        "times are CPU time of this process"
    )


if __name__ == "__main__":
    main()
