"""`metro replay`: one self-contained HTML page that replays a recorded game step by step.

The page holds the map's picture once; for every position and every view it holds only
which drawings of the state to show, as indices into one pool of distinct SVG fragments
and CSS restyles (a drawing that does not change between positions costs one number), the
view's data as changes from the position before, and the moves in words. A view holds only
what its player saw: drawings that read `me` are computed for that player alone, the data
is the player's own view, and another player's secret choice is there as `has chosen (in
secret)` until it is revealed, a private one (among its own hidden things) never beyond its name.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import jinja2

from metro.play.moves import Move, last_moves, replayed
from metro.render.legend import legend_layer
from metro.render.marks import marked_items
from metro.render.model import Layer, union
from metro.render.pictures import MAX_ITEMS, Pictures, state_items
from metro.render.svg import (
    base_css,
    document,
    fragment,
    item_css,
    item_element,
    label_bounds,
    marks_element,
    svg_root,
)
from runtime.display import Line
from runtime.errors import RuleError
from runtime.machine import Game, State
from runtime.values import PLAYER

PUBLIC = "everyone"  # the key of the public view
LAST_MOVES = "last moves"  # the layer, after the drawings of the state, ringing what they named


@dataclass
class ViewTrack:
    """One view through the game: per position its drawings, data changes, and the moves."""

    key: str
    viewer: int | None
    frames: list[list[int]] = field(default_factory=list)  # pool index per drawing of the state
    changes: list[dict[str, str]] = field(default_factory=list)  # view data changed per position
    moves: list[list] = field(default_factory=list)  # [text] or [hidden text, text, shown from]
    last: dict[str, str] = field(default_factory=dict)


class Pool:
    """Distinct texts, each kept once and named by its index."""

    def __init__(self):
        self.texts: list[str] = []
        self.index: dict[str, int] = {}

    def add(self, text: str) -> int:
        """The index of a text, adding it if new."""
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.texts)
            self.texts.append(text)
        return found


def replay_page(
    pictures: Pictures,
    game: Game,
    players: int,
    seed,
    history: list[tuple[int, str]],
    viewers: list[int | None],
) -> str:
    """The HTML page replaying a game from its seed and history, for the views asked for."""
    draws = [d for d in pictures.draws if d.dynamic]
    tracks = [ViewTrack(_key(v), v) for v in viewers]
    pool = Pool()
    boxes = []
    state = game.new_game(players, seed)
    steps = []
    moves = replayed(game, players, seed, history)[1].moves
    for step in range(len(history) + 1):
        shared: dict[str, int] = {}
        for track in tracks:
            frame = []
            layers = list(pictures.layout.map_layers)  # what the marks may ring
            for draw in draws:
                if not draw.per_viewer and draw.name in shared:
                    frame.append(shared[draw.name][0])
                    layers.append(shared[draw.name][1])
                    continue
                text, layer = _drawn(pictures, game, state, draw, track.viewer)
                if layer is not None:
                    boxes += _boxes(layer, pictures.label_size)
                    layers.append(layer)
                index = pool.add(text)
                if not draw.per_viewer:
                    shared[draw.name] = (index, layer)
                frame.append(index)
            frame.append(pool.add(_marks(pictures, layers, moves[:step], track.viewer)))
            track.frames.append(frame)
            data = _view_texts(state, track.viewer)
            track.changes.append({k: v for k, v in data.items() if track.last.get(k) != v})
            track.changes[-1].update({k: "" for k in track.last if k not in data})
            track.last = data
        steps.append(_status(state))
        if step < len(history):
            player, action = history[step]
            state.apply(player, action)
    for track in tracks:
        track.moves = [_move_entry(move, track.viewer) for move in moves]
    return _page(pictures, draws, tracks, pool, steps, boxes)


def _key(viewer: int | None) -> str:
    return PUBLIC if viewer is None else PLAYER.label(viewer)


def _drawn(pictures: Pictures, game: Game, state: State, draw, viewer) -> tuple[str, Layer | None]:
    """A drawing of the state at a position: its SVG fragment and its shapes (or CSS, no shapes)."""
    items = state_items(game, state, draw, viewer)
    if len(items) > MAX_ITEMS:
        raise RuleError(f"drawing '{draw.name}' has more than {MAX_ITEMS:,} shapes")
    layout = pictures.layout
    if draw.shape == "restyle":
        changes = layout.restyles(draw, items)
        return "".join(item_css(layout.item(n), c) for n, c in sorted(changes.items())), None
    layer = layout.layer(draw, items)
    size = pictures.label_size
    return "".join(fragment(item_element(item, size)) for item in layer.items), layer


def _boxes(layer: Layer, size: float) -> list:
    """The boxes a layer's shapes and labels cover."""
    boxes = [item.bounds() for item in layer.items]
    return boxes + [b for b in (label_bounds(item, size) for item in layer.items) if b]


