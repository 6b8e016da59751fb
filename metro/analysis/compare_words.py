"""`metro compare`'s differences in words: what changed beyond the noise, what did not, and
whether the games were enough to tell."""

from __future__ import annotations

import math

from metro.analysis.compare_records import MEASURES, is_rate
from metro.analysis.power import Detect
from metro.analysis.skill import SKILL_PREFIX
from metro.analysis.stats import ALPHA, POWER, Difference


def describe(label: str, differences: list[Difference], detect: Detect | None = None) -> list[str]:
    """The differences in words: what changed beyond the noise, then what did not, and whether
    the games were enough to tell (the change `detect` asks for, else the smallest detectable)."""
    changed = [d for d in differences if d.significant]
    same = [d for d in differences if not d.significant and not d.identical]
    identical = [d for d in differences if d.identical]
    words = []
    for d in changed:
        verb = "raises" if d.mean > 0 else "lowers"
        words.append(
            f"{label} {verb} the {_what(d.name)} by {_amount(d, abs(d.mean))} "
            f"(from {_value(d, d.base)} to {_value(d, d.other)}; {p_text(d.adjusted_p)})."
        )
    if same:
        listed = ", ".join(f"{_what(d.name)} ({_amount(d, d.mean, signed=True)})" for d in same)
        words.append(f"Unchanged within the noise: {listed}.")
        words += _detectable_words(same, detect)
    if identical:
        words.append(f"The same in every game: {', '.join(_what(d.name) for d in identical)}.")
    if not changed:
        words.insert(0, f"{label} changes nothing measured beyond the noise.")
    return words


def _detectable_words(same: list[Difference], detect: Detect | None) -> list[str]:
    """Whether the games could have seen a change: a run too small to tell says so plainly."""
    games = max(d.n for d in same)
    could = (
        f"{games} games could only have detected (power {POWER:.0%} at α = {ALPHA:g}) a change of"
    )
    if detect is None:
        return [f"But {could} {', '.join(_detectable(d, games) for d in same)}."]
    small, enough = [], []
    for d in same:
        threshold = detect.threshold(d.base, _is_rate(d))
        (enough if threshold is not None and d.detectable <= threshold else small).append(d)
    words = []
    if small:
        listed = ", ".join(f"{_detectable(d, games)} (asked: {_size(d, detect)})" for d in small)
        words.append(f"Too small to tell: {could} {listed}.")
    if enough:
        listed = ", ".join(_what(d.name) for d in enough)
        words.append(
            f"Enough games to have detected the asked change ({detect.text}) in: {listed}."
        )
    return words


def _detectable(d: Difference, games: int) -> str:
    """'12 or more in the mean score': the smallest change these games detect."""
    where = f"in the {_what(d.name)}"
    if d.n != games:  # a measure some games lack (decisiveness after a shared win)
        where += f" (over its {d.n} games)"
    if not math.isfinite(d.detectable):
        return f"no finite size {where}"
    scale, unit = (100, " percentage points") if _is_rate(d) else (1, "")
    return f"{scale * d.detectable:.2g}{unit} or more {where}"


def _size(d: Difference, detect: Detect) -> str:
    """The change `detect` asks for this quantity, in its unit."""
    threshold = detect.threshold(d.base, _is_rate(d))
    if threshold is None:
        return f"{detect.text} of a mean of 0"
    if _is_rate(d):
        return f"{100 * threshold:.2g} percentage points"
    return f"{threshold:.3g}" + (f", {detect.text} of {d.base:.3g}" if detect.relative else "")


def p_text(p: float) -> str:
    """A p-value in words; one too small for a float is said to be so."""
    return "p < 1e-300" if p == 0 else f"p = {p:.2g}"


def _what(name: str) -> str:
    if name == "seat 1 win rate":
        return "first seat's win rate (first-player advantage)"
    if name.startswith("seat "):
        return f"seat {name.split()[1]}'s win rate"
    if name in MEASURES:
        return name
    if name.startswith(SKILL_PREFIX):  # "skill: LARGE vs SMALL win rate"
        large, _, small = (
            name.removeprefix(SKILL_PREFIX).removesuffix(" win rate").partition(" vs ")
        )
        return f"win rate of {large} against {small} (skill trace)"
    return f"'{name}' per player"


def _is_rate(d: Difference) -> bool:
    return is_rate(d.name)


def _amount(d: Difference, value: float, signed: bool = False) -> str:
    """A difference and its ± half interval, in percentage points for a win rate."""
    scale, unit = (100, " percentage points") if _is_rate(d) else (1, "")
    number = f"{scale * value:+.3g}" if signed else f"{scale * value:.3g}"
    return f"{number} ± {scale * d.half_width:.2g}{unit}"


def _value(d: Difference, value: float) -> str:
    return f"{100 * value:.1f}%" if _is_rate(d) else f"{value:.3g}"
