"""`State.apply_to_value`: a position reached to be valued lists no decision it need not, and is
the same position as `apply_legal` reaches (its legal lists made when asked)."""

from __future__ import annotations

import os
import random

import pytest

from loader import load_game
from runtime.frames import UNLISTED
from tests.conftest import ROOT

CONFIGS = [
    ("ticket_to_ride", ()),
    ("tokyo_metro", ()),
    ("tokyo_metro", ("osaka", "drinks")),
    ("tokyo_jutaku", ()),
    ("izakaya", ()),
    ("shopping_centre", ()),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "+".join([c[0], *c[1]]))
def test_a_position_reached_to_be_valued_is_the_position_reached_to_be_played(config):
    name, expansions = config
    game = load_game(os.path.join(ROOT, "games", name), expansions=expansions)
    rng = random.Random(7)
    state = game.new_game(3, 7)
    unlisted = 0
    while state.to_move and len(state.history) < 400:
        mover = state.to_move[0]
        action = rng.choice(state.legal_actions(mover))
        played, valued = state.clone(), state.clone()
        played.apply_legal(mover, action)
        valued.apply_to_value(mover, action)
        unlisted += valued._legal is None and played._legal is not None
        assert valued.to_doc() == played.to_doc()
        assert valued.to_move == played.to_move
        for player in range(3):
            assert valued.legal_actions(player) == played.legal_actions(player)
        state.apply_legal(mover, action)
    assert unlisted > 0  # some listings were not made (those a search never reads)


def test_an_unlisted_listing_is_not_cached():
    game = load_game(os.path.join(ROOT, "games", "tokyo_metro"))
    state = game.new_game(2, 1)
    state.forget_legal()
    state.cache_legal(0, UNLISTED)
    assert state._legal is None
    assert bool(UNLISTED)  # a listing not made is not an empty one
