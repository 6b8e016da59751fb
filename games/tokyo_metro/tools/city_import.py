"""Tokyo Metro's board for any city's network (`metro import gtfs FEED --game tokyo_metro`).

The network is laid out as the Tokyo board is (`board.py`, method in `build_data.py`), with a
recipe made from the network itself, all of it RECONSTRUCTED (the rules give no numbers for a
city they do not ship):
- lines: at most MAX_LINES, in the feed's order (the income-track order), each its route's
  short name when that is one letter and the letters are distinct, else A, B, C, ... in order;
  its colour from the feed (else PALETTE); only its main sequence (branches are left out);
- a station of more than three lines is split into stations of three lines, side by side;
- the grid has room for about ROOMS[0] grid points a station (more if they do not fit), its
  sides in the shape of the city within ASPECT (a squarer picture has room for more labels:
  the renderer sizes labels by the picture's larger side);
- the board's area is the box round every station (Tokyo's: round its transfer stations);
- the projection is pulled WARP of the way to rank order (Tokyo's: 0.5), then the stations
  are laid out schematically (schematic.py: octilinear links, every label with room);
- the income track's top and the disc spots are scaled from Tokyo's by the board's stops and
  lines (board.py, scaled_income);
- the rulebook's stations holding two stops of one line (Tokyo's H6-H7) are not made.
"""

from __future__ import annotations

import dataclasses
import math
import string

from games.tokyo_metro.tools.board import Recipe, board_from_network
from games.tokyo_metro.tools.common import Geo, LayoutError, coords_from_network
from metro.network import Network
from metro.network.names import clean_name

MAX_LINES = 20
MIN_LINES = 2
WARP = 0.7  # towards rank order: a city's crowded centre spread for its labels
ASPECT = (0.8, 1.2)  # the grid's width over its height, at least and at most
ROOMS = (2.5, 3.5, 5.0)  # interior grid points a station, tried in turn
PALETTE = ("#e60012", "#0079c2", "#009944", "#f39800", "#8f76d6", "#b5b5ac", "#00a7db",
           "#d7c447", "#9b7cb6", "#e85298", "#6cbb5a", "#9c5e31")  # fmt: skip


def map_from_network(network: Network) -> tuple[str, list[str]]:
    """The board's map file for `network`, and notes on what was left out or made up."""
    notes: list[str] = []
    if not MIN_LINES <= len(network.lines) <= MAX_LINES:
        raise ValueError(
            f"a Tokyo Metro board has {MIN_LINES} to {MAX_LINES} lines; the feed gives "
            f"{len(network.lines)} (choose some with --lines)"
        )
    network = _relabelled(network, notes)
    for room in ROOMS:  # a crowded centre may need a finer grid
        # labels kept apart on every grid but the last, which takes what room there is
        recipe = dataclasses.replace(_recipe(network, room), labels_apart=room != ROOMS[-1])
        try:
            return board_from_network(network, recipe), notes
        except LayoutError as error:
            failed = error
    raise ValueError(f"the stations do not fit a grid of {ROOMS[-1]} points a station: {failed}")


def _relabelled(network: Network, notes: list[str]) -> Network:
    """The network with names fit for a map file and one-letter line names (main lines only)."""
    shorts = [line.short_name for line in network.lines]
    own = all(len(s) == 1 and s.isalpha() and s.isascii() for s in shorts) and len(
        set(shorts)
    ) == len(shorts)
    letters = shorts if own else list(string.ascii_uppercase[: len(network.lines)])
    stations = tuple(dataclasses.replace(s, name=clean_name(s.name)) for s in network.stations)
    lines = []
    for line, letter in zip(network.lines, letters, strict=True):
        if len(line.branches) > 1:
            notes.append(
                f"{line.origin}: line {line.name!r} has {len(line.branches) - 1} branch(es); "
                f"the board keeps its main line only"
            )
        long = clean_name(line.long_name or line.short_name or line.id)
        for suffix in (" Line", " line"):
            long = long.removesuffix(suffix)
        if not own:
            notes.append(f"{line.origin}: line {line.name!r} is {letter} on the board")
        main = tuple(
            dataclasses.replace(stop, code=code)
            for stop, code in zip(line.stops, _codes(letter, line), strict=True)
        )
        lines.append(dataclasses.replace(line, short_name=letter, long_name=long, branches=(main,)))
    return dataclasses.replace(network, stations=stations, lines=tuple(lines))


def _codes(letter: str, line) -> list[str]:
    """Each stop's code on the board: the line's letter and the feed's code made fit for a
    comment, unique (the board keys its stops by code; a stop a feed lists twice gets its place)."""
    codes: list[str] = []
    for place, stop in enumerate(line.stops, start=1):
        code = f"{letter}:{clean_name(stop.code)}"
        codes.append(code if code not in codes else f"{code} ({place})")
    return codes


def _recipe(network: Network, room: float) -> Recipe:
    letters = tuple(line.short_name for line in network.lines)
    colours = {
        line.short_name: line.colour or PALETTE[i % len(PALETTE)]
        for i, line in enumerate(network.lines)
    }
    splits = {}
    for name in sorted({s.name for s in network.stations}):
        serving = [
            line.short_name
            for line in network.lines
            if any(network.station(stop.station).name == name for stop in line.stops)
        ]
        if len(serving) > 3:
            groups = [serving[i : i + 3] for i in range(0, len(serving), 3)]
            splits[name] = [
                (
                    f"{name} {n}",
                    f"{name} ({n})",
                    "".join(group),
                    0.3 * (2 * n - 1 - len(groups)),
                    0.0,
                )
                for n, group in enumerate(groups, start=1)
            ]
    columns, rows = _grid(network, room)
    return Recipe(
        city=clean_name(network.name),
        line_order=letters,
        colours=colours,
        header=(
            f"# {clean_name(network.name)} board for Tokyo Metro: {len(letters)} lines, their stops and stations,",
            "# the grid of squares and the income track.  RECONSTRUCTED by `metro import gtfs`",
            "# from a GTFS feed (stations, lines and transfers as the feed gives them), laid out",
            "# as the Tokyo board is (games/tokyo_metro/tools/board.py), then schematically",
            "# (schematic.py: lines at multiples of 45° where they can be, labels with room).",
            "# Kept: every transfer station, and minor stations up to {target} stops a line.",
        ),
        writer="written by metro import gtfs: import again rather than edit",
        area_from_transfers=False,
        columns=columns,
        rows=rows,
        splits=splits,
        warp=WARP,
        schematic=True,
        scaled_income=True,
    )


def _grid(network: Network, room: float) -> tuple[int, int]:
    """Squares across and down: about `room` interior grid points a station, in the city's shape."""
    coords = coords_from_network(network)
    geo = Geo(coords)
    points = [geo.km(name) for name in coords]
    width = max(p[0] for p in points) - min(p[0] for p in points)
    height = max(p[1] for p in points) - min(p[1] for p in points)
    aspect = min(ASPECT[1], max(ASPECT[0], width / height if height > 0 else ASPECT[1]))
    # at most every station, at most a line's target of stops a line
    area = room * min(len(coords), Recipe.target_stops * len(network.lines))
    across = max(6, round(math.sqrt(area * aspect)))
    down = max(6, math.ceil(area / across))
    return across + 1, down + 1
