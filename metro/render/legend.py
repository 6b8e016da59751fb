"""The picture's legend: what the drawings with a `legend` stand for, each beside a small sample
of how it is drawn, in columns under the picture (the lines of a subway map, say)."""

from __future__ import annotations

from dataclasses import replace

from metro.render.labels import CHAR_WIDTH
from metro.render.model import Bounds, Item, Layer, Style

SAMPLE = 2.5  # a sample's length, in label heights
ROW = 1.6  # from one entry to the next below it, in label heights
MAX_SAMPLE_DASHES = 3  # a dashed line's sample shows at most this many pieces


def legend_layer(items: list[Item], bounds: Bounds, size: float) -> Layer | None:
    """The legend of these items under `bounds`, one entry per legend text (its first item's
    look); None when no item is in the legend."""
    entries: dict[str, Item] = {}
    for item in items:
        if item.legend:
            entries.setdefault(item.legend, item)
    if not entries:
        return None
    x0, _, x1, y1 = bounds
    sample = SAMPLE * size
    column = sample + size * (1.5 + CHAR_WIDTH * max(len(text) for text in entries))
    columns = max(1, int((x1 - x0) // column))
    top = y1 + size * 1.5
    shown: list[Item] = []
    for number, (text, item) in enumerate(entries.items()):
        x = x0 + (number % columns) * column
        y = top + (number // columns) * ROW * size
        shown.append(_sample(item, x, y, size))
        place = ((x + sample + size * 0.5, y + size * 0.35),)
        shown.append(Item("text", place, size, Style(colour="#222"), text=text, title=text))
    return Layer("legend", -1, False, shown)


def _sample(item: Item, x: float, y: float, size: float) -> Item:
    """A small copy of how an item is drawn, its left end at x and its middle at y."""
    style = item.style
    length = SAMPLE * size
    if item.shape in ("line", "path"):
        width = min(style.width or 1, size * 0.8)
        dashes = min(style.dashes, MAX_SAMPLE_DASHES)
        places = ((x, y), (x + length, y))
        return Item("line", places, size, replace(style, width=width, dashes=dashes))
    if item.shape == "point":
        return Item("point", ((x + length / 2, y),), min(item.size, size * 0.6), style, item.mark)
    places = ((x, y - size * 0.5), (x + length, y + size * 0.5))
    return Item(item.shape, places, size, style)
