"""Build the reconstructed Tokyo Metro component data: tokyo.metro (board) and cards.metro.

We do not have the printed components, so this script RECONSTRUCTS them from public facts and
writes them as map files for games/tokyo_metro/schema.metro.  Run it from anywhere:

    python games/tokyo_metro/tools/build_data.py [--data DIR] [--out DIR] [--check]

``--data`` is the folder holding ``tokyo_subway_lines.tsv`` (the 12 lines, stations in order,
transfers) and ``tokyo_station_coords.tsv`` (a WGS84 point per station name); it defaults to
``games/tokyo_metro/data`` (their sources: ``SOURCES.md`` there).  ``--out`` defaults to
``games/tokyo_metro``; ``--check`` writes nothing and exits with status 1 when a file there is
not what the script would write.  A missing or malformed data file is reported in one line
(file, line, what is wrong), with exit status 2.  The output is deterministic: the same inputs
always give byte-identical files.

How the board is reconstructed
------------------------------
1. Stops.  Every transfer station is kept: a row whose ``transfers`` column is not empty, or a
   station name served by two or more of the game's lines.  The Marunouchi branch (Mb03-Mb05) is
   dropped.  The board area is the bounding box of the transfer stations; lines with fewer than
   ``TARGET_STOPS`` stops get minor stations from inside that box, one at a time, each time
   splitting the longest stretch of track (measured along the line, including the stretch from
   the last kept stop to the last station still inside the box).  Stops are numbered 1..n in real
   order.  The stations of the ``SAME_LINE_STATIONS`` pairs are kept too, on top of these.
   The Oedo line (E) is taken two-ended, in the data's order E01 Shinjuku-nishiguchi ...
   E27 Shinjuku, E28 Tochomae, ... Hikarigaoka; it has 16 transfer stations, so it keeps exactly
   those and nothing else (more than the 14 the other lines are held to).
2. Stations.  Stops at one real station complex form one station: same name, or a transfer
   listed in the data to a differently named station within ``COMPLEX_RADIUS_KM`` (e.g.
   Akasaka-mitsuke / Nagatacho).  A station holds at most three stops, so larger complexes are
   split into neighbouring stations: by name where that is enough, otherwise as listed in
   ``SPLITS``.  ``SAME_LINE_STATIONS`` puts two consecutive stops of one line into one station
   (the rulebook names H6-H7 and T6-T7): both are kept as stops (step 1 adds them if needed);
   when their complexes have room (three stops in all) the two join them, otherwise the two
   stops leave their complexes and form a station of their own.  The script checks that the two
   get the stop numbers listed.
3. Grid.  Station points are projected (equirectangular, km), each axis is warped halfway towards
   rank order (so the dense centre gets room and the sparse outskirts shrink), and scaled onto the
   interior grid points of a ``COLUMNS`` x ``ROWS`` rectangle of squares.  Every station gets its
   own grid point by a minimum-cost assignment (squared displacement).  The first stop of a
   station sits on that grid point and touches the 4 squares around it; a second / third stop sits
   on the street just east/south/west/north of it and touches the 2 squares along that street (a
   third stop takes the perpendicular street, so all stops of a station share a square).  No
   street or grid point is used twice, so no two stops touch exactly the same squares.
4. Lines.  ``spots`` (disc spots on the income track) is 4, 3 or 2 by how many transfer
   connections a line has (top, middle and bottom third); ``stocks`` is 3 for every line.  Each
   line has one train (vehicle ``Train<letter>``) that enters the map at the line's stop 1.
5. Income track.  For v = 0, 100, ... 6000 the two numbers split v: low = a third of v rounded
   down to ¥100 but at least ¥100 from ¥200 on (low is the least speculation stake), high = the
   rest (``common.track_row``).  This reproduces the rulebook's examples (2,900 -> 2,000 / 900 and
   1,400 -> 1,000 / 400).

The action cards (``DECKS`` below) are a hand-made table: six decks of nine cards, three cards
with each number of back dots, each deck with exactly two action types (loan and repay count as
one), values rising with the dots and more spots for the stronger version of an action.
"""

from __future__ import annotations

import os
import re
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
GAME_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(GAME_DIR))
if REPO not in sys.path:  # run as a script from a clone: the games package is the repository's
    sys.path.insert(0, REPO)

import itertools  # noqa: E402 - after the sys.path line above

from games.tokyo_metro.tools.board import Recipe, board_from_network  # noqa: E402
from games.tokyo_metro.tools.common import network_from_tsv, write_files  # noqa: E402

DEFAULT_DATA = os.path.join(GAME_DIR, "data")
LINES_FILE = "tokyo_subway_lines.tsv"
COORDS_FILE = "tokyo_station_coords.tsv"

