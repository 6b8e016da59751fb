"""The board as a viewer sees it (the picture `metro render` draws of the position, as SVG), and
which things on it a choice names, so a choice is made by clicking what it names.

A thing is named by a key: `kind:id` for a map element (`route:R012`), `enum:name` for an enum
value (`Card:red`), `player:seat` for a player. Every shape of the picture carries the keys of
what it stands for (`data-names`, from the drawings' declarations); a choice names the things
among its arguments (no per-game code).
"""

from __future__ import annotations

from metro.moves import MoveLog, last_moves
from metro.render.marks import marked_items
from metro.render.pictures import Pictures, position_scene
from metro.render.svg import scene_bounds, to_svg
from runtime.machine import Action, State
from runtime.values import NamedD, OptD, PlayerD


def board_svg(pictures: Pictures, state: State, viewer: int | None, log: MoveLog) -> str:
    """The position as `viewer` (None: a spectator) sees it, an SVG document (text escaped),
    with what the last moves it may know named ringed."""
    actions = [move.action for move in last_moves(log.moves, viewer)]
    marked = marked_items(pictures, actions)
    scene = position_scene(pictures, state.game, state, viewer, marked=marked)
    return to_svg(scene, scene_bounds(scene, pictures.label_size), pictures.label_size)


class ChoiceNamer:
    """Which things an action names (map elements, enum values, players), as keys."""

    def __init__(self, pictures: Pictures):
        # A descriptor lists its kind's ids (or its enum's names) in order: that tells the kind.
        self.tags = {tuple(names): enum for enum, names in pictures.names.enum_ids.items()}
        self.tags |= {ids: kind for kind, ids in pictures.element_ids.items()}

    def keys(self, action: Action) -> list[str]:
        """The things among the action's arguments."""
        keys = []
        descs = action[3]  # an action is (rank, name, args, descriptors)
        for desc, value in zip(descs, action.args, strict=True):
            if isinstance(desc, OptD):
                desc = desc.inner
            if value is None:
                continue
            if isinstance(desc, PlayerD):
                keys.append(f"player:{value}")
            elif isinstance(desc, NamedD) and desc.names in self.tags:
                keys.append(f"{self.tags[desc.names]}:{desc.names[value]}")
        return keys
