"""How search bots value a position: the game's estimate, else the score as if the game ended now.

A finished game is valued by its scores and ranking. Before the end, a game that declares
`estimate(p) = …` is valued by it (the rules' own judgement of a position, e.g. goals
counted before the end); any other game by its score after the rules' `final` block has run
on a copy (end-of-game payouts and penalties).
"""

from __future__ import annotations

import math
import random

from runtime.errors import MetroRuntimeError
from runtime.machine import Action, Frame, State

WIN, SHARED, MARGIN = 0.8, 0.4, 0.2  # reward of a sole and a shared first place; of the margin


def as_ended(state: State) -> State:
    """The position itself if over, else a copy where the rules' `final` block has run (if any).

    A final block that waits for a decision or fails leaves the position as the plain score
    shows it.
    """
    final = state.game.final_proc
    if state.over or final is None:
        return state
    ended = state.clone()
    ended.stack = [Frame(final, {})]
    try:
        ended._run()
    except MetroRuntimeError:
        return state
    return ended


class Draws:
    """The numbers `random.Random(seed).random()` gives in turn, drawn once and then replayed.

    Seeding a generator costs more than applying the draws it makes; settling every option of
    a player against the same seed replays one list instead.
    """

    __slots__ = ("_rng", "_seed", "_values")

    def __init__(self, seed: int):
        self._seed = seed
        self._rng: random.Random | None = None  # made at the first number asked (mostly none is)
        self._values: list[float] = []

    def __getitem__(self, index: int) -> float:
        """The generator's number `index` (from 0)."""
        values = self._values
        while len(values) <= index:
            if self._rng is None:
                self._rng = random.Random(self._seed)
            values.append(self._rng.random())
        return values[index]


def settle(state: State, player: int, seed: int | Draws) -> None:
    """Complete a simultaneous choice `player` has just joined: the others choose at random.

    Until everyone has chosen nothing happens, so the player's choice would show no effect.
    The others' choices are drawn from `seed` (or its `Draws`, to settle many options): given
    the same seed, every option of the player meets the same choices of the others (when their
    options do not depend on it), so options are compared on equal terms.
    """
    draws = Draws(seed) if isinstance(seed, int) else seed
    drawn = 0
    while (choice := next_choice(state, player, draws, drawn)) is not None:
        state.apply_legal(*choice)
        drawn += 1


def next_choice(state: State, player: int, draws: Draws, drawn: int) -> tuple[int, Action] | None:
    """The choice `settle` makes next, its `drawn`-th (player, action), or None once it is done."""
    if state.over or not state.game.sites[state.site].secret:
        return None
    movers = state.to_move
    if player in movers:
        return None
    actions = state.legal_actions(movers[0])
    return movers[0], actions[int(draws[drawn] * len(actions))]


def values(state: State) -> list[int]:
    """Each seat's value: the score once over, else the game's estimate, else the score as if ended."""
    if state.over or not state.game.has_estimate:
        return as_ended(state).scores()
    return state.estimates()


def margin(state: State, player: int) -> int:
    """The player's value minus the best other seat's (its value alone with one player)."""
    return margins(state)[player]


def margins(state: State) -> list[int]:
    """Each seat's value minus the best other seat's (its value alone with one player)."""
    scores = values(state)
    if len(scores) == 2:  # the common case, written out (the same differences)
        first, second = scores
        return [first - second, second - first]
    if len(scores) < 2:
        return list(scores)
    # The best other seat's value is the best of all, or the second best for its first holder.
    top, second = sorted(scores)[:-3:-1]
    first = scores.index(top)
    return [score - (second if seat == first else top) for seat, score in enumerate(scores)]


def margin_rewards(found: list[int], scale: float) -> list[float]:
    """Each seat's reward for an unfinished position of these margins: 0.5 + 0.5 tanh(margin / scale)."""
    return [0.5 + 0.5 * math.tanh(m / scale) for m in found]


def rewards(state: State, scale: float | None = None) -> list[float]:
    """Each seat's reward in [0, 1].

    A finished game (or, with no `scale`, any position valued as if it ended): a first place,
    sole or shared, by the game's ranking plus a margin term. An unfinished position with a
    `scale` (how large margins typically are in this search): 0.5 + 0.5 tanh(margin / scale),
    so that a lead of a few units counts for as much in a game of yen as in one of points.
    """
    if scale is not None and not state.over:
        return margin_rewards(margins(state), scale)
    ended = as_ended(state)
    places, scores = ended.ranking(), ended.scores()
    firsts = places.count(1)
    out = []
    for seat, score in enumerate(scores):
        best_other = max((s for p, s in enumerate(scores) if p != seat), default=0)
        spread = abs(score) + abs(best_other) + 1
        share = 0.0 if places[seat] != 1 else (WIN if firsts == 1 else SHARED)
        out.append(share + MARGIN * (0.5 + 0.5 * (score - best_other) / spread))
    return out
