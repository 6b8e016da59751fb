"""Statistics of game samples: summaries, and paired differences with intervals and tests (scipy).

`metro compare` plays every configuration on the same seeds, so game i of a variant and game
i of the base share their deal and their bots' seeds (common random numbers): a difference is
judged on the per-game differences, which vary far less than the games themselves.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

LEVEL = 0.95  # confidence of every interval
ALPHA = 0.05  # a difference whose adjusted p-value is below this is beyond the noise
POWER = 0.8  # the chance a minimum detectable difference is detected


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
    sd: float = math.nan  # standard deviation of the per-game differences
    n: int = 0  # games paired

    @functools.cached_property
    def detectable(self) -> float:
        """The smallest true mean difference these games detect with power POWER at ALPHA."""
        return minimum_detectable(self.sd, self.n)

    def interval_at(self, level: float) -> tuple[float, float]:
        """The difference's t interval at another confidence `level` (infinite below 2 games)."""
        if self.n < 2:
            return -math.inf, math.inf
        half = _scipy_stats().t.ppf((1 + level) / 2, self.n - 1) * self.sd / math.sqrt(self.n)
        return self.mean - half, self.mean + half

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
            "sd": self.sd if math.isfinite(self.sd) else None,
            "games": self.n,
            "detectable": self.detectable if math.isfinite(self.detectable) else None,
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
    return Difference(
        name, statistics.fmean(base), statistics.fmean(other), mean, low, high, p, p, spread, n
    )


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
        dataclasses.replace(d, adjusted_p=float(a))
        for d, a in zip(differences, adjusted, strict=True)
    ]


def t_test_power(effect: float, n: int, alpha: float = ALPHA) -> float:
    """The power of a two-sided one-sample (paired) t-test on `n` values at `alpha`.

    `effect` is the true mean difference in standard deviations; the test statistic then follows
    a noncentral t distribution with n - 1 degrees of freedom and noncentrality effect * sqrt(n).
    """
    stats = _scipy_stats()
    df, noncentrality = n - 1, effect * math.sqrt(n)
    critical = stats.t.ppf(1 - alpha / 2, df)
    lower = stats.nct.cdf(-critical, df, noncentrality)
    # scipy's lower tail can be NaN far from the centre, where it is below 1e-15 anyway.
    return float(stats.nct.sf(critical, df, noncentrality) + (lower if math.isfinite(lower) else 0))


def minimum_detectable(sd: float, n: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest true mean difference a two-sided paired t-test on `n` games detects.

    Exact (noncentral t, solved with scipy's brentq) for per-game differences of spread `sd`;
    infinite below 2 games; 0 when the differences do not vary (any change shows at once).
    """
    if n < 2 or not math.isfinite(sd):
        return math.inf
    if sd == 0:
        return 0.0
    from scipy.optimize import brentq

    high = 1.0
    while t_test_power(high, n, alpha) < power:  # power grows with the effect: bracket the root
        high *= 2
    effect = brentq(lambda e: t_test_power(e, n, alpha) - power, 0.0, high, xtol=1e-12)
    return effect * sd


def games_needed(sd: float, change: float, alpha: float = ALPHA, power: float = POWER) -> int:
    """The fewest games (at least 2) whose paired t-test detects a true `change` with `power`."""
    if change <= 0:
        raise ValueError("the change to detect must be positive")
    if sd == 0:
        return 2
    stats = _scipy_stats()
    effect = change / sd
    # The normal approximation is a little low; the t test's power then settles it game by game.
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    n = max(2, math.ceil((z / effect) ** 2))
    while t_test_power(effect, n, alpha) < power:
        n += 1
    while n > 2 and t_test_power(effect, n - 1, alpha) >= power:
        n -= 1
    return n
