"""What every speed benchmark shares: one core, CPU time, the yardstick engine, timed playouts.

The yardstick is an independent hand-written Ticket to Ride engine kept outside the repository;
benchmarks take its path as an option (or `$METRO_YARDSTICK`), import it from there and play it
in the same process as metro, alternating batches, so that a busy machine slows both alike.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import click

from metro.analysis.simulate import play_game
from metro.bots import make_bot
from runtime.machine import Game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
YARDSTICK_ENV = "METRO_YARDSTICK"
# The yardstick reads its map from $TTR_DATA, by default from a path relative to its own folder
# that does not hold in every checkout; the shared data folder beside it is tried next.
MAP_ENV = "TTR_DATA"
MAP_BESIDE = os.path.join("..", "data", "ticket_to_ride_usa.tsv")


def yardstick_option(required: bool = True):
    """The benchmarks' `--yardstick` option (its value: `yardstick_path`); optional where the
    yardstick only adds ratios to the figures."""
    return click.option(
        "--yardstick",
        "yardstick_path",
        envvar=YARDSTICK_ENV,
        required=required,
        type=click.Path(exists=True, dir_okay=False),
        help=f"The hand-written reference engine (ttr_reference.py"
        f"{'' if required else ', for ratios'}); default ${YARDSTICK_ENV}.",
    )


def pin_to_one_core() -> int:
    """Run on a single CPU where the OS allows it; return how many CPUs the machine has."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    return os.cpu_count() or 1


def load_yardstick(path: str) -> ModuleType:
    """Import the yardstick engine from its file (it is never copied into the repository)."""
    beside = os.path.join(os.path.dirname(os.path.abspath(path)), MAP_BESIDE)
    if not os.environ.get(MAP_ENV) and os.path.isfile(beside):
        os.environ[MAP_ENV] = os.path.normpath(beside)
    spec = importlib.util.spec_from_file_location("metro_yardstick", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import the yardstick from {path!r}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu(action: Callable[[], object]) -> float:
    """CPU seconds of this process spent in `action()`."""
    started = time.process_time()
    action()
    return time.process_time() - started


def median_ms(action: Callable[[], object], repeats: int) -> float:
    """Median CPU time of `action()` in milliseconds."""
    return statistics.median(cpu(action) for _ in range(repeats)) * 1000


@dataclass
class Tally:
    """Games played, their decisions and the CPU seconds they took."""

    games: int = 0
    decisions: int = 0
    seconds: float = 0.0

    def add(self, part: Tally) -> None:
        """Count another batch in."""
        self.games += part.games
        self.decisions += part.decisions
        self.seconds += part.seconds

    @property
    def games_per_second(self) -> float:
        """Games per CPU second."""
        return self.games / self.seconds if self.seconds else 0.0

    @property
    def us_per_decision(self) -> float:
        """Mean CPU microseconds a decision."""
        return self.seconds / self.decisions * 1e6 if self.decisions else 0.0

    @property
    def decisions_per_game(self) -> float:
        """Mean decisions per game."""
        return self.decisions / self.games if self.games else 0.0


class YardstickRunner:
    """Plays uniform-random 4-player games of the yardstick, game i seeded i."""

    def __init__(self, module: ModuleType, players: int = 4):
        self.module = module
        self.players = players
        self.next_seed = 0

    def batch(self, games: int) -> Tally:
        """Play the next `games` games and time them."""
        play = self.module.play_random
        decisions = 0
        started = time.process_time()
        for seed in range(self.next_seed, self.next_seed + games):
            decisions += play(self.players, seed)[1]
        seconds = time.process_time() - started
        self.next_seed += games
        return Tally(games, decisions, seconds)


class MetroRunner:
    """Plays seeded games of a loaded metro game as `metro simulate` does (load not timed)."""

    def __init__(
        self, game: Game, players: int, bot: str, seed: str = "bench", keep_outcomes: bool = False
    ):
        self.game = game
        self.players = players
        self.bot = bot
        self.seed = seed
        self.next_index = 0
        # With `keep_outcomes`, each game's scores and decisions, to compare two modules' games.
        self.outcomes: list[tuple[list[int], int]] | None = [] if keep_outcomes else None

    def batch(self, games: int) -> Tally:
        """Play the next `games` games (game i seeded `SEED/i`, the bots as simulate seeds them)."""
        game, players, bot = self.game, self.players, self.bot
        decisions = 0
        started = time.process_time()
        for index in range(self.next_index, self.next_index + games):
            seed = f"{self.seed}/{index}"
            bots = [make_bot(bot, f"{seed}/{seat}", game) for seat in range(players)]
            result = play_game(game, players, seed, bots, trusted=True)
            decisions += result.decisions
            if self.outcomes is not None:
                self.outcomes.append((result.scores, result.decisions))
        seconds = time.process_time() - started
        self.next_index += games
        return Tally(games, decisions, seconds)


@dataclass
class Comparison:
    """Metro against the yardstick over alternating batches: rates, the ratio and its spread."""

    metro: Tally
    yardstick: Tally
    round_ratios: list[float]

    @property
    def ratio(self) -> float:
        """Metro's games per CPU second ÷ the yardstick's, over all rounds."""
        return self.metro.games_per_second / self.yardstick.games_per_second


def alternate(
    metro: MetroRunner, yardstick: YardstickRunner, rounds: int, batch_seconds: float
) -> Comparison:
    """`rounds` rounds of one yardstick batch then one metro batch, each about `batch_seconds`."""
    # One game of each first: imports, caches and the first-call costs stay out of the figures,
    # and their times size the batches.
    metro_size = _batch_size(metro.batch(1), batch_seconds)
    yard_size = _batch_size(yardstick.batch(1), batch_seconds)
    total_metro, total_yard, ratios = Tally(), Tally(), []
    for _ in range(rounds):
        yard = yardstick.batch(yard_size)
        ours = metro.batch(metro_size)
        total_yard.add(yard)
        total_metro.add(ours)
        ratios.append(ours.games_per_second / yard.games_per_second)
    return Comparison(total_metro, total_yard, ratios)


def _batch_size(first: Tally, batch_seconds: float) -> int:
    return max(1, round(batch_seconds / max(first.seconds, 1e-4)))
