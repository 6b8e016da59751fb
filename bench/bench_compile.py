"""Front-end speed on a large rule file: parse and check 1 MiB of rules.

Run from the repository root: `python bench/bench_compile.py [--size-kib 1024] [--runs 3] [--json]`.
The file is generated (constants and functions, dense in tokens: about 300,000 of them per MiB).
Times are CPU seconds of this process, the median of the runs; building the Lark parser
(once per process) is start-up and not counted.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time

import click

from compiler import compile_game
from dsl.parser import metro_parser, parse

HEAD = """game "Large" {
  players 1..1
  action go() { end game }
  flow { choose by seat(1) { go } }
"""


def large_game(size: int) -> str:
    """A valid game of at least `size` bytes: constants and one-line functions."""
    parts, length, index = [HEAD], len(HEAD), 0
    while length < size:
        part = f"  const C{index} = {index} + 1\n  function f{index}(x: int) -> int = x * 2 + C{index}\n"
        parts.append(part)
        length += len(part)
        index += 1
    return "".join(parts) + "}\n"


def cpu_seconds(run) -> float:
    """CPU time of one call."""
    started = time.process_time()
    run()
    return time.process_time() - started


@click.command()
@click.option(
    "--size-kib", default=1024, show_default=True, help="Size of the generated rule file."
)
@click.option("--runs", default=3, show_default=True, help="Runs; the median is reported.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def main(size_kib: int, runs: int, as_json: bool) -> None:
    """Parse, and parse+check, a generated rule file of SIZE_KIB KiB."""
    text = large_game(size_kib * 1024)
    metro_parser()
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "rules.metro"), "w", encoding="utf-8") as handle:
            handle.write(text)
        parse_times = [cpu_seconds(lambda: parse(text, "rules.metro")) for _ in range(runs)]
        check_times = [
            cpu_seconds(lambda: compile_game(folder, stop_after="check")) for _ in range(runs)
        ]
    result = {
        "bytes": len(text.encode()),
        "parse_s": round(statistics.median(parse_times), 2),
        "parse_and_check_s": round(statistics.median(check_times), 2),
    }
    if as_json:
        click.echo(json.dumps(result))
        return
    click.echo(f"{result['bytes']:,} bytes of rules")
    click.echo(f"parse:           {result['parse_s']:.2f} s")
    click.echo(f"parse and check: {result['parse_and_check_s']:.2f} s")


if __name__ == "__main__":
    main()
