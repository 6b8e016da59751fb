"""Izakaya: the ranking's tie-breaks (both wordings) and the table data's build script.

The rules themselves are checked by the scenarios beside them (games/izakaya/scenarios.metro).
"""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

from loader import load_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IZAKAYA = os.path.join(ROOT, "games", "izakaya")
BUILD_SCRIPT = os.path.join(IZAKAYA, "tools", "build_table.py")


def tied_game(variants=()):
    """A 2-player game ending in round 1 with no building: both score 0. Seat 1 bid ¥1,000 (none
    left), seat 2 ¥500 (¥500 left)."""
    game = load_game(IZAKAYA, variants=variants)
    state = game.new_game(2, 1)
    state.apply(0, "bids(1000)")
    state.apply(1, "bids(500)")
    colours = iter(["red", "mint", "black", "white", "blue", "purple"])
    corners = iter(["p11", "p12", "p21", "p22", "p01", "p02"])
    while not state.is_over:
        state.apply(state.to_move[0], f"color_bottle({next(colours)},{next(corners)})")
    return state


def test_a_tie_goes_to_who_kept_the_most_starting_money():
    state = tied_game()
    assert state.scores() == [0, 0]
    assert state.ranking() == [2, 1]
    assert state.winners() == [1]


def test_the_other_wording_gives_a_tie_to_the_highest_bid():
    state = tied_game(("highest-bid",))
    assert state.scores() == [0, 0]
    assert state.ranking() == [1, 2]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_end_by_the_bid_pile(players):
    from metro.analysis.simulate import simulate

    stats = simulate(IZAKAYA, players=players, games=10, seed="end")
    assert stats.games == 10 and stats.mean_decisions > 4 * players


@pytest.fixture
def script(monkeypatch):
    """The build script, imported as a module (dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location("izakaya_build_table", BUILD_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_the_build_script_rewrites_the_committed_table(tmp_path, script):
    module = script
    assert module.main(["--out", str(tmp_path)]) == 0
    for name in ("table.metro", "edge_chips.metro", "corner_chips.metro"):
        with open(os.path.join(IZAKAYA, name), encoding="utf-8") as committed:
            assert (tmp_path / name).read_text(encoding="utf-8") == committed.read(), name
    assert module.main(["--check"]) == 0


def test_the_table_has_every_edge_corner_and_line(script):
    module = script
    edges = module.edge_places()
    assert len(edges) == 2 * 5 * 4  # 20 east edges and 20 south edges in a 5 x 5 grid
    assert len(module.corner_places()) == 16
    lines = module.lines(edges, [(2, 0), (0, 2), (1, 1), (1, -1)])
    names = {(a.name, b.name, c.name) for a, b, c in lines}
    assert ("v00", "v10", "v20") in names  # along a grid line
    assert ("h00", "h01", "h02") in names  # along a row of cards, edge after edge
    assert ("v00", "v01", "v02") in names  # parallel edges across a row of cards
    assert ("h00", "v10", "h11") in names  # a diagonal staircase
    assert all(len({a.name, b.name, c.name}) == 3 for a, b, c in lines)


def test_a_declared_bot_scores_choices_too():
    # The host's rules score the secret bid (`bids`, a choice) and the build steps
    # (`build_area`, `build_at`), not only actions.
    from metro.bots.preference import declared_bot

    game = load_game(IZAKAYA)
    state = game.new_game(2, 1)
    bot = declared_bot(game, "host", 0)
    assert bot.choose(state, 0).id == "bids(200)"
    assert bot.choose(state, 1).id == "bids(200)"


def test_the_host_beats_random_play():
    from metro.analysis.simulate import simulate

    stats = simulate(IZAKAYA, players=2, games=30, seed="host", bots=["host", "random"])
    assert stats.wins[0] > stats.wins[1]
