"""Rows of actions (compiler/lower_listings.py `action_row`): a listing whose last parameter is
a range of step 1 takes its actions as a slice of a row kept for the earlier arguments, and
lists them one by one when the range starts below 0 or ends past ROW_VALUES; the same actions
as the plain listing."""

from __future__ import annotations

import random

from compiler import compile_game
from compiler.lower_listings import ROW_VALUES
from runtime.machine import Game, compile_module, run_module

RULES = """game "Rows" {
  players 2..2
  max decisions 200
  state { turn: int public = 0 }
  per player { coins: int public = 1 }
  action spend(a: 0..2, k: a - 2..a + me.coins) { me.coins = 1 + (me.coins + k + 7) % 5 }
  action give(x: 0..me.coins, k: 0..x) { me.coins = 1 + (me.coins + x + k) % 5 }
  action bet(k: 0..me.coins * 10) { me.coins = 1 + (me.coins + k) % 5 }
  flow {
    repeat 40 times {
      choose by seat(1 + turn % 2) { spend, give, bet }
      turn += 1
    }
  }
  score(p) = p.coins
}
"""


def _game(tmp_path) -> Game:
    (tmp_path / "rules.metro").write_text(RULES)
    source = compile_game(str(tmp_path)).python
    # spend's rows in a list by a's position (its values are fixed), give's by x in a dict
    assert "ROWS_spend = [None] * 3" in source and "ROWS_give = {}" in source
    assert "_l.action_row(ROWS_spend, v_a, (v_a, ), _hi1" in source
    assert "ROWS_give.get((v_x, ))" in source
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
            for name in ("spend", "give", "bet"):
                getattr(module, f"A_{name}_legal")(state, mover, fast)
                getattr(module, f"A_{name}_legal_plain")(state, mover, plain)
            assert fast == plain and fast == state.legal_actions(mover)
            starts |= {action.args[1] - action.args[0] for action in fast if action.name == "spend"}
            state.apply(mover, rng.choice(fast))
    assert -2 in starts  # ranges starting below 0 were listed one by one
    # a = 0 and 1 start below 0: no row; a = 2 from 0 on: a row up to the largest k listed
    assert module.ROWS_spend[:2] == [None, None] and 3 <= len(module.ROWS_spend[2]) <= 8
    assert module.ROWS_give  # give's ranges start at 0
    # bet's rows stop at ROW_VALUES values: beyond, its actions come one by one
    assert module.ROWS_bet == [None] or len(module.ROWS_bet[0]) <= ROW_VALUES
