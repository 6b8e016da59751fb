"""The shopping centre: the ranking's tie-break, whole games, and the floor plan's build script.

The rules themselves are checked by the scenarios beside them (games/shopping_centre/scenarios.metro).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from loader import load_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOP = os.path.join(ROOT, "games", "shopping_centre")


def newspaper_game():
    """A 2-player game that the start player ends by leaving twice with a newspaper each time and
    no money; the other player never takes anything: both score 0."""
    state = load_game(SHOP).new_game(2, 1)
    first = state.to_move[0]
    other = 1 - first
    for _ in range(2):
        state.apply(first, "walk(s4_8)")
        state.apply(first, "take_good(c4_7,paper)")
        state.apply(other, "walk(s3_8)" if _ == 0 else "walk(s3_7)")
        state.apply(other, "take_nothing")
        state.apply(first, "leave")
        if not state.is_over:
            state.apply(other, "walk(s3_6)")
            state.apply(other, "take_nothing")
    return state, first


def test_a_tie_in_money_goes_to_the_most_newspapers():
    state, first = newspaper_game()
    assert state.is_over
    assert state.scores() == [0, 0]
    assert state.winners() == [first]
    assert state.ranking()[first] == 1 and state.ranking()[1 - first] == 2


def test_the_breakdown_books_every_yen_by_source():
    from metro.bots import make_bot

    game = load_game(SHOP)
    state = game.new_game(4, 5)
    bot = make_bot("shopper", 5, game)
    while state.to_move:
        p = state.to_move[0]
        state.apply(p, bot.choose(state, p))
    scores = state.scores()
    assert max(scores) > 0
    for p in range(4):
        assert sum(int(value) for _, value in state.breakdown(p)) == scores[p]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_end_when_all_but_one_have_left_twice(players):
    from metro.analysis.simulate import simulate

    stats = simulate(SHOP, players=players, games=10, seed="end", bot="random")
    assert stats.games == 10 and stats.mean_decisions > 6 * players


def test_the_floor_plan_is_what_its_build_script_writes():
    script = os.path.join(SHOP, "tools", "build_mall.py")
    assert subprocess.run([sys.executable, script, "--check"], check=False).returncode == 0
