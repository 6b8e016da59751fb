"""Perft: how many action sequences of a given length start from a position.

Chess engines check their move generators this way, against counts published for known
positions. Here a sequence step is an action of the first player in `to_move` (at a
simultaneous choice the others choose later in the same sequence); a finished game has no
sequences left. The count at the last level is the number of legal actions: the last action
is never applied. Chance is fixed: a position reached before the last action must not wait
for a chance outcome (`ChanceInPerft`), so published positions are chosen where none does.
"""

from __future__ import annotations

from runtime.chance import CHANCE, EXPLICIT, RECORDED
from runtime.machine import Game, State

# The most positions one count may visit (counts that would need more are not published).
DEFAULT_BUDGET = 200_000


def initial_seed(players: int) -> str:
    """The seed of the initial position of `players` (vector `initial-<players>p`)."""
    return f"vectors/initial/{players}"


def initial_position(game: Game, players: int) -> State:
    """The position of vector `initial-<players>p`, with explicit chance: the outcomes of the
    seeded game's first random events given one by one, as another engine is given them."""
    recorded = game.new_game(players, initial_seed(players), chance=RECORDED)
    state = game.new_game(players, chance=EXPLICIT)
    for record in recorded.chance.log:
        state.apply_outcome(record.outcome)
    return state


class ChanceInPerft(ValueError):
    """A position inside the count waits for a chance outcome."""


class PerftBudget(ValueError):
    """The count would visit more positions than its budget."""


def perft(state: State, depth: int, budget: int = DEFAULT_BUDGET) -> int:
    """The number of action sequences of length `depth` from `state` (which is left unchanged)."""
    if depth < 0:
        raise ValueError(f"a perft depth is 0 or more, not {depth}")
    visits = [0]
    return _count(state, depth, visits, budget)


def _count(state: State, depth: int, visits: list[int], budget: int) -> int:
    if depth == 0:
        return 1
    to_move = state.to_move
    if not to_move:
        return 0
    if to_move == [CHANCE]:
        raise ChanceInPerft("a position within the depth waits for a chance outcome")
    visits[0] += 1
    if visits[0] > budget:
        raise PerftBudget(f"the count visits more than {budget:,} positions")
    player = to_move[0]
    actions = state.legal_actions(player)
    if depth == 1:
        return len(actions)
    total = 0
    for action in actions:
        child = state.clone()
        child.apply(player, action)
        total += _count(child, depth - 1, visits, budget)
    return total


def counts_until(state: State, max_depth: int, budget: int) -> list[int]:
    """perft(1), perft(2), … up to `max_depth`, stopping before the first count that would meet
    a random event or visit more than `budget` positions."""
    counts = []
    for depth in range(1, max_depth + 1):
        try:
            counts.append(perft(state, depth, budget))
        except (ChanceInPerft, PerftBudget):
            break
    return counts
