"""Speed of every shipped game on one core, with the bots CI and users run them with.

Run from the repository root: `python bench/bench_games.py [--games 40] [--rounds 3] [--only TEXT]
[--json] [--yardstick PATH]`. Rates are per CPU second of this process (steady on a busy
machine), loading the game is not timed, and with the hand-written yardstick (or
$METRO_YARDSTICK) each rate is also given as a ratio to its Ticket to Ride games per second,
measured in the same process: each configuration's games are played in rounds, each after a
batch of the yardstick's games. `--only` measures the configurations whose label contains the text. Tokyo Jutaku
is played by its declared `planner` bot (random play rarely finishes a building); the others by
random bots.
"""

from __future__ import annotations

import json
import os
import time
import timeit
from dataclasses import asdict, dataclass

import click
from yardstick import (
    ROOT,
    MetroRunner,
    Tally,
    YardstickRunner,
    load_yardstick,
    pin_to_one_core,
    yardstick_option,
)

from loader import load_game
from runtime import geometry, shapes

ROUNDS = 3  # batches of each configuration's games, each after a batch of the yardstick's
YARDSTICK_GAMES = 200  # the yardstick's games per configuration, over its rounds

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
    ("Shopping centre, 2 players, random", "shopping_centre", (), (), 2, "random"),
    ("Shopping centre, 5 players, random", "shopping_centre", (), (), 5, "random"),
    ("Shopping centre, 4 players, shopper", "shopping_centre", (), (), 4, "shopper"),
    (
        "Bottle Bonus! (--with bottle_bonus), 4 players, planner",
        "tokyo_jutaku",
        ("bottle_bonus",),
        (),
        4,
        "planner",
    ),
    ("Vending market, 4 players, trader", "jidohanbaiki", (), (), 4, "trader"),
    ("Vending market, 4 players, random", "jidohanbaiki", (), (), 4, "random"),
]


@dataclass
class Row:
    """One configuration's figures (ratio: games/s ÷ the yardstick's, when it was given)."""

    label: str
    games: int
    games_per_second: float
    seconds_per_game: float
    decisions_per_second: float
    mean_decisions: float
    ratio: float | None


def measure(games: int, yardstick, only: str = "", rounds: int = ROUNDS) -> list[Row]:
    """Play every configuration (whose label contains `only`) on one core, in `rounds` batches,
    each after a batch of the yardstick's games if it is given (a machine whose speed changes
    slows both alike)."""
    pin_to_one_core()
    reference = YardstickRunner(yardstick) if yardstick is not None else None
    rows = []
    for label, name, expansions, variants, players, bot in CONFIGS:
        if only.lower() not in label.lower():
            continue
        path = os.path.join(ROOT, "games", name)
        game = load_game(path, expansions=expansions, variants=variants)  # not timed
        runner = MetroRunner(game, players, bot)
        runner.batch(1)  # first-call costs stay out of the figures
        tally, yard = Tally(), Tally()
        for part in range(rounds):
            count = games // rounds + (part < games % rounds)
            if reference is not None:
                yard.add(reference.batch(max(1, YARDSTICK_GAMES // rounds)))
            tally.add(runner.batch(count))
        ratio = tally.games_per_second / yard.games_per_second if reference is not None else None
        rows.append(
            Row(
                label,
                games,
                tally.games_per_second,
                tally.seconds / games,
                tally.decisions / tally.seconds,
                tally.decisions_per_game,
                ratio,
            )
        )
    return rows


def placement_us() -> float:
    """CPU time to enumerate every legal placement of one piece on a card's frame (µs, best of 5).

    The enumeration itself: the caches that keep its result per building are bypassed.
    """
    game = load_game(os.path.join(ROOT, "games", "tokyo_jutaku"))
    module = game.module
    shape = module.K_piece_kind__shape[module.K_piece_kind.index("ell")]
    frame = module.K_area__frame[0]
    profile = shapes.Building.empty()._profile
    enumerate_all = geometry.solid_placements  # keeps no answers itself
    timer = timeit.Timer(
        lambda: enumerate_all(shape.cells, frame, 4, profile), timer=time.process_time
    )
    enumerate_all(shape.cells, frame, 4, profile)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=number)) / number * 1e6


@click.command()
@click.option("--games", type=click.IntRange(min=1), default=40, show_default=True)
@yardstick_option(required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
@click.option("--only", default="", help="Only the configurations whose label contains this text.")
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=ROUNDS,
    show_default=True,
    help="Batches of each configuration's games, each after a batch of the yardstick's.",
)
def main(games: int, yardstick_path: str | None, as_json: bool, only: str, rounds: int) -> None:
    """Measure every game's speed on one core and print a table."""
    yardstick = load_yardstick(yardstick_path) if yardstick_path else None
    rows = measure(games, yardstick, only, min(rounds, games))
    placements = placement_us()
    if as_json:
        click.echo(json.dumps({"rows": [asdict(r) for r in rows], "placement_us": placements}))
        return
    for row in rows:
        ratio = f"  {row.ratio:6.3f} × yardstick" if row.ratio is not None else ""
        click.echo(
            f"{row.label:<46} {row.games_per_second:8.1f} games/s  {row.seconds_per_game * 1000:8.1f} ms/game"
            f"  {row.decisions_per_second:9.0f} decisions/s  {row.mean_decisions:7.1f} decisions/game{ratio}"
        )
    click.echo(f"{'legal placements of one piece on a card':<46} {placements:8.1f} µs")


if __name__ == "__main__":
    main()
