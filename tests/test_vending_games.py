"""Bottle Bonus! and the vending-market game: what their scenarios cannot say (the rules' own
scenarios run through the pytest plugin from games/)."""

from __future__ import annotations

import os
import random

import pytest

from dsl.diagnostics import CompileError
from loader import load_game
from metro.analysis.simulate import simulate
from metro.conformance.adapter import LocalAdapter
from metro.conformance.conform import run_vectors
from metro.conformance.vectorgen import scenario_vector
from metro.testing.scenarios import scenarios
from runtime.chance import CHANCE
from tests.conftest import ROOT

JUTAKU = os.path.join(ROOT, "games", "tokyo_jutaku")
MARKET = os.path.join(ROOT, "games", "jidohanbaiki")


@pytest.fixture(scope="module")
def market():
    return load_game(MARKET)


@pytest.fixture(scope="module")
def bottle_bonus():
    return load_game(JUTAKU, expansions=("bottle_bonus",))


def test_bottle_bonus_is_not_played_with_the_tower_variant():
    with pytest.raises(CompileError, match="cannot be combined with 'Timed tower'"):
        load_game(JUTAKU, expansions=("bottle_bonus",), variants=("tower",), use_cache=False)


@pytest.mark.parametrize("name", ["market", "bottle_bonus"])
def test_scenario_vectors_carry_the_vending_outcomes_and_replay_them(name, request):
    """A scenario's `chance` steps become explicit outcomes another engine is given exactly."""
    game = request.getfixturevalue(name)
    path = MARKET if name == "market" else os.path.join(JUTAKU, "bottle_bonus")
    own = [s for s in scenarios(game) if s.file.startswith(path) and "machine" in s.name]
    assert own
    vectors = [scenario_vector(game, s, i, path) for i, s in enumerate(own)]
    outcomes = [step["chance"] for v in vectors for step in v.steps if "chance" in step]
    assert any(o["kind"] == "mix" for o in outcomes)
    results = run_vectors(lambda: LocalAdapter(game), [("", v) for v in vectors])
    assert all(r.passed for r in results), [r.difference for r in results if not r.passed]


def test_views_never_show_what_is_stuck_in_the_machine(market):
    rng = random.Random(5)
    seen_inside = 0
    for seed in range(30):
        state = market.new_game(3, seed)
        while state.to_move:
            inside = state.to_doc()["state"]["machine"]
            seen_inside += bool(inside)
            for p in range(3):
                assert state.view(p)["state"]["machine"] == {"hidden": True, "size": len(inside)}
            player = state.to_move[0]
            state.apply(player, rng.choice(state.legal_actions(player)))
    assert seen_inside


def test_an_explicit_market_game_stops_at_each_vending_event(market):
    """Every buy through the machine is a mix node (or certain), and the game still ends."""
    rng = random.Random(2)
    state = market.new_game(2, chance="explicit")
    kinds = set()
    while state.to_move:
        if state.to_move == [CHANCE]:
            kinds.add(state.chance_node.kind)
            values = [v for v, _ in state.chance_outcomes()]
            state.apply_chance(rng.choice(values))
        else:
            player = state.to_move[0]
            state.apply(player, rng.choice(state.legal_actions(player)))
    assert {"shuffle", "roll", "mix"} <= kinds


def test_the_trader_beats_random_play():
    first = simulate(MARKET, 2, 60, "trader-test", bots=("trader", "random"))
    second = simulate(MARKET, 2, 60, "trader-test", bots=("random", "trader"))
    assert first.wins[0] + second.wins[1] > 0.6 * 120


def test_the_screens_show_the_market_never_the_machine_contents(market):
    """`metro play`'s screen of a position (tables keyed by squares and stock cards)."""
    rng = random.Random(1)
    state = market.new_game(3, 1)
    while not state.to_doc()["state"]["machine"]:
        player = state.to_move[0]
        state.apply(player, rng.choice(state.legal_actions(player)))
    inside = state.to_doc()["state"]["machine"]
    rows = {getattr(row, "heading", ""): row for row in state.display(0).table}
    assert "Supply" in rows and rows["Vending machine"].text == f"{len(inside)} hidden"
