"""`metro compare` on a terminal: rich tables of each configuration and each comparison, and the words."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from dsl.terminal import printable
from metro.analysis.compare import CompareResult, table_rows
from metro.analysis.compare_records import MEASURES, SCORES, is_rate
from metro.analysis.power import UNDECIDED, Plan, Sequential
from metro.analysis.stats import ALPHA, POWER, Difference, Summary


def _rich(text: str) -> str:
    return escape(printable(text))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def print_comparison(result: CompareResult, console: Console) -> None:
    """Win rates by seat, per-game summaries, then each configuration against the base."""
    bots = result.bots[0] if len(set(result.bots)) == 1 else ",".join(result.bots)
    console.print(
        f"[bold]{_rich(result.game)}[/bold]: {result.players} players, "
        f"{_plural(result.games, 'game')} per configuration on the same seeds "
        f"(seed {_rich(result.seed)}), {_rich(bots)} bots"
    )
    console.print(_win_table(result))
    console.print(_summary_table(result))
    console.print(_interval_table(result))
    if result.skill is not None:
        console.print(_skill_table(result))
    if result.sequential is not None:
        print_sequential(result.sequential, console)
    for comparison in result.comparisons:
        console.print(_difference_table(comparison.config, comparison.differences))
        for sentence in comparison.words:
            console.print(_rich(sentence))
        console.print()
    unfinished = [r for r in result.results if r.finished < len(r.records)]
    for r in unfinished:
        console.print(
            f"{_rich(r.config.label)}: {len(r.records) - r.finished} unfinished games "
            "(nobody could move; they count as no one's win)"
        )
    console.print(f"{result.seconds:.1f} s")


def _win_table(result: CompareResult) -> Table:
    table = Table(title="Win rate by seat (95% Wilson interval)")
    table.add_column("configuration")
    for seat in range(result.players):
        table.add_column(f"seat {seat + 1}", justify="right")
    for r in result.results:
        cells = []
        for seat in range(result.players):
            low, high = r.win_interval(seat)
            cells.append(f"{r.win_rate(seat):.1%} ({low:.0%}–{high:.0%})")
        table.add_row(_rich(r.config.label), *cells)
    return table


def _summary_table(result: CompareResult) -> Table:
    table = Table(title="Per game: mean ± sd (median; 10%–90%)")
    table.add_column("")
    for r in result.results:
        table.add_column(_rich(r.config.label), justify="right")
    for name in table_rows(result.results):
        label = name if name == SCORES or name in MEASURES else f"{name} (per player)"
        table.add_row(_rich(label), *(_summary_cell(r.summary(name)) for r in result.results))
    return table


def _interval_table(result: CompareResult) -> Table:
    """Each measure's mean per game with its 95% interval (Wilson for draws, t for the others)."""
    table = Table(title="Per game: mean (95% interval)")
    table.add_column("")
    for r in result.results:
        table.add_column(_rich(r.config.label), justify="right")
    for name in table_rows(result.results):
        if name not in MEASURES:
            continue
        cells = []
        for r in result.results:
            if not r.defined(name):
                cells.append("—")
                continue
            mean, low, high = r.interval(name)
            rate = is_rate(name)
            finite = high != float("inf")
            span = f" ({_cell(low, rate)}–{_cell(high, rate)})" if finite else ""
            cells.append(_cell(mean, rate) + span)
        table.add_row(_rich(name), *cells)
    return table


def _skill_table(result: CompareResult) -> Table:
    """Each round's larger budget's win rate with its Wilson interval, per configuration."""
    players = result.players
    table = Table(
        title="Skill trace: the larger budget's win rate (95% Wilson interval)",
        caption=f"{_plural(result.skill.games, 'game')} per round, seats rotated; "
        f"budget does not matter at {1 / players:.0%}",
    )
    table.add_column("round")
    for r in result.results:
        table.add_column(_rich(r.config.label), justify="right")
    for number in range(result.skill.rounds):
        small, large = result.skill.budgets(number)
        cells = []
        for r in result.results:
            trace = r.skill[number]
            low, high = trace.interval
            cells.append(f"{trace.win_rate:.1%} ({low:.0%}–{high:.0%})")
        table.add_row(_rich(f"{large} vs {small}"), *cells)
    return table


def _summary_cell(s: Summary | None) -> str:
    if s is None:
        return "—"
    return f"{s.mean:.3g} ± {s.sd:.2g} ({s.median:.3g}; {s.q10:.3g}–{s.q90:.3g})"


