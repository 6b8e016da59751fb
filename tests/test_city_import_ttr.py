"""Ticket to Ride maps from city networks (`metro import gtfs FEED --game ticket_to_ride`):
Tokyo's network through a feed made into a map that is checked and played, its routes,
colours, doubles and tickets in the USA map's proportions, and small networks."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass

import pytest
from click.testing import CliRunner

pytest.importorskip("partridge", reason="the import extra (partridge) is not installed")

from games.ticket_to_ride.tools.city_choice import choose
from games.ticket_to_ride.tools.city_import import map_from_network
from games.ticket_to_ride.tools.route_plan import lengths
from metro.cli import main
from metro.network.feed_writer import write_feed
from tests.test_city_import import small_feed, tokyo_network

GAME = "ticket_to_ride"
CARD_COLOURS = ("purple", "white", "blue", "yellow", "orange", "black", "red", "green")
CITY = re.compile(r'  city "([^"]+)"\(x: (\d+), y: (\d+), lat: (-?\d+), lon: (-?\d+)\)')
ROUTE = re.compile(r'  route (R\d+)\("([^"]+)", "([^"]+)", (\d+), (\w+)(?:, twin: (R\d+))?\)$')
TICKET = re.compile(r'  ticket (T\d+)\("([^"]+)", "([^"]+)", (\d+)\)$')


@dataclass(frozen=True)
class Parsed:
    """A written map's cities (name -> x, y), routes and tickets, read back from its text."""

    cities: dict[str, tuple[int, int]]
    routes: list[tuple[str, str, str, int, str, str | None]]
    tickets: list[tuple[str, str, str, int]]


def parse(text: str) -> Parsed:
    lines = text.splitlines()
    cities = {m[1]: (int(m[2]), int(m[3])) for m in map(CITY.match, lines) if m}
    routes = [(m[1], m[2], m[3], int(m[4]), m[5], m[6]) for m in map(ROUTE.match, lines) if m]
    tickets = [(m[1], m[2], m[3], int(m[4])) for m in map(TICKET.match, lines) if m]
    entries = sum(1 for line in lines if re.match(r"  (city|route|ticket) ", line))
    assert entries == len(cities) + len(routes) + len(tickets)  # every entry read back
    return Parsed(cities, routes, tickets)


@pytest.fixture(scope="module")
def tokyo(tmp_path_factory):
    """The Tokyo network written as a feed and imported: the command's result and the map."""
    folder = tmp_path_factory.mktemp("ttr")
    feed = str(folder / "tokyo.zip")
    write_feed(tokyo_network(), feed)
    out = folder / "tokyo_ttr.metro"
    result = CliRunner().invoke(
        main, ["import", "gtfs", feed, "--game", GAME, "--name", "Tokyo", "-o", str(out)]
    )
    return result, out


def test_the_tokyo_map_is_written_checked_and_played(tokyo):
    result, out = tokyo
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and "checked: Ticket to Ride" in result.output
    assert re.search(r"city \d+, route \d+, ticket \d+ \(from 12 lines", result.output)
    text = out.read_text(encoding="utf-8")
    assert "RECONSTRUCTED" in text.split("map ")[0]  # said in the header comment
    assert text == map_from_network(tokyo_network())[0]  # the feed loses nothing it uses
    checked = CliRunner().invoke(main, ["check", GAME, "--map", str(out)])
    assert checked.exit_code == 0 and "ok: Ticket to Ride" in checked.output, checked.output
    played = CliRunner().invoke(
        main,
        ["simulate", GAME, "--map", str(out), "--players", "3", "--games", "5", "--seed", "1"],
    )
    assert played.exit_code == 0 and "5 games, 3 players" in played.output, played.output


def test_cities_are_the_major_stations(tokyo):
    parsed = parse(tokyo[1].read_text(encoding="utf-8"))
    assert 30 <= len(parsed.cities) <= 37  # at most 36, and one added to join the map
    # the great interchanges (4 lines or more, or their transfer groups) are all on the map
    for name in ("Otemachi", "Iidabashi", "Nagatacho", "Ginza"):
        assert name in parsed.cities
    assert len(set(parsed.cities.values())) == len(parsed.cities)  # no two on one spot


def test_route_lengths_spread_over_one_to_six_by_distance(tokyo):
    parsed = parse(tokyo[1].read_text(encoding="utf-8"))
    counts = Counter(r[3] for r in parsed.routes)
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert counts.most_common(1)[0][0] == 2  # as on the USA map, most routes are 2 long
    # longer along the line, never shorter on the map
    network = tokyo_network()
    choice = choose(network, {s.id: s.name for s in network.stations})
    length = lengths(choice.links)
    by_km = sorted(choice.links, key=lambda k: k.km)
    assert all(length[(p.a, p.b)] <= length[(q.a, q.b)] for p, q in itertools.pairwise(by_km))


