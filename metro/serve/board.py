"""The board as a viewer sees it: the picture `metro render` draws of the position, as SVG."""

from __future__ import annotations

from metro.render.pictures import Pictures, position_scene
from metro.render.svg import scene_bounds, to_svg
from runtime.machine import State


def board_svg(pictures: Pictures, state: State, viewer: int | None) -> str:
    """The position as `viewer` (None: a spectator) sees it, an SVG document (text escaped)."""
    scene = position_scene(pictures, state.game, state, viewer)
    return to_svg(scene, scene_bounds(scene, pictures.label_size), pictures.label_size)
