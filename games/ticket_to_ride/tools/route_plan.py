"""A Ticket to Ride map's routes and tickets from the links between its cities: lengths,
double routes, colours and destination tickets, in the proportions of the USA map."""

from __future__ import annotations

import dataclasses
import heapq
import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass

from games.ticket_to_ride.tools.city_choice import Link

# The USA map's routes by length (of 100), its doubles (22 of 78 links) and grey (93 of 309
# spaces); its 30 tickets are worth at least 4.
USA_LENGTHS = {1: 9, 2: 36, 3: 20, 4: 16, 5: 10, 6: 9}
DOUBLE_SHARE = 22 / 78
GREY_SHARE = 93 / 309
COLOURS = ("purple", "white", "blue", "yellow", "orange", "black", "red", "green")
GREY = "gray"
LONGEST_GREY = 4  # longer routes are coloured, as on the USA map
SAME_CITY = 2.0  # how much a colour already at one of the route's cities counts against it
MAX_TICKETS = 30
TICKETS_PER_CITY = 30 / 36  # as the USA map
MIN_TICKETS = 15  # five players are dealt three each
MIN_POINTS = 4


@dataclass(frozen=True)
class Route:
    """A route of the map: its two cities, spaces, colour and twin (a double route's other)."""

    id: str
    a: str
    b: str
    length: int
    colour: str
    twin: str | None


@dataclass(frozen=True)
class Ticket:
    """A destination ticket: two cities and its points."""

    id: str
    a: str
    b: str
    points: int


def lengths(links: tuple[Link, ...]) -> dict[tuple[str, str], int]:
    """Each link's length, 1 to 6: links by distance take lengths in the USA map's proportions
    (the shortest 9% length 1, the next 36% length 2, ...); equal distances, equal lengths."""
    ordered = sorted(links, key=lambda k: (k.km, k.a, k.b))
    bounds = list(itertools.accumulate(USA_LENGTHS.values()))
    out: dict[tuple[str, str], int] = {}
    first = 0
    for i, link in enumerate(ordered):
        if i and link.km > ordered[i - 1].km + 1e-9:
            first = i
        share = 100 * (first + 0.5) / len(ordered)
        out[(link.a, link.b)] = next(
            n for n, b in zip(USA_LENGTHS, bounds, strict=True) if share <= b
        )
    return out


def doubles(links: tuple[Link, ...], length: dict[tuple[str, str], int]) -> set[tuple[str, str]]:
    """The links made double, as many as the USA map's share: first where lines share the
    stretch (most lines first), then the busiest (on most cities' shortest paths)."""
    use = _busy(length)
    ranked = sorted(links, key=lambda k: (-len(k.lines), -use[(k.a, k.b)], k.km, k.a, k.b))
    count = round(DOUBLE_SHARE * len(links))
    return {(k.a, k.b) for k in ranked[:count]}


def routes(
    links: tuple[Link, ...], length: dict[tuple[str, str], int], double: set[tuple[str, str]]
) -> list[Route]:
    """The routes, numbered in city order, a double's two tracks one after the other, coloured
    so each card colour has about the same total length and grey the USA map's share."""
    tracks: list[Route] = []
    for link in links:
        n, size = len(tracks) + 1, length[(link.a, link.b)]
        if (link.a, link.b) in double:
            tracks.append(Route(f"R{n:03}", link.a, link.b, size, GREY, f"R{n + 1:03}"))
            tracks.append(Route(f"R{n + 1:03}", link.a, link.b, size, GREY, f"R{n:03}"))
        else:
            tracks.append(Route(f"R{n:03}", link.a, link.b, size, GREY, None))
    total = sum(t.length for t in tracks)
    target = {c: (1 - GREY_SHARE) * total / len(COLOURS) for c in COLOURS}
    target[GREY] = GREY_SHARE * total
    given: Counter[str] = Counter()
    colour: dict[str, str] = {}
    at_city: dict[str, set[str]] = defaultdict(set)
    # longest first, so the short routes left at the end even the totals out
    for track in sorted(tracks, key=lambda t: (-t.length, t.id)):
        options = [c for c in (*COLOURS, GREY) if c != GREY or track.length <= LONGEST_GREY]
        if track.twin in colour and colour[track.twin] != GREY:
            options.remove(colour[track.twin])  # a double's tracks differ unless both are grey
        crowded = at_city[track.a] | at_city[track.b]
        chosen = max(
            options,
            key=lambda c: (
                target[c] - given[c] - SAME_CITY * (c != GREY and c in crowded),
                -options.index(c),
            ),
        )
        colour[track.id] = chosen
        given[chosen] += track.length
        at_city[track.a].add(chosen)
        at_city[track.b].add(chosen)
    return [dataclasses.replace(t, colour=colour[t.id]) for t in tracks]


