"""Maintained indexes (compiler/indexes.py) stay equal to the tables they index, whatever writes them."""

from __future__ import annotations

import os
import random

import pytest

from compiler import compile_game, lower_guards
from compiler.lower_guards import GuardTables
from loader import load_game
from metro.analysis.playthrough import transcript
from runtime.lib import group_by, none_views
from runtime.saves import set_fields
from tests.conftest import ROOT

GUARDS = os.path.join(ROOT, "tests", "data", "guards")


def fresh(state) -> list[list]:
    """The index of `owner` as it would be built from the table now."""
    return group_by(state.g_owner, 3)


def viewed_game():
    """The game compiled as if its cells held many roads: its guard tables walked as views."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lower_guards, "VIEWED_KEYS", 1)
        return load_game(GUARDS, use_cache=False)


def fresh_views(state) -> list[list]:
    """The views of `owner`'s index (the cells of the guard tables) built from the table now."""
    return none_views(state.g_owner, state.game.module.V_owner__cells)


def test_only_tables_read_by_entry_and_walked_are_indexed():
    module = compile_game(GUARDS, stop_after="lower").module
    assert [index.field for index in module.indexes] == ["owner"]  # `backup` is never walked
    aliased = compile_game(GUARDS, variants=["aliased"], stop_after="lower").module
    assert aliased.indexes == []  # `owner` is passed whole to a function


def test_the_index_matches_its_table_after_every_kind_of_write():
    game = viewed_game()
    writes = set()
    for seed in range(12):
        rng = random.Random(seed)
        state = game.new_game(2 + seed % 2, seed)
        assert state.i_owner == fresh(state)
        while state.to_move:
            mover = state.to_move[0]
            action = rng.choice(state.legal_actions(mover))
            writes.add(action.name)
            state.apply(mover, action)
            assert state.i_owner == fresh(state), (seed, len(state.history), action)
            assert state.v_owner == fresh_views(state), (seed, len(state.history), action)
            copy = state.clone()
            assert copy.i_owner == state.i_owner and copy.i_owner is not state.i_owner
            assert copy.v_owner == state.v_owner and copy.v_owner[1] is not state.v_owner[1]
            restored = game.state_from_json(state.to_json())
            assert restored.i_owner == state.i_owner and restored.v_owner == state.v_owner
    # an entry (build, grab, pair), a waiting call's result (gift), the whole table (restore)
    assert {"build", "grab", "pair", "gift", "restore"} <= writes


def test_fields_set_from_json_rebuild_the_index():
    # How a conformance vector arranges a position (set_state): the fields are replaced whole.
    game = viewed_game()
    rng = random.Random(5)
    played = game.new_game(2, 5)
    while played.to_move and len(played.history) < 12:
        mover = played.to_move[0]
        played.apply(mover, rng.choice(played.legal_actions(mover)))
    state = game.new_game(2, 5)
    assert state.i_owner != fresh(played)
    doc = played.to_doc()
    set_fields(state, {"state": doc["state"], "player_state": doc["player_state"]})
    assert state.g_owner == played.g_owner and state.i_owner == fresh(state)
    assert state.v_owner == fresh_views(state)


def test_a_clone_keeps_its_own_index():
    game = load_game(GUARDS)
    state = game.new_game(2, 3)
    copy = state.clone()
    before = [list(group) for group in state.i_owner]
    for group in copy.i_owner:
        group.append(99)  # a write in the copy moves keys in the copy's lists only
    assert state.i_owner == before


def test_the_game_plays_the_same_without_views():
    viewed = viewed_game()
    plain = load_game(GUARDS, use_cache=False)
    assert "v_owner" in viewed.module.State.__slots__
    assert "v_owner" not in plain.module.State.__slots__
    for seed in range(6):
        assert transcript(viewed, 3, seed, "random") == transcript(plain, 3, seed, "random")


@pytest.mark.parametrize("variants", [(), ("aliased",)])
def test_the_game_plays_the_same_without_indexes_and_tables(variants, monkeypatch):
    indexed = load_game(GUARDS, variants=variants, use_cache=False)
    monkeypatch.setattr(GuardTables, "enabled", False)
    plain = load_game(GUARDS, variants=variants, use_cache=False)
    assert "i_owner" not in plain.module.State.__slots__
    for seed in range(6):
        assert transcript(indexed, 2, seed, "random") == transcript(plain, 2, seed, "random")


def test_shipped_games_keep_their_indexes_up_to_date():
    game = load_game(os.path.join(ROOT, "games", "ticket_to_ride"))
    slots = [slot for slot in game.module.State.__slots__ if slot.startswith("i_")]
    assert slots == ["i_owner"]
    rng = random.Random(5)
    state = game.new_game(4, 5)
    while state.to_move:
        mover = state.to_move[0]
        state.apply(mover, rng.choice(state.legal_actions(mover)))
        assert state.i_owner == group_by(state.g_owner, 5)
        assert state.v_owner == fresh_views(state)
