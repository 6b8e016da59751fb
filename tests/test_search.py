"""How the search bots use a game's estimate, and simultaneous choices in the tree (decoupled UCT)."""

from __future__ import annotations

import gc
import random
import threading

import pytest

from loader import load_game
from loader.games import game_path
from metro.bots import evaluation, mcts
from metro.bots.evaluation import Draws, margins, rewards, settle, values
from metro.bots.greedy import GreedyBot
from metro.bots.mcts import MctsBot, _by_prior, _considered, _secure
from runtime.determinize import sample_position

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

# Saving pays only after a second decision: greedy (one ply) spends, a search saves then cashes.
# Spending is worth 1 at once; saving 0 at once, then cashing 5. There are many ways to spend,
# so progressive widening must still reach the single way to save, which looks worst at once.
PLANNER = """\
game "Planner" {
  players 2..2
  per player {
    saved: bool public
    points: int public
  }
  action spend(k in [1, 2, 3, 4]) { me.points += 1 }
  action save() { me.saved = true }
  action cash() when me.saved { me.points += 5 }
  action rest() { }
  flow {
    for p in players {
      choose by p { spend, save }
      choose by p { cash, rest }
    }
  }
  score(p) = p.points
  rank p by p.points desc
  estimate(p) = p.points
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

# Each pays for their own number and is paid ten times the other's: 1 is best whatever the other
# does, but the other's choice moves the reward far more than one's own.
NOISY = """\
game "Noisy" {
  players 2..2
  per player { points: int public }
  flow {
    each p in players choose n: 1..6
    seat(1).points = 10 * n[seat(2)] - n[seat(1)]
    seat(2).points = 10 * n[seat(1)] - n[seat(2)]
  }
  score(p) = p.points
  rank p by p.points desc
  estimate(p) = p.points
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


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        ([5], [5]),
        ([3, 7], [-4, 4]),
        ([7, 3], [4, -4]),
        ([7, 7], [0, 0]),
        ([7, 7, 1], [0, 0, -6]),
        ([2, 9, 4], [-7, 5, -5]),
    ],
)
def test_a_margin_is_a_value_less_the_best_other_seats(monkeypatch, found, expected):
    """Ties at the top give every holder 0; one player's margin is its value."""
    monkeypatch.setattr(evaluation, "values", lambda state: list(found))
    assert margins(None) == expected


def test_an_expansion_counts_every_options_availability_for_any_equal_legal_list(patient):
    """A node's children kept for its last legal list are counted again for that list or an
    equal one, and looked up anew for another."""
    state = patient.new_game(2, 1)
    bot, node = MctsBot(1, patient), mcts.Node(2)
    actions = state.legal_actions(0)
    bot._cut_offs, bot._margin_total = 0, 0.0
    for listed in (actions, actions, list(actions), actions[:2]):
        bot._expand(node, state, 0, listed)
    assert [node.children[a].available for a in actions] == [
        mcts.PRIOR_VISITS + 4,
        mcts.PRIOR_VISITS + 4,
        mcts.PRIOR_VISITS + 3,
    ]


def test_greedy_and_mcts_take_what_the_estimate_favours(patient):
    for bot in (GreedyBot(1, patient), MctsBot(1, patient, iterations=60)):
        state = patient.new_game(2, 1)
        assert bot.choose(state, 0).id == "plant(3)"


def test_a_search_suspends_the_cycle_collector_and_leaves_it_as_it_was(patient):
    """The collector is off while mcts searches, back on after, and left off if it was off."""
    bot = MctsBot(1, patient, iterations=5)
    during = []
    iterate = bot._iterate
    bot._iterate = lambda root, state: (during.append(gc.isenabled()), iterate(root, state))
    bot.choose(patient.new_game(2, 1), 0)
    assert during == [False] * 5 and gc.isenabled()
    gc.disable()
    try:
        bot.choose(patient.new_game(2, 1), 0)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_searches_leave_the_collector_on_after_the_last(patient):
    """Two searches in two threads: the collector comes back when the last one ends, never
    left off (the first one's end sees the second still running)."""
    from metro.bots.mcts import _without_cycle_collection

    first, second = _without_cycle_collection(), _without_cycle_collection()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first ends while the second still runs
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()
    started, release, states = threading.Event(), threading.Event(), []

    def search() -> None:
        with _without_cycle_collection():
            started.set()
            release.wait(5)

    thread = threading.Thread(target=search)
    thread.start()
    started.wait(5)
    with _without_cycle_collection():
        states.append(gc.isenabled())
    states.append(gc.isenabled())  # the thread's search still runs
    release.set()
    thread.join(5)
    assert states == [False, False] and gc.isenabled()


def test_with_an_estimate_mcts_values_leaves_at_once(patient):
    assert MctsBot(1, patient).playout == 0
    assert MctsBot(1, patient, playout=5).playout == 5


def test_mcts_finds_a_plan_that_pays_only_after_its_next_decision(tmp_path):
    game = _game(tmp_path, "planner", PLANNER)
    state = game.new_game(2, 1)
    assert GreedyBot(1, game).choose(state, 0).name == "spend"
    assert MctsBot(1, game, iterations=200).choose(state, 0).id == "save"


def test_the_search_widens_to_options_of_lower_value_as_visits_grow():
    options = ["a", "b", "c", "d", "e"]
    prior = {"a": 0.1, "b": 0.9, "c": 0.5, "d": 0.5, "e": 0.2}.get
    ranked = _by_prior(options, prior)
    assert ranked[: _considered(0)] == ["b"]
    assert ranked[: _considered(16)] == ["b", "c", "d"]  # ties keep the legal order
    assert ranked[: _considered(10_000)] == ["b", "c", "d", "e", "a"]


