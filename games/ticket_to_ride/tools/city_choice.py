"""Which stations of a city network become Ticket to Ride cities, and the links between them.

A place is a station with the stations it has walking transfers to (one city on the map). The
cities are the major places: those served by the most lines, line ends counting as one more
line, chosen in that order but first at least a spacing apart so the whole city is covered,
then by rank alone up to the number wanted; places where the chosen cities' lines meet are
added when the map would otherwise fall apart. A link joins two cities that follow each other
along a line, the places between them skipped."""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass

from metro.network import Network
from metro.network.layout import project

MAX_CITIES = 36  # as the USA map
SMALL = 12  # a network of more places keeps at least this many
CITY_SHARE = 0.25  # the share of a network's places kept, between SMALL and MAX_CITIES
SPREAD = 0.2  # the first pass keeps cities this share of the mean spacing apart


@dataclass(frozen=True)
class Place:
    """A station and those it has transfers to: the lines there, whether a line ends there."""

    stations: tuple[str, ...]
    name: str
    lat: float
    lon: float
    lines: frozenset[str]
    end: bool

    @property
    def rank(self) -> int:
        """How major a place is: two for each line there, one if a line ends there."""
        return 2 * len(self.lines) + self.end


@dataclass(frozen=True)
class Call:
    """A line calling at a place, so many km along its branch from the branch's start."""

    place: str
    km: float
    line: str


Run = list[Call]  # one branch of a line, by place


@dataclass(frozen=True)
class Link:
    """Two cities that follow each other on some lines, and the shortest way along them, km."""

    a: str
    b: str
    km: float
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Choice:
    """The cities (by place name), their links, and what was left out or added."""

    places: dict[str, Place]
    cities: tuple[str, ...]
    links: tuple[Link, ...]
    notes: tuple[str, ...]


def choose(network: Network, names: dict[str, str]) -> Choice:
    """The cities and links of `network`; `names` gives each station's name on the map."""
    places, of_station = _places(network, names)
    runs = _runs(network, of_station, places)
    notes = []
    keep = _largest_piece(places, runs)
    if len(keep) < len(places):
        notes.append(
            f"the network falls apart into pieces; only the largest ({len(keep)} of "
            f"{len(places)} places) is mapped"
        )
        places = {k: places[k] for k in keep}
        runs = [run for run in runs if run[0].place in keep]
    wanted = min(len(places), MAX_CITIES, max(SMALL, round(len(places) * CITY_SHARE)))
    cities = _ranked_spread(places, wanted)
    added = _joined(places, runs, cities)
    if added:
        notes.append(f"{len(added)} place(s) added where lines meet, to keep the map in one piece")
    cities |= set(added)
    return Choice(places, tuple(sorted(cities)), _links(runs, cities), tuple(notes))


def _places(network: Network, names: dict[str, str]):
    """The places (by map name) and each station's place."""
    parent = {s.id: s.id for s in network.stations}

    def root(x: str) -> str:
        while parent[x] != x:
            x = parent[x]
        return x

    for transfer in network.transfers:
        a, b = sorted((root(transfer.from_station), root(transfer.to_station)))
        parent[b] = a
    groups: dict[str, list[str]] = defaultdict(list)
    for station in network.stations:
        groups[root(station.id)].append(station.id)
    served = {s.id: {line.id for line in network.lines_at(s.id)} for s in network.stations}
    ends = {b[i].station for line in network.lines for b in line.branches for i in (0, -1)}
    places: dict[str, Place] = {}
    of_station: dict[str, str] = {}
    for members in groups.values():
        lines = frozenset().union(*(served[m] for m in members))
        if not lines:
            continue  # a station no chosen line stops at
        # the place is called after its busiest station
        main = min(members, key=lambda m: (-len(served[m]), names[m]))
        name = _unique(names[main], places)
        stations = [network.station(m) for m in members]
        places[name] = Place(
            stations=tuple(sorted(members)),
            name=name,
            lat=sum(s.lat for s in stations) / len(stations),
            lon=sum(s.lon for s in stations) / len(stations),
            lines=lines,
            end=any(m in ends for m in members),
        )
        for member in members:
            of_station[member] = name
    return places, of_station


def _unique(name: str, taken: dict[str, Place]) -> str:
    n, candidate = 1, name
    while candidate in taken:
        n += 1
        candidate = f"{name} {n}"
    return candidate


