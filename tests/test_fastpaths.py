"""Speed mechanisms that must not change what a game does: memoised actions, cheaper frames."""

from __future__ import annotations

import itertools
import math
import os
import random

import hypothesis.strategies as st
import pytest
from hypothesis import given

from compiler import compile_game, generate_python
from compiler.entries import in_entry
from compiler.expr import (
    Attr,
    BinOp,
    Call,
    Comp,
    Const,
    For,
    FrameLocal,
    Index,
    Local,
    Name,
    Paren,
    StateField,
    call,
)
from compiler.names import names_of
from compiler.printer import ir_expr
from compiler.shared_listings import canonical
from loader import load_game
from runtime import lib
from runtime.machine import Game, compile_module, run_module
from tests.conftest import ROOT
from tests.test_guards import play_and_compare


def test_a_memoised_action_is_built_once_and_equals_a_fresh_one():
    game = load_game(os.path.join(ROOT, "games", "ticket_to_ride"))
    # claim_route's actions come from rows: by route and colour, the actions of 0, 1, …
    # locomotives (compiler/lower_listings.py action_row)
    rows = game.module.ROWS_claim_route
    rows[:] = [None] * len(rows)
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
    colours = len(rows) // len(game.module.K_route__length)  # rows by route and colour
    for action in listed:
        route, colour, locomotives = action.args
        assert rows[route * colours + colour][locomotives] is action
    assert sum(1 for row in rows if row) == len({a.args[:2] for a in listed})


def test_a_choice_among_few_values_is_listed_from_actions_built_once():
    game = load_game(os.path.join(ROOT, "games", "tokyo_metro"))
    table = game.module.ACTIONS_first_square  # a square: one of the map's squares
    state = game.new_game(2, 1)
    while state.to_move and state.legal_actions(state.to_move[0])[0].name != "first_square":
        mover = state.to_move[0]
        state.apply_legal(mover, state.legal_actions(mover)[0])
    mover = state.to_move[0]
    listed = state.legal_actions(mover)
    plain = getattr(game.module, f"site{state.site}_legal_plain")(state, state.stack[-1], mover)
    assert listed == plain and len(listed) > 100
    assert all(a is table[a.args[0]] for a in listed)  # looked up, not built
    assert not hasattr(game.module, "MEMO_first_square")


def test_an_action_memo_starts_again_at_its_limit(monkeypatch):
    monkeypatch.setattr(lib, "ACTION_MEMO_LIMIT", 2)
    memo: dict = {}
    first = lib.new_action(memo, 3, "take", (1,), ())
    lib.new_action(memo, 3, "take", (2,), ())
    assert len(memo) == 2 and memo[(1,)] is first
    third = lib.new_action(memo, 3, "take", (3,), ())
    assert memo == {(3,): third}
    assert third == (3, "take", (3,), ()) and third.name == "take"


def test_an_entry_rebuilds_an_expression_node_with_its_frame_locals_as_variables():
    ret = Attr(Name("F"), "ret")
    node = ir_expr(BinOp(FrameLocal("p"), "+", Index(FrameLocal("xs"), ret)))
    assert in_entry(node).code == "l_p + l_xs[_ret]"
    assert names_of(node).frame_locals == ("p", "xs") and names_of(node).reads_ret
    plain = ir_expr(BinOp(Local("v_a"), "+", Const(1)))
    assert in_entry(plain) is plain
    with pytest.raises(AssertionError, match="cannot use the frame"):
        in_entry(ir_expr(Call(Name("site4_legal"), (Name("S"), Name("F"), FrameLocal("me")))))
    # text that only looks like a frame local (in a string) stays as it is
    said = ir_expr(Call(Name("say"), (Const("L['p'] F.pc"), FrameLocal("q"))))
    assert in_entry(said).code == "say(\"L['p'] F.pc\", l_q)"


def positions(game, players: int, seed: int, chance: str = "seeded"):
    """Every position of a random game as its JSON, with each player's legal list there; the
    game goes on now and then from a save or a clone, by `apply` or the bots' `apply_legal`."""
    rng = random.Random(seed)
    state = game.new_game(players, seed, chance=chance)
    while state.to_move:
        mover = state.to_move[0]
        if mover < 0:  # an explicit chance node
            outcomes = state.chance_outcomes()
            state.apply_chance(outcomes[rng.randrange(len(outcomes))][0])
            continue
        lists = [[a.id for a in state.legal_actions(p)] for p in range(players)]
        yield state.to_json(), lists
        way = rng.random()
        if way < 0.1:
            state = state.game.state_from_json(state.to_json())
        elif way < 0.2:
            state = state.clone()
        acts = state.legal_actions(mover)
        if chance == "explicit" or rng.random() < 0.5:  # (apply_legal has no chance steps)
            state.apply(mover, acts[rng.randrange(len(acts))])
        else:
            state.apply_legal(mover, acts[rng.randrange(len(acts))])
    yield state.to_json(), []


