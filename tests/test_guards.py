"""Guard tables (compiler/guards.py): the listings that walk them list exactly what the plain ones do."""

from __future__ import annotations

import os
import random

import pytest

from compiler import compile_game, lower_guards
from compiler.expr import BinOp, Const, Local, Name, Paren, Unary
from compiler.lower_guards import GuardTables, none_slot
from compiler.printer import py
from loader import load_game
from metro.analysis.playthrough import transcript
from runtime.errors import MetroRuntimeError
from tests.conftest import ROOT

GUARDS = os.path.join(ROOT, "tests", "data", "guards")


@pytest.fixture(scope="module")
def tables() -> dict:
    module = compile_game(GUARDS, stop_after="lower").module
    return {table.name: table for table in module.guard_tables}


def test_parts_fixed_by_the_map_become_tables(tables):
    assert set(tables) == {
        "G_1__r",
        "G_build__r__k0",
        "G_build__r",
        "G_build__c",
        "G_walk__r",
        "G_rest__n__k0",
        "G_rest__n__k1",
        "G_rest__n",
        "G_pair__r",
        "G_site2__lookout",
    }
    # c by r: a gray road (R2, R5) takes every colour, a coloured one its own.
    assert tables["G_build__c"].value == ((0,), (0, 1, 2), (2,), (1,), (0, 1, 2), (2,))
    # r by the slot of me.coins among the lengths 1..4: slot k holds the roads of length <= k.
    assert tables["G_build__r__k0"].value == (1, 2, 3, 4)
    assert tables["G_build__r"].value == (
        (),
        (0, 5),
        (0, 1, 3, 5),
        (0, 1, 2, 3, 5),
        (0, 1, 2, 3, 4, 5),
    )


def test_a_key_of_few_values_indexes_the_table_by_its_value(tables):
    # walk(r) by [me.at is not none][me.at]: none is the last slot.
    by_town = tables["G_walk__r"].value
    assert by_town[0] == ((),) * 5  # no town: nothing touches
    assert by_town[1] == ((0, 1, 2, 5), (0, 1, 2, 3), (3, 4), (4, 5), ())


def test_integer_keys_compared_either_way(tables):
    # rest(n in 1..5): n < debt + 2 (slot by bisect_left), coins - 4 <= n, not tired.
    cells = tables["G_rest__n"].value
    assert len(cells) == 6 and len(cells[0]) == 6 and len(cells[0][0]) == 2
    assert cells[1][0][True] == (1,)  # slot 1: debt + 2 in (1, 2], so n < 2
    assert cells[2][0][True] == (1, 2)  # slot 2: debt + 2 in (2, 3]
    assert cells[5][0][True] == (1, 2, 3, 4, 5)  # debt + 2 > 5, coins - 4 <= 1
    assert cells[5][3][True] == (4, 5)  # slot 3: coins - 4 in (3, 4], so n >= 4
    assert cells[5][5][True] == ()  # coins - 4 > 5
    assert cells[5][0][False] == ()  # tired


def _listing(python: str, name: str) -> str:
    listing = python[python.index(f"def {name}(") :]
    return listing[: listing.index("\n\n\n")]


def test_a_none_test_left_beside_a_table_walks_views_of_the_index():
    # The game's cells hold a few roads: walked as they are, their owners tested.
    plain = compile_game(GUARDS, stop_after="lower").module
    assert plain.views == [] and "S.v_owner" not in compile_game(GUARDS).python
    with pytest.MonkeyPatch.context() as patch:  # as if its cells held many roads
        patch.setattr(lower_guards, "VIEWED_KEYS", 1)
        module = compile_game(GUARDS, stop_after="lower").module
        python = compile_game(GUARDS).python
    (views,) = module.views
    assert views.index.field == "owner" and views.keys == 6
    assert views.cells[:5] == [(), (0, 5), (0, 1, 3, 5), (0, 1, 2, 3, 5), (0, 1, 2, 3, 4, 5)]
    tables = {table.name: table.value for table in module.guard_tables}
    assert tables["G_build__r"] == (0, 1, 2, 3, 4)  # the numbers of the cells' views
    # build: `open(r)` is left beside the table of `me.coins >= r.length`: the listing walks
    # the cell's roads whose owner is none, kept as the owners change, and tests no owner.
    build = _listing(python, "A_build_legal")
    assert "S.v_owner[" in build and "is None" not in build
    assert "S.v_owner[" in _listing(python, "site2_legal")  # a value choice's table too
    # pair: a conjunct that may fail comes before `open(r)`: the owner is tested as written.
    pair = _listing(python, "A_pair_legal")
    assert "S.v_owner" not in pair and "is None" in pair
    with pytest.MonkeyPatch.context() as patch:  # an index keeps at most MAX_VIEWS views
        patch.setattr(lower_guards, "VIEWED_KEYS", 1)
        patch.setattr(lower_guards, "MAX_VIEWS", 4)
        capped = compile_game(GUARDS, stop_after="lower").module
    # build's five cells would pass it; the lookout's one cell (roads longer than 1) does not
    assert [views.cells for views in capped.views] == [[(1, 2, 3, 4)]]


