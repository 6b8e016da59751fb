"""Build the reconstructed OSAKA METRO component data: osaka.metro (board) and cards.metro.

We do not have the printed components of the OSAKA METRO EXPANSION, so this script
RECONSTRUCTS them from public facts and writes them as map files for
games/tokyo_metro/schema.metro (with the expansion's Act values InvestChip, Sell and Copy).
Run it from anywhere:

    python games/tokyo_metro/osaka/tools/build_data.py [--data DIR] [--out DIR] [--check]

``--data`` is the folder holding ``osaka_subway_lines.tsv`` (the real lines, stations in order,
transfers) and ``osaka_station_coords.tsv`` (a WGS84 point per station name); it defaults to
``games/tokyo_metro/osaka/data`` (their sources: ``SOURCES.md`` there).  ``--out`` defaults to
``games/tokyo_metro/osaka``; ``--check`` writes nothing and exits with status 1 when a file
there is not what the script would write.  A missing or malformed data file is reported in one
line (file, line, what is wrong), with exit status 2.  The output is deterministic: the same
inputs always give byte-identical files.

What the rulebook fixes (OSAKA METRO EXPANSION rulebook: 'Contents', 'Setup', 'Gameplay')
------------------------------------------------------------------------------------------
10 lines on the income track, from M down: M, Bus, T, Y, C, I, S, N, K, P (the action-card
colour pairs M/Bus, T/Y, C/I, S/N, K/P follow that order); 28 stock cards, 1, 2, 3 or 4 a line;
1-4 disc spots a line; 8 trains, 2 trams (P) and 2 buses; P and Bus have two end stops that are
parts of stations, joined by small circles that are no station; 40 action cards, 5 decks of 8,
back dots 1 and 2 only; no Start, Bid or Card action; a second Invest (paid with an action chip),
Sell and Copy.

How the board is reconstructed
------------------------------
1. Stops.  ``STOPS`` lists, per train line, the real stations kept, in the data's order (every
   transfer station of the eight lines, plus a few minor ones, 8-11 a line); the script checks
   them against the lines file.  P is the real New Tram from Cosmosquare (stop 1) to
   Suminoekoen; its ends are stations, and ``SMALL_CIRCLES`` real New Tram stations in between
   become small circles.  Bus has no rail equivalent: it is modelled on the Imazato Liner BRT,
   Imazato (stop 1) to Tennoji (Abenobashi), with ``BUS_CIRCLES`` small circles spread evenly
   along the way.
2. Stations.  Stops of one real station complex form one station: the same name (Honmachi is
   spelled Hommachi on Y and C), and the three Umeda stations (Umeda, Higashi-Umeda,
   Nishi-Umeda) listed as transfers of each other.  No complex has more than three stops, the
   Bus ends included (Imazato S+I+Bus, Tennoji M+T+Bus), so none is split.
3. Grid.  As for Tokyo: station points are projected (equirectangular, km), each axis is warped
   halfway towards rank order (so the dense centre gets room and the bay shrinks), and scaled onto
   the interior grid points of a ``COLUMNS`` x ``ROWS`` rectangle of squares.  Every station gets
   its own grid point by a minimum-cost assignment.  The first stop of a station sits on that
   point and touches the 4 squares around it; a second / third stop sits on the street just
   east/south/west/north of it and touches the 2 squares along that street (the third takes the
   perpendicular street, so all stops of a station share a square).  A small circle lies inside
   one square: the free square nearest its place (New Tram: the real station warped the same
   way; Bus: evenly between the ends), preferring squares no station touches.
4. Lines.  ``STOCKS`` is a hand-made table (28 in all, with lines of 1, 2, 3 and 4 stocks as the
   rulebook says).  ``spots`` is 4, 3, 2 or 1 by how many transfer connections a line has (3, 3,
   2 and 2 lines, ties broken by income-track order).  Each train line has one train
   (``<line>_train``) entering at stop 1; P and Bus have two markers each, one entering at each
   end (``P_tram1`` / ``P_tram2``, ``Bus_bus1`` / ``Bus_bus2``).
5. Income track.  As for Tokyo (``common.track_row``), v = 0, 100, ... 6000: low = a third of
   v rounded down to ¥100 but at least ¥100 from ¥200 on, high = the rest.  The rulebook's four-owner example (¥2,000 paid 1,000 / 500 / 300 / 200) is a
   payout rule, not a track row.

The action cards (``DECKS`` below) are a hand-made table: five decks of eight cards, four with
each number of back dots (1, 2); values rising with the dots and more spots for the stronger
version of an action.  The twelve action types (loan with repay as one) are spread as
M/Bus: Move, Station; T/Y: Invest, InvestChip, Discount; C/I: Speed, Sell; S/N: Chip, Copy;
K/P: Loan (+Repay), Speculate, Bike.
"""