def tickets(cities: tuple[str, ...], length: dict[tuple[str, str], int]) -> list[Ticket]:
    """Destination tickets worth their cities' shortest path: as many as the USA map has for
    its cities (at least MIN_TICKETS), their points spread over those of the pairs worth at
    least MIN_POINTS, each city on about as many tickets as the others."""
    wanted = max(MIN_TICKETS, min(MAX_TICKETS, round(TICKETS_PER_CITY * len(cities))))
    points = shortest_paths(length)
    pairs = sorted(itertools.combinations(sorted(cities), 2), key=lambda p: (points[p], p))
    pool = [p for p in pairs if points[p] >= MIN_POINTS]
    if len(pool) < wanted:
        pool = pairs[-wanted:]
    step = len(pool) / wanted
    on: Counter[str] = Counter()
    left = set(range(len(pool)))
    chosen = []
    for n in range(wanted):
        aim = (n + 0.5) * step
        # near the aimed points, the pair whose cities are on the fewest tickets so far
        best = min(left, key=lambda i: (on[pool[i][0]] + on[pool[i][1]] + abs(i - aim) / step, i))
        left.remove(best)
        chosen.append(pool[best])
        on.update(pool[best])
    chosen.sort(key=lambda p: p)
    return [Ticket(f"T{n:02}", a, b, points[(a, b)]) for n, (a, b) in enumerate(chosen, 1)]


def shortest_paths(length: dict[tuple[str, str], int]) -> dict[tuple[str, str], int]:
    """The least total route length between every two cities (keys in name order)."""
    near = _adjacent(length)
    out = {}
    for start in sorted(near):
        for end, dist in _dijkstra(near, start)[0].items():
            if start < end:
                out[(start, end)] = dist
    return out


def _busy(length: dict[tuple[str, str], int]) -> Counter[tuple[str, str]]:
    """How many pairs of cities have a shortest path over each link (one path each)."""
    near = _adjacent(length)
    use: Counter[tuple[str, str]] = Counter()
    for start in sorted(near):
        back = _dijkstra(near, start)[1]
        for end in (e for e in back if e > start):  # each pair once
            at = end
            while at != start:
                before = back[at]
                use[(min(at, before), max(at, before))] += 1
                at = before
    return use


def _adjacent(length: dict[tuple[str, str], int]) -> dict[str, list[tuple[str, int]]]:
    """Each city's neighbours and the length of the route to each."""
    near: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for (a, b), size in length.items():
        near[a].append((b, size))
        near[b].append((a, size))
    return near


def _dijkstra(near, start: str) -> tuple[dict[str, int], dict[str, str]]:
    """Distances from `start`, and each other city's predecessor on its shortest path."""
    dist = {start: 0}
    back: dict[str, str] = {}
    queue = [(0, start)]
    while queue:
        d, here = heapq.heappop(queue)
        if d > dist[here]:
            continue
        for other, size in sorted(near[here]):
            if d + size < dist.get(other, d + size + 1):
                dist[other] = d + size
                back[other] = here
                heapq.heappush(queue, (d + size, other))
    return dist, back
