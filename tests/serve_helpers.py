"""A real `metro serve` in a subprocess on a free loopback port, and a small JSON client for it."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START_SECONDS = 60  # the server answers within this (it compiles nothing before its first match)


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Answer:
    """An HTTP answer: its status and its JSON body."""

    status: int
    doc: object


class Server:
    """`metro serve GAME… --port P --db sqlite:///FILE OPTION…` running until `stop` or `kill`."""

    def __init__(self, database: str, games: tuple[str, ...] = (), options: tuple[str, ...] = ()):
        self.database = database
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.output = database + f".{self.port}.log"  # a file, never a pipe that could fill
        with open(self.output, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "metro", "serve", *games, "--port", str(self.port)]
                + ["--db", f"sqlite:///{database}", *options],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_SECONDS
        while True:
            try:
                with urllib.request.urlopen(self.base + "/", timeout=5):
                    return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"metro serve did not start:\n{self.log()}") from None
                time.sleep(0.1)

    def call(self, method: str, path: str, body=None, raw: bytes | None = None) -> Answer:
        """Send a request; its answer, also for 4xx statuses."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return Answer(answer.status, json.loads(answer.read()))
        except urllib.error.HTTPError as error:
            return Answer(error.code, json.loads(error.read()))

    def get(self, path: str) -> dict:
        """A document the server must give (200)."""
        answer = self.call("GET", path)
        assert answer.status == 200, answer.doc
        return answer.doc

    def create(self, game: str, seats: list[dict], seed=1) -> dict:
        """A new match (asserting it was made)."""
        answer = self.call("POST", "/api/matches", {"game": game, "seed": seed, "seats": seats})
        assert answer.status == 200, answer.doc
        return answer.doc

    def stored_decisions(self, match_id: str) -> list[tuple[int, str]]:
        """The decisions in the server's database, read with sqlite3 itself: (seat, action id)."""
        with sqlite3.connect(self.database) as db:
            rows = db.execute(
                "SELECT seat, action FROM decisions WHERE match_id = ? ORDER BY number",
                (match_id,),
            ).fetchall()
        return [(seat, action) for seat, action in rows]

    def kill(self) -> None:
        """End the server as `kill -9` does: nothing gets to finish."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        """End the server."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def log(self) -> str:
        """What the server printed."""
        with open(self.output, encoding="utf-8", errors="replace") as log:
            return log.read()


def jsonable(value):
    """A value as it comes back from JSON (tuples as lists, keys as texts)."""
    return json.loads(json.dumps(value))
