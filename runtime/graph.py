"""Graph algorithms over undirected edge lists.

An edge is a tuple ``(u, v, *extra)``; only ``u`` and ``v`` define the connection, and
``longest_trail`` reads the third item as the edge weight.  Vertices are hashable and
mutually comparable.  Parallel edges and self-loops are allowed.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Hashable, Sequence
from typing import Any

__all__ = [
    "components",
    "connected",
    "grid_neighbors",
    "longest_trail",
    "path_cost",
    "shortest_path_length",
]

# Number of remembered search states above which the memo is cleared between start vertices.
_MEMO_LIMIT = 1 << 21
# Reduced graphs with at most this many edges use the plain trail search.
_SMALL = 10
# States per start vertex explored to find a first answer before the exact search.
_PROBE = 64


def _adjacency(edges: Sequence[tuple]) -> dict[Any, list]:
    adj: dict[Any, list] = {}
    for edge in edges:
        u, v = edge[0], edge[1]
        if u in adj:
            adj[u].append(v)
        else:
            adj[u] = [v]
        if v in adj:
            adj[v].append(u)
        else:
            adj[v] = [u]
    return adj


class _LastGraph:
    """What was made from the last edge list asked about, kept while equal lists come: rules ask
    several questions of one list (each of a player's goals), and making it costs more than
    comparing the list with the last one."""

    __slots__ = ("edges", "made")

    def __init__(self):
        self.edges: list | None = None
        self.made: Any = None

    def of(self, edges: Sequence[tuple], make) -> Any:
        """`make(edges)`, or what it made for the last list if `edges` has equal items."""
        if isinstance(edges, list) and edges == self.edges:
            return self.made
        made = make(edges)
        self.edges, self.made = list(edges), made
        return made


def _component_labels(edges: Sequence[tuple]) -> dict[Any, Any]:
    """Each vertex's component, named by the component's first vertex in the edge list."""
    adj = _adjacency(edges)
    labels: dict[Any, Any] = {}
    for start in adj:
        if start in labels:
            continue
        labels[start] = start
        stack = [start]
        while stack:
            for w in adj[stack.pop()]:
                if w not in labels:
                    labels[w] = start
                    stack.append(w)
    return labels


_LAST_LABELS = _LastGraph()


def connected(edges: Sequence[tuple], a: Hashable, b: Hashable) -> bool:
    """Return True if a == b or some path of edges joins a and b."""
    if a == b:
        return True
    labels = _LAST_LABELS.of(edges, _component_labels)
    return a in labels and b in labels and labels[a] == labels[b]


def components(edges: Sequence[tuple]) -> list[list]:
    """Return the connected components as sorted vertex lists, ordered by first vertex."""
    groups: dict[Any, list] = {}
    for vertex, label in _component_labels(edges).items():
        if label in groups:
            groups[label].append(vertex)
        else:
            groups[label] = [vertex]
    result = [sorted(group) for group in groups.values()]
    result.sort(key=lambda comp: comp[0])
    return result


def shortest_path_length(edges: Sequence[tuple], a: Hashable, b: Hashable) -> int | None:
    """Return the fewest edges on a path from a to b (unweighted BFS), or None if unreachable."""
    if a == b:
        return 0
    adj = _adjacency(edges)
    if a not in adj or b not in adj:
        return None
    dist = {a: 0}
    queue = deque((a,))
    while queue:
        x = queue.popleft()
        d = dist[x] + 1
        for w in adj[x]:
            if w not in dist:
                if w == b:
                    return d
                dist[w] = d
                queue.append(w)
    return None


def _weighted_adjacency(edges: Sequence[tuple]) -> dict[Any, list]:
    """Each vertex's (neighbour, weight) pairs."""
    adj: dict[Any, list] = {}
    for u, v, weight in edges:
        if weight < 0:
            raise ValueError(f"path_cost() needs weights of at least 0, not {weight}")
        near = adj.get(u)
        if near is None:
            adj[u] = [(v, weight)]
        else:
            near.append((v, weight))
        near = adj.get(v)
        if near is None:
            adj[v] = [(u, weight)]
        else:
            near.append((u, weight))
    return adj


class _RecentGraphs:
    """The weighted graphs of the last edge lists asked about, with the answers found in each.

    A search values many positions a few decisions apart, whose edge lists (the edges a player
    may use) mostly repeat; an answer is a pure function of the list, the two ends and the
    limit, so it is taken again. The oldest list is dropped beyond GRAPHS lists (hashing a long
    list once more to keep the order of use would cost about what a hit saves), and a graph's
    answers are forgotten beyond ANSWERS of them.
    """

    GRAPHS = 256
    ANSWERS = 256

    __slots__ = ("graphs", "last")

    def __init__(self):
        self.graphs: dict[tuple, tuple[dict, dict]] = {}
        # The last list asked about (a copy) and its graph: rules ask of one list several
        # times in a row (each of a player's goals), and comparing it with its copy, item by
        # item the same objects, costs less than hashing it.
        # One tuple, replaced whole: a thread never pairs one list with another's graph.
        self.last: tuple[list, tuple[dict, dict]] | None = None

    def of(self, edges: Sequence[tuple]) -> tuple[dict, dict] | None:
        """The adjacency and the answers memo of `edges`; None if its items cannot be a key."""
        last = self.last
        if last is not None and isinstance(edges, list) and edges == last[0]:
            return last[1]
        graphs = self.graphs
        try:
            key = tuple(edges)
            graph = graphs.get(key)
        except TypeError:  # an unhashable vertex or weight
            return None
        if graph is None:
            graph = (_weighted_adjacency(key), {})
            if len(graphs) >= self.GRAPHS:
                try:
                    del graphs[next(iter(graphs))]
                except (KeyError, RuntimeError, StopIteration):  # another thread changed it
                    graphs.clear()
            graphs[key] = graph
        if isinstance(edges, list):
            self.last = (list(edges), graph)
        return graph


_RECENT_WEIGHTED = _RecentGraphs()


def path_cost(edges: Sequence[tuple], a: Hashable, b: Hashable, limit: int) -> int:
    """Return the least total weight of a path from a to b over (u, v, weight) edges, at most `limit`.

    `limit` stands for "no path this cheap", so the search stops there.
    """
    if a == b:
        return min(0, limit)
    graph = _RECENT_WEIGHTED.of(edges)
    if graph is None:
        return _path_cost(_weighted_adjacency(edges), a, b, limit)
    adj, answers = graph
    question = (a, b, limit)
    try:
        cost = answers.get(question)
    except TypeError:  # an unhashable limit: asked, never remembered
        return _path_cost(adj, a, b, limit)
    if cost is None:
        if len(answers) >= _RecentGraphs.ANSWERS:
            answers.clear()
        cost = answers[question] = _path_cost(adj, a, b, limit)
    return cost


def _path_cost(adj: dict[Any, list], a: Hashable, b: Hashable, limit: int) -> int:
    """path_cost over a weighted adjacency, a and b different."""
    if a not in adj or b not in adj:
        return limit
    best = {a: 0}
    # (cost, arrival number, vertex): the number keeps vertices from ever being compared.
    heap = [(0, 0, a)]
    arrivals = 1
    while heap:
        cost, _, x = heapq.heappop(heap)
        if x == b or cost >= limit:
            return min(cost, limit)
        if cost > best[x]:
            continue
        for w, weight in adj[x]:
            if w not in best or cost + weight < best[w]:
                best[w] = cost + weight
                heapq.heappush(heap, (cost + weight, arrivals, w))
                arrivals += 1
    return limit


def grid_neighbors(cell: tuple[int, int], width: int, height: int) -> list[tuple[int, int]]:
    """Return the sorted orthogonal neighbours of cell (x, y), 0 <= x < width, 0 <= y < height."""
    x, y = cell
    out = []
    if 0 <= x - 1 < width and 0 <= y < height:
        out.append((x - 1, y))
    if 0 <= x < width:
        if 0 <= y - 1 < height:
            out.append((x, y - 1))
        if 0 <= y + 1 < height:
            out.append((x, y + 1))
    if 0 <= x + 1 < width and 0 <= y < height:
        out.append((x + 1, y))
    return out


def longest_trail(edges: Sequence[tuple]) -> int:
    """Return the top total weight of a trail (no edge used twice) in the multigraph, 0 if none."""
    if not edges:
        return 0
    groups = _components_of(edges)
    # A trail lies in one component and weighs at most the sum of its positive weights: the
    # components are tried from the largest such bound, and once a bound is no more than the
    # best trail found, no component left can hold a longer one (most of a network's pieces).
    bounds = [sum(edge[2] for edge in group if edge[2] > 0) for group in groups]
    best = 0
    for at in sorted(range(len(groups)), key=bounds.__getitem__, reverse=True):
        if bounds[at] <= best:
            break
        group = groups[at]
        if len(group) <= 2 and group[0][2] >= 0 and group[-1][2] >= 0:
            # One edge, or two meeting at a vertex: one trail (most components of a network
            # grown an edge at a time are so small).
            trail = group[0][2] + group[1][2] if len(group) == 2 else group[0][2]
        else:
            trail = _component_trail(group)
        if trail > best:
            best = trail
    return best


def _components_of(edges: Sequence[tuple]) -> list[list[tuple]]:
    """The edges split by connected component (`connected`'s labels, kept for the same list:
    rules ask a network's longest trail and its goals of one list)."""
    labels = _LAST_LABELS.of(edges, _component_labels)
    groups: dict[Any, list[tuple]] = {}
    for edge in edges:
        label = labels[edge[0]]
        group = groups.get(label)
        if group is None:
            groups[label] = [edge]
        else:
            group.append(edge)
    return list(groups.values())


def _degrees(nv: int, ends: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Vertex degrees (a self-loop counts twice) and the odd-degree vertices."""
    degree = [0] * nv
    for u, v in ends:
        degree[u] += 1
        degree[v] += 1
    return degree, [x for x in range(nv) if degree[x] & 1]


def _component_trail(edges: list[tuple]) -> int:
    """Longest trail weight within one connected component."""
    index: dict[Any, int] = {}
    ends = []
    weights = []
    for edge in edges:
        u, v, w = edge[0], edge[1], edge[2]
        if u not in index:
            index[u] = len(index)
        if v not in index:
            index[v] = len(index)
        ends.append((index[u], index[v]))
        weights.append(w)
    nv = len(index)
    if min(weights) < 0:
        # Negative weights break every shortcut below: search from every vertex.
        return _trail_search(nv, ends, weights, range(nv))
    # With weights >= 0 some best trail uses as many edges as possible.  Such a trail
    # ends at two odd-degree vertices (or, if there are none, uses every edge).
    degree, odd = _degrees(nv, ends)
    if len(odd) <= 2:
        # Euler: a connected multigraph with 0 or 2 odd vertices is one trail.
        return sum(weights)
    inner, nv, ends, weights = _peel(nv, ends, weights)
    if not ends:
        return inner
    degree, odd = _degrees(nv, ends)
    if len(odd) <= 2:
        return max(inner, sum(weights))
    # Such a trail never stops at a degree-2 vertex: it uses both edges there or neither.
    ends, weights = _merge_chains(nv, ends, weights, degree)
    # Each unused edge evens at most two of the surplus odd vertices.
    bound = sum(weights) - sum(sorted(weights)[: (len(odd) - 2) // 2])
    if len(ends) <= _SMALL:
        return max(inner, _trail_search(nv, ends, weights, odd, bound))
    # Larger graphs: a short trail search gives a good first answer for the exact search.
    best = max(inner, _trail_search(nv, ends, weights, odd, bound, _PROBE))
    if best == bound:
        return best
    return _removal_search(nv, ends, weights, best)


def _peel(
    nv: int, ends: list[tuple[int, int]], weights: list
) -> tuple[Any, int, list[tuple[int, int]], list]:
    """Cut off the trees hanging from the graph's 2-core.

    A trail can enter such a tree only to end inside it, so each core vertex keeps just
    two new pendant edges, weighted by the two deepest descents into its trees.  Returns
    (best trail lying wholly inside one tree, vertex count, new ends, new weights).
    """
    incident: list[list[int]] = [[] for _ in range(nv)]
    degree = [0] * nv
    for e, (u, v) in enumerate(ends):
        incident[u].append(e)
        if v != u:
            incident[v].append(e)
        degree[u] += 1
        degree[v] += 1
    alive = [True] * len(ends)
    deep1 = [0] * nv  # deepest descent from x into the trees cut off at x
    deep2 = [0] * nv  # second deepest, through a different edge
    inner = 0
    queue = [x for x in range(nv) if degree[x] == 1]
    while queue:
        x = queue.pop()
        if degree[x] != 1:
            continue  # its last neighbour was cut first
        e = next(e for e in incident[x] if alive[e])
        alive[e] = False
        u, v = ends[e]
        p = v if u == x else u
        degree[x] = 0
        inner = max(inner, deep1[x] + deep2[x])
        depth = weights[e] + deep1[x]
        if depth > deep1[p]:
            deep1[p], deep2[p] = depth, deep1[p]
        elif depth > deep2[p]:
            deep2[p] = depth
        degree[p] -= 1
        if degree[p] == 1:
            queue.append(p)
        elif degree[p] == 0:
            inner = max(inner, deep1[p] + deep2[p])  # the whole component was a tree
    new_ends = [ends[e] for e in range(len(ends)) if alive[e]]
    new_weights = [weights[e] for e in range(len(ends)) if alive[e]]
    n = nv
    for x in range(nv):
        if degree[x] >= 2:
            for depth in (deep1[x], deep2[x]):
                if depth > 0:
                    new_ends.append((x, n))
                    new_weights.append(depth)
                    n += 1
    return inner, n, new_ends, new_weights


def _merge_chains(
    nv: int, ends: list[tuple[int, int]], weights: list, degree: list[int]
) -> tuple[list[tuple[int, int]], list]:
    """Replace each path through degree-2 vertices by one edge of summed weight."""
    incident: list[list[int]] = [[] for _ in range(nv)]
    for e, (u, v) in enumerate(ends):
        incident[u].append(e)
        if v != u:
            incident[v].append(e)
    ends = list(ends)
    weights = list(weights)
    alive = [True] * len(ends)
    for x in range(nv):
        if degree[x] != 2 or len(incident[x]) != 2:
            continue  # not degree 2, or a lone self-loop (an isolated cycle)
        e1, e2 = incident[x]
        a = ends[e1][1] if ends[e1][0] == x else ends[e1][0]
        b = ends[e2][1] if ends[e2][0] == x else ends[e2][0]
        # Reuse slot e1 for the merged edge a-b; both endpoints keep their degree.
        ends[e1] = (a, b)
        weights[e1] += weights[e2]
        alive[e2] = False
        incident[x] = []
        lst = incident[b]
        lst[lst.index(e2)] = e1
        if a == b:
            lst.remove(e1)  # a self-loop is listed once
    keep = [e for e in range(len(ends)) if alive[e]]
    return [ends[e] for e in keep], [weights[e] for e in keep]


def _trail_search(
    nv: int, ends: list[tuple[int, int]], weights: list, starts, bound=None, budget=None
) -> int:
    """Trail DFS from each start vertex (exhaustive unless budget caps the states per start)."""
    adj: list[list[tuple[int, int, Any]]] = [[] for _ in range(nv)]
    for e, (u, v) in enumerate(ends):
        bit = 1 << e
        w = weights[e]
        adj[u].append((bit, v, w))
        if v != u:
            adj[v].append((bit, u, w))
    # A state is (current vertex, set of used edges as a bit mask); what can still be
    # added depends only on the state, so each state needs exploring once.
    seen: set[int] = set()
    best = 0
    for s in starts:
        stack = [(s, 0, 0)]
        pop = stack.pop
        push = stack.append
        left = budget or -1  # -1 counts down forever
        while stack and left:
            left -= 1
            v, mask, length = pop()
            if length > best:
                best = length
                if best == bound:
                    return best  # no trail can be longer
            for bit, u, w in adj[v]:
                if not mask & bit:
                    child = mask | bit
                    key = child * nv + u
                    if key not in seen:
                        seen.add(key)
                        push((u, child, length + w))
        if len(seen) > _MEMO_LIMIT:
            seen.clear()  # forgetting states only costs repeated work
    return best


def _removal_search(nv: int, ends: list[tuple[int, int]], weights: list, best) -> int:
    """Branch and bound over the edges a best trail leaves unused (weights >= 0).

    The edges a trail uses form a connected subgraph with at most two odd vertices, and
    any such subgraph is one trail (Euler).  Repeatedly take a vertex that is odd in the
    remaining graph and not yet allowed to stay odd: either allow it (at most two are
    allowed) or drop one of its edges, the first droppable one in weight order (edges
    passed over are kept for good, so no edge set is reached twice by one vertex's
    branches).  Once at most the allowed vertices are odd, every remaining component
    is a trail.  A branch stops when even the cheapest drops still needed (each drop
    evens at most two vertices) cannot beat the best found.
    """
    total = sum(weights)
    # options[x]: (weight, bit, other end) of the non-loop edges at x, lightest first;
    # self-loops never change a parity, so they are never dropped.
    options: list[list[tuple[Any, int, int]]] = [[] for _ in range(nv)]
    adj: list[list[tuple[int, int, Any]]] = [[] for _ in range(nv)]
    for e, (u, v) in enumerate(ends):
        bit = 1 << e
        w = weights[e]
        adj[u].append((bit, v, w))
        if u != v:
            adj[v].append((bit, u, w))
            options[u].append((w, bit, v))
            options[v].append((w, bit, u))
    for opts in options:
        opts.sort()
    odd = {x for x in range(nv) if len(options[x]) & 1}
    allowed: list[int] = []

    def heaviest_component(dropped: int):
        found = bytearray(nv)
        top = 0
        for s in range(nv):
            if found[s]:
                continue
            found[s] = 1
            stack = [s]
            weight = 0
            while stack:
                for bit, y, w in adj[stack.pop()]:
                    if not dropped & bit:
                        dropped |= bit  # mark the edge counted
                        weight += w
                        if not found[y]:
                            found[y] = 1
                            stack.append(y)
            top = max(top, weight)
        return top

    def branch(dropped: int, lost, kept: int) -> None:
        nonlocal best
        blocked = dropped | kept
        free = 2 - len(allowed)
        todo = [x for x in odd if x not in allowed]
        if len(todo) <= free:
            if total - lost > best:
                best = max(best, heaviest_component(dropped))
            return
        cheapest = []
        pick = -1
        pick_opts: list = []
        for x in todo:
            opts = [t for t in options[x] if not blocked & t[1]]
            if opts:
                cheapest.append(opts[0][0])
            elif free:
                cheapest.append(0)  # x can only be allowed to stay odd
            else:
                return
            if pick < 0 or len(opts) < len(pick_opts):
                pick, pick_opts = x, opts
        cheapest.sort()
        if 2 * (total - lost) - sum(cheapest[: len(todo) - free]) <= 2 * best:
            return
        x = pick
        if free:
            allowed.append(x)
            branch(dropped, lost, kept)
            allowed.pop()
        for w, bit, y in pick_opts:
            odd.symmetric_difference_update((x, y))
            branch(dropped | bit, lost + w, kept)
            odd.symmetric_difference_update((x, y))
            kept |= bit

    branch(0, 0, 0)
    return best
