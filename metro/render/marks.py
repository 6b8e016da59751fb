"""What an action names, and the last moves marked on a picture (svg.py rings them).

An action names the things among its arguments: map elements, enum values and players, as the
keys shapes stand for (`Item.stands_for`, from `Names.keys`). Clicking the board offers the
choices naming what a shape stands for (metro/serve/board.py); the last moves ring every shape,
of the map or of the state, standing for something they named. Which moves a viewer is shown,
and only those it may know, comes from metro/play/moves.py.
"""

from __future__ import annotations

from metro.render.model import Item, Layer
from metro.render.texts import Names
from runtime.machine import Action
from runtime.values import NamedD, OptD, PlayerD


class ActionNames:
    """Which things an action names (map elements, enum values, players), as keys."""

    def __init__(self, names: Names):
        # A descriptor lists its kind's ids (or its enum's names) in order: that tells the kind
        # (a map kind wins over an enum with the same names, as the checker keeps them apart).
        self.tags = {tuple(ids): enum for enum, ids in names.enum_ids.items()}
        self.tags |= {ids: kind for kind, ids in names.element_ids.items()}

    def keys(self, action: Action) -> list[str]:
        """The things among the action's arguments (not numbers, texts or collections)."""
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

    def named(self, actions: list[Action]) -> frozenset[str]:
        """Everything these actions name."""
        return frozenset(key for action in actions for key in self.keys(action))


def marked_items(layers: list[Layer], named: frozenset[str]) -> list[Item]:
    """The shapes standing for something named, each place ringed once, in painting order.

    A text is ringed only for a thing no other shape stands for: a map element's name beside
    its shape would be a second ring round the same thing.
    """
    if not named:
        return []
    items = [item for layer in layers for item in layer.items if named & set(item.stands_for)]
    shown = {key for item in items if item.shape != "text" for key in item.stands_for}
    marked: dict[tuple, Item] = {}
    for item in items:
        if item.shape == "text" and named & set(item.stands_for) <= shown:
            continue
        # a piece drawn over a map shape (trains on a claimed route) would ring it twice
        marked.setdefault((item.shape, item.places), item)
    return list(marked.values())
