"""Where the map's labels stand: beside their shapes, kept off each other where there is room.

Greedy placement over a few candidate places per label (the classic approach for point
labels), then a few rounds of repair: labels are first placed in drawing order, each at the
first of its candidates that meets nothing placed before it; then each label that still meets
another label or another element's shape moves to its cheapest candidate with every other label
where it stands, until a round moves none. Points and boxes (map nodes, cards) have a dozen
candidates round them and the same a little farther out; other shapes keep their one place.
"""

from __future__ import annotations

from metro.render.model import Bounds, Item, LabelPlace

CHAR_WIDTH = 0.6  # a character's width, in label heights (a rough sans-serif average)
LABEL_WEIGHT = 20.0  # an overlap with another label costs this many times one with a shape
ORDER_COST = 0.01  # a small preference for the earlier candidates, in label areas
REPAIR_ROUNDS = 6  # rounds of moving the labels that still meet something

FARTHER = 0.4  # the second ring of places stands this much farther out, in label heights
WRAP = 16  # a label of a point or box longer than this many characters breaks into lines
LINE_HEIGHT = 1.15  # from one line's baseline to the next, in label heights


def candidates(item: Item, size: float) -> list[LabelPlace]:
    """Where an item's label may stand, the preferred place first."""
    x0, y0, x1, y1 = item.bounds()
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    gap, rise = size * 0.3, size * 0.35
    up, down, centre = "up", "down", "centre"
    if item.shape == "point":
        cy = item.places[0][1]
        places = [
            (x1 + gap, cy + rise, "start", centre),
            (x0 - gap, cy + rise, "end", centre),
            (cx, y0 - gap, "middle", up),
            (cx, y1 + size, "middle", down),
            (x1, y0 - gap * 0.3, "start", up),
            (x1, y1 + size * 0.9, "start", down),
            (x0, y0 - gap * 0.3, "end", up),
            (x0, y1 + size * 0.9, "end", down),
            (cx, y0 - gap, "start", up),
            (cx, y0 - gap, "end", up),
            (cx, y1 + size, "start", down),
            (cx, y1 + size, "end", down),
        ]
    elif item.shape == "box":
        places = [
            (x0, y0 - gap, "start", up),
            (x1, y0 - gap, "end", up),
            (x0, y1 + size, "start", down),
            (x1, y1 + size, "end", down),
            (x1 + gap, cy + rise, "start", centre),
            (x0 - gap, cy + rise, "end", centre),
            (cx, y0 - gap, "middle", up),
            (cx, y1 + size, "middle", down),
            (x1 + gap, y0 + size * 0.8, "start", down),
            (x1 + gap, y1 - size * 0.1, "start", up),
            (x0 - gap, y0 + size * 0.8, "end", down),
            (x0 - gap, y1 - size * 0.1, "end", up),
        ]
    elif item.shape == "rect":
        places = [(x0 + gap, y0 + size * 1.1, "start", down)]
    elif item.shape == "path":
        x, y = item.places[0]
        places = [(x, y - size * 0.6, "middle", up)]
    else:
        places = [(cx, cy + rise, "middle", centre)]
    near = [LabelPlace(*place) for place in places]
    if item.shape not in ("point", "box"):
        return near
    return near + [_farther(place, size * FARTHER) for place in near]


def _farther(place: LabelPlace, by: float) -> LabelPlace:
    """The same place moved `by` away from its shape."""
    dx = {"start": by, "end": -by, "middle": 0.0}[place.anchor]
    dy = {"up": -by, "down": by, "centre": 0.0}[place.grow]
    return LabelPlace(place.x + dx, place.y + dy, place.anchor, place.grow)