LINE_ORDER = "GMHTCYZNAISE"
BRANCH = ("Mb", "M06")  # the Marunouchi branch's codes and where it leaves the main line
# Each line's colour on the public network maps (the line's symbol colour), for the pictures.
LINE_COLOURS = {
    "G": "#ff9500",
    "M": "#f62e36",
    "H": "#b5b5ac",
    "T": "#009bbf",
    "C": "#00bb85",
    "Y": "#c1a470",
    "Z": "#8f76d6",
    "N": "#00ac9b",
    "A": "#ec6e65",
    "I": "#006ab8",
    "S": "#b0c124",
    "E": "#ce045b",
}
TARGET_STOPS = 10  # lines with fewer transfer stations are filled up to this many stops
COLUMNS, ROWS = 18, 13  # the grid of squares

# Complexes too big for one station (more than 3 stops) are split by station name.  Where one
# name alone has more than 3 stops, the stations are given here, for the stops of that name:
# (station id, printed name, lines, nudge east km, nudge north km).
SPLITS: dict[str, list[tuple[str, str, str, float, float]]] = {
    # Chiyoda and Mita run under Hibiya-dori on the palace side; Marunouchi, Tozai and Hanzomon
    # lie to the east, towards Tokyo station and Eitai-dori.
    "Otemachi": [
        ("Otemachi West", "Otemachi (west)", "CI", -0.3, 0.0),
        ("Otemachi East", "Otemachi (east)", "MTZ", 0.3, 0.0),
    ],
    # Yurakucho and Namboku share the platforms along the outer moat (west); Tozai and Oedo cross
    # east-west under Mejiro-dori / Okubo-dori (east).
    "Iidabashi": [
        ("Iidabashi West", "Iidabashi (west)", "YN", -0.3, 0.0),
        ("Iidabashi East", "Iidabashi (east)", "TE", 0.3, 0.0),
    ],
}
# Two consecutive stops of one line in one station: station id -> (line, the two real stations,
# the board's numbers for them).  The rulebook names H6-H7 and T6-T7 ("1つの路線が同じ駅の中に
# 複数の停車地点をもち（H6-H7やT6-T7など）"); each pair is two real neighbours close together:
# - H: Tsukiji (H10) and Hatchobori (H11), 900 m apart; Hatchobori is a minor station added for
#   this, and the two join Tsukiji's complex with the Yurakucho line's Shintomicho.
# - T: Kudanshita (T07) and Takebashi (T08), 800 m apart; Takebashi is added, and the Tozai stop
#   leaves the Kudanshita complex (Hanzomon and Shinjuku lines), which would have four stops.
# - Y: Yurakucho (Y18) and Ginza-itchome (Y19), 440 m apart under the same shopping street (one
#   the rulebook's "など" allows); taking them out of the Hibiya and Ginza complexes also brings
#   those two four-line complexes down to three stops each.
SAME_LINE_STATIONS: dict[str, tuple[str, tuple[str, str], tuple[int, int]]] = {
    "Tsukiji": ("H", ("Tsukiji", "Hatchobori"), (6, 7)),
    "Takebashi": ("T", ("Kudanshita", "Takebashi"), (6, 7)),
    "Yurakucho": ("Y", ("Yurakucho", "Ginza-itchome"), (6, 7)),
}

HEADER = (
    "# Tokyo Metro board: 12 lines, their stops and stations, the grid of squares and the",
    "# income track.  RECONSTRUCTED, not copied from the printed board: station order and",
    "# transfers from games/tokyo_metro/data/tokyo_subway_lines.tsv, positions from",
    "# games/tokyo_metro/data/tokyo_station_coords.tsv, laid out on the grid by",
    "# games/tokyo_metro/tools/build_data.py (a generated file: change the script and rerun it).",
    "# Kept: every transfer station, and minor stations up to {target} stops a line.  The Oedo",
    "# line (E) is two-ended: Shinjuku-nishiguchi, round the loop to Shinjuku, on to",
    "# Nakano-sakaue.  The Marunouchi branch is left out.",
)
TOKYO = Recipe(
    city="Tokyo",
    line_order=tuple(LINE_ORDER),
    colours=LINE_COLOURS,
    header=HEADER,
    target_stops=TARGET_STOPS,
    columns=COLUMNS,
    rows=ROWS,
    splits=SPLITS,
    same_line_stations=SAME_LINE_STATIONS,
)

