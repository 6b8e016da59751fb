"""Reading a save back: every part is checked against the compiled game, since saves are untrusted.

A save that does not fit raises `InvalidSave` (a `ValueError`) whose `path` names the bad part;
a save that is accepted is a position the rules can go on from (see `check_sound`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from runtime.errors import InvalidSave, MetroRuntimeError
from runtime.values import (
    check_int,
    check_list,
    check_object,
    check_text,
    decode_any,
    encode_any,
    show,
)

# The longest save text read (its JSON is parsed only below this size).
MAX_SAVE_CHARS = 64 * 2**20
# SplitMix64 keeps its whole state in 64 bits (runtime/rng.py).
RNG_STATES = 2**64
TOP_KEYS = (
    "game",
    "players",
    "seed",
    "rng",
    "over",
    "site",
    "state",
    "player_state",
    "stack",
    "history",
)
FRAME_KEYS = ("proc", "pc", "locals", "ret")


@contextmanager
def at(*parts: str | int) -> Iterator[None]:
    """Errors raised inside are about the value under these keys/indices of the current one."""
    try:
        yield
    except InvalidSave as error:
        for part in reversed(parts):
            error.within(part)
        raise


def load(doc, game) -> dict:
    """The parsed save with exactly the top-level keys, of this game; InvalidSave otherwise."""
    if isinstance(doc, str):
        if len(doc) > MAX_SAVE_CHARS:
            raise InvalidSave(f"a save is at most {MAX_SAVE_CHARS} characters, this one {len(doc)}")
        try:
            doc = json.loads(doc)
        except RecursionError:
            raise InvalidSave("the JSON is nested too deeply to read") from None
        except ValueError as error:  # bad JSON, or a number longer than Python reads
            raise InvalidSave(f"not readable JSON: {error}") from None
    elif not isinstance(doc, dict):
        raise InvalidSave(f"expected JSON text or an object, found {show(doc)}")
    # A state in recorded or explicit chance mode also has "chance" (runtime/chance.py).
    doc = exact_keys(doc, TOP_KEYS + ("chance",) if "chance" in check_object(doc) else TOP_KEYS)
    if doc["game"] != game.name:
        raise InvalidSave(f"this state is of {show(doc['game'])}, not '{game.name}'", ("game",))
    players = doc["players"]
    if type(players) is not int or not game.min_players <= players <= game.max_players:
        raise InvalidSave(
            f"{game.name} takes {game.min_players}-{game.max_players} players, not {show(players)}",
            ("players",),
        )
    seed = doc["seed"]
    if type(seed) is not int and type(seed) is not str:
        raise InvalidSave(f"a seed is an integer or text, found {show(seed)}", ("seed",))
    if type(seed) is str:
        with at("seed"):
            check_text(seed)
    with at("over"):
        if type(doc["over"]) is not bool:
            raise InvalidSave(f"expected true or false, found {show(doc['over'])}")
    return doc


def exact_keys(doc, keys: tuple[str, ...]) -> dict:
    """`doc` if it is an object with exactly these keys."""
    check_object(doc)
    for key in keys:
        if key not in doc:
            raise InvalidSave(f"the key {key!r} is missing")
    if len(doc) != len(keys):
        extra = sorted(str(k) for k in doc if k not in keys)[0]
        raise InvalidSave("unknown key", (extra,))
    return doc


def rng_state(doc) -> int:
    """The generator state from its canonical decimal text."""
    if not (type(doc) is str and 0 < len(doc) <= 20 and doc.isascii() and doc.isdigit()):
        raise InvalidSave(f"the generator state is decimal text, found {show(doc)}", ("rng",))
    value = int(doc)
    if value >= RNG_STATES or doc != str(value):
        raise InvalidSave(f"the generator state is 0..2**64-1 written plainly, not {doc}", ("rng",))
    return value


def frame_parts(doc, pcs: dict[str, int]) -> tuple[str, int, dict, object]:
    """(procedure, pc, locals, result) of a saved frame; `pcs` maps each procedure to its pc count."""
    doc = exact_keys(doc, FRAME_KEYS)
    proc, pc = doc["proc"], doc["pc"]
    if type(proc) is not str or proc not in pcs:
        raise InvalidSave(f"this game has no waiting procedure {show(proc)}", ("proc",))
    with at("pc"):
        check_int(pc)
        if not 0 <= pc < pcs[proc]:
            raise InvalidSave(f"the program counter of {proc} is 0..{pcs[proc] - 1}, not {pc}")
    with at("locals"):
        local_vars = decode_any(doc["locals"])
        if type(local_vars) is not dict or not all(type(k) is str for k in local_vars):
            raise InvalidSave('locals are a table of named values, {"d": [[name, value], …]}')
    with at("ret"):
        ret = decode_any(doc["ret"])
    return proc, pc, local_vars, ret


def check_pending(game, over: bool, site, stack: list) -> int:
    """The decision a save waits at: a running game waits at its top frame; a finished one at none.

    The site is the one where the top frame waits. Sites are numbered across the module, so a
    compile of the rules with other procedures added or taken away may number the same site
    otherwise: the number saved is read but the frame says which site it is (a save stays
    loadable after edits to rules it is not waiting in). A finished game keeps its number.
    """
    with at("site"):
        check_int(site)
        if site < -1 or (over and site >= len(game.sites)):
            raise InvalidSave(f"the decision site is -1..{len(game.sites) - 1}, not {site}")
    if over and stack:
        raise InvalidSave("a finished game has no running procedure", ("stack",))
    if not over and not stack:
        raise InvalidSave("a game with no running procedure is over", ("over",))
    if over:
        return site
    top = stack[-1]
    frames = game.module.SITE_FRAMES
    if 0 <= site < len(frames) and frames[site] == (top.proc, top.pc):
        return site
    if (top.proc, top.pc) not in frames:
        raise InvalidSave(
            f"no decision waits where the top frame ({top.proc} at {top.pc}) is", ("site",)
        )
    return frames.index((top.proc, top.pc))


def decode_fields(module, state, doc: dict) -> None:
    """Set the state's global and per-player fields from the save (each checked by its descriptor)."""
    n = state.n
    with at("state"):
        fields = exact_keys(doc["state"], tuple(f[0] for f in module.SAVE_FIELDS))
        for name, slot, desc in module.SAVE_FIELDS:
            with at(name):
                setattr(state, slot, desc.decode(fields[name], n))
    with at("player_state"):
        rows = check_list(doc["player_state"])
        if len(rows) != n:
            raise InvalidSave(f"expected one entry per player ({n}), found {len(rows)}")
        names = tuple(f[0] for f in module.SAVE_PLAYER_FIELDS)
        for p, row in enumerate(rows):
            with at(p):
                exact_keys(row, names)
        for name, slot, desc in module.SAVE_PLAYER_FIELDS:
            values = []
            for p, row in enumerate(rows):
                with at(p, name):
                    values.append(desc.decode(row[name], n))
            setattr(state, slot, values)


def set_fields(state, doc) -> None:
    """Replace a game's declared fields from the state JSON (`{"state": …, "player_state": […]}`).

    The pending decision and the procedures' locals stay as they are: this is how a test
    arranges a position (conformance vectors' `set_state`). InvalidSave, with the state
    unchanged, if the fields do not fit the game.
    """
    doc = exact_keys(doc, ("state", "player_state"))
    scratch = state.clone()
    decode_fields(state.game.module, scratch, doc)
    state.game.module.copy_fields(scratch, state)
    state.game.module.refresh_indexes(state)  # the clone's indexes were of the old tables
    state.forget_legal()


def decode_history(game, doc, n: int) -> list:
    """The (player, action) pairs of the save's history; each id must be an action's exact id."""
    entries = check_list(doc)
    if len(entries) > game.max_decisions:
        raise InvalidSave(
            f"the game allows {game.max_decisions} decisions, the history has {len(entries)}"
        )
    out = []
    for i, entry in enumerate(entries):
        with at(i):
            if type(entry) is not list or len(entry) != 2:
                raise InvalidSave(f"expected [player, action id], found {show(entry)}")
            player, text = entry
            if type(player) is not int or not 0 <= player < n:
                raise InvalidSave(f"a player is 0..{n - 1} here, found {show(player)}", (0,))
            with at(1):
                out.append((player, _action(game, check_text(text))))
    return out


