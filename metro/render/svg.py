"""A scene as SVG text (xml.etree builds it, so every text from a rule file is escaped).

Each item is a `<g>` with its hover `<title>`, its shape (class `s`; a line's border is
class `o`) and its label, and `data-names`: the things it stands for (`route:R013 Card:red`,
space-separated). Map items carry an id (`i<number>`), so a restyle is a CSS rule
(`restyle_css`): the replay page swaps those rules step by step, and a single picture
carries them in its `<style>`.
"""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET

from metro.render.labels import LINE_HEIGHT, candidates, first_baseline, label_lines, text_box
from metro.render.legend import legend_layer
from metro.render.model import Bounds, Item, LabelPlace, Scene, Style, union

SVG_NS = "http://www.w3.org/2000/svg"
WIDTH_PX = 1600  # the picture's width; its height follows the map's proportions
MARGIN = 0.03  # room around the map, as a part of its larger side
BACKGROUND = "#fbfaf5"
FINDING = "#d0021b"
RING = "#ffc400"  # the ring round an element the last moves named, over a dark edge: it shows
EDGE = "#111"  # on any colour
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
DASH_GAP = 0.12  # the gap between a dashed line's pieces, as a part of each piece's share


def scene_bounds(scene: Scene, label_size: float) -> Bounds:
    """The box holding every item of the scene with its label."""
    items = [item for layer in scene.layers for item in layer.items]
    labels = (label_bounds(item, label_size) for item in items)
    boxes = [item.bounds() for item in items] + [b for b in labels if b]
    return union(boxes) or (0.0, 0.0, 100.0, 100.0)


def to_svg(scene: Scene, bounds: Bounds, label_size: float) -> str:
    """The whole picture as an SVG document (with its legend under `bounds`)."""
    items = [item for layer in scene.layers for item in layer.items]
    legend = legend_layer(items, bounds, label_size)
    if legend is not None:
        bounds = union([bounds, *(item.bounds() for item in legend.items)])
    root = svg_root(scene.title, bounds, label_size, len(scene.caption) + len(scene.findings))
    style = ET.SubElement(root, "style")
    style.text = base_css() + restyle_css(scene)
    for layer in scene.layers + ([legend] if legend else []):
        group = ET.SubElement(root, "g", {"class": "layer", "data-name": layer.name})
        for item in layer.items:
            group.append(item_element(item, label_size))
    if scene.marked:
        root.append(marks_element(scene.marked, label_size))
    if scene.findings:
        root.append(findings_element(scene, label_size))
    if scene.caption or scene.findings:
        root.append(caption_element(scene, bounds, label_size))
    return document(root)


def svg_root(title: str, bounds: Bounds, label_size: float, caption_lines: int) -> ET.Element:
    """The `<svg>` element with its view box, background and title."""
    x0, y0, x1, y1 = bounds
    margin = MARGIN * max(x1 - x0, y1 - y0, 1)
    x0, y0, x1 = x0 - margin, y0 - margin, x1 + margin
    y1 = y1 + margin + caption_lines * label_size * 1.5
    width, height = x1 - x0, y1 - y0
    root = ET.Element(
        "svg",
        {
            "xmlns": SVG_NS,
            "viewBox": f"{_n(x0)} {_n(y0)} {_n(width)} {_n(height)}",
            "width": str(WIDTH_PX),
            "height": str(round(WIDTH_PX * height / width)),
            "font-family": FONT,
        },
    )
    ET.SubElement(root, "title").text = title
    ET.SubElement(
        root,
        "rect",
        {"x": _n(x0), "y": _n(y0), "width": _n(width), "height": _n(height), "fill": BACKGROUND},
    )
    return root


def base_css() -> str:
    """Rules every picture has: the pointer shows an item's title over its labels too."""
    return ".halo,.lbl{pointer-events:none}"


def restyle_css(scene: Scene) -> str:
    """CSS rules restyling the scene's map items."""
    items = {item.number: item for layer in scene.layers for item in layer.items}
    return "".join(
        item_css(items[number], changes)
        for number, changes in sorted(scene.restyled.items())
        if number in items
    )