# The action cards.  Each deck: id, printed name, what it offers (a comment in the file), and
# nine cards as (dots, [(action, spots, value), ...]) in dot order, numbered 1..9 in the deck.
# Guidelines: values rise with the dots (players have more money later); the stronger version
# of an action takes more spots (a cheaper station / share / chip / card, a larger start / bid
# / speed); bike and speculation (value 0) take more spots early, when they are worth most.
Card = tuple[int, list[tuple[str, int, int]]]
DECKS: list[tuple[str, str, str, list[Card]]] = [
    (
        "GM",
        "G/M",
        "Station and Move: build for ¥100-¥300 a circle; walk 1-3 squares.",
        [
            (1, [("station", 2, 100)]),
            (1, [("move", 1, 1), ("station", 1, 200)]),
            (1, [("move", 1, 2)]),
            (2, [("station", 1, 200), ("move", 1, 1)]),
            (2, [("station", 1, 200)]),
            (2, [("move", 1, 2), ("station", 1, 300)]),
            (3, [("station", 1, 300)]),
            (3, [("move", 2, 3), ("station", 1, 300)]),
            (3, [("move", 2, 3)]),
        ],
    ),
    (
        "HT",
        "H/T",
        "Invest and Discount: a share for ¥200-¥600 (plus the ¥300 / ¥600 surcharge "
        "of a '2' / '3' share); ¥100-¥300 off a later action.",
        [
            (1, [("invest", 2, 200)]),
            (1, [("invest", 2, 300), ("discount", 1, 100)]),
            (1, [("discount", 1, 100)]),
            (2, [("invest", 1, 400)]),
            (2, [("invest", 2, 300), ("discount", 1, 200)]),
            (2, [("discount", 1, 200)]),
            (3, [("invest", 1, 500)]),
            (3, [("invest", 1, 600), ("discount", 2, 300)]),
            (3, [("discount", 2, 300)]),
        ],
    ),
    (
        "CY",
        "C/Y",
        "Start and Speed: a train enters and its line rises ¥100-¥400; take 1-3 speed tokens.",
        [
            (1, [("start", 1, 100)]),
            (1, [("start", 1, 200), ("speed", 1, 1)]),
            (1, [("speed", 1, 1)]),
            (2, [("start", 1, 200)]),
            (2, [("start", 2, 300), ("speed", 1, 1)]),
            (2, [("speed", 2, 2)]),
            (3, [("start", 2, 300)]),
            (3, [("start", 2, 400), ("speed", 2, 2)]),
            (3, [("speed", 3, 3)]),
        ],
    ),
    (
        "ZN",
        "Z/N",
        "Bid and Action: a ¥200-¥600 bonus to the next turn-order bid; an extra "
        "action chip for ¥0-¥400.",
        [
            (1, [("bid", 1, 200)]),
            (1, [("bid", 1, 300), ("chip", 3, 0)]),
            (1, [("chip", 2, 100)]),
            (2, [("bid", 1, 300)]),
            (2, [("bid", 2, 400), ("chip", 2, 200)]),
            (2, [("chip", 2, 200)]),
            (3, [("bid", 2, 500)]),
            (3, [("bid", 3, 600), ("chip", 1, 300)]),
            (3, [("chip", 1, 400)]),
        ],
    ),
    (
        "AI",
        "A/I",
        "Loan and Card: take a ¥1,000 loan (three cards also repay one for ¥1,000); "
        "take the top card of a discard pile for ¥0-¥300.",
        [
            (1, [("loan", 1, 1000)]),
            (1, [("loan", 1, 1000), ("repay", 1, 1000)]),
            (1, [("card", 2, 0)]),
            (2, [("loan", 1, 1000), ("card", 2, 100)]),
            (2, [("loan", 1, 1000), ("repay", 1, 1000)]),
            (2, [("card", 2, 100)]),
            (3, [("loan", 1, 1000), ("card", 1, 300)]),
            (3, [("loan", 1, 1000), ("repay", 1, 1000)]),
            (3, [("card", 1, 200)]),
        ],
    ),
    (
        "SE",
        "S/E",
        "Speculate and Bike: a speculation disc (the player stakes at least the "
        "track's smaller number); a bike.",
        [
            (1, [("speculate", 2, 0)]),
            (1, [("speculate", 2, 0), ("bike", 2, 0)]),
            (1, [("bike", 2, 0)]),
            (2, [("speculate", 1, 0)]),
            (2, [("speculate", 1, 0), ("bike", 1, 0)]),
            (2, [("bike", 1, 0)]),
            (3, [("speculate", 1, 0)]),
            (3, [("speculate", 1, 0), ("bike", 1, 0)]),
            (3, [("speculate", 1, 0)]),
        ],
    ),
]
# Every action type with the values it may print.  'repay' appears only beside 'loan'.
ACTS: dict[str, range] = {
    "move": range(1, 4),
    "station": range(100, 301, 100),
    "invest": range(200, 601, 100),
    "start": range(100, 401, 100),
    "speed": range(1, 4),
    "bike": range(1),
    "discount": range(100, 301, 100),
    "bid": range(200, 601, 100),
    "loan": range(1000, 1001),
    "repay": range(1000, 1001),
    "speculate": range(1),
    "chip": range(0, 401, 100),
    "card": range(0, 301, 100),
}


