"""Undo in `metro serve`, at each boundary of Board Game Arena's rule (metro/serve/undo.py).

A real server on a real SQLite file (PostgreSQL too for two servers); the engine, replaying the
standing decisions, says what every seat must see after an undo.
"""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

from loader import load_game
from loader.games import game_path
from metro.play.moves import replayed
from tests.serve_helpers import Server
from tests.test_serve import HUMAN, TTR, expected, seen, valid, wait_for, websockets_sync

PEEK_RULES = """\
game "Peek" {
  players 2..2
  max decisions 40
  state { deck: list of int hidden "Deck" }
  per player {
    seen: int owner "Seen"
    points: int public "Points"
  }
  action look() label "look at the top card" { me.seen = deck[0] }
  action gain() label "gain a point" { me.points += 1 }
  flow {
    deck = [i for i in 1..12]
    shuffle deck
    loop {
      choose by seat(1) { look, gain }
      choose by seat(2) { look, gain }
    }
  }
  score(p) = p.points
}
"""


class Table:
    """A match of people on a server, and the engine's game to check it against."""

    def __init__(self, server: Server, game: str, seed: int, rules: str | None = None):
        self.server = server
        created = server.create(game, [HUMAN, HUMAN], seed=seed)
        self.id = created["match"]
        self.tokens = {s["seat"]: s["token"] for s in created["seats"]}
        self.base = f"/api/matches/{self.id}"
        self.game = load_game(rules or game_path(game))
        self.seed = seed

    def doc(self, seat: int | None) -> dict:
        """The document `seat` (None: a spectator) receives now."""
        query = "" if seat is None else f"?token={self.tokens[seat]}"
        return valid("match", self.server.get(self.base + query))

    def act(self, seat: int, action: str) -> dict:
        """`seat` takes `action` at the match's position now (asserting it is taken)."""
        decisions = self.doc(seat)["decisions"]
        body = {"token": self.tokens[seat], "action": action, "decisions": decisions}
        answer = self.server.call("POST", self.base + "/actions", body)
        assert answer.status == 200, answer.doc
        return answer.doc

    def undo(self, seat: int, **body):
        """`seat` asks to take back its last decision (stating the position it sees now)."""
        doc = self.doc(seat)
        sent = valid("undo", {"token": self.tokens[seat], "decisions": doc["decisions"], **body})
        answer = self.server.call("POST", self.base + "/undo", sent)
        valid("error" if answer.status >= 400 else "match", answer.doc)
        return answer

    def engine(self):
        """The engine's position and log after the standing decisions in the database."""
        return replayed(self.game, 2, self.seed, self.server.stored_decisions(self.id))

    def check_every_seat(self) -> None:
        """Every seat's and a spectator's document is the engine's replay of the standing
        decisions."""
        state, log = self.engine()
        for seat in (0, 1, None):
            assert seen(self.doc(seat)) == expected(state, seat, self.id, log), seat

    def first(self, seat: int, name: str) -> str:
        """The id of `seat`'s first legal action called `name` now."""
        return next(a for a in self.doc(seat)["choices"] if a["id"].split("(")[0] == name)["id"]


@pytest.fixture(scope="module")
def peek(tmp_path_factory) -> str:
    """The folder of a game whose action copies a hidden value into its player's view."""
    folder = tmp_path_factory.mktemp("undo") / "peek"
    folder.mkdir()
    (folder / "rules.metro").write_text(PEEK_RULES, encoding="utf-8")
    return str(folder)


@pytest.fixture(scope="module")
def server(tmp_path_factory, peek):
    """One server offering Ticket to Ride, the vending machine game and the peeking game."""
    database = tmp_path_factory.mktemp("undo-db") / "matches.sqlite3"
    running = Server(str(database), (TTR, "jidohanbaiki", peek))
    yield running
    running.stop()


def test_undo_at_a_simultaneous_choice_and_on_one_s_own_turn(server):
    table = Table(server, TTR, seed=3)
    assert table.undo(0).status == 409  # nothing to take back yet
    keep = table.first(0, "keep")
    table.act(0, keep)
    assert table.doc(0)["undo"] and not table.doc(1)["undo"] and not table.doc(None)["undo"]
    # a secret choice the others are still making: taken back, as if never made
    answer = table.undo(0)
    assert answer.status == 200, answer.doc
    assert answer.doc["decisions"] == 0 and answer.doc["version"] == 2
    assert not answer.doc["undo"] and 0 in answer.doc["to_move"]
    table.check_every_seat()
    assert server.stored_decisions(table.id) == []
    assert [row[3] for row in server.stored_rows(table.id)] == [None, 0]  # written once each
    # the last choice of a simultaneous round reveals everyone's: no undo
    table.act(0, keep)
    table.act(1, table.first(1, "keep"))
    assert not table.doc(1)["undo"]
    refused = table.undo(1)
    assert refused.status == 409 and "secret choices" in refused.doc["error"]
    # claiming a route moves nothing hidden: its claimer may take it back
    state, _ = table.engine()
    (mover,) = state.to_move
    claim = table.first(mover, "claim_route")
    before = server.stored_decisions(table.id)
    table.act(mover, claim)
    assert table.doc(mover)["undo"] and not table.doc(1 - mover)["undo"]
    assert table.undo(1 - mover).status == 409  # not the other seat's decision
    assert table.undo(mover).status == 200
    assert server.stored_decisions(table.id) == before
    table.check_every_seat()
    # ... until another seat has decided since
    table.act(mover, claim)
    state, _ = table.engine()
    assert state.to_move == [1 - mover]
    table.act(1 - mover, table.first(1 - mover, "claim_route"))
    refused = table.undo(mover)
    assert refused.status == 409 and "another seat" in refused.doc["error"]
    # drawing a card moves it out of the hidden deck: no undo
    table.act(mover, table.first(mover, "draw_blind"))
    assert not table.doc(mover)["undo"]
    refused = table.undo(mover)
    assert refused.status == 409 and "hidden" in refused.doc["error"]
    table.check_every_seat()


