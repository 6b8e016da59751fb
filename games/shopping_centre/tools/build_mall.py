"""Build the shopping centre's floor plan, games/shopping_centre/mall.metro, from a picture of it.

The rule text lays the Tokyo Jutaku cards out as "the figure on page 54", which it does not
contain; this RECONSTRUCTED plan keeps every fact the text gives (see LAYOUT's comments). In the
picture each character is one square of a grid: a letter is a card (a central-column card is two
squares wide), `.` an aisle square, which is a space (a blue circle); spaces next to each other
are joined by a line, and a card lies "in front of" the spaces next to it. Run from anywhere:

    python games/shopping_centre/tools/build_mall.py [--check]

``--check`` writes nothing and exits with status 1 when the committed file differs.
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(os.path.dirname(HERE), "mall.metro")

# T tuna, S salmon, C crab (the top row); D drinks (the second row); W washing machine,
# Y dryer, N newspapers/magazines (the central column, two squares wide); L clothing (the 16
# lower outer cards). The vending machine stands above the top aisle's two middle squares; the
# two central lanes (columns 3 and 6) lead out at the bottom.
LAYOUT = [
    "..........",
    ".TT.SS.CC.",
    ".DD.DD.DD.",
    "..........",
    ".LL.WW.LL.",
    ".LL.WW.LL.",
    "....YY....",
    ".LL.NN.LL.",
    ".LL....LL.",
]
SHELVES = {
    "T": "tuna",
    "S": "salmon",
    "C": "crab",
    "D": "drinks",
    "W": "appliance",
    "Y": "appliance",
    "N": "newspaper",
    "L": "textile",
}
GOODS = {"W": "washing_machine", "Y": "dryer"}  # the fixed goods of the central column's cards
MACHINE_COLUMNS = (4, 5)  # the squares of the top aisle the machine's grey line touches
LANES = (3, 6)

HEADER = """\
# The shopping centre's floor plan. RECONSTRUCTED: the rule text's figure (page 54) is not in the
# text; this plan keeps every fact it gives: 32 Jutaku cards, 28 in seven 2 x 2 blocks and 4 in a
# central column; a top row of six (two left, two middle, two right); aisles one architect wide
# with a space (blue circle) on every square, joined to its neighbours; the exit through the two
# central lanes; two spaces touching the vending machine's grey line. Units: 100 to a square.
# A generated file: change games/shopping_centre/tools/build_mall.py and rerun it.
#
"""


def render() -> str:
    """Return the text of mall.metro."""
    lines = [HEADER]
    lines += [f"#   {row}\n" for row in LAYOUT]
    lines.append('map "Shopping centre" for "Shopping Centre" {\n')
    lines.append(
        "  # the spaces: aisle squares (exit: a central lane's bottom square, the way out;\n"
    )
    lines.append("  # machine: touches the vending machine's grey line)\n")
    for y, row in enumerate(LAYOUT):
        for x, ch in enumerate(row):
            if ch == ".":
                extras = ""
                if y == len(LAYOUT) - 1 and x in LANES:
                    extras += ", exit: true"
                if y == 0 and x in MACHINE_COLUMNS:
                    extras += ", machine: true"
                lines.append(f"  space s{x}_{y}(x: {x}, y: {y}{extras})\n")
    lines.append("  # where the architects wait outside, below the map\n")
    lines.append(f"  space outside(x: 4, y: {len(LAYOUT)}, outdoors: true)\n")
    lines.append("  # the cards: a square each, the central column's two squares wide\n")
    for y, row in enumerate(LAYOUT):
        x = 0
        while x < len(row):
            ch = row[x]
            if ch in SHELVES:
                width = 2 if ch in "WYN" else 1
                good = f", good: {GOODS[ch]}" if ch in GOODS else ""
                lines.append(
                    f"  card c{x}_{y}(x: {x}, y: {y}, width: {width}, shelf: {SHELVES[ch]}{good})\n"
                )
                x += width
            else:
                x += 1
    lines.append("}\n")
    return "".join(lines)


def main() -> int:
    """Write mall.metro, or with --check compare it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    text = render()
    if parser.parse_args().check:
        with open(OUT, encoding="utf-8") as f:
            return 0 if f.read() == text else 1
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
