"""The State contract details the battery cannot see from outside: its cache of legal actions."""

from __future__ import annotations

import os
import random

from loader import load_game
from tests.conftest import ROOT

JUTAKU = os.path.join(ROOT, "games", "tokyo_jutaku")


def fresh_legal(state, player: int):
    """`player`'s legal actions computed from scratch (a restored state has nothing cached)."""
    return state.game.state_from_json(state.to_json()).legal_actions(player)


def test_simultaneous_choices_keep_the_others_lists_exactly():
    game = load_game(JUTAKU)
    rng = random.Random(3)
    state = game.new_game(4, 3)
    secret_steps = 0
    for _ in range(120):
        if state.is_over:
            break
        for p in range(state.n):  # fill the cache for everyone first
            state.legal_actions(p)
        player = state.to_move[0]
        secret_steps += game.sites[state.site].secret and len(state.to_move) > 1
        state.apply(player, rng.choice(state.legal_actions(player)))
        for p in range(state.n):
            assert state.legal_actions(p) == fresh_legal(state, p)
    assert secret_steps > 20  # the carried-over lists were exercised


def test_a_clone_does_not_share_the_cache():
    game = load_game(JUTAKU)
    state = game.new_game(3, 5)
    twin = state.clone()
    player = state.to_move[0]
    state.apply(player, state.legal_actions(player)[0])
    for p in range(state.n):
        assert twin.legal_actions(p) == fresh_legal(twin, p)


PLAYER_TABLE = """game "Player table" {
  players 2..3
  state { tally: map player -> int public = {p: 0 for p in players} }
  per player { seen: map player -> bool owner = {q: false for q in players} }
  action go() { tally[me] += 1  me.seen[me] = true  end game }
  flow { choose by seat(1) { go } }
  score(p) = tally[p]
}
"""


def test_tables_keyed_by_player_round_trip(tmp_path):
    (tmp_path / "rules.metro").write_text(PLAYER_TABLE)
    game = load_game(str(tmp_path), use_cache=False)
    for players in (2, 3):
        state = game.new_game(players, 1)
        state.apply(0, state.legal_actions(0)[0])
        text = state.to_json()
        assert '"tally":{"P1":1,"P2":0' in text
        assert game.state_from_json(text).to_json() == text


def test_the_public_view_is_what_every_other_player_sees_of_each_player():
    game = load_game(os.path.join(ROOT, "games", "ticket_to_ride"))
    state = game.new_game(3, 5)
    rng = random.Random(5)
    for _ in range(12):
        player = state.to_move[0]
        state.apply(player, rng.choice(state.legal_actions(player)))
    public = state.public_view()
    assert public["you"] is None
    for seat in range(3):
        view = state.view(seat)
        assert {k: v for k, v in view.items() if k not in ("you", "player_state")} == {
            k: v for k, v in public.items() if k not in ("you", "player_state")
        }
        for other in range(3):
            if other != seat:  # what a player sees of another is what everyone sees of them
                assert view["player_state"][other] == public["player_state"][other]
        assert view["player_state"][seat] != public["player_state"][seat]  # their own hand
