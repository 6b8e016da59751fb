"""Read a city network from a GTFS feed: stations (platforms merged into their parent
stations), lines (routes of the chosen types, their stop sequences from the trips in both
directions, branches kept), transfers (stations served by several lines, and transfers.txt)."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from metro.network.gtfs_files import Row, Table, feed_folder, read_tables
from metro.network.model import FeedError, Line, LineStop, Network, Origin, Station, Transfer

# GTFS's extended route types (the Hierarchical Vehicle Types) fold into the basic ones.
EXTENDED_TYPES = {range(100, 200): 2, range(400, 500): 1, range(900, 1000): 0}
TYPE_NAMES = {0: "tram", 1: "metro", 2: "rail", 3: "bus", 4: "ferry", 5: "cable tram",
              6: "aerial lift", 7: "funicular", 11: "trolleybus", 12: "monorail"}  # fmt: skip
MAX_LINE_STOPS = 500  # stations on one line's sequence
MAX_LINES = 200
MAX_BRANCHES = 50  # ways a line runs besides its main one


@dataclass
class ImportReport:
    """What reading a feed left out or changed, in words for the person importing."""

    notes: list[str] = field(default_factory=list)


def read_network(
    path: str,
    route_types: tuple[int, ...] = (1,),
    lines: tuple[str, ...] = (),
    name: str | None = None,
) -> tuple[Network, ImportReport]:
    """The network of a feed (a folder or a zip): routes of `route_types` (GTFS basic types;
    extended ones fold into them), only those named in `lines` (route ids or short names)
    when given."""
    with feed_folder(path) as folder:
        tables = read_tables(folder, path)
    report = ImportReport()
    stops = _stops(tables["stops.txt"])
    routes = _routes(tables["routes.txt"], route_types, lines)
    trips = _trips(tables["trips.txt"], routes)
    sequences = _sequences(tables["stop_times.txt"], trips, stops, report)
    built = [_line(route, sequences.get(route.id, []), stops, report) for route in routes]
    built = [line for line in built if line is not None]
    if not built:
        raise FeedError(Origin("trips.txt"), "no trip of the chosen routes has two stations")
    served = {s.station for line in built for branch in line.branches for s in branch}
    stations = tuple(sorted((stops.station_of(ident) for ident in served), key=lambda s: s.id))
    transfers = _transfers(tables.get("transfers.txt"), stops, served, {r.id for r in built})
    title = name or os.path.splitext(os.path.basename(path.rstrip("/")))[0]
    return Network(title, stations, tuple(built), transfers), report


# ------------------------------------------------------------------------------------- stops


@dataclass
class Stops:
    """stops.txt: every stop's station (its parent, or itself) and the stations themselves."""

    parent: dict[str, str]
    stations: dict[str, Station]
    codes: dict[str, str]
    origins: dict[str, Origin]

    def station_of(self, stop: str) -> Station:
        return self.stations[self.parent[stop]]


def _stops(table: Table) -> Stops:
    parent: dict[str, str] = {}
    codes: dict[str, str] = {}
    origins: dict[str, Origin] = {}
    points: dict[str, tuple[float, float] | None] = {}
    names: dict[str, str] = {}
    for index, row, ident in _by_id(table, "stop_id"):
        origins[ident] = table.origin(index, ident=ident)
        names[ident] = row.get("stop_name") or ident
        codes[ident] = row.get("stop_code") or ident
        points[ident] = _point(table, index, row)
        if row.get("parent_station"):
            parent[ident] = row.get("parent_station")
    for ident, up in parent.items():
        if up not in origins:
            raise FeedError(
                _with_column(origins[ident], "parent_station"),
                f"parent station {up!r} is not a stop of stops.txt",
            )
        if up in parent:
            # GTFS: a platform's parent is a station, and stations have no parent
            raise FeedError(
                _with_column(origins[ident], "parent_station"),
                f"parent station {up!r} has a parent itself ({parent[up]!r})",
            )
    children: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for ident, up in parent.items():
        if points[ident] is not None:
            children[up].append(points[ident])
    stations = {}
    for ident in origins:
        if ident in parent:
            continue
        point = points[ident] or _mean(children.get(ident, []))
        if point is None:
            raise FeedError(
                _with_column(origins[ident], "stop_lat"), "a station needs stop_lat and stop_lon"
            )
        stations[ident] = Station(ident, names[ident], point[0], point[1], origins[ident])
    return Stops({s: parent.get(s, s) for s in origins}, stations, codes, origins)


