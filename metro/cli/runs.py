"""The commands that run games between bots: simulate, playthrough and compare."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
    require_report_extra,
    rich_text,
    run_options,
    say,
    seat_bots,
    seed_value,
    show_result,
    valid_seed,
)
from runtime.values import PLAYER

if TYPE_CHECKING:  # the statistics are imported when compare runs: simulate needs none of them
    from metro.analysis.compare import CompareResult, Config
    from metro.analysis.power import Detect
    from metro.analysis.skill import SkillPlan


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
@click.option(
    "--on-map",
    "maps",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=str),
    metavar="FILE",
    help="A configuration to compare with the base: on this map file (in place of --map or the "
    "game's own). Repeatable.",
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
@click.option(
    "--detect",
    metavar="CHANGE",
    help="The smallest change that matters: '5%' of the base's mean (5 percentage points for "
    "win rates and other shares) or an amount such as '2.5' in each quantity's unit (percentage "
    "points for shares). Plays a pilot first (--pilot games, seeded SEED/pilot/i), prints the "
    "games each quantity needs to detect CHANGE (power 0.8 at α 0.05), then plays the most any "
    "quantity needs, capped by --max-games.",
)
@click.option(
    "--pilot",
    type=click.IntRange(min=2),
    default=20,
    show_default=True,
    help="Games per configuration of --detect's pilot.",
)
@click.option(
    "--plan-only",
    is_flag=True,
    help="With --detect: play the pilot, print the plan and stop.",
)
@click.option(
    "--until-decided",
    is_flag=True,
    help="With --detect, instead of a pilot: play batches of --batch games until every "
    "difference is beyond the noise or inside ±CHANGE, or --max-games is reached (each of the "
    "K looks tests at α/K).",
)
@click.option(
    "--batch",
    type=click.IntRange(min=2),
    default=20,
    show_default=True,
    help="Games per configuration in each batch of --until-decided.",
)
@click.option(
    "--max-games",
    type=click.IntRange(min=2),
    default=1000,
    show_default=True,
    help="The most games per configuration --detect's plan or --until-decided may play.",
)
@click.option(
    "--decide",
    metavar="NAME[,NAME]",
    help="Plan for, or decide, only these quantities (names as in the difference table, such "
    "as 'mean score' or 'seat 1 win rate'); default every one.",
)
def compare_command(
    path: str,
    variants,
    expansions,
    map_path,
    maps,
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
    detect: str | None,
    pilot: int,
    plan_only: bool,
    until_decided: bool,
    batch: int,
    max_games: int,
    decide: str | None,
) -> None:
    """Play the base game and each variant or expansion on the same seeds, and compare them.

    Reports win rates by seat, draws, scores, margins, game length, branching, the lead by the
    game's estimate and the game's metrics per configuration (docs/compare.md defines them), and
    each configuration's differences from the base with 95% intervals, paired tests and the
    smallest difference the games could have detected, in words. --detect plans how many games
    are needed; --until-decided plays batches until each difference is decided.
    """
    # Here, not at the top: simulate needs none of the statistics.
    from metro.analysis.compare import configurations
    from metro.analysis.compare_view import print_comparison, print_plan
    from metro.analysis.power import Detect, OptionError
    from metro.analysis.skill import SkillPlan
    from metro.analysis.stats import ScipyMissing

    if not variants and not expansions and not maps:
        raise click.UsageError(
            "name at least one configuration: --variant NAME, --with NAME or --on-map FILE"
        )
    _skill_options_need_the_trace(skill_trace)
    _power_options_fit(detect, plan_only, until_decided, report)
    try:
        change = None if detect is None else Detect.parse(detect)
    except OptionError as error:
        raise click.UsageError(str(error)) from None
    chosen = _names_to_decide(decide)
    skill = SkillPlan(skill_budget, skill_rounds, skill_games) if skill_trace else None
    try:
        configs = configurations(variants, expansions, maps)
        if skill is not None:
            skill.check()
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    require_report_extra(report)
    game, players = load_with_players(path, (), (), map_path, players)
    specs = seat_bots(game, bot, bots, players, "player")
    run = _CompareRun(
        path, players, seed, specs, configs, map_path, jobs, dask, stall, skill, as_json, chosen
    )
    try:
        if change is None:
            result = run.fixed(games)
        elif until_decided:
            result = run.until_decided(change, batch, max_games)
        else:
            result = run.planned(change, pilot, max_games, plan_only)
    except (ScipyMissing, OptionError) as error:
        raise click.UsageError(str(error)) from None
    if plan_only:
        if as_json:
            say(json.dumps(result.to_dict()))
        else:
            print_plan(result.plan, Console(highlight=False))
        return
    show_result(result, as_json, report, _rendered, print_comparison)


def _rendered(result) -> str:
    from metro.analysis.report import render_report  # jinja2, matplotlib

    return render_report(result)


@dataclass
class _CompareRun:
    """What every kind of comparison run shares: the game, its configurations, bots and workers."""

    path: str
    players: int
    seed: str
    bots: list[str]
    configs: list[Config]
    map_path: str | None
    jobs: int
    dask: str | None
    stall: float
    skill: SkillPlan | None
    hidden: bool  # no progress bar or plan on the terminal (--json)
    decide: tuple[str, ...]

    def _extra(self) -> int:
        """The skill trace's games per configuration."""
        return 0 if self.skill is None else self.skill.rounds * self.skill.games

    def fixed(self, games: int, detect: Detect | None = None) -> CompareResult:
        """`games` games per configuration."""
        from metro.analysis.compare import compare

        total = (games + self._extra()) * len(self.configs)
        with progress_bar("comparing", total, self.hidden) as advance:
            return compare(
                self.path,
                self.players,
                games,
                self.seed,
                self.bots,
                self.configs,
                self.map_path,
                self.jobs,
                self.dask,
                advance,
                self.stall,
                self.skill,
                detect,
            )

    def planned(self, detect: Detect, pilot: int, max_games: int, plan_only: bool) -> CompareResult:
        """A pilot and its plan; then, unless `plan_only`, the games the plan asks for."""
        from metro.analysis.compare import plan_games
        from metro.analysis.compare_view import print_plan

        with progress_bar("pilot", pilot * len(self.configs), self.hidden) as advance:
            trial = plan_games(
                self.path,
                self.players,
                self.seed,
                self.bots,
                self.configs,
                detect,
                pilot,
                max_games,
                self.decide,
                self.map_path,
                self.jobs,
                self.dask,
                advance,
                self.stall,
            )
        if plan_only:
            return trial
        if not self.hidden:  # the plan first, as the main run may take long
            print_plan(trial.plan, Console(highlight=False))
        result = self.fixed(trial.plan.games, detect)
        result.plan = trial.plan
        return result

    def until_decided(self, detect: Detect, batch: int, max_games: int) -> CompareResult:
        """Batches until every chosen difference is decided, or `max_games`."""
        from metro.analysis.compare import compare_until_decided
        from metro.analysis.power import Design

        total = (max_games + self._extra()) * len(self.configs)
        with progress_bar("comparing", total, self.hidden) as advance:
            return compare_until_decided(
                self.path,
                self.players,
                self.seed,
                self.bots,
                self.configs,
                Design(batch, max_games),
                detect,
                self.decide,
                self.map_path,
                self.jobs,
                self.dask,
                advance,
                self.stall,
                self.skill,
            )


