"""Build Izakaya's table geometry: games/izakaya/table.metro, edge_chips.metro, corner_chips.metro.

The plot cards lie in a square grid of 3 x 3, 4 x 4 or 5 x 5 cards (by the player count); the
files describe the largest grid once and the rules use the part of it a game lays out:

* ``table.metro``: the grid's cells (a card's place) and the corners where cards meet (where
  drinks go), each with the cells around it;
* ``edge_chips.metro``: where a player's chips go when acquiring a plot, as the rule text of
  IZAKAYA in the TOKYO METRO rulebook says: on the edge between two cards; and every three such
  places in a straight line (three chips in a line earn a free piece);
* ``corner_chips.metro``: the same for the other wording (the TOKYO JUTAKU rulebook's IZAKAYA):
  chips on the corners where four cards meet (the `corner-chips` variant).

Positions are in half-card units: card (row r, column c) has its centre at x = 2c + 1,
y = 2r + 1; the corner above-left of it is (2c, 2r); its east edge (2c + 2, 2r + 1) and its
south edge (2c + 1, 2r + 2). Three places are in a straight line when they are consecutive
places on one line of the plane (rows, columns and both diagonals of the places' lattice).
Run from anywhere:

    python games/izakaya/tools/build_table.py [--out DIR] [--check]

``--check`` writes nothing and exits with status 1 when a committed file differs.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
GAME_DIR = os.path.dirname(HERE)
SIZE = 5  # the largest grid (5 players)

HEADER = (
    "# Izakaya's table, the largest grid (5 x 5 plot cards); a game uses the part of it its player\n"
    "# count lays out. Positions are in half-card units (a card's centre is at 2 col + 1, 2 row + 1).\n"
    "# A generated file: change games/izakaya/tools/build_table.py and rerun it.\n"
)


@dataclass(frozen=True)
class Place:
    """A chip place: its name, position and the cells (cards) it touches."""

    name: str
    x: int
    y: int
    cells: tuple[tuple[int, int], ...]


def cell_name(row: int, col: int) -> str:
    return f"r{row}c{col}"


def cells_list(cells) -> str:
    return "[" + ", ".join(cell_name(r, c) for r, c in cells) + "]"


def corner_cells(row: int, col: int) -> tuple[tuple[int, int], ...]:
    """The cells around the corner at the top left of cell (row, col), inside the largest grid."""
    around = [(row - 1, col - 1), (row - 1, col), (row, col - 1), (row, col)]
    return tuple((r, c) for r, c in around if 0 <= r < SIZE and 0 <= c < SIZE)


def edge_places() -> list[Place]:
    """Every edge between two cards: east edges 'v', south edges 'h'."""
    places = []
    for row in range(SIZE):
        for col in range(SIZE):
            if col + 1 < SIZE:
                places.append(
                    Place(f"v{row}{col}", 2 * col + 2, 2 * row + 1, ((row, col), (row, col + 1)))
                )
            if row + 1 < SIZE:
                places.append(
                    Place(f"h{row}{col}", 2 * col + 1, 2 * row + 2, ((row, col), (row + 1, col)))
                )
    return places


def corner_places() -> list[Place]:
    """Every corner where four cards meet."""
    return [
        Place(f"k{row}{col}", 2 * col, 2 * row, corner_cells(row, col))
        for row in range(1, SIZE)
        for col in range(1, SIZE)
    ]


def lines(places: list[Place], steps: list[tuple[int, int]]) -> list[tuple[Place, Place, Place]]:
    """Every three places that follow each other on a straight line, by the lattice's steps."""
    at = {(p.x, p.y): p for p in places}
    found = []
    for place in places:
        for dx, dy in steps:
            second = at.get((place.x + dx, place.y + dy))
            third = at.get((place.x + 2 * dx, place.y + 2 * dy))
            if second is not None and third is not None:
                found.append((place, second, third))
    return found


FMT_OFF = "# metro fmt: off (written by this script, which checks it byte for byte)"


def places_text(title: str, about: str, places: list[Place], steps) -> str:
    out = [(HEADER + about).rstrip("\n"), FMT_OFF, f'map "{title}" for "Izakaya" {{']
    out.extend(
        f"  chip_place {p.name}(x: {p.x}, y: {p.y}, cells: {cells_list(p.cells)})" for p in places
    )
    out.append("")
    out.append("  # three places in a straight line")
    for a, b, c in lines(places, steps):
        out.append(f"  chip_line {a.name}_{b.name}_{c.name}(a: {a.name}, b: {b.name}, c: {c.name})")
    out.append("}")
    return "\n".join(out) + "\n"


def table_text() -> str:
    out = [HEADER.rstrip("\n"), FMT_OFF, 'map "Izakaya table" for "Izakaya" {']
    out.append("  # where the cards lie")
    out.extend(
        "  " + "  ".join(f"cell {cell_name(row, c)}(row: {row}, col: {c})" for c in range(SIZE))
        for row in range(SIZE)
    )
    out.append("")
    out.append("  # the corners, each with the cards around it (drinks go where two or four meet)")
    for row in range(SIZE + 1):
        for col in range(SIZE + 1):
            cells = corner_cells(row, col)
            out.append(f"  corner p{row}{col}(row: {row}, col: {col}, cells: {cells_list(cells)})")
    out.append("}")
    return "\n".join(out) + "\n"


def files() -> dict[str, str]:
    """Every file the script writes, by name."""
    # Edges: consecutive edges along a grid line, parallel edges across a row or column of
    # cards, and the diagonal staircases of alternating edges are all straight lines.
    edge_steps = [(2, 0), (0, 2), (1, 1), (1, -1)]
    corner_steps = [(2, 0), (0, 2), (2, 2), (2, -2)]
    return {
        "table.metro": table_text(),
        "edge_chips.metro": places_text(
            "Izakaya edge chips",
            "# Chip places on the edges between two cards ('v': a card's east edge, 'h': its south\n"
            "# edge), the rule text of IZAKAYA in the TOKYO METRO rulebook.\n",
            edge_places(),
            edge_steps,
        ),
        "corner_chips.metro": places_text(
            "Izakaya corner chips",
            "# Chip places on the corners where four cards meet, the TOKYO JUTAKU rulebook's IZAKAYA\n"
            "# (the corner-chips variant).\n",
            corner_places(),
            corner_steps,
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=GAME_DIR, help="the folder to write into")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a file would change"
    )
    args = parser.parse_args(argv)
    stale = []
    for name, text in files().items():
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path, encoding="utf-8") as handle:
                    same = handle.read() == text
            except FileNotFoundError:
                same = False
            print(f"{path} is {'up to date' if same else 'OUT OF DATE'}")
            if not same:
                stale.append(path)
        else:
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
            print(f"wrote {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
