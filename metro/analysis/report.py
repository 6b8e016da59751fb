"""`metro compare --report FILE.html`: one self-contained HTML page with tables, words and plots.

The plots are drawn with matplotlib (the Agg backend, no display) and embedded as PNG data
URIs, so the page needs no other file. Rule-file text (game, variant and metric names)
reaches the page only through jinja2's HTML autoescaping.
"""

from __future__ import annotations

import math

from metro.analysis import pages
from metro.analysis.compare import CompareResult, table_rows
from metro.analysis.compare_records import MEASURES, is_rate
from metro.analysis.pages import environment, figure_uri, require_plots
from metro.analysis.stats import ALPHA, POWER, Difference

TEMPLATE = "report.html.jinja"


def render_report(result: CompareResult) -> str:
    """The report's HTML text."""
    plots = [
        ("Score distributions", _scores_plot(result)),
        ("Win rate by seat", _wins_plot(result)),
        ("Game length", _length_plot(result)),
    ]
    if result.skill is not None:
        plots.append(("Skill trace: does thinking more win more?", _skill_plot(result)))
    plots += [
        (f"{c.config} − base: differences", _differences_plot(c.config, c.differences))
        for c in result.comparisons
    ]
    names = table_rows(result.results)
    measures = [name for name in names if name in MEASURES]
    return (
        environment()
        .get_template(TEMPLATE)
        .render(
            result=result,
            plots=plots,
            names=names,
            measures=measures,
            fmt=pages.number,
            rate=is_rate,
            alpha=ALPHA,
            power=POWER,
        )
    )


def _scores_plot(result: CompareResult) -> str:
    pyplot = require_plots()
    figure, axes = pyplot.subplots(figsize=(7, 3.6))
    samples = [[s for r in c.records for s in r.result.scores] for c in result.results]
    low = min(min(s) for s in samples)
    high = max(max(s) for s in samples)
    bins = _bins(low, high)
    for config, scores in zip(result.results, samples, strict=True):
        axes.hist(scores, bins=bins, histtype="step", linewidth=1.6, label=config.config.label)
    axes.set_xlabel("final score (every seat of every game)")
    axes.set_ylabel("scores")
    axes.legend(fontsize="small")
    return figure_uri(figure)


def _bins(low: float, high: float, most: int = 40) -> list[float]:
    if high <= low:
        return [low - 0.5, low + 0.5]
    width = max(1.0, math.ceil((high - low) / most))
    count = math.ceil((high - low) / width) + 1
    return [low - width / 2 + i * width for i in range(count + 1)]


def _wins_plot(result: CompareResult) -> str:
    pyplot = require_plots()
    figure, axes = pyplot.subplots(figsize=(7, 3.4))
    configs = result.results
    width = 0.8 / len(configs)
    for number, config in enumerate(configs):
        seats = range(result.players)
        rates = [config.win_rate(s) for s in seats]
        intervals = [config.win_interval(s) for s in seats]
        errors = [
            [r - low for r, (low, _) in zip(rates, intervals, strict=True)],
            [high - r for r, (_, high) in zip(rates, intervals, strict=True)],
        ]
        positions = [s + (number - (len(configs) - 1) / 2) * width for s in seats]
        axes.bar(positions, rates, width, yerr=errors, capsize=3, label=config.config.label)
    axes.axhline(1 / result.players, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xticks(range(result.players), [f"seat {s + 1}" for s in range(result.players)])
    axes.set_ylabel("win rate (95% Wilson interval)")
    axes.set_ylim(0, 1)
    axes.legend(fontsize="small")
    return figure_uri(figure)


def _length_plot(result: CompareResult) -> str:
    pyplot = require_plots()
    figure, axes = pyplot.subplots(figsize=(7, 3.2))
    samples = [c.measure("game length (decisions)") for c in result.results]
    bins = _bins(min(min(s) for s in samples), max(max(s) for s in samples))
    for config, lengths in zip(result.results, samples, strict=True):
        axes.hist(lengths, bins=bins, histtype="step", linewidth=1.6, label=config.config.label)
    axes.set_xlabel("decisions per game")
    axes.set_ylabel("games")
    axes.legend(fontsize="small")
    return figure_uri(figure)


def _differences_plot(label: str, differences: list[Difference]) -> str:
    """Each difference relative to the base's mean (win rates in percentage points), with its interval."""
    pyplot = require_plots()
    shown = [d for d in differences if math.isfinite(d.low) and (d.base or is_rate(d.name))]
    figure, axes = pyplot.subplots(figsize=(7, 0.35 * len(shown) + 1.2))
    for row, d in enumerate(reversed(shown)):
        scale = 100 if is_rate(d.name) else 100 / abs(d.base)
        colour = "tab:red" if d.significant else "tab:grey"
        axes.errorbar(
            scale * d.mean,
            row,
            xerr=[[scale * (d.mean - d.low)], [scale * (d.high - d.mean)]],
            fmt="o",
            color=colour,
            capsize=3,
        )
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_yticks(
        range(len(shown)),
        [d.name + (" (pp)" if is_rate(d.name) else "") for d in reversed(shown)],
    )
    axes.set_xlabel(f"{label} − base, % of the base's mean (red: beyond the noise)")
    return figure_uri(figure)


def _skill_plot(result: CompareResult) -> str:
    """Each round's larger budget's win rate with its Wilson interval, one line per configuration."""
    pyplot = require_plots()
    plan = result.skill
    figure, axes = pyplot.subplots(figsize=(7, 3.4))
    rounds = range(plan.rounds)
    shift = 0.08  # configurations side by side, so their intervals do not hide each other
    for number, config in enumerate(result.results):
        rates = [config.skill[r].win_rate for r in rounds]
        intervals = [config.skill[r].interval for r in rounds]
        errors = [
            [rate - low for rate, (low, _) in zip(rates, intervals, strict=True)],
            [high - rate for rate, (_, high) in zip(rates, intervals, strict=True)],
        ]
        positions = [r + (number - (len(result.results) - 1) / 2) * shift for r in rounds]
        axes.errorbar(positions, rates, yerr=errors, fmt="o-", capsize=3, label=config.config.label)
    axes.axhline(1 / result.players, color="grey", linewidth=0.8, linestyle="--")
    labels = ["{1} vs {0}".format(*plan.budgets(r)) for r in rounds]
    axes.set_xticks(list(rounds), labels)
    axes.set_ylabel("larger budget's win rate (95% Wilson)")
    axes.set_ylim(0, 1)
    axes.legend(fontsize="small")
    return figure_uri(figure)
