"""A Ticket to Ride map for any city's network (`metro import gtfs FEED --game ticket_to_ride`).

All of it RECONSTRUCTED, in the proportions of the USA map (usa.metro):
- cities: the major places (a station with those it has transfers to), served by the most
  lines, line ends first among equals, spread over the city (city_choice.py);
- routes: between cities following each other along a line; lengths 1-6 from the distance
  along the line, in the USA map's proportions; doubles where lines share a stretch, then on
  the busiest links; colours balanced by total length, grey for the USA share (route_plan.py);
- tickets: pairs of cities worth their shortest path's total length (route_plan.py);
- positions: a schematic layout of the cities (metro/network/layout.py) on the board picture.
"""

from __future__ import annotations

from collections import Counter

from games.ticket_to_ride.tools.city_choice import Choice, choose
from games.ticket_to_ride.tools.route_plan import (
    Route,
    Ticket,
    doubles,
    lengths,
    routes,
    tickets,
)
from metro.network import Network
from metro.network.layout import Frame, schematic
from metro.network.names import clean_name

MIN_CITIES = 6  # fifteen pairs: five players' three tickets each
BOARD = Frame(left=70, top=90, width=1630, height=935)  # the USA map's part of the picture
CHARACTER = 15  # a label character's width on the picture, pixels (for label spacing)


def map_from_network(network: Network) -> tuple[str, list[str]]:
    """The map file for `network`, and notes on what was left out or made up."""
    names = {s.id: clean_name(s.name) for s in network.stations}
    choice = choose(network, names)
    if len(choice.cities) < MIN_CITIES:
        raise ValueError(
            f"a Ticket to Ride map needs at least {MIN_CITIES} cities (fifteen tickets: five "
            f"players draw three each); this network has {len(choice.cities)} places for them "
            "(stations linked by transfers count as one)"
        )
    length = lengths(choice.links)
    made = routes(choice.links, length, doubles(choice.links, length))
    deck = tickets(choice.cities, length)
    places = {c: choice.places[c] for c in choice.cities}
    at = schematic(
        {c: (p.lat, p.lon) for c, p in places.items()},
        [(link.a, link.b) for link in choice.links],
        BOARD,
        {c: CHARACTER * min(len(c), 16) for c in places},
    )
    left_out = len(choice.places) - len(choice.cities)
    notes = [
        *choice.notes,
        f"{len(choice.cities)} cities from {len(choice.places)} places (stations linked by "
        f"transfers taken together){f'; {left_out} left out' if left_out else ''}",
        f"made up: {len(made)} routes (lengths from distances, colours, "
        f"{sum(1 for r in made if r.twin) // 2} double pairs), {len(deck)} tickets worth their "
        "shortest paths",
    ]
    return _text(network.name, choice, at, made, deck), notes


def _text(city: str, choice: Choice, at, made: list[Route], deck: list[Ticket]) -> str:
    per_colour = Counter()
    for route in made:
        per_colour[route.colour] += route.length
    out = [
        f"# {clean_name(city)} for Ticket to Ride: {len(choice.cities)} cities, {len(made)} routes "
        f"({sum(1 for r in made if r.twin) // 2} double pairs), {len(deck)} tickets.",
        "# RECONSTRUCTED by `metro import gtfs` from a GTFS feed, with the game's importer",
        "# (games/ticket_to_ride/tools/city_import.py): cities are the stations served by the most",
        "# lines (line ends next), with those they have transfers to; a route joins two cities",
        "# following each other on a line, its length 1-6 from the distance along the line in the",
        "# USA map's proportions; doubles where lines share a stretch, then on the busiest links;",
        "# colours balanced by total length; tickets are worth their shortest path. Positions",
        "# (x, y) are a schematic layout (metro/network/layout.py), latitude/longitude in",
        "# millionths of a degree. Written by metro import gtfs: import again rather than edit.",
        "# spaces by colour: " + ", ".join(f"{c} {per_colour[c]}" for c in sorted(per_colour)),
        f'map "{clean_name(city)}" for "Ticket to Ride" {{',
        "  # cities: kind city(x, y, lat, lon)",
    ]
    for name in choice.cities:
        place = choice.places[name]
        x, y = at[name]
        lat, lon = round(place.lat * 1e6), round(place.lon * 1e6)
        out.append(
            f'  city "{name}"(x: {x}, y: {y}, lat: {lat}, lon: {lon})'
            f"  # lines {', '.join(sorted(clean_name(line) for line in place.lines))}"
        )
    out += ["", "  # routes: kind route(a, b, length, color, twin)"]
    for r in made:
        twin = f", twin: {r.twin}" if r.twin else ""
        out.append(f'  route {r.id}("{r.a}", "{r.b}", {r.length}, {r.colour}{twin})')
    out += ["", "  # destination tickets: kind ticket(a, b, points)"]
    out += [f'  ticket {t.id}("{t.a}", "{t.b}", {t.points})' for t in deck]
    out.append("}")
    return "\n".join(out) + "\n"
