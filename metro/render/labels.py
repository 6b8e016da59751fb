"""Where the map's labels stand: beside their shapes, kept off each other where there is room.

Greedy placement over a few candidate places per label (the classic approach for point
labels): labels are placed in drawing order, each at the first of its candidates that
overlaps no label placed before it and the fewest other shapes; where every candidate
overlaps something, the one overlapping least. Points and boxes (map nodes, cards)
have eight candidates around them; other shapes keep their one place.
"""

from __future__ import annotations

from metro.render.model import Bounds, Item

CHAR_WIDTH = 0.6  # a character's width, in label heights (a rough sans-serif average)
LABEL_WEIGHT = 20.0  # an overlap with another label costs this many times one with a shape
ORDER_COST = 0.01  # a small preference for the earlier candidates, in label areas

LabelPlace = tuple[float, float, str]  # x, baseline y, SVG text-anchor


def candidates(item: Item, size: float) -> list[LabelPlace]:
    """Where an item's label may stand, the preferred place first."""
    x0, y0, x1, y1 = item.bounds()
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    gap, rise = size * 0.3, size * 0.35
    if item.shape == "point":
        cy = item.places[0][1]
        return [
            (x1 + gap, cy + rise, "start"),
            (x0 - gap, cy + rise, "end"),
            (cx, y0 - gap, "middle"),
            (cx, y1 + size, "middle"),
            (x1, y0 - gap * 0.3, "start"),
            (x1, y1 + size * 0.9, "start"),
            (x0, y0 - gap * 0.3, "end"),
            (x0, y1 + size * 0.9, "end"),
        ]
    if item.shape == "box":
        return [
            (x0, y0 - gap, "start"),
            (x1, y0 - gap, "end"),
            (x0, y1 + size, "start"),
            (x1, y1 + size, "end"),
            (x1 + gap, cy + rise, "start"),
            (x0 - gap, cy + rise, "end"),
            (cx, y0 - gap, "middle"),
            (cx, y1 + size, "middle"),
        ]
    if item.shape == "rect":
        return [(x0 + gap, y0 + size * 1.1, "start")]
    if item.shape == "path":
        x, y = item.places[0]
        return [(x, y - size * 0.6, "middle")]
    return [(cx, cy + rise, "middle")]


def text_box(text: str, place: LabelPlace, size: float) -> Bounds:
    """The box a label's text takes at a place, roughly."""
    x, y, anchor = place
    width = len(text) * size * CHAR_WIDTH
    left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
    return (left, y - size, left + width, y + size * 0.3)


def place_labels(items: list[Item], size: float) -> None:
    """Choose each labelled item's label place (`Item.label_at`), keeping labels apart."""
    shapes = [(item, item.bounds()) for item in items if item.shape in ("point", "box")]
    grid = _Grid(size * 8)
    for index, (_, box) in enumerate(shapes):
        grid.add(box, ("shape", index))
    placed: list[Bounds] = []
    for item in items:
        if not item.label:
            continue
        best, best_cost = None, None
        for order, place in enumerate(candidates(item, size)):
            box = text_box(item.label, place, size)
            area = max((box[2] - box[0]) * (box[3] - box[1]), 1e-9)
            cost = order * ORDER_COST * area
            for kind, index in grid.near(box):
                other = placed[index] if kind == "label" else shapes[index][1]
                if kind == "shape" and shapes[index][0] is item:
                    continue
                weight = LABEL_WEIGHT if kind == "label" else 1.0
                cost += weight * overlap(box, other)
            if best_cost is None or cost < best_cost:
                best, best_cost = place, cost
            if cost == order * ORDER_COST * area:
                break  # nothing in the way: earlier candidates are preferred
        item.label_at = best
        chosen = text_box(item.label, best, size)
        grid.add(chosen, ("label", len(placed)))
        placed.append(chosen)


def overlap(a: Bounds, b: Bounds) -> float:
    """The area two boxes share."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return width * height if width > 0 and height > 0 else 0.0


class _Grid:
    """Boxes in square buckets, so a label meets only the boxes near it."""

    def __init__(self, cell: float):
        self.cell = max(cell, 1e-6)
        self.buckets: dict[tuple[int, int], list[tuple[str, int]]] = {}

    def _cells(self, box: Bounds):
        c = self.cell
        for gx in range(int(box[0] // c), int(box[2] // c) + 1):
            for gy in range(int(box[1] // c), int(box[3] // c) + 1):
                yield gx, gy

    def add(self, box: Bounds, key: tuple[str, int]) -> None:
        for cell in self._cells(box):
            self.buckets.setdefault(cell, []).append(key)

    def near(self, box: Bounds) -> list[tuple[str, int]]:
        seen: dict[tuple[str, int], None] = {}
        for cell in self._cells(box):
            for key in self.buckets.get(cell, ()):
                seen.setdefault(key, None)
        return list(seen)
