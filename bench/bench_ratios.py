"""Metro's speed as ratios to a hand-written engine run in the same process (issue 14's table).

Run from the repository root:
`python bench/bench_ratios.py --yardstick ../shared/bench/ttr_reference.py [--rounds 5] [--json]`
(or set $METRO_YARDSTICK). The process is pinned to one core and every figure is CPU time of
this process. For each workload, rounds alternate one batch of the yardstick's uniform-random
4-player Ticket to Ride games with one batch of metro's games (each about `--batch-seconds`),
so load on the machine slows both alike; the ratio is metro's games per CPU second over the
yardstick's, pooled over the rounds (the rounds' spread is printed beside it). Loading the game
is outside the timed batches. The last workload, turns that do next to nothing
(bench/turns_only), has no target: its ratio is what the runner alone leaves for a game's own
work. Then the cached load of Tokyo Metro against its cold compile, and
which of lark, jinja2 and networkx a `metro simulate` of a cached game imports (in a fresh
interpreter).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass

import click
from yardstick import (
    ROOT,
    MetroRunner,
    YardstickRunner,
    alternate,
    load_yardstick,
    median_ms,
    pin_to_one_core,
    yardstick_option,
)

from loader import load_game


@dataclass(frozen=True)
class Workload:
    """One row of the table: a game configuration, its bots and the target ratio."""

    label: str
    game: str
    players: int
    bot: str
    target: float | None  # None: measured for what it tells, with no target
    expansions: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    folder: str = "games"  # where the game's directory is, under the repository root


WORKLOADS = [
    Workload("Ticket to Ride 4p, random", "ticket_to_ride", 4, "random", 0.5),
    Workload("Tokyo Metro 4p, random", "tokyo_metro", 4, "random", 0.25),
    Workload("Tokyo Jutaku 4p, planner", "tokyo_jutaku", 4, "planner", 0.07),
    # What the runner alone costs: 300 turns that add to a score, taken as a game's turns are.
    Workload("Turns alone 4p, random", "turns_only", 4, "random", None, folder="bench"),
]
LOAD_GAME = "tokyo_metro"
LOAD_TARGET = 1 / 30
HEAVY = ("lark", "jinja2", "networkx")
# Run in a fresh interpreter: the CLI's `simulate` of a game already in the module cache, then
# report which of the toolchain's heavy libraries it imported.
IMPORT_PROBE = """
import json, sys
from metro.cli import main
main(args=["simulate", "ticket_to_ride", "--players", "2", "--games", "1", "--json"],
     standalone_mode=False)
print("HEAVY=" + json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


@dataclass
class Row:
    """A workload's measured rates and ratio."""

    label: str
    target: float | None
    ratio: float
    ratio_low: float
    ratio_high: float
    games_per_second: float
    yardstick_games_per_second: float
    games: int
    decisions_per_game: float
    yardstick_decisions_per_game: float


def measure_workload(work: Workload, yardstick, rounds: int, batch_seconds: float) -> Row:
    """Alternate yardstick and metro batches of one workload."""
    path = os.path.join(ROOT, work.folder, work.game)
    game = load_game(path, expansions=work.expansions, variants=work.variants)
    runner = MetroRunner(game, work.players, work.bot)
    result = alternate(runner, YardstickRunner(yardstick), rounds, batch_seconds)
    return Row(
        work.label,
        work.target,
        result.ratio,
        min(result.round_ratios),
        max(result.round_ratios),
        result.metro.games_per_second,
        result.yardstick.games_per_second,
        result.metro.games,
        result.metro.decisions_per_game,
        result.yardstick.decisions_per_game,
    )


@dataclass
class LoadFigures:
    """Cold compile and cached load of one game (median CPU milliseconds) and their ratio."""

    compile_ms: float
    cached_load_ms: float

    @property
    def ratio(self) -> float:
        """Cached load ÷ cold compile."""
        return self.cached_load_ms / self.compile_ms


def measure_load(compiles: int, loads: int) -> LoadFigures:
    """Median CPU time of a compile without the module cache and of a load from it."""
    path = os.path.join(ROOT, "games", LOAD_GAME)
    load_game(path)  # imports, the grammar, and the cache entry
    compile_ms = median_ms(lambda: load_game(path, use_cache=False), compiles)
    cached_ms = median_ms(lambda: load_game(path), loads)
    return LoadFigures(compile_ms, cached_ms)


def heavy_imports() -> list[str]:
    """Which of HEAVY a fresh `metro simulate` of a cached game imports."""
    load_game(os.path.join(ROOT, "games", "ticket_to_ride"))  # make sure the entry is cached
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_PROBE.format(heavy=HEAVY)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    marker = [line for line in done.stdout.splitlines() if line.startswith("HEAVY=")]
    return json.loads(marker[-1].removeprefix("HEAVY="))


@click.command()
@yardstick_option()
@click.option("--rounds", type=click.IntRange(min=1), default=5, show_default=True)
@click.option(
    "--batch-seconds",
    type=click.FloatRange(min=0.05),
    default=1.0,
    show_default=True,
    help="CPU seconds of one batch of either engine.",
)
@click.option(
    "--only",
    type=click.Choice([w.game for w in WORKLOADS] + ["load", "imports"]),
    multiple=True,
    help="Measure only these (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
def main(
    yardstick_path: str, rounds: int, batch_seconds: float, only: tuple[str, ...], as_json: bool
) -> None:
    """Print metro's speed as ratios to the yardstick, each against its target."""
    cpus = pin_to_one_core()
    yardstick = load_yardstick(yardstick_path)
    rows = [
        measure_workload(work, yardstick, rounds, batch_seconds)
        for work in WORKLOADS
        if not only or work.game in only
    ]
    load = measure_load(3, 20) if not only or "load" in only else None
    heavy = heavy_imports() if not only or "imports" in only else None
    if as_json:
        doc = {
            "rows": [row.__dict__ for row in rows],
            "load": None if load is None else {**load.__dict__, "ratio": load.ratio},
            "heavy_imports": heavy,
            "python": platform.python_version(),
            "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        }
        click.echo(json.dumps(doc))
        return
    for row in rows:
        if row.target is None:
            goal = "no target"
        else:
            goal = f"target ≥ {row.target}: {'met' if row.ratio >= row.target else 'NOT met'}"
        click.echo(
            f"{row.label:<28} {row.ratio:6.3f} × yardstick  (rounds {row.ratio_low:.3f}–"
            f"{row.ratio_high:.3f}; {goal})  {row.games_per_second:7.1f} "
            f"vs {row.yardstick_games_per_second:7.1f} games/s, {row.decisions_per_game:.0f} vs "
            f"{row.yardstick_decisions_per_game:.0f} decisions/game"
        )
    if load is not None:
        met = "met" if load.ratio <= LOAD_TARGET else "NOT met"
        click.echo(
            f"{'Tokyo Metro cached load':<28} 1/{1 / load.ratio:5.1f} of its compile  "
            f"(target ≤ 1/30: {met})  {load.cached_load_ms:.1f} ms vs {load.compile_ms:.0f} ms"
        )
    if heavy is not None:
        click.echo(
            f"{'metro simulate imports':<28} {', '.join(heavy) or 'none of'} "
            f"{'' if heavy else ', '.join(HEAVY)}"
        )
    load_avg = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    click.echo(
        f"Python {platform.python_version()}, 1 of {cpus} CPUs; CPU time of this process{load_avg}"
    )


if __name__ == "__main__":
    main()