def test_colours_are_balanced_by_total_length(tokyo):
    parsed = parse(tokyo[1].read_text(encoding="utf-8"))
    spaces = Counter()
    for route in parsed.routes:
        spaces[route[4]] += route[3]
    cards = [spaces[c] for c in CARD_COLOURS]
    # stated tolerance: every card colour within 3 spaces of every other; grey 25-35% of all
    assert max(cards) - min(cards) <= 3, spaces
    assert 0.25 <= spaces["gray"] / sum(spaces.values()) <= 0.35, spaces
    assert set(spaces) == {*CARD_COLOURS, "gray"}


def test_doubles_are_twinned_both_ways(tokyo):
    parsed = parse(tokyo[1].read_text(encoding="utf-8"))
    by_id = {r[0]: r for r in parsed.routes}
    twins = [r for r in parsed.routes if r[5]]
    links = {frozenset(r[1:3]) for r in parsed.routes}
    assert 0.2 <= len(twins) / 2 / len(links) <= 0.35  # the USA map: 22 of 78 links
    for route in twins:
        twin = by_id[route[5]]
        assert twin[5] == route[0] and set(twin[1:3]) == set(route[1:3])
        assert twin[4] != route[4] or route[4] == "gray"
    # one route a pair of cities, but for doubles
    assert len(parsed.routes) == len(links) + len(twins) // 2


def test_tickets_are_worth_their_shortest_path(tokyo):
    parsed = parse(tokyo[1].read_text(encoding="utf-8"))
    assert len(parsed.tickets) == 30
    pairs = [frozenset(t[1:3]) for t in parsed.tickets]
    assert len(set(pairs)) == len(pairs)
    shortest = _floyd(parsed)
    for _, a, b, points in parsed.tickets:
        assert points == shortest[(a, b)], (a, b)
    assert min(t[3] for t in parsed.tickets) >= 4
    # spread over the map: most cities on a ticket, none on more than three
    on = Counter(c for t in parsed.tickets for c in t[1:3])
    assert len(on) >= 0.75 * len(parsed.cities) and max(on.values()) <= 3


def _floyd(parsed: Parsed) -> dict[tuple[str, str], int]:
    """All shortest route lengths, by Floyd and Warshall (not the importer's Dijkstra)."""
    far = 10**9
    dist = {(a, b): 0 if a == b else far for a in parsed.cities for b in parsed.cities}
    for _, a, b, length, _, _ in parsed.routes:
        dist[(a, b)] = dist[(b, a)] = min(dist[(a, b)], length)
    for k, i, j in itertools.product(parsed.cities, repeat=3):
        if dist[(i, k)] + dist[(k, j)] < dist[(i, j)]:
            dist[(i, j)] = dist[(i, k)] + dist[(k, j)]
    return dist


def test_the_same_network_gives_the_same_bytes():
    network = tokyo_network()
    assert map_from_network(network) == map_from_network(network)


def test_a_small_network_gives_a_small_map(tmp_path):
    feed = small_feed(
        tmp_path / "feed",
        stops="stop_id,stop_name,stop_lat,stop_lon\nA,Alpha,51.50,-0.10\nB,Beta,51.51,-0.11\n"
        "C,Gamma,51.52,-0.12\nD,Delta,51.50,-0.13\nE,Epsilon,51.53,-0.09\n"
        "F,Zeta,51.54,-0.14\nG,Eta,51.49,-0.08\n",
        stop_times="trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
        "r0,,,A,1\nr0,,,B,2\nr0,,,C,3\nr0,,,F,4\nu0,,,D,1\nu0,,,B,2\nu0,,,E,3\nu0,,,G,4\n",
    )
    out = tmp_path / "small.metro"
    result = CliRunner().invoke(main, ["import", "gtfs", feed, "--game", GAME, "-o", str(out)])
    assert result.exit_code == 0, result.output
    parsed = parse(out.read_text(encoding="utf-8"))
    assert len(parsed.cities) == 7  # every station of a small network
    assert len(parsed.tickets) == 15  # five players are dealt three each
    assert {r[3] for r in parsed.routes} <= set(range(1, 7))
    played = CliRunner().invoke(
        main, ["simulate", GAME, "--map", str(out), "--players", "5", "--games", "2"]
    )
    assert played.exit_code == 0, played.output


def test_a_network_too_small_for_a_game_is_refused_naming_the_bound(tmp_path):
    feed = small_feed(
        tmp_path / "feed",
        stop_times="trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
        "r0,,,A,1\nr0,,,B,2\nr0,,,C,3\nu0,,,D,1\nu0,,,B,2\n",
    )
    out = tmp_path / "tiny.metro"
    result = CliRunner().invoke(main, ["import", "gtfs", feed, "--game", GAME, "-o", str(out)])
    assert result.exit_code == 1
    assert "needs at least 6 cities" in result.output and "has 4 places" in result.output
    assert not out.exists()