def _power_options_fit(
    detect: str | None, plan_only: bool, until_decided: bool, report: str | None
) -> None:
    """A usage error when the options for how many games contradict or would do nothing."""
    context = click.get_current_context()

    def given(name: str) -> bool:
        return context.get_parameter_source(name) is ParameterSource.COMMANDLINE

    if detect is None:
        for name in ("pilot", "plan_only", "until_decided", "max_games", "decide"):
            if given(name):
                option = "--" + name.replace("_", "-")
                raise click.UsageError(f"{option} needs --detect CHANGE (the change that matters)")
    if given("games") and detect is not None:
        raise click.UsageError(
            "--detect chooses the number of games: cap it with --max-games instead of --games"
        )
    if plan_only and (until_decided or report is not None):
        raise click.UsageError(
            "--plan-only plays only the pilot: leave out --until-decided and --report"
        )
    if given("batch") and not until_decided:
        raise click.UsageError("--batch sets --until-decided's batches: add --until-decided")
    if given("pilot") and until_decided:
        raise click.UsageError("--until-decided plays no pilot: leave out --pilot")


def _names_to_decide(text: str | None) -> tuple[str, ...]:
    """--decide's quantity names (commas separate them)."""
    if text is None:
        return ()
    names = tuple(n.strip() for n in text.split(","))
    if not all(names):
        raise click.UsageError(f"--decide '{text}' names an empty quantity")
    return names


def _skill_options_need_the_trace(asked: bool) -> None:
    """A usage error when a skill-trace option is given without --skill-trace (it would do nothing)."""
    context = click.get_current_context()
    for name in ("skill_rounds", "skill_budget", "skill_games"):
        if not asked and context.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            option = "--" + name.replace("_", "-")
            raise click.UsageError(f"{option} sets the skill trace: add --skill-trace")
