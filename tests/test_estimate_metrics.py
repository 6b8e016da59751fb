"""`estimate(p) = …` and `metric "name"(p) = …`: parsed, checked, patched, compiled and evaluated."""

from __future__ import annotations

import os

import networkx as nx
import pytest

from compiler.check import check
from compiler.resolve import resolve
from dsl.diagnostics import CompileError, Diagnostics
from loader import load_game
from runtime.graph import path_cost
from tests.conftest import ROOT, game_dirs

GAME = """\
game "Tally" {
  players 2..3
  state { deck: list of int hidden = [1, 2, 3] }
  per player {
    points: int public
    hand: list of int owner
    done: bool public
  }
  action gain(k in [1, 2]) { me.points += k }
  flow {
    for p in players { add(p.hand, seat_number(p)) }
    repeat 2 times { for p in players { choose by p { gain } } }
    seat(1).done = true
  }
  score(p) = p.points
  rank p by p.points desc
  estimate(p) = 10 * p.points + sum(p.hand)
  metric "points"(p) = p.points
  metric "finished"(p) = p.done
}
"""


def _write(folder, text: str, variants: dict[str, str] | None = None) -> str:
    (folder / "rules.metro").write_text(text, encoding="utf-8")
    for name, body in (variants or {}).items():
        (folder / "variants").mkdir(exist_ok=True)
        (folder / "variants" / f"{name}.metro").write_text(body, encoding="utf-8")
    return str(folder)


def _errors(tmp_path, text: str) -> list[tuple[str, str]]:
    diags = Diagnostics()
    check(resolve(_write(tmp_path, text)), diags)
    return [(d.code.code, d.message) for d in diags.items]


def test_the_estimate_and_metrics_are_evaluated_per_player(tmp_path):
    game = load_game(_write(tmp_path, GAME), use_cache=False)
    assert game.has_estimate
    assert game.metric_names == ["points", "finished"]
    state = game.new_game(2, 1)
    state.apply(0, "gain(2)")
    assert state.estimates() == [20 + 1, 0 + 2]  # the hand is each player's own, read as p's
    assert state.metrics() == {"points": [2, 0], "finished": [0, 0]}
    for action in ("gain(1)", "gain(1)", "gain(2)"):
        state.apply(state.to_move[0], action)
    assert state.over
    assert state.metrics() == {"points": [3, 3], "finished": [1, 0]}  # a truth value counts 0/1
    assert state.estimates() == state.scores()  # once over, the score itself


def test_a_game_without_them_has_no_estimate_and_no_metrics(tmp_path):
    text = GAME.replace("  estimate(p) = 10 * p.points + sum(p.hand)\n", "")
    text = text.replace('  metric "points"(p) = p.points\n  metric "finished"(p) = p.done\n', "")
    game = load_game(_write(tmp_path, text), use_cache=False)
    state = game.new_game(2, 1)
    state.apply(0, "gain(2)")
    assert not game.has_estimate and game.metric_names == []
    assert state.estimates() == state.scores() == [2, 0]
    assert state.metrics() == {}


def test_the_estimate_may_not_read_hidden_or_other_players_owner_data(tmp_path):
    text = GAME.replace("10 * p.points + sum(p.hand)", "sum(deck) + sum(seat(1).hand) + size(deck)")
    assert _errors(tmp_path, text) == [
        (
            "visibility",
            "the estimate would reveal the hidden field 'deck' (only its size() may be used here)",
        ),
        ("visibility", "the estimate would reveal another player's owner field 'hand'"),
    ]


def test_metrics_are_analysts_numbers_and_may_read_anything(tmp_path):
    text = GAME.replace('"points"(p) = p.points', '"points"(p) = p.points + sum(deck)')
    assert _errors(tmp_path, text) == []


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("estimate(p) = 10 * p.points + sum(p.hand)", "estimate(p) = p.hand", "the estimate"),
        ('"finished"(p) = p.done', '"finished"(p) = p.hand', "a metric must be a number"),
    ],
)
def test_the_estimate_is_a_number_and_a_metric_a_number_or_truth_value(
    tmp_path, old, new, expected
):
    errors = _errors(tmp_path, GAME.replace(old, new))
    assert [code for code, _ in errors] == ["type"]
    assert expected in errors[0][1]


