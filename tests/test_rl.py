"""Reinforcement-learning adapters: the observation encoder, PettingZoo AEC environments, OpenSpiel games."""

from __future__ import annotations

import os
import random
import sys
import warnings

import pytest

from compiler import load_game
from metro.encoding import Encoder, TooManyActions, action_mask
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


@pytest.mark.parametrize("name", GAMES)
def test_every_game_passes_openspiels_random_simulation_test(name):
    pyspiel = pytest.importorskip("pyspiel")
    from metro import openspiel_game

    pyspiel.random_sim_test(
        openspiel_game(name, players=2, seed=7), num_sims=1, serialize=False, verbose=False
    )


def test_openspiel_states_clone_and_replay():
    pytest.importorskip("pyspiel")
    from metro import openspiel_game

    game = openspiel_game("ticket_to_ride", players=2, seed=5)
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

    for name in ("metro.pettingzoo_adapter", "metro.openspiel_adapter", "pettingzoo", "pyspiel"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"metro-games\[rl\]"):
        metro.pettingzoo_env("ticket_to_ride", players=2)
    with pytest.raises(ImportError, match=r"metro-games\[rl\]"):
        metro.openspiel_game("ticket_to_ride", players=2)