from __future__ import annotations

import math
import os
import sys
import textwrap
from collections import defaultdict
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
OSAKA_DIR = os.path.dirname(HERE)
GAME_DIR = os.path.dirname(OSAKA_DIR)
REPO = os.path.dirname(os.path.dirname(GAME_DIR))
if REPO not in sys.path:  # run as a script from a clone: the games package is the repository's
    sys.path.insert(0, REPO)

import itertools  # noqa: E402 - after the sys.path line above

from games.tokyo_metro.tools.board import quote  # noqa: E402
from games.tokyo_metro.tools.common import (  # noqa: E402
    Geo,
    Row,
    coords_from_network,
    network_from_tsv,
    place_stations,
    rows_from_network,
    square_id,
    track_text,
    write_files,
)
from metro.network import Network  # noqa: E402

DEFAULT_DATA = os.path.join(OSAKA_DIR, "data")
LINES_FILE = "osaka_subway_lines.tsv"
COORDS_FILE = "osaka_station_coords.tsv"

# income-track order, from the top
LINE_ORDER = ["M", "Bus", "T", "Y", "C", "I", "S", "N", "K", "P"]
TRAIN_LINES = ["M", "T", "Y", "C", "I", "S", "N", "K"]
LINE_NAMES = {
    "M": "Midosuji Line",
    "Bus": "Bus Line",
    "T": "Tanimachi Line",
    "Y": "Yotsubashi Line",
    "C": "Chuo Line",
    "I": "Imazatosuji Line",
    "S": "Sennichimae Line",
    "N": "Nagahori Tsurumi-ryokuchi Line",
    "K": "Sakaisuji Line",
    "P": "Nanko Port Town Line (New Tram)",
}
# Each line's colour on the public network maps, for the pictures (the bus, which has no rail
# line, in slate grey).
LINE_COLOURS = {
    "M": "#e5171f",
    "Bus": "#5f6b7a",
    "T": "#522886",
    "Y": "#0078ba",
    "C": "#019a66",
    "I": "#ee7b1a",
    "S": "#e44d93",
    "N": "#a9cc51",
    "K": "#814721",
    "P": "#00b2e5",
}
# Stock cards per line: 28 in all.  The two long trunk lines have 4, the short Imazatosuji line
# and the tram 2, the bus 1, the rest 3.
STOCKS = {"M": 4, "Bus": 1, "T": 4, "Y": 3, "C": 3, "I": 2, "S": 3, "N": 3, "K": 3, "P": 2}
TOTAL_STOCKS = 28
COLUMNS, ROWS = 16, 13  # the grid of squares
WARP = 0.5  # 0 = plain projection, 1 = pure rank order (per axis)
STATION_PENALTY = 0.6  # a small circle's extra distance for a square that a station touches
DIAGONAL = 0.3  # ... and for a step to the next circle across a corner

