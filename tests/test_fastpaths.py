"""Speed mechanisms that must not change what a game does: memoised actions, cheaper frames."""

from __future__ import annotations

import os

from compiler import load_game
from runtime import lib
from tests.conftest import ROOT


def test_a_memoised_action_is_built_once_and_equals_a_fresh_one():
    game = load_game(os.path.join(ROOT, "games", "ticket_to_ride"))
    memo = game.module.MEMO_claim_route
    memo.clear()
    state = game.new_game(2, 3)
    while not any(a.name == "claim_route" for a in state.legal_actions(state.to_move[0])):
        mover = state.to_move[0]
        state.apply_legal(mover, state.legal_actions(mover)[0])
    mover = state.to_move[0]
    listed = [a for a in state.legal_actions(mover) if a.name == "claim_route"]
    again = []
    game.module.A_claim_route_legal(state, mover, again)
    plain = []
    game.module.A_claim_route_legal_plain(state, mover, plain)
    assert again == plain == listed
    assert all(a is b for a, b in zip(again, listed, strict=True))  # looked up, not rebuilt
    assert set(memo) == {a.args for a in listed}


def test_an_action_memo_starts_again_at_its_limit(monkeypatch):
    monkeypatch.setattr(lib, "ACTION_MEMO_LIMIT", 2)
    memo: dict = {}
    first = lib.new_action(memo, 3, "take", (1,), ())
    lib.new_action(memo, 3, "take", (2,), ())
    assert len(memo) == 2 and memo[(1,)] is first
    third = lib.new_action(memo, 3, "take", (3,), ())
    assert memo == {(3,): third}
    assert third == (3, "take", (3,), ()) and third.name == "take"
