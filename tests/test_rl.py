"""Reinforcement-learning adapters: the observation encoder, PettingZoo AEC environments, OpenSpiel games."""

from __future__ import annotations

import os
import random
import re
import sys
import warnings

import pytest

from loader import load_game
from metro.rl.encoding import Encoder, TooManyActions, action_mask
from runtime.determinize import sample_position
from tests.conftest import ROOT, game_dirs

GAMES = [os.path.basename(path) for path in game_dirs()]


@pytest.fixture(scope="module")
def ttr():
    return load_game(os.path.join(ROOT, "games", "ticket_to_ride"))


def _played(game, decisions: int, seed: int = 1):
    state = game.new_game(2, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        player = state.to_move[0]
        state.apply(player, rng.choice(state.legal_actions(player)))
    return state


def test_an_observation_shows_only_what_the_player_sees(ttr):
    encoder = Encoder(ttr, 2)
    state = _played(ttr, 30)
    mine = encoder.observe(state, 0)
    assert len(mine) == encoder.size
    for k in range(5):  # hidden data and the other's hand re-dealt: nothing seat 1 sees changes
        assert encoder.observe(sample_position(state, 0, random.Random(k)), 0) == mine
    assert encoder.observe(state, 1) != mine  # the other seat sees its own hand, not this one


def test_seats_are_rotated_so_the_observer_comes_first(ttr):
    encoder = Encoder(ttr, 2)
    state = _played(ttr, 1)  # the first secret choice: both to move, then only seat 2
    first, second = encoder.observe(state, 0), encoder.observe(state, 1)
    assert first[:2] == [0.0, 1.0] and second[:2] == [1.0, 0.0]  # "to move", observer first


def test_the_action_mask_marks_the_legal_actions_and_refuses_too_many(ttr):
    state = _played(ttr, 2)
    count = len(state.legal_actions(state.to_move[0]))
    size = count + 10
    assert action_mask(state, state.to_move[0], size) == [1] * count + [0] * 10
    with pytest.raises(TooManyActions, match="max_actions"):
        action_mask(state, state.to_move[0], count - 1)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", GAMES)
def test_every_game_passes_pettingzoos_api_test(name):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from metro import pettingzoo_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # advice on naming and space types, not failures
        api_test(pettingzoo_env(name, players=2), num_cycles=200, verbose_progress=False)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_seeds_reproduce_and_a_whole_game_ends_with_its_winner():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import seed_test

    from metro import pettingzoo_env

    seed_test(lambda: pettingzoo_env("ticket_to_ride", players=2), num_cycles=50)
    env = pettingzoo_env("ticket_to_ride", players=2)
    env.reset(seed=3)
    rng = random.Random(3)
    final = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        legal = [i for i, ok in enumerate(observation["action_mask"]) if ok]
        env.step(rng.choice(legal))
    assert env.state_.over and env.agents == []
    winners = env.state_.winners()
    assert final == {f"player_{p}": (1 / len(winners) if p in winners else 0.0) for p in range(2)}
    with pytest.raises(ValueError, match="takes 2-5 players"):
        pettingzoo_env("ticket_to_ride", players=9)


# Every shipped game, and its expansions, variants and player counts, as OpenSpiel plays them.
OPENSPIEL_CONFIGURATIONS = [
    *[(name, 2, {}) for name in GAMES if name != "jidohanbaiki"],
    # the market restocks a card with roll(size(supply)): a number of outcomes not known before
    # play, so OpenSpiel plays its chance sampled (explicit refuses it: tested below)
    ("jidohanbaiki", 2, {"chance": "sampled"}),
    ("tokyo_jutaku", 2, {"expansions": ("bottle_bonus",)}),
    ("ticket_to_ride", 4, {"variants": ("big_bonus",)}),
    ("ticket_to_ride", 3, {"variants": ("open_doubles", "short_game")}),
    ("ticket_to_ride", 2, {"chance": "sampled"}),
    ("tokyo_metro", 3, {"expansions": ("osaka",)}),
    ("tokyo_metro", 1, {"variants": ("solo",)}),
    ("tokyo_metro", 5, {"variants": ("cards-osaka",)}),
    ("tokyo_jutaku", 3, {"variants": ("tower",)}),
]
NIGHTLY = os.environ.get("METRO_NIGHTLY") == "1"


@pytest.mark.parametrize(
    ("name", "players", "options"),
    OPENSPIEL_CONFIGURATIONS,
    ids=[f"{n}-{p}-{'-'.join(map(str, o.values()))}" for n, p, o in OPENSPIEL_CONFIGURATIONS],
)
def test_every_game_passes_openspiels_random_simulation_test(name, players, options):
    pyspiel = pytest.importorskip("pyspiel")
    from metro import openspiel_game

    game = openspiel_game(name, players=players, seed=7, **options)
    # serialize: states are saved and loaded by OpenSpiel's own serialisation along the way
    # (not with sampled chance: OpenSpiel then saves a generator of the game's, metro has none)
    serialize = options.get("chance") != "sampled"
    pyspiel.random_sim_test(game, num_sims=5 if NIGHTLY else 1, serialize=serialize, verbose=False)


def _random_chance_game(game, outcomes: random.Random, actions: random.Random, steps: int):
    """`steps` steps of a game (fewer if it ends), chance outcomes from one generator, actions from another."""
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            probabilities = state.chance_outcomes()
            assert sum(p for _, p in probabilities) == pytest.approx(1.0, abs=1e-12)
            choices, weights = zip(*probabilities, strict=True)
            state.apply_action(outcomes.choices(choices, weights)[0])
        else:
            state.apply_action(actions.choice(state.legal_actions()))
    return state


def test_openspiel_chance_is_explicit_and_its_outcomes_are_given_not_drawn():
    pyspiel = pytest.importorskip("pyspiel")
    from metro import openspiel_game

    game = openspiel_game("ticket_to_ride", players=2)
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.max_chance_outcomes() == 30  # the 30 tickets of the largest shuffle's type
    state = game.new_initial_state()
    assert state.is_chance_node()  # the train cards are shuffled first: one card at a time
    outcomes = dict(state.chance_outcomes())
    assert outcomes == pytest.approx(dict.fromkeys(range(8), 12 / 110) | {8: 14 / 110})
    assert state.legal_actions() == sorted(outcomes)
    assert re.search(
        r"ticket_to_ride/rules\.metro:\d+\): locomotive next from the top$",
        state.action_to_string(pyspiel.PlayerId.CHANCE, 8),
    )
    # The seed plays no part: the same outcomes and actions give the same position.
    first = _random_chance_game(game, random.Random(1), random.Random(2), 400)
    again = _random_chance_game(
        openspiel_game("ticket_to_ride", players=2, seed=99),
        random.Random(1),
        random.Random(2),
        400,
    )
    assert first.history() == again.history() and str(first) == str(again)
    assert first.position.record() == again.position.record()
    unseeded = [state.position.to_doc() for state in (first, again)]
    for doc in unseeded:  # the generator is never drawn from: only the seed it was given differs
        del doc["seed"], doc["rng"]
    assert unseeded[0] == unseeded[1]
    other = _random_chance_game(game, random.Random(3), random.Random(2), 400)
    assert str(other) != str(first)
    # Every outcome taken is in the record, so the metro runtime replays the game without OpenSpiel.
    from runtime.chance import replay_record

    replayed = replay_record(game.metro, 2, first.position.record())
    assert replayed.to_json() == first.position.to_json()


def test_a_die_is_one_chance_node_and_unbounded_events_need_sampled_chance(tmp_path):
    pyspiel = pytest.importorskip("pyspiel")
    from metro import openspiel_game

    dice = """\
game "Dice" {
  players 2..2
  per player { points: int public }
  action roll_die() { me.points += roll(SIDES) }
  action stop() { me.points += 0 }
  const SIDES = 6
  flow { for p in players { choose by p { roll_die, stop } } }
  score(p) = p.points
  rank p by p.points desc
}
"""
    folder = tmp_path / "dice"
    folder.mkdir()
    (folder / "rules.metro").write_text(dice, encoding="utf-8")
    game = openspiel_game(str(folder), players=2)
    assert game.max_chance_outcomes() == 6
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])  # roll_die: the roll waits for chance
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(k, pytest.approx(1 / 6)) for k in range(6)]
    state.apply_action(4)  # a five
    assert state.position.scores() == [5, 0] and state.current_player() == 1
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)

    computed = dice.replace("roll(SIDES)", "roll(SIDES + me.points)")
    (folder / "rules.metro").write_text(computed, encoding="utf-8")
    with pytest.raises(ValueError, match="chance='sampled'"):
        openspiel_game(str(folder), players=2)
    sampled = openspiel_game(str(folder), players=2, chance="sampled")
    assert sampled.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    # (OpenSpiel serialises sampled games with a generator of the game's own: metro's is the state's)
    pyspiel.random_sim_test(sampled, num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize(
    ("event", "bound"),
    [
        ("let x = roll(4)", 4),
        ("let x = roll(2 * SIDES)", 12),
        ("let x = roll(size(players) + 1)", None),  # sides known only while playing
        ("let pile = [Suit.hearts, Suit.spades]\n    shuffle pile", 3),  # the enum's values
        ("let pile = players\n    shuffle pile", 4),  # the most players
        ("let pile = [true, false]\n    shuffle pile", 2),
        ("let pile = [1, 2, 3]\n    shuffle pile", None),  # numbers: no bound before play
        ("let x = 1", 0),  # no random event
    ],
)
def test_the_compiler_bounds_the_outcomes_of_random_events(tmp_path, event, bound):
    rules = f"""\
game "Bounds" {{
  players 2..4
  const SIDES = 6
  enum Suit {{ hearts spades clubs }}
  per player {{ points: int public }}
  procedure event() {{
    {event}
  }}
  flow {{ event() }}
  score(p) = p.points
  rank p by p.points desc
}}
"""
    folder = tmp_path / "bounds"
    folder.mkdir()
    (folder / "rules.metro").write_text(rules, encoding="utf-8")
    assert bound == load_game(str(folder), use_cache=False).module.CHANCE_BOUND


def test_openspiel_loads_metro_games_by_their_text_and_serialises_states():
    pyspiel = pytest.importorskip("pyspiel")
    import metro.rl.openspiel_adapter  # noqa: F401  (registers the game "metro" with OpenSpiel)

    game = pyspiel.load_game("metro(game=tokyo_metro,players=3,expansions=osaka)")
    assert game.num_players() == 3 and game.max_chance_outcomes() == 40
    assert str(pyspiel.load_game(str(game))) == str(game)
    state = _random_chance_game(game, random.Random(5), random.Random(6), 150)
    text = pyspiel.serialize_game_and_state(game, state)
    loaded_game, loaded = pyspiel.deserialize_game_and_state(text)
    assert str(loaded_game) == str(game) and str(loaded) == str(state)
    assert loaded.position.to_json() == state.position.to_json()
    with pytest.raises(ValueError, match="name the game"):
        pyspiel.load_game("metro(players=2)")


def test_openspiel_states_clone_and_replay():
    pytest.importorskip("pyspiel")
    from metro import openspiel_game

    game = openspiel_game("ticket_to_ride", players=2, seed=5, chance="sampled")
    state = game.new_initial_state()
    for _ in range(12):
        state.apply_action(state.legal_actions()[-1])
    copy = state.clone()
    assert str(copy) == str(state) and copy.history() == state.history()
    copy.apply_action(copy.legal_actions()[0])
    assert str(copy) != str(state)  # independent
    replayed = game.new_initial_state()
    for action in state.history():
        replayed.apply_action(action)
    assert str(replayed) == str(state)
    tensor = state.observation_tensor(state.current_player())
    assert len(tensor) == game.observation_tensor_size()


def test_without_the_rl_extra_the_adapters_say_what_to_install(monkeypatch):
    import metro

    for name in (
        "metro.rl.pettingzoo_adapter",
        "metro.rl.openspiel_adapter",
        "pettingzoo",
        "pyspiel",
    ):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"metro-games\[rl\]"):
        metro.pettingzoo_env("ticket_to_ride", players=2)
    with pytest.raises(ImportError, match=r"metro-games\[rl\]"):
        metro.openspiel_game("ticket_to_ride", players=2)


def test_a_game_whose_chance_cannot_be_bounded_asks_for_sampled_chance():
    pytest.importorskip("pyspiel")
    from metro import openspiel_game

    with pytest.raises(ValueError, match=r"not known before play.*chance='sampled'"):
        openspiel_game("jidohanbaiki", players=2)
    assert openspiel_game("jidohanbaiki", players=2, chance="sampled").num_players() == 2


def test_a_mixers_outcomes_are_bounded_by_its_items_values():
    from metro import load_game

    # Bottle Bonus!'s mixer holds drinks (36 elements): counts 0..36 and the drinks' order
    assert load_game("tokyo_jutaku", expansions=("bottle_bonus",)).module.CHANCE_BOUND == 37
