"""`metro serve --export`: a running match saved for `metro play --load`, by the operator alone."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("sqlalchemy")

from loader import load_game
from loader.games import game_path
from metro.play.moves import replayed
from metro.play.saved_games import read_save, resume, setup_from_save
from tests.serve_helpers import ROOT, Server
from tests.test_serve import HUMAN, TTR, play_against_bot


def export(database: str, *args: str) -> subprocess.CompletedProcess:
    """`metro serve ticket_to_ride --db DATABASE --export ARGS…`."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, "-m", "metro", "serve", TTR, "--db", f"sqlite:///{database}"]
    return subprocess.run(
        [*command, "--export", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_a_running_match_saved_by_the_operator_continues_in_metro_play(tmp_path):
    database = str(tmp_path / "matches.sqlite3")
    server = Server(database, (TTR,))
    try:
        created = server.create(TTR, [HUMAN, {"bot": "random"}], seed=7)
        match_id, token = created["match"], created["seats"][0]["token"]
        doc = play_against_bot(server, match_id, token, random.Random(7), until=6)
        while 0 not in doc["to_move"]:  # saved when it is the person's turn
            doc = server.get(f"/api/matches/{match_id}?token={token}")
        save = tmp_path / "match.json"
        done = export(database, match_id, str(save))
        assert done.returncode == 0, done.stderr
        assert f"metro play --load {save}" in done.stdout
        history = server.stored_decisions(match_id)
    finally:
        server.stop()
    saved = read_save(str(save))
    game = load_game(game_path(TTR))
    state, log = resume(game, setup_from_save(saved, str(tmp_path)), saved)
    expected, _ = replayed(game, 2, 7, history)
    assert state.to_json() == expected.to_json()  # the same position, the same future draws
    assert saved["humans"] == [1] and saved["bots"] == {"2": "random"}
    assert len(log.moves) == len(history) == doc["decisions"]
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, NO_COLOR="1", COLUMNS="110", LINES="50")
    env["PYTHONPATH"] = ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")
    child = pexpect.spawn(
        sys.executable, ["-m", "metro", "play", "--load", str(save)], env=env, encoding="utf-8"
    )
    child.expect(r"your choice> ", timeout=90)
    assert "you are P1" in child.before
    child.sendline(doc["legal"][0])  # the choice the server offered is taken at the terminal
    child.expect(r"your choice> ", timeout=90)
    again = tmp_path / "again.json"
    child.sendline(f"save {again}")
    child.expect(r"your choice> ", timeout=90)
    child.sendline("q")
    child.expect(pexpect.EOF, timeout=90)
    continued = read_save(str(again))
    state, _ = resume(game, setup_from_save(continued, str(tmp_path)), continued)
    taken = [(p, a.id) for p, a in state.history]
    assert taken[: len(history) + 1] == [*history, (0, doc["legal"][0])]
    assert state.to_json() == replayed(game, 2, 7, taken)[0].to_json()


def test_a_seat_kept_for_someone_invited_is_a_persons_in_the_save(tmp_path):
    database = str(tmp_path / "matches.sqlite3")
    server = Server(database, (TTR,))
    try:
        seats = [{"invited": True}, {"bot": "random"}, HUMAN]
        match_id = server.call("POST", "/api/matches", {"game": TTR, "seats": seats}).doc["match"]
    finally:
        server.stop()
    save = tmp_path / "match.json"
    done = export(database, match_id, str(save))
    assert done.returncode == 0, done.stderr
    saved = read_save(str(save))
    assert saved["humans"] == [1, 3] and saved["bots"] == {"2": "random"}


def test_exporting_no_such_match_says_so(tmp_path):
    done = export(str(tmp_path / "empty.sqlite3"), "0000000000000000", str(tmp_path / "x.json"))
    assert done.returncode == 1 and "no match '0000000000000000'" in done.stderr + done.stdout
    assert not (tmp_path / "x.json").exists()
