"""`metro serve`'s database: calls that wait for it hold up no other match; old databases read."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

from metro.serve.store import DecisionRecord, Store, live_decisions
from tests.serve_helpers import Server
from tests.test_serve import HUMAN, TTR

HELD_SECONDS = 3.0  # how long another writer holds the database (the server waits up to 5 s)


def test_a_write_waiting_for_the_database_holds_up_no_other_match(tmp_path):
    database = str(tmp_path / "matches.sqlite3")
    server = Server(database, (TTR,))
    try:
        waiting = server.create(TTR, [HUMAN, HUMAN], seed=1)
        other = server.create(TTR, [HUMAN, HUMAN], seed=2)
        token = waiting["seats"][0]["token"]
        doc = server.get(f"/api/matches/{waiting['match']}?token={token}")
        body = {"token": token, "action": doc["legal"][0], "decisions": 0}
        writer = sqlite3.connect(database, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")  # another writer holds the database; readers may read
        answers = []
        sent = threading.Thread(
            target=lambda: answers.append(
                server.call("POST", f"/api/matches/{waiting['match']}/actions", body)
            )
        )
        started = time.monotonic()
        sent.start()
        time.sleep(0.2)  # the decision now waits for the database
        seen = server.get(f"/api/matches/{other['match']}")
        answered = time.monotonic() - started
        time.sleep(max(0.0, HELD_SECONDS - answered))
        writer.execute("COMMIT")
        writer.close()
        sent.join(30)
        assert seen["decisions"] == 0
        assert answered < HELD_SECONDS - 1.0, answered  # not after the writer let go
        assert answers[0].status == 200, answers[0].doc
        assert time.monotonic() - started >= HELD_SECONDS  # the decision did wait for it
    finally:
        server.stop()


def test_a_database_from_before_undo_and_stand_ins_is_read_with_its_decisions_standing(tmp_path):
    database = tmp_path / "old.sqlite3"
    with sqlite3.connect(database) as db:  # the table as the first slice made it
        db.execute(
            "CREATE TABLE decisions (match_id VARCHAR(32) NOT NULL, number INTEGER NOT NULL,"
            " seat INTEGER NOT NULL, action TEXT NOT NULL, PRIMARY KEY (match_id, number))"
        )
        db.executemany("INSERT INTO decisions VALUES ('m', ?, ?, ?)", [(0, 0, "a"), (1, 1, "b")])
    store = Store(f"sqlite:///{database}")
    rows = store.rows("m")
    assert rows == [DecisionRecord(0, 0, "a"), DecisionRecord(1, 1, "b")]
    store.add_row("m", DecisionRecord(2, 1, "b", takes_back=1), over=False)
    assert live_decisions(store.rows("m")) == [DecisionRecord(0, 0, "a")]
    store.add_row("m", DecisionRecord(3, 1, "c", stand_in=True), over=False)  # an absent P2's
    assert store.rows("m", 3) == [DecisionRecord(3, 1, "c", stand_in=True)]
    store.engine.dispose()


def test_a_sqlite_database_keeps_a_write_ahead_log_so_commits_reach_the_system_at_once(tmp_path):
    database = tmp_path / "matches.sqlite3"
    Store(f"sqlite:///{database}")
    with sqlite3.connect(database) as db:  # the mode is the file's, seen by every connection
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
