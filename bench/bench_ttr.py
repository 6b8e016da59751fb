"""Ticket to Ride speed on one core: random 4-player games, compile and load, state.clone().

Run from the repository root: `python bench/bench_ttr.py [--games 300] [--json]`. The process
is pinned to one CPU; times are CPU time of this process (steady on a busy machine), and the
games' wall-clock rate is given too.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
import timeit
from dataclasses import asdict, dataclass

import click

from compiler import load_game
from metro.bots import make_bot
from metro.simulate import play_game, simulate

GAME = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "games", "ticket_to_ride"
)


@dataclass
class Figures:
    """What one benchmark run measured (rates per CPU second unless named wall)."""

    games: int
    players: int
    games_per_second: float
    decisions_per_second: float
    wall_games_per_second: float
    mean_decisions: float
    compile_ms: float
    cached_load_ms: float
    clone_us: float
    clone_at_decision: int
    python: str
    machine: str
    cpus: int
    cores_used: int


def pin_to_one_core() -> int:
    """Run on a single CPU where the OS allows it; return how many cores may be used."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def median_ms(action, repeats: int) -> float:
    """Median CPU time of `action()` in milliseconds."""
    times = []
    for _ in range(repeats):
        started = time.process_time()
        action()
        times.append(time.process_time() - started)
    return statistics.median(times) * 1000


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


def measure(games: int, players: int) -> Figures:
    """Run every measurement."""
    cores = pin_to_one_core()
    load_game(GAME, use_cache=False)  # warm-up: imports, grammar, and fills the module cache
    load_game(GAME)
    compile_ms = median_ms(lambda: load_game(GAME, use_cache=False), 5)
    cached_ms = median_ms(lambda: load_game(GAME), 20)
    clone_us, at = clone_time_us(players, "bench")
    started = time.process_time()
    stats = simulate(GAME, players=players, games=games, seed="bench")
    cpu = time.process_time() - started
    return Figures(
        games,
        players,
        games / cpu,
        stats.decisions / cpu,
        stats.games_per_second,
        stats.mean_decisions,
        compile_ms,
        cached_ms,
        clone_us,
        at,
        platform.python_version(),
        platform.platform(),
        os.cpu_count() or 1,
        cores,
    )


@click.command()
@click.option("--games", type=click.IntRange(min=1), default=300, show_default=True)
@click.option("--players", type=click.IntRange(2, 5), default=4, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
def main(games: int, players: int, as_json: bool) -> None:
    """Measure Ticket to Ride speed on one core and print a small table."""
    figures = measure(games, players)
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
        ("  (wall clock)", f"{figures.wall_games_per_second:,.1f} games/s"),
        ("compile, no module cache (median of 5)", f"{figures.compile_ms:,.0f} ms"),
        ("load from the module cache (median of 20)", f"{figures.cached_load_ms:,.1f} ms"),
        (f"state.clone() at decision {figures.clone_at_decision}", f"{figures.clone_us:,.1f} µs"),
    ]
    for label, value in rows:
        click.echo(f"{label:<44} {value}")
    click.echo(
        f"Python {figures.python}, {figures.machine}, {figures.cpus} CPUs, "
        f"{figures.cores_used} used; times are CPU time of this process"
    )


if __name__ == "__main__":
    main()