def _marks(pictures: Pictures, layers: list[Layer], moves: list[Move], viewer: int | None) -> str:
    """The rings round the shapes of what the last moves named, as this view may know them (SVG
    markup)."""
    named = pictures.action_names.named([move.action for move in last_moves(moves, viewer)])
    items = marked_items(layers, named)
    return fragment(marks_element(items, pictures.label_size)) if items else ""


def _view_texts(state: State, viewer: int | None) -> dict[str, str]:
    """What a view shows in words, by `section\theading` (section: table, or a player).

    The words are those of `metro play` (`state.display`): the rules' headings and labels,
    bookkeeping fields left out, hidden data as its size.
    """
    screen = state.display(viewer)
    out: dict[str, str] = {}
    for part in screen.table:
        if isinstance(part, Line):
            out[f"table\t{part.heading}"] = part.text
            continue
        for row in part.rows:
            cells = zip(part.columns, row[1:], strict=True)
            out[f"table\t{row[0]}"] = "; ".join(f"{column}: {cell}" for column, cell in cells)
    for row in screen.players.rows:
        for seat, cell in zip(screen.players.columns, row[1:], strict=True):
            out[f"{seat}\t{row[0]}"] = cell
    for line in screen.private:  # the viewer's own secrets in full, not just their size
        out[f"{screen.viewer}\t{line.heading}"] = line.text
    return out


def _status(state: State) -> str:
    """Whose decision a position waits for, or how the game ended."""
    if state.to_move:
        return "to move: " + ", ".join(PLAYER.label(p) for p in state.to_move)
    if not state.is_over:
        return "stopped: nobody can move"
    places = state.ranking()
    scores = state.scores()
    order = sorted(range(state.n), key=lambda p: (places[p], p))
    return "game over: " + ", ".join(f"{places[p]}. {PLAYER.label(p)} ({scores[p]})" for p in order)


def _move_entry(move: Move, viewer: int | None) -> list:
    hidden = move.line(viewer, move.step + 1)
    shown = move.line(viewer, move.revealed)
    return [shown] if hidden == shown else [hidden, shown, move.revealed]


def _page(pictures: Pictures, draws, tracks: list[ViewTrack], pool: Pool, steps, boxes) -> str:
    layout = pictures.layout
    size = pictures.label_size
    items = [item for layer in layout.map_layers for item in layer.items]
    boxes = boxes + [item.bounds() for item in items]
    boxes += [b for b in (label_bounds(item, size) for item in items) if b]
    bounds = union(boxes) or (0.0, 0.0, 100.0, 100.0)
    legend = legend_layer(items, bounds, size)
    if legend is not None:
        bounds = union([bounds, *(item.bounds() for item in legend.items)])
    root = svg_root(pictures.title, bounds, size, 0)
    ET.SubElement(root, "style").text = base_css()
    ET.SubElement(root, "style", {"id": "restyles"})
    by_name = {layer.name: layer for layer in layout.map_layers}
    dynamic = {d.name: i for i, d in enumerate(draws)}
    for draw in pictures.draws:
        group = ET.SubElement(root, "g", {"class": "layer", "data-name": draw.name})
        if draw.name in by_name:
            for item in by_name[draw.name].items:
                group.append(item_element(item, size))
        elif draw.name in dynamic:
            group.set("id", f"layer-{dynamic[draw.name]}")
    ET.SubElement(root, "g", {"class": "layer", "id": f"layer-{len(draws)}"})  # the last moves
    if legend is not None:
        group = ET.SubElement(root, "g", {"class": "layer", "data-name": legend.name})
        group.extend(item_element(item, size) for item in legend.items)
    data = {
        "title": pictures.title,
        "layers": [{"name": d.name, "restyle": d.shape == "restyle"} for d in draws]
        + [{"name": LAST_MOVES, "restyle": False}],
        "pool": pool.texts,
        "steps": steps,
        "views": [
            {"key": t.key, "frames": t.frames, "changes": t.changes, "moves": t.moves}
            for t in tracks
        ],
    }
    template = _environment().get_template("replay.html.jinja")
    return template.render(
        title=pictures.title, svg=document(root).split("\n", 1)[1], data=_script_json(data)
    )


def _script_json(data) -> str:
    """JSON safe inside a <script> element: no `<`, `>` or `&` but as \\u escapes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("metro", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