def _compiled(path: str, expansions: tuple[str, ...], without: tuple[str, ...] = ()) -> Game:
    """The game compiled without the optimisation stages `without` names (compiler/driver.py)."""
    source = compile_game(path, expansions, without=without).python
    name = "_".join(without) or "all"
    return Game(run_module(compile_module(source, f"<{name}>"), f"<{name}>", f"fastpaths_{name}"))


@pytest.mark.parametrize(
    ("path", "expansions", "players", "chance"),
    [
        (os.path.join("games", "tokyo_metro"), (), 3, "seeded"),
        (os.path.join("games", "tokyo_metro"), ("osaka",), 3, "seeded"),
        (os.path.join("games", "tokyo_metro"), (), 3, "explicit"),
        (os.path.join("games", "tokyo_jutaku"), (), 3, "recorded"),
        # every way an entry makes its frame: at a decision, under a callee that waits (one
        # with an entry and one without), and where an empty menu's `else` goes on in the frame
        (os.path.join("tests", "data", "entries"), (), 2, "seeded"),
    ],
)
def test_frameless_entries_leave_every_position_as_it_was(path, expansions, players, chance):
    path = os.path.join(ROOT, path)
    entered = _compiled(path, expansions)
    assert any(n.endswith("_enter") for n in vars(entered.module))
    framed = _compiled(path, expansions, without=("frameless_entries",))
    assert not any(n.endswith("_enter") for n in vars(framed.module))
    for seed in range(2 if "games" in path else 12):
        got = positions(entered, players, seed, chance)
        want = positions(framed, players, seed, chance)
        for step, (a, b) in enumerate(zip(got, want, strict=True)):
            assert a == b, (path, seed, step)


def test_the_entries_test_game_makes_frames_every_way():
    source = generate_python(os.path.join(ROOT, "tests", "data", "entries"), (), ())
    assert "_l.run_on(S, s_maybe__0, F)" in source  # an empty menu's `else`, in the frame
    assert "_r = s_inner__0_enter(S, " in source  # an entry calls an entry
    assert "_s = s_always__0(S, _f)" in source  # an entry calls a procedure without one


def test_an_aggregate_over_values_listed_once_is_computed_once_per_value(monkeypatch):
    # `trade(r, give)` tests `total(give) >= r.length`: the sum depends on `give` alone, whose
    # values (the subsets of the player's roads) are computed once per listing.
    path = os.path.join(ROOT, "tests", "data", "tabulated")
    listing = generate_python(path).split("def A_trade_legal(")[1].split("\ndef ")[0]
    assert "for v_give, _e0 in " in listing and "for v_give in _h" in listing
    game = load_game(path)
    with open(os.path.join(path, "rules.metro"), encoding="utf-8") as rules:
        total_line = next(n for n, text in enumerate(rules, 1) if "function total" in text)
    sums = []
    walk = lib.each

    def counted(state, items, at, weight=1):
        if at[1] == total_line:  # the walk of `total` (at is file, line, column)
            sums.append(items)
        return walk(state, items, at, weight)

    monkeypatch.setattr(lib, "each", counted)
    rng = random.Random(5)
    state = game.new_game(2, 5)
    checked = 0
    while state.to_move:
        mover = state.to_move[0]
        for player in range(2):
            sums.clear()
            fast = []
            game.module.A_trade_legal(state, player, fast)
            once = list(sums)
            plain = []
            game.module.A_trade_legal_plain(state, player, plain)
            assert fast == plain
            roads = sum(1 for owner in state.g_owner if owner == player)
            if once:  # each subset of the player's roads summed once, the empty one too
                assert len(once) == 2**roads
                checked += len(plain) > 1
        state.apply_legal(mover, rng.choice(state.legal_actions(mover)))
    assert checked > 5


def test_an_aggregate_over_a_few_fixed_values_is_tabulated_and_lists_the_same():
    # `shorten(r, s)` tests a walk over the roads that depends on `s` alone: one table over
    # the five roads, made the first time the loop over `s` is reached.
    path = os.path.join(ROOT, "tests", "data", "tabulated")
    listing = generate_python(path).split("def A_shorten_legal(")[1].split("\ndef ")[0]
    flat = " ".join(line.strip() for line in listing.splitlines())  # long lines are broken
    assert "for v_s in range(5) ]" in flat and "for v_s, _e0 in " in flat
    game = load_game(path)
    assert sum(play_and_compare(game, 2, seed) for seed in range(6)) > 300


def test_a_fixed_attribute_read_inside_an_inner_loop_is_read_once_per_value():
    # `deposit(r, n)` reads `r.length` for its amounts and in their test: once for each road,
    # after the road's own test, into a local that the loop over the amounts reads.
    path = os.path.join(ROOT, "tests", "data", "tabulated")
    listing = generate_python(path).split("def A_deposit_legal(")[1].split("\ndef ")[0]
    road_loop, amounts = listing.split("for v_n in ")
    assert "_a0 = K_road__length[v_r]" in road_loop
    assert road_loop.count("K_road__length[") == 1 and "K_road__length[" not in amounts
    assert "_a0" in amounts
    game = load_game(path)
    assert sum(play_and_compare(game, 2, seed) for seed in range(6)) > 300


