"""The native-compilation trial: a game's generated module compiled by Cython against the same
module run by Python, on the same seeded games (results must be byte-identical).

Run from the repository root: `python bench/bench_native.py [GAME] [--games 60]` (needs Cython
and a C compiler: `pip install cython`). The module is compiled into a temporary directory;
rates are per CPU second of this process, alternating batches. metro keeps a native path only
if it is at least 1.5 times faster (issue 14); see docs/speed.md for the result.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import resource
import subprocess
import sys
import tempfile
import time

import click
from yardstick import ROOT, pin_to_one_core

from compiler import generate_python
from metro.bots import make_bot
from runtime.machine import Game, load_module


def _cpu_with_children() -> float:
    """CPU seconds of this process and the processes it waited for (Cython, the C compiler)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def compile_native(source: str, folder: str) -> Game:
    """The game of `source` as a Cython extension module built in `folder`."""
    path = os.path.join(folder, "metro_native_game.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    subprocess.run(
        [sys.executable, "-m", "Cython.Build.Cythonize", "-3", "-i", "-q", path],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    sys.path.insert(0, folder)
    return Game(importlib.import_module("metro_native_game"))


def play(game: Game, seeds: range, bot: str) -> tuple[float, bytes]:
    """CPU seconds to play the seeded games, and a digest of every final position."""
    digest = hashlib.sha256()
    started = time.process_time()
    for index in seeds:
        seed = f"native/{index}"
        state = game.new_game(4, seed)
        bots = [make_bot(bot, f"{seed}/{seat}", game) for seat in range(4)]
        while state.to_move:
            player = state.to_move[0]
            state.apply_legal(player, bots[player].choose(state, player))
        digest.update(state.to_json().encode())
    return time.process_time() - started, digest.digest()


@click.command()
@click.argument("game", default="ticket_to_ride")
@click.option("--games", type=click.IntRange(min=1), default=60, show_default=True)
@click.option("--bot", default="random", show_default=True)
def main(game: str, games: int, bot: str) -> None:
    """Compare a game's module compiled by Cython with the same module run by Python."""
    pin_to_one_core()
    source = generate_python(os.path.join(ROOT, "games", game))
    python = Game(load_module(source, "<metro:native-trial>", "metro_python_game"))
    with tempfile.TemporaryDirectory() as folder:
        started = _cpu_with_children()
        native = compile_native(source, folder)
        build = _cpu_with_children() - started
        times = {"python": 0.0, "native": 0.0}
        digests = {"python": b"", "native": b""}
        rounds = 4
        for round_ in range(rounds):
            part = range(round_ * games // rounds, (round_ + 1) * games // rounds)
            for name, loaded in (("python", python), ("native", native)):
                seconds, digest = play(loaded, part, bot)
                times[name] += seconds
                digests[name] = hashlib.sha256(digests[name] + digest).digest()
    same = digests["python"] == digests["native"]
    click.echo(f"{game}: {games} games, {bot} bots; the Cython build took {build:.0f} CPU seconds")
    for name in times:
        click.echo(f"  {name:<7} {games / times[name]:8.1f} games/s")
    click.echo(
        f"  native ÷ python: {times['python'] / times['native']:.2f}; "
        f"final positions {'identical' if same else 'DIFFERENT'}"
    )


if __name__ == "__main__":
    main()
