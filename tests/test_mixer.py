"""The mixer (`mix()`, a chance device) and scenario `chance` steps: seeded, recorded, explicit."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from dsl.diagnostics import CompileError
from loader import load_game
from metro.testing.scenarios import run_scenarios
from runtime.chance import CHANCE, ChanceNeeded, replay_record
from runtime.errors import IllegalAction, InvalidSave
from runtime.lib import mix_draw

MIXER = """game "Mixer" {
  players 2..3
  state {
    box: pile of int hidden
    inside: list of int hidden
    rolled: int public
  }
  per player {
    got: list of int public
  }
  const CHANCES = [100, 70, 50]
  action drop() {
    let put = [take_top(box), take_top(box)]
    for x in mix(inside, put, CHANCES) { me.got = me.got + [x] }
  }
  action throw() { rolled = roll(6) }
  action reshuffle() { shuffle box }
  action rest() { }
  flow {
    box = [1, 2, 3, 4, 5, 6, 7, 8, 8, 8]
    shuffle box
    repeat 2 times {
      for p in players { choose by p { drop, throw, reshuffle, rest } }
    }
  }
  score(p) = size(p.got)
%s
}
"""

SCENARIOS = """
  scenario "forced outcomes" players 2 {
    box = [1, 2, 3, 4, 5]
    chance [4]
    play seat(1): drop
    expect seat(1).got == [4] and inside == [5]
    chance [2, 5]
    play seat(2): drop
    expect seat(2).got == [2, 5] and inside == [3]
    chance 5
    play seat(1): throw
    expect rolled == 5
  }
