"""Saves of `metro play` as untrusted, portable files: how they name their game, and what they refuse.

A save names a shipped game by name and any other game by a path relative to the save, so it
loads from another checkout or machine; a FIFO, an impossible position and a bot budget beyond
the documented bound are refused with an error naming the file and the JSON path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from loader.games import game_path
from metro import load_game
from metro.cli import main
from metro.play.saved_games import (
    PATHS_AS_TYPED_FORMAT,
    SAVE_FORMAT,
    SaveError,
    Setup,
    load_saved_game,
    write_save,
)

SMALL_GAME = """\
game "Small" {
  players 2..2
  per player { points: 0..3 public "Points" }
  flow { loop { choose by seat(1) { score, stop } } }
  action score() label "score a point" when me.points < 3 { me.points += 1 }
  action stop() label "stop" { end game }
}
"""


def ticket_to_ride_save(path, bots=None) -> dict:
    """A fresh two-player Ticket to Ride saved at `path`; its JSON."""
    game = load_game("ticket_to_ride")
    setup = Setup(game_path("ticket_to_ride"), (), (), None, (0,), bots or {1: "random"}, "7")
    write_save(str(path), setup, game.new_game(2, 7))
    return json.loads(path.read_text(encoding="utf-8"))


def test_a_shipped_game_is_saved_by_its_name(tmp_path):
    doc = ticket_to_ride_save(tmp_path / "game.json")
    assert doc["format"] == SAVE_FORMAT and doc["game"] == "ticket_to_ride"
    saved = load_saved_game(str(tmp_path / "game.json"))
    assert saved.game.name == "Ticket to Ride" and saved.setup.bots == {1: "random"}


def test_a_game_outside_the_package_is_named_from_the_save_and_moves_with_it(tmp_path):
    work = tmp_path / "work"
    (work / "small").mkdir(parents=True)
    (work / "small" / "rules.metro").write_text(SMALL_GAME, encoding="utf-8")
    (work / "saves").mkdir()
    game = load_game(str(work / "small"))
    setup = Setup(str(work / "small"), (), (), None, (0,), {1: "random"}, "1")
    write_save(str(work / "saves" / "game.json"), setup, game.new_game(2, 1))
    doc = json.loads((work / "saves" / "game.json").read_text(encoding="utf-8"))
    assert doc["game"] == os.path.join(os.pardir, "small")
    shutil.move(work, tmp_path / "elsewhere")  # another machine: the same files, another place
    saved = load_saved_game(str(tmp_path / "elsewhere" / "saves" / "game.json"))
    assert saved.game.name == "Small"


@pytest.mark.parametrize(
    "typed", ["/home/someone/checkout/games/ticket_to_ride", "../checkout/games/ticket_to_ride"]
)
def test_an_older_save_of_a_shipped_game_in_another_checkout_loads(tmp_path, typed):
    save = tmp_path / "old.json"
    doc = ticket_to_ride_save(save)
    doc["format"] = PATHS_AS_TYPED_FORMAT
    doc["game"] = typed  # as typed (or made absolute) where the game was saved
    save.write_text(json.dumps(doc), encoding="utf-8")
    assert load_saved_game(str(save)).game.name == "Ticket to Ride"


def test_a_save_naming_a_game_that_is_not_there_says_so(tmp_path):
    save = tmp_path / "lost.json"
    doc = ticket_to_ride_save(save)
    doc["game"] = "../no_such_game"
    save.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(SaveError, match=r"at \$\.game: no shipped game named '\.\./no_such_game'"):
        load_saved_game(str(save))


def test_a_save_of_another_game_is_refused_at_its_state(tmp_path):
    save = tmp_path / "other.json"
    doc = ticket_to_ride_save(save)
    doc["game"] = "izakaya"
    save.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(SaveError, match=r"\$\.state\.game: this state is of 'Ticket to Ride'"):
        load_saved_game(str(save))


@pytest.mark.parametrize(
    ("game", "expansions", "field", "declared"),
    [
        ("tokyo_metro", ("drinks",), "chips_left", "0..6"),
        ("izakaya", (), "pyramids", "0..6"),
        ("ticket_to_ride", (), "trains", "0..45"),
    ],
)
def test_a_count_outside_its_declared_range_is_refused_with_its_json_path(
    tmp_path, game, expansions, field, declared
):
    rules = load_game(game, expansions=expansions)
    save = tmp_path / "count.json"
    setup = Setup(game_path(game), (), expansions, None, (0,), {1: "random"}, "7")
    write_save(str(save), setup, rules.new_game(2, 7))
    doc = json.loads(save.read_text(encoding="utf-8"))
    doc["state"]["player_state"][0][field] = -(10**12)  # a valid integer, an impossible count
    save.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(SaveError) as refused:
        load_saved_game(str(save))
    message = str(refused.value)
    assert f"$.state.player_state[0].{field}" in message, message
    assert f"declared range {declared}" in message, message


def test_a_bot_budget_beyond_the_documented_bound_is_refused_in_a_save(tmp_path):
    save = tmp_path / "slow.json"
    ticket_to_ride_save(save, bots={1: "mcts:10000000ms"})
    with pytest.raises(SaveError, match=r'at \$\.bots\["2"\]: .*1 to 60000'):
        load_saved_game(str(save))


@pytest.mark.parametrize("command", ["play", "replay"])
def test_loading_a_fifo_is_refused_instead_of_waiting_forever(tmp_path, command):
    fifo = tmp_path / "game.json"
    os.mkfifo(fifo)
    args = [sys.executable, "-m", "metro", command, "--load", str(fifo)]
    if command == "replay":
        args += ["-o", str(tmp_path / "replay.html")]
    done = subprocess.run(
        args, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 1, done.stderr
    assert f"{fifo}: cannot read file: not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


def test_replay_takes_the_game_from_a_save_of_metro_play(tmp_path):
    save = tmp_path / "game.json"
    ticket_to_ride_save(save)
    page = tmp_path / "replay.html"
    result = CliRunner().invoke(main, ["replay", "--load", str(save), "-o", str(page)])
    assert result.exit_code == 0, result.output
    assert "Ticket to Ride" in page.read_text(encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", "-o", str(page)])
    assert result.exit_code == 2 and "name a GAME, or --load" in result.output


def test_play_continues_a_save_without_naming_the_game(tmp_path):
    save = tmp_path / "game.json"
    ticket_to_ride_save(save)
    result = CliRunner().invoke(main, ["play", "--load", str(save)], input="q\n")
    assert result.exit_code == 0, result.output
    assert (
        "Ticket to Ride: 2 players, seed 7" in result.output
        and "You left the game" in result.output
    )
