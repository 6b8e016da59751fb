"""`metro compare`'s records: one game of one configuration, and the measures compared per game.

A record is what `--json` writes of a game; `MEASURES` names each quantity compared between
configurations and reads it off a record (None where a game has none: decisiveness after a
shared win); `is_rate` tells the quantities shown in percent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from metro.analysis.measures import GameMeasures, score_spread
from metro.analysis.simulate import GameResult
from runtime.values import PLAYER


@dataclass(frozen=True)
class Record:
    """One game of one configuration: what `--json` writes for further analysis."""

    config: str
    index: int
    result: GameResult
    bots: tuple[str, ...]

    @property
    def top_scores(self) -> list[int]:
        """The scores, best first."""
        return sorted(self.result.scores, reverse=True)

    @property
    def margin(self) -> int:
        """The winner's lead over the next score (0 with one player or a tie)."""
        top = self.top_scores
        return top[0] - top[1] if len(top) > 1 else 0

    @property
    def measures(self) -> GameMeasures | None:
        """The game's recorded measures (None if it was played without recording)."""
        return self.result.measures

    @property
    def draw(self) -> float:
        """1 if the game's first place is shared, else 0."""
        return float(len(self.result.winners) > 1)

    def win_share(self, seat: int) -> float:
        """1 for a sole win, 1/k for a win shared by k, else 0."""
        winners = self.result.winners
        return 1 / len(winners) if seat in winners else 0.0

    def to_dict(self) -> dict:
        """JSON-able fields."""
        r = self.result
        return {
            "config": self.config,
            "index": self.index,
            "seed": str(r.seed),
            "bots": list(self.bots),
            "scores": r.scores,
            "ranking": r.ranking,
            "winners": [PLAYER.label(p) for p in r.winners],
            "decisions": r.decisions,
            "over": r.over,
            "metrics": r.metrics,
            "measures": None if r.measures is None else r.measures.to_dict(),
        }


def _kept(attribute: str) -> Callable[[Record], float | None]:
    """The measure of a game kept in its GameMeasures (None without a recording)."""

    def value(record: Record) -> float | None:
        measures = record.measures
        return None if measures is None else getattr(measures, attribute)

    return value


def _rounds(record: Record) -> float | None:
    measures = record.measures
    return None if measures is None else measures.turns / len(record.result.scores)


# Per-game measures compared between configurations: name -> value of a game (in order shown);
# None where a game has no value (docs/compare.md: e.g. decisiveness after a shared win).
MEASURES: dict[str, Callable[[Record], float | None]] = {
    "mean score": lambda r: sum(r.result.scores) / len(r.result.scores),
    "winning score": lambda r: r.top_scores[0],
    "margin of victory": lambda r: r.margin,
    "score spread": lambda r: score_spread(r.result.scores),
    "draws": lambda r: r.draw,
    "game length (decisions)": lambda r: r.result.decisions,
    "game length (turns)": _kept("turns"),
    "game length (rounds)": _rounds,
    "branching factor (mean)": _kept("branching_mean"),
    "branching factor (max)": _kept("branching_max"),
    "decision moves": _kept("decision_moves"),
    "lead changes": _kept("lead_changes"),
    "decisiveness": _kept("decisiveness"),
    "drama": _kept("drama"),
    "stability": _kept("stability"),
}
# Measures that are shares (shown in percent, their differences in percentage points).
RATES = frozenset({"draws", "decision moves"})


def is_rate(name: str) -> bool:
    """True for a quantity shown in percent: a seat's win rate, a skill round's, draws, decision moves."""
    return name in RATES or name.endswith("win rate")


SCORES = "score (every seat)"
