"""The USA board: routes and destination tickets, read from the public data file (tab-separated).

The file has a `[routes]` table (id, city_a, city_b, length, colour, double_group_id) and a
`[tickets]` table (city_a, city_b, points); tickets are numbered T01, T02, ... in file order.
The data's `pink` is the purple card colour.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_DATA = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "..",
    "games",
    "ticket_to_ride",
    "data",
    "ticket_to_ride_usa.tsv",
)
COLOUR_NAMES = {"pink": "purple"}


@dataclass(frozen=True)
class Route:
    """One track between two cities."""

    id: str
    a: str
    b: str
    length: int
    colour: str  # a card colour, or "gray" (any one colour)
    twin: str | None  # the other track of a double route


@dataclass(frozen=True)
class Ticket:
    """A destination ticket."""

    id: str
    a: str
    b: str
    points: int


@dataclass(frozen=True)
class Board:
    """Routes by id (in id order) and tickets by id (in id order)."""

    routes: dict[str, Route]
    tickets: dict[str, Ticket]


def read_board(path: str = DEFAULT_DATA) -> Board:
    """The board in the data file at `path`."""
    tables: dict[str, list[list[str]]] = {}
    current = None
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            line = raw.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if line.startswith("[") and line.endswith("]"):
                current = tables.setdefault(line[1:-1], [])
                continue
            if current is not None:
                current.append(line.split("\t"))
    route_rows = _rows(tables.get("routes", []))
    groups: dict[str, list[str]] = {}
    for row in route_rows:
        if row.get("double_group_id"):
            groups.setdefault(row["double_group_id"], []).append(row["id"])
    routes = {}
    for row in route_rows:
        group = groups.get(row.get("double_group_id") or "", [])
        twin = next((other for other in group if other != row["id"]), None)
        colour = COLOUR_NAMES.get(row["colour"], row["colour"])
        routes[row["id"]] = Route(
            row["id"], row["city_a"], row["city_b"], int(row["length"]), colour, twin
        )
    tickets = {}
    for number, row in enumerate(_rows(tables.get("tickets", [])), 1):
        ticket_id = f"T{number:02d}"
        tickets[ticket_id] = Ticket(ticket_id, row["city_a"], row["city_b"], int(row["points"]))
    return Board(dict(sorted(routes.items())), tickets)


def _rows(table: list[list[str]]) -> list[dict[str, str]]:
    """A table's rows as dicts keyed by its header row."""
    if not table:
        return []
    header = table[0]
    return [
        dict(zip(header, row + [""] * (len(header) - len(row)), strict=False)) for row in table[1:]
    ]
