"""Bots in `metro serve` that fail: the match goes on, and says so."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

from tests.serve_helpers import Server
from tests.test_serve import HUMAN, STEP_WAIT, valid

# Its bot divides by zero at its second decision (round 3).
FRAGILE_RULES = """\
game "Fragile" {
  players 2..2
  max decisions 30
  state { round: int public "Round" }
  per player { points: int public "Points" }
  action gain(n: 1..3) label "gain {n}" {
    me.points += n
    round += 1
  }
  flow {
    loop {
      choose by seat(1) { gain }
      choose by seat(2) { gain }
    }
  }
  score(p) = p.points
  bot "fragile" {
    gain: 10 / (3 - round)
  }
}
"""


def test_a_bot_whose_rules_raise_is_replaced_and_the_seat_says_so(tmp_path):
    game = tmp_path / "fragile"
    game.mkdir()
    (game / "rules.metro").write_text(FRAGILE_RULES, encoding="utf-8")
    server = Server(str(tmp_path / "matches.sqlite3"), (str(game),))
    try:
        created = server.create("fragile", [HUMAN, {"bot": "fragile"}])
        path = f"/api/matches/{created['match']}?token={created['seats'][0]['token']}"
        for _ in range(3):  # the bot answers the first; its second decision fails
            deadline = time.monotonic() + 30
            while 0 not in (doc := valid("match", server.get(path)))["to_move"]:
                assert time.monotonic() < deadline, doc
                time.sleep(STEP_WAIT)
            body = {"token": created["seats"][0]["token"], "action": "gain(1)"}
            answer = server.call(
                "POST",
                f"/api/matches/{created['match']}/actions",
                {**body, "decisions": doc["decisions"]},
            )
            assert answer.status == 200, answer.doc
            assert answer.doc["seats"][1]["failed"] is None or answer.doc["decisions"] > 3
        deadline = time.monotonic() + 30
        while (doc := valid("match", server.get(path)))["decisions"] < 6:
            assert time.monotonic() < deadline, doc  # the match went on: the fallback decides
            time.sleep(STEP_WAIT)
        failed = doc["seats"][1]["failed"]
        assert "'fragile' failed at decision 3" in failed and "random bot plays" in failed
        assert "rules.metro" not in failed and str(tmp_path) not in failed  # no server details
        assert doc["seats"][0]["failed"] is None
        assert "division by zero" in server.log()  # the details are in the server's log
    finally:
        server.stop()
