"""The commands that run games between bots: simulate, playthrough and compare."""

from __future__ import annotations

import json

import click
from click.core import ParameterSource
from rich.console import Console
from rich.table import Table

from metro.analysis.simulate import SimulationStats, simulate
from metro.cli.options import (
    BOT_OPTION,
    BOTS_OPTION,
    GAME_PATH,
    PLAYERS_OPTION,
    Failure,
    chosen_bot,
    game_options,
    load_with_players,
    plural,
    progress_bar,
    rich_text,
    run_options,
    say,
    seat_bots,
    seed_value,
    valid_seed,
)
from runtime.values import PLAYER


@click.command("simulate")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@PLAYERS_OPTION
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="How many games to play.",
)
@click.option(
    "--seed",
    default="1",
    show_default=True,
    help="Base seed: game i is seeded with SEED/i.",
    callback=valid_seed,
)
@BOT_OPTION
@BOTS_OPTION
@run_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
@game_options
def simulate_command(
    path: str,
    players,
    games: int,
    seed: str,
    bot,
    bots,
    jobs: int,
    dask: str | None,
    stall: float,
    as_json: bool,
    variants,
    expansions,
    map_path,
) -> None:
    """Play seeded bot games; report wins, scores and speed."""
    game, players = load_with_players(path, variants, expansions, map_path, players)
    specs = seat_bots(game, bot, bots, players, "player")
    with progress_bar("simulating", games, as_json) as advance:
        stats = simulate(
            path,
            players,
            games,
            seed,
            variants=variants,
            expansions=expansions,
            map=map_path,
            jobs=jobs,
            progress=advance,
            bots=specs,
            dask=dask,
            stall=stall,
        )
    where = f"Dask at {dask}" if dask else plural(jobs, "job")
    if as_json:
        summary = stats.to_dict() | {
            "variants": list(variants),
            "expansions": list(expansions),
            "jobs": jobs,
            "dask": dask,
        }
        say(json.dumps(summary))
    else:
        _print_stats(stats, where)


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def _print_stats(stats: SimulationStats, where: str) -> None:
    table = Table(
        title=f"{rich_text(stats.game)}: {plural(stats.games, 'game')}, {stats.players} players",
        caption=f"seed {rich_text(stats.seed)}, {rich_text(stats.bot)} bots",
    )
    for heading in ("Seat", "Wins", "Win rate", "95% interval", "Mean score"):
        table.add_column(heading, justify="left" if heading == "Seat" else "right")
    for seat in range(stats.players):
        low, high = stats.win_interval(seat)
        table.add_row(
            PLAYER.label(seat),
            _number(stats.wins[seat]),
            f"{stats.win_rate(seat):.1%}",
            f"{low:.1%} - {high:.1%}",
            f"{stats.mean_scores[seat]:,.2f}",
        )
    console = Console(highlight=False)
    console.print(table)
    console.print(f"Mean decisions per game: {stats.mean_decisions:,.1f}")
    console.print(
        f"Speed: {stats.games_per_second:,.1f} games/s, {stats.decisions_per_second:,.0f} "
        f"decisions/s ({stats.seconds:.2f} s, {where})"
    )
    if stats.unfinished:
        console.print(f"Unfinished games (nobody could move): {stats.unfinished}")


