"""How search bots value a position: the score as if the game ended now, and rewards per seat."""

from __future__ import annotations

from runtime.errors import MetroRuntimeError
from runtime.machine import Frame, State

WIN, SHARED, MARGIN = 0.8, 0.4, 0.2  # reward of a sole and a shared first place; of the margin


def as_ended(state: State) -> State:
    """The position itself if over, else a copy where the rules' `final` block has run (if any).

    The final block is the game's own end-of-game scoring (money for stocks, loans repaid…),
    so a bot sees what its holdings are worth. A final block that waits for a decision or
    fails leaves the position as the plain score shows it.
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


def margin(state: State, player: int) -> int:
    """The player's score minus the best other score (the score alone with one player)."""
    scores = state.scores()
    others = [s for p, s in enumerate(scores) if p != player]
    return scores[player] - max(others, default=0)


def rewards(state: State) -> list[float]:
    """Each seat's reward in [0, 1]: a first place (sole or shared) plus a score-margin term."""
    places = state.ranking()
    scores = state.scores()
    firsts = places.count(1)
    out = []
    for seat, score in enumerate(scores):
        best_other = max((s for p, s in enumerate(scores) if p != seat), default=0)
        spread = abs(score) + abs(best_other) + 1
        share = 0.0 if places[seat] != 1 else (WIN if firsts == 1 else SHARED)
        out.append(share + MARGIN * (0.5 + 0.5 * (score - best_other) / spread))
    return out
