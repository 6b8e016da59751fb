"""What clients send, read and checked: a new match, an action. Anything else is a `BadRequest`."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass

from metro.serve.limits import (
    BOT_BUDGETS,
    MAX_BODY_BYTES,
    MAX_MESSAGE_CHARS,
    MAX_PATCHES,
    MAX_SEED,
    MAX_SEED_CHARS,
)

TEXT_LIMIT = 1000  # characters of a name, a bot spec, an action id or a token


class BadRequest(Exception):
    """A request the server refuses: its HTTP status and why, in words."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class MatchRequest:
    """A new match: the game, its setup, and per seat a bot's spec or None for a person."""

    game: str
    players: int
    seed: int | str | None
    variants: tuple[str, ...]
    expansions: tuple[str, ...]
    seats: tuple[str | None, ...]
    invited: tuple[int, ...] = ()  # people's seats left to whoever has the match's invitation


@dataclass(frozen=True)
class ActionRequest:
    """A seat's decision, taken at the position after `decisions` decisions (at `version`)."""

    token: str
    action: str
    decisions: int
    version: int | None  # the match's version the client saw (None: not stated)


@dataclass(frozen=True)
class UndoRequest:
    """A seat's request to take back its last decision, the match after `decisions` decisions."""

    token: str
    decisions: int
    version: int | None


@dataclass(frozen=True)
class MessageRequest:
    """A seat's message to the match's chat."""

    token: str
    text: str


def json_body(body: bytes) -> dict:
    """A request body as a JSON object (413 when too large, 400 when not one)."""
    if len(body) > MAX_BODY_BYTES:
        raise BadRequest(413, f"a request body holds at most {MAX_BODY_BYTES} bytes")
    try:
        doc = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest(400, "the body is not JSON") from None
    if not isinstance(doc, dict):
        raise BadRequest(400, "the body is a JSON object")
    return doc


def _text(doc: dict, key: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str) or not 0 < len(value) <= TEXT_LIMIT:
        raise BadRequest(400, f"'{key}' is a text of 1 to {TEXT_LIMIT} characters")
    return value


def _count(doc: dict, key: str) -> int:
    value = doc.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadRequest(400, f"'{key}' is a whole number")
    return value


def _names(doc: dict, key: str) -> tuple[str, ...]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(
        isinstance(v, str) and 0 < len(v) <= TEXT_LIMIT for v in value
    ):
        raise BadRequest(400, f"'{key}' is a list of names")
    return tuple(value)


def _seed(doc: dict) -> int | str | None:
    seed = doc.get("seed")
    if seed is None:
        return None
    if isinstance(seed, int) and not isinstance(seed, bool) and abs(seed) <= MAX_SEED:
        return seed
    if isinstance(seed, str) and 0 < len(seed) <= MAX_SEED_CHARS:
        return seed
    raise BadRequest(
        400,
        f"'seed' is a whole number up to {MAX_SEED} or a text of 1 to {MAX_SEED_CHARS} characters",
    )


def _seat(seat) -> str | None:
    if seat in ({"human": True}, {"invited": True}):
        return None
    if isinstance(seat, dict) and set(seat) == {"bot"} and isinstance(seat["bot"], str):
        spec = seat["bot"]
        if 0 < len(spec) <= TEXT_LIMIT:
            check_bot_budget(spec)
            return spec
    raise BadRequest(
        400, 'a seat is {"human": true}, {"invited": true} or {"bot": "name[:budget]"}'
    )


def check_bot_budget(spec: str) -> None:
    """Refuse a bot whose budget is over the server's bounds (the bot checks the rest)."""
    kind, colon, budget = spec.partition(":")
    if not colon:
        return
    budget = budget.partition("/")[0]  # mcts's priors depth after a slash (`mcts:800/2`)
    # the budget with the longest suffix that fits: `250ms` is milliseconds, not iterations
    fitting = [b for b in BOT_BUDGETS if b.bot == kind and budget.endswith(b.suffix)]
    bound = max(fitting, key=lambda b: len(b.suffix), default=None)
    if bound is None:
        return
    number = budget[: len(budget) - len(bound.suffix)]
    if number.isascii() and number.isdigit() and int(number) > bound.most:
        raise BadRequest(400, f"a {kind} bot here takes at most {bound.most} {bound.unit}")


def match_request(doc: dict) -> MatchRequest:
    """A new match's request, checked for form (the service checks it against the game)."""
    seats = doc.get("seats")
    if not isinstance(seats, list):
        raise BadRequest(400, "'seats' is a list, one entry per player")
    players = doc.get("players", len(seats))
    if players != len(seats):
        raise BadRequest(400, "'seats' has one entry per player")
    variants, expansions = _names(doc, "variants"), _names(doc, "expansions")
    if len(variants) + len(expansions) > MAX_PATCHES:
        raise BadRequest(400, f"a match takes at most {MAX_PATCHES} variants and expansions")
    return MatchRequest(
        _text(doc, "game"),
        len(seats),
        _seed(doc),
        variants,
        expansions,
        tuple(_seat(seat) for seat in seats),
        tuple(at for at, seat in enumerate(seats) if seat == {"invited": True}),
    )


def action_request(doc: dict) -> ActionRequest:
    """A decision's request, checked for form."""
    return ActionRequest(
        _text(doc, "token"), _text(doc, "action"), _count(doc, "decisions"), _version(doc)
    )


def undo_request(doc: dict) -> UndoRequest:
    """An undo's request, checked for form."""
    return UndoRequest(_text(doc, "token"), _count(doc, "decisions"), _version(doc))


def message_request(doc: dict) -> MessageRequest:
    """A chat message's request, checked for form: a text of 1 to MAX_MESSAGE_CHARS characters
    (blanks around it dropped), without control characters but line breaks."""
    text = doc.get("text")
    if not isinstance(text, str):
        raise BadRequest(400, "'text' must be a string")
    text = text.strip()
    if not text:
        raise BadRequest(400, "a message says something")
    if len(text) > MAX_MESSAGE_CHARS:
        raise BadRequest(400, f"a message holds at most {MAX_MESSAGE_CHARS} characters")
    if any(unicodedata.category(c) == "Cc" and c != "\n" for c in text):
        raise BadRequest(400, "a message holds no control characters (but line breaks)")
    return MessageRequest(_text(doc, "token"), text)


def seat_token(doc: dict) -> str:
    """The token of a request that only names its seat (to play a finished match again)."""
    return _text(doc, "token")


def invitation(doc: dict) -> str:
    """The invitation's code of a request to take a seat a match leaves to the invited."""
    return _text(doc, "code")


def _version(doc: dict) -> int | None:
    return None if doc.get("version") is None else _count(doc, "version")
