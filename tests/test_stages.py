"""The compiler's stages: the IR after any of them, and each optimisation stage tested alone.

An optimisation stage only makes the module faster: compiled without it, every game plays
the same (the same legal actions for every player at every position, the same scores).
"""

from __future__ import annotations

import os
import random
import warnings

import pytest

from compiler import compile_game, ir
from compiler.driver import OPTIMISATIONS, STAGES
from compiler.expr import (
    BinOp,
    Comp,
    Cond,
    Const,
    For,
    Hoisted,
    Local,
    Paren,
    substitute_free,
    walk,
)
from compiler.ir_text import ir_text
from runtime.machine import Game, compile_module, run_module
from tests.conftest import ROOT

# A game whose optimisations all have something to do (its menu's listings share values).
GAME = os.path.join(ROOT, "tests", "data", "tabulated")
# The game a stage is tested on when the one above gives it nothing to do.
GAMES = {
    "frameless_entries": os.path.join(ROOT, "tests", "data", "entries"),
    "inline_helpers": os.path.join(ROOT, "tests", "data", "guards"),  # it adds to a bag
    "fold_constants": os.path.join(ROOT, "tests", "data", "folded"),
}


def _game(without: tuple[str, ...] = (), game: str = GAME):
    source = compile_game(game, without=without).python
    name = "_".join(without) or "plain"
    return source, Game(
        run_module(compile_module(source, f"<{name}>"), f"<{name}>", f"stages_{name}")
    )


def _moves(state, player: int) -> list[tuple]:
    """A player's legal actions as (rank, name, arguments): each module has its own descriptors."""
    return [action[:3] for action in state.legal_actions(player)]


def _same_play(first, second, players: int, seed: int) -> int:
    """Play one random game on both, comparing every player's legal actions; positions seen."""
    rng = random.Random(seed)
    one, other = first.new_game(players, seed), second.new_game(players, seed)
    seen = 0
    while one.to_move:
        assert one.to_move == other.to_move
        for player in range(players):
            assert _moves(one, player) == _moves(other, player)
        mover = one.to_move[0]
        choice = rng.randrange(len(one.legal_actions(mover)))  # the same move in both modules
        one.apply(mover, one.legal_actions(mover)[choice])
        other.apply(mover, other.legal_actions(mover)[choice])
        seen += 1
    assert not other.to_move and one.scores() == other.scores()
    return seen


@pytest.mark.parametrize("stage", sorted(OPTIMISATIONS))
def test_each_optimisation_alone_leaves_every_game_as_it_was(stage):
    game = GAMES.get(stage, GAME)
    plain_source, plain = _game(game=game)
    source, without = _game((stage,), game)
    assert source != plain_source  # the stage did something to this game
    assert sum(_same_play(plain, without, 2, seed) for seed in range(4)) > 50


def test_the_ir_after_a_stage_is_what_that_stage_leaves():
    lowered = compile_game(GAME, stop_after="lower")
    shared = compile_game(GAME, stop_after="share_listings")
    assert lowered.python is None and shared.python is None
    assert "_shared" not in ir_text(lowered.module) and "_shared" in ir_text(shared.module)
    assert "A_trade_legal" in ir_text(lowered.module)


def test_only_optimisation_stages_may_be_left_out():
    assert {name for name, _ in STAGES} >= OPTIMISATIONS
    with pytest.raises(ValueError, match="lower"):
        compile_game(GAME, without=("lower",))


def test_the_step_weights_are_a_stage_of_their_own_before_lowering():
    names = [name for name, _ in STAGES]
    assert names.index("validate_maps") < names.index("weigh_steps") < names.index("lower")
    weighed = compile_game(GAME, stop_after="weigh_steps")
    assert weighed.module is None and weighed.costs is not None
    # Every procedure and function of the rules is weighed, before anything is lowered.
    program = weighed.program
    assert set(weighed.costs.bodies) == set(program.procedures) | set(program.functions)
    with pytest.raises(ValueError, match="weigh_steps"):
        compile_game(GAME, without=("weigh_steps",))


# Calls and aggregates each stage rewrites, or leaves past its limits.
SMALL = """game "Small" {
  players 2..2
  enum Color { red blue green }
  enum Wide { w0 w1 w2 w3 w4 w5 w6 w7 w8 }
  state { total: int public = 0 }
  function double(x: int) -> int = x * 2
  function bright(c: Color) -> bool = c != red
  function a1(x: int) -> int = a2(x) + 1
  function a2(x: int) -> int = a3(x) + 1
  function a3(x: int) -> int = a4(x) + 1
  function a4(x: int) -> int = a5(x) + 1
  function a5(x: int) -> int = a6(x) + 1
  function a6(x: int) -> int = x
  procedure tally() {
    total += double(total)
    total += double(total + 1)
    if any(bright(c) for c in Color) { total += 1 }
    if any(w == w8 for w in Wide) { total += 1 }
    total += a1(total)
  }
  flow {
    tally()
    end game
  }
  score(p) = total
}
"""


def _tally(tmp_path, stop_after: str) -> list[str]:
    """The expressions of the procedure `tally` after the stage `stop_after`."""
    (tmp_path / "rules.metro").write_text(SMALL)
    module = compile_game(str(tmp_path), stop_after=stop_after).module
    (tally,) = [f for f in module.functions if f.name == "p_tally__0"]
    return [x.bare() for x in ir.expressions(tally.body)]


def test_the_stages_after_lowering_inline_then_tabulate_then_unroll():
    # Tabulation must see the inlined bodies' aggregates, before unrolling writes some out.
    names = [name for name, _ in STAGES]
    after = ["inline_functions", "tabulate_listings", "unroll_aggregates"]
    assert names[names.index("lower") + 1 :][:3] == after


