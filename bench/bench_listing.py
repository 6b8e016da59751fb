"""What listing the legal actions costs metro per decision, beside the yardstick's own listing.

Run from the repository root:
`python bench/bench_listing.py --yardstick ../shared/bench/ttr_reference.py [--games 40] [--json]`
(or set $METRO_YARDSTICK). Both engines play the same number of seeded uniform-random 4-player
Ticket to Ride games; every position where a player decides is kept, then listing its legal
actions is timed there (metro: the decision's own listing, as the generated code calls it; the
yardstick: its `legal_actions`), the best of `--repeats` passes, CPU time on one core. Beside
them: each engine's whole decision and metro's runner alone (bench/turns_only), from alternating
batches as in bench_ratios.py. The last line is what a ratio of 0.5 to the yardstick leaves for
metro's decision, after the runner and the listing.
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass

import click
from yardstick import (
    ROOT,
    MetroRunner,
    YardstickRunner,
    alternate,
    cpu,
    load_yardstick,
    pin_to_one_core,
    yardstick_option,
)

from loader import load_game
from metro.bots import make_bot

PLAYERS = 4
TARGET = 0.5  # issue 14's ratio for 4-player Ticket to Ride with random bots


@dataclass
class Figures:
    """Microseconds a decision, each engine's listing and whole decision, and the runner alone."""

    positions: int
    yardstick_positions: int
    listing_us: float
    yardstick_listing_us: float
    decision_us: float
    yardstick_decision_us: float
    runner_us: float

    @property
    def budget_us(self) -> float:
        """What metro's whole decision may take at the target ratio."""
        return self.yardstick_decision_us / TARGET


def metro_positions(game, games: int) -> list[tuple]:
    """(position, its decision's listing, the player) wherever a bot decided in seeded games."""
    kept = []
    for index in range(games):
        seed = f"listing/{index}"
        state = game.new_game(PLAYERS, seed)
        bots = [make_bot("random", f"{seed}/{seat}", game) for seat in range(PLAYERS)]
        while movers := state.to_move:
            player = movers[0]
            position = state.clone()
            kept.append((position, game.sites[position.site].legal, player))
            state.apply_legal(player, bots[player].choose(state, player))
    return kept


def yardstick_positions(yardstick, games: int) -> list:
    """Every position of seeded uniform-random yardstick games (its own state objects)."""
    kept = []
    for seed in range(games):
        state = yardstick.new_game(PLAYERS, seed)
        pick = random.Random(seed).random
        while not yardstick.is_over(state):
            kept.append(copy.deepcopy(state))
            actions = yardstick.legal_actions(state)
            yardstick.apply(state, actions[int(pick() * len(actions))])
    return kept


def best_us(run: Callable[[], object], count: int, repeats: int) -> float:
    """Best CPU time of `run()` over `repeats` passes, in microseconds per one of `count` items."""
    best = min(cpu(run) for _ in range(repeats))
    return best / count * 1e6


def measure(yardstick, games: int, repeats: int, rounds: int, batch_seconds: float) -> Figures:
    """Time both engines' listings at their kept positions, then their whole decisions."""
    game = load_game(os.path.join(ROOT, "games", "ticket_to_ride"))
    kept = metro_positions(game, games)
    theirs = yardstick_positions(yardstick, games)

    def list_metro():
        for state, legal, player in kept:
            legal(state, state.stack[-1], player)

    def list_theirs():
        for state in theirs:
            yardstick.legal_actions(state)

    listing = best_us(list_metro, len(kept), repeats)
    their_listing = best_us(list_theirs, len(theirs), repeats)
    whole = alternate(
        MetroRunner(game, PLAYERS, "random"), YardstickRunner(yardstick), rounds, batch_seconds
    )
    turns = load_game(os.path.join(ROOT, "bench", "turns_only"))
    runner = alternate(
        MetroRunner(turns, PLAYERS, "random"), YardstickRunner(yardstick), rounds, batch_seconds
    )
    return Figures(
        len(kept),
        len(theirs),
        listing,
        their_listing,
        whole.metro.us_per_decision,
        whole.yardstick.us_per_decision,
        runner.metro.us_per_decision,
    )


@click.command()
@yardstick_option()
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=40,
    show_default=True,
    help="Games whose positions are kept.",
)
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Timed passes over the positions.",
)
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Alternating batches for whole decisions.",
)
@click.option(
    "--batch-seconds",
    type=click.FloatRange(min=0.05),
    default=1.0,
    show_default=True,
    help="CPU seconds a batch.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def main(yardstick_path, games, repeats, rounds, batch_seconds, as_json) -> None:
    """Print each engine's listing and whole decision, in microseconds a decision."""
    pin_to_one_core()
    figures = measure(load_yardstick(yardstick_path), games, repeats, rounds, batch_seconds)
    if as_json:
        click.echo(json.dumps({**asdict(figures), "budget_us": figures.budget_us}))
        return
    f = figures
    click.echo(
        f"listing, a decision:  metro {f.listing_us:5.2f} µs ({f.positions} positions), "
        f"yardstick {f.yardstick_listing_us:5.2f} µs ({f.yardstick_positions} positions)"
    )
    click.echo(
        f"whole decision:       metro {f.decision_us:5.2f} µs, yardstick {f.yardstick_decision_us:5.2f} µs"
    )
    click.echo(f"runner alone:         metro {f.runner_us:5.2f} µs a turn (bench/turns_only)")
    left = f.budget_us - f.runner_us - f.listing_us
    click.echo(
        f"at {TARGET} metro's decision may take {f.budget_us:.2f} µs: after the runner and "
        f"the listing {left:.2f} µs are left for the chosen action and everything else"
    )


if __name__ == "__main__":
    main()
