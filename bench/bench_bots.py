"""Strength of bots, rated in tournaments: per game, each bot's rating with its interval and its time.

Run from the repository root, e.g.
`python bench/bench_bots.py ticket_to_ride tokyo_metro --bots random,greedy,mcts --deals 10
[--players 2] [--seed 1] [--jobs 2] [--with drinks] [--json]`.
Each game is a `metro tournament` (metro/analysis/tournament.py): every table of PLAYERS bots
plays DEALS deals, deal d seeded `SEED/d`, each in every seat rotation; ratings are
Bradley–Terry on the Elo scale (mean 0) with 95% bootstrap intervals over the deals. Prints, per
game, one line per bot (rating, interval, win rate, CPU milliseconds per decision, and the mean of
each metric named with `--metric`) and the wall-clock seconds per game; `--json` prints one
object per game instead. (Before 2026-12-05 this script played two bots with seats alternating,
game i seeded `SEED/i`: the strength tables in docs/bots.md measured before then were made so,
with commit 99af10c's version.)
"""

from __future__ import annotations

import json
import sys

import click

from loader.games import game_path
from metro.analysis.tournament import tournament


@click.command()
@click.argument("games", nargs=-1, required=True)
@click.option("--bots", required=True, help="The bots to rate, e.g. random,greedy,mcts:100.")
@click.option("--deals", type=click.IntRange(min=2), default=10, show_default=True)
@click.option("--players", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--seed", default="1", show_default=True)
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--with", "expansions", multiple=True, help="An expansion (repeatable).")
@click.option("--metric", "metrics", multiple=True, help="A declared metric to show per bot.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game.")
def main(games, bots, deals, players, seed, jobs, expansions, metrics, as_json) -> None:
    """Rate BOTS in a tournament of each of GAMES."""
    specs = [spec.strip() for spec in bots.split(",")]
    for name in games:
        result = tournament(
            game_path(name), players, specs, deals, seed, expansions=expansions, jobs=jobs
        )
        unknown = [m for m in metrics if m not in result.metric_names]
        if unknown:
            raise click.BadParameter(f"{result.game} declares no metric {unknown[0]!r}")
        per_game = result.seconds / len(result.matches)
        if as_json:
            click.echo(json.dumps(result.to_dict(records=False) | {"seconds_per_game": per_game}))
            continue
        click.echo(
            f"{result.game}: {len(result.matches)} games ({len(result.tables)} tables x "
            f"{deals} deals x {players} rotations), {per_game:.2f} s a game ({jobs} jobs)"
        )
        for b in result.by_rating():
            rating, standing = result.ratings[b], result.standings[b]
            shown = "".join(
                f", {m} {standing.metric_totals.get(m, 0) / standing.games:.2f}" for m in metrics
            )
            per_decision = 1000 * standing.seconds / max(standing.decisions, 1)
            click.echo(
                f"  {rating.bot:>14} {rating.elo:+6.0f} ({rating.low:+.0f} … {rating.high:+.0f}), "
                f"wins {standing.win_rate():.0%}, {per_decision:.3g} ms a decision{shown}"
            )


if __name__ == "__main__":
    sys.exit(main())
