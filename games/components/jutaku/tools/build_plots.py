"""Build the reconstructed Tokyo Jutaku component data: games/components/jutaku/plots.metro.

We do not have the printed components, so this script RECONSTRUCTS them from the rule text
(the TOKYO JUTAKU rulebook, Japanese edition: its components and setup) and writes them as the
data of the shared component library `jutaku` (games/components/jutaku/library.metro declares
what they are), which Tokyo Jutaku and Izakaya use by name.  Run it from anywhere:

    python games/components/jutaku/tools/build_plots.py [--out FILE] [--check]

``--out`` defaults to ``games/components/jutaku/plots.metro``; ``--check`` writes nothing and exits
with status 1 when the file is not what the script would write.  Only the standard library and
``runtime.geometry`` are used, every random choice comes from one seeded generator, so the
output is byte-identical from run to run.

What is taken from the rule text, and what is made up
------------------------------------------------------
* 69 wooden pieces (rule text).  The inventory of shapes is made up: ``PIECES`` below.  Shapes
  are drawn floor by floor, ground first, floors split by '|'.  The 1 x 1 x 2 pillar is
  congruent to the 2-long bar (pieces may be turned any way), but it is a kind of its own.
* 32 plot cards in 8 wards of 4 (rule text; Shinjuku and Shibuya are named there, the other six
  are central wards), laid out as a 6 x 6 grid of spots with the centre 2 x 2 left for the
  supply; each ward a 2 x 2 block, the blocks placed roughly as the wards lie on a map.
* Each card has a white (harder) and a blue (easier) side.  Floors, pieces and yen are made up:
  white sides ask 2-4 floors and 5-9 pieces, blue sides 1-3 floors and 3-6 pieces, never more
  than the white side of the same card.  The value is 1,000 yen per piece plus 2,000 yen per
  floor, which gives the rule text's example card (3 floors, 8 pieces, 14,000 yen).
* The card is a 5 x 4 grid of cells (its outline, the boundary of the timed tower game); the
  black frames drawn on it are random polyominoes inside it: 4-8 cells on white sides, 7-12 on
  blue ones and never smaller than the white frames of the card.  About a third of the sides
  have two frames; those are disjoint, do not touch and have different shapes (not congruent).
* Every side gets a witness: a building, piece by piece in a legal building order, inside one of
  its frames with exactly its floors and pieces, found by a randomised depth-first search over
  ``runtime.geometry.placements``.  A side with two frames is only kept when the other frame
  admits such a building too.  The witness uses every kind at most as often as the box holds it.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(LIBRARY_DIR)))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

from runtime.geometry import (  # noqa: E402
    Building,
    Frame,
    Placement,
    Shape,
    check_placement,
    orientations,
    placements,
)

DEFAULT_OUT = os.path.join(LIBRARY_DIR, "plots.metro")
SEED = 20240604

# (id, drawing, how many are in the box): 69 pieces.
PIECES: list[tuple[str, str, int]] = [
    ("cube", "#", 15),
    ("bar2", "##", 12),
    ("pillar", "#|#", 6),
    ("bar3", "###", 8),
    ("corner", "##/#.", 8),
    ("bar4", "####", 3),
    ("ell", "###/#..", 5),
    ("tee", "###/.#.", 5),
    ("skew", "##./.##", 3),
    ("plate", "##/##", 4),
]
TOTAL_PIECES = 69

# Wards as 2 x 2 blocks of the 6 x 6 layout, by block row and column (north at the top).
WARDS: list[tuple[str, str, int, int]] = [
    ("shinjuku", "Shinjuku", 0, 0),
    ("bunkyo", "Bunkyo", 0, 1),
    ("taito", "Taito", 0, 2),
    ("shibuya", "Shibuya", 1, 0),
    ("chiyoda", "Chiyoda", 1, 2),
    ("meguro", "Meguro", 2, 0),
    ("minato", "Minato", 2, 1),
    ("chuo", "Chuo", 2, 2),
]
GRID = 6

CARD_W, CARD_H = 5, 4  # the card's cells: x 0..4, y 0..3
WHITE_FRAME = (4, 8)  # cells of a white side's frame
BLUE_FRAME = (7, 12)
# (floors, pieces) of the sides; value = 1000 * pieces + 2000 * floors: white sides are worth
# 11,000-16,000 yen, blue sides 8,000-11,000 yen
WHITE_REQUIREMENTS = [
    (2, 7),
    (2, 8),
    (2, 9),
    (3, 5),
    (3, 6),
    (3, 7),
    (3, 8),
    (3, 9),
    (4, 5),
    (4, 6),
    (4, 7),
    (4, 8),
]
BLUE_REQUIREMENTS = [(1, 6), (2, 4), (2, 5), (2, 6), (3, 3), (3, 4), (3, 5)]
TWO_FRAMES_EVERY = 3  # every third side (counted separately for white and blue) has two frames
TWO_FRAME_WHITE_MAX = 6  # the white frames of a card whose blue side has two frames

SEARCH_NODES = 4000  # nodes per witness search attempt
SEARCH_ATTEMPTS = 6
TRIES_PER_SIDE = 200  # frame drawings tried before giving up on a side
WITNESS_SHARE = 3  # a witness uses at most a third of the pieces of each kind (rounded up)


def value_of(floors: int, pieces: int) -> int:
    """The yen a completed side earns."""
    return 1000 * pieces + 2000 * floors


# ------------------------------------------------------------------------------------ geometry


@dataclass(frozen=True)
class Kind:
    ident: str
    drawing: str
    count: int

    @property
    def shape(self) -> Shape:
        return Shape.parse(self.drawing.split("|"))

    @property
    def height(self) -> int:
        """The most floors one piece of this kind can span (turned upright)."""
        return max(self.shape.dims)


KINDS = [Kind(*piece) for piece in PIECES]
SHAPES = {kind.ident: kind.shape for kind in KINDS}

Step = tuple[str, int, int, int, int]  # (kind id, orientation, x, y, z)


def card_cells() -> set[tuple[int, int]]:
    return {(x, y) for x in range(CARD_W) for y in range(CARD_H)}


def neighbours(cell: tuple[int, int]) -> list[tuple[int, int]]:
    x, y = cell
    return [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]


def grow(
    rng: random.Random, size: int, allowed: set[tuple[int, int]]
) -> set[tuple[int, int]] | None:
    """A random connected set of `size` cells from `allowed`, or None if it does not fit."""
    if len(allowed) < size:
        return None
    cells = {rng.choice(sorted(allowed))}
    while len(cells) < size:
        rim = sorted({n for c in cells for n in neighbours(c) if n in allowed} - cells)
        if not rim:
            return None
        cells.add(rng.choice(rim))
    return cells


def canonical(cells: set[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The same form for congruent cell sets (rotations and mirror images)."""
    forms = []
    for sx in (1, -1):
        for sy in (1, -1):
            for swap in (False, True):
                moved = [((y, x) if swap else (x, y)) for x, y in cells]
                moved = [(sx * x, sy * y) for x, y in moved]
                mx = min(x for x, _ in moved)
                my = min(y for _, y in moved)
                forms.append(tuple(sorted((x - mx, y - my) for x, y in moved)))
    return min(forms)


