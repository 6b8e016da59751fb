"""How the search bots use a game's estimate, and simultaneous choices in the tree (decoupled UCT)."""

from __future__ import annotations

import pytest

from compiler import load_game
from metro.evaluation import margins, rewards, values
from metro.greedy import GreedyBot
from metro.mcts import MctsBot

# The score comes only at the end; the estimate says at once which choice will pay.
PATIENT = """\
game "Patient" {
  players 2..2
  per player {
    planted: int public
    points: int public
  }
  action plant(k in [1, 2, 3]) { me.planted = k }
  flow {
    for p in players { choose by p { plant } }
    for p in players { p.points = 10 * p.planted }
  }
  score(p) = p.points
  rank p by p.points desc
  estimate(p) = 10 * p.planted
}
"""

# Both choose a number in secret; the higher wins. 5 beats everything, whatever the other does.
SECRET = """\
game "Secret" {
  players 2..2
  per player { number: int public }
  flow {
    each p in players choose n: 1..5
    for p in players { p.number = n[p] }
  }
  score(p) = p.number
  rank p by p.number desc
  estimate(p) = p.number
}
"""


# Matching pennies: seat 2 wins by matching seat 1's secret choice, seat 1 by differing.
PENNIES = """\
game "Pennies" {
  players 2..2
  per player { won: int public }
  flow {
    each p in players choose side: 1..2
    if side[seat(1)] == side[seat(2)] { seat(2).won = 1 } else { seat(1).won = 1 }
  }
  score(p) = p.won
  rank p by p.won desc
  estimate(p) = p.won
}
"""


def _game(tmp_path, name: str, text: str):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "rules.metro").write_text(text, encoding="utf-8")
    return load_game(str(folder), use_cache=False)


@pytest.fixture
def patient(tmp_path):
    return _game(tmp_path, "patient", PATIENT)


def test_positions_before_the_end_are_valued_by_the_estimate(patient):
    state = patient.new_game(2, 1)
    state.apply(0, "plant(3)")
    assert state.scores() == [0, 0]
    assert values(state) == [30, 0] and margins(state) == [30, -30]
    ahead, behind = rewards(state, scale=30.0)
    assert ahead > 0.85 and behind < 0.15 and ahead + behind == pytest.approx(1)


def test_greedy_and_mcts_take_what_the_estimate_favours(patient):
    for bot in (GreedyBot(1, patient), MctsBot(1, patient, iterations=60)):
        state = patient.new_game(2, 1)
        assert bot.choose(state, 0).id == "plant(3)"


def test_with_an_estimate_mcts_values_leaves_at_once(patient):
    assert MctsBot(1, patient).playout == 0
    assert MctsBot(1, patient, playout=5).playout == 5


def test_at_a_simultaneous_choice_mcts_finds_the_dominant_choice(tmp_path):
    game = _game(tmp_path, "secret", SECRET)
    for seat in (0, 1):
        state = game.new_game(2, 3)
        assert sorted(state.to_move) == [0, 1]
        assert MctsBot(seat, game, iterations=150).choose(state, seat).id == "n(5)"


def test_the_second_chooser_learns_nothing_from_the_first(tmp_path):
    """Seat 2 decides after seat 1 has chosen in secret: a bot that peeked would match it."""
    game = _game(tmp_path, "pennies", PENNIES)
    chosen = set()
    for first in ("side(1)", "side(2)"):
        state = game.new_game(2, 3)
        state.apply(0, first)
        assert state.to_move == [1]
        chosen.add(MctsBot(7, game, iterations=100).choose(state, 1).id)
    assert len(chosen) == 1  # the same choice (and search) whatever seat 1 chose