def item_css(item: Item, changes: Style) -> str:
    """The CSS rule that restyles one map item."""
    target = f"#i{item.number}"
    rules = []
    if item.shape in ("line", "path"):
        shape = []
        if changes.colour:
            shape.append(f"stroke:{changes.colour}")
        if changes.width:
            inner = changes.width * (0.7 if item.style.outline else 1)
            shape.append(f"stroke-width:{_n(inner)}")
        if shape:
            rules.append(f"{target} .s{{{';'.join(shape)}}}")
        border = []
        if changes.outline:
            border.append(f"stroke:{changes.outline}")
        if changes.width:
            border.append(f"stroke-width:{_n(changes.width)}")
        if border:
            rules.append(f"{target} .o{{{';'.join(border)}}}")
    else:
        shape = []
        if changes.colour:
            shape.append(f"fill:{changes.colour}")
        if changes.outline:
            shape.append(f"stroke:{changes.outline}")
        if changes.width:
            shape.append(f"stroke-width:{_n(changes.width)}")
        if shape:
            rules.append(f"{target} .s{{{';'.join(shape)}}}")
    return "".join(rules)


def item_element(item: Item, label_size: float) -> ET.Element:
    """One item: a group with its title, shape and label."""
    attrs = {"class": "item"}
    if item.number >= 0:
        attrs["id"] = f"i{item.number}"
    if item.stands_for:
        # what a click on the shape means (a page offers the choices naming these things)
        attrs["data-names"] = " ".join(item.stands_for)
    if item.chooses:
        # the choice a click makes: the one of the viewer's choices with all these arguments
        attrs["data-chooses"] = " ".join(item.chooses)
        attrs["class"] = "item choice"
        # faint: several placements over the same cells add up to a deeper tint
        attrs["fill-opacity"] = "0.12"
        attrs["stroke-opacity"] = "0.3"
    group = ET.Element("g", attrs)
    if item.title:
        ET.SubElement(group, "title").text = item.title
    for element in _shape(item):
        group.append(element)
    if item.label:
        group.extend(_label(item, label_size))
    return group


def _shape(item: Item) -> list[ET.Element]:
    style = item.style
    if item.shape == "point":
        return [_mark(item)]
    if item.shape == "line":
        return _line(item)
    if item.shape == "path":
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in item.places)
        attrs = {
            "class": "s",
            "points": points,
            "fill": "none",
            "stroke": style.colour or "#555",
            "stroke-width": _n(style.width or 1),
            "stroke-linejoin": "round",
            "stroke-linecap": "round",
        }
        if style.dashes:
            attrs.update(_dashes(_length(item.places), style.dashes))
        return [ET.Element("polyline", attrs)]
    if item.shape in ("rect", "box"):
        (x0, y0), (x1, y1) = item.places
        attrs = {
            "class": "s",
            "x": _n(x0),
            "y": _n(y0),
            "width": _n(x1 - x0),
            "height": _n(y1 - y0),
            "fill": style.colour or "none",
            "stroke": style.outline or ("#666" if item.shape == "box" else "none"),
            "stroke-width": _n(style.width or 0),
        }
        if item.shape == "box":
            attrs["rx"] = _n(min(x1 - x0, y1 - y0) / 2)
        return [ET.Element("rect", attrs)]
    x, y = item.places[0]
    text = ET.Element(
        "text",
        {
            "class": "s",
            "x": _n(x),
            "y": _n(y),
            "font-size": _n(item.size),
            "fill": style.colour or "#222",
        },
    )
    text.text = item.text
    return [text]


def _mark(item: Item) -> ET.Element:
    (x, y), r, style = item.places[0], item.size, item.style
    paint = {
        "class": "s",
        "fill": style.colour or "#333",
        "stroke": style.outline or "none",
        "stroke-width": _n(style.width or 0),
    }
    if item.mark == "circle":
        return ET.Element("circle", {"cx": _n(x), "cy": _n(y), "r": _n(r), **paint})
    if item.mark == "square":
        side = r * 1.8
        return ET.Element(
            "rect",
            {"x": _n(x - side / 2), "y": _n(y - side / 2), "width": _n(side), "height": _n(side)}
            | paint,
        )
    if item.mark == "triangle":
        corners = [(x, y - r * 1.2), (x + r * 1.1, y + r * 0.8), (x - r * 1.1, y + r * 0.8)]
    else:  # diamond
        corners = [(x, y - r * 1.3), (x + r, y), (x, y + r * 1.3), (x - r, y)]
    points = " ".join(f"{_n(a)},{_n(b)}" for a, b in corners)
    return ET.Element("polygon", {"points": points, **paint})