def label_lines(item: Item) -> list[str]:
    """The lines of an item's label: a long label of a point or box (a station's names) breaks
    between words, a lone `/` staying with the word before it."""
    if item.shape not in ("point", "box") or len(item.label) <= WRAP:
        return [item.label]
    words: list[str] = []
    for word in item.label.split(" "):
        if word == "/" and words:
            words[-1] += " /"
        else:
            words.append(word)
    lines = [words[0]]
    for word in words[1:]:
        if len(lines[-1]) + 1 + len(word) <= WRAP:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def first_baseline(place: LabelPlace, count: int, size: float) -> float:
    """The baseline of a label's first line, when it has `count` lines."""
    spread = (count - 1) * LINE_HEIGHT * size
    return place.y - {"up": spread, "down": 0.0, "centre": spread / 2}[place.grow]


def text_box(lines: list[str], place: LabelPlace, size: float) -> Bounds:
    """The box a label's lines take at a place, roughly."""
    width = max(len(line) for line in lines) * size * CHAR_WIDTH
    left = {"start": place.x, "middle": place.x - width / 2, "end": place.x - width}[place.anchor]
    top = first_baseline(place, len(lines), size) - size
    height = (len(lines) - 1) * LINE_HEIGHT * size + size * 1.3
    return (left, top, left + width, top + height)


def place_labels(items: list[Item], size: float) -> None:
    """Choose each labelled item's label place (`Item.label_at`), keeping labels apart."""
    _Placement(items, size).run()


def overlap(a: Bounds, b: Bounds) -> float:
    """The area two boxes share."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return width * height if width > 0 and height > 0 else 0.0


class _Placement:
    """The labels of one map being placed: their candidates, chosen places and costs."""

    def __init__(self, items: list[Item], size: float):
        self.size = size
        self.shapes = [(item, item.bounds()) for item in items if item.shape in ("point", "box")]
        self.labelled = [item for item in items if item.label]
        self.choices = [candidates(item, size) for item in self.labelled]
        self.lines = [label_lines(item) for item in self.labelled]
        self.boxes: list[Bounds | None] = [None] * len(self.labelled)
        self.grid = _Grid(size * 8)
        for index, (_, box) in enumerate(self.shapes):
            self.grid.add(box, ("shape", index))

    def run(self) -> None:
        for index in range(len(self.labelled)):
            self._choose(index, first_free=True)
        for _ in range(REPAIR_ROUNDS):
            moved = False
            for index in range(len(self.labelled)):
                if self._meets_something(index):
                    moved |= self._choose(index, first_free=False)
            if not moved:
                break
        for index, item in enumerate(self.labelled):
            box = self.boxes[index]
            item.label_at = next(
                c for c in self.choices[index] if text_box(self.lines[index], c, self.size) == box
            )

    def _cost(self, index: int, box: Bounds) -> float:
        """What standing at `box` costs label `index`: the areas it shares, weighted."""
        cost = 0.0
        item = self.labelled[index]
        for kind, other in self.grid.near(box):
            if kind == "label":
                if other == index or self.boxes[other] is None:
                    continue
                cost += LABEL_WEIGHT * overlap(box, self.boxes[other])
            elif self.shapes[other][0] is not item:
                cost += overlap(box, self.shapes[other][1])
        return cost

    def _meets_something(self, index: int) -> bool:
        return self._cost(index, self.boxes[index]) > 0

    def _choose(self, index: int, first_free: bool) -> bool:
        """Put label `index` at its cheapest candidate (the first free one, if `first_free`);
        True if it moved."""
        best, best_cost = None, None
        for order, place in enumerate(self.choices[index]):
            box = text_box(self.lines[index], place, self.size)
            area = max((box[2] - box[0]) * (box[3] - box[1]), 1e-9)
            meets = self._cost(index, box)
            cost = meets + order * ORDER_COST * area
            if best_cost is None or cost < best_cost:
                best, best_cost = box, cost
            if first_free and meets == 0:
                break  # nothing in the way: earlier candidates are preferred
        moved = best != self.boxes[index]
        if moved:
            self.boxes[index] = best
            self.grid.add(best, ("label", index))  # its old cells keep a stale key: harmless
        return moved


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
