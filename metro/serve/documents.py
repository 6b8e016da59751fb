"""What a seat (or a spectator) receives: built only from what that viewer may see.

The view is `state.view(seat)` (`state.public_view()` for a spectator); the words are those of
`metro play` for the same viewer (`state.display`, the move log as `metro/moves.py` words it);
the legal choices only when the seat is to decide (with the things each names, to click
on the board); whether the seat may take back its last decision now; the scores only once the
game is over (while it runs a score may count hidden things).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from metro.play.menus import heading
from metro.play.moves import MoveLog
from metro.render.marks import ActionNames
from runtime.machine import Action, State
from runtime.values import BagD, BoolD, IntD, ListD, NamedD, OptD, PlayerD, SetD, StrD

if TYPE_CHECKING:  # the store (and SQLAlchemy) is not needed to build a document
    from metro.serve.store import MessageRecord


@dataclass(frozen=True)
class SeatInfo:
    """Who sits in a seat, as everyone may know it."""

    seat: int
    bot: str | None
    absent: bool  # a person gone, their seat played by a stand-in bot until they return
    failed: str | None = None  # why the seat's bot was replaced by a fallback, in words
    open: bool = False  # waiting for someone with the match's invitation to take it


def choice_groups(legal: list[Action]) -> dict[str, str]:
    """Each action's heading in the menus, in its labels' own words as `metro play` heads it."""
    by_name: dict[str, list[Action]] = {}
    for action in legal:
        by_name.setdefault(action.name, []).append(action)
    # several choices share the words of the heading and go on (`take the face-up …`)
    return {
        name: heading(actions) + (" …" if len(actions) > 1 else "")
        for name, actions in by_name.items()
    }


def argument_words(legal: list[Action]) -> list[list[str] | None]:
    """Each argument of each action in words, as its label writes it (a map element's or enum
    value's words, a number): what the play page's drop-down list for that argument shows.
    Where two values of one action's argument read alike, each is told apart by its id after
    the words, in brackets. None for an action with an argument that has no words of its own (a
    placement's numbers: only the label says where it is)."""
    words = [
        [desc.display(value) for desc, value in zip(a[3], a.args, strict=True)]
        if all(map(_has_words, a[3]))
        else None
        for a in legal
    ]
    values: dict[tuple[str, int, str], set[str]] = {}  # (action, position, words): values' ids
    for action, said in zip(legal, words, strict=True):
        for at, desc in enumerate(action[3] if said is not None else ()):
            key = (action.name, at, said[at])
            values.setdefault(key, set()).add(desc.label(action.args[at]))  # as ids write it
    for action, said in zip(legal, words, strict=True):
        for at, desc in enumerate(action[3] if said is not None else ()):
            if len(values[(action.name, at, said[at])]) > 1:
                said[at] += f" ({desc.label(action.args[at])})"
    return words


def argument_headings(state: State, legal: list[Action]) -> dict[str, list[str]]:
    """The words heading each argument of the legal actions (not choices), by action: what the
    play page writes over each drop-down list of an action picked argument by argument."""
    headings = state.game.argument_headings
    return {a.name: list(headings[a.name]) for a in legal if a.name in headings}


def _has_words(desc) -> bool:
    """Whether a value of this kind reads as itself: a thing, a number, a truth value, a text,
    or a collection of those (not a tuple of numbers, a table or a geometric value)."""
    if isinstance(desc, OptD):
        return _has_words(desc.inner)
    if isinstance(desc, ListD | SetD | BagD):
        return _has_words(desc.item)
    return isinstance(desc, NamedD | PlayerD | IntD | BoolD | StrD)


def match_document(
    match_id: str,
    game: str,
    state: State,
    log: MoveLog,
    seats: list[SeatInfo],
    namer: ActionNames,
    viewer: int | None,
    version: int,
    undo: bool,
    next_match: str | None = None,
    messages: Sequence[MessageRecord] = (),
) -> dict:
    """The match as `viewer` (a seat, or None: a spectator) may see it, as JSON-able data."""
    legal = state.legal_actions(viewer) if viewer is not None else []
    groups = choice_groups(legal)
    words = argument_words(legal)
    over = state.is_over
    return {
        "match": match_id,
        "game": game,
        "title": state.game.name,
        "seat": viewer,
        "seats": [asdict(seat) for seat in seats],
        "decisions": len(state.history),
        "version": version,
        "undo": undo,
        "to_move": list(state.to_move),
        "legal": [action.id for action in legal],
        "choices": [
            {
                "id": a.id,
                "label": a.label,
                "group": groups[a.name],
                "elements": namer.keys(a),
                "arguments": namer.choice_keys(a),
                "items": namer.items(a),
                "words": said,
            }
            for a, said in zip(legal, words, strict=True)
        ],
        "headings": argument_headings(state, legal),
        "view": state.view(viewer) if viewer is not None else state.public_view(),
        "screen": asdict(state.display(viewer)),
        "log": [move.line(viewer) for move in log.moves],
        "over": over,
        "scores": state.scores() if over else None,
        "places": state.ranking() if over else None,
        "next": next_match,
        "chat": [{"seat": m.seat, "text": m.text} for m in messages],
    }