def _line(item: Item) -> list[ET.Element]:
    (ax, ay), (bx, by) = item.places
    style = item.style
    width = style.width or 1
    ends = {"x1": _n(ax), "y1": _n(ay), "x2": _n(bx), "y2": _n(by)}
    length = math.hypot(bx - ax, by - ay)
    out = []
    inner = width
    if style.outline:
        border = {"class": "o", **ends, "stroke": style.outline, "stroke-width": _n(width)}
        if style.dashes:
            border.update(_dashes(length, style.dashes))
        out.append(ET.Element("line", border))
        inner = width * 0.7
    attrs = {"class": "s", **ends, "stroke": style.colour or "#555", "stroke-width": _n(inner)}
    if style.dashes:
        attrs.update(_dashes(length, style.dashes, (width - inner) / 2))
    out.append(ET.Element("line", attrs))
    return out


def _dashes(length: float, count: int, inset: float = 0.0) -> dict[str, str]:
    """The dash pattern that shows a line as `count` equal pieces, each in the middle of its
    share of the line (`inset` shorter at both ends), so that the pieces of two lines drawn
    over one route line up whatever their widths (trains on its spaces)."""
    share = length / max(count, 1)
    dash = max(share * (1 - DASH_GAP) - 2 * inset, 0)
    return {
        "stroke-dasharray": f"{_n(dash)} {_n(share - dash)}",
        "stroke-dashoffset": _n(-(share - dash) / 2),
    }


def _length(points) -> float:
    return sum(math.dist(a, b) for a, b in itertools.pairwise(points))


def label_place(item: Item, size: float) -> LabelPlace:
    """Where an item's label stands (placed with the map's labels, else its first candidate)."""
    return item.label_at or candidates(item, size)[0]


def label_bounds(item: Item, size: float):
    """The box an item's label takes (None without a label), roughly: for the picture's frame."""
    if not item.label:
        return None
    return text_box(label_lines(item), label_place(item, size), size)


def _label(item: Item, size: float) -> list[ET.Element]:
    """The label, over a light halo of the same text so that it reads over lines."""
    place = label_place(item, size)
    lines = label_lines(item)
    y = first_baseline(place, len(lines), size)
    at = {"x": _n(place.x), "y": _n(y), "font-size": _n(size), "text-anchor": place.anchor}
    halo = ET.Element(
        "text",
        {
            "class": "halo",
            **at,
            "fill": "none",
            "stroke": "#fff",
            "stroke-opacity": "0.85",
            "stroke-width": _n(size * 0.3),
            "stroke-linejoin": "round",
        },
    )
    text = ET.Element("text", {"class": "lbl", **at, "fill": "#1a1a1a"})
    for element in (halo, text):
        if len(lines) == 1:
            element.text = lines[0]
            continue
        for number, line in enumerate(lines):
            step = {"x": _n(place.x), "dy": _n(LINE_HEIGHT * size)} if number else {}
            ET.SubElement(element, "tspan", step).text = line
    return [halo, text]


def marks_element(items: list[Item], label_size: float) -> ET.Element:
    """The rings round marked items: a group drawn over the picture, taking no clicks."""
    group = ET.Element("g", {"class": "last-moves", "pointer-events": "none"})
    for item in items:
        attrs = {"class": "mark"}
        if item.number >= 0:  # a map item (state items have no id)
            attrs["data-item"] = f"i{item.number}"
        ring = ET.SubElement(group, "g", attrs)
        # a band over a path is see-through: one pass, without the dark edge that muddies it
        passes = ((RING, 0.28),) if item.shape == "path" else ((EDGE, 0.5), (RING, 0.28))
        for colour, share in passes:
            ring.append(_ring(item, label_size * 0.5, colour, label_size * share))
    return group