def _point(table: Table, index: int, row: Row) -> tuple[float, float] | None:
    lat, lon = row.get("stop_lat"), row.get("stop_lon")
    if lat is None and lon is None:
        return None
    for column, value, bound in (("stop_lat", lat, 90), ("stop_lon", lon, 180)):
        try:
            number = float(value) if value is not None else None
        except ValueError:
            number = None
        if number is None or not -bound <= number <= bound:
            raise FeedError(
                table.origin(index, column, row.get("stop_id")),
                f"{value!r} is not a {'latitude' if bound == 90 else 'longitude'} "
                f"(a number from -{bound} to {bound})",
            )
    return float(lat), float(lon)


def _mean(found: list[tuple[float, float]]) -> tuple[float, float] | None:
    """A station without a position stands at the mean of its platforms' (None: none has one)."""
    if not found:
        return None
    return (sum(p[0] for p in found) / len(found), sum(p[1] for p in found) / len(found))


# ------------------------------------------------------------------------------------ routes


@dataclass(frozen=True)
class Route:
    id: str
    short_name: str
    long_name: str
    colour: str | None
    route_type: int
    origin: Origin


def basic_type(route_type: int) -> int:
    """A route type as one of GTFS's basic types (an extended type folded into its basic one)."""
    for span, basic in EXTENDED_TYPES.items():
        if route_type in span:
            return basic
    return route_type


def _routes(table: Table, route_types: tuple[int, ...], lines: tuple[str, ...]) -> list[Route]:
    routes: list[Route] = []
    types_found: dict[int, int] = defaultdict(int)
    for index, row, ident in _by_id(table, "route_id"):
        raw_type = _required(table, index, row, "route_type")
        try:
            route_type = basic_type(int(raw_type))
        except ValueError:
            raise FeedError(
                table.origin(index, "route_type", ident), f"{raw_type!r} is not a route type number"
            ) from None
        types_found[route_type] += 1
        short, long = row.get("route_short_name") or "", row.get("route_long_name") or ""
        if route_type not in route_types:
            continue
        if lines and ident not in lines and short not in lines:
            continue
        routes.append(
            Route(
                ident,
                short,
                long,
                _colour(table, index, row),
                route_type,
                table.origin(index, ident=ident),
            )
        )
    if lines:
        known = {r.id for r in routes} | {r.short_name for r in routes}
        unknown = [name for name in lines if name not in known]
        if unknown:
            raise FeedError(
                Origin(table.file),
                f"no route of the chosen types is called {', '.join(map(repr, unknown))}",
            )
    if not routes:
        found = ", ".join(
            f"{TYPE_NAMES.get(t, t)} ({t}) x{n}" for t, n in sorted(types_found.items())
        )
        chosen = ", ".join(f"{TYPE_NAMES.get(t, t)} ({t})" for t in route_types)
        raise FeedError(
            Origin(table.file),
            f"no route of type {chosen}; the feed has {found or 'no routes'} (--route-types)",
        )
    if len(routes) > MAX_LINES:
        raise FeedError(
            Origin(table.file), f"{len(routes)} routes chosen; metro takes at most {MAX_LINES}"
        )
    return routes


def _colour(table: Table, index: int, row: Row) -> str | None:
    value = row.get("route_color")
    if value is None:
        return None
    if len(value) != 6 or any(c not in "0123456789abcdefABCDEF" for c in value):
        raise FeedError(
            table.origin(index, "route_color", row.get("route_id")),
            f"{value!r} is not a colour (six hexadecimal digits, as FF9500)",
        )
    return "#" + value.lower()


