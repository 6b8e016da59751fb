"""The Ticket to Ride USA map (games/ticket_to_ride/usa.metro) agrees with its public facts.

The facts are the game's own copies in games/ticket_to_ride/data (their sources: SOURCES.md
there): every route, ticket and city of the committed map is checked against them, field by
field, through the map as the compiler loads it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from compiler import compile_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "games", "ticket_to_ride")
DATA = os.path.join(GAME, "data")
MAP_FILE = os.path.join(DATA, "ticket_to_ride_usa.tsv")
COORDS_FILE = os.path.join(DATA, "usa_city_coords.tsv")
# the data's colour names -> the rules' RouteColor values
COLOURS = {"pink": "purple"}


@dataclass(frozen=True)
class Table:
    """One table of a data file: its column names and its rows (dicts by column)."""

    columns: list[str]
    rows: list[dict[str, str]]


def read_tables(path: str) -> dict[str, Table]:
    """The tables of a data file: '[name]' starts a table (one unnamed table without it)."""
    tables: dict[str, Table] = {}
    name, columns = "", None
    with open(path, encoding="utf-8") as handle:
        for line in handle.read().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            if line.startswith("[") and line.endswith("]"):
                name, columns = line[1:-1], None
            elif columns is None:
                columns = line.split("\t")
                tables[name] = Table(columns, [])
            else:
                fields = line.split("\t")
                assert len(fields) == len(columns), (path, line)
                tables[name].rows.append(dict(zip(columns, fields, strict=True)))
    return tables


@pytest.fixture(scope="module")
def board():
    ctx = compile_game(GAME, stop_after="validate_maps")
    return ctx


def elements(ctx, kind: str) -> dict[str, dict]:
    """The elements of a kind by id: every field, references and enum values by name."""
    ids = ctx.data.ids
    colours = ctx.checked.enum_values["RouteColor"]
    out = {}
    for i, ident in enumerate(ids[kind]):
        values = {name: column[i] for name, column in ctx.data.fields[kind].items()}
        for name in ("a", "b"):
            if name in values:
                values[name] = ids["city"][values[name]]
        if kind == "route":
            values["color"] = colours[values["color"]]
            values["twin"] = None if values["twin"] is None else ids["route"][values["twin"]]
        out[ident] = values
    return out


def test_the_data_files_and_their_sources_are_in_the_repository():
    for name in ("ticket_to_ride_usa.tsv", "usa_city_coords.tsv", "SOURCES.md"):
        assert os.path.isfile(os.path.join(DATA, name)), name


def test_every_route_agrees_with_the_data(board):
    rows = read_tables(MAP_FILE)["routes"].rows
    assert len(rows) == 100
    doubles: dict[str, list[str]] = {}
    for row in rows:
        if row["double_group_id"]:
            doubles.setdefault(row["double_group_id"], []).append(row["id"])
    assert len(doubles) == 22 and all(len(pair) == 2 for pair in doubles.values())
    twin_of = dict(doubles.values()) | {b: a for a, b in doubles.values()}
    routes = elements(board, "route")
    assert list(routes) == [row["id"] for row in rows]
    for row in rows:
        route = routes[row["id"]]
        expected = {
            "a": row["city_a"],
            "b": row["city_b"],
            "length": int(row["length"]),
            "color": COLOURS.get(row["colour"], row["colour"]),
            "twin": twin_of.get(row["id"]),
        }
        assert route == expected, row["id"]


def test_every_ticket_agrees_with_the_data(board):
    rows = read_tables(MAP_FILE)["tickets"].rows
    tickets = elements(board, "ticket")
    assert len(rows) == len(tickets) == 30
    for ident, row in zip(tickets, rows, strict=True):
        expected = {"a": row["city_a"], "b": row["city_b"], "points": int(row["points"])}
        assert tickets[ident] == expected, ident


def test_every_city_agrees_with_the_coordinates(board):
    rows = read_tables(COORDS_FILE)[""].rows
    cities = elements(board, "city")
    assert sorted(cities) == sorted(row["city"] for row in rows)
    for row in rows:
        expected = {
            "x": int(row["board_x"]),
            "y": int(row["board_y"]),
            # the map holds millionths of a degree
            "lat": round(float(row["lat"]) * 1_000_000),
            "lon": round(float(row["lon"]) * 1_000_000),
        }
        assert cities[row["city"]] == expected, row["city"]