def _ring(item: Item, pad: float, colour: str, stroke: float) -> ET.Element:
    """A rounded outline `pad` beyond an item's shape: along a line, round its box, or over a
    path a see-through band (its box could be most of the map: a subway line)."""
    paint = {"fill": "none", "stroke": colour, "stroke-width": _n(stroke)}
    if item.shape == "path":
        band = (item.style.width or 0) + 2 * pad + stroke
        points = " ".join(f"{_n(x)},{_n(y)}" for x, y in item.places)
        return ET.Element(
            "polyline",
            {
                "points": points,
                "fill": "none",
                "stroke": colour,
                "stroke-width": _n(band),
                "stroke-opacity": "0.45",
                "stroke-linejoin": "round",
                "stroke-linecap": "round",
            },
        )
    if item.shape == "line":
        (ax, ay), (bx, by) = item.places
        half = (item.style.width or 0) / 2 + pad
        length = math.hypot(bx - ax, by - ay)
        turn = math.degrees(math.atan2(by - ay, bx - ax))
        box = {"x": _n(-pad), "y": _n(-half), "width": _n(length + 2 * pad), "height": _n(2 * half)}
        place = f"translate({_n(ax)} {_n(ay)}) rotate({_n(turn)})"
        return ET.Element("rect", {**box, "rx": _n(half), "transform": place, **paint})
    x0, y0, x1, y1 = item.bounds()
    x0, y0, x1, y1 = x0 - pad, y0 - pad, x1 + pad, y1 + pad
    round_ = min(x1 - x0, y1 - y0) / 2 if item.shape in ("point", "box") else pad
    box = {"x": _n(x0), "y": _n(y0), "width": _n(x1 - x0), "height": _n(y1 - y0)}
    return ET.Element("rect", {**box, "rx": _n(round_), **paint})


def findings_element(scene: Scene, label_size: float) -> ET.Element:
    """A numbered ring around each element a finding of the map names."""
    group = ET.Element("g", {"id": "findings"})
    stroke = label_size * 0.25
    seen: dict[tuple, int] = {}  # findings already marked on one box: their badges fan out
    for finding in scene.findings:
        for x0, y0, x1, y1 in finding.marked:
            turn = seen.get((x0, y0, x1, y1), 0)
            seen[(x0, y0, x1, y1)] = turn + 1
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            r = max(math.hypot(x1 - x0, y1 - y0) / 2, label_size) + label_size * 0.5
            ring = ET.SubElement(group, "g", {"class": "finding"})
            ET.SubElement(ring, "title").text = f"{finding.number}. {finding.message}"
            ET.SubElement(
                ring,
                "circle",
                {
                    "cx": _n(cx),
                    "cy": _n(cy),
                    "r": _n(r),
                    "fill": "none",
                    "stroke": FINDING,
                    "stroke-width": _n(stroke),
                    "stroke-dasharray": f"{_n(stroke * 3)} {_n(stroke * 1.5)}",
                },
            )
            badge = label_size * 0.8
            step = max(math.radians(35), 2.4 * badge / r)  # badges on one ring never overlap
            angle = math.radians(-45) + step * turn
            badge_x, badge_y = cx + r * math.cos(angle), cy + r * math.sin(angle)
            ET.SubElement(
                ring,
                "circle",
                {"cx": _n(badge_x), "cy": _n(badge_y), "r": _n(badge), "fill": FINDING},
            )
            number = ET.SubElement(
                ring,
                "text",
                {
                    "x": _n(badge_x),
                    "y": _n(badge_y + label_size * 0.35),
                    "font-size": _n(label_size),
                    "text-anchor": "middle",
                    "fill": "#fff",
                },
            )
            number.text = str(finding.number)
    return group


def caption_element(scene: Scene, bounds: Bounds, label_size: float) -> ET.Element:
    """Lines of text under the map: the caption, then each finding with its number."""
    x0, _, x1, y1 = bounds
    group = ET.Element("g", {"id": "caption"})
    y = y1 + MARGIN * max(x1 - x0, 1) + label_size * 1.2
    lines = [(line, "#222") for line in scene.caption]
    lines += [(f"{f.number}. {f.where}: {f.message}", FINDING) for f in scene.findings]
    for text, colour in lines:
        element = ET.SubElement(
            group, "text", {"x": _n(x0), "y": _n(y), "font-size": _n(label_size), "fill": colour}
        )
        element.text = text
        y += label_size * 1.5
    return group


def document(root: ET.Element) -> str:
    """An element tree as an SVG document's text."""
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


def fragment(element: ET.Element) -> str:
    """One element's markup (for the replay page, which inserts it into the picture)."""
    return ET.tostring(element, encoding="unicode")


def _n(value: float) -> str:
    """A number for SVG: at most two decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
