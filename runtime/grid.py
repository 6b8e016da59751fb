"""Grids of cells: adjacency from coordinates, and where a walker can get in a few steps."""

from __future__ import annotations

_ADJACENCY: dict[int, tuple[object, dict]] = {}


def grid_edges(cells: list[tuple]) -> list[tuple]:
    """Pairs (a, b) of cells that are orthogonal neighbours, from (cell, x, y) tuples; sorted."""
    at = {(x, y): cell for cell, x, y in cells}
    edges = []
    for cell, x, y in cells:
        for dx, dy in ((1, 0), (0, 1)):
            other = at.get((x + dx, y + dy))
            if other is not None:
                edges.append((cell, other) if cell <= other else (other, cell))
    return sorted(edges)


def _adjacency(edges) -> dict:
    # Edge lists passed here are constants of a game, so their adjacency is built once.
    key = id(edges)
    cached = _ADJACENCY.get(key)
    if cached is not None and cached[0] is edges:
        return cached[1]
    adjacency: dict = {}
    for a, b, *_ in edges:
        adjacency.setdefault(a, []).append(b)
        adjacency.setdefault(b, []).append(a)
    for neighbours in adjacency.values():
        neighbours.sort()
    _ADJACENCY[key] = (edges, adjacency)
    return adjacency


def reachable(edges, start, blocked, steps: int) -> list:
    """Vertices reachable from `start` in 1..steps moves without entering a blocked vertex; sorted.

    (A negative `steps` sets no limit.)
    """
    adjacency = _adjacency(edges)
    seen = set(blocked)  # never entered, like those already reached
    seen.add(start)
    found: list = []
    frontier = [start]
    # A walk of a few steps: one layer of the breadth-first search per step.
    for _ in range(steps if steps >= 0 else len(adjacency)):
        layer = []
        for vertex in frontier:
            for other in adjacency.get(vertex, ()):
                if other not in seen:
                    seen.add(other)
                    layer.append(other)
        if not layer:
            break
        found += layer
        frontier = layer
    found.sort()
    return found
