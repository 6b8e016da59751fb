"""From the items of drawings to shapes on the picture: places, sizes, lines laid side by side.

Drawings of the map are placed once, in the order their places need (a line between two
elements needs their points); each map element's first drawing is its anchor, where lines to it
start and what `on` puts drawings on; their labels are then kept off each other
(metro/render/labels.py). Drawings of the state are placed per position against those anchors. Within one drawing, lines between the same two places are laid
side by side and points on the same place stand in a row, so parallel edges and several
markers on one place stay visible.
"""

from __future__ import annotations

import math
from graphlib import TopologicalSorter

from compiler.draw_rules import PLACE_ARGS, PLACES_ARGS, CheckedDraw
from compiler.types import CollT, ElemT, OptT, Type
from metro.render.labels import place_labels
from metro.render.model import Item, Layer, Point, Style
from metro.render.texts import Names

# Default sizes, as parts of the picture's larger side (map units otherwise).
POINT_RADIUS = 0.006
LINE_WIDTH = 0.004
PATH_WIDTH = 0.005
EDGE_WIDTH = 0.0015
TEXT_SIZE = 0.016
LABEL_SIZE = 0.013
LINE_GAP = 1.15  # lines side by side: centre to centre, in line widths
POINT_GAP = 2.3  # points in a row: centre to centre, in radii


class Layout:
    """Places drawings on the picture: the map's once, the state's per position."""

    def __init__(self, draws: list[CheckedDraw], names: Names, map_items: dict[str, list[tuple]]):
        self.draws = draws
        self.names = names
        self.extent = _extent(draws, map_items)
        self.label_size = LABEL_SIZE * self.extent
        self.anchors: dict[str, dict[int, Item]] = {}
        self.of_element: dict[tuple[str, int], list[Item]] = {}
        self.anchor_draws = _anchor_draws(draws)
        layers: dict[str, Layer] = {}
        for draw in _in_place_order(draws, self.anchor_draws):
            if not draw.dynamic and draw.shape != "restyle":
                layers[draw.name] = self._map_layer(draw, map_items.get(draw.name, []))
        self.map_layers = [layers[d.name] for d in draws if d.name in layers]
        numbered = (item for layer in self.map_layers for item in layer.items)
        for number, item in enumerate(numbered):
            item.number = number
        for draw in draws:
            if draw.shape == "restyle" and not draw.dynamic:
                for number, changes in self.restyles(draw, map_items.get(draw.name, [])).items():
                    item = self.item(number)
                    item.style = item.style.over(changes)
        place_labels([item for layer in self.map_layers for item in layer.items], self.label_size)

    def item(self, number: int) -> Item:
        """A map item by its number."""
        for layer in self.map_layers:
            if layer.items and layer.items[0].number <= number <= layer.items[-1].number:
                return layer.items[number - layer.items[0].number]
        raise KeyError(number)

    def _map_layer(self, draw: CheckedDraw, raw: list[tuple]) -> Layer:
        layer = self.layer(draw, raw)
        for item in layer.items:
            if item.element is not None:
                self.of_element.setdefault(item.element, []).append(item)
                if self.anchor_draws.get(item.element[0]) is draw:
                    self.anchors.setdefault(item.element[0], {}).setdefault(item.element[1], item)
        return layer

    def layer(self, draw: CheckedDraw, raw: list[tuple]) -> Layer:
        """The shapes of a drawing's items (items whose places are not drawn are left out)."""
        items = [item for item in (self._item(draw, values) for values in raw) if item]
        _spread(items)
        return Layer(draw.name, self.draws.index(draw), draw.dynamic, items)

    def restyles(self, draw: CheckedDraw, raw: list[tuple]) -> dict[int, Style]:
        """Style changes of map items (by number) that a drawing without a shape makes."""
        out: dict[int, Style] = {}
        for values in raw:
            parts = dict(zip(draw.parts, values, strict=True))
            changes = Style(parts.get("colour"), parts.get("outline"), parts.get("width"))
            for item in self.of_element.get((draw.element, parts["item"]), []):
                if item.shape != "text":
                    out[item.number] = out.get(item.number, Style()).over(changes)
        return out

    def _item(self, draw: CheckedDraw, values: tuple) -> Item | None:
        parts = dict(zip(draw.parts, values, strict=True))
        types = dict(zip(draw.parts, draw.types, strict=True))
        origin = (0.0, 0.0)
        if "on" in parts:
            on_t = types["on"].inner if isinstance(types["on"], OptT) else types["on"]
            parent = self.anchors.get(on_t.kind, {}).get(parts["on"])
            if parent is None or parent.shape != "rect":
                return None
            origin = parent.places[0]
        shape = draw.shape
        places: list[Point] = []
        if "along" in parts:  # the places of the line it follows (double routes' shifts too)
            along_t = types["along"].inner if isinstance(types["along"], OptT) else types["along"]
            followed = self.anchors.get(along_t.kind, {}).get(parts["along"])
            if followed is None or followed.shape not in ("line", "path"):
                return None
            shape, places = followed.shape, list(followed.places)
        for name in draw.parts:
            if name in PLACE_ARGS:
                places.append(self._place(parts[name], types[name], origin))
            elif name in PLACES_ARGS:
                item_t = types[name].item if isinstance(types[name], CollT) else types[name]
                places += [self._place(v, item_t, origin) for v in parts[name]]
        if any(p is None for p in places) or not places:
            return None
        element = (draw.element, parts["item"]) if draw.element else None
        named = draw.named_part
        text = self.names.text
        title = text(parts["title"], types["title"]) if "title" in parts else ""
        if not title and element is not None:
            title = self.names.element(*element)
        item = Item(
            shape=shape,
            places=tuple(places),
            size=self._size(shape, parts.get("size")),
            style=Style(
                parts.get("colour"),
                parts.get("outline"),
                parts.get("width", self._width(shape)),
                parts.get("dashes", 0),
            ),
            mark=parts.get("mark", "circle"),
            text=text(parts["text"], types["text"]) if "text" in parts else "",
            label=text(parts["label"], types["label"]) if "label" in parts else "",
            title=title,
            element=element,
            legend=text(parts["legend"], types["legend"]) if "legend" in parts else "",
            stands_for=self.names.keys(parts[named], types[named]) if named else (),
            chooses=(
                self.names.choice_keys(parts["chooses"], types["chooses"])
                if "chooses" in parts
                else ()
            ),
        )
        if draw.shape in ("rect", "box"):
            item.places = self._box(draw.shape, places, parts.get("size"), draw)
        return item

    def _place(self, value, t: Type, origin: Point) -> Point | None:
        if value is None:
            return None
        if isinstance(t, OptT):
            t = t.inner
        if isinstance(t, ElemT):
            anchor = self.anchors.get(t.kind, {}).get(value)
            return None if anchor is None else anchor.centre()
        return (origin[0] + value[0], origin[1] + value[1])

    def _box(self, shape: str, places: list[Point], size, draw: CheckedDraw) -> tuple:
        if shape == "rect":
            w, h = size if isinstance(size, tuple) else (size or 1, size or 1)
            x, y = places[0]
            return ((x, y), (x + w, y + h))
        pad = self._padding(draw)
        xs = [p[0] for p in places]
        ys = [p[1] for p in places]
        return ((min(xs) - pad, min(ys) - pad), (max(xs) + pad, max(ys) + pad))

    def _padding(self, draw: CheckedDraw) -> float:
        """Room around the places a box surrounds: the largest point drawn there, and a gap."""
        t = draw.types[draw.parts.index("around")]
        kind = t.item.kind if isinstance(t, CollT) and isinstance(t.item, ElemT) else None
        radii = [a.size for a in self.anchors.get(kind, {}).values() if a.shape == "point"]
        return max(radii, default=0) + POINT_RADIUS * self.extent * 0.6

    def _size(self, shape: str, size) -> float:
        if isinstance(size, int):
            return float(size)
        if shape == "text":
            return TEXT_SIZE * self.extent
        return POINT_RADIUS * self.extent

    def _width(self, shape: str) -> float:
        share = {"line": LINE_WIDTH, "path": PATH_WIDTH}.get(shape, EDGE_WIDTH)
        return share * self.extent


