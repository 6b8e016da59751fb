"""Stage `fold_constants`: parts computed from the rules' constants alone are written as values."""

from __future__ import annotations

import os

from compiler import compile_game
from compiler.expr import BinOp, Call, Comp, Cond, Const, For, Helper, Index, Local, Name, Paren
from compiler.fold_constants import Folder
from tests.conftest import ROOT

FOLDED = os.path.join(ROOT, "tests", "data", "folded")


def _function(source: str, name: str) -> str:
    """The text of one generated function."""
    start = source.index(f"def {name}(")
    return source[start : source.index("\n\n", start)]


def test_functions_of_constants_are_computed_while_compiling():
    folded = compile_game(FOLDED).python
    plain = compile_game(FOLDED, without=("fold_constants",)).python
    # max(size(ROWS[r]) for r in 0..2): the longest row, 3
    assert "_l.greatest(len(C_ROWS" in _function(plain, "f_longest__0")
    assert _function(folded, "f_longest__0").endswith("return 3")
    # a conditional on a constant keeps the branch it takes
    assert "C_SETUP_SEATS > 0" in _function(plain, "f_seats__0")
    assert _function(folded, "f_seats__0").endswith("return S.n")
    # inlined into another function: 3 * STEP computed, the player count left to the game
    assert "(6 + S.n) - S.g_turns" in _function(folded, "f_room__0")
    assert "C_ROWS" not in _function(folded, "estimate")


def test_what_would_fail_is_left_to_fail_when_the_game_runs():
    folder = Folder({"C_ROWS": [[1, 2], []], "C_ZERO": 0}, {})
    out_of_range = Index(Name("C_ROWS"), Const(5))
    by_zero = BinOp(Const(4), "//", Name("C_ZERO"))
    row = Local("v_r")
    empty_max = Call(
        Helper("_l", "greatest"),
        (Comp("gen", Local("v_x"), (For(Local("v_x"), Index(Name("C_ROWS"), Const(1))),)),),
    )
    for node in (out_of_range, by_zero, empty_max):
        assert folder.fold(node) is node
    # the same walks over values that exist are computed
    longest = Call(
        Helper("_l", "greatest"),
        (
            Comp(
                "gen", Call(Name("len"), (Index(Name("C_ROWS"), row),)), (For(row, Const((0, 1))),)
            ),
        ),
    )
    assert folder.fold(longest) == Const(2)
    # a read of the state is never folded; a known test picks its branch
    test = Cond(Local("v_a"), BinOp(Name("C_ZERO"), ">", Const(0)), Local("v_b"))
    assert folder.fold(test) == Paren(Local("v_b"))
    assert folder.fold(BinOp(Name("S"), "+", Const(1))) == BinOp(Name("S"), "+", Const(1))


def test_folding_never_builds_or_walks_a_large_value():
    folder = Folder({"C_ROW": [0], "C_BIG": 10**9}, {})
    # a list times a number is left as written (it would be built while compiling)
    repeated = BinOp(Name("C_ROW"), "*", Name("C_BIG"))
    assert folder.fold(repeated) is repeated
    # a walk over more than FOLD_STEPS values is left to the game (and its step budget)
    endless = Call(Name("sum"), (Call(Name("range"), (Name("C_BIG"),)),))
    assert folder.fold(endless) is endless
    assert folder.fold(Call(Name("len"), (Call(Name("range"), (Name("C_BIG"),)),))) == Const(10**9)


def test_a_known_value_tested_against_none_is_decided():
    # `C_ROWS[0] is None` would read `1 is None` once folded, which Python warns at
    folder = Folder({"C_ROWS": [1, None]}, {})
    assert folder.fold(BinOp(Index(Name("C_ROWS"), Const(0)), "is", Const(None))) == Const(False)
    assert folder.fold(BinOp(Index(Name("C_ROWS"), Const(1)), "is", Const(None))) == Const(True)
    unknown = BinOp(Local("v_x"), "is not", Const(None))
    assert folder.fold(unknown) is unknown
