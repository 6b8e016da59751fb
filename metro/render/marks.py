"""The last moves marked on a picture: which drawn map elements they name (svg.py rings them).

A move names an element when one of its action's arguments is one (a route claimed, a square
walked to, a station built on): the same reading as clicking the board (metro/serve/board.py).
Which moves a viewer is shown, and only those it may know, comes from metro/moves.py.
"""

from __future__ import annotations

from metro.render.model import Item
from metro.render.pictures import Pictures
from runtime.machine import Action
from runtime.values import NamedD, OptD


def action_elements(pictures: Pictures, action: Action) -> list[tuple[str, int]]:
    """The map elements among an action's arguments, as (kind, index)."""
    kinds = {ids: kind for kind, ids in pictures.element_ids.items()}
    found = []
    descs = action[3]  # an action is (rank, name, args, descriptors)
    for desc, value in zip(descs, action.args, strict=True):
        if isinstance(desc, OptD):
            desc = desc.inner
        if value is None or not isinstance(desc, NamedD):
            continue
        kind = kinds.get(desc.names)
        if kind is not None:
            found.append((kind, value))
    return found


def marked_items(pictures: Pictures, actions: list[Action]) -> list[Item]:
    """The map's drawings of the elements these actions name, each once, in the map's order."""
    numbered = {
        item.number: item
        for action in actions
        for element in action_elements(pictures, action)
        for item in pictures.layout.of_element.get(element, [])
        if item.shape != "text"
    }
    return [numbered[n] for n in sorted(numbered)]
