"""Buildings as people read them in a terminal: floor plans and placements in grid words.

A ground site (x, y) is named like a chessboard square: a column letter from x (a = 0) and a
row number from y (1 = 0), so `b3` is x 1, y 2. A floor plan draws each floor from above, side
by side: a placed cube shows its piece's number (as `return piece N` counts them), a free site
of a frame shows `.` (or, with several frames, the frame's capital letter, A for the first),
anything else is blank. Placements read in the same words: `b2 c2 on floor 1`.
"""

from __future__ import annotations

from collections.abc import Sequence

from runtime.geometry import Building, Frame, Placement, Shape

# The most ground sites a plan draws per floor (bounded work for untrusted rule data).
MAX_PLAN_SITES = 1024
FLOOR_GAP = "   "


def site_name(x: int, y: int) -> str:
    """`b3` for x 1, y 2; a column past z (or left of a) reads as its number in brackets."""
    column = chr(ord("a") + x) if 0 <= x < 26 else f"[{x}]"
    return f"{column}{y + 1}"


def placement_words(shape: Shape, where: tuple) -> str:
    """The cubes a shape covers at a placement, floor by floor: `b2 c2 on floor 1`,
    `b2 on floors 1–2`, `b3 c3 on floor 2, b3 on floors 3–4`."""
    orientation, dx, dy, dz = where
    cells = Placement.of(shape, orientation, (dx, dy, dz)).cells
    by_floor: dict[int, list[tuple[int, int]]] = {}
    for x, y, z in cells:
        by_floor.setdefault(z, []).append((y, x))
    runs: list[tuple[str, int, int]] = []  # the same sites on consecutive floors: one run
    for z in sorted(by_floor):
        names = " ".join(site_name(x, y) for y, x in sorted(by_floor[z]))
        if runs and runs[-1][0] == names and runs[-1][2] == z - 1:
            runs[-1] = (names, runs[-1][1], z)
        else:
            runs.append((names, z, z))
    return ", ".join(
        f"{names} on floor {low + 1}" if low == high else f"{names} on floors {low + 1}–{high + 1}"
        for names, low, high in runs
    )


def floor_plan(building: Building, frames: Sequence[Frame], floors: int = 0) -> str:
    """The building drawn floor by floor over its frames, up to the first free floor, in the
    columns and rows its frames and cubes use.

    `floors` caps the floors drawn (0: no cap), like the building's allowed height.
    """
    owner = {cell: building.owner(cell) for cell in building.cells}
    sites = {(x, y) for x, y, _ in owner}
    for frame in frames:
        sites.update(frame.cells)
    if not sites:
        return "nothing to draw"
    x0 = min(x for x, _ in sites)  # the columns and rows in use (their headers name them)
    y0 = min(y for _, y in sites)
    x1 = max(x for x, _ in sites)
    y1 = max(y for _, y in sites)
    if (x1 - x0 + 1) * (y1 - y0 + 1) > MAX_PLAN_SITES:
        return f"too large to draw ({x1 - x0 + 1} × {y1 - y0 + 1} sites)"
    shown = building.floors + 1
    if floors > 0:
        shown = min(shown, floors)
    width = len(str(building.piece_count)) if building.piece_count else 1
    free = _free_marks(frames)
    label = len(str(y1 + 1))
    blocks = []
    for z in range(max(shown, 1)):
        lines = [f"floor {z + 1}"]
        lines.append(
            " " * label + " " + " ".join(_column(x).rjust(width) for x in range(x0, x1 + 1))
        )
        for y in range(y0, y1 + 1):
            marks = []
            for x in range(x0, x1 + 1):
                piece = owner.get((x, y, z))
                mark = str(piece + 1) if piece is not None else free.get((x, y), " ")
                marks.append(mark.rjust(width))
            lines.append(f"{str(y + 1).rjust(label)} " + " ".join(marks))
        blocks.append(lines)
    return _side_by_side(blocks)


def _column(x: int) -> str:
    return site_name(x, 0)[:-1]


def _free_marks(frames: Sequence[Frame]) -> dict[tuple[int, int], str]:
    """What a free site shows: `.`, or with several frames the first frame's letter."""
    marks: dict[tuple[int, int], str] = {}
    for index, frame in enumerate(frames):
        mark = "." if len(frames) == 1 else chr(ord("A") + index % 26)
        for site in frame.cells:
            marks.setdefault(site, mark)
    return marks


def _side_by_side(blocks: list[list[str]]) -> str:
    widths = [max(map(len, block)) for block in blocks]
    rows = max(map(len, blocks))
    out = []
    for i in range(rows):
        parts = [
            (block[i] if i < len(block) else "").ljust(w)
            for block, w in zip(blocks, widths, strict=True)
        ]
        out.append(FLOOR_GAP.join(parts).rstrip())
    return "\n".join(out)
