"""How much faster `metro simulate --jobs 2` plays than `--jobs 1`, the same games.

Run from the repository root on a machine whose two cores are otherwise idle, e.g.
`python bench/bench_jobs.py ticket_to_ride [--players 4] [--games 400] [--rounds 3] [--json]`.
Each round runs `metro simulate GAME --json` once with one worker process and once with two,
alternating which goes first, as separate commands timed by the wall clock (what a user waits
for, start-up and loading included). The game is compiled into the module cache before the
first round. It prints each round's ratio (games per second with two jobs over one), the ratio
pooled over the rounds, and whether both runs reported the same results (they must: results do
not depend on the number of jobs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import click

TIMING_FIELDS = ("seconds", "games_per_second", "jobs", "decisions_per_second")


def _run(game: str, players: int, games: int, jobs: int) -> tuple[float, dict]:
    """One `metro simulate` command: its wall time and its JSON report."""
    command = [sys.executable, "-m", "metro", "simulate", game, "--players", str(players)]
    command += ["--games", str(games), "--jobs", str(jobs), "--json"]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return time.perf_counter() - started, json.loads(done.stdout)


def _results(report: dict) -> dict:
    """A report without what depends on timing or on the number of jobs."""
    return {key: value for key, value in report.items() if key not in TIMING_FIELDS}


@click.command()
@click.argument("game")
@click.option("--players", default=4, show_default=True, type=click.IntRange(1, 16))
@click.option("--games", default=400, show_default=True, type=click.IntRange(2, 1_000_000))
@click.option("--rounds", default=3, show_default=True, type=click.IntRange(1, 100))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def main(game: str, players: int, games: int, rounds: int, as_json: bool) -> None:
    """Wall-clock speed of `metro simulate --jobs 2` over `--jobs 1`, on the same games."""
    _run(game, players, 2, 1)  # compiles into the module cache: not timed
    totals = {1: 0.0, 2: 0.0}
    ratios: list[float] = []
    same = True
    for number in range(rounds):
        order = (1, 2) if number % 2 == 0 else (2, 1)
        seconds, reports = {}, {}
        for jobs in order:
            seconds[jobs], reports[jobs] = _run(game, players, games, jobs)
            totals[jobs] += seconds[jobs]
        same = same and _results(reports[1]) == _results(reports[2])
        ratios.append(seconds[1] / seconds[2])
    pooled = totals[1] / totals[2]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    if as_json:
        doc = {
            "game": game,
            "players": players,
            "games": games,
            "rounds": ratios,
            "ratio": pooled,
            "same_results": same,
            "cpus": os.cpu_count(),
            "load_average": load,
        }
        click.echo(json.dumps(doc))
        return
    spread = f"rounds {min(ratios):.2f}–{max(ratios):.2f}"
    click.echo(
        f"{game} {players}p, {games} games: --jobs 2 is {pooled:.2f}× as fast as --jobs 1 "
        f"({spread}; wall clock, {os.cpu_count()} CPUs, load average {load:.1f}); "
        + ("the same results" if same else "DIFFERENT RESULTS")
    )


if __name__ == "__main__":
    main()