# ------------------------------------------------------------------------------ trips and times


@dataclass(frozen=True)
class Trip:
    id: str
    route: str
    origin: Origin


def _trips(table: Table, routes: list[Route]) -> dict[str, Trip]:
    wanted = {r.id for r in routes}
    trips: dict[str, Trip] = {}
    for index, row, ident in _by_id(table, "trip_id"):
        route = _required(table, index, row, "route_id")
        if route in wanted:
            trips[ident] = Trip(ident, route, table.origin(index, ident=ident))
    return trips


@dataclass(frozen=True)
class Sequence:
    """A trip's stations in order, with the stop codes, and where the trip is."""

    stops: tuple[LineStop, ...]
    origin: Origin

    @property
    def stations(self) -> tuple[str, ...]:
        return tuple(s.station for s in self.stops)


def _sequences(
    table: Table, trips: dict[str, Trip], stops: Stops, report: ImportReport
) -> dict[str, list[Sequence]]:
    """Each chosen route's distinct station sequences, in the order their trips come."""
    timed: dict[str, list[tuple[int, int, str]]] = defaultdict(list)
    for index, row in enumerate(table.rows):
        trip = _required(table, index, row, "trip_id")
        if trip not in trips:
            continue
        stop = _required(table, index, row, "stop_id")
        if stop not in stops.parent:
            raise FeedError(
                table.origin(index, "stop_id", stop), f"stop {stop!r} is not in stops.txt"
            )
        raw = _required(table, index, row, "stop_sequence")
        try:
            order = int(raw)
        except ValueError:
            raise FeedError(
                table.origin(index, "stop_sequence", trip), f"{raw!r} is not a whole number"
            ) from None
        timed[trip].append((order, index, stop))
    by_route: dict[str, list[Sequence]] = defaultdict(list)
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for trip in trips.values():  # trips.txt's order
        rows = sorted(timed.get(trip.id, []))
        path: list[LineStop] = []
        where: dict[str, int] = {}
        for order, index, stop in rows:
            station = stops.parent[stop]
            if path and path[-1].station == station:
                continue  # two platforms of one station in a row
            if station in where:
                if (order, index, stop) == rows[-1]:
                    # a trip ending where it passed before (a ring, or a 6-shaped line): the
                    # line is taken to end at the stop before
                    report.notes.append(
                        f"{trip.origin}: trip returns to {stops.station_of(stop).name!r} "
                        f"at its end (a loop); the line is taken to end one stop before"
                    )
                    if station == path[0].station:
                        path = _ring_cut(path)
                    break
                raise FeedError(
                    table.origin(index, "stop_id", stop),
                    f"trip {trip.id!r} passes station {stops.station_of(stop).name!r} twice "
                    f"(first at line {table.origin(where[station]).line}): a loop; a line of "
                    f"the game runs end to end (leave the route out with --lines)",
                )
            where[station] = index
            path.append(LineStop(station, stops.codes[stop]))
        if len(path) > MAX_LINE_STOPS:
            raise FeedError(
                trip.origin, f"trip stops at {len(path)} stations; at most {MAX_LINE_STOPS}"
            )
        key = (trip.route, tuple(s.station for s in path))
        if len(path) >= 2 and key not in seen:
            seen.add(key)
            by_route[trip.route].append(Sequence(tuple(path), trip.origin))
    return by_route


def _ring_cut(path: list[LineStop]) -> list[LineStop]:
    """A ring opened at one place whichever way and wherever its trip began: at its least
    station id, running first towards the lesser of that station's two neighbours."""
    start = min(range(len(path)), key=lambda i: path[i].station)
    path = path[start:] + path[:start]
    if len(path) > 2 and path[-1].station < path[1].station:
        path = [path[0], *reversed(path[1:])]
    return path


