"""Graph algorithms over undirected edge lists.

An edge is a tuple ``(u, v, *extra)``; only ``u`` and ``v`` define the connection, and
``longest_trail`` reads the third item as the edge weight.  Vertices are hashable and
mutually comparable.  Parallel edges and self-loops are allowed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Sequence
from typing import Any

__all__ = [
    "components",
    "connected",
    "grid_neighbors",
    "longest_trail",
    "shortest_path_length",
]

# Number of remembered search states above which the memo is cleared between start vertices.
_MEMO_LIMIT = 1 << 21


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


def connected(edges: Sequence[tuple], a: Hashable, b: Hashable) -> bool:
    """Return True if a == b or some path of edges joins a and b."""
    if a == b:
        return True
    adj = _adjacency(edges)
    if a not in adj or b not in adj:
        return False
    seen = {a}
    stack = [a]
    while stack:
        for w in adj[stack.pop()]:
            if w not in seen:
                if w == b:
                    return True
                seen.add(w)
                stack.append(w)
    return False


def components(edges: Sequence[tuple]) -> list[list]:
    """Return the connected components as sorted vertex lists, ordered by first vertex."""
    adj = _adjacency(edges)
    seen: set = set()
    result = []
    for start in adj:
        if start in seen:
            continue
        seen.add(start)
        comp = [start]
        stack = [start]
        while stack:
            for w in adj[stack.pop()]:
                if w not in seen:
                    seen.add(w)
                    comp.append(w)
                    stack.append(w)
        comp.sort()
        result.append(comp)
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


def grid_neighbors(cell: tuple[int, int], width: int, height: int) -> list[tuple[int, int]]:
    """Return the orthogonal neighbours of cell (x, y), 0 <= x < width and 0 <= y < height, sorted."""
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
    """Return the largest total weight of a trail (no edge used twice) in the multigraph, 0 if none."""
    if not edges:
        return 0
    # Split the edges by connected component (union-find over vertices).
    parent: dict[Any, Any] = {}
    for edge in edges:
        for x in (edge[0], edge[1]):
            if x not in parent:
                parent[x] = x
    for edge in edges:
        ru, rv = edge[0], edge[1]
        while parent[ru] != ru:
            parent[ru] = parent[parent[ru]]
            ru = parent[ru]
        while parent[rv] != rv:
            parent[rv] = parent[parent[rv]]
            rv = parent[rv]
        if ru != rv:
            parent[ru] = rv
    groups: dict[Any, list] = {}
    for edge in edges:
        r = edge[0]
        while parent[r] != r:
            r = parent[r]
        if r in groups:
            groups[r].append(edge)
        else:
            groups[r] = [edge]
    best = 0
    for group in groups.values():
        best = max(best, _component_trail(group))
    return best


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
    total = sum(weights)
    if min(weights) < 0:
        # Negative weights break the shortcuts below: search from every vertex.
        return _search(nv, ends, weights, range(nv), None)
    degree = [0] * nv
    for u, v in ends:
        degree[u] += 1
        degree[v] += 1
    odd = [x for x in range(nv) if degree[x] & 1]
    if len(odd) <= 2:
        # Euler: a connected multigraph with 0 or 2 odd vertices is one trail.
        return total
    # With weights >= 0 some best trail uses as many edges as possible; such a trail
    # ends at two odd-degree vertices, and it uses both edges at a degree-2 vertex or
    # neither, so chains through degree-2 vertices can be merged into single edges.
    ends, weights = _merge_chains(nv, ends, weights, degree)
    # Each unused edge fixes the parity of at most two of the surplus odd vertices.
    bound = total - sum(sorted(weights)[: (len(odd) - 2) // 2])
    return _search(nv, ends, weights, odd, bound)


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


def _search(nv: int, ends: list[tuple[int, int]], weights: list, starts, bound) -> int:
    """Exhaustive trail DFS from each start vertex, skipping repeated (vertex, edge set) states."""
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
        while stack:
            v, mask, length = pop()
            if length > best:
                best = length
                if best == bound:
                    return best
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
