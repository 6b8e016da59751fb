"""`metro compare`: the base game and variants or expansions played on the same seeds, compared.

Each configuration plays games 0..G-1 with the seeds `f"{seed}/{i}"` and the same bots
(seeded `f"{seed}/{i}/{p}"`), so game i of every configuration starts from the same random
numbers (common random numbers) and differences are judged game by game (`metro.analysis.stats`).
Per configuration: win rate by seat with Wilson intervals, the score's mean, spread and
quantiles, the margin of victory, the game length, and the game's declared metrics; per
variant, its differences from the base, with intervals and paired tests, said in words.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from loader.games import game_path
from metro.analysis.executors import STALL_SECONDS, open_backend, run_tasks
from metro.analysis.simulate import (
    BATCHES_PER_WORKER,
    GameResult,
    Setup,
    batches,
    prepare,
    run_records,
    wilson_interval,
)
from metro.analysis.stats import Difference, Summary, adjust, paired_difference
from runtime.values import PLAYER

SERIAL_BATCHES = 50  # progress updates per configuration in a serial run


@dataclass(frozen=True)
class Config:
    """One way to play the game: the base, or with some variants and expansions."""

    label: str
    variants: tuple[str, ...] = ()
    expansions: tuple[str, ...] = ()


def configurations(variants: Sequence[str] = (), expansions: Sequence[str] = ()) -> list[Config]:
    """The base, then one configuration per `--variant` and per `--with` (commas join several)."""
    configs = [Config("base")]
    configs += [Config(f"variant {names}", variants=_names(names)) for names in variants]
    configs += [Config(f"with {names}", expansions=_names(names)) for names in expansions]
    labels = [c.label for c in configs]
    if len(set(labels)) != len(labels):
        raise ValueError("a configuration is named twice")
    return configs


def _names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(","))
    if not all(names):
        raise ValueError(f"'{text}' names an empty variant or expansion")
    return names


@dataclass(frozen=True)
class Record:
    """One game of one configuration: what `--json` writes for further analysis."""

    config: str
    index: int
    result: GameResult
    bots: tuple[str, ...]

    @property
    def top_scores(self) -> list[int]:
        """The scores, best first."""
        return sorted(self.result.scores, reverse=True)

    @property
    def margin(self) -> int:
        """The winner's lead over the next score (0 with one player or a tie)."""
        top = self.top_scores
        return top[0] - top[1] if len(top) > 1 else 0

    def win_share(self, seat: int) -> float:
        """1 for a sole win, 1/k for a win shared by k, else 0."""
        winners = self.result.winners
        return 1 / len(winners) if seat in winners else 0.0

    def to_dict(self) -> dict:
        """JSON-able fields."""
        r = self.result
        return {
            "config": self.config,
            "index": self.index,
            "seed": str(r.seed),
            "bots": list(self.bots),
            "scores": r.scores,
            "ranking": r.ranking,
            "winners": [PLAYER.label(p) for p in r.winners],
            "decisions": r.decisions,
            "over": r.over,
            "metrics": r.metrics,
        }


# Per-game measures compared between configurations: name -> value of a game (in order shown).
MEASURES: dict[str, Callable[[Record], float]] = {
    "mean score": lambda r: sum(r.result.scores) / len(r.result.scores),
    "winning score": lambda r: r.top_scores[0],
    "margin of victory": lambda r: r.margin,
    "game length (decisions)": lambda r: r.result.decisions,
}


SCORES = "score (every seat)"


def table_rows(results: Sequence[ConfigResult]) -> list[str]:
    """The per-game table's rows: the scores, each measure, then every metric any result has."""
    metrics = dict.fromkeys(name for r in results for name in r.metric_names)
    return [SCORES, *MEASURES, *metrics]


@dataclass
class ConfigResult:
    """One configuration's games and their summaries."""

    config: Config
    game: str
    records: list[Record]
    metric_names: list[str]

    @property
    def players(self) -> int:
        """Seats per game."""
        return len(self.records[0].result.scores)

    @property
    def finished(self) -> int:
        """Games that reached their end."""
        return sum(r.result.over for r in self.records)

    def wins(self, seat: int) -> float:
        """The seat's wins (a shared win counts its share)."""
        return sum(r.win_share(seat) for r in self.records)

    def win_rate(self, seat: int) -> float:
        """Share of the finished games the seat won."""
        return self.wins(seat) / self.finished if self.finished else 0.0

    def win_interval(self, seat: int) -> tuple[float, float]:
        """95% Wilson interval of the seat's win rate."""
        return wilson_interval(self.wins(seat), self.finished)

    def scores(self) -> Summary:
        """Every seat's score in every game."""
        return Summary.of([s for r in self.records for s in r.result.scores])

    def seat_scores(self, seat: int) -> Summary:
        """One seat's scores."""
        return Summary.of([r.result.scores[seat] for r in self.records])

    def measure(self, name: str) -> list[float]:
        """A measure's value in each game, in game order."""
        if name in MEASURES:
            return [MEASURES[name](r) for r in self.records]
        if name.startswith("seat "):  # "seat N win rate"
            seat = int(name.split()[1]) - 1
            return [r.win_share(seat) for r in self.records]
        return [sum(r.result.metrics[name]) / self.players for r in self.records]

    def metric(self, name: str) -> Summary:
        """A declared metric over every player of every game."""
        return Summary.of([v for r in self.records for v in r.result.metrics[name]])

    def summary(self, name: str) -> Summary | None:
        """A row of the per-game table: the scores, a measure, or a metric (None if not declared)."""
        if name == SCORES:
            return self.scores()
        if name in MEASURES:
            return Summary.of(self.measure(name))
        return self.metric(name) if name in self.metric_names else None

    def to_dict(self) -> dict:
        """JSON-able summary."""
        seats = range(self.players)
        return {
            "label": self.config.label,
            "variants": list(self.config.variants),
            "expansions": list(self.config.expansions),
            "game": self.game,
            "games": len(self.records),
            "unfinished": len(self.records) - self.finished,
            "win_rates": [self.win_rate(s) for s in seats],
            "win_rate_ci95": [list(self.win_interval(s)) for s in seats],
            "score": self.scores().to_dict(),
            "seat_mean_scores": [self.seat_scores(s).mean for s in seats],
            "margin_of_victory": Summary.of(self.measure("margin of victory")).to_dict(),
            "game_length": Summary.of(self.measure("game length (decisions)")).to_dict(),
            "metrics": {name: self.metric(name).to_dict() for name in self.metric_names},
        }