def _anchor_draws(draws: list[CheckedDraw]) -> dict[str, CheckedDraw]:
    """Each map kind's anchor: the first drawing of the map with a shape for its elements."""
    anchors: dict[str, CheckedDraw] = {}
    for draw in draws:
        if draw.element and not draw.dynamic and draw.shape != "restyle":
            anchors.setdefault(draw.element, draw)
    return anchors


def _in_place_order(draws: list[CheckedDraw], anchors: dict[str, CheckedDraw]):
    """The drawings, each after the anchors its places need (the checker refused circles)."""
    sorter: TopologicalSorter = TopologicalSorter()
    for draw in draws:
        needs = {anchors[k].name for k in _kinds_placed(draw) if k in anchors}
        needs.discard(draw.name)
        sorter.add(draw.name, *needs)
    by_name = {d.name: d for d in draws}
    return [by_name[name] for name in sorter.static_order() if name in by_name]


def _kinds_placed(draw: CheckedDraw) -> set[str]:
    kinds = set()
    for name, t in zip(draw.parts, draw.types, strict=True):
        if name in PLACES_ARGS and isinstance(t, CollT):
            t = t.item
        if isinstance(t, OptT):
            t = t.inner
        placing = name in PLACE_ARGS or name in PLACES_ARGS or name in ("on", "along")
        if placing and isinstance(t, ElemT):
            kinds.add(t.kind)
    return kinds


def _extent(draws: list[CheckedDraw], map_items: dict[str, list[tuple]]) -> float:
    """The larger side of the box of every (x, y) the map's drawings give (default sizes scale)."""
    xs: list[float] = []
    ys: list[float] = []
    for draw in draws:
        for values in map_items.get(draw.name, []):
            for name, value in zip(draw.parts, values, strict=True):
                if name in PLACE_ARGS and isinstance(value, tuple):
                    xs.append(value[0])
                    ys.append(value[1])
    if not xs:
        return 100.0
    return float(max(max(xs) - min(xs), max(ys) - min(ys), 1))


def _spread(items: list[Item]) -> None:
    """Lay lines between the same two places side by side, and points on one place in a row."""
    groups: dict[tuple, list[Item]] = {}
    for item in items:
        if item.shape == "line":
            key = ("line", *sorted(_rounded(p) for p in item.places))
        elif item.shape == "point":
            key = ("point", _rounded(item.places[0]))
        else:
            continue
        groups.setdefault(key, []).append(item)
    for key, group in groups.items():
        if len(group) < 2:
            continue
        for i, item in enumerate(group):
            step = i - (len(group) - 1) / 2
            if key[0] == "point":
                x, y = item.places[0]
                item.places = ((x + step * POINT_GAP * item.size, y),)
                continue
            (ax, ay), (bx, by) = key[1], key[2]
            length = math.hypot(bx - ax, by - ay) or 1.0
            nx, ny = -(by - ay) / length, (bx - ax) / length
            shift = step * LINE_GAP * (item.style.width or 0)
            item.places = tuple((x + nx * shift, y + ny * shift) for x, y in item.places)


def _rounded(p: Point) -> tuple[float, float]:
    return (round(p[0], 3), round(p[1], 3))
