"""Speed of `metro serve` under concurrent matches, as a ratio to the engine's own speed.

Run from the repository root: `python bench/bench_serve.py [--matches 50] [--seconds 30]
[--game ticket_to_ride] [--players 2] [--json]`. It starts a real `metro serve` on a free
loopback port with a fresh SQLite file, creates N matches whose every seat is a person's, and
plays them all at once as random bots over the API: each seat follows its match over a
websocket and, when it is to decide, posts a random legal action. It stops when every match is
over or after `--seconds` (decisions still on their way are not counted), then stops the server.

Reported: decisions a second over all matches, and the latency of a decision (from posting it to
the websocket bringing the position after it) at the median and the 95th percentile. The same
games (same seeds, the same decisions) are then played by the engine directly in this process,
listing the legal actions and applying the chosen one at every decision: its decisions a second,
and the ratios (the server's rate over the engine's; the server's 95th-percentile latency over
the engine's mean time per decision).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field

import click
import httpx
import websockets

import metro

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START_SECONDS = 60  # the server answers within this


@dataclass
class Played:
    """One match as the benchmark played it: its seed and the decisions it got through."""

    seed: int
    decisions: list[tuple[int, str]] = field(default_factory=list)  # (seat, action id)
    over: bool = False


@dataclass
class Report:
    """The figures of one run."""

    game: str
    players: int
    matches: int
    finished: int  # matches played to their end within the time
    seconds: float
    decisions: int
    decisions_per_second: float
    latency_median_ms: float
    latency_p95_ms: float
    engine_decisions_per_second: float
    rate_ratio: float  # the server's decisions a second over the engine's
    latency_ratio: float  # the server's 95th-percentile latency over the engine's time a decision


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(game: str, port: int, database: str, log) -> subprocess.Popen:
    """`metro serve GAME` on the port, answering once it is up."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, "-m", "metro", "serve", game, "--port", str(port)]
    process = subprocess.Popen(
        command + ["--db", f"sqlite:///{database}"], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
            return process
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise SystemExit("metro serve did not start") from None
            time.sleep(0.1)


async def play_seat(
    base: str, match: str, seat: int, token: str, played: Played, latencies: list, stop: float
):
    """One seat of a match: follow it over its websocket, and post a random legal action
    whenever the seat is to decide, until the game is over or the time is up."""
    rng = random.Random(f"{played.seed}/{seat}")
    ws_url = base.replace("http", "ws") + f"/api/matches/{match}/ws?token={token}"
    posted: tuple[int, float] | None = None  # the decision number acted at, and when
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        async with websockets.connect(ws_url, max_size=2**24) as socket_:
            while time.monotonic() < stop:
                try:
                    doc = json.loads(
                        await asyncio.wait_for(socket_.recv(), stop - time.monotonic())
                    )
                except TimeoutError:
                    return
                if posted is not None and doc["decisions"] > posted[0]:
                    latencies.append(time.perf_counter() - posted[1])
                    posted = None
                if doc["over"]:
                    played.over = True
                    return
                if seat not in doc["to_move"] or posted is not None or not doc["legal"]:
                    continue
                action = rng.choice(doc["legal"])
                posted = (doc["decisions"], time.perf_counter())
                body = {"token": token, "action": action, "decisions": doc["decisions"]}
                answer = await client.post(f"/api/matches/{match}/actions", json=body)
                if answer.status_code == 409:  # another seat's secret choice came first
                    posted = None
                elif answer.status_code != 200:
                    raise SystemExit(f"the server refused {action}: {answer.text}")


async def run_matches(base: str, game: str, players: int, count: int, seconds: float):
    """Create the matches, play them all at once; (the played matches, latencies, seconds)."""
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        created = []
        for seed in range(count):
            body = {"game": game, "seed": seed, "seats": [{"human": True}] * players}
            answer = await client.post("/api/matches", json=body)
            answer.raise_for_status()
            created.append((Played(seed), answer.json()))
    latencies: list[float] = []
    start = time.perf_counter()
    stop = time.monotonic() + seconds
    await asyncio.gather(
        *(
            play_seat(base, doc["match"], s["seat"], s["token"], played, latencies, stop)
            for played, doc in created
            for s in doc["seats"]
        )
    )
    elapsed = time.perf_counter() - start
    return [(played, doc["match"]) for played, doc in created], latencies, elapsed


def stored_decisions(database: str, match: str) -> list[tuple[int, str]]:
    """A match's decisions as the server wrote them: (seat, action id), in order."""
    query = "SELECT seat, action FROM decisions WHERE match_id = ? ORDER BY number"
    with sqlite3.connect(database) as db:
        return [(seat, action) for seat, action in db.execute(query, (match,))]


def engine_seconds(game: str, players: int, matches: list[Played]) -> float:
    """The time the engine takes to play the same games in this process: at every decision,
    listing the deciding seat's legal actions and applying the one chosen."""
    rules = metro.load_game(game)
    start = time.perf_counter()
    for played in matches:
        state = rules.new_game(players, played.seed)
        for seat, action in played.decisions:
            legal = state.legal_actions(seat)
            state.apply_legal(seat, next(a for a in legal if a.id == action))
    return time.perf_counter() - start


def measure(game: str, players: int, count: int, seconds: float) -> Report:
    """Run the server, play the matches over it, replay them in the engine: the figures."""
    folder = tempfile.mkdtemp(prefix="metro-bench-serve-")
    database = os.path.join(folder, "matches.sqlite3")
    port = free_port()
    with open(os.path.join(folder, "server.log"), "wb") as log:
        server = start_server(game, port, database, log)
        try:
            base = f"http://127.0.0.1:{port}"
            created, latencies, elapsed = asyncio.run(
                run_matches(base, game, players, count, seconds)
            )
        finally:
            server.terminate()
            server.wait(30)
    matches = []
    for played, match in created:
        played.decisions = stored_decisions(database, match)
        matches.append(played)
    shutil.rmtree(folder, ignore_errors=True)
    decisions = sum(len(m.decisions) for m in matches)
    engine = engine_seconds(game, players, matches)
    rate = decisions / elapsed
    engine_rate = decisions / engine if engine > 0 else float("inf")
    p95 = statistics.quantiles(latencies, n=20)[-1] if len(latencies) > 1 else float("nan")
    return Report(
        game=game,
        players=players,
        matches=count,
        finished=sum(m.over for m in matches),
        seconds=round(elapsed, 2),
        decisions=decisions,
        decisions_per_second=round(rate, 1),
        latency_median_ms=round(statistics.median(latencies) * 1000, 1) if latencies else 0.0,
        latency_p95_ms=round(p95 * 1000, 1),
        engine_decisions_per_second=round(engine_rate, 1),
        rate_ratio=rate / engine_rate,
        latency_ratio=round(p95 * engine_rate, 1),
    )


@click.command()
@click.option("--matches", "count", default=50, show_default=True, help="matches at once")
@click.option("--seconds", default=30.0, show_default=True, help="stop after this long")
@click.option("--game", default="ticket_to_ride", show_default=True, help="a shipped game")
@click.option("--players", default=2, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="print the figures as JSON")
def main(count: int, seconds: float, game: str, players: int, as_json: bool) -> None:
    """Concurrent matches over websockets against a real `metro serve`."""
    if count < 1 or seconds <= 0:
        raise click.BadParameter("--matches and --seconds must be positive")
    report = measure(game, players, count, seconds)
    if as_json:
        click.echo(json.dumps(asdict(report)))
        return
    click.echo(
        f"{report.matches} {game} matches of {players} at once over {report.seconds} s "
        f"({report.finished} finished): {report.decisions} decisions, "
        f"{report.decisions_per_second} a second; latency median {report.latency_median_ms} ms, "
        f"95th percentile {report.latency_p95_ms} ms"
    )
    click.echo(
        f"the engine alone, same games: {report.engine_decisions_per_second} decisions a second; "
        f"the server's rate is {report.rate_ratio:.2%} of it, its 95th-percentile latency "
        f"{report.latency_ratio}x the engine's time a decision"
    )


if __name__ == "__main__":
    main()
