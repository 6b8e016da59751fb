"""JSON Schemas (draft 2020-12) of one compiled game's state JSON and views, from its declarations.

`state.schema.json` describes `set_state`'s document (every declared field, hidden ones
included); `view.schema.json` a player's view, where a hidden field, and an owner-only field of
another player, is `{"hidden": true, "size": n}` (`size` null for a single value).
"""

from __future__ import annotations

from runtime.machine import Game
from runtime.values import (
    BagD,
    BoolD,
    Desc,
    GeoD,
    ListD,
    MapD,
    NamedD,
    OptD,
    PlayerD,
    RangeD,
    SetD,
    StrD,
    TupleD,
)

DRAFT = "https://json-schema.org/draft/2020-12/schema"
PLAYER_PATTERN = "^P[1-9][0-9]*$"
HIDDEN = {
    "type": "object",
    "additionalProperties": False,
    "required": ["hidden", "size"],
    "properties": {"hidden": {"const": True}, "size": {"type": ["integer", "null"], "minimum": 0}},
}


def value_schema(desc: Desc) -> dict:
    """The schema of one value as the state JSON writes it."""
    if isinstance(desc, RangeD):
        return {"type": "integer", "minimum": desc.lo, "maximum": desc.hi}
    if isinstance(desc, BoolD):
        return {"type": "boolean"}
    if isinstance(desc, StrD):
        return {"type": "string"}
    if isinstance(desc, NamedD):
        return {"enum": list(desc.names)}
    if isinstance(desc, PlayerD):
        return {"type": "string", "pattern": PLAYER_PATTERN}
    if isinstance(desc, OptD):
        return {"anyOf": [value_schema(desc.inner), {"type": "null"}]}
    if isinstance(desc, SetD):
        return {"type": "array", "uniqueItems": True, "items": value_schema(desc.item)}
    if isinstance(desc, ListD):
        return {"type": "array", "items": value_schema(desc.item)}
    if isinstance(desc, BagD):
        return _keyed(desc.item, desc.keys, {"type": "integer", "minimum": 1}, required=False)
    if isinstance(desc, MapD):
        if desc.keys is None:
            pair = [value_schema(desc.key), value_schema(desc.value)]
            return {
                "type": "array",
                "items": {"type": "array", "prefixItems": pair, "items": False},
            }
        return _keyed(desc.key, desc.keys, value_schema(desc.value), required=True)
    if isinstance(desc, TupleD):
        items = [value_schema(d) for d in desc.items]
        return {"type": "array", "prefixItems": items, "items": False, "minItems": len(items)}
    if isinstance(desc, GeoD):
        cell = {"type": "array", "items": {"type": "integer"}}
        cells = {"type": "array", "items": cell, "minItems": 1}
        return {"type": "array", "items": cells} if desc.kind == "building" else cells
    return {"type": "integer"}


def _keyed(key: Desc, keys: tuple, value: dict, required: bool) -> dict:
    """An object keyed by a finite type's names (by P1, P2, … for players)."""
    if isinstance(key, PlayerD):
        return {
            "type": "object",
            "additionalProperties": False,
            "patternProperties": {PLAYER_PATTERN: value},
        }
    names = [str(k) for k in keys]
    doc = {
        "type": "object",
        "additionalProperties": False,
        "properties": dict.fromkeys(names, value),
    }
    if required:
        doc["required"] = names
    return doc


def _fields(fields, visibility: dict) -> dict:
    """An object of declared fields; a field that is not public may be shown hidden."""
    properties = {}
    for name, _slot, desc in fields:
        shown = visibility.get(name, "public")
        schema = value_schema(desc)
        if shown == "hidden":
            schema = HIDDEN
        elif shown == "owner":  # the player's own value, or another player's hidden one
            schema = {"anyOf": [schema, HIDDEN]}
        properties[name] = schema
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
    }


def state_schemas(game: Game) -> dict[str, dict]:
    """`state.schema.json` and `view.schema.json` of a compiled game (file name -> schema)."""
    module = game.module
    players = {"type": "integer", "minimum": game.min_players, "maximum": game.max_players}
    state = {
        "$schema": DRAFT,
        "title": f"{game.name}: the state JSON (set_state)",
        "type": "object",
        "additionalProperties": False,
        "required": ["state", "player_state"],
        "properties": {
            "state": _fields(module.SAVE_FIELDS, {}),
            "player_state": {
                "type": "array",
                "minItems": game.min_players,
                "maxItems": game.max_players,
                "items": _fields(module.SAVE_PLAYER_FIELDS, {}),
            },
        },
    }
    view = {
        "$schema": DRAFT,
        "title": f"{game.name}: a player's view",
        "type": "object",
        "additionalProperties": False,
        "required": ["game", "players", "you", "over", "to_move", "state", "player_state"],
        "properties": {
            "game": {"const": game.name},
            "players": players,
            "you": {"type": "string", "pattern": PLAYER_PATTERN},
            "over": {"type": "boolean"},
            "to_move": {"type": "array", "items": {"type": "string", "pattern": PLAYER_PATTERN}},
            "state": _fields(module.SAVE_FIELDS, module.STATE_VISIBILITY),
            "player_state": {
                "type": "array",
                "minItems": game.min_players,
                "maxItems": game.max_players,
                "items": _fields(module.SAVE_PLAYER_FIELDS, module.PLAYER_VISIBILITY),
            },
        },
    }
    return {"state.schema.json": state, "view.schema.json": view}