@given(
    items=st.lists(st.integers(0, 4), max_size=6),
    lo=st.integers(-1, 4),
    hi=st.integers(-1, 7),
)
def test_subsets_are_the_distinct_sorted_combinations_and_charge_their_upper_bound(items, lo, hi):
    values = sorted(items)
    sizes = range(max(lo, 0), min(hi, len(values)) + 1)
    expected = sorted({c for size in sizes for c in itertools.combinations(values, size)})
    budget = lib.LabelScope()  # a step counter, as the helpers charge it
    assert lib.subsets(budget, items, lo, hi, ("f", 1, 1), 3) == expected
    assert budget._iters == 3 * sum(math.comb(len(values), size) for size in sizes)


def test_a_called_function_of_a_later_parameter_is_computed_once_per_value(monkeypatch):
    # `pay(r, s)` tests `me.coins >= toll(s)`, a test of `s` alone: the listing keeps the roads
    # that pass it, with their tolls, once, however many roads `r` walks.
    path = os.path.join(ROOT, "tests", "data", "tabulated")
    listing = generate_python(path).split("def A_pay_legal(")[1].split("\ndef ")[0]
    assert "f_toll__0(S, v_s)) for v_s in range(5)]" in listing
    game = load_game(path)
    calls = []
    toll = game.module.f_toll__0
    monkeypatch.setattr(game.module, "f_toll__0", lambda S, r: calls.append(r) or toll(S, r))
    rng = random.Random(2)
    state = game.new_game(2, 2)
    owners_seen = set()
    while state.to_move:
        mover = state.to_move[0]
        calls.clear()
        fast = []
        game.module.A_pay_legal(state, mover, fast)
        owned = sum(1 for owner in state.g_owner if owner == mover)
        assert calls == ([0, 1, 2, 3, 4] if owned else [])  # each road once, if any is owned
        plain = []
        game.module.A_pay_legal_plain(state, mover, plain)
        assert fast == plain
        owners_seen.add(owned)
        state.apply_legal(mover, rng.choice(state.legal_actions(mover)))
    assert max(owners_seen) >= 2


def test_listings_of_one_menu_share_the_costly_values_they_compute_alike(monkeypatch):
    # `trade` and `sell` both walk the subsets of the player's roads with their totals: the
    # menu's listing makes them once and passes them on; each listing alone still makes them.
    path = os.path.join(ROOT, "tests", "data", "tabulated")
    source = generate_python(path)
    menu = source.split("def site0_legal(")[1].split("\ndef ")[0]
    assert "A_trade_legal(S, me, out, _shared)" in menu
    assert "A_sell_legal(S, me, out, _shared)" in menu
    assert "A_grab_legal(S, me, out)" in menu  # computes nothing another listing does
    game = load_game(path)
    made = []
    subsets = lib.subsets
    monkeypatch.setattr(lib, "subsets", lambda *args: made.append(args[1]) or subsets(*args))
    rng = random.Random(4)
    state = game.new_game(2, 4)
    shared_once = 0
    while state.to_move:
        mover = state.to_move[0]
        made.clear()
        listed = game.module.site0_legal(state, state.stack[-1], mover)
        by_menu = len(made)
        made.clear()
        alone = []
        for name in ("grab", "trade", "sell", "shorten", "pay", "take_shown", "deposit", "earn"):
            getattr(game.module, f"A_{name}_legal")(state, mover, alone)
        assert listed == alone
        assert by_menu <= 1 and len(made) >= by_menu  # the menu makes them at most once
        shared_once += by_menu == 1 and len(made) == 2  # where both listings alone make them
        state.apply_legal(mover, rng.choice(state.legal_actions(mover)))
    assert shared_once > 5


def test_a_value_found_in_any_of_several_collections_is_looked_up_in_their_set():
    # `any(r in shown[s] for s in Side)`: the set of every side's roads, made once per listing.
    path = os.path.join(ROOT, "tests", "data", "tabulated")
    listing = generate_python(path).split("def A_take_shown_legal(")[1].split("\ndef ")[0]
    assert "{_item for v_s in range(2) for _item in " in listing
    assert "(v_r in _h" in listing and "shown[0]" not in listing
    game = load_game(path)
    assert sum(play_and_compare(game, 2, seed) for seed in range(6, 12)) > 300


def test_shared_values_are_keyed_by_what_they_compute_not_by_their_names():
    def column_items(var: str, count: int, grouped: bool) -> Comp:
        # {_item for v in range(count) for _item in (S.g_column)[v]}
        item, local = Local("_item"), Local(var)
        column = Paren(StateField("g_column")) if grouped else StateField("g_column")
        clauses = (For(local, call("range", Const(count))), For(item, Index(column, local)))
        return Comp("set", item, clauses)

    first, second = column_items("v_d_t9", 6, True), column_items("v_d_t51", 6, False)
    other = column_items("v_d_t51", 5, True)
    assert canonical(first) == canonical(second) != canonical(other)