# The real stations kept on each train line, in line order (every transfer station kept).
STOPS: dict[str, list[str]] = {
    "M": [
        "Shin-Osaka",
        "Nakatsu",
        "Umeda",
        "Yodoyabashi",
        "Honmachi",
        "Shinsaibashi",
        "Namba",
        "Daikokucho",
        "Dobutsuen-Mae",
        "Tennoji",
        "Showacho",
    ],
    "T": [
        "Taishibashi-Imaichi",
        "Sekime-Takadono",
        "Miyakojima",
        "Tenjimbashisuji 6-Chome",
        "Higashi-Umeda",
        "Minamimorimachi",
        "Tanimachi 4-Chome",
        "Tanimachi 6-Chome",
        "Tanimachi 9-Chome",
        "Tennoji",
        "Abeno",
    ],
    "Y": [
        "Nishi-Umeda",
        "Higobashi",
        "Hommachi",
        "Yotsubashi",
        "Namba",
        "Daikokucho",
        "Hanazonocho",
        "Tamade",
        "Kitakagaya",
        "Suminoekoen",
    ],
    "C": [
        "Cosmosquare",
        "Osakako",
        "Bentencho",
        "Kujo",
        "Awaza",
        "Hommachi",
        "Sakaisuji-Hommachi",
        "Tanimachi 4-Chome",
        "Morinomiya",
        "Midoribashi",
    ],
    "I": [
        "Taishibashi-Imaichi",
        "Shimizu",
        "Shimmori-Furuichi",
        "Sekime-Seiiku",
        "Gamo 4-Chome",
        "Shigino",
        "Midoribashi",
        "Imazato",
    ],
    "S": [
        "Nodahanshin",
        "Awaza",
        "Nishinagahori",
        "Sakuragawa",
        "Namba",
        "Nippombashi",
        "Tanimachi 9-Chome",
        "Tsuruhashi",
        "Imazato",
        "Shin-Fukae",
    ],
    "N": [
        "Taisho",
        "Nishinagahori",
        "Shinsaibashi",
        "Nagahoribashi",
        "Tanimachi 6-Chome",
        "Tamatsukuri",
        "Morinomiya",
        "Kyobashi",
        "Gamo 4-Chome",
    ],
    "K": [
        "Tenjimbashisuji 6-Chome",
        "Ogimachi",
        "Minamimorimachi",
        "Kitahama",
        "Sakaisuji-Hommachi",
        "Nagahoribashi",
        "Nippombashi",
        "Ebisucho",
        "Dobutsuen-Mae",
        "Tengachaya",
    ],
}
# P (New Tram): the two ends and the real stations in between that become small circles.
TRAM_ENDS = ("Cosmosquare", "Suminoekoen")
SMALL_CIRCLES = [
    "Trade Center-Mae",
    "Port Town-Nishi",
    "Ferry Terminal",
    "Nankoguchi",
    "Hirabayashi",
]
# Bus (no rail equivalent): Imazato Liner BRT, Imazato -> Abenobashi (at Tennoji).
BUS_ENDS = ("Imazato", "Tennoji")
BUS_CIRCLES = 4
# Real names that belong to a station of another name: the spelling variant of Honmachi, and
# the Umeda complex (Umeda, Higashi-Umeda and Nishi-Umeda are transfers of each other).
STATION_OF = {"Hommachi": "Honmachi", "Higashi-Umeda": "Umeda", "Nishi-Umeda": "Umeda"}
SPELLING = {"Hommachi": "Honmachi"}  # one printed name for the Honmachi complex

# The action cards.  Each deck: id, printed name, what it offers (a comment in the file), and
# eight cards as (dots, [(action, spots, value), ...]) in dot order, numbered 1..8 in the deck.
# Guidelines: values rise with the dots (players have more money later); the stronger version
# of an action takes more spots (a cheaper station / share / chip, a longer walk, more speed);
# Sell takes more spots early (when lines are worth little), InvestChip one spot (it costs a
# second chip, returned to the box).
Card = tuple[int, list[tuple[str, int, int]]]
DECKS: list[tuple[str, str, str, list[Card]]] = [
    (
        "MBus",
        "M/Bus",
        "Station and Move: build for ¥100-¥300 a circle; walk 1-3 squares.",
        [
            (1, [("station", 2, 100)]),
            (1, [("move", 1, 1), ("station", 1, 200)]),
            (1, [("move", 1, 2)]),
            (1, [("station", 1, 200), ("move", 2, 2)]),
            (2, [("station", 1, 200)]),
            (2, [("move", 1, 2), ("station", 1, 300)]),
            (2, [("move", 2, 3)]),
            (2, [("station", 1, 300), ("move", 1, 2)]),
        ],
    ),
    (
        "TY",
        "T/Y",
        "Invest, InvestChip and Discount: a share for ¥200-¥400 (plus ¥300 for a "
        "'2', '3' or '4' share), or for an action chip returned to the box; ¥100-¥200 off a "
        "later action.",
        [
            (1, [("invest", 2, 200)]),
            (1, [("invest", 2, 300), ("discount", 1, 100)]),
            (1, [("investchip", 1, 0)]),
            (1, [("discount", 1, 100)]),
            (2, [("invest", 1, 400)]),
            (2, [("invest", 2, 300), ("discount", 1, 200)]),
            (2, [("investchip", 1, 0), ("discount", 2, 200)]),
            (2, [("discount", 1, 200)]),
        ],
    ),
    (
        "CI",
        "C/I",
        "Speed and Sell: take 1-3 speed tokens; sell a share for what it would be paid at the end.",
        [
            (1, [("speed", 1, 1)]),
            (1, [("speed", 1, 1), ("sell", 2, 0)]),
            (1, [("sell", 2, 0)]),
            (1, [("speed", 2, 2)]),
            (2, [("speed", 2, 2)]),
            (2, [("speed", 1, 2), ("sell", 1, 0)]),
            (2, [("sell", 1, 0)]),
            (2, [("speed", 3, 3)]),
        ],
    ),
    (
        "SN",
        "S/N",
        "Chip and Copy: an extra action chip for ¥0-¥300; copy an action taken "
        "this round for ¥100-¥300.",
        [
            (1, [("chip", 3, 0)]),
            (1, [("chip", 2, 100), ("copy", 1, 100)]),
            (1, [("copy", 1, 100)]),
            (1, [("chip", 2, 200)]),
            (2, [("chip", 2, 200)]),
            (2, [("chip", 1, 300), ("copy", 1, 200)]),
            (2, [("copy", 1, 200)]),
            (2, [("copy", 1, 300)]),
        ],
    ),
    (
        "KP",
        "K/P",
        "Loan, Speculate and Bike: take a ¥1,000 loan (two cards also repay one for "
        "¥1,000); a speculation disc (the player stakes at least the track's smaller number); "
        "a bike.",
        [
            (1, [("loan", 1, 1000), ("repay", 1, 1000)]),
            (1, [("speculate", 2, 0)]),
            (1, [("bike", 2, 0)]),
            (1, [("loan", 1, 1000), ("speculate", 2, 0)]),
            (2, [("loan", 1, 1000), ("repay", 1, 1000)]),
            (2, [("speculate", 1, 0), ("bike", 1, 0)]),
            (2, [("loan", 1, 1000), ("bike", 1, 0)]),
            (2, [("speculate", 1, 0)]),
        ],
    ),
]
# Every action type: the schema's (extended) Act value and the values it may print.
# 'repay' appears only beside 'loan'.
ACTS: dict[str, tuple[str, range]] = {
    "move": ("Move", range(1, 4)),
    "station": ("Station", range(100, 301, 100)),
    "invest": ("Invest", range(200, 601, 100)),
    "investchip": ("InvestChip", range(1)),
    "speed": ("Speed", range(1, 4)),
    "bike": ("Bike", range(1)),
    "discount": ("Discount", range(100, 301, 100)),
    "loan": ("Loan", range(1000, 1001)),
    "repay": ("Repay", range(1000, 1001)),
    "speculate": ("Speculate", range(1)),
    "chip": ("Chip", range(0, 401, 100)),
    "sell": ("Sell", range(1)),
    "copy": ("Copy", range(100, 301, 100)),
}
DOTS = [1, 1, 1, 1, 2, 2, 2, 2]


