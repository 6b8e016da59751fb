"""Peak memory of many seeded 4-player Ticket to Ride games between random bots in one process.

Run from the repository root: `python bench/bench_memory.py [--games 1000] [--seed 1] [--json]`.
Every figure comes from a fresh Python process started for it (never from this one, which has
loaded the compiler to fill the module cache first), so no run inherits another's memory:

- command: `python -m metro simulate ticket_to_ride --players 4 --games N --seed S --jobs 1
  --json`, its peak resident set size (`ru_maxrss` of the child, as `/usr/bin/time -v` reports
  it in "Maximum resident set size"): imports, the game and the games, all included.
- api: `metro.simulate("ticket_to_ride", 4, N, S, jobs=1)` in a process that imports only
  `metro` (no command line, and no game loaded before the simulation loads it), its peak
  resident set size.
- stages, resident: the command's path in a process of its own: it imports what the command
  imports (`metro.cli.runs`), loads the game as the command does (`load_game`, which the
  simulation then finds loaded) and calls `metro.analysis.simulate.simulate` with one job.
  `ru_maxrss` after the imports, after the load (the baseline) and after the games (the peak
  of the whole run). This process also runs this file and its click command, so its figures
  are a little above the command's.
- stages, traced: that process again under `tracemalloc` (started before metro is
  imported), which counts the Python allocations only (no interpreter, shared libraries or
  allocator slack) and slows the games: the traced memory after the imports and after the load, the peak over the
  games and what is still held after them. Tracing costs memory of its own, so the resident
  figures come from the untraced run.

Resident sizes are in MiB of 1,048,576 bytes (Linux reports `ru_maxrss` in KiB). The module
cache is filled before the runs: a cold cache would compile the game, which is not what is
measured (the figure with a compile is printed too, from a child given an empty cache).
"""

from __future__ import annotations

import json
import os
import resource
import sys
from dataclasses import asdict, dataclass

import click

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = "ticket_to_ride"
PLAYERS = 4
KIB = 1024  # ru_maxrss is in KiB on Linux
MIB = 1024 * 1024

# The stages run in a child: `python bench_memory.py --stage rss|traced --games N --seed S`.
STAGE_ENV = "METRO_BENCH_MEMORY_STAGE"


@dataclass
class Figures:
    """What one benchmark run measured, in MiB."""

    games: int
    players: int
    seed: str
    command_maxrss_mib: float  # `metro simulate ... --jobs 1`, warm module cache
    command_cold_cache_maxrss_mib: float  # the same with an empty module cache (a compile)
    api_maxrss_mib: float  # metro.simulate(...) called directly, warm module cache
    imports_maxrss_mib: float  # stages: ru_maxrss after importing metro.cli
    loaded_maxrss_mib: float  # ... after loading the game (the baseline)
    peak_maxrss_mib: float  # ... after the games
    traced_imports_mib: float  # tracemalloc: Python allocations held after the imports
    traced_loaded_mib: float  # ... after loading the game
    traced_peak_mib: float  # ... the peak while the games ran
    traced_after_mib: float  # ... still held after the games
    python: str
    machine: str


def _maxrss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * KIB / MIB


def stage(kind: str, games: int, seed: str) -> dict:
    """Run the stages in this (fresh) process; `kind` "traced" traces Python allocations."""
    traced = kind == "traced"
    if traced:
        import tracemalloc

        tracemalloc.start()
    figures: dict[str, float] = {}

    def mark(name: str) -> None:
        if traced:
            current, peak = tracemalloc.get_traced_memory()
            figures[name] = current / MIB
            figures[name + "_peak"] = peak / MIB
        else:
            figures[name] = _maxrss_mib()

    import metro.cli.runs  # noqa: F401 - what `metro simulate` imports
    from loader import load_game
    from loader.games import game_path
    from metro.analysis.simulate import simulate

    mark("imports")
    game = load_game(game_path(GAME))  # as the command does: the simulation finds it loaded
    assert game.min_players <= PLAYERS <= game.max_players
    del game
    mark("loaded")
    if traced:
        tracemalloc.reset_peak()
    stats = simulate(GAME, PLAYERS, games, seed, jobs=1)
    mark("after")
    figures["decisions"] = stats.decisions
    return figures


