"""The compiler's stages: the IR after any of them, and each optimisation stage tested alone.

An optimisation stage only makes the module faster: compiled without it, every game plays
the same (the same legal actions for every player at every position, the same scores).
"""

from __future__ import annotations

import os
import random

import pytest

from compiler import compile_game
from compiler.driver import OPTIMISATIONS, STAGES
from compiler.ir_text import ir_text
from runtime.machine import Game, compile_module, run_module
from tests.conftest import ROOT

# A game whose optimisations all have something to do (its menu's listings share values).
GAME = os.path.join(ROOT, "tests", "data", "tabulated")
# The game a stage is tested on when the one above gives it nothing to do.
GAMES = {"frameless_entries": os.path.join(ROOT, "tests", "data", "entries")}


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