def test_a_second_estimate_or_metric_of_one_name_is_a_duplicate(tmp_path):
    text = GAME.replace("  metric", '  estimate(p) = 1\n  metric "points"(p) = 1\n  metric', 1)
    with pytest.raises(CompileError) as raised:
        resolve(_write(tmp_path, text))
    messages = [d.message for d in raised.value.diagnostics]
    assert "the estimate is already declared (use `override estimate`)" in messages
    assert "metric 'points' is already declared" in messages


def test_variants_override_remove_and_add_estimates_and_metrics(tmp_path):
    variant = (
        'variant "Other" for "Tally" {\n'
        "  override estimate(p) = -p.points\n"
        '  override metric "points"(p) = 100 * p.points\n'
        '  remove metric "finished"\n'
        '  metric "seat"(p) = seat_number(p)\n'
        "}\n"
    )
    folder = _write(tmp_path, GAME, {"other": variant})
    game = load_game(folder, variants=["other"], use_cache=False)
    state = game.new_game(2, 1)
    state.apply(0, "gain(1)")
    assert state.estimates() == [-1, 0]
    assert state.metrics() == {"points": [100, 0], "seat": [1, 2]}
    patches = [(r.verb, r.what, r.name) for r in resolve(folder, [], ["other"]).patches]
    assert patches == [
        ("replaces", "estimate", "estimate"),
        ("replaces", "metric", "points"),
        ("removes", "metric", "finished"),
        ("adds", "metric", "seat"),
    ]


@pytest.mark.parametrize("name", [os.path.basename(p) for p in game_dirs()])
def test_every_shipped_game_declares_an_estimate_and_metrics(name):
    game = load_game(os.path.join(ROOT, "games", name))
    assert game.has_estimate
    assert len(game.metric_names) >= 3


# ---------------------------------------------------------------- path_cost


EDGES = [("a", "b", 2), ("b", "c", 2), ("a", "c", 5), ("c", "d", 0), ("e", "f", 1)]


@pytest.mark.parametrize(("a", "b"), [("a", "c"), ("a", "d"), ("d", "b"), ("a", "a"), ("a", "e")])
def test_path_cost_is_the_least_weight_of_a_path_as_networkx_finds_it(a, b):
    graph = nx.MultiGraph()
    graph.add_weighted_edges_from(EDGES)
    reached = nx.has_path(graph, a, b)
    expected = nx.shortest_path_length(graph, a, b, weight="weight") if reached else 99
    assert path_cost(EDGES, a, b, 99) == expected


def test_path_cost_stops_at_its_limit():
    assert path_cost(EDGES, "a", "d", 3) == 3  # the cheapest path costs 4
    assert path_cost(EDGES, "a", "e", 3) == 3  # no path at all
    assert path_cost(EDGES, "x", "x", 3) == 0
    with pytest.raises(ValueError, match="at least 0"):
        path_cost([("a", "b", -1)], "a", "b", 9)


def test_path_cost_over_a_list_changed_in_place_sees_the_change():
    edges = list(EDGES)
    assert path_cost(edges, "a", "c", 99) == 4
    assert path_cost(edges, "a", "c", 99) == 4  # asked again of the same graph
    edges[0] = ("a", "b", 0)  # the same list, another graph
    assert path_cost(edges, "a", "c", 99) == 2
    edges.append(("a", "c", 1))
    assert path_cost(edges, "a", "c", 99) == 1
    assert path_cost(tuple(EDGES), "a", "c", 99) == 4  # any sequence of edges
    with pytest.raises(ValueError, match="at least 0"):
        path_cost([*edges, ("a", "b", -1)], "a", "b", 9)


def test_path_cost_answers_again_after_its_memo_of_recent_graphs_overflows():
    lists = [[("a", "b", w), ("b", "c", 1)] for w in range(600)]  # more than the memo keeps
    for _ in range(2):
        for w, edges in enumerate(lists):
            assert path_cost(edges, "a", "c", 1000) == w + 1
            assert path_cost(edges, "a", "c", w) == w  # the limit is part of the question