"""


def compile_mixer(tmp_path, scenarios: str = ""):
    (tmp_path / "rules.metro").write_text(MIXER % scenarios)
    return load_game(str(tmp_path), use_cache=False)


@pytest.fixture(scope="module")
def mixer(tmp_path_factory):
    return compile_mixer(tmp_path_factory.mktemp("mixer"))


def play_randomly(state, rng: random.Random):
    """Random actions and weighted random elementary chance outcomes until the end."""
    while state.to_move:
        if state.to_move == [CHANCE]:
            outcomes = state.chance_outcomes()
            assert sum(p for _, p in outcomes) == 1 and all(p > 0 for _, p in outcomes)
            values = [v for v, _ in outcomes]
            state.apply_chance(rng.choices(values, [float(p) for _, p in outcomes])[0])
        else:
            player = state.to_move[0]
            state.apply(player, rng.choice(state.legal_actions(player)))
    return state


def play_seeded(game, seed: int, chance: str = "seeded"):
    state = game.new_game(2, seed, chance=chance)
    rng = random.Random(seed)
    while state.to_move:
        player = state.to_move[0]
        state.apply(player, rng.choice(state.legal_actions(player)).id)
    return state


def test_recorded_play_is_seeded_play_and_its_record_replays_it(mixer):
    kinds = Counter()
    for seed in range(12):
        seeded, recorded = play_seeded(mixer, seed), play_seeded(mixer, seed, "recorded")
        assert recorded.to_doc()["state"] == seeded.to_doc()["state"]
        assert recorded.to_doc()["player_state"] == seeded.to_doc()["player_state"]
        record = recorded.record()
        kinds.update(step["chance"]["kind"] for step in record if "chance" in step)
        replayed = replay_record(mixer, 2, record)
        assert replayed.to_doc()["player_state"] == recorded.to_doc()["player_state"]
        assert replayed.to_doc()["state"] == recorded.to_doc()["state"]
    assert kinds["mix"] > 5


def test_a_mix_node_lists_counts_then_the_order_with_exact_probabilities(mixer):
    state = mixer.new_game(2, chance="explicit")
    state.apply_outcome({"kind": "shuffle", "order": [8, 8, 8, 7, 6, 5, 4, 3, 2, 1]})
    state.apply(0, "drop")  # puts 1 and 2 in: 2 inside, each out with 70%
    node = state.chance_node
    assert node.kind == "mix" and node.percent == 70 and sorted(node.items) == [1, 2]
    assert node.to_doc() == {"kind": "mix", "items": [1, 2], "percent": 70}
    assert state.chance_outcomes() == [(0, Fraction(3, 10)), (1, Fraction(7, 10))]
    state.apply_chance(1)  # item 1 comes out
    state.apply_chance(1)  # item 2 comes out: now their order
    assert state.chance_outcomes() == [(1, Fraction(1, 2)), (2, Fraction(1, 2))]
    state.apply_chance(2)
    assert state.to_move == [1]
    assert state.view(0)["player_state"][0]["got"] == [2, 1]
    assert state.record()[-2:] == [
        {"apply": {"player": 0, "action": "drop"}},
        {"chance": {"kind": "mix", "out": [2, 1]}},
    ]


def test_elementary_picks_give_each_whole_outcome_its_exact_probability(mixer):
    """Sum the probability of every path of picks: each outcome gets p^k (1-p)^(n-k) / k!-orders."""
    state = mixer.new_game(2, chance="explicit")
    state.apply_outcome({"kind": "shuffle", "order": [1, 2, 3, 4, 5, 6, 7, 8, 8, 8]})
    state.apply(0, "drop")  # 8 and 8 go in: alike, so only the counts are uncertain
    totals: Counter = Counter()

    def walk(current, weight):
        if current.to_move != [CHANCE]:
            totals[tuple(current.view(0)["player_state"][0]["got"])] += weight
            return
        for value, p in current.chance_outcomes():
            branch = current.clone()
            branch.apply_chance(value)
            walk(branch, weight * p)

    walk(state, Fraction(1))
    p = Fraction(7, 10)
    assert totals == {(): (1 - p) ** 2, (8,): 2 * p * (1 - p), (8, 8): p * p}


def test_a_certain_mix_is_no_chance_node_and_is_not_recorded(mixer):
    for mode in ("explicit", "recorded"):
        state = mixer.new_game(2, chance=mode)
        if mode == "explicit":
            state.apply_outcome({"kind": "shuffle", "order": [1, 2, 3, 4, 5, 6, 7, 8, 8, 8]})
        log, logged = state.chance, len(state.chance.log)
        assert log.mix(state, [], 50, None) == []  # an empty mixer
        inside = [3, 3]
        assert log.mix(state, inside, 100, None) == [3, 3] and inside == []
        inside = [4, 5]
        assert log.mix(state, inside, 0, None) == [] and inside == [4, 5]
        assert len(log.log) == logged
    with pytest.raises(ChanceNeeded):
        state = mixer.new_game(2, chance="explicit")
        state.chance.mix(state, [4, 5], 100, None)  # all out, in an uncertain order


def test_a_whole_mix_outcome_is_checked(mixer):
    state = mixer.new_game(2, chance="explicit")
    state.apply_outcome({"kind": "shuffle", "order": [8, 8, 8, 7, 6, 5, 4, 3, 2, 1]})
    state.apply(0, "drop")
    for bad, words in [
        ({"kind": "mix", "out": [3]}, "not all inside"),
        ({"kind": "mix", "out": [1, 1]}, "not all inside"),
        ({"kind": "roll", "sides": 6, "value": 2}, "is a mix"),
        ({"kind": "mix"}, "mix outcome is"),
    ]:
        with pytest.raises(IllegalAction, match=words):
            state.apply_outcome(bad)
    state.apply_chance(0)  # item 1 stays in
    with pytest.raises(IllegalAction, match="counts picked"):
        state.apply_outcome({"kind": "mix", "out": [1]})
    state.apply_outcome({"kind": "mix", "out": [2]})
    assert state.view(0)["player_state"][0]["got"] == [2]


def test_views_show_what_came_out_never_what_is_inside(mixer):
    states = (play_seeded(mixer, seed) for seed in range(20))
    state = next(s for s in states if s.to_doc()["state"]["inside"])
    inside = state.to_doc()["state"]["inside"]
    assert state.view(0)["state"]["inside"] == {"hidden": True, "size": len(inside)}


def test_random_explicit_games_end_replay_and_their_saves_round_trip(mixer):
    for seed in range(6):
        state = mixer.new_game(3, chance="explicit")
        rng = random.Random(seed)
        while state.to_move:
            text = state.to_json()
            back = mixer.state_from_json(text)
            assert back.to_json() == text and back.chance_outcomes() == state.chance_outcomes()
            if state.to_move == [CHANCE]:
                values = [v for v, _ in state.chance_outcomes()]
                state.apply_chance(rng.choice(values))
            else:
                player = state.to_move[0]
                state.apply(player, rng.choice(state.legal_actions(player)))
        assert replay_record(mixer, 3, state.record()).to_json() == state.to_json()


def test_a_save_with_a_bad_mix_outcome_is_refused(mixer):
    state = mixer.new_game(2, chance="recorded")
    doc = state.to_doc()
    doc["chance"]["log"] = [[0, {"kind": "mix", "out": 3}]]
    with pytest.raises(InvalidSave, match="list"):
        mixer.state_from_json(doc)


def test_the_generator_draws_each_item_with_its_chance():
    seed, out_counts = 7, Counter()
    for _ in range(4000):
        seed, out = mix_draw(seed, [1, 2, 3], 30)
        out_counts[len(out)] += 1
    # Binomial(3, 0.3): 0.343, 0.441, 0.189, 0.027 of 4000 draws.
    for k, expected in enumerate([1372, 1764, 756, 108]):
        assert abs(out_counts[k] - expected) < 5 * (expected**0.5)
    items = [5, 6, 7]
    assert mix_draw(1, items, 100)[1] and items == []
    items = [5]
    assert mix_draw(1, items, 0)[1] == [] and items == [5]


def test_scenario_chance_steps_give_rolls_shuffles_and_mixes(tmp_path):
    game = compile_mixer(tmp_path, SCENARIOS)
    assert [r.error for r in run_scenarios(game)] == [""]


@pytest.mark.parametrize(
    ("steps", "words"),
    [
        ("box = [1, 2]\n chance [7]\n play seat(1): drop", "not a list of items inside"),
        ("box = [1, 2, 3]\n chance 3\n play seat(1): rest", "was not used"),
        ("chance 9\n play seat(1): throw", "not a roll of 1..6"),
        ("chance [1]", "was not used"),
    ],
)
def test_a_chance_step_that_does_not_fit_fails_its_scenario(tmp_path, steps, words):
    game = compile_mixer(tmp_path, f'scenario "bad" players 2 {{\n {steps}\n }}')
    [result] = run_scenarios(game)
    assert words in result.error


def test_a_chance_step_forces_the_top_of_a_shuffle(tmp_path):
    game = compile_mixer(
        tmp_path,
        'scenario "deal" players 2 {\n box = [1, 2, 3, 4, 5]\n chance [2, 4]\n'
        " play seat(1): reshuffle\n expect box[4] == 2 and box[3] == 4\n }",
    )
    assert [r.error for r in run_scenarios(game)] == [""]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("action bad() { let s: set of int = {}\n let o = mix(s, [1], [50]) }", "list or pile"),
        ("action bad() { let o = mix(inside, [true], [50]) }", r"mix\(\) puts a list of int"),
        ("function f() -> int { return size(mix(inside, [1], [50])) }", "may not call mix"),
        ("action bad() { chance 3 }", "belong in scenarios"),
    ],
)
def test_mix_and_chance_are_checked(tmp_path, body, words):
    (tmp_path / "rules.metro").write_text(MIXER % body)
    with pytest.raises(CompileError, match=words):
        load_game(str(tmp_path), use_cache=False)
