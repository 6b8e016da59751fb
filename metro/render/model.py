"""What a picture is made of: shapes in map units, grouped by the drawing that made them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

Point = tuple[float, float]
Bounds = tuple[float, float, float, float]  # min x, min y, max x, max y


@dataclass(frozen=True)
class Style:
    """How a shape is painted (None: the shape's default)."""

    colour: str | None = None  # the fill of points, rects, boxes and text; the stroke of lines
    outline: str | None = None  # the edge of points, rects and boxes; the border of lines
    width: float | None = None  # the outline's width (points, rects, boxes) or the line's
    dashes: int = 0  # a line drawn as this many segments (0: unbroken)

    def over(self, changes: Style) -> Style:
        """This style with every value `changes` sets replaced."""
        values = {k: v for k, v in vars(changes).items() if v not in (None, 0)}
        return replace(self, **values)


@dataclass(frozen=True)
class LabelPlace:
    """Where a label stands: a point, how its lines run from it, and which way they grow."""

    x: float
    y: float  # the baseline of its one line (grow "up": of its last, "down": of its first)
    anchor: str  # SVG text-anchor: start, middle, end
    grow: str = "down"  # where more lines go: "up" (above its shape), "down" or "centre"


@dataclass
class Item:
    """One drawn shape: where it is, how it is painted, what it says."""

    shape: str  # point, line, path, rect, box, text
    places: tuple[Point, ...]  # point, text: (at,); line: (from, to); path: the points;
    # rect, box: (top-left, bottom-right)
    size: float  # a point's radius, a text's height
    style: Style
    mark: str = "circle"
    text: str = ""  # what a text shape shows
    label: str = ""  # text shown beside the shape
    title: str = ""  # text shown when the pointer rests on it
    element: tuple[str, int] | None = None  # the map element it draws, if any
    stands_for: tuple[str, ...] = ()  # the things it stands for, as `Names.keys` gives them
    chooses: tuple[str, ...] = ()  # the choice it stands for: every argument, `Names.choice_keys`
    number: int = -1  # its place among the picture's map items (restyles name it)
    label_at: LabelPlace | None = None  # where its label stands, once placed
    legend: str = ""  # what it stands for in the picture's legend, if it is listed there

    def bounds(self) -> Bounds:
        """The smallest box holding the shape (its label's extent not included)."""
        xs = [p[0] for p in self.places]
        ys = [p[1] for p in self.places]
        reach = self.size if self.shape == "point" else (self.style.width or 0) / 2
        if self.shape == "text":
            width = len(self.text) * self.size * 0.6
            return (xs[0], ys[0] - self.size, xs[0] + width, ys[0] + self.size * 0.3)
        return (min(xs) - reach, min(ys) - reach, max(xs) + reach, max(ys) + reach)

    def centre(self) -> Point:
        """The middle of the shape: where lines to its element start and end."""
        if self.shape in ("point", "text"):
            return self.places[0]
        if self.shape == "path":
            middle = self.places[len(self.places) // 2]
            return middle
        x0, y0, x1, y1 = self.bounds() if self.shape != "line" else _span(self.places)
        return ((x0 + x1) / 2, (y0 + y1) / 2)


def _span(places: tuple[Point, ...]) -> Bounds:
    xs = [p[0] for p in places]
    ys = [p[1] for p in places]
    return (min(xs), min(ys), max(xs), max(ys))


@dataclass
class Layer:
    """The items of one drawing (a `draw` declaration)."""

    name: str
    index: int  # the drawing's place in the rules (and so in the picture's depth)
    dynamic: bool  # drawn from the game state
    items: list[Item] = field(default_factory=list)


@dataclass
class Finding:
    """A problem of the map, marked on the picture."""

    number: int
    message: str
    where: str  # file:line:col of the finding
    marked: list[Bounds] = field(default_factory=list)  # the drawings of the elements it names


@dataclass
class Scene:
    """A whole picture: its layers in depth order, restyled items, and the map's findings."""

    title: str
    layers: list[Layer]
    restyled: dict[int, Style] = field(default_factory=dict)  # item number -> changes
    findings: list[Finding] = field(default_factory=list)
    caption: list[str] = field(default_factory=list)  # lines of text under the picture
    marked: list[Item] = field(default_factory=list)  # shapes of what the last moves named


def union(boxes) -> Bounds | None:
    """The smallest box holding every box given (None for none)."""
    boxes = list(boxes)
    if not boxes:
        return None
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )
