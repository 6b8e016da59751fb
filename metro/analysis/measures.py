"""Per-game measures of how a game unfolds (Ludii-style): turns, branching, lead and estimates.

A recorded game is a `Trajectory`: each decision's player, number of options and the players
to move then, and, for a game with an `estimate`, every seat's estimate at each decision's
position. `GameMeasures.of` reduces it to a few numbers per game, which is all that leaves a
worker and all that `metro compare --json` writes (never the trajectory). docs/compare.md
defines each measure; the definitions here are the reference.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import pairwise


@dataclass(frozen=True)
class Decision:
    """One decision of a recorded game: who decided, among how many options, and who was to move."""

    player: int
    options: int
    movers: tuple[int, ...]  # everyone to move then (several at a simultaneous choice)


@dataclass(frozen=True)
class Trajectory:
    """A recorded game: its decisions, the estimates before each (if the game has one), its winners."""

    players: int
    decisions: list[Decision]
    winners: list[int]
    estimates: list[list[int]] | None = None  # estimates[d][seat] at decision d's position


@dataclass(frozen=True)
class GameMeasures:
    """What the measures keep of one game (None: undefined for this game, see docs/compare.md)."""

    turns: int
    branching_mean: float | None
    branching_max: int | None
    decision_moves: float | None
    lead_changes: int | None = None
    decisiveness: float | None = None
    drama: float | None = None
    stability: float | None = None

    @classmethod
    def of(cls, trajectory: Trajectory) -> GameMeasures:
        """The measures of a recorded game."""
        options = [d.options for d in trajectory.decisions]
        measures = cls(
            turns=turns(trajectory.decisions),
            branching_mean=statistics.fmean(options) if options else None,
            branching_max=max(options) if options else None,
            decision_moves=sum(n > 1 for n in options) / len(options) if options else None,
        )
        if trajectory.estimates is None:
            return measures
        winner = trajectory.winners[0] if len(trajectory.winners) == 1 else None
        leaders = lead_sequence(trajectory.estimates, winner)
        return cls(
            measures.turns,
            measures.branching_mean,
            measures.branching_max,
            measures.decision_moves,
            lead_changes=lead_changes(leaders),
            decisiveness=None if winner is None else decisiveness(leaders, winner),
            drama=None if winner is None else drama(trajectory.estimates, winner),
            stability=stability(trajectory.estimates),
        )

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return asdict(self)


def turns(decisions: Sequence[Decision]) -> int:
    """Maximal runs of decisions by one player; the choices of one simultaneous step make one turn.

    A decision continues the turn when the same player decided just before, or when its player
    was already to move at the previous decision (another's choice of the same simultaneous step).
    """
    count = 0
    previous: Decision | None = None
    for decision in decisions:
        continues = previous is not None and (
            decision.player == previous.player or decision.player in previous.movers
        )
        count += not continues
        previous = decision
    return count


def sole_leader(estimates: Sequence[int]) -> int | None:
    """The seat whose estimate is highest alone, or None when the top is shared."""
    top = max(estimates)
    leaders = [seat for seat, value in enumerate(estimates) if value == top]
    return leaders[0] if len(leaders) == 1 else None


def lead_sequence(estimates: Sequence[Sequence[int]], winner: int | None) -> list[int | None]:
    """The sole leader at each decision's position, then at the end the sole winner (None: shared)."""
    return [sole_leader(row) for row in estimates] + [winner]


def lead_changes(leaders: Sequence[int | None]) -> int:
    """How often the sole leader changes; a shared top keeps the last leader (no change by itself)."""
    changes = 0
    last = None
    for leader in leaders:
        if leader is None:
            continue
        changes += last is not None and leader != last
        last = leader
    return changes


def decisiveness(leaders: Sequence[int | None], winner: int) -> float:
    """When the winner leads alone for good, as a share of the game's decisions (0: from the start)."""
    decisions = len(leaders) - 1  # the last entry is the end, after the last decision
    start = len(leaders) - 1
    while start > 0 and leaders[start - 1] == winner:
        start -= 1
    return start / decisions if decisions else 0.0


def _range(estimates: Sequence[Sequence[int]]) -> int:
    """The spread of every estimate of every seat over the game (the normaliser)."""
    values = [v for row in estimates for v in row]
    return max(values) - min(values) if values else 0


def drama(estimates: Sequence[Sequence[int]], winner: int) -> float:
    """The winner's largest deficit to the leader by the estimate, as a share of the game's range."""
    spread = _range(estimates)
    if not spread:
        return 0.0
    return max(max(row) - row[winner] for row in estimates) / spread


def stability(estimates: Sequence[Sequence[int]]) -> float | None:
    """Mean move of a seat's estimate from one decision to the next, as a share of the game's range.

    0 when no estimate ever moves; None with fewer than two decisions (nothing to move between).
    """
    if len(estimates) < 2:
        return None
    spread = _range(estimates)
    if not spread:
        return 0.0
    moves = [
        abs(after - before)
        for earlier, later in pairwise(estimates)
        for before, after in zip(earlier, later, strict=True)
    ]
    return statistics.fmean(moves) / spread


def score_spread(scores: Sequence[int]) -> float:
    """Standard deviation of one game's final scores (the seats as the whole population)."""
    return statistics.pstdev(scores) if len(scores) > 1 else 0.0
