"""The stage `tabulate_listings` (compiler/tabulate.py): an aggregate over one parameter of an
action is computed once per value of that parameter, and the listing lists what the plain one does.
"""

from __future__ import annotations

import os
import shutil

import pytest

from compiler import compile_game
from compiler.expr import Display, Local, walk
from compiler.listing_shape import listing_loops
from runtime.machine import Game, compile_module, run_module
from tests.conftest import ROOT
from tests.test_stages import _same_play

ROADS = os.path.join(ROOT, "tests", "data", "tabulated", "roads.metro")

# `swap(r, s)`: the test of `s` holds an aggregate over `s` inside another one over `s`, and
# one over `r` and `s` together; `mark(r)` one over a parameter whose values are many.
RULES = """game "Tabulated" {
  players 2..2
  default map "roads.metro"
  max decisions 120

  map schema {
    kind road(length: 1..4)
  }

  state {
    owner: map road -> player? public
    current: player public
  }

  function longer(s: road) -> list of road =
    [t for t in road where t.length > s.length and owner[t] is none]

  action take(r: road where owner[r] is none) {
    owner[r] = me
  }

  action swap(
    r: road where owner[r] == me,
    s: road where owner[s] != me
      and sum(t.length for t in road where owner[t] is none and size(longer(s)) > t.length) > 2
      and count(t for t in road where t.length < r.length + s.length) > 0
  ) {
    owner[r] = none
    owner[s] = me
  }

  action drop(r: road where owner[r] == me) {
    owner[r] = none
  }

  flow {
    current = seat(1)
    repeat 20 times {
      choose by current { take, swap, drop }
      current = (seat(2) if current == seat(1) else seat(1))
    }
  }

  score(p) = count(r for r in road where owner[r] == p)
}
"""


@pytest.fixture(scope="module")
def game_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nested")
    shutil.copy(ROADS, folder / "roads.metro")
    (folder / "rules.metro").write_text(RULES, encoding="utf-8")
    return str(folder)


def _loaded(game_dir: str, without: tuple[str, ...] = ()) -> tuple[str, Game]:
    source = compile_game(game_dir, without=without).python
    name = "_".join(without) or "all"
    module = compile_module(source, f"<nested {name}>")
    return source, Game(run_module(module, f"<nested {name}>", f"nested_{name}"))


def test_only_the_largest_aggregate_over_one_parameter_is_tabulated(game_dir):
    module = compile_game(game_dir, stop_after="tabulate_listings").module
    swap = next(action for action in module.actions if action.name == "swap")
    _, (roads, others) = listing_loops(swap.legal.body)
    assert roads.loop.target.node == Local("v_r")  # many values before it: not tabulated
    row = others.loop.target.node
    assert isinstance(row, Display) and row.items[0] == Local("v_s")
    tables = {sub for sub in walk(others.loop.iterable.node) if isinstance(sub, Local)}
    # The sum over `s` is tabulated whole: the list of longer roads inside it is not apart.
    assert [local.id for local in row.items[1:]] == ["_e0"]
    assert "_e1" not in {local.id for local in tables}
    # The count reads `r` too: it stays in the test, computed for every pair.
    assert any(
        isinstance(sub, Local) and sub.id == "v_r"
        for sub in walk(others.test.branches[0].cond.node)
    )


def test_a_listing_with_aggregates_tabulated_lists_what_the_plain_one_does(game_dir):
    source, tabulated = _loaded(game_dir)
    assert "for v_s, _e0 in " in source
    _, plain = _loaded(game_dir, ("tabulate_listings",))
    assert sum(_same_play(tabulated, plain, 2, seed) for seed in range(6)) > 60


def test_tabulated_pairs_are_valid_python_without_hoisting(game_dir):
    # Without the hoisting stage the pairs are made where the loop starts, every time: the
    # names of the aggregates are all bound by the pairs' loop.
    source, unhoisted = _loaded(game_dir, ("hoist_listings",))
    assert "_e0" in source
    _, plain = _loaded(game_dir, ("tabulate_listings", "hoist_listings"))
    assert sum(_same_play(unhoisted, plain, 2, seed) for seed in range(6)) > 60