def test_a_part_that_fails_while_compiling_stays_in_the_guard(tables):
    assert tables["G_pair__r"].value == (1, 2)  # only `r.twin is not none` moved
    python = compile_game(GUARDS).python
    listing = python[python.index("def A_pair_legal(") :]
    listing = listing[: listing.index("\n\n\n")]
    assert "K_road__length[K_road__twin[v_r]] > 1" in listing


def listings(game, state, player):
    """(optimised, plain) listing of every action for `player`: its actions or the error raised."""
    module = game.module
    out = []
    for name in module.ACTION_FRAMES:
        results = []
        for function in (
            getattr(module, f"A_{name}_legal"),
            getattr(module, f"A_{name}_legal_plain"),
        ):
            listed = []
            try:
                function(state, player, listed)
            except Exception as error:  # noqa: BLE001 - both versions must fail alike
                listed = type(error).__name__
            results.append(listed)
        out.append((name, *results))
    return out


def play_and_compare(game, players: int, seed: int) -> int:
    """Play one random game, comparing both listings for every player at every position."""
    rng = random.Random(seed)
    state = game.new_game(players, seed)
    checked = 0
    while state.to_move:
        for player in range(players):
            for name, fast, plain in listings(game, state, player):
                assert fast == plain, (name, player, len(state.history))
                checked += 1
        mover = state.to_move[0]
        state.apply(mover, rng.choice(state.legal_actions(mover)))
    return checked


@pytest.mark.parametrize("seed", range(8))
def test_tables_list_what_the_plain_listing_lists(seed):
    assert play_and_compare(load_game(GUARDS), 2 + seed % 2, seed) > 100


@pytest.mark.parametrize(
    "config",
    [
        ("ticket_to_ride", ()),
        ("tokyo_metro", ()),
        ("tokyo_metro", ("osaka",)),
        ("tokyo_metro", ("drinks",)),
        ("tokyo_jutaku", ()),
        ("izakaya", ()),
        ("shopping_centre", ()),
        ("jidohanbaiki", ()),
        ("tokyo_jutaku", ("bottle_bonus",)),
    ],
    ids=lambda c: "+".join([c[0], *c[1]]),
)
def test_shipped_games_list_the_same_with_their_tables(config):
    name, expansions = config
    game = load_game(os.path.join(ROOT, "games", name), expansions=expansions)
    assert play_and_compare(game, 3, 1) > 100


def test_a_guard_that_may_fail_keeps_the_parts_after_it_in_place(tmp_path):
    # `6 / (r.length - 2)` fails for roads of length 2; the plain listing fails there, so the
    # fixed part after it (`r.length > 2`) must not become a table that skips those roads.
    (tmp_path / "rules.metro").write_text(
        'game "Fails" {\n  players 2..2\n  default map "m.metro"\n'
        "  map schema { kind road(length: 1..4) }\n"
        "  action odd(r: road where 6 / (r.length - 2) > 0 and r.length > 2) { }\n"
        "  flow { choose by seat(1) { odd } }\n}\n"
    )
    (tmp_path / "m.metro").write_text('map "M" for "Fails" {\n  road R1(3)\n  road R2(2)\n}\n')
    assert compile_game(str(tmp_path), stop_after="lower").module.guard_tables == []
    with pytest.raises(MetroRuntimeError, match="division by zero"):
        load_game(str(tmp_path)).new_game(2, 1)


def test_a_walk_keyed_by_a_parameter_that_may_hold_none(tables):
    # roads_from(t: town) is called with me.at (a town or none): none gets a slot of its own.
    assert tables["G_1__r"].value == ((1, 2), (3,), (4,), (), ())


@pytest.mark.parametrize(
    ("path", "seeds"), [(GUARDS, 4), (os.path.join(ROOT, "games", "tokyo_metro"), 2)]
)
def test_a_game_plays_the_same_without_its_tables(path, seeds, monkeypatch):
    with_tables = load_game(path, use_cache=False)
    monkeypatch.setattr(GuardTables, "enabled", False)
    without = load_game(path, use_cache=False)
    assert not [name for name in vars(without.module) if name.startswith("G_")]
    for seed in range(seeds):
        assert transcript(with_tables, 3, seed, "random") == transcript(without, 3, seed, "random")


def test_a_constant_key_that_may_be_none_is_resolved_when_compiling():
    # a written-out aggregate gives a table keyed by a value that may be none a literal key:
    # `0 is None` would make Python warn (an error under -W error) when the module compiles
    assert none_slot(Paren(Const(3))) == Const(3)
    assert none_slot(Paren(Paren(Const(None)))) == Const(-1)
    assert none_slot(Paren(Unary("-", Const(2)))) == Unary("-", Const(2))
    assert py(none_slot(Paren(Local("v_c")))) == "(-1 if (v_c) is None else (v_c))"
    total = BinOp(Paren(Name("a")), "+", Paren(Name("b")))
    assert py(none_slot(total)) == "(-1 if (a) + (b) is None else (a) + (b))"