def test_lowering_leaves_calls_and_aggregates_to_the_stages(tmp_path):
    codes = _tally(tmp_path, "lower")
    assert "_l.int_ok(S.g_total + f_double__0(S, S.g_total))" in codes
    assert "any(f_bright__0(S, v_c) for v_c in range(3))" in codes


def test_a_small_function_is_inlined_within_the_limits(tmp_path):
    codes = _tally(tmp_path, "inline_functions")
    assert "_l.int_ok(S.g_total + (S.g_total * 2))" in codes
    assert "_l.int_ok(S.g_total + f_double__0(S, (S.g_total + 1)))" in codes  # not a name
    assert "any((v_c != E_Color__red) for v_c in range(3))" in codes
    # Five calls inlined inside one another, the sixth kept.
    chain = "_l.int_ok(S.g_total + (((((f_a6__0(S, S.g_total) + 1) + 1) + 1) + 1) + 1))"
    assert chain in codes


def test_an_aggregate_over_a_few_values_is_written_out(tmp_path):
    codes = _tally(tmp_path, "unroll_aggregates")
    assert "(0 != E_Color__red) or (1 != E_Color__red) or (2 != E_Color__red)" in codes
    assert "any((v_w == E_Wide__w8) for v_w in range(9))" in codes  # more than UNROLL values


def test_a_comprehension_s_own_variable_is_not_substituted():
    v, xs = Local("v_c"), Local("v_xs")
    own = Comp("list", v, (For(v, BinOp(xs, "+", v)),))  # its walk reads the outer `v_c`
    replaced = substitute_free(BinOp(v, "in", own), {v: Const(1)})
    assert replaced == BinOp(Const(1), "in", Comp("list", v, (For(v, BinOp(xs, "+", Const(1))),)))


def test_a_constant_put_in_for_a_local_decides_its_tests_against_none():
    v = Local("v_c")
    slot = Paren(Cond(Const(-1), Paren(BinOp(v, "is", Const(None))), v))  # an index's slot
    assert substitute_free(slot, {v: Const(0)}) == Paren(Const(0))
    assert substitute_free(slot, {v: Const(None)}) == Paren(Const(-1))
    assert substitute_free(BinOp(v, "is not", Const(None)), {v: Const(3)}) == Const(True)
    assert substitute_free(slot, {v: Local("v_d")}) == Paren(
        Cond(Const(-1), Paren(BinOp(Local("v_d"), "is", Const(None))), Local("v_d"))
    )


def test_the_unrolled_scenarios_compile_without_warnings():
    ctx = compile_game(os.path.join(ROOT, "games", "tokyo_metro"), ("drinks",))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # `0 is None` would be a SyntaxWarning
        for text in (ctx.python, ctx.scenarios_python):
            compile(text, "tokyo_metro+drinks", "exec")


def test_hoisting_is_an_optimisation_stage_after_inlining_unrolling_and_folding():
    names = [name for name, _ in STAGES]
    assert "hoist_listings" in OPTIMISATIONS
    # Folding computes what unrolling wrote out of constants, before hoisting sees it.
    assert names.index("fold_constants") == names.index("unroll_aggregates") + 1
    assert names.index("hoist_listings") == names.index("fold_constants") + 1
    assert names.index("bind_attributes") == names.index("hoist_listings") + 1


def _aliases(module: ir.Module) -> set[Hoisted]:
    """Every alias the listings of a module read."""
    listings = [f for a in module.actions for f in (a.legal, a.legal_plain)]
    listings += [f for s in module.sites for f in (s.legal, s.legal_plain) if f is not None]
    return {
        node
        for function in listings
        for code in ir.expressions(function.body)
        if code.node is not None
        for node in walk(code.node)
        if isinstance(node, Hoisted)
    }


def test_lowering_hoists_nothing_the_hoisting_stage_does():
    assert not _aliases(compile_game(GAME, stop_after="lower").module)
    assert _aliases(compile_game(GAME, stop_after="hoist_listings").module)


def test_the_hoisting_stage_alone_plays_as_the_module_without_optimisations():
    plain_source, plain = _game(tuple(sorted(OPTIMISATIONS)))
    source, hoisted = _game(tuple(sorted(OPTIMISATIONS - {"hoist_listings"})))
    assert "_h0 = " in source and "_h0" not in plain_source
    assert sum(_same_play(plain, hoisted, 2, seed) for seed in range(4)) > 50


HOISTED = """game "Hoist" {
  players 2..2
  state { limit: int public = 2  items: list of int public = [1, 2, 3] }
  action take(
    a: 0..5 where a != limit,
    b: 0..5 where b < size([x for x in items where x > a]) and b < size([y for y in items where y > limit])
  ) { limit = a }
  flow { choose by seat(1) { take } }
}
"""


def test_a_value_that_reads_a_loop_value_is_not_hoisted_one_that_reads_none_is(tmp_path):
    (tmp_path / "rules.metro").write_text(HOISTED)
    (action,) = compile_game(str(tmp_path), stop_after="hoist_listings").module.actions
    computed = {
        stmt.value.code
        for stmt in ir.statements(action.legal.body)
        if isinstance(stmt, ir.Assign) and isinstance(stmt.target.node, Hoisted)
    }
    # `limit`, and the `y` that `limit` alone decides, are computed once
    assert "S.g_limit" in computed
    assert any(code.startswith("[v_y for v_y in") for code in computed)
    # the `x` that each `a` decides is computed for each `a`, reading `items` computed once
    assert not any("v_x" in code for code in computed) and "S.g_items" in computed
    test = action.legal.body[-1].body[-1].body[0].branches[0].cond.code
    assert "[v_x for v_x in _l.each(S, _h1, " in test and "(v_x > v_a)" in test
