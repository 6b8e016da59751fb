"""A player's view as people read it: sections of headed values, every value in words.

The rules say how things read (labels of elements, words of enum values), what each field is
called (`face_up: bag of Card public "Face-up cards"`) and which fields are bookkeeping
(`internal`: in views and saves, never on people's screens). Built from the same state as
`State.view`, with the same visibility: hidden data shows only its size, and another player's
owner-only data only its size. The rules' `display(p)` entries (a floor plan, say) follow each
player's fields; they read public data only, so every viewer sees them alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.values import NOTHING, PLAYER, ListD, MapD, NamedD, OptD, PlayerD, plain_words

LONG = 8  # a list or pile of more things than this, some alike, reads as counts


@dataclass(frozen=True)
class Line:
    """One value: its heading and its text."""

    heading: str
    text: str


@dataclass(frozen=True)
class Grid:
    """Values in rows and columns; each row starts with its own heading."""

    heading: str  # what the first column holds (a kind's name as words, `player`, or a title)
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Screen:
    """What one player may see, for people: the shared table, every player, their own secrets."""

    game: str
    viewer: str | None
    to_move: tuple[str, ...]
    table: tuple[Line | Grid, ...]  # the shared state; tables keyed by one kind side by side
    players: Grid  # a row per player field, a column per player
    private: tuple[Line, ...]  # the viewer's owner-only fields in full


@dataclass(frozen=True)
class _Field:
    name: str
    slot: str
    desc: object
    visibility: str
    per_player: bool
    heading: str
    internal: bool
    key: str | None


def fields_of(module) -> list[_Field]:
    """The module's fields as people's screens show them, in declaration order."""
    return [
        _Field(name, slot, desc, vis, per, heading or _heading(name), internal, key)
        for name, slot, desc, vis, per, heading, internal, key in module.FIELD_DISPLAY
    ]


def _heading(name: str) -> str:
    words = plain_words(name)
    return words[:1].upper() + words[1:]


def screen(state, viewer: int | None) -> Screen:
    """The screen of `viewer` (None: what every player sees)."""
    fields = [f for f in fields_of(state.game.module) if not f.internal]
    table = _table(state, [f for f in fields if not f.per_player])
    players = _players(state, [f for f in fields if f.per_player], viewer)
    private = tuple(
        Line(f.heading, _text(f.desc, getattr(state, f.slot)[viewer]))
        for f in fields
        if f.per_player and f.visibility == "owner" and viewer is not None
    )
    return Screen(
        state.game.name,
        None if viewer is None else PLAYER.label(viewer),
        tuple(PLAYER.label(p) for p in state.to_move),
        table,
        players,
        private,
    )


def _text(desc, value) -> str:
    """A value in words; a long list of things with repeats (a discard pile) as how many of
    each, in their declared order, like a bag: `65 in all: red ×9, black ×8, …`."""
    if not (isinstance(desc, ListD) and isinstance(desc.item, NamedD | PlayerD)):
        return desc.display(value)
    counts: dict[int, int] = {}
    for item in value:
        counts[item] = counts.get(item, 0) + 1
    if len(value) <= LONG or len(counts) == len(value):
        return desc.display(value)
    groups = (
        desc.item.display(item) + (f" ×{count}" if count > 1 else "")
        for item, count in sorted(counts.items())
    )
    return f"{len(value)} in all: " + ", ".join(groups)


def _hidden(desc, value) -> str:
    size = desc.size(value)
    return "hidden" if size is None else f"{size} hidden"


def _table(state, fields: list[_Field]) -> tuple[Line | Grid, ...]:
    out: list[Line | Grid | str] = []  # a str: where the grid of that key kind goes
    groups: dict[str, list[_Field]] = {}
    for f in fields:
        value = getattr(state, f.slot)
        keyed = isinstance(f.desc, MapD) and f.key is not None and isinstance(f.desc.key, NamedD)
        if f.visibility != "public" and not keyed:
            out.append(Line(f.heading, _hidden(f.desc, value)))
        elif f.visibility == "public" and isinstance(f.desc, MapD) and _holds_players(f.desc.value):
            out.append(_by_player(f, value))
        elif keyed:  # a hidden table among them shows the size of each entry
            if f.key not in groups:
                groups[f.key] = []
                out.append(f.key)
            groups[f.key].append(f)
        else:
            out.append(Line(f.heading, _text(f.desc, value)))
    shown: list[Line | Grid] = []
    for item in out:
        shown.extend(_keyed(state, item, groups[item]) if isinstance(item, str) else [item])
    return tuple(shown)


def _holds_players(desc) -> bool:
    return isinstance(desc, PlayerD) or (isinstance(desc, OptD) and isinstance(desc.inner, PlayerD))


def _by_player(f: _Field, value) -> Line | Grid:
    """A table from things to players (who owns what), shown as each player's things."""
    owned: dict[int, list[str]] = {}
    for key, owner in enumerate(value):
        if owner is not None:
            owned.setdefault(owner, []).append(f.desc.key.display(key))
    if not owned:
        return Line(f.heading, NOTHING)
    rows = tuple((PLAYER.label(p), ", ".join(owned[p])) for p in sorted(owned))
    return Grid("player", (f.heading,), rows)


def _keyed(state, kind: str, fields: list[_Field]) -> list[Line | Grid]:
    """Tables keyed by one kind, side by side: a row per key, a column per table (tables with
    nothing in them yet: a line each, `none`)."""
    key = fields[0].desc.key
    values = [getattr(state, f.slot) for f in fields]
    rows = []
    for index in range(len(values[0])):
        cells = tuple(
            _text(f.desc.value, v[index])
            if f.visibility == "public"
            else _hidden(f.desc.value, v[index])
            for f, v in zip(fields, values, strict=True)
        )
        if any(cell != NOTHING for cell in cells):
            rows.append((key.display(index), *cells))
    if not rows:
        return [Line(f.heading, NOTHING) for f in fields]
    return [Grid(plain_words(kind), tuple(f.heading for f in fields), tuple(rows))]


def _players(state, fields: list[_Field], viewer: int | None) -> Grid:
    rows = []
    for f in fields:
        column = getattr(state, f.slot)
        cells = []
        for p in range(state.n):
            value = column[p]
            if f.visibility == "public":
                cells.append(_text(f.desc, value))
            elif f.visibility == "owner" and p == viewer:
                size = f.desc.size(value)
                cells.append(_text(f.desc, value) if size is None else str(size))
            else:
                cells.append(_hidden(f.desc, value))
        rows.append((f.heading, *cells))
    entries = [state.display_entries(p) for p in range(state.n)]
    for index, (heading, _) in enumerate(entries[0] if entries else []):
        rows.append((heading, *(entries[p][index][1] for p in range(state.n))))
    return Grid("", tuple(PLAYER.label(p) for p in range(state.n)), tuple(rows))