def drawing(cells: set[tuple[int, int]]) -> str:
    """The card-sized drawing of a frame: rows split by '/', '#' inside, '.' outside."""
    return "/".join(
        "".join("#" if (x, y) in cells else "." for x in range(CARD_W)) for y in range(CARD_H)
    )


def draw_frames(
    rng: random.Random, count: int, low: int, high: int
) -> list[set[tuple[int, int]]] | None:
    """`count` frames of low..high cells: disjoint, not touching, not congruent."""
    frames: list[set[tuple[int, int]]] = []
    allowed = card_cells()
    for _ in range(count):
        cells = grow(rng, rng.randint(low, high), allowed)
        if cells is None:
            return None
        if any(canonical(cells) == canonical(other) for other in frames):
            return None
        frames.append(cells)
        allowed -= cells | {n for c in cells for n in neighbours(c)}
    return frames


class _Search:
    """A randomised depth-first search for a witness building in one frame."""

    def __init__(self, rng: random.Random, frame: Frame, floors: int, pieces: int):
        self.rng = rng
        self.frame = frame
        self.floors = floors
        self.pieces = pieces
        self.tallest = max(kind.height for kind in KINDS)
        self.capacity = len(frame.cells) * floors
        self.budget = 0
        self.left: dict[str, int] = {}
        self.steps: list[Step] = []

    def run(self) -> list[Step] | None:
        for _ in range(SEARCH_ATTEMPTS):
            self.budget = SEARCH_NODES
            self.left = {kind.ident: share(kind) for kind in KINDS}
            self.steps = []
            if self.dfs(Building.empty(), 0):
                return self.steps
        return None

    def dfs(self, building: Building, used: int) -> bool:
        placed = building.piece_count
        if placed == self.pieces:
            return building.floors == self.floors
        self.budget -= 1
        if self.budget < 0:
            return False
        remaining = self.pieces - placed
        if (
            building.floors + remaining * self.tallest < self.floors
            or self.capacity - used < remaining
        ):
            return False
        # kinds in a random order weighted by how many the box holds
        rng = self.rng
        kinds = [k for k in KINDS if self.left[k.ident] > 0]
        kinds.sort(key=lambda k: rng.random() ** (1.0 / k.count), reverse=True)
        for kind in kinds:
            options = placements(kind.shape, self.frame, building, self.floors)
            if remaining == 1:
                options = [
                    o
                    for o in options
                    if max(building.floors, o[1][2] + _height(kind, o[0])) == self.floors
                ]
            rng.shuffle(options)
            shape = SHAPES[kind.ident]
            for orientation, offset in options[:4]:
                after = building.add(Placement.of(shape, orientation, offset))
                self.left[kind.ident] -= 1
                self.steps.append((kind.ident, orientation, *offset))
                if self.dfs(after, used + shape.size):
                    return True
                self.steps.pop()
                self.left[kind.ident] += 1
        return False