def _action(game, text: str):
    try:
        action = game.parse_action(text)
        same = action.id == text
    except InvalidSave:
        raise
    except Exception as error:  # noqa: BLE001 - whatever the id parser refuses, however it refuses it
        raise InvalidSave(f"{show(text)} is not an action of this game ({_why(error)})") from None
    if not same:
        raise InvalidSave(f"{show(text)} is not written as the action's id {show(action.id)}")
    return action


def check_sound(state) -> None:
    """InvalidSave unless the position is one the rules go on from.

    Every invariant holds, everyone to move is a player of this game and has a legal action,
    secret choices already made were legal, and the position saves again. Rule code runs
    here, so any failure of it is caught.
    """
    game = state.game
    for name, check, file, line in game.invariants:
        try:
            holds = check(state)
        except Exception as error:  # noqa: BLE001 - a corrupt save may make generated code fail anywhere
            raise InvalidSave(
                f"the invariant '{name}' ({file}:{line}) fails: {_why(error, game)}"
            ) from None
        if not holds:
            raise InvalidSave(f"the invariant '{name}' ({file}:{line}) does not hold")
    try:
        to_move = state.to_move
    except Exception as error:  # noqa: BLE001 - a corrupt save may make generated code fail anywhere
        raise InvalidSave(
            f"who is to move cannot be found: {_why(error, game)}", ("stack",)
        ) from None
    if type(to_move) is not list or not all(type(p) is int and 0 <= p < state.n for p in to_move):
        raise InvalidSave(
            f"those to move are not players of this game: {show(to_move)}", ("stack",)
        )
    if len(set(to_move)) != len(to_move) or (not state.over and not to_move):
        raise InvalidSave(
            "the pending decision has no one, or someone twice, to decide", ("stack",)
        )
    for p in to_move:
        try:
            legal = state.legal_actions(p)
        except Exception as error:  # noqa: BLE001 - a corrupt save may make generated code fail anywhere
            raise InvalidSave(
                f"P{p + 1}'s legal actions cannot be listed: {_why(error, game)}"
            ) from None
        if not legal:
            raise InvalidSave(f"P{p + 1} is to move but has no legal action")
    secret = None if state.over else game.module.SITE_SECRETS.get(state.site)
    if secret is not None:
        with at("stack", len(state.stack) - 1, "locals"):
            _check_secret_choices(state, *secret)
    try:
        state.to_json()
    except Exception as error:  # noqa: BLE001 - a corrupt save may make generated code fail anywhere
        raise InvalidSave(f"the position cannot be saved again: {_why(error, game)}") from None


def _check_secret_choices(state, who_key: str, sub_key: str) -> None:
    # A simultaneous choice changes nothing until everyone has chosen, so each choice already
    # made must be one of that player's legal actions now (none if they had no option).
    frame, game = state.stack[-1], state.game
    who, submitted = frame.L.get(who_key), frame.L.get(sub_key)
    if type(who) is not list or not all(type(p) is int and 0 <= p < state.n for p in who):
        raise InvalidSave(f"those choosing are players of this game, not {show(who)}", (who_key,))
    if len(set(who)) != len(who):
        raise InvalidSave("a player is listed twice among those choosing", (who_key,))
    if type(submitted) is not dict or not all(type(p) is int and p in who for p in submitted):
        raise InvalidSave("the choices made are keyed by players who are choosing", (sub_key,))
    site = game.sites[state.site]
    for player in sorted(submitted):
        choice = encode_any(submitted[player])
        try:
            legal = site.legal(state, frame, player)
        except Exception as error:  # noqa: BLE001 - a corrupt save may make generated code fail anywhere
            raise InvalidSave(
                f"P{player + 1}'s options cannot be listed: {_why(error, game)}"
            ) from None
        if site.kind == "each":
            options = [encode_any(a.args[0]) for a in legal]
        else:
            options = [encode_any([a.name, list(a.args)]) for a in legal]
        if (choice is None and legal) or (choice is not None and choice not in options):
            raise InvalidSave(
                f"P{player + 1}'s secret choice is not one of their options", (sub_key,)
            )


def _why(error: Exception, game=None) -> str:
    if isinstance(error, MetroRuntimeError) or game is None:
        return str(error) or type(error).__name__
    return str(game.rule_error(error))
