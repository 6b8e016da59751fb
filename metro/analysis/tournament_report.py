"""`metro tournament --report FILE.html`: the ratings, records and pairwise results on one page.

The ratings plot is drawn with matplotlib (through `metro.analysis.report`) and embedded as a
PNG data URI, so the page needs no other file; bot, game and metric names reach it only
through jinja2's HTML autoescaping.
"""

from __future__ import annotations

from metro.analysis.pages import environment, figure_uri, number, require_plots
from metro.analysis.tournament import TournamentResult
from metro.analysis.tournament_view import separated

TEMPLATE = "tournament.html.jinja"


def render_report(result: TournamentResult) -> str:
    """The report's HTML text."""
    return (
        environment()
        .get_template(TEMPLATE)
        .render(
            result=result,
            order=result.by_rating(),
            apart=separated(result),
            plot=_ratings_plot(result),
            fmt=number,
        )
    )


def _ratings_plot(result: TournamentResult) -> str:
    """Each bot's rating with its 95% interval, best at the top."""
    pyplot = require_plots()
    order = list(reversed(result.by_rating()))
    figure, axes = pyplot.subplots(figsize=(7, 0.45 * len(order) + 1.2))
    for row, b in enumerate(order):
        rating = result.ratings[b]
        axes.errorbar(
            rating.elo,
            row,
            xerr=[[rating.elo - rating.low], [rating.high - rating.elo]],
            fmt="o",
            capsize=4,
            color="tab:blue",
        )
    axes.axvline(0, color="grey", linewidth=0.8, linestyle="--")
    axes.set_yticks(range(len(order)), [result.bots[b] for b in order])
    axes.set_xlabel("rating (Elo scale, mean 0) with its 95% bootstrap interval")
    return figure_uri(figure)
