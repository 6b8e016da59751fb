"""Speed of every shipped game on one core, with the bots CI and users run them with.

Run from the repository root: `python bench/bench_games.py [--games 40] [--only TEXT] [--json]`.
Rates are per CPU second of this process (steady on a busy machine). Tokyo Jutaku is played by its declared
`planner` bot (random play rarely finishes a building); the others by random bots.
"""

from __future__ import annotations

import json
import os
import time
import timeit
from dataclasses import asdict, dataclass

import click

from compiler import load_game
from metro.simulate import simulate
from runtime import shapes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = [
    # label, game directory, expansions, variants, players, bot
    ("Ticket to Ride, 4 players, random", "ticket_to_ride", (), (), 4, "random"),
    ("Tokyo Metro, 4 players, random", "tokyo_metro", (), (), 4, "random"),
    ("Osaka Metro, 4 players, random", "tokyo_metro", ("osaka",), (), 4, "random"),
    (
        "Tokyo map + Osaka cards, 4 players, random",
        "tokyo_metro",
        (),
        ("cards-osaka",),
        4,
        "random",
    ),
    ("Tokyo Jutaku, 4 players, planner", "tokyo_jutaku", (), (), 4, "planner"),
    ("Tokyo Jutaku, 8 players, planner", "tokyo_jutaku", (), (), 8, "planner"),
    ("Jutaku tower game, 4 players, tower bot", "tokyo_jutaku", (), ("tower",), 4, "tower"),
    (
        "Metro Drinks (--with drinks), 4 players, random",
        "tokyo_metro",
        ("drinks",),
        (),
        4,
        "random",
    ),
    (
        "Osaka Metro + Metro Drinks, 4 players, random",
        "tokyo_metro",
        ("osaka", "drinks"),
        (),
        4,
        "random",
    ),
    ("Izakaya, 2 players, random", "izakaya", (), (), 2, "random"),
    ("Izakaya, 5 players, random", "izakaya", (), (), 5, "random"),
]


@dataclass
class Row:
    """One configuration's figures."""

    label: str
    games: int
    games_per_second: float
    seconds_per_game: float
    decisions_per_second: float
    mean_decisions: float


def measure(games: int, only: str = "") -> list[Row]:
    """Play every configuration (whose label contains `only`) on one core."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    rows = []
    for label, name, expansions, variants, players, bot in CONFIGS:
        if only.lower() not in label.lower():
            continue
        path = os.path.join(ROOT, "games", name)
        load_game(path, expansions=expansions, variants=variants)  # compile outside the timing
        started = time.process_time()
        stats = simulate(
            path,
            players=players,
            games=games,
            seed="bench",
            bot=bot,
            expansions=expansions,
            variants=variants,
        )
        cpu = time.process_time() - started
        rows.append(
            Row(label, games, games / cpu, cpu / games, stats.decisions / cpu, stats.mean_decisions)
        )
    return rows


def placement_us() -> float:
    """CPU time to list every legal placement of one piece on a card's frame (µs, best of 5)."""
    game = load_game(os.path.join(ROOT, "games", "tokyo_jutaku"))
    module = game.module
    shape = module.K_piece_kind__shape[module.K_piece_kind.index("ell")]
    frame = module.K_area__frame[0]
    building = shapes.Building.empty()
    timer = timeit.Timer(
        lambda: shapes.legal_placements(shape, frame, building, 4), timer=time.process_time
    )
    shapes.legal_placements(shape, frame, building, 4)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number * 1e6


@click.command()
@click.option("--games", type=click.IntRange(min=1), default=40, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
@click.option("--only", default="", help="Only the configurations whose label contains this text.")
def main(games: int, as_json: bool, only: str) -> None:
    """Measure every game's speed on one core and print a table."""
    rows = measure(games, only)
    placements = placement_us()
    if as_json:
        click.echo(json.dumps({"rows": [asdict(r) for r in rows], "placement_us": placements}))
        return
    for row in rows:
        click.echo(
            f"{row.label:<46} {row.games_per_second:8.1f} games/s  {row.seconds_per_game * 1000:8.1f} ms/game"
            f"  {row.decisions_per_second:9.0f} decisions/s  {row.mean_decisions:7.1f} decisions/game"
        )
    click.echo(f"{'legal placements of one piece on a card':<46} {placements:8.1f} µs")


if __name__ == "__main__":
    main()
