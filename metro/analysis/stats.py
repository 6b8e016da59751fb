"""Statistics of game samples: summaries, and paired differences with intervals and tests (scipy).

`metro compare` plays every configuration on the same seeds, so game i of a variant and game
i of the base share their deal and their bots' seeds (common random numbers): a difference is
judged on the per-game differences, which vary far less than the games themselves.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

LEVEL = 0.95  # confidence of every interval
ALPHA = 0.05  # a difference whose adjusted p-value is below this is beyond the noise


class ScipyMissing(RuntimeError):
    """The statistics need scipy (the report extra)."""


def _scipy_stats():
    try:
        from scipy import stats
    except ImportError as error:
        raise ScipyMissing(
            "metro compare needs scipy for its tests: pip install 'metro-games[report]'"
        ) from error
    return stats


@dataclass(frozen=True)
class Summary:
    """Mean, standard deviation and quantiles of a sample."""

    n: int
    mean: float
    sd: float
    q10: float
    q25: float
    median: float
    q75: float
    q90: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Summary:
        """The summary of `values` (at least one)."""
        values = [float(v) for v in values]
        if len(values) == 1:
            v = values[0]
            return cls(1, v, 0.0, v, v, v, v, v, v, v)
        deciles = statistics.quantiles(values, n=10, method="inclusive")
        quartiles = statistics.quantiles(values, n=4, method="inclusive")
        return cls(
            n=len(values),
            mean=statistics.fmean(values),
            sd=statistics.stdev(values),
            q10=deciles[0],
            q25=quartiles[0],
            median=quartiles[1],
            q75=quartiles[2],
            q90=deciles[8],
            low=min(values),
            high=max(values),
        )

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {
            "n": self.n,
            "mean": self.mean,
            "sd": self.sd,
            "quantiles": {
                "min": self.low,
                "q10": self.q10,
                "q25": self.q25,
                "median": self.median,
                "q75": self.q75,
                "q90": self.q90,
                "max": self.high,
            },
        }


@dataclass(frozen=True)
class Difference:
    """Mean of paired differences (other − base), its interval, and a paired t-test's p-values."""

    name: str
    base: float  # the base's mean
    other: float  # the other configuration's mean
    mean: float
    low: float
    high: float
    p_value: float
    adjusted_p: float = 1.0  # Benjamini-Hochberg over one comparison's quantities

    @property
    def half_width(self) -> float:
        """Half the interval's width (the ± of the difference)."""
        return (self.high - self.low) / 2

    @property
    def identical(self) -> bool:
        """True if every game gave both configurations the same value."""
        return self.mean == 0 and self.low == 0 and self.high == 0

    @property
    def significant(self) -> bool:
        """True if the difference is beyond the noise (adjusted p below ALPHA)."""
        return self.adjusted_p < ALPHA

    def to_dict(self) -> dict:
        """JSON-able fields (an interval that cannot be computed is null)."""
        finite = math.isfinite(self.low) and math.isfinite(self.high)
        return {
            "name": self.name,
            "base": self.base,
            "other": self.other,
            "difference": self.mean,
            "ci95": [self.low, self.high] if finite else None,
            "p_value": self.p_value,
            "adjusted_p": self.adjusted_p,
            "significant": self.significant,
        }


def paired_difference(name: str, other: Sequence[float], base: Sequence[float]) -> Difference:
    """Other minus base, game by game: the mean, its t interval and the paired t-test's p-value."""
    if len(other) != len(base) or not base:
        raise ValueError("paired samples need the same, non-zero number of games")
    stats = _scipy_stats()
    diffs = [float(a) - float(b) for a, b in zip(other, base, strict=True)]
    n = len(diffs)
    mean = statistics.fmean(diffs)
    spread = statistics.stdev(diffs) if n > 1 else 0.0
    if n < 2:
        low, high, p = -math.inf, math.inf, 1.0
    elif spread == 0:  # every game moved by the same amount: no noise at all
        low = high = mean
        p = 1.0 if mean == 0 else 0.0
    else:
        half = stats.t.ppf((1 + LEVEL) / 2, n - 1) * spread / math.sqrt(n)
        low, high = mean - half, mean + half
        p = float(stats.ttest_rel(other, base).pvalue)
    return Difference(name, statistics.fmean(base), statistics.fmean(other), mean, low, high, p, p)


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean of `values` (at least one) and its 95% t interval (infinite with one value)."""
    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return mean, -math.inf, math.inf
    spread = statistics.stdev(values)
    if spread == 0:
        return mean, mean, mean
    half = _scipy_stats().t.ppf((1 + LEVEL) / 2, n - 1) * spread / math.sqrt(n)
    return mean, mean - half, mean + half


def adjust(differences: list[Difference]) -> list[Difference]:
    """The same differences with Benjamini-Hochberg adjusted p-values (many quantities, one question)."""
    if not differences:
        return []
    stats = _scipy_stats()
    adjusted = stats.false_discovery_control([d.p_value for d in differences], method="bh")
    return [
        Difference(d.name, d.base, d.other, d.mean, d.low, d.high, d.p_value, float(a))
        for d, a in zip(differences, adjusted, strict=True)
    ]