# ---------------------------------------------------------------------------------------- stops


@dataclass
class Stop:
    """A stop of the board: its line, number, real name (or the small circle's), station id
    (None for a small circle) and, for a small circle, where it lies (projected km)."""

    line: str
    number: int
    name: str
    station: str | None
    code: str
    point: tuple[float, float] = (0.0, 0.0)

    @property
    def ident(self) -> str:
        return f"{self.line}{self.number}"


def station_id(name: str) -> str:
    return STATION_OF.get(name, name)


def select_stops(lines: dict[str, list[Row]], geo: Geo) -> dict[str, list[Stop]]:
    """The stops of every line, numbered 1..n (see the module docstring)."""
    stops: dict[str, list[Stop]] = {}
    for letter in TRAIN_LINES:
        rows = lines[letter]
        names = [r.name for r in rows]
        picked = []
        for name in STOPS[letter]:
            if name not in names:
                raise ValueError(f"line {letter} has no station {name!r}")
            picked.append(names.index(name))
        if picked != sorted(picked):
            raise ValueError(f"line {letter}: the kept stations are not in line order")
        kept = set(STOPS[letter])
        missing = [
            r.name
            for r in rows
            if r.transfers and r.name not in kept and any(t in TRAIN_LINES for t in r.transfers)
        ]
        if missing:
            raise ValueError(f"line {letter}: transfer stations left out: {missing}")
        stops[letter] = [
            Stop(letter, i, rows[j].name, station_id(rows[j].name), rows[j].code)
            for i, j in enumerate(picked, start=1)
        ]

    tram = list(lines["P"])
    names = [r.name for r in tram]
    if (names[0], names[-1]) != TRAM_ENDS or any(n not in names[1:-1] for n in SMALL_CIRCLES):
        raise ValueError("the New Tram's ends or small circles are not in the lines file")
    ordered = sorted(SMALL_CIRCLES, key=names.index)
    if ordered != SMALL_CIRCLES:
        raise ValueError("SMALL_CIRCLES are not in line order")
    p_stops = [Stop("P", 1, TRAM_ENDS[0], station_id(TRAM_ENDS[0]), tram[0].code)]
    for name in SMALL_CIRCLES:
        row = tram[names.index(name)]
        p_stops.append(Stop("P", len(p_stops) + 1, name, None, row.code, geo.km(name)))
    p_stops.append(
        Stop("P", len(p_stops) + 1, TRAM_ENDS[1], station_id(TRAM_ENDS[1]), tram[-1].code)
    )
    stops["P"] = p_stops

    # the bus: south from Imazato (along Imazato-suji), then west to Tennoji; small circles
    # spread evenly along that way
    (x0, y0), (x1, y1) = (geo.km(n) for n in BUS_ENDS)
    south, west = abs(y1 - y0), abs(x1 - x0)
    bus = [Stop("Bus", 1, BUS_ENDS[0], station_id(BUS_ENDS[0]), "BRT")]
    for i in range(1, BUS_CIRCLES + 1):
        way = i / (BUS_CIRCLES + 1) * (south + west)
        if way <= south:
            point = (x0, y0 + math.copysign(way, y1 - y0))
        else:
            point = (x0 + math.copysign(way - south, x1 - x0), y1)
        bus.append(Stop("Bus", i + 1, f"bus stop {i}", None, "BRT", point))
    bus.append(Stop("Bus", BUS_CIRCLES + 2, BUS_ENDS[1], station_id(BUS_ENDS[1]), "BRT"))
    stops["Bus"] = bus
    return stops


