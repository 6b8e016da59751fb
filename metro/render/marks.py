"""What an action names, and the last moves marked on a picture (svg.py rings them).

An action names the things among its arguments: map elements, enum values and players, as the
keys shapes stand for (`Item.stands_for`, from `Names.keys`). Clicking the board offers the
choices naming what a shape stands for (metro/serve/board.py); the last moves ring every shape,
of the map or of the state, standing for something they named. Which moves a viewer is shown,
and only those it may know, comes from metro/play/moves.py.
"""

from __future__ import annotations

from metro.render.model import Item, Layer
from metro.render.texts import Names, number_key
from runtime.machine import Action
from runtime.values import PLAYER, IntD, ListD, NamedD, OptD, PlayerD, SetD, TupleD


class ActionNames:
    """Which things an action names (map elements, enum values, players), as keys."""

    def __init__(self, names: Names):
        self.names = names
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
            keys += self.keys_of(desc, value)
        return keys

    def choice_keys(self, action: Action) -> list[str]:
        """Every argument of the action as a key: the things `keys` gives, and numbers and
        tuples of numbers (a placement) as `n:3`, `n:7,2,0,1` (what a `chooses` shape matches)."""
        keys = []
        descs = action[3]
        for desc, value in zip(descs, action.args, strict=True):
            if isinstance(desc, OptD):
                desc = desc.inner
            if value is None:
                continue
            if isinstance(desc, IntD) or (
                isinstance(desc, TupleD) and all(isinstance(d, IntD) for d in desc.items)
            ):
                keys.append(number_key(value))
            else:
                keys += self.keys_of(desc, value)
        return keys

    def keys_of(self, desc, value) -> list[str]:
        """The key of one argument that is a thing (a map element, enum value or player)."""
        if isinstance(desc, PlayerD):
            return [f"player:{value}"]
        if isinstance(desc, NamedD) and desc.names in self.tags:
            return [f"{self.tags[desc.names]}:{desc.names[value]}"]
        return []

    def items(self, action: Action) -> list[dict] | None:
        """The things of a choice that is one collection of things (a subset of the cards
        offered, say), each as {"key", "label"}, in order; None for any other choice."""
        descs = action[3]
        if len(descs) != 1:
            return None
        desc, value = descs[0], action.args[0]
        if isinstance(desc, OptD):
            desc = desc.inner
        if not isinstance(desc, ListD | SetD) or value is None:
            return None
        values = sorted(value) if isinstance(value, set | frozenset) else list(value)
        out = []
        for item in values:
            keys = self.keys_of(desc.item, item)
            if not keys:
                return None
            out.append({"key": keys[0], "label": self._label(keys[0], desc.item, item)})
        return out

    def _label(self, key: str, desc, value) -> str:
        if isinstance(desc, PlayerD):
            return PLAYER.label(value)
        tag = key.split(":", 1)[0]
        if tag in self.names.elements:
            return self.names.element(tag, value)
        return self.names.enums[tag][value]

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