@dataclass
class Comparison:
    """One configuration against the base: its differences and what they say."""

    config: str
    differences: list[Difference]
    words: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {
            "configuration": self.config,
            "differences": [d.to_dict() for d in self.differences],
            "summary": " ".join(self.words),
        }


@dataclass
class CompareResult:
    """Every configuration's games and summaries, and each one's comparison with the base."""

    game: str
    players: int
    games: int
    seed: str
    bots: list[str]
    results: list[ConfigResult]
    comparisons: list[Comparison]
    seconds: float

    def to_dict(self, records: bool = True) -> dict:
        """JSON-able result; with `records`, every game of every configuration."""
        out = {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "bots": self.bots,
            "seconds": self.seconds,
            "configurations": [r.to_dict() for r in self.results],
            "comparisons": [c.to_dict() for c in self.comparisons],
        }
        if records:
            out["records"] = [rec.to_dict() for r in self.results for rec in r.records]
        return out


def compare(
    game: str,
    players: int,
    games: int,
    seed: int | str,
    bots: Sequence[str],
    configs: Sequence[Config],
    map: str | None = None,
    jobs: int = 1,
    dask: str | None = None,
    progress: Callable[[int], None] | None = None,
    stall: float = STALL_SECONDS,
) -> CompareResult:
    """Play `games` seeded games of every configuration, then summarise and compare them."""
    if games < 2:
        raise ValueError(f"comparing needs at least 2 games per configuration, not {games}")
    if len(bots) != players:
        raise ValueError(f"{len(bots)} bots for {players} players: give one bot per seat")
    path = game_path(game)
    setups = [
        Setup(path, players, str(seed), tuple(bots), c.variants, c.expansions, map) for c in configs
    ]
    prepared = [prepare(setup) for setup in setups]  # every compile error before any game
    started = time.perf_counter()
    with open_backend(jobs, dask, stall) as backend:
        parts = SERIAL_BATCHES if backend.workers == 1 else backend.workers * BATCHES_PER_WORKER
        parts = max(1, parts // len(configs))
        owners, tasks = [], []
        for number, (setup, (code, _)) in enumerate(zip(setups, prepared, strict=True)):
            for start, count in batches(games, parts):
                owners.append(number)
                tasks.append((code, setup, start, count))
        done = None if progress is None else (lambda part: progress(len(part)))
        parts_played = run_tasks(backend, run_records, tasks, done)
    seconds = time.perf_counter() - started
    played: list[list[GameResult]] = [[] for _ in configs]
    for number, part in zip(owners, parts_played, strict=True):
        played[number].extend(part)  # tasks are in game order within a configuration
    results = [
        ConfigResult(
            config,
            loaded.name,
            [Record(config.label, i, r, tuple(bots)) for i, r in enumerate(games_played)],
            loaded.metric_names,
        )
        for config, (_, loaded), games_played in zip(configs, prepared, played, strict=True)
    ]
    comparisons = [compare_with_base(results[0], other) for other in results[1:]]
    return CompareResult(
        results[0].game, players, games, str(seed), list(bots), results, comparisons, seconds
    )


def compare_with_base(base: ConfigResult, other: ConfigResult) -> Comparison:
    """The other configuration's paired differences from the base, and what they say."""
    names = list(MEASURES)
    names += [f"seat {seat + 1} win rate" for seat in range(base.players)]
    names += [m for m in base.metric_names if m in other.metric_names]
    differences = adjust([paired_difference(n, other.measure(n), base.measure(n)) for n in names])
    return Comparison(other.config.label, differences, describe(other.config.label, differences))


def describe(label: str, differences: list[Difference]) -> list[str]:
    """The differences in words: what changed beyond the noise, then what did not."""
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
    if identical:
        words.append(f"The same in every game: {', '.join(_what(d.name) for d in identical)}.")
    if not changed:
        words.insert(0, f"{label} changes nothing measured beyond the noise.")
    return words


def p_text(p: float) -> str:
    """A p-value in words; one too small for a float is said to be so."""
    return "p < 1e-300" if p == 0 else f"p = {p:.2g}"


def _what(name: str) -> str:
    if name == "seat 1 win rate":
        return "first seat's win rate (first-player advantage)"
    if name.startswith("seat "):
        return f"seat {name.split()[1]}'s win rate"
    return name if name in MEASURES else f"'{name}' per player"


def _is_rate(d: Difference) -> bool:
    return d.name.startswith("seat ") and d.name.endswith("win rate")


def _amount(d: Difference, value: float, signed: bool = False) -> str:
    """A difference and its ± half interval, in percentage points for a win rate."""
    scale, unit = (100, " percentage points") if _is_rate(d) else (1, "")
    number = f"{scale * value:+.3g}" if signed else f"{scale * value:.3g}"
    return f"{number} ± {scale * d.half_width:.2g}{unit}"


def _value(d: Difference, value: float) -> str:
    return f"{100 * value:.1f}%" if _is_rate(d) else f"{value:.3g}"
