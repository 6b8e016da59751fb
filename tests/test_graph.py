"""Tests for runtime.graph, with networkx and brute force as oracles."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime import graph, grid
from runtime.graph import (
    components,
    connected,
    grid_neighbors,
    longest_trail,
    shortest_path_length,
)

# ---------------------------------------------------------------- helpers and oracles

vertices = st.integers(min_value=0, max_value=9)
plain_edges = st.lists(st.tuples(vertices, vertices), max_size=15)


def nx_graph(edges, extra=()):
    g = nx.MultiGraph()
    g.add_nodes_from(extra)
    g.add_edges_from((e[0], e[1]) for e in edges)
    return g


def brute_force_trail(edges) -> int:
    """Best weight over every edge sequence that forms a trail (including the empty one)."""
    best = 0

    def extend(v, used, total):
        nonlocal best
        best = max(best, total)
        for i, (a, b, w) in enumerate(edges):
            if i in used:
                continue
            if a == v:
                extend(b, used | {i}, total + w)
            elif b == v:
                extend(a, used | {i}, total + w)

    for v in {e[0] for e in edges} | {e[1] for e in edges}:
        extend(v, frozenset(), 0)
    return best


def euler_subset_trail(edges) -> int:
    """Best weight over edge subsets that are connected with at most two odd vertices."""
    best = 0
    for r in range(1, len(edges) + 1):
        for subset in itertools.combinations(edges, r):
            weight = sum(e[2] for e in subset)
            if weight <= best:
                continue
            degree: dict = {}
            for a, b, _ in subset:
                degree[a] = degree.get(a, 0) + 1
                degree[b] = degree.get(b, 0) + 1
            if sum(d % 2 for d in degree.values()) <= 2 and nx.is_connected(nx_graph(subset)):
                best = weight
    return best


def odd_count(edges) -> int:
    degree: dict = {}
    for a, b, _ in edges:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    return sum(d % 2 for d in degree.values())


def random_multigraph(rnd: random.Random, n_vertices: int, n_edges: int, min_odd: int):
    """A random multigraph (loops and parallel edges allowed) with at least min_odd odd vertices."""
    while True:
        edges = [
            (rnd.randrange(n_vertices), rnd.randrange(n_vertices), rnd.randint(1, 6))
            for _ in range(n_edges)
        ]
        if odd_count(edges) >= min_odd:
            return edges


def trail_both_ways(edges) -> int:
    """longest_trail, checked to agree when forced through each of its exact searches."""
    saved = graph._SMALL, graph._PROBE
    try:
        graph._SMALL = 10**9  # always the trail DFS
        by_walks = longest_trail(edges)
        graph._SMALL = -1  # always the dropped-edge branch and bound, after a short probe
        by_drops = longest_trail(edges)
        graph._PROBE = 1  # ... with almost no head start from the probe
        by_drops_alone = longest_trail(edges)
    finally:
        graph._SMALL, graph._PROBE = saved
    assert by_walks == by_drops == by_drops_alone, edges
    assert longest_trail(edges) == by_walks
    return by_walks


def multigraphs(max_vertex: int, max_edges: int, weights):
    v = st.integers(min_value=0, max_value=max_vertex)
    return st.lists(st.tuples(v, v, weights), max_size=max_edges)


# ---------------------------------------------------------------- connected / components


@given(plain_edges, vertices, vertices)
def test_connected_matches_networkx(edges, a, b):
    g = nx_graph(edges, extra=[a, b])
    assert connected(edges, a, b) == nx.has_path(g, a, b)


@given(plain_edges)
def test_components_match_networkx(edges):
    expected = sorted(
        (sorted(c) for c in nx.connected_components(nx_graph(edges))), key=lambda c: c[0]
    )
    assert components(edges) == expected


def test_connected_basics():
    edges = [(1, 2), (2, 3, 7), (4, 5, 1, "extra")]
    assert connected(edges, 1, 3)
    assert connected(edges, 3, 1)
    assert connected(edges, 5, 4)
    assert not connected(edges, 1, 4)
    assert connected(edges, 9, 9)  # same vertex, even if absent
    assert not connected(edges, 1, 9)
    assert not connected([], 1, 2)


def test_connected_answers_for_the_list_as_it_is_now():
    # The components of the last list asked about are reused only while its items are equal.
    edges = [(1, 2), (3, 4)]
    assert not connected(edges, 1, 4)
    edges.append((2, 3))
    assert connected(edges, 1, 4)
    edges[2] = (2, 5)
    assert not connected(edges, 1, 4) and connected(edges, 1, 5)
    assert connected(tuple(edges), 5, 2) and not connected([], 1, 5)


def test_components_basics():
    edges = [(5, 4), (3, 1), (1, 2), (9, 9), (7, 6)]
    assert components(edges) == [[1, 2, 3], [4, 5], [6, 7], [9]]
    assert components([]) == []
    assert components([("b", "a"), ("c", "d")]) == [["a", "b"], ["c", "d"]]


# ---------------------------------------------------------------- shortest_path_length


@given(plain_edges, vertices, vertices)
def test_shortest_path_length_matches_networkx(edges, a, b):
    g = nx_graph(edges, extra=[a, b])
    expected = nx.shortest_path_length(g, a, b) if nx.has_path(g, a, b) else None
    assert shortest_path_length(edges, a, b) == expected


def test_shortest_path_length_basics():
    edges = [(1, 2, 9), (2, 3, 9), (3, 4, 9), (1, 4, 100)]
    assert shortest_path_length(edges, 1, 4) == 1  # hops, weights ignored
    assert shortest_path_length(edges, 1, 3) == 2
    assert shortest_path_length(edges, 2, 2) == 0
    assert shortest_path_length(edges, 1, 5) is None
    assert shortest_path_length([], 1, 2) is None


# ---------------------------------------------------------------- grid_neighbors


def test_grid_neighbors_examples():
    assert grid_neighbors((0, 0), 3, 2) == [(0, 1), (1, 0)]
    assert grid_neighbors((1, 1), 3, 3) == [(0, 1), (1, 0), (1, 2), (2, 1)]
    assert grid_neighbors((2, 1), 3, 2) == [(1, 1), (2, 0)]
    assert grid_neighbors((0, 0), 1, 1) == []
    assert grid_neighbors((4, 0), 5, 1) == [(3, 0)]  # x runs along the width
    assert grid_neighbors((0, 4), 1, 5) == [(0, 3)]  # y runs along the height


@given(
    st.integers(min_value=1, max_value=6),
    st.integers(min_value=1, max_value=6),
    st.integers(min_value=-2, max_value=7),
    st.integers(min_value=-2, max_value=7),
)
def test_grid_neighbors_brute_force(width, height, x, y):
    expected = sorted(
        (x + dx, y + dy)
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        if 0 <= x + dx < width and 0 <= y + dy < height
    )
    assert grid_neighbors((x, y), width, height) == expected


# ---------------------------------------------------------------- longest_trail shapes


def test_longest_trail_empty():
    assert trail_both_ways([]) == 0


def test_longest_trail_single_path():
    assert trail_both_ways([(1, 2, 3), (2, 3, 4), (3, 4, 5)]) == 12
    assert trail_both_ways([(3, 4, 5), (1, 2, 3), (2, 3, 4)]) == 12  # order does not matter


def test_longest_trail_triangle_with_tail():
    assert trail_both_ways([(1, 2, 1), (2, 3, 1), (3, 1, 1), (3, 4, 5)]) == 8


def test_longest_trail_fork():
    # A Y: only the two longest branches can be joined.
    assert trail_both_ways([(0, 1, 2), (0, 2, 3), (0, 3, 4)]) == 7
    # Branches made of several edges, with a short stem.
    y = [(0, 1, 1), (1, 2, 1), (1, 3, 2), (3, 4, 2), (1, 5, 3)]
    assert trail_both_ways(y) == 7


def test_longest_trail_figure_eight():
    loops = [(0, 1, 2), (1, 2, 2), (2, 0, 2), (0, 3, 3), (3, 4, 3), (4, 0, 3)]
    assert trail_both_ways(loops) == 15


def test_longest_trail_parallel_edges():
    assert trail_both_ways([(1, 2, 3), (1, 2, 3)]) == 6
    assert trail_both_ways([(1, 2, 3), (2, 1, 4), (1, 2, 5)]) == 12
    # Two parallel pairs joined by a single edge: every edge counts.
    assert trail_both_ways([(0, 1, 1), (0, 1, 1), (1, 2, 1), (2, 3, 1), (2, 3, 1)]) == 5


def test_longest_trail_disconnected_pieces():
    edges = [(1, 2, 4), (2, 3, 4), (10, 11, 1), (11, 12, 1), (12, 13, 1), (13, 10, 1), (20, 21, 9)]
    assert trail_both_ways(edges) == 9
    assert trail_both_ways(edges[:-1]) == 8


def test_longest_trail_skips_components_that_cannot_hold_a_longer_trail(monkeypatch):
    # Pieces searched from the largest sum of weights: once the best trail found weighs as
    # much as a piece's every edge, that piece and the smaller ones are not searched.
    searched = []
    search = graph._component_trail
    monkeypatch.setattr(graph, "_component_trail", lambda g: searched.append(len(g)) or search(g))
    star = [(0, 1, 3), (0, 2, 3), (0, 3, 3), (0, 4, 3)]  # best trail 6 of 12
    small = [(10, 11, 2), (11, 12, 2), (11, 13, 1)]  # 5 in all: cannot beat 6
    tied = [(20, 21, 2), (21, 22, 2), (21, 23, 2)]  # 6 in all: cannot beat 6 either
    assert longest_trail(small + tied + star) == 6
    assert searched == [4]
    searched.clear()
    bigger = [(30, 31, 5), (31, 32, 5), (31, 33, 5)]  # 15 in all, best trail 10
    assert longest_trail(small + star + bigger) == 10
    assert searched == [3, 4]  # the star's 12 might beat 10: searched; the small piece's 5 not


def test_longest_trail_self_loop():
    assert trail_both_ways([(1, 1, 4)]) == 4
    assert trail_both_ways([(1, 2, 1), (2, 2, 5), (2, 3, 1)]) == 7
    assert trail_both_ways([(0, 1, 1), (0, 2, 1), (0, 3, 1), (3, 3, 6)]) == 8


def test_longest_trail_star_and_bridge():
    # Two triangles joined by a bridge: everything but nothing twice.
    edges = [(0, 1, 1), (1, 2, 1), (2, 0, 1), (2, 3, 2), (3, 4, 1), (4, 5, 1), (5, 3, 1)]
    assert trail_both_ways(edges) == 8
    # A star with five spokes keeps only the two heaviest.
    assert trail_both_ways([(0, i, i) for i in range(1, 6)]) == 9


def test_longest_trail_other_vertex_types():
    assert trail_both_ways([("a", "b", 2), ("b", "c", 3), ("b", "d", 1)]) == 5
    assert trail_both_ways([((0, 0), (0, 1), 1), ((0, 1), (1, 1), 1)]) == 2


def test_longest_trail_extra_tuple_items_ignored():
    assert trail_both_ways([(1, 2, 3, "x"), (2, 3, 4, "y")]) == 7


def test_longest_trail_negative_weights():
    assert trail_both_ways([(1, 2, -1)]) == 0
    assert trail_both_ways([(1, 2, 5), (2, 3, -1), (3, 4, 5)]) == 9
    assert trail_both_ways([(1, 2, 5), (2, 3, -9), (3, 4, 5)]) == 5


def test_longest_trail_complete_graph_k5():
    # K5 is Eulerian: one trail covers all ten edges.
    edges = [(a, b, 1) for a, b in itertools.combinations(range(5), 2)]
    assert trail_both_ways(edges) == 10
    # K6 has six odd vertices: two unused edges are needed to leave only two.
    edges = [(a, b, 1) for a, b in itertools.combinations(range(6), 2)]
    assert trail_both_ways(edges) == 13


# ---------------------------------------------------------------- longest_trail properties


@settings(max_examples=300, deadline=None)
@given(multigraphs(4, 7, st.integers(min_value=0, max_value=6)))
def test_longest_trail_matches_brute_force(edges):
    assert trail_both_ways(edges) == brute_force_trail(edges)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=6),
            st.integers(min_value=0, max_value=6),
            st.integers(min_value=1, max_value=6),
        ),
        min_size=6,
        max_size=7,
    )
)
def test_longest_trail_matches_brute_force_full_size(edges):
    assert trail_both_ways(edges) == brute_force_trail(edges)


@settings(max_examples=200, deadline=None)
@given(multigraphs(6, 7, st.integers(min_value=-4, max_value=6)))
def test_longest_trail_matches_brute_force_with_negative_weights(edges):
    assert trail_both_ways(edges) == brute_force_trail(edges)


@settings(max_examples=60, deadline=None)
@given(multigraphs(7, 11, st.integers(min_value=1, max_value=6)))
def test_longest_trail_matches_euler_subsets(edges):
    assert trail_both_ways(edges) == euler_subset_trail(edges)


@given(multigraphs(8, 12, st.integers(min_value=0, max_value=6)), st.randoms(use_true_random=False))
def test_longest_trail_invariant_under_relabelling(edges, rnd):
    labels = list(range(9))
    rnd.shuffle(labels)
    moved = [
        (labels[b], labels[a], w) if rnd.random() < 0.5 else (labels[a], labels[b], w)
        for a, b, w in edges
    ]
    rnd.shuffle(moved)
    assert trail_both_ways(moved) == trail_both_ways(edges)


def test_longest_trail_many_odd_vertices_match_brute_force():
    # Graphs with at least four odd vertices take the search path rather than Euler's shortcut.
    rnd = random.Random(1)
    for _ in range(300):
        edges = random_multigraph(rnd, rnd.randint(4, 7), 7, 4)
        assert trail_both_ways(edges) == brute_force_trail(edges), edges


@pytest.mark.parametrize("seed", range(8))
def test_longest_trail_many_odd_vertices_match_euler_subsets(seed):
    rnd = random.Random(seed)
    edges = random_multigraph(rnd, 8, 12, 6)
    assert trail_both_ways(edges) == euler_subset_trail(edges), edges


@pytest.mark.parametrize("seed", range(5))
def test_longest_trail_random_larger_graphs_match_euler_subsets(seed):
    # Sparse connected graphs (a tree plus a few extra edges) with several odd vertices.
    rnd = random.Random(seed)
    n = 10
    edges = [(i, rnd.randrange(i), rnd.randint(1, 6)) for i in range(1, n)]
    edges += [(rnd.randrange(n), rnd.randrange(n), rnd.randint(1, 6)) for _ in range(5)]
    assert trail_both_ways(edges) == euler_subset_trail(edges)


@given(
    width=st.integers(1, 6),
    height=st.integers(1, 5),
    start=st.integers(0, 29),
    blocked=st.lists(st.integers(0, 29), max_size=6),
    steps=st.integers(0, 6),
)
def test_reachable_is_every_square_a_walk_of_at_most_steps_reaches(
    width, height, start, blocked, steps
):
    cells = [(y * width + x, x, y) for y in range(height) for x in range(width)]
    start %= len(cells)
    edges = grid.grid_edges(cells)
    open_graph = nx.Graph()
    open_graph.add_nodes_from(c for c, _, _ in cells if c == start or c not in blocked)
    open_graph.add_edges_from((a, b) for a, b in edges if a in open_graph and b in open_graph)
    distance = nx.single_source_shortest_path_length(open_graph, start, cutoff=steps)
    expected = sorted(c for c, d in distance.items() if d >= 1)
    assert grid.reachable(edges, start, blocked, steps) == expected