def schema_acts(schema_path: str) -> dict[str, str]:
    """The schema's Act values, by lower-case name (so the table does not depend on their case)."""
    with open(schema_path, encoding="utf-8") as handle:
        match = re.search(r"enum\s+Act\s*\{([^}]*)\}", handle.read())
    if match is None:
        raise ValueError(f"no 'enum Act {{ ... }}' in {schema_path}")
    values = {value.lower(): value for value in match.group(1).split()}
    missing = [act for act in ACTS if act not in values]
    if missing:
        raise ValueError(f"the schema's Act has no {missing}")
    return values


def cards_text(acts: dict[str, str]) -> str:
    """The text of cards.metro (`acts`: our action names -> the schema's Act values)."""
    out = [
        "# Tokyo Metro action cards: 6 decks (colour pairs G/M H/T C/Y Z/N A/I S/E) of 9 cards.",
        "# RECONSTRUCTED, not copied from the printed cards: each deck offers two action types",
        "# (loan with repay counting as one); 3 cards of each back-dot count (1, 2, 3); values",
        "# rise with the dots; the stronger version of an action takes more spots.",
        "# Generated by games/tokyo_metro/tools/build_data.py (change the script and rerun it).",
        "# value: Move = squares, Station = cost a circle, Invest / Chip / Card = cost,",
        "# Start = line value increase, Speed = tokens, Discount = amount off, Bid = bonus,",
        "# Loan / Repay = 1000, Bike / Speculate = 0 (the speculation stake is the player's).",
        "# metro fmt: off (written by this script, which checks it byte for byte)",
        'map "Tokyo cards" for "Tokyo Metro" {',
    ]
    for deck, name, _about, _cards in DECKS:
        out.append(f'  deck {deck}(name: "{name}")')
    for deck, name, about, cards in DECKS:
        out += ["", f"  # {name}: {about}"]
        for number, (dots, offers) in enumerate(cards, start=1):
            out.append(f"  card {deck}{number}(deck: {deck}, dots: {dots})")
            for letter, (act, spots, value) in zip("ab", offers, strict=False):
                out.append(
                    f"    offer {deck}{number}{letter}(card: {deck}{number}, "
                    f"act: {acts[act]}, spots: {spots}, value: {value})"
                )
    out.append("}")
    return "\n".join(out) + "\n"


def check_cards() -> None:
    """The card table's own rules, so that an edit cannot break them silently."""
    seen: set[str] = set()
    for deck, _name, _about, cards in DECKS:
        if sorted(dots for dots, _ in cards) != [1, 1, 1, 2, 2, 2, 3, 3, 3]:
            raise ValueError(f"deck {deck}: nine cards, three with each number of dots")
        types = {"loan" if act == "repay" else act for _, offers in cards for act, _, _ in offers}
        if len(types) != 2:
            raise ValueError(f"deck {deck}: exactly two action types, not {sorted(types)}")
        by_dots: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
        for dots, offers in cards:
            acts = [act for act, _, _ in offers]
            if not 1 <= len(offers) <= 2 or len(set(acts)) != len(acts):
                raise ValueError(f"deck {deck}: one or two different actions a card")
            if "repay" in acts and "loan" not in acts:
                raise ValueError(f"deck {deck}: repay only beside loan")
            for act, spots, value in offers:
                if act not in ACTS or value not in ACTS[act] or not 1 <= spots <= 3:
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


# ----------------------------------------------------------------------------------------- main


def build(
    data_dir: str, schema_path: str = os.path.join(GAME_DIR, "schema.metro")
) -> dict[str, str]:
    """File name -> text of every generated file."""
    lines_path, coords_path = (os.path.join(data_dir, n) for n in (LINES_FILE, COORDS_FILE))
    network = network_from_tsv("Tokyo", lines_path, coords_path, list(LINE_ORDER), BRANCH)
    check_cards()
    return {
        "tokyo.metro": board_from_network(network, TOKYO),
        "cards.metro": cards_text(schema_acts(schema_path)),
    }


def main(argv: list[str] | None = None) -> int:
    return write_files(__file__, __doc__.splitlines()[0], build, DEFAULT_DATA, GAME_DIR, argv)


if __name__ == "__main__":
    sys.exit(main())
