"""Rows of actions (compiler/lower_listings.py `action_row`): a listing whose last parameter is
a range of step 1 takes its actions as a slice of a row kept for the earlier arguments, and
lists them one by one when the range starts below 0; the same actions as the plain listing."""

from __future__ import annotations

import random

from compiler import compile_game
from runtime.machine import Game, compile_module, run_module

RULES = """game "Rows" {
  players 2..2
  max decisions 200
  state { turn: int public = 0 }
  per player { coins: int public = 1 }
  action spend(a: 0..2, k: a - 2..a + me.coins) { me.coins = 1 + (me.coins + k + 7) % 5 }
  flow {
    repeat 40 times {
      choose by seat(1 + turn % 2) { spend }
      turn += 1
    }
  }
  score(p) = p.coins
}
"""


def _game(tmp_path) -> Game:
    (tmp_path / "rules.metro").write_text(RULES)
    source = compile_game(str(tmp_path)).python
    assert "_l.action_row(ROWS_spend, (v_a, ), _hi1" in source
    module = run_module(compile_module(source, "<rows>"), "<rows>", f"rows_{tmp_path.name}")
    return Game(module)


def test_a_last_range_lists_from_rows_and_one_by_one_as_the_plain_listing(tmp_path):
    game = _game(tmp_path)
    module = game.module
    rng = random.Random(3)
    starts = set()
    for seed in range(4):
        state = game.new_game(2, seed)
        while state.to_move:
            mover = state.to_move[0]
            fast, plain = [], []
            module.A_spend_legal(state, mover, fast)
            module.A_spend_legal_plain(state, mover, plain)
            assert fast == plain and fast == state.legal_actions(mover)
            starts |= {action.args[1] - action.args[0] for action in fast}
            state.apply(mover, rng.choice(fast))
    assert -2 in starts  # ranges starting below 0 were listed one by one
    assert module.ROWS_spend  # the others from rows
    assert all(len(row) <= 2 + 5 + 1 for row in module.ROWS_spend.values())
