"""A real `metro serve` in a subprocess on a free loopback port, and a small JSON client for it."""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
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
    """`metro serve GAME… --port P --db URL OPTION…` running until `stop` or `kill`; `database`
    is a SQLite file or a database URL."""

    def __init__(self, database: str, games: tuple[str, ...] = (), options: tuple[str, ...] = ()):
        self.database = database
        self.url = database if "://" in database else f"sqlite:///{database}"
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        # the output goes to a file, never a pipe that could fill
        handle, self.output = tempfile.mkstemp(prefix="metro-serve-", suffix=".log")
        with os.fdopen(handle, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "metro", "serve", *games, "--port", str(self.port)]
                + ["--db", self.url, *options],
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
                    output = self.log()
                    self.stop()
                    raise RuntimeError(f"metro serve did not start:\n{output}") from None
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
            with error:
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
        """The standing decisions in the server's database, read by SQL of our own (the undone
        ones left out): (seat, action id)."""
        standing: list[tuple[int, int, str]] = []
        for number, seat, action, takes_back in self.stored_rows(match_id):
            if takes_back is None:
                standing.append((number, seat, action))
            else:
                assert standing and standing[-1][0] == takes_back, "an undo of another row"
                standing.pop()
        return [(seat, action) for _, seat, action in standing]

    def stored_rows(self, match_id: str) -> list[tuple[int, int, str, int | None]]:
        """Every row of the match in the server's database: (number, seat, action, takes_back)."""
        query = (
            "SELECT number, seat, action, takes_back FROM decisions"
            " WHERE match_id = :m ORDER BY number"
        )
        if self.url.startswith("sqlite:"):
            with sqlite3.connect(self.database) as db:
                rows = db.execute(query, {"m": match_id}).fetchall()
        else:
            from sqlalchemy import create_engine, text

            engine = create_engine(self.url)
            with engine.connect() as db:
                rows = db.execute(text(query), {"m": match_id}).fetchall()
            engine.dispose()
        return [tuple(row) for row in rows]

    def kill(self) -> None:
        """End the server as `kill -9` does: nothing gets to finish."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        os.unlink(self.output)

    def stop(self) -> None:
        """End the server."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if os.path.exists(self.output):
            os.unlink(self.output)

    def log(self) -> str:
        """What the server printed."""
        with open(self.output, encoding="utf-8", errors="replace") as log:
            return log.read()


@contextmanager
def postgresql() -> Iterator[str | None]:
    """A PostgreSQL server of its own in a fresh folder, on a Unix socket: its URL (None if this
    machine has no PostgreSQL or psycopg). As root it runs as the `postgres` user."""
    binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin")) + ["/usr/local/bin", "/usr/bin"]
    found = [os.path.join(b, "initdb") for b in binaries]
    initdb = next((path for path in found if os.path.exists(path)), None)
    try:
        import psycopg  # noqa: F401 - SQLAlchemy's driver for the URL below
    except ImportError:
        initdb = None
    as_root = os.geteuid() == 0
    if as_root and (shutil.which("runuser") is None or not _user_exists("postgres")):
        initdb = None
    if initdb is None:
        yield None
        return
    folder = tempfile.mkdtemp(prefix="metro-pg-")  # not under pytest's folder, closed to others
    as_user: list[str] = []
    if as_root:
        as_user = ["runuser", "-u", "postgres", "--"]
        os.chown(folder, pwd.getpwnam("postgres").pw_uid, -1)
    pg_ctl = os.path.join(os.path.dirname(initdb), "pg_ctl")
    data = os.path.join(folder, "data")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": True}
    try:
        subprocess.run([*as_user, initdb, "-D", data, "-A", "trust", "-U", "metro"], **quiet)
        port = free_port()
        settings = f"-k {folder} -p {port} -c listen_addresses='' -c fsync=off"
        log = os.path.join(folder, "log")
        subprocess.run([*as_user, pg_ctl, "-D", data, "-o", settings, "-l", log, "start"], **quiet)
        try:
            yield f"postgresql+psycopg://metro@/postgres?host={folder}&port={port}"
        finally:
            subprocess.run([*as_user, pg_ctl, "-D", data, "-m", "immediate", "stop"], **quiet)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def jsonable(value):
    """A value as it comes back from JSON (tuples as lists, keys as texts)."""
    return json.loads(json.dumps(value))


# A match of two decisions: each seat says a number; the larger wins.
SHORT_RULES = """\
game "Short" {
  players 2..2
  max decisions 10
  per player { points: int public "Points" }
  action say(n: 1..3) label "say {n}" { me.points += n }
  flow {
    choose by seat(1) { say }
    choose by seat(2) { say }
  }
  score(p) = p.points
}
"""


def short_game(folder) -> str:
    """The folder of a game named `short` (SHORT_RULES), written under `folder`."""
    game = os.path.join(str(folder), "short")
    os.makedirs(game, exist_ok=True)
    with open(os.path.join(game, "rules.metro"), "w", encoding="utf-8") as rules:
        rules.write(SHORT_RULES)
    return game
