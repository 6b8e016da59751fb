"""A game-agnostic encoding of what one player sees, and of actions, for learning agents.

Observation: a flat vector of floats laid out once per game and player count from the
compiled state's fields (`SAVE_FIELDS`, `SAVE_PLAYER_FIELDS`) and their descriptors:

* who is to move (one slot per seat), whether the game is over;
* every state field, then every per-player field once per seat; seats are rotated so the
  observer is always first;
* a number or truth value: one slot (its value); an enum value or map element: one-hot over
  its names; a player: one-hot over the rotated seats; an optional value: one slot "is none"
  then its value's slots; a bag, or a list or set of enum values, elements or players: one
  count per possible item (a list's order is not kept); a table with a fixed set of keys: its
  values' slots key after key; a tuple: its items' slots; anything else (numbers in a list,
  nested lists, texts, geometry, tables keyed by numbers): one slot, its size.
* a field the observer may not see (`hidden`, another player's `owner` field) fills its slots
  with zeros except the first, its size, exactly what `State.view` shows of it; others'
  pending secret choices live in the decision's frame, never in fields, so they never show.

Actions: index k stands for the k-th of the decider's legal actions, which the runtime lists
sorted; the action mask marks the first len(legal) indices. An index means a different action
in different positions, but the same position always lists the same actions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from runtime.machine import Game, State
from runtime.values import (
    BagD,
    BoolD,
    Desc,
    IntD,
    ListD,
    MapD,
    NamedD,
    OptD,
    PlayerD,
    SetD,
    TupleD,
)

MAX_ACTIONS = 4096  # default size of the action space: legal actions of one decision at most


class TooManyActions(ValueError):
    """A position has more legal actions than the action space holds."""


@dataclass(frozen=True)
class Slot:
    """One field's place in the vector: where it starts, how wide it is, and how to fill it."""

    name: str
    start: int
    width: int
    fill: Callable[[list, int, object, int, int], None]  # (vector, start, value, observer, n)
    visibility: str
    per_player: bool
    attr: str


class Encoder:
    """Observations of one game at one player count (see the module's documentation)."""

    def __init__(self, game: Game, players: int):
        self.players = players
        module = game.module
        self.slots: list[Slot] = []
        start = players + 1  # to move (rotated), over
        for name, attr, desc in module.SAVE_FIELDS:
            width, fill = _layout(desc, players)
            visibility = module.STATE_VISIBILITY.get(name, "public")
            self.slots.append(Slot(name, start, width, fill, visibility, False, attr))
            start += width
        for name, attr, desc in module.SAVE_PLAYER_FIELDS:
            width, fill = _layout(desc, players)
            visibility = module.PLAYER_VISIBILITY.get(name, "public")
            self.slots.append(Slot(name, start, width, fill, visibility, True, attr))
            start += width * players
        self.size = start

    def observe(self, state: State, observer: int) -> list[float]:
        """The vector `observer` sees of `state`."""
        n = self.players
        vector = [0.0] * self.size
        for p in state.to_move:
            if p >= 0:  # not the chance "player" of explicit chance
                vector[(p - observer) % n] = 1.0
        vector[n] = float(state.over)
        for slot in self.slots:
            value = getattr(state, slot.attr)
            if not slot.per_player:
                _put(vector, slot, slot.start, value, observer, n, slot.visibility == "public")
                continue
            for p in range(n):
                start = slot.start + ((p - observer) % n) * slot.width
                seen = slot.visibility == "public" or (slot.visibility == "owner" and p == observer)
                _put(vector, slot, start, value[p], observer, n, seen)
        return vector


def _put(vector: list, slot: Slot, start: int, value, observer: int, n: int, seen: bool) -> None:
    if seen:
        slot.fill(vector, start, value, observer, n)
    else:  # only its size, as State.view shows it
        vector[start] = float(_size(value))


def _size(value) -> int:
    if isinstance(value, list | set | dict | tuple):
        return len(value)
    return 0


def _layout(desc: Desc, n: int) -> tuple[int, Callable]:
    """The width of a value of `desc` and the function writing it into the vector."""
    if isinstance(desc, BoolD | IntD):
        return 1, _number
    if isinstance(desc, NamedD):
        return len(desc.names), _one_hot
    if isinstance(desc, PlayerD):
        return n, _seat
    if isinstance(desc, OptD):
        width, fill = _layout(desc.inner, n)
        return 1 + width, _optional(fill)
    if isinstance(desc, BagD):
        width = n if isinstance(desc.item, PlayerD) else desc.n
        return max(1, width), _bag(isinstance(desc.item, PlayerD))
    if isinstance(desc, ListD | SetD) and isinstance(desc.item, NamedD):
        return max(1, len(desc.item.names)), _counts(False)
    if isinstance(desc, ListD | SetD) and isinstance(desc.item, PlayerD):
        return n, _counts(True)
    if isinstance(desc, MapD) and (desc.n is not None or isinstance(desc.key, PlayerD)):
        keys = n if isinstance(desc.key, PlayerD) else desc.n
        width, fill = _layout(desc.value, n)
        return max(1, keys * width), _table(keys, width, fill, isinstance(desc.key, PlayerD))
    if isinstance(desc, TupleD):
        parts = [_layout(item, n) for item in desc.items]
        return max(1, sum(w for w, _ in parts)), _tuple(parts)
    return 1, _sized


def _number(vector, start, value, observer, n) -> None:
    vector[start] = float(value)


def _one_hot(vector, start, value, observer, n) -> None:
    vector[start + value] = 1.0


def _seat(vector, start, value, observer, n) -> None:
    vector[start + (value - observer) % n] = 1.0


def _sized(vector, start, value, observer, n) -> None:
    vector[start] = float(_size(value))


def _optional(fill: Callable) -> Callable:
    def put(vector, start, value, observer, n) -> None:
        if value is None:
            vector[start] = 1.0
        else:
            fill(vector, start + 1, value, observer, n)

    return put


def _bag(players: bool) -> Callable:
    def put(vector, start, value, observer, n) -> None:
        for item, count in enumerate(value):
            vector[start + ((item - observer) % n if players else item)] = float(count)

    return put


def _counts(players: bool) -> Callable:
    def put(vector, start, value, observer, n) -> None:
        for item in value:
            vector[start + ((item - observer) % n if players else item)] += 1.0

    return put


def _table(keys: int, width: int, fill: Callable, players: bool) -> Callable:
    def put(vector, start, value, observer, n) -> None:
        for key, entry in enumerate(value[:keys]):
            place = (key - observer) % n if players else key
            fill(vector, start + place * width, entry, observer, n)

    return put


def _tuple(parts: list[tuple[int, Callable]]) -> Callable:
    def put(vector, start, value, observer, n) -> None:
        for (width, fill), item in zip(parts, value, strict=True):
            fill(vector, start, item, observer, n)
            start += width

    return put


def action_mask(state: State, player: int, size: int) -> list[int]:
    """1 for the indices of `player`'s legal actions (the first len(legal)), else 0."""
    count = len(state.legal_actions(player))
    if count > size:
        raise TooManyActions(
            f"{count} legal actions here, more than the action space's {size}: "
            "ask for a larger max_actions"
        )
    return [1] * count + [0] * (size - count)