def _runs(network: Network, of_station: dict[str, str], places: dict[str, Place]) -> list[Run]:
    """Each line's branches as the places they call at (two stations of one place, once)."""
    runs = []
    for line in network.lines:
        for branch in line.branches:
            run: Run = []
            for stop in branch:
                place = places[of_station[stop.station]]
                if run and run[-1].place == place.name:
                    continue
                km = 0.0 if not run else run[-1].km + _km(places[run[-1].place], place)
                run.append(Call(place.name, km, line.id))
            runs.append(run)
    return runs


def _km(a: Place, b: Place) -> float:
    """Straight-line km, near enough within a city."""
    east = (b.lon - a.lon) * 111.32 * math.cos(math.radians((a.lat + b.lat) / 2))
    return math.hypot(east, (b.lat - a.lat) * 111.32)


def _neighbours(runs: list[Run]) -> dict[str, set[str]]:
    near: dict[str, set[str]] = defaultdict(set)
    for run in runs:
        for a, b in itertools.pairwise(run):
            near[a.place].add(b.place)
            near[b.place].add(a.place)
    return near


def _largest_piece(places: dict[str, Place], runs: list[Run]) -> set[str]:
    near = _neighbours(runs)
    pieces: list[set[str]] = []
    seen: set[str] = set()
    for start in sorted(places):
        if start in seen:
            continue
        piece, todo = {start}, [start]
        while todo:
            for other in near[todo.pop()] - piece:
                piece.add(other)
                todo.append(other)
        seen |= piece
        pieces.append(piece)
    return max(pieces, key=len)


def _ranked_spread(places: dict[str, Place], wanted: int) -> set[str]:
    """The best-ranked places, first at least a spacing apart, then by rank alone."""
    ranked = sorted(places.values(), key=lambda p: (-p.rank, p.name))
    km = project({p.name: (p.lat, p.lon) for p in ranked})
    xs = [x for x, _ in km.values()]
    ys = [y for _, y in km.values()]
    area = max(max(xs) - min(xs), 1e-3) * max(max(ys) - min(ys), 1e-3)
    gap = SPREAD * math.sqrt(area / wanted)
    chosen: list[str] = []
    for place in ranked:
        if len(chosen) < wanted and all(math.dist(km[place.name], km[c]) >= gap for c in chosen):
            chosen.append(place.name)
    for place in ranked:
        if len(chosen) < wanted and place.name not in chosen:
            chosen.append(place.name)
    return set(chosen)


def _joined(places: dict[str, Place], runs: list[Run], cities: set[str]) -> list[str]:
    """Places to add so the cities' links are one piece: along the fewest stops from the first
    city's piece to another, the places where lines meet."""
    cities = set(cities)
    added: list[str] = []
    near = _neighbours(runs)
    while True:
        piece = _piece(_links(runs, cities), min(cities))
        if piece >= cities:
            return added
        # breadth first through the network from the piece to the nearest city outside it
        back = dict.fromkeys(sorted(piece))
        todo = sorted(piece)
        end = None
        while todo and end is None:
            step = []
            for here in todo:
                for other in sorted(near[here]):
                    if other not in back:
                        back[other] = here
                        step.append(other)
                        if other in cities and end is None:
                            end = other
            todo = step
        if end is None:  # cannot happen on a connected network; stop rather than loop
            return added
        new = []
        at = back[end]
        while at is not None and at not in piece:
            if len(places[at].lines) > 1:
                new.append(at)
            at = back[at]
        if not new:
            return added
        added += sorted(new)
        cities |= set(new)


def _piece(links: tuple[Link, ...], start: str) -> set[str]:
    near: dict[str, set[str]] = defaultdict(set)
    for link in links:
        near[link.a].add(link.b)
        near[link.b].add(link.a)
    piece, todo = {start}, [start]
    while todo:
        for other in near[todo.pop()] - piece:
            piece.add(other)
            todo.append(other)
    return piece


def _links(runs: list[Run], cities: set[str]) -> tuple[Link, ...]:
    """Cities following each other along a run: the shortest distance and every line."""
    best: dict[tuple[str, str], float] = {}
    lines: dict[tuple[str, str], set[str]] = defaultdict(set)
    for run in runs:
        calls = [call for call in run if call.place in cities]
        for here, there in itertools.pairwise(calls):
            if here.place == there.place:
                continue
            key = (min(here.place, there.place), max(here.place, there.place))
            best[key] = min(best.get(key, math.inf), abs(there.km - here.km))
            lines[key].add(here.line)
    return tuple(Link(a, b, best[(a, b)], tuple(sorted(lines[(a, b)]))) for a, b in sorted(best))