def _line(
    route: Route, sequences: list[Sequence], stops: Stops, report: ImportReport
) -> Line | None:
    """A route's main sequence (its longest trip, oriented as the first such trip runs) and its
    branches (sequences not within one kept before, oriented along the main one)."""
    if not sequences:
        report.notes.append(
            f"{route.origin}: route {route.id!r} has no trip of two stations; left out"
        )
        return None
    main = max(sequences, key=lambda s: len(s.stops))  # the first of the longest
    kept: list[tuple[LineStop, ...]] = [main.stops]
    for sequence in sequences:
        path = _along(sequence.stops, main.stops)
        if any(_within(path, other) for other in kept):
            continue
        if len(kept) > MAX_BRANCHES:
            report.notes.append(
                f"{route.origin}: route {route.id!r} has more than {MAX_BRANCHES} branches; "
                f"the others are left out"
            )
            break
        kept.append(path)
    return Line(
        route.id, route.short_name, route.long_name, route.colour, route.route_type,
        tuple(kept), route.origin,
    )  # fmt: skip


def _along(path: tuple[LineStop, ...], main: tuple[LineStop, ...]) -> tuple[LineStop, ...]:
    """`path` or its reverse: the one whose stations shared with `main` come in main's order."""
    index = {s.station: i for i, s in enumerate(main)}
    shared = [index[s.station] for s in path if s.station in index]
    if len(shared) >= 2 and shared[0] > shared[-1]:
        return path[::-1]
    if len(shared) < 2 and shared and path[-1].station in index:
        return path[::-1]  # a branch joining the main line at its far end runs away from it
    return path


def _within(path: tuple[LineStop, ...], other: tuple[LineStop, ...]) -> bool:
    """Whether `path`'s stations run, in order, as one stretch of `other`'s (either way)."""
    stations = [s.station for s in path]
    theirs = [s.station for s in other]
    for candidate in (stations, stations[::-1]):
        n = len(candidate)
        if any(theirs[i : i + n] == candidate for i in range(len(theirs) - n + 1)):
            return True
    return False


# --------------------------------------------------------------------------------- transfers


def _transfers(
    table: Table | None, stops: Stops, served: set[str], lines: set[str]
) -> tuple[Transfer, ...]:
    """transfers.txt's links between two stations of the network (types 0-2: a change is
    possible), with the routes they name."""
    if table is None:
        return ()
    found: dict[tuple, Transfer] = {}
    for index, row in enumerate(table.rows):
        ends = []
        for column in ("from_stop_id", "to_stop_id"):
            stop = _required(table, index, row, column)
            if stop not in stops.parent:
                raise FeedError(
                    table.origin(index, column, stop), f"stop {stop!r} is not in stops.txt"
                )
            ends.append(stops.parent[stop])
        kind = row.get("transfer_type") or "0"
        if kind not in ("0", "1", "2") or ends[0] == ends[1]:
            continue
        if not all(end in served for end in ends):
            continue
        from_line, to_line = row.get("from_route_id"), row.get("to_route_id")
        if (from_line is not None and from_line not in lines) or (
            to_line is not None and to_line not in lines
        ):
            continue
        transfer = Transfer(ends[0], ends[1], from_line, to_line, table.origin(index))
        key = (transfer.from_station, transfer.to_station, from_line, to_line)
        found.setdefault(key, transfer)
    return tuple(found.values())


# ---------------------------------------------------------------------------------- helpers


def _by_id(table: Table, column: str) -> Iterator[tuple[int, Row, str]]:
    """Each row with its id in `column`, which must be there and never repeat in the file."""
    first: dict[str, int] = {}
    for index, row in enumerate(table.rows):
        ident = _required(table, index, row, column)
        if ident in first:
            raise FeedError(
                table.origin(index, column, ident),
                f"{column.removesuffix('_id')} id listed twice "
                f"(first {table.origin(first[ident], ident=ident)})",
            )
        first[ident] = index
        yield index, row, ident


def _required(table: Table, index: int, row: Row, column: str) -> str:
    value = row.get(column)
    if value is None:
        raise FeedError(table.origin(index, column), f"{column} is empty")
    return value


def _with_column(origin: Origin, column: str) -> Origin:
    return Origin(origin.file, origin.line, column, origin.ident)