@click.command("playthrough")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@PLAYERS_OPTION
@click.option(
    "--seed", default="1", show_default=True, help="Seed of the game.", callback=valid_seed
)
@BOT_OPTION
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=str),
    help="Write the transcript to this file (the golden file) instead of printing it.",
)
@game_options
def playthrough_command(
    path: str, players, seed: str, bot, output, variants, expansions, map_path
) -> None:
    """Print (or write) the deterministic transcript of one seeded game, for golden-file tests."""
    from metro.analysis.playthrough import transcript  # here: simulate needs none of it

    game, players = load_with_players(path, variants, expansions, map_path, players)
    text = transcript(game, players, seed_value(seed), chosen_bot(game, bot))
    if output is None:
        say(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise Failure(f"error: cannot write {output}: {error.strerror or error}") from None


# What testgen writes into its output directory: a name ending so names a file, not a directory.


@click.command("compare")
@click.argument("path", type=GAME_PATH, metavar="GAME")
@click.option(
    "--variant",
    "variants",
    multiple=True,
    metavar="NAME[,NAME]",
    help="A configuration to compare with the base: this variant (commas: several at once). "
    "Repeatable.",
)
@click.option(
    "--with",
    "expansions",
    multiple=True,
    metavar="EXPANSION[,…]",
    help="A configuration to compare with the base: with this expansion. Repeatable.",
)
@click.option(
    "--map",
    "map_path",
    type=click.Path(exists=True, dir_okay=False, path_type=str),
    help="Play every configuration on this map file.",
)
@PLAYERS_OPTION
@click.option(
    "--games",
    type=click.IntRange(min=2),
    default=100,
    show_default=True,
    help="Games per configuration.",
)
@click.option(
    "--seed",
    default="1",
    show_default=True,
    help="Base seed: game i of every configuration is seeded with SEED/i.",
    callback=valid_seed,
)
@BOT_OPTION
@BOTS_OPTION
@run_options
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object (schemas/compare.schema.json) with every game's record.",
)
@click.option(
    "--report",
    type=click.Path(dir_okay=False, path_type=str),
    metavar="FILE.html",
    help="Also write a self-contained HTML report with plots (needs the report extra).",
)
@click.option(
    "--skill-trace",
    is_flag=True,
    help="Also play each configuration's skill trace: mcts at a budget against twice it, "
    "doubled over rounds (costly).",
)
@click.option(
    "--skill-rounds",
    type=click.IntRange(min=1, max=8),
    default=3,
    show_default=True,
    help="Rounds of the skill trace.",
)
@click.option(
    "--skill-budget",
    type=click.IntRange(min=1),
    default=25,
    show_default=True,
    help="The skill trace's first budget (mcts iterations): round r plays 2^r and 2^(r+1) times it.",
)
@click.option(
    "--skill-games",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="Games per round and configuration of the skill trace.",
)
def compare_command(
    path: str,
    variants,
    expansions,
    map_path,
    players,
    games: int,
    seed: str,
    bot,
    bots,
    jobs: int,
    dask: str | None,
    stall: float,
    as_json: bool,
    report: str | None,
    skill_trace: bool,
    skill_rounds: int,
    skill_budget: int,
    skill_games: int,
) -> None:
    """Play the base game and each variant or expansion on the same seeds, and compare them.

    Reports win rates by seat, draws, scores, margins, game length, branching, the lead by the
    game's estimate and the game's metrics per configuration (docs/compare.md defines them), and
    each configuration's differences from the base with 95% intervals and paired tests, in words.
    """
    # Here, not at the top: simulate needs none of the statistics.
    from metro.analysis.compare import compare, configurations
    from metro.analysis.compare_view import print_comparison
    from metro.analysis.skill import SkillPlan
    from metro.analysis.stats import ScipyMissing

    if not variants and not expansions:
        raise click.UsageError("name at least one configuration: --variant NAME or --with NAME")
    _skill_options_need_the_trace(skill_trace)
    skill = SkillPlan(skill_budget, skill_rounds, skill_games) if skill_trace else None
    try:
        configs = configurations(variants, expansions)
        if skill is not None:
            skill.check()
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    if report is not None:
        from metro.analysis.pages import PlotsMissing, require_plots  # jinja2, matplotlib
        from metro.analysis.report import write_report

        try:
            require_plots()
        except PlotsMissing as error:
            raise click.UsageError(str(error)) from None
    game, players = load_with_players(path, (), (), map_path, players)
    specs = seat_bots(game, bot, bots, players, "player")
    total = games + (0 if skill is None else skill.rounds * skill.games)
    try:
        with progress_bar("comparing", total * len(configs), as_json) as advance:
            result = compare(
                path,
                players,
                games,
                seed,
                specs,
                configs,
                map_path,
                jobs,
                dask,
                advance,
                stall,
                skill,
            )
    except ScipyMissing as error:
        raise click.UsageError(str(error)) from None
    if report is not None:
        try:
            write_report(result, report)
        except OSError as error:
            raise Failure(f"error: cannot write {report}: {error.strerror or error}") from None
    if as_json:
        say(json.dumps(result.to_dict()))
    else:
        print_comparison(result, Console(highlight=False))
        if report is not None:
            say(f"report: {report}")


def _skill_options_need_the_trace(asked: bool) -> None:
    """A usage error when a skill-trace option is given without --skill-trace (it would do nothing)."""
    context = click.get_current_context()
    for name in ("skill_rounds", "skill_budget", "skill_games"):
        if not asked and context.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            option = "--" + name.replace("_", "-")
            raise click.UsageError(f"{option} sets the skill trace: add --skill-trace")