def print_plan(plan: Plan, console: Console) -> None:
    """The pilot's estimate of the games each quantity needs, then the games the run plays."""
    for config in dict.fromkeys(row.config for row in plan.rows):
        console.print(_plan_table(plan, config))
    needed = plan.needed
    if needed is None:
        console.print(f"The pilot could plan no quantity: the run plays --max-games, {plan.games}.")
    elif plan.capped:
        console.print(
            f"Plan: {plan.games:,} games per configuration, capped by --max-games: some quantity "
            f"needs {needed:,}, so a change of {_rich(plan.detect.text)} in it may go unseen."
        )
    else:
        console.print(
            f"Plan: {plan.games:,} games per configuration (the most any quantity needs)."
        )
    console.print(
        "Approximate: the pilot's spreads are estimates, and Benjamini–Hochberg across the "
        "quantities makes each test a little stricter than α."
    )


def _plan_table(plan: Plan, config: str) -> Table:
    table = Table(
        title=f"{_rich(config)}: games needed to detect a change of {_rich(plan.detect.text)} "
        f"(power {POWER:.0%}, paired t-test at α = {ALPHA:g})",
        caption=f"pilot: {_plural(plan.pilot_games, 'game')} per configuration, game i seeded "
        f"{_rich(plan.pilot_seed)}/i; —: no difference in the pilot, or a percentage of 0",
    )
    for heading in ("", "base (pilot)", "sd of differences", "change", "games"):
        table.add_column(heading, justify="right" if heading else "left")
    for row in plan.rows:
        if row.config != config:
            continue
        rate = is_rate(row.name)
        table.add_row(
            _rich(row.name),
            _cell(row.base, rate),
            _amount_cell(row.sd, rate),
            "—" if row.threshold is None else _amount_cell(row.threshold, rate),
            "—" if row.games is None else f"{row.games:,}",
        )
    return table


def print_sequential(sequential: Sequential, console: Console) -> None:
    """Which look decided each quantity, and which remain undecided."""
    design = sequential.design
    table = Table(
        title=f"Sequential: up to {_plural(design.looks, 'look')} of {design.batch} games, "
        f"α = {ALPHA:g} spent as {design.alpha:.3g} per look (Bonferroni)",
        caption=f"changed: adjusted p < {design.alpha:.3g}; equivalent: the "
        f"{1 - 2 * design.alpha:.1%} interval inside ±{_rich(sequential.detect.text)}",
    )
    for heading in ("configuration", "", "decision", "at look", "games"):
        table.add_column(heading, justify="right" if heading in ("at look", "games") else "left")
    for v in sequential.verdicts:
        look = "—" if v.look is None else str(v.look)
        games = "—" if v.games is None else str(v.games)
        table.add_row(_rich(v.config), _rich(v.name), v.decision, look, games)
    console.print(table)
    games = design.games_after(sequential.looks)
    undecided = sequential.undecided
    if not undecided:
        console.print(
            f"Every difference decided after {_plural(sequential.looks, 'look')} ({games} games)."
        )
    else:
        names = ", ".join(f"{v.name} ({v.config})" for v in undecided)
        console.print(
            _rich(
                f"Still {UNDECIDED} at --max-games ({games} games): {names}. The run is too small "
                f"to tell whether these change by {sequential.detect.text}."
            )
        )
    console.print()


def _amount_cell(value: float, rate: bool) -> str:
    return f"{100 * value:.2g} pp" if rate else f"{value:.3g}"


def _difference_table(label: str, differences: list[Difference]) -> Table:
    table = Table(
        title=f"{_rich(label)} − base, game by game",
        caption=f"detectable: the smallest true difference these games detect "
        f"(power {POWER:.0%}, α = {ALPHA:g}, noncentral t)",
    )
    headings = ("", "base", _rich(label), "difference", "95% interval", "p (adjusted)")
    for heading in (*headings, "detectable", ""):
        table.add_column(heading, justify="left" if not heading else "right")
    for d in differences:
        rate = is_rate(d.name)
        verdict = "beyond the noise" if d.significant else ("same" if d.identical else "")
        finite = d.half_width != float("inf")
        interval = f"{_cell(d.low, rate)} – {_cell(d.high, rate)}" if finite else "—"
        table.add_row(
            _rich(d.name),
            _cell(d.base, rate),
            _cell(d.other, rate),
            f"{100 * d.mean:+.3g} pp" if rate else f"{d.mean:+.3g}",
            interval,
            f"{d.adjusted_p:.2g}" if d.adjusted_p else "< 1e-300",
            _amount_cell(d.detectable, rate) if d.detectable != float("inf") else "—",
            verdict,
        )
    return table


def _cell(value: float, rate: bool) -> str:
    return f"{100 * value:.1f}%" if rate else f"{value:.3g}"