def test_stale_forged_and_malformed_undos_change_nothing(server):
    table = Table(server, TTR, seed=4)
    table.act(0, table.first(0, "keep"))
    before = {seat: table.doc(seat) for seat in (0, 1, None)}
    version = before[0]["version"]
    base = table.base + "/undo"
    for body, status in (
        ({"token": table.tokens[0], "decisions": 0}, 409),  # stale
        ({"token": table.tokens[0], "decisions": 2}, 409),  # ahead
        ({"token": table.tokens[0], "decisions": 1, "version": version + 1}, 409),
        ({"token": "forged" + table.tokens[0], "decisions": 1}, 403),
        ({"token": table.tokens[0], "decisions": "1"}, 400),
        ({"token": table.tokens[0]}, 400),
        ({"decisions": 1}, 400),
        ([table.tokens[0], 1], 400),
    ):
        answer = server.call("POST", base, body)
        assert answer.status == status and valid("error", answer.doc)["error"], body
    assert {seat: table.doc(seat) for seat in (0, 1, None)} == before
    assert len(server.stored_rows(table.id)) == 1
    # the same request, at the true position and version, is taken
    answer = table.undo(0, version=version)
    assert answer.status == 200 and answer.doc["decisions"] == 0
    # an action stated at a version before the undo is stale, though its number is right again
    body = {"token": table.tokens[0], "action": table.first(0, "keep"), "decisions": 0}
    assert server.call("POST", table.base + "/actions", {**body, "version": 0}).status == 409
    assert server.call("POST", table.base + "/actions", {**body, "version": 2}).status == 200


def test_no_undo_after_a_random_draw(server):
    table = Table(server, "jidohanbaiki", seed=3)
    state, _ = table.engine()
    (mover,) = state.to_move
    table.act(mover, table.first(mover, "move_buy"))  # the machine restocks at random
    refused = table.undo(mover)
    assert refused.status == 409 and "at random" in refused.doc["error"]
    table.check_every_seat()


def test_no_undo_after_a_look_at_something_hidden(server, peek):
    table = Table(server, "peek", seed=1, rules=peek)
    table.act(0, "gain")
    assert table.undo(0).status == 200
    table.act(0, "look")  # copies the hidden top card into P1's own view
    refused = table.undo(0)
    assert refused.status == 409 and "showed this seat" in refused.doc["error"]
    table.check_every_seat()


def test_an_undo_survives_a_restart_and_reaches_a_second_server(shared_database):
    first = Server(shared_database, (TTR,))
    second = Server(shared_database, (TTR,))
    try:
        table = Table(first, TTR, seed=5)
        keep = table.first(0, "keep")
        table.act(0, keep)
        assert second.get(f"{table.base}?token={table.tokens[0]}")["decisions"] == 1
        assert table.undo(0).status == 200
        # the second server takes the undo, and refuses a second undo of the same decision
        on_second = second.get(f"{table.base}?token={table.tokens[0]}")
        assert on_second["decisions"] == 0 and on_second["version"] == 2
        body = {"token": table.tokens[0], "decisions": 1}
        assert second.call("POST", table.base + "/undo", body).status == 409
        table.server = second
        table.act(0, keep)
        table.act(1, table.first(1, "keep"))
        state, _ = table.engine()
        (mover,) = state.to_move
        table.act(mover, table.first(mover, "claim_route"))
        table.server = first
        assert table.undo(mover).status == 200  # taken on the other server
        table.check_every_seat()
        standing = first.stored_decisions(table.id)
    finally:
        first.kill()
    try:
        restarted = Server(shared_database, (TTR,))
    finally:
        second.stop()
    try:
        table.server = restarted
        assert restarted.stored_decisions(table.id) == standing
        table.check_every_seat()
        assert table.doc(0)["version"] == 6
        assert not table.doc(mover)["undo"]  # the claim it took back is gone
    finally:
        restarted.stop()


def test_a_person_back_may_not_undo_what_their_stand_in_decided(tmp_path):
    server = Server(str(tmp_path / "matches.sqlite3"), (TTR,), ("--absent-after", "0.3"))
    try:
        table = Table(server, TTR, seed=3)
        socket = f"{server.base.replace('http', 'ws')}{table.base}/ws?token={table.tokens[0]}"
        with websockets_sync.connect(socket) as opened:
            opened.recv(timeout=30)
        # gone: the stand-in keeps tickets for seat 0, a secret choice seat 1 is still making
        wait_for(server, table.base, lambda doc: doc["decisions"] == 1)
        assert server.stored_decisions(table.id)[0][0] == 0
        with websockets_sync.connect(socket) as opened:
            opened.recv(timeout=30)
            wait_for(server, table.base, lambda doc: not doc["seats"][0]["absent"])
            assert not table.doc(0)["undo"]
            refused = table.undo(0)
            assert refused.status == 409 and "stand-in" in refused.doc["error"]
        table.check_every_seat()
    finally:
        server.stop()
