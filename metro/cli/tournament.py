"""The `tournament` command: bots rated against each other on the same deals."""

from __future__ import annotations

import click

from metro.cli.options import (
    GAME_PATH,
    PLAYERS_OPTION,
    chosen_bot,
    game_options,
    load_with_players,
    progress_bar,
    require_report_extra,
    run_options,
    show_result,
    valid_seed,
)


@click.command("tournament")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@PLAYERS_OPTION
@click.option(
    "--bots",
    required=True,
    metavar="A,B,...",
    help="The bots to rate, at least two (e.g. random,greedy,mcts:100).",
)
@click.option(
    "--games",
    "deals",
    type=click.IntRange(min=2),
    default=20,
    show_default=True,
    help="Deals per table; each is played once in every seat rotation.",
)
@click.option(
    "--seed",
    default="1",
    show_default=True,
    help="Base seed: deal d of every table is seeded with SEED/d.",
    callback=valid_seed,
)
@run_options
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (schemas/tournament.schema.json) with every game's record.",
)
@click.option(
    "--report",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="FILE.html",
    help="Also write a self-contained HTML report with a plot (needs the report extra).",
)
@game_options
def tournament_command(
    path: str,
    players,
    bots: str,
    deals: int,
    seed: str,
    jobs: int,
    dask: str | None,
    stall: float,
    as_json: bool,
    report: str | None,
    variants,
    expansions,
    map_path,
) -> None:
    """Play every table of PLAYERS bots on the same deals, seats rotated, and rate the bots.

    With two players every pair of bots plays; with more, every set of that many (with fewer
    bots than seats, one table seats them in turn). Ratings are Bradley–Terry on the Elo
    scale with 95% bootstrap intervals over the deals.
    """
    # Here, not at the top: the other commands need none of it.
    from metro.analysis.tournament import tables, tournament
    from metro.analysis.tournament_view import print_tournament

    require_report_extra(report)
    game, players = load_with_players(path, variants, expansions, map_path, players)
    specs = [chosen_bot(game, spec.strip(), "--bots") for spec in bots.split(",")]
    try:
        planned = tables(specs, players)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--bots'") from None
    with progress_bar("playing", len(planned) * deals * players, as_json) as advance:
        result = tournament(
            path,
            players,
            specs,
            deals,
            seed,
            variants,
            expansions,
            map_path,
            jobs,
            dask,
            advance,
            stall,
        )
    show_result(result, as_json, report, _rendered, print_tournament)


def _rendered(result) -> str:
    from metro.analysis.tournament_report import render_report  # jinja2, matplotlib

    return render_report(result)
