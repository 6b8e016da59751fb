"""`metro tournament` on a terminal: the ratings, the bots' records and who beat whom."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from dsl.terminal import printable
from metro.analysis.tournament import TournamentResult


def _rich(text: str) -> str:
    return escape(printable(text))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def print_tournament(result: TournamentResult, console: Console) -> None:
    """The ratings table, each bot's declared metrics, the pairwise table, then caveats."""
    console.print(
        f"[bold]{_rich(result.game)}[/bold]: {result.players} players, "
        f"{_plural(len(result.tables), 'table')} x {_plural(result.deals, 'deal')} x "
        f"{_plural(result.players, 'seat rotation')} = {_plural(len(result.matches), 'game')} "
        f"(seed {_rich(result.seed)})"
    )
    console.print(rating_table(result))
    if result.metric_names:
        console.print(metric_table(result))
    console.print(pairwise_table(result))
    if result.unfinished:
        console.print(
            f"{_plural(result.unfinished, 'game')} did not reach the end (left out of the ratings)"
        )
    apart = separated(result)
    if apart:
        console.print("Rated apart (95% intervals do not overlap): " + "; ".join(apart) + ".")
    else:
        console.print("No two bots are rated apart: their 95% intervals overlap.")
    console.print(f"{result.seconds:.1f} s")


def rating_table(result: TournamentResult) -> Table:
    """Bots by rating: Elo with its interval, games, win rate, mean score and place, thinking time."""
    table = Table(title="Ratings (Bradley–Terry, Elo scale, mean 0; 95% interval)")
    for heading in ("", "bot", "Elo", "95% interval", "games", "win rate", "score", "place"):
        table.add_column(heading, justify="left" if heading == "bot" else "right")
    table.add_column("s / decision", justify="right")
    for rank, b in enumerate(result.by_rating(), start=1):
        rating, standing = result.ratings[b], result.standings[b]
        games = max(standing.games, 1)
        per_decision = standing.seconds / standing.decisions if standing.decisions else 0.0
        table.add_row(
            str(rank),
            _rich(rating.bot),
            f"{rating.elo:+.0f}",
            f"{rating.low:+.0f} … {rating.high:+.0f}",
            str(standing.games),
            f"{standing.win_rate():.1%}",
            f"{standing.score_total / games:.1f}",
            f"{standing.place_total / games:.2f}",
            f"{per_decision:.4f}",
        )
    return table


def metric_table(result: TournamentResult) -> Table:
    """Each bot's mean of every metric the game declares."""
    table = Table(title="The game's metrics, mean per game")
    table.add_column("bot")
    for name in result.metric_names:
        table.add_column(_rich(name), justify="right")
    for b in result.by_rating():
        standing = result.standings[b]
        games = max(standing.games, 1)
        table.add_row(
            _rich(standing.bot),
            *(f"{standing.metric_totals.get(n, 0) / games:.2f}" for n in result.metric_names),
        )
    return table


def pairwise_table(result: TournamentResult) -> Table:
    """The share of contests the row's bot won against the column's (ties half)."""
    order = result.by_rating()
    table = Table(title="Contests won, row against column (ties count half)")
    table.add_column("")
    for b in order:
        table.add_column(_rich(result.bots[b]), justify="right")
    for a in order:
        cells = []
        for b in order:
            contests = result.pairwise.contests(a, b)
            cells.append(f"{result.pairwise.wins[a][b] / contests:.0%}" if contests else "—")
        table.add_row(_rich(result.bots[a]), *cells)
    return table


def separated(result: TournamentResult) -> list[str]:
    """'A > B' for each two bots whose intervals do not overlap, best first."""
    order = result.by_rating()
    return [
        f"{result.bots[a]} > {result.bots[b]}"
        for i, a in enumerate(order)
        for b in order[i + 1 :]
        if result.ratings[a].low > result.ratings[b].high
    ]
