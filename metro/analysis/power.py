"""How many games a comparison needs: the change that matters, a pilot's plan, sequential looks.

`--detect 5%` names the smallest change that matters; a pilot on seeds of its own estimates each
quantity's paired spread and `games_needed` (`metro.analysis.stats`) turns it into a plan.
`--until-decided` plays in batches and looks after each: a quantity is decided once its
difference is beyond the noise or its interval lies inside ±the change that matters. Each look
tests at ALPHA / K for K planned looks (Bonferroni over the looks: conservative and valid, so a
quantity unchanged in truth is called changed with chance at most ALPHA over the whole run, and
one that changes by the asked amount is called equivalent with chance at most ALPHA).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from metro.analysis.stats import ALPHA, POWER, Difference, games_needed

PILOT = "pilot"  # pilot game i is seeded SEED/pilot/i, apart from the main run's SEED/i
CHANGED, EQUIVALENT, UNDECIDED = "changed", "equivalent", "undecided"


class OptionError(ValueError):
    """An option's value the comparison cannot use (a usage error on the command line)."""


@dataclass(frozen=True)
class Detect:
    """The smallest change that matters: a share of the base's mean (`5%`), or an amount (`2`).

    Win rates and other shares take it in percentage points either way: `5%` and `5` both mean
    5 percentage points.
    """

    amount: float  # 0.05 for "5%"
    relative: bool
    text: str

    @classmethod
    def parse(cls, text: str) -> Detect:
        """`5%` (of the base's mean) or `2.5` (in the quantity's unit); OptionError otherwise."""
        stripped = text.strip()
        relative = stripped.endswith("%")
        try:
            amount = float(stripped.removesuffix("%"))
        except ValueError:
            amount = math.nan
        if not math.isfinite(amount) or amount <= 0:
            raise OptionError(
                f"--detect takes a positive percentage of the base's mean (5%) or a positive "
                f"amount (2.5), not '{text}'"
            )
        return cls(amount / 100 if relative else amount, relative, stripped)

    def threshold(self, base: float, rate: bool) -> float | None:
        """The change that matters for a quantity whose base mean is `base` (None if undefined).

        A percentage of a base mean of 0 is 0: no change could be small enough, so it is undefined.
        """
        if rate:
            return self.amount if self.relative else self.amount / 100
        if not self.relative:
            return self.amount
        return self.amount * abs(base) if base else None

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {"text": self.text, "amount": self.amount, "relative": self.relative}


@dataclass(frozen=True)
class PlanRow:
    """One quantity's plan: the pilot's paired spread and the games needed to detect the change."""

    config: str
    name: str
    base: float  # the pilot's base mean
    sd: float  # the pilot's paired standard deviation
    threshold: float | None  # the change that matters (None: a percentage of 0)
    games: int | None  # None when the pilot cannot say (no threshold, or no variation seen)

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {
            "configuration": self.config,
            "name": self.name,
            "base": self.base,
            "sd": self.sd,
            "change": self.threshold,
            "games": self.games,
        }


@dataclass(frozen=True)
class Plan:
    """The games needed per quantity, from a pilot, and the games the run plays."""

    detect: Detect
    pilot_games: int
    pilot_seed: str
    max_games: int
    rows: list[PlanRow]

    @property
    def needed(self) -> int | None:
        """The most games any planned quantity needs (None if the pilot could plan none)."""
        known = [r.games for r in self.rows if r.games is not None]
        return max(known) if known else None

    @property
    def games(self) -> int:
        """The games the run plays: the plan capped at max_games (the cap if nothing was planned)."""
        needed = self.needed
        return self.max_games if needed is None else min(max(needed, 2), self.max_games)

    @property
    def capped(self) -> bool:
        """True if some quantity needs more games than max_games allows."""
        return self.needed is None or self.needed > self.max_games

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {
            "detect": self.detect.to_dict(),
            "alpha": ALPHA,
            "power": POWER,
            "pilot_games": self.pilot_games,
            "pilot_seed": self.pilot_seed,
            "max_games": self.max_games,
            "needed": self.needed,
            "games": self.games,
            "rows": [r.to_dict() for r in self.rows],
        }


def plan_rows(
    config: str,
    differences: Sequence[Difference],
    detect: Detect,
    rate: Callable[[str], bool],
) -> list[PlanRow]:
    """Each pilot difference's plan; one the pilot saw no variation in cannot be planned."""
    rows = []
    for d in differences:
        threshold = detect.threshold(d.base, rate(d.name))
        known = threshold is not None and math.isfinite(d.sd) and d.sd > 0
        games = games_needed(d.sd, threshold) if known else None
        rows.append(PlanRow(config, d.name, d.base, d.sd, threshold, games))
    return rows


@dataclass(frozen=True)
class Design:
    """Batches of `batch` games per configuration up to `max_games`: K looks, ALPHA/K each."""

    batch: int
    max_games: int

    @property
    def looks(self) -> int:
        """The most looks the run can take."""
        return math.ceil(self.max_games / self.batch)

    @property
    def alpha(self) -> float:
        """The level each look tests at (Bonferroni over the looks)."""
        return ALPHA / self.looks

    def games_after(self, look: int) -> int:
        """Games per configuration played by the end of look `look` (1-based)."""
        return min(look * self.batch, self.max_games)

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {
            "batch": self.batch,
            "max_games": self.max_games,
            "looks": self.looks,
            "alpha": ALPHA,
            "alpha_per_look": self.alpha,
            "method": "bonferroni",
        }


def verdict(d: Difference, threshold: float | None, alpha: float) -> str:
    """CHANGED if the difference is beyond the noise at `alpha`, EQUIVALENT if its (1 - 2 alpha)
    interval lies inside ±threshold (two one-sided tests at `alpha`), else UNDECIDED."""
    if d.adjusted_p < alpha:
        return CHANGED
    if threshold is not None and d.n >= 2:
        low, high = d.interval_at(1 - 2 * alpha)
        if -threshold < low and high < threshold:
            return EQUIVALENT
    return UNDECIDED


@dataclass
class Verdict:
    """One quantity's fate in a sequential run: decided at which look, or undecided."""

    config: str
    name: str
    decision: str = UNDECIDED
    look: int | None = None
    games: int | None = None

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {
            "configuration": self.config,
            "name": self.name,
            "decision": self.decision,
            "look": self.look,
            "games": self.games,
        }


@dataclass
class Sequential:
    """A sequential run: its design, the looks it took and each quantity's verdict."""

    design: Design
    detect: Detect
    looks: int = 0
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def undecided(self) -> list[Verdict]:
        """The quantities still undecided."""
        return [v for v in self.verdicts if v.decision == UNDECIDED]

    def record(self, config: str, d: Difference, decision: str, games: int) -> None:
        """Note a look's decision about a quantity; a quantity once decided stays decided."""
        for v in self.verdicts:
            if (v.config, v.name) == (config, d.name):
                if v.decision == UNDECIDED and decision != UNDECIDED:
                    v.decision, v.look, v.games = decision, self.looks, games
                return
        decided = decision != UNDECIDED
        self.verdicts.append(
            Verdict(
                config,
                d.name,
                decision,
                self.looks if decided else None,
                games if decided else None,
            )
        )

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return self.design.to_dict() | {
            "detect": self.detect.to_dict(),
            "looks_taken": self.looks,
            "verdicts": [v.to_dict() for v in self.verdicts],
        }


def chosen(differences: Sequence[Difference], decide: Sequence[str] | None) -> list[Difference]:
    """The differences a plan or a sequential run is about: those named, or all."""
    if not decide:
        return list(differences)
    return [d for d in differences if d.name in decide]
