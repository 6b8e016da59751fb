"""Ratings of bots from pairwise results: a Bradley–Terry fit on the Elo scale, with bootstrap intervals.

A game between several seats counts as one contest between every two seats of different bots:
the better place wins it, an equal place is half a win to each (tables of more than two
players give several contests per game). The Bradley–Terry model puts each bot's chance of
beating another at `p_a / (p_a + p_b)`; its maximum-likelihood strengths come from Hunter's
minorisation–maximisation iteration (Hunter 2004, "MM algorithms for generalized
Bradley–Terry models"), and a rating is `400 · log10(p)`, the Elo scale (200 points apart: a
76% chance; 400: 91%), the ratings' mean being 0. One drawn contest between every two bots that
met is added before fitting, so a bot that won every contest still has a finite rating.

Intervals resample the independent units (the deals: every game played on one seed, in every
table and seat rotation, goes together) with replacement and fit again, the 2.5% and 97.5%
quantiles of a bot's rating over the resamples bounding it; the resampling draws from a
generator seeded by the caller, so the same results give the same intervals. A bootstrap over a
few deals that all went one way has no spread at all, so each side of the interval is at least
as wide as the model's own (1.96 standard errors from the Fisher information of the fit, as if
every contest were independent): the wider of the two.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

ELO_SCALE = 400 / math.log(10)  # rating points per unit of log-strength
PRIOR_TIES = 1  # drawn contests added between every two bots that met
RESAMPLES = 1000  # bootstrap resamples of the deals
LEVEL = 0.95
Z = 1.959964  # the normal quantile of LEVEL
TOLERANCE = 1e-10  # the fit stops when no log-strength moves by more than this
MAX_ITERATIONS = 10_000


@dataclass(frozen=True)
class Rating:
    """A bot's rating on the Elo scale and its 95% interval."""

    bot: str
    elo: float
    low: float
    high: float

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {"bot": self.bot, "elo": self.elo, "low": self.low, "high": self.high}


class Tally:
    """Wins of each bot over each other (`wins[a][b]`: contests a won against b; a tie is ½ each)."""

    def __init__(self, bots: int):
        self.bots = bots
        self.wins = [[0.0] * bots for _ in range(bots)]

    def add(self, first: int, second: int, first_place: int, second_place: int) -> None:
        """Count one contest between two bots from their places (1 = best)."""
        if first_place < second_place:
            self.wins[first][second] += 1
        elif second_place < first_place:
            self.wins[second][first] += 1
        else:
            self.wins[first][second] += 0.5
            self.wins[second][first] += 0.5

    def merge(self, other: Tally, times: int = 1) -> None:
        """Add another tally's contests, `times` over."""
        for mine, theirs in zip(self.wins, other.wins, strict=True):
            for b, count in enumerate(theirs):
                if count:
                    mine[b] += times * count

    def contests(self, a: int, b: int) -> float:
        """How many contests a and b had."""
        return self.wins[a][b] + self.wins[b][a]


def fit(tally: Tally) -> list[float]:
    """Each bot's rating (Elo scale, mean 0) by maximum likelihood, with the prior ties added."""
    return [ELO_SCALE * math.log(s) for s in _strengths(_with_prior(tally))]


def _with_prior(tally: Tally) -> list[list[float]]:
    """The wins with PRIOR_TIES drawn contests added between every two bots that met."""
    k = tally.bots
    return [
        [
            tally.wins[a][b] + (PRIOR_TIES / 2 if a != b and tally.contests(a, b) else 0.0)
            for b in range(k)
        ]
        for a in range(k)
    ]