def share(kind: Kind) -> int:
    """The most pieces of a kind one witness may use: a third of the box, rounded up, so that
    three players can follow their witnesses at once without running out."""
    return -(-kind.count // WITNESS_SHARE)


def search(rng: random.Random, frame: Frame, floors: int, pieces: int) -> list[Step] | None:
    """A legal building order with exactly `floors` floors and `pieces` pieces, or None."""
    return _Search(rng, frame, floors, pieces).run()


def _height(kind: Kind, orientation: int) -> int:
    return orientations(kind.shape)[orientation].dims[2]


def rebuild(frame: Frame, steps: list[Step]) -> Building:
    """The building of a witness (raises if a step is illegal: a bug in the search)."""
    building = Building.empty()
    for ident, orientation, x, y, z in steps:
        placement = Placement.of(SHAPES[ident], orientation, (x, y, z))
        reason = check_placement(building, frame, placement)
        if reason is not None:
            raise AssertionError(f"witness step {ident} {orientation} {(x, y, z)}: {reason}")
        building = building.add(placement)
    return building


# ------------------------------------------------------------------------------------ the cards


@dataclass
class Side:
    ident: str
    blue: bool
    floors: int
    pieces: int
    frames: list[set[tuple[int, int]]]
    witness_frame: int
    witness: list[Step]

    @property
    def value(self) -> int:
        return value_of(self.floors, self.pieces)


@dataclass
class Plot:
    ident: str
    ward: str
    row: int
    col: int
    white: Side
    blue: Side


def make_side(
    rng: random.Random,
    ident: str,
    blue: bool,
    floors: int,
    pieces: int,
    two: bool,
    low: int,
    high: int,
    largest: int = 0,
) -> Side:
    """A side whose frames have low..high cells, the largest at least `largest`."""
    for _ in range(TRIES_PER_SIDE):
        frames = draw_frames(rng, 2 if two else 1, low, high)
        if frames is None or max(len(cells) for cells in frames) < largest:
            continue
        witnesses = [search(rng, Frame(tuple(cells)), floors, pieces) for cells in frames]
        if any(w is None for w in witnesses):
            continue
        chosen = rng.randrange(len(frames))
        steps = witnesses[chosen]
        built = rebuild(Frame(tuple(frames[chosen])), steps)
        assert built.floors == floors and built.piece_count == pieces
        return Side(ident, blue, floors, pieces, frames, chosen, steps)
    raise RuntimeError(f"no frames with a witness for {ident} ({floors} floors, {pieces} pieces)")


def make_plots() -> list[Plot]:
    rng = random.Random(SEED)
    whites = [WHITE_REQUIREMENTS[i % len(WHITE_REQUIREMENTS)] for i in range(32)]
    rng.shuffle(whites)
    plots = []
    number = 0
    for ward, _, block_row, block_col in WARDS:
        for i in range(4):
            row, col = 2 * block_row + i // 2, 2 * block_col + i % 2
            ident = f"{ward}{i + 1}"
            floors, pieces = whites[number]
            easier = [
                (f, p)
                for f, p in BLUE_REQUIREMENTS
                if f <= floors and p <= pieces and value_of(f, p) < value_of(floors, pieces)
            ]
            blue_floors, blue_pieces = rng.choice(easier)
            blue_two = number % TWO_FRAMES_EVERY == 2
            # two blue frames need room on the card: the white frames of that card stay small
            white_high = TWO_FRAME_WHITE_MAX if blue_two else WHITE_FRAME[1]
            white = make_side(
                rng,
                f"{ident}w",
                False,
                floors,
                pieces,
                number % TWO_FRAMES_EVERY == 1,
                WHITE_FRAME[0],
                white_high,
            )
            sizes = [len(cells) for cells in white.frames]
            # blue frames are no smaller than the white ones: each at least the smallest white
            # frame, the largest at least the largest white frame
            blue = make_side(
                rng,
                f"{ident}b",
                True,
                blue_floors,
                blue_pieces,
                blue_two,
                max(BLUE_FRAME[0], min(sizes)),
                BLUE_FRAME[1],
                max(sizes),
            )
            plots.append(Plot(ident, ward, row, col, white, blue))
            number += 1
    return plots


# ------------------------------------------------------------------------------------ output


def text(plots: list[Plot]) -> str:
    assert sum(kind.count for kind in KINDS) == TOTAL_PIECES
    outline = drawing(card_cells())
    out = [
        "# Tokyo Jutaku components (reconstructed): the pieces, the layout of the plot cards, both",
        "# sides of every card with their frames, and a witness building for every side.  RECONSTRUCTED, not",
        "# copied from the printed game: only the numbers (69 pieces, 32 cards, 8 wards of 4, the",
        "# 6 x 6 layout with an empty centre) come from the rule text.  A generated file: change",
        "# games/components/jutaku/tools/build_plots.py and rerun it.",
        "# Sides: white 2-4 floors / 5-9 pieces, blue 1-3 floors / 3-6 pieces; value = 1,000 yen per",
        "# piece + 2,000 yen per floor.  Cards are 5 x 4 cells; frames are drawn in card coordinates.",
        "# metro fmt: off (written by this script, which checks it byte for byte)",
        'map "Tokyo Jutaku components" for library "jutaku" {',
        f"  # the pieces: {TOTAL_PIECES} in the box",
    ]
    out.extend(
        f'  piece_kind {kind.ident}(shape: "{kind.drawing}", count: {kind.count})' for kind in KINDS
    )
    out.append("")
    out.append(
        "  # the wards, and the 32 spots of the layout (rows and columns 0-5 without the centre)"
    )
    for ward, name, _, _ in WARDS:
        out.append(f'  ward {ward}(name: "{name}")')
    for row in range(GRID):
        spots = [
            f"spot r{row}c{col}(row: {row}, col: {col})"
            for col in range(GRID)
            if not (2 <= row <= 3 and 2 <= col <= 3)
        ]
        out.append("  " + "  ".join(spots))
    for plot in plots:
        out.append("")
        out.append(f"  plot {plot.ident}(ward: {plot.ward}, home: r{plot.row}c{plot.col})")
        for side in (plot.white, plot.blue):
            colour = "blue" if side.blue else "white"
            out.append(
                f"  side {side.ident}(plot: {plot.ident}, blue: {str(side.blue).lower()}, "
                f"floors: {side.floors}, pieces: {side.pieces}, value: {side.value}, "
                f'outline: "{outline}")   # {colour}'
            )
            names = []
            for i, cells in enumerate(side.frames):
                name = f"{side.ident}_{'ab'[i]}"
                names.append(name)
                out.append(
                    f'  area {name}(side: {side.ident}, frame: "{drawing(cells)}")'
                    f"   # {len(cells)} cells"
                )
            area = names[side.witness_frame]
            for n, (ident, orientation, x, y, z) in enumerate(side.witness, start=1):
                out.append(
                    f"  witness {side.ident}_{n}(area: {area}, piece: {ident}, "
                    f"orientation: {orientation}, x: {x}, y: {y}, z: {z})"
                )
    out.append("}")
    return "\n".join(out) + "\n"


def build() -> str:
    """The text of plots.metro."""
    return text(make_plots())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="the file to write")
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if the file differs from what would be written",
    )
    args = parser.parse_args(argv)
    result = build()
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as handle:
                same = handle.read() == result
        except FileNotFoundError:
            same = False
        print(f"{args.out} is {'up to date' if same else 'OUT OF DATE'}")
        return 0 if same else 1
    with open(args.out, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(result)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