# ------------------------------------------------------------------------------------- stations


@dataclass
class Station:
    """A station of the board: its id, printed name, stops and projected point (km)."""

    ident: str
    name: str
    stops: list[Stop]
    point: tuple[float, float] = (0.0, 0.0)


def group_stations(stops: dict[str, list[Stop]], geo: Geo) -> list[Station]:
    """The stations, in order of first appearance along the train lines (then P and Bus)."""
    groups: dict[str, list[Stop]] = defaultdict(list)
    for letter in TRAIN_LINES + ["P", "Bus"]:  # a train line's stop takes the grid point
        for stop in stops[letter]:
            if stop.station is not None:
                groups[stop.station].append(stop)
    stations = []
    for ident, group in groups.items():
        names = list(dict.fromkeys(SPELLING.get(s.name, s.name) for s in group))
        points = [geo.km(n) for n in names]
        point = (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
        printed = " / ".join(names)
        if not 1 <= len(group) <= 3:
            raise ValueError(f"station {ident} has {len(group)} stops")
        stations.append(Station(ident, printed, group, point))
    return stations


# ----------------------------------------------------------------------------------------- grid


class Warp:
    """Map values to 0..1: WARP of the way from linear towards their rank order among the
    stations; other values (small circles) are interpolated between the stations'."""

    def __init__(self, values: list[float]):
        self.lo, self.hi = min(values), max(values)
        self.ordered = sorted(set(values))

    def rank(self, v: float) -> float:
        ordered = self.ordered
        if v <= ordered[0]:
            return 0.0
        if v >= ordered[-1]:
            return 1.0
        i = max(k for k in range(len(ordered)) if ordered[k] <= v)
        frac = (v - ordered[i]) / (ordered[i + 1] - ordered[i])
        return (i + frac) / (len(ordered) - 1)

    def __call__(self, v: float) -> float:
        return (1 - WARP) * (v - self.lo) / (self.hi - self.lo) + WARP * self.rank(v)


# A stop's slot: ("v", x, y) is the grid point (x, y) (the corner shared by squares x-1..x,
# y-1..y); ("h", x, y) the street from point (x, y) east to (x+1, y); ("u", x, y) the street from
# (x, y) south to (x, y+1); ("c", x, y) the inside of square (x, y) (a small circle).


def slot_squares(slot: tuple[str, int, int]) -> list[tuple[int, int]]:
    kind, x, y = slot
    if kind == "v":
        cells = [(x - 1, y - 1), (x, y - 1), (x - 1, y), (x, y)]
    elif kind == "h":
        cells = [(x, y - 1), (x, y)]
    elif kind == "u":
        cells = [(x - 1, y), (x, y)]
    else:
        cells = [(x, y)]
    return [(cx, cy) for cx, cy in cells if 0 <= cx < COLUMNS and 0 <= cy < ROWS]


def lay_out(
    stations: list[Station], stops: dict[str, list[Stop]]
) -> dict[str, list[tuple[int, int]]]:
    """Grid points for the stations and the touching squares of every stop (by stop id)."""
    warp_x = Warp([s.point[0] for s in stations])
    warp_y = Warp([-s.point[1] for s in stations])  # y grows to the south

    def target(point: tuple[float, float]) -> tuple[float, float]:
        return 1 + warp_x(point[0]) * (COLUMNS - 2), 1 + warp_y(-point[1]) * (ROWS - 2)

    points = [(x, y) for y in range(1, ROWS) for x in range(1, COLUMNS)]
    targets = [target(s.point) for s in stations]
    touching = place_stations(
        points,
        targets,
        [(s.ident, [stop.ident for stop in s.stops]) for s in stations],
        slot_squares,
    )

    # small circles: a chain of squares, each next to the one before (the first next to a square
    # of the line's first stop, the last next to one of its last stop), as near their places as
    # can be, squares that a station touches avoided
    station_squares = {c for cells in touching.values() for c in cells}
    taken: set[tuple[int, int]] = set()
    for letter in LINE_ORDER:
        circles = [s for s in stops[letter] if s.station is None]
        if not circles:
            continue
        first, last = touching[stops[letter][0].ident], touching[stops[letter][-1].ident]
        cells = chain([target(s.point) for s in circles], first, last, station_squares, taken)
        taken.update(cells)
        for stop, cell in zip(circles, cells, strict=True):
            touching[stop.ident] = [cell]
    return touching


def near(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two squares touch (side or corner)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1


def chain(
    targets: list[tuple[float, float]],
    first: list[tuple[int, int]],
    last: list[tuple[int, int]],
    avoid: set[tuple[int, int]],
    taken: set[tuple[int, int]],
) -> list[tuple[int, int]]:
    """Squares for the small circles of a line (dynamic programming over the squares): circle i
    near targets[i] (squares in `avoid` cost STATION_PENALTY more, a corner step DIAGONAL more),
    each touching the one before, the first touching a square of `first`, the last one of
    `last`, none in `taken` or twice."""
    cells = [(x, y) for y in range(ROWS) for x in range(COLUMNS) if (x, y) not in taken]

    def cost(cell: tuple[int, int], point: tuple[float, float]) -> float:
        d = math.hypot(cell[0] + 0.5 - point[0], cell[1] + 0.5 - point[1])
        return d + (STATION_PENALTY if cell in avoid else 0.0)

    inf = float("inf")
    best: list[dict[tuple[int, int], tuple[float, tuple[int, int] | None]]] = []
    layer = {
        c: (cost(c, targets[0]), None)
        for c in cells
        if c not in first and any(near(c, f) for f in first)
    }
    best.append(layer)
    for point in targets[1:]:
        previous, layer = best[-1], {}
        for c in cells:
            options = [
                (total + (DIAGONAL if p[0] != c[0] and p[1] != c[1] else 0.0), p)
                for p, (total, _) in previous.items()
                if p != c and near(p, c)
            ]
            if options:
                total, p = min(options)
                layer[c] = (total + cost(c, point), p)
        best.append(layer)
    ends = [
        (total, c)
        for c, (total, _) in best[-1].items()
        if c not in last and any(near(c, q) for q in last)
    ]
    if not ends:
        raise ValueError("no chain of squares for the small circles")
    total, cell = min(ends)
    path: list[tuple[int, int]] = []
    for layer in reversed(best):
        path.append(cell)
        cell = layer[cell][1]
    path.reverse()
    if len(set(path)) != len(path) or total == inf:
        raise ValueError(f"the small circles' chain crosses itself: {path}")
    return path


# --------------------------------------------------------------------------------------- output


def line_spots(stops: dict[str, list[Stop]], stations: list[Station]) -> dict[str, int]:
    """Income-track disc spots: 4 / 3 / 2 / 1 for the 3 / 3 / 2 / 2 lines with the most
    transfer connections (other stops in the stations of its stops; ties: income-track order)."""
    size = {s.ident: len(s.stops) for s in stations}
    weight = {
        letter: sum(size[s.station] - 1 for s in stops[letter] if s.station is not None)
        for letter in LINE_ORDER
    }
    ranked = sorted(LINE_ORDER, key=lambda letter: (-weight[letter], LINE_ORDER.index(letter)))
    return {
        letter: 4 if i < 3 else 3 if i < 6 else 2 if i < 8 else 1 for i, letter in enumerate(ranked)
    }


def vehicles(stops: dict[str, list[Stop]]) -> list[tuple[str, str, int]]:
    """(id, line, home) of every marker, in income-track order."""
    out = []
    for letter in LINE_ORDER:
        n = len(stops[letter])
        if letter == "P":
            out += [("P_tram1", letter, 1), ("P_tram2", letter, n)]
        elif letter == "Bus":
            out += [("Bus_bus1", letter, 1), ("Bus_bus2", letter, n)]
        else:
            out.append((f"{letter}_train", letter, 1))
    return out


def board_text(
    stops: dict[str, list[Stop]],
    stations: list[Station],
    touching: dict[str, list[tuple[int, int]]],
) -> str:
    """The text of osaka.metro."""
    spots = line_spots(stops, stations)
    if sum(STOCKS.values()) != TOTAL_STOCKS or not all(1 <= n <= 4 for n in STOCKS.values()):
        raise ValueError("stocks: 1-4 a line, 28 in all")

    def stop_list(station: Station) -> str:
        return " + ".join(f"{s.ident} {s.name}" for s in station.stops)

    out = [
        "# Osaka Metro board (OSAKA METRO EXPANSION): 10 lines, their stops and stations, the grid",
        "# of squares and the income track.  RECONSTRUCTED, not copied from the printed board:",
        "# station order and transfers from games/tokyo_metro/osaka/data/osaka_subway_lines.tsv,",
        "# positions from games/tokyo_metro/osaka/data/osaka_station_coords.tsv, laid out on the",
        "# grid by games/tokyo_metro/osaka/tools/build_data.py (a generated file: change the script",
        "# and rerun it).  Kept: every transfer station of the eight train lines and a few minor ones.",
        "# P is the New Tram, Cosmosquare to Suminoekoen; Bus has no rail equivalent (modelled on",
        "# the Imazato Liner BRT, Imazato to Tennoji / Abenobashi; its small circles are spread",
        "# evenly on a reconstructed way south, then west, not real bus stops).  P and Bus have",
        "# no numbered stops on the printed map: here their stops are numbered 1..n along the",
        "# line, the two ends belong to stations and the stops between are small circles",
        "# (station: none) that touch one square each; no pyramid goes there.",
        "# Stations joining real stations of other names: Umeda (Umeda, Higashi-Umeda,",
        "# Nishi-Umeda) and Honmachi (spelled Hommachi on the Y and C lines).",
        "# metro fmt: off (written by this script, which checks it byte for byte)",
        'map "Osaka" for "Tokyo Metro" {',
        "  # lines in income-track order: kind line(name, spots, stocks, colour); spots = income-",
        "  # track disc spots, reconstructed: 4 / 3 / 2 / 1 by the line's number of transfer",
        f"  # connections; stocks, reconstructed: {TOTAL_STOCKS} in all; colour: the line's colour",
        "  # on public network maps",
    ]
    for letter in LINE_ORDER:
        circles = sum(1 for s in stops[letter] if s.station is None)
        about = f"{len(stops[letter])} stops" + (f", {circles} small circles" if circles else "")
        out.append(
            f'  line {letter}(name: "{LINE_NAMES[letter]}", spots: {spots[letter]}, '
            f'stocks: {STOCKS[letter]}, colour: "{LINE_COLOURS[letter]}")   # {about}'
        )
    out += [
        "",
        "  # vehicles: kind vehicle(line, home); a train enters at stop 1; the two trams and",
        "  # the two buses enter one at each end of their line",
    ]
    for ident, letter, home in vehicles(stops):
        out.append(f"  vehicle {ident}(line: {letter}, home: {home})")
    out += ["", f"  # squares: kind square(x, y); a {COLUMNS} x {ROWS} rectangle, x east, y south"]
    for y in range(ROWS):
        out.append(
            "  " + " ".join(f"square {square_id(x, y)}(x: {x}, y: {y})" for x in range(COLUMNS))
        )
    out += ["", "  # stations: kind station(name); comment: its stops"]
    for s in sorted(stations, key=lambda s: s.ident):
        out.append(f'  station {quote(s.ident)}(name: "{s.name}")   # {stop_list(s)}')
    out += ["", "  # stops: kind stop(line, number, station, squares); comment: the real station"]
    for letter in LINE_ORDER:
        for stop in stops[letter]:
            squares = ", ".join(square_id(*c) for c in touching[stop.ident])
            station = "none" if stop.station is None else quote(stop.station)
            note = stop.name if stop.station is not None else f"small circle ({stop.name})"
            out.append(
                f"  stop {stop.ident}(line: {letter}, number: {stop.number}, "
                f"station: {station}, squares: [{squares}])   # {stop.code} {note}"
            )
        out.append("")
    out += track_text()
    out.append("}")
    return "\n".join(out) + "\n"


def cards_text() -> str:
    """The text of cards.metro."""
    out = [
        "# Osaka Metro action cards (OSAKA METRO EXPANSION): 5 decks (colour pairs M/Bus T/Y C/I",
        "# S/N K/P) of 8 cards.  RECONSTRUCTED, not copied from the printed cards: 4 cards of each",
        "# back-dot count (1, 2); no Start, Bid or Card action; the expansion's InvestChip (a share",
        "# for an action chip), Sell and Copy.  Two decks offer three action types (loan with repay",
        "# counting as one).  Values rise with the dots; the stronger version takes more spots.",
        "# Generated by games/tokyo_metro/osaka/tools/build_data.py (change the script and rerun it).",
        "# value: Move = squares, Station = cost a circle, Invest / Chip / Copy = cost,",
        "# Speed = tokens, Discount = amount off, Loan / Repay = 1000, InvestChip = 0 (its cost is",
        "# an action chip), Sell = 0 (paid what the share would earn), Bike / Speculate = 0.",
        "# metro fmt: off (written by this script, which checks it byte for byte)",
        'map "Osaka cards" for "Tokyo Metro" {',
    ]
    for deck, name, _about, _cards in DECKS:
        out.append(f'  deck {deck}(name: "{name}")')
    for deck, name, about, cards in DECKS:
        out += [
            "",
            *textwrap.wrap(
                f"{name}: {about}", width=96, initial_indent="  # ", subsequent_indent="  #   "
            ),
        ]
        for number, (dots, offers) in enumerate(cards, start=1):
            out.append(f"  card {deck}{number}(deck: {deck}, dots: {dots})")
            for letter, (act, spots, value) in zip("ab", offers, strict=False):
                out.append(
                    f"    offer {deck}{number}{letter}(card: {deck}{number}, "
                    f"act: {ACTS[act][0]}, spots: {spots}, value: {value})"
                )
    out.append("}")
    return "\n".join(out) + "\n"


def check_cards() -> None:
    """The card table's own rules, so that an edit cannot break them silently."""
    seen: set[str] = set()
    for deck, _name, _about, cards in DECKS:
        if [dots for dots, _ in cards] != DOTS:
            raise ValueError(f"deck {deck}: eight cards, four with each number of dots, in order")
        types = {"loan" if act == "repay" else act for _, offers in cards for act, _, _ in offers}
        if not 2 <= len(types) <= 3:
            raise ValueError(f"deck {deck}: two or three action types, not {sorted(types)}")
        by_dots: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
        for dots, offers in cards:
            acts = [act for act, _, _ in offers]
            if not 1 <= len(offers) <= 2 or len(set(acts)) != len(acts):
                raise ValueError(f"deck {deck}: one or two different actions a card")
            if "repay" in acts and "loan" not in acts:
                raise ValueError(f"deck {deck}: repay only beside loan")
            for act, spots, value in offers:
                if act not in ACTS or value not in ACTS[act][1] or not 1 <= spots <= 3:
                    raise ValueError(f"deck {deck}: {act} {spots} spots, value {value}")
                by_dots[act][dots].append(value)
        for act, values in by_dots.items():  # the lowest and highest values never fall
            levels = [values[d] for d in sorted(values)]
            for lower, upper in itertools.pairwise(levels):
                if min(upper) < min(lower) or max(upper) < max(lower):
                    raise ValueError(f"deck {deck}: {act} values fall with the dots")
        seen |= {act for _, offers in cards for act, _, _ in offers}
    if seen != set(ACTS):
        raise ValueError(f"action types missing: {sorted(set(ACTS) - seen)}")
    if (
        len(
            {
                act
                for _, _, _, cards in DECKS
                for _, offers in cards
                for act, _, _ in offers
                if act != "repay"
            }
        )
        != 12
    ):
        raise ValueError("twelve action types in all")


# ----------------------------------------------------------------------------------------- main


def build(data_dir: str) -> dict[str, str]:
    """File name -> text of every generated file."""
    lines_path, coords_path = (os.path.join(data_dir, n) for n in (LINES_FILE, COORDS_FILE))
    network = network_from_tsv("Osaka", lines_path, coords_path, TRAIN_LINES + ["P"])
    check_cards()
    return {"osaka.metro": board_from_network(network), "cards.metro": cards_text()}


def board_from_network(network: Network) -> str:
    """The text of osaka.metro, from the Osaka network (read from the data files or a feed)."""
    lines = rows_from_network(network, TRAIN_LINES + ["P"])
    geo = Geo(coords_from_network(network))
    stops = select_stops(lines, geo)
    stations = group_stations(stops, geo)
    touching = lay_out(stations, stops)
    return board_text(stops, stations, touching)


def main(argv: list[str] | None = None) -> int:
    return write_files(__file__, __doc__.splitlines()[0], build, DEFAULT_DATA, OSAKA_DIR, argv)


if __name__ == "__main__":
    sys.exit(main())
