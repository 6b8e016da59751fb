"""The state JSON and the views of the protocol (docs/protocol.md), for this engine's positions.

Names are the rule file's declared fields: `deck`, `face_up`, `discard`, `ticket_deck`, `owner`,
`current`, `last_round_from`, `idle_turns`, and per player `hand`, `tickets`, `offered`,
`trains`, `score`, `completed`, `longest`, `bonus`, `ticket_gains`, `ticket_losses`. Players are written P1, P2, ...; a bag of
cards as {card: count} without zero counts; piles bottom first. In a view, what the player may
not see is {"hidden": true, "size": n}.
"""

from __future__ import annotations

from rules import CARDS, GAME_NAME, Position, Refused

PLAYER_FIELDS = (
    "hand",
    "tickets",
    "offered",
    "trains",
    "score",
    "completed",
    "longest",
    "bonus",
    "ticket_gains",
    "ticket_losses",
)
TABLE_FIELDS = (
    "deck",
    "face_up",
    "discard",
    "ticket_deck",
    "owner",
    "current",
    "last_round_from",
    "idle_turns",
)


def _player(p: int | None) -> str | None:
    return None if p is None else f"P{p + 1}"


def _bag(counts: dict[str, int]) -> dict[str, int]:
    return {card: counts[card] for card in CARDS if counts[card]}


def _hidden(size: int) -> dict:
    return {"hidden": True, "size": size}


def fields(pos: Position) -> dict:
    """Every declared field (`set_state`'s document)."""
    return {
        "state": {
            "deck": list(pos.deck),
            "face_up": _bag(pos.face_up),
            "discard": list(pos.discard),
            "ticket_deck": list(pos.ticket_deck),
            "owner": {route: _player(who) for route, who in pos.owner.items()},
            "current": _player(pos.current),
            "last_round_from": _player(pos.last_round_from),
            "idle_turns": pos.idle_turns,
        },
        "player_state": [
            {
                "hand": _bag(pos.hand[p]),
                "tickets": list(pos.tickets[p]),
                "offered": list(pos.offered[p]),
                "trains": pos.trains[p],
                "score": pos.score[p],
                "completed": pos.completed[p],
                "longest": pos.longest[p],
                "bonus": pos.bonus[p],
                "ticket_gains": pos.ticket_gains[p],
                "ticket_losses": pos.ticket_losses[p],
            }
            for p in range(pos.n)
        ],
    }


def view(pos: Position, viewer: int, to_move: list[int]) -> dict:
    """What `viewer` may see."""
    everything = fields(pos)
    table = everything["state"]
    table["deck"] = _hidden(len(pos.deck))
    table["ticket_deck"] = _hidden(len(pos.ticket_deck))
    for p, row in enumerate(everything["player_state"]):
        if p != viewer:
            row["hand"] = _hidden(sum(pos.hand[p].values()))
            row["tickets"] = _hidden(len(pos.tickets[p]))
            row["offered"] = _hidden(len(pos.offered[p]))
    return {
        "game": GAME_NAME,
        "players": pos.n,
        "you": _player(viewer),
        "over": pos.phase == "over",
        "to_move": [_player(p) for p in to_move],
        "state": table,
        "player_state": everything["player_state"],
    }


def set_fields(pos: Position, doc, routes, tickets) -> Position:
    """A copy of `pos` with every field replaced from `doc` (Refused if it does not fit)."""
    if not isinstance(doc, dict) or set(doc) != {"state", "player_state"}:
        raise Refused('the state is {"state": {...}, "player_state": [...]}')
    table, rows = doc["state"], doc["player_state"]
    if not isinstance(table, dict) or set(table) != set(TABLE_FIELDS):
        raise Refused(f"the state's fields are {', '.join(TABLE_FIELDS)}")
    if not isinstance(rows, list) or len(rows) != pos.n:
        raise Refused(f"player_state lists {pos.n} players")
    new = pos.copy()
    new.deck = _cards(table["deck"])
    new.face_up = _counts(table["face_up"])
    new.discard = _cards(table["discard"])
    new.ticket_deck = _names(table["ticket_deck"], tickets)
    if not isinstance(table["owner"], dict) or set(table["owner"]) != set(routes):
        raise Refused("owner names every route")
    new.owner = {route: _seat(table["owner"][route], pos.n, True) for route in routes}
    new.current = _seat(table["current"], pos.n, False)
    new.last_round_from = _seat(table["last_round_from"], pos.n, True)
    new.idle_turns = _int(table["idle_turns"])
    for p, row in enumerate(rows):
        if not isinstance(row, dict) or set(row) != set(PLAYER_FIELDS):
            raise Refused(f"a player's fields are {', '.join(PLAYER_FIELDS)}")
        new.hand[p] = _counts(row["hand"])
        new.tickets[p] = _names(row["tickets"], tickets)
        new.offered[p] = _names(row["offered"], tickets)
        new.trains[p], new.score[p] = _int(row["trains"]), _int(row["score"])
        new.completed[p], new.longest[p] = _int(row["completed"]), _int(row["longest"])
        if not isinstance(row["bonus"], bool):
            raise Refused("bonus is true or false")
        new.bonus[p] = row["bonus"]
        new.ticket_gains[p] = _int(row["ticket_gains"])
        new.ticket_losses[p] = _int(row["ticket_losses"])
    return new


def _int(value) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise Refused(f"expected an integer, not {value!r}")
    return value


def _cards(items) -> list[str]:
    if not isinstance(items, list) or any(item not in CARDS for item in items):
        raise Refused("a pile lists train cards")
    return list(items)


def _counts(bag) -> dict[str, int]:
    if not isinstance(bag, dict) or any(card not in CARDS for card in bag):
        raise Refused("a bag is {card: count}")
    counts = dict.fromkeys(CARDS, 0)
    for card, count in bag.items():
        counts[card] = _int(count)
    return counts


def _names(items, known) -> list[str]:
    if not isinstance(items, list) or any(item not in known for item in items):
        raise Refused("a pile lists tickets")
    return list(items)


def _seat(value, n: int, optional: bool) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, str) and value in {f"P{p + 1}" for p in range(n)}:
        return int(value[1:]) - 1
    raise Refused(f"expected a player P1..P{n}, not {value!r}")
