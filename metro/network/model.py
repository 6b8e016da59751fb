"""The neutral city network: what a transit feed says about stations, lines and transfers."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class Origin:
    """Where a fact of a network came from: a file, its line (1 = the header) and column, and
    the feed's id of the thing (a stop or route id), for findings that name them."""

    file: str
    line: int | None = None
    column: str | None = None
    ident: str | None = None

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        parts = [where]
        if self.column is not None:
            parts.append(f"column {self.column}")
        if self.ident is not None:
            parts.append(repr(self.ident))
        return ", ".join(parts)


class FeedError(ValueError):
    """A feed that cannot be read as a network: where (file, line, column) and what is wrong."""

    def __init__(self, origin: Origin, message: str):
        super().__init__(f"{origin}: {message}")
        self.origin = origin
        self.message = message


@dataclass(frozen=True)
class Station:
    """A station (a GTFS parent station, or a stop with none): the place people change lines."""

    id: str
    name: str
    lat: float
    lon: float
    origin: Origin = field(default=Origin("stops.txt"), compare=False)


@dataclass(frozen=True)
class LineStop:
    """A line's stop at a station, with the code printed for it (GTFS stop_code, else its id)."""

    station: str
    code: str


@dataclass(frozen=True)
class Line:
    """A line (a GTFS route): its names, colour and mode, and its stop sequences: the main one
    first (the longest), then branches that are not part of it."""

    id: str
    short_name: str
    long_name: str
    colour: str | None
    route_type: int
    branches: tuple[tuple[LineStop, ...], ...]
    origin: Origin = field(default=Origin("routes.txt"), compare=False)

    @property
    def stops(self) -> tuple[LineStop, ...]:
        """The main sequence."""
        return self.branches[0]

    @property
    def name(self) -> str:
        """What people call it: the short name, else the long name, else the id."""
        return self.short_name or self.long_name or self.id


@dataclass(frozen=True)
class Transfer:
    """A walking link between two stations, for every line there or (a GTFS transfer with
    from_route_id / to_route_id) only from one line to another."""

    from_station: str
    to_station: str
    from_line: str | None = None
    to_line: str | None = None
    origin: Origin = field(default=Origin("transfers.txt"), compare=False)


@dataclass(frozen=True)
class Network:
    """A city's network: stations sorted by id, lines in the feed's order, transfers."""

    name: str
    stations: tuple[Station, ...]
    lines: tuple[Line, ...]
    transfers: tuple[Transfer, ...] = ()

    def station(self, ident: str) -> Station:
        """The station of that id."""
        return self._station_by_id[ident]

    def line(self, ident: str) -> Line:
        """The line of that id."""
        return next(line for line in self.lines if line.id == ident)

    def lines_at(self, station: str) -> list[Line]:
        """The lines stopping at a station, in the network's order."""
        return self._lines_by_station.get(station, [])

    # Indexes made on first use: a frozen dataclass may still cache in its __dict__.
    @cached_property
    def _station_by_id(self) -> dict[str, Station]:
        return {s.id: s for s in self.stations}

    @cached_property
    def _lines_by_station(self) -> dict[str, list[Line]]:
        found: dict[str, list[Line]] = {}
        for line in self.lines:
            for station in dict.fromkeys(s.station for b in line.branches for s in b):
                found.setdefault(station, []).append(line)
        return found

    def transfer_lines(self, line: Line, station: str) -> list[Line]:
        """The other lines a rider of `line` at `station` can change to: those stopping there,
        and those at stations linked by a transfer (only the named line where the transfer
        names one), in the network's order."""
        reachable = {other.id for other in self.lines_at(station)}
        for transfer in self.transfers:
            if transfer.from_station != station:
                continue
            if transfer.from_line not in (None, line.id):
                continue
            if transfer.to_line is not None:
                reachable.add(transfer.to_line)
            else:
                reachable |= {other.id for other in self.lines_at(transfer.to_station)}
        reachable.discard(line.id)
        return [other for other in self.lines if other.id in reachable]