def _run_child(args: list[str], env: dict[str, str]) -> tuple[str, float]:
    """Run a child Python to its end: its standard output and its peak resident size in MiB."""
    import subprocess  # here and below, not at the top: the stages' child imports none of it

    process = subprocess.Popen(
        [sys.executable, *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    out = process.stdout.read()
    # wait4, not wait: it hands back this child's own resource usage.
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stdout.close()
    if process.returncode != 0:
        raise click.ClickException(f"{' '.join(args)} failed with {process.returncode}")
    return out, usage.ru_maxrss * KIB / MIB


def measure(games: int, seed: str) -> Figures:
    """Fill the module cache, then run the command and the stages, each in a fresh process."""
    import platform
    import tempfile

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    from loader import load_game
    from loader.games import game_path

    load_game(game_path(GAME))  # the module cache holds the game: no child compiles it
    command = ["-m", "metro", "simulate", GAME, "--players", str(PLAYERS)]
    command += ["--games", str(games), "--seed", seed, "--jobs", "1", "--json"]
    out, command_rss = _run_child(command, env)
    decisions = json.loads(out)["mean_decisions"] * games
    with tempfile.TemporaryDirectory() as empty:
        _, cold_rss = _run_child(command, env | {"METRO_CACHE_DIR": empty})
    api = f"import metro; metro.simulate({GAME!r}, {PLAYERS}, {games}, {seed!r}, jobs=1)"
    _, api_rss = _run_child(["-c", api], env)
    me = [os.path.abspath(__file__), "--games", str(games), "--seed", seed]
    rss = json.loads(_run_child(me, env | {STAGE_ENV: "rss"})[0])
    traced = json.loads(_run_child(me, env | {STAGE_ENV: "traced"})[0])
    if not rss["decisions"] == traced["decisions"] == round(decisions):
        raise click.ClickException("the command and the stages did not play the same games")
    return Figures(
        games=games,
        players=PLAYERS,
        seed=seed,
        command_maxrss_mib=command_rss,
        command_cold_cache_maxrss_mib=cold_rss,
        api_maxrss_mib=api_rss,
        imports_maxrss_mib=rss["imports"],
        loaded_maxrss_mib=rss["loaded"],
        peak_maxrss_mib=rss["after"],
        traced_imports_mib=traced["imports"],
        traced_loaded_mib=traced["loaded"],
        traced_peak_mib=traced["after_peak"],
        traced_after_mib=traced["after"],
        python=platform.python_version(),
        machine=platform.machine(),
    )


@click.command()
@click.option("--games", default=1000, show_default=True, help="Games in the one process.")
@click.option("--seed", default="1", show_default=True, help="Base seed of the simulation.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as one JSON object.")
def main(games: int, seed: str, as_json: bool) -> None:
    """Peak memory of GAMES seeded random 4-player Ticket to Ride games in one process."""
    kind = os.environ.pop(STAGE_ENV, "")
    if kind:
        print(json.dumps(stage(kind, games, seed)))
        return
    figures = measure(games, seed)
    if as_json:
        print(json.dumps(asdict(figures)))
        return
    f = figures
    print(f"Ticket to Ride, {f.games:,} games, {f.players} players, seed {f.seed}, one process")
    print(f"  metro simulate --jobs 1, peak resident (ru_maxrss): {f.command_maxrss_mib:.1f} MiB")
    print(
        f"    the same with an empty module cache (compiles the game): "
        f"{f.command_cold_cache_maxrss_mib:.1f} MiB"
    )
    print(f"  metro.simulate() called directly, peak resident: {f.api_maxrss_mib:.1f} MiB")
    print("  stages, peak resident so far (ru_maxrss):")
    print(f"    after the imports (metro.cli.runs): {f.imports_maxrss_mib:.1f} MiB")
    print(f"    after loading the game (baseline): {f.loaded_maxrss_mib:.1f} MiB")
    print(
        f"    after the games (peak): {f.peak_maxrss_mib:.1f} MiB "
        f"(+{f.peak_maxrss_mib - f.loaded_maxrss_mib:.1f} over the baseline)"
    )
    print("  stages, Python allocations (tracemalloc, traced from before metro is imported):")
    print(f"    held after the imports: {f.traced_imports_mib:.1f} MiB")
    print(f"    held after loading the game (baseline): {f.traced_loaded_mib:.1f} MiB")
    print(
        f"    peak while the games ran: {f.traced_peak_mib:.1f} MiB "
        f"(+{f.traced_peak_mib - f.traced_loaded_mib:.1f} over the baseline)"
    )
    print(f"    held after the games: {f.traced_after_mib:.1f} MiB")
    print(f"  Python {f.python}, {f.machine}")


if __name__ == "__main__":
    main()
