"""The board as a viewer sees it (the picture `metro render` draws of the position, as SVG), and
which things on it a choice names, so a choice is made by clicking what it names.

A thing is named by a key: `kind:id` for a map element (`route:R012`), `enum:name` for an enum
value (`Card:red`), `player:seat` for a player. Every shape of the picture carries the keys of
what it stands for (`data-names`, from the drawings' declarations); a choice names the things
among its arguments (`ActionNames`, metro/render/marks.py, which the marks of the last moves
use too; no per-game code). A shape standing for a choice (`chooses`, such as a piece at one
placement) carries every argument of it (`data-chooses`), and is drawn only on the board of
the seat whose choice it is.
"""

from __future__ import annotations

from metro.play.moves import MoveLog, last_moves
from metro.render.pictures import Pictures, position_scene
from metro.render.svg import scene_bounds, to_svg
from runtime.machine import State


def board_svg(pictures: Pictures, state: State, viewer: int | None, log: MoveLog) -> str:
    """The position as `viewer` (None: a spectator) sees it, an SVG document (text escaped),
    with what the last moves it may know named ringed."""
    actions = [move.action for move in last_moves(log.moves, viewer)]
    namer = pictures.action_names
    named = namer.named(actions)
    # the viewer's own choices (never another seat's): the shapes standing for one (`chooses`)
    legal = state.legal_actions(viewer) if viewer is not None and viewer in state.to_move else []
    choices = [frozenset(namer.choice_keys(action)) for action in legal]
    scene = position_scene(pictures, state.game, state, viewer, named=named, choices=choices)
    return to_svg(scene, scene_bounds(scene, pictures.label_size), pictures.label_size)
