"""Explicit chance (runtime/chance.py): chance nodes, given and recorded outcomes, replay, saves."""

from __future__ import annotations

import os
import random
from fractions import Fraction

import pytest

from loader import load_game
from runtime.chance import CHANCE, replay_record
from runtime.errors import IllegalAction, InvalidSave, RuleError
from tests.conftest import ROOT

TTR = os.path.join(ROOT, "games", "ticket_to_ride")
TOKYO = os.path.join(ROOT, "games", "tokyo_metro")

DICE = """game "Dice race" {
  players 2..3
  state {
    bag: pile of int hidden
    same: pile of int public
  }
  per player {
    total: int public
  }
  action throw() { me.total += roll(6) }
  action rest() { }
  flow {
    bag = [1, 2, 3, 3]
    shuffle bag
    same = [7, 7]
    shuffle same                     # one distinct item: certain, so no chance node
    repeat 2 times {
      for p in players { choose by p { throw, rest } }
    }
    for p in players { p.total += take_top(bag) }
  }
  score(p) = p.total
}
"""


@pytest.fixture(scope="module")
def dice(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dice")
    (folder / "rules.metro").write_text(DICE)
    return load_game(str(folder), use_cache=False)


def positions(state) -> dict:
    """The position without the seed, the generator and the chance log."""
    doc = state.to_doc()
    for key in ("seed", "rng", "chance"):
        doc.pop(key, None)
    return doc


def play_randomly(state, rng: random.Random, steps: int = 10_000):
    """Random actions and random elementary chance outcomes (weighted) until the end."""
    for _ in range(steps):
        if not state.to_move:
            break
        if state.to_move == [CHANCE]:
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == 1
            assert all(isinstance(p, Fraction) and 0 < p <= 1 for _, p in outcomes)
            values = [v for v, _ in outcomes]
            assert len(values) == len(set(values))
            state.apply_chance(rng.choices(values, [float(p) for _, p in outcomes])[0])
        else:
            player = state.to_move[0]
            state.apply(player, rng.choice(state.legal_actions(player)))
    return state


@pytest.mark.parametrize("path", [TTR, TOKYO])
def test_recorded_play_is_seeded_play_and_its_record_replays_it(path):
    game = load_game(path)
    rng = random.Random(path)
    for seed in range(2):
        recorded, seeded = game.new_game(3, seed, chance="recorded"), game.new_game(3, seed)
        while seeded.to_move:
            player = seeded.to_move[0]
            action = rng.choice(seeded.legal_actions(player))
            recorded.apply(player, action)
            seeded.apply(player, action)
            assert recorded.to_move == seeded.to_move
        assert positions(recorded) == positions(seeded)
        assert recorded.rng == seeded.rng  # the same draws, in the same order
        record = recorded.record()
        assert any("chance" in step for step in record)
        again = replay_record(game, 3, record)
        assert positions(again) == positions(recorded)
        assert again.record() == record


def test_an_explicit_game_starts_at_a_chance_node_and_waits(ttr):
    state = ttr.new_game(3, chance="explicit")
    assert state.to_move == [CHANCE]
    assert state.legal_actions(0) == []
    node = state.chance_node
    assert (node.kind, node.sides, node.file.endswith("rules.metro")) == ("shuffle", 110, True)
    assert node.to_doc()["items"].count("locomotive") == 14
    assert state.view(0)["to_move"] == []
    with pytest.raises(IllegalAction, match="chance outcome"):
        state.apply(0, "draw_blind")
    # Elementary picks: the next card from the top, by colour, 12/110 each and 14/110 locomotive.
    odds = {node.desc.encode(value): p for value, p in state.chance_outcomes()}
    assert odds["locomotive"] == Fraction(14, 110)
    assert odds["red"] == Fraction(12, 110)
    assert len(odds) == 9


def test_a_whole_order_sets_the_pile_and_the_game_goes_on(ttr):
    recorded = ttr.new_game(2, 9, chance="recorded")
    first, second = (step["chance"] for step in recorded.record()[:2])
    state = ttr.new_game(2, chance="explicit")
    state.apply_outcome(first)
    assert state.chance_node.kind == "shuffle" and state.chance_node.sides == 30
    state.apply_outcome(second)
    assert state.to_move == [0, 1]
    assert positions(state) == positions(recorded)


def test_picks_build_the_order_from_the_top(dice):
    state = dice.new_game(2, chance="explicit")
    state.apply_chance(2)  # the top card
    assert state.chance_node.picked == (2,)
    assert dict(state.chance_outcomes()) == {1: Fraction(1, 3), 3: Fraction(2, 3)}
    state.apply_chance(1)  # now only the two 3s are left: the order is complete
    assert state.chance_node is None
    assert state.to_move == [0]
    fields = state.to_doc()["state"]
    assert fields["bag"] == [3, 3, 1, 2]  # bottom first; the first pick is on top
    assert fields["same"] == [7, 7]  # a certain shuffle needs no outcome
    assert state.record() == [{"chance": {"kind": "shuffle", "order": [3, 3, 1, 2]}}]


def test_rolls_are_chance_nodes_with_equal_odds(dice):
    state = dice.new_game(2, chance="explicit")
    state.apply_outcome({"kind": "shuffle", "order": [1, 2, 3, 3]})
    state.apply(0, "throw")
    assert state.to_move == [CHANCE]
    assert state.chance_outcomes() == [(v, Fraction(1, 6)) for v in range(1, 7)]
    state.apply_chance(5)
    assert state.scores()[0] == 5
    assert state.to_move == [1]
    state.apply(1, "throw")
    state.apply_outcome({"kind": "roll", "sides": 6, "value": 2})
    assert state.scores()[:2] == [5, 2]
    assert state.record()[-1] == {"chance": {"kind": "roll", "sides": 6, "value": 2}}


@pytest.mark.parametrize(
    ("outcome", "message"),
    [
        ({"kind": "roll", "sides": 6, "value": 1}, "is a shuffle, not a roll"),
        ({"kind": "shuffle", "order": [1, 2, 3]}, "lists 3 items, the pile holds 4"),
        ({"kind": "shuffle", "order": [1, 2, 2, 3]}, "not a reordering"),
        ({"kind": "shuffle", "order": [1, 2, 3, "x"]}, "expected an integer"),
        ({"kind": "shuffle"}, "a shuffle outcome is"),
        ("1 2 3 3", "not an outcome of no known kind"),
    ],
)
def test_an_outcome_that_does_not_fit_is_refused_and_changes_nothing(dice, outcome, message):
    state = dice.new_game(2, chance="explicit")
    before = state.to_json()
    with pytest.raises(IllegalAction, match=message):
        state.apply_outcome(outcome)
    with pytest.raises(IllegalAction, match="not an outcome"):
        state.apply_chance(4)
    assert state.to_json() == before


def test_no_outcome_is_taken_when_none_waits(dice):
    state = dice.new_game(2, chance="explicit")
    state.apply_outcome({"kind": "shuffle", "order": [1, 2, 3, 3]})
    with pytest.raises(IllegalAction, match="no chance event"):
        state.apply_outcome({"kind": "roll", "sides": 6, "value": 1})
    assert state.chance_outcomes() == []


def test_a_clone_at_a_chance_node_is_independent(dice):
    state = dice.new_game(2, chance="explicit")
    state.apply_chance(3)
    twin = state.clone()
    state.apply_chance(3)
    assert twin.chance_node.picked == (3,)
    state.apply_chance(1)
    twin.apply_chance(1)
    twin.apply_chance(2)
    assert state.to_doc()["state"]["bag"] == [2, 1, 3, 3]
    assert twin.to_doc()["state"]["bag"] == [3, 2, 1, 3]


def test_at_a_chance_node_the_state_shows_where_the_step_began(dice):
    state = dice.new_game(2, chance="explicit")
    state.apply_outcome({"kind": "shuffle", "order": [1, 2, 3, 3]})
    before = state.to_doc()["player_state"]
    state.apply(0, "throw")
    assert state.to_doc()["player_state"] == before
    assert state.history == []  # the throw is taken once its roll is given


def test_the_fast_path_stops_at_a_chance_node_like_apply(dice):
    state = dice.new_game(2, chance="explicit")
    state.apply_outcome({"kind": "shuffle", "order": [1, 2, 3, 3]})
    throw = next(a for a in state.legal_actions(0) if a.id == "throw")
    state.apply_legal(0, throw)  # the roll it needs is not given yet: it waits for it
    assert state.to_move == [CHANCE] and state.history == []
    with pytest.raises(IllegalAction, match="a chance outcome"):
        state.apply_legal(1, throw)
    state.apply_chance(4)
    assert state.scores()[0] == 4 and state.to_move == [1]


def test_a_random_explicit_game_ends_and_replays(ttr):
    state = play_randomly(ttr.new_game(2, chance="explicit"), random.Random(4))
    assert state.is_over
    assert positions(replay_record(ttr, 2, state.record())) == positions(state)


def test_explicit_saves_round_trip_everywhere_also_at_chance_nodes(ttr):
    rng = random.Random(11)
    state = ttr.new_game(2, chance="explicit")
    at_nodes = 0
    for _ in range(400):
        if not state.to_move:
            break
        text = state.to_json()
        back = ttr.state_from_json(text)
        assert back.to_json() == text
        assert back.to_move == state.to_move
        if state.to_move == [CHANCE]:
            at_nodes += 1
            outcomes = state.chance_outcomes()
            assert back.chance_outcomes() == outcomes
            state.apply_chance(rng.choice(outcomes)[0])
        else:
            player = state.to_move[0]
            state.apply(player, rng.choice(state.legal_actions(player)))
    assert at_nodes > 100


def test_a_save_whose_chance_part_does_not_fit_is_refused(dice):
    state = dice.new_game(2, chance="explicit")
    state.apply_chance(3)
    doc = state.to_doc()
    doc["chance"]["pending"]["picked"] = [9]
    with pytest.raises(InvalidSave, match="chance"):
        dice.state_from_json(doc)
    doc = state.to_doc()
    doc["chance"]["mode"] = "psychic"
    with pytest.raises(InvalidSave, match="mode"):
        dice.state_from_json(doc)
    doc = state.to_doc()
    doc["chance"]["log"] = [[0, {"kind": "coin"}]]
    with pytest.raises(InvalidSave, match="kind"):
        dice.state_from_json(doc)


def test_an_unknown_chance_mode_is_refused(ttr):
    with pytest.raises(ValueError, match="chance is one of"):
        ttr.new_game(2, chance="loaded")


@pytest.mark.parametrize("bot", ["greedy:2", "mcts:8"])
def test_bots_search_an_explicit_game_with_seeded_samples(ttr, bot):
    from metro import make_bot

    state = ttr.new_game(2, chance="explicit")
    recorded = ttr.new_game(2, 3, chance="recorded")
    for step in recorded.record():
        state.apply_outcome(step["chance"])
    player = state.to_move[0]
    action = make_bot(bot, 1).choose(state, player)
    assert action in state.legal_actions(player)
    assert state.chance_node is None and state.history == []


def test_a_roll_of_no_sides_fails_alike_in_every_mode(tmp_path):
    (tmp_path / "rules.metro").write_text(
        DICE.replace("me.total += roll(6)", "me.total += roll(me.total - me.total)")
    )
    game = load_game(str(tmp_path), use_cache=False)
    for mode in ("seeded", "recorded", "explicit"):
        state = game.new_game(2, 1, chance=mode)
        if mode == "explicit":
            state.apply_outcome({"kind": "shuffle", "order": [1, 2, 3, 3]})
        with pytest.raises(RuleError, match=r"rules.metro:\d+: .*1 <= n < 2\*\*32, got 0"):
            state.apply(0, "throw")
