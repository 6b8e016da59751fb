"""The board as a viewer sees it (the picture `metro render` draws of the position, as SVG), and
which of its shapes stand for which map elements, so a choice naming an element is clicked there.

An element is named `kind:id` (`route:R012`). A map drawing declares the element each of its
shapes draws; a choice names an element when one of its arguments is one (no per-game code).
"""

from __future__ import annotations

from metro.moves import MoveLog, last_moves
from metro.render.marks import action_elements, marked_items
from metro.render.pictures import Pictures, position_scene
from metro.render.svg import scene_bounds, to_svg
from runtime.machine import Action, State


def board_svg(pictures: Pictures, state: State, viewer: int | None, log: MoveLog) -> str:
    """The position as `viewer` (None: a spectator) sees it, an SVG document (text escaped),
    with what the last moves it may know named ringed."""
    actions = [move.action for move in last_moves(log.moves, viewer)]
    marked = marked_items(pictures, actions)
    scene = position_scene(pictures, state.game, state, viewer, marked=marked)
    return to_svg(scene, scene_bounds(scene, pictures.label_size), pictures.label_size)


def shape_elements(pictures: Pictures) -> dict[str, str]:
    """The map's shapes that draw an element: SVG id -> the element's `kind:id`."""
    found = {}
    for layer in pictures.layout.map_layers:
        for item in layer.items:
            if item.element is not None and item.number >= 0:
                kind, index = item.element
                found[f"i{item.number}"] = f"{kind}:{pictures.element_ids[kind][index]}"
    return found


class ElementNamer:
    """Which map elements an action names, as `kind:id` keys."""

    def __init__(self, pictures: Pictures):
        self.pictures = pictures

    def elements(self, action: Action) -> list[str]:
        """The elements among the action's arguments."""
        ids = self.pictures.element_ids
        return [f"{kind}:{ids[kind][i]}" for kind, i in action_elements(self.pictures, action)]