def _strengths(won: list[list[float]]) -> list[float]:
    """The maximum-likelihood strengths (geometric mean 1) by Hunter's MM iteration."""
    k = len(won)
    games = [[won[a][b] + won[b][a] for b in range(k)] for a in range(k)]
    total_won = [sum(row) for row in won]
    strength = [1.0] * k
    for _ in range(MAX_ITERATIONS):
        new = []
        for a in range(k):
            denominator = sum(
                games[a][b] / (strength[a] + strength[b])
                for b in range(k)
                if b != a and games[a][b]
            )
            new.append(total_won[a] / denominator if denominator else strength[a])
        # Fixed scale: the geometric mean of the strengths is 1 (the ratings' mean is 0).
        centre = sum(math.log(s) for s in new) / k
        new = [s / math.exp(centre) for s in new]
        moved = max(abs(math.log(n / s)) for n, s in zip(new, strength, strict=True))
        strength = new
        if moved < TOLERANCE:
            break
    return strength


def standard_errors(tally: Tally) -> list[float]:
    """Each rating's standard error (Elo points) from the fit's Fisher information, contests
    taken as independent, the ratings' mean held at 0."""
    won = _with_prior(tally)
    return _errors(won, _strengths(won))


def _errors(won: list[list[float]], strength: list[float]) -> list[float]:
    """`standard_errors` of a fit already made: its wins (prior included) and strengths."""
    k = len(won)
    # The information of the log-strengths: a weighted graph Laplacian (rows sum to 0). Under
    # the constraint that they sum to 0, their covariance is its pseudo-inverse,
    # (L + J/k)^-1 - J/k for a connected graph (J: all ones).
    laplacian = [[0.0] * k for _ in range(k)]
    for a in range(k):
        for b in range(k):
            contests = won[a][b] + won[b][a]
            if a != b and contests:
                p = strength[a] / (strength[a] + strength[b])
                laplacian[a][b] -= contests * p * (1 - p)
                laplacian[a][a] += contests * p * (1 - p)
    shifted = [[laplacian[a][b] + 1 / k for b in range(k)] for a in range(k)]
    inverse = _inverse(shifted)
    return [ELO_SCALE * math.sqrt(max(inverse[a][a] - 1 / k, 0.0)) for a in range(k)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a small non-singular matrix (Gauss–Jordan with partial pivoting)."""
    k = len(matrix)
    rows = [row[:] + [float(a == b) for b in range(k)] for a, row in enumerate(matrix)]
    for column in range(k):
        pivot = max(range(column, k), key=lambda r: abs(rows[r][column]))
        rows[column], rows[pivot] = rows[pivot], rows[column]
        lead = rows[column][column]
        rows[column] = [x / lead for x in rows[column]]
        for r in range(k):
            if r != column and rows[r][column]:
                factor = rows[r][column]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[column], strict=True)]
    return [row[k:] for row in rows]


def rate(
    bots: Sequence[str], deals: Sequence[Tally], seed: str, resamples: int = RESAMPLES
) -> list[Rating]:
    """The bots' ratings from every deal's tally, with bootstrap intervals over the deals."""
    whole = Tally(len(bots))
    for deal in deals:
        whole.merge(deal)
    won = _with_prior(whole)
    strength = _strengths(won)
    point = [ELO_SCALE * math.log(s) for s in strength]
    rng = random.Random(f"{seed}/ratings")
    samples: list[list[float]] = [[] for _ in bots]
    if len(deals) > 1:
        for _ in range(resamples):
            counts = [0] * len(deals)
            for _ in deals:
                counts[int(rng.random() * len(deals))] += 1
            resampled = Tally(len(bots))
            for deal, times in zip(deals, counts, strict=True):
                if times:
                    resampled.merge(deal, times)
            for bot, elo in enumerate(fit(resampled)):
                samples[bot].append(elo)
    errors = _errors(won, strength)
    ratings = []
    for bot, (name, elo) in enumerate(zip(bots, point, strict=True)):
        low, high = _quantiles(samples[bot]) if samples[bot] else (elo, elo)
        spread = Z * errors[bot]
        ratings.append(Rating(name, elo, min(low, elo - spread), max(high, elo + spread)))
    return ratings


def _quantiles(values: list[float]) -> tuple[float, float]:
    """The interval holding LEVEL of the values (nearest-rank quantiles)."""
    ordered = sorted(values)
    tail = (1 - LEVEL) / 2
    last = len(ordered) - 1
    return ordered[round(tail * last)], ordered[round((1 - tail) * last)]