def test_the_final_choice_counts_only_what_the_search_met():
    # 8 virtual visits at a prior of 0.9, then 20 real ones at 0.5: the search's mean is 0.5
    tried, bound = _secure(8 * 0.9 + 20 * 0.5, 28, 0.9)
    assert tried and bound == pytest.approx(0.5 - 1 / 20**0.5)
    assert _secure(8 * 0.99, 8, 0.99) == (False, 0.99)  # never tried: ranks below any tried one
    assert max(_secure(8 * 0.99, 8, 0.99), (True, 0.0)) == (True, 0.0)


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


def test_a_search_sample_reopens_the_others_secret_choices(tmp_path):
    """mcts models a choice already made in secret by searching it, not by one random draw."""
    game = _game(tmp_path, "pennies", PENNIES)
    state = game.new_game(2, 3)
    state.apply(0, "side(2)")
    assert state.to_move == [1]
    reopened = sample_position(state, 1, random.Random(1), reopen=True)
    assert sorted(reopened.to_move) == [0, 1]
    assert [a.id for a in reopened.legal_actions(0)] == ["side(1)", "side(2)"]
    assert state.to_move == [1]  # the true position is untouched
    redrawn = sample_position(state, 1, random.Random(1))
    assert redrawn.to_move == [1]


def test_at_a_simultaneous_choice_options_meet_the_same_choices_of_the_others(tmp_path):
    """A small cost of one's own is not lost in the noise of what the other happened to choose."""
    game = _game(tmp_path, "noisy", NOISY)
    chosen = [
        MctsBot(seed, game, iterations=40).choose(game.new_game(2, 3), seat).id
        for seed in range(20)
        for seat in (0, 1)
    ]
    assert chosen == ["n(1)"] * 40


def _tokyo_metro_bidding(last_round: bool):
    """A two-player Tokyo Metro position at a turn-order bid, played at random up to it."""
    game = load_game(game_path("tokyo_metro"))
    state = game.new_game(2, "edge")
    rng = random.Random(3)
    while not state.over:
        last = any(len(pile) == 0 for pile in state.g_draw_pile)
        if state.game.sites[state.site].secret and state.g_round >= 2 and last == last_round:
            return state
        mover = state.to_move[0]
        actions = state.legal_actions(mover)
        state.apply_legal(mover, actions[int(rng.random() * len(actions))])
    raise AssertionError("the game ended before the bid looked for")


def test_settling_options_on_replayed_draws_is_settling_each_on_its_seed():
    """One generator's numbers, replayed for every option, make the others choose as a fresh one would."""
    generator = random.Random(99)
    assert [Draws(99)[k] for k in range(3)] == [generator.random() for _ in range(3)]
    state = _tokyo_metro_bidding(False)
    draws = Draws(12345)
    for mover in (0, 1):
        for action in state.legal_actions(mover):
            seeded, replayed = state.clone(), state.clone()
            for after, seed in ((seeded, 12345), (replayed, draws)):
                after.apply_legal(mover, action)
                settle(after, mover, seed)
            assert replayed.to_json() == seeded.to_json()


def test_one_ply_values_of_a_simultaneous_choice_replay_no_step_played_before(monkeypatch):
    """Both bidders' one-ply values, steps kept, are those played out each time, and cost fewer."""
    state = _tokyo_metro_bidding(False)
    valued = []
    monkeypatch.setattr(mcts, "margins", lambda after: valued.append(1) or margins(after))
    found = {}
    for kept in (None, {}):
        bot = MctsBot(5)
        bot._cut_offs, bot._margin_total = 0, 0.0
        valued.clear()
        found[kept is None] = [
            bot._one_ply(state, mover, state.legal_actions(mover), 4, kept)
            for mover in state.to_move
        ] + [bot._margin_total, len(valued)]
    assert found[False][:-1] == found[True][:-1]
    assert found[False][-1] < found[True][-1]


def test_one_ply_values_made_on_one_copy_of_each_option_are_those_of_a_copy_per_draw():
    """Each option's own choice made once for all the draws values as a fresh copy per draw
    (clone, the option, the others settled) would, and leaves the position as it was."""
    state = _tokyo_metro_bidding(False)
    before = state.to_json()
    for mover in state.to_move:
        actions = state.legal_actions(mover)
        shared, reference = MctsBot(5), MctsBot(5)
        for bot in (shared, reference):
            bot._cut_offs, bot._margin_total = 0, 0.0
        found = shared._one_ply(state, mover, actions, 4)
        totals = [[0.0] * state.n for _ in actions]
        for seed in [int(reference.rng.random() * (1 << 53)) for _ in range(4)]:
            reached = []
            for action in actions:
                after = state.clone()
                after.apply_legal(mover, action)
                settle(after, mover, seed)
                reached.append(mcts._outcome(after))
            rewarded = reference._rewarded(reached)
            totals = [
                [total + value / 4 for total, value in zip(sums, values, strict=True)]
                for sums, values in zip(totals, rewarded, strict=True)
            ]
        assert found == totals
        assert shared._margin_total == reference._margin_total
    assert state.to_json() == before


@pytest.mark.parametrize("last_round", [True, False])
def test_tokyo_metros_estimate_values_the_last_rounds_turn_order(last_round):
    """Before the last round's bids, the Bid money on display goes with the turn order; earlier not."""
    state = _tokyo_metro_bidding(last_round)
    swapped = state.clone()
    swapped.g_turn_order = list(reversed(state.g_turn_order))
    first = state.g_turn_order[0]
    gained = [
        before - after for before, after in zip(state.estimates(), swapped.estimates(), strict=True)
    ]
    if last_round:
        assert gained[first] > 0 and gained[first] == -gained[1 - first]
    else:
        assert gained == [0, 0]
