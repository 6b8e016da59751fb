"""Board Game Arena's undo rule, derived from the engine: may a seat take back the last decision?

A seat may take back the match's last decision when taking it back hides nothing that anyone
saw because of it, which the engine tells by comparing the positions before and after it:

1. the decision is the seat's own;
2. it drew nothing from the generator of chance (the generator's state is unchanged): no
   shuffle, roll or random draw happened, so no chance outcome was revealed;
3. the game did not end with it (the end shows the scores, which may count hidden things);
4. it did not close a simultaneous choice: the position still waits at the same choice for
   the others, the seat's choice held unrevealed (the last choice reveals everyone's);
5. no value hidden from the seat changed: every field the seat's view does not show (hidden
   fields, and the other players' own) encodes as before, so nothing left a hidden pile and
   nothing of another player's secrets moved;
6. it showed the seat nothing hidden: taken in positions whose hidden values are re-drawn from
   what the seat saw before (runtime/determinize.py), it gives the seat the same view and the
   same choices as in the true position, so no hidden value flowed into what the seat sees
   (a look at a hidden value that copies it without moving it).

What the decision showed of the seat's own secrets (a card played from its hand) is the seat's
own loss and does not stop it. A decision a stand-in bot made for an absent person is not the
person's to take back (Board Game Arena's rule): the service refuses it before asking this
module, since only its rows record who chose. Rule 6 tries `PROBES` re-drawn positions, seeded
from the match, so every server process reaches the same verdict.
"""

from __future__ import annotations

import random

from runtime.determinize import sample_position
from runtime.errors import MetroRuntimeError
from runtime.machine import Action, State

PROBES = 4  # re-drawn positions rule 6 tries


def undo_refusal(before: State, after: State, seat: int, action: Action, seed: str) -> str | None:
    """Why `seat` may not take back `action`, which made `after` from `before`; None if it may."""
    if after.history[-1][0] != seat:
        return "the last decision is another seat's"
    if after.rng != before.rng:
        return "the last decision drew something at random"
    if after.is_over:
        return "the game is over"
    site = before.game.sites[before.site]
    if site.secret and not _held(before, after, seat):
        return "the last decision revealed everyone's secret choices"
    if _hidden_values(before, seat) != _hidden_values(after, seat):
        return "the last decision moved something hidden from this seat"
    if not _shows_nothing_hidden(before, after, seat, action, seed):
        return "the last decision showed this seat something hidden"
    return None


def _held(before: State, after: State, seat: int) -> bool:
    """True when `after` still waits at `before`'s simultaneous choice for the others alone."""
    return (
        after.site == before.site
        and len(after.stack) == len(before.stack)
        and set(after.to_move) == set(before.to_move) - {seat}
    )


def _hidden_values(state: State, seat: int) -> list:
    """Every value `seat`'s view does not show, encoded."""
    module = state.game.module
    values = [
        desc.encode(getattr(state, attr))
        for name, attr, desc in module.SAVE_FIELDS
        if module.STATE_VISIBILITY.get(name, "public") != "public"
    ]
    for name, attr, desc in module.SAVE_PLAYER_FIELDS:
        visibility = module.PLAYER_VISIBILITY.get(name, "public")
        if visibility == "public":
            continue
        per_player = getattr(state, attr)
        values += [
            desc.encode(per_player[p]) for p in range(state.n) if visibility != "owner" or p != seat
        ]
    return values


def _shows_nothing_hidden(
    before: State, after: State, seat: int, action: Action, seed: str
) -> bool:
    """True when the decision gives `seat` the same sight in positions re-drawn from its view."""
    sight = _sight(after, seat)
    draws = random.Random(seed)
    for _ in range(PROBES):
        probe = sample_position(before, seat, draws)
        try:
            probe.apply(seat, action)
        except MetroRuntimeError:  # illegal there: what it may do depends on hidden values
            return False
        if _sight(probe, seat) != sight:
            return False
    return True


def _sight(state: State, seat: int) -> tuple:
    """What `seat` sees of a position: its view and its choices."""
    return state.view(seat), [a.id for a in state.legal_actions(seat)]
