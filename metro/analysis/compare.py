"""`metro compare`: the base game and variants or expansions played on the same seeds, compared.

Each configuration plays games 0..G-1 with the seeds `f"{seed}/{i}"` and the same bots
(seeded `f"{seed}/{i}/{p}"`), so game i of every configuration starts from the same random
numbers (common random numbers) and differences are judged game by game (`metro.analysis.stats`).
Per configuration: win rate by seat with Wilson intervals, the score's mean, spread and
quantiles, the margin of victory, the game length, the game's declared metrics, and the measures
of how games unfold (`metro.analysis.measures`: draws, turns, branching, the lead by the
estimate) with their intervals; optionally a skill trace (`metro.analysis.skill`); per variant,
its differences from the base, with intervals, paired tests and the smallest difference the games
could have detected, said in words. `plan_games` plays a pilot to plan how many games a change
needs, `compare_until_decided` plays batches until each difference is decided
(`metro.analysis.power`).
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from loader.games import game_path
from metro.analysis.compare_records import MEASURES, RATES, SCORES, Record, is_rate
from metro.analysis.compare_words import describe
from metro.analysis.executors import STALL_SECONDS, Backend, open_backend, run_tasks
from metro.analysis.power import (
    PILOT,
    Design,
    Detect,
    OptionError,
    Plan,
    Sequential,
    chosen,
    plan_rows,
    verdict,
)
from metro.analysis.simulate import (
    BATCHES_PER_WORKER,
    GameCode,
    GameResult,
    Setup,
    batches,
    prepare,
    run_records,
    wilson_interval,
)
from metro.analysis.skill import SkillPlan, SkillRound, run_skill, skill_round
from metro.analysis.stats import (
    ALPHA,
    POWER,
    Difference,
    Summary,
    adjust,
    mean_interval,
    paired_difference,
)

if TYPE_CHECKING:
    from runtime.machine import Game

SERIAL_BATCHES = 50  # progress updates per configuration in a serial run


@dataclass(frozen=True)
class Config:
    """One way to play the game: the base, or with some variants and expansions, or on a map."""

    label: str
    variants: tuple[str, ...] = ()
    expansions: tuple[str, ...] = ()
    map: str | None = None  # a map file in place of the run's map


def configurations(
    variants: Sequence[str] = (), expansions: Sequence[str] = (), maps: Sequence[str] = ()
) -> list[Config]:
    """The base, then one configuration per `--variant`, per `--with` (commas join several) and
    per `--on-map`."""
    configs = [Config("base")]
    configs += [Config(f"variant {names}", variants=_names(names)) for names in variants]
    configs += [Config(f"with {names}", expansions=_names(names)) for names in expansions]
    configs += [Config(f"map {os.path.basename(path)}", map=path) for path in maps]
    labels = [c.label for c in configs]
    if len(set(labels)) != len(labels):
        raise ValueError("a configuration is named twice")
    return configs


def _names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(","))
    if not all(names):
        raise ValueError(f"'{text}' names an empty variant or expansion")
    return names


def table_rows(results: Sequence[ConfigResult]) -> list[str]:
    """The per-game table's rows: the scores, each measure some game has, then every metric."""
    metrics = dict.fromkeys(name for r in results for name in r.metric_names)
    measures = [m for m in MEASURES if any(r.defined(m) for r in results)]
    return [SCORES, *measures, *metrics]


@dataclass
class ConfigResult:
    """One configuration's games and their summaries."""

    config: Config
    game: str
    records: list[Record]
    metric_names: list[str]
    skill: list[SkillRound] = field(default_factory=list)  # with --skill-trace

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

    @property
    def draws(self) -> float:
        """Games whose first place is shared."""
        return sum(r.draw for r in self.records)

    def draw_interval(self) -> tuple[float, float]:
        """95% Wilson interval of the share of games drawn."""
        return wilson_interval(self.draws, len(self.records))

    def measure(self, name: str) -> list[float | None]:
        """A quantity's value in each game, in game order (None where a game has none)."""
        if name in MEASURES:
            return [MEASURES[name](r) for r in self.records]
        rounds = {s.name: s for s in self.skill}
        if name in rounds:
            return list(rounds[name].shares)
        if name.startswith("seat "):  # "seat N win rate"
            seat = int(name.split()[1]) - 1
            return [r.win_share(seat) for r in self.records]
        return [sum(r.result.metrics[name]) / self.players for r in self.records]

    def values(self, name: str) -> list[float]:
        """A measure's values in the games that have one."""
        return [v for v in self.measure(name) if v is not None]

    def defined(self, name: str) -> bool:
        """True if some game has a value of the measure."""
        return bool(self.values(name))

    def interval(self, name: str) -> tuple[float, float, float]:
        """A measure's mean over the games and its 95% interval (Wilson for draws, else t)."""
        values = self.values(name)
        if name == "draws":
            return (statistics.fmean(values), *self.draw_interval())
        mean, low, high = mean_interval(values)
        if name in RATES:  # a share's mean lies in [0, 1], and so does its interval
            low, high = max(0.0, low), min(1.0, high)
        return mean, low, high

    def metric(self, name: str) -> Summary:
        """A declared metric over every player of every game."""
        return Summary.of([v for r in self.records for v in r.result.metrics[name]])

    def summary(self, name: str) -> Summary | None:
        """A row of the per-game table: the scores, a measure, or a metric (None if not declared)."""
        if name == SCORES:
            return self.scores()
        if name in MEASURES:
            values = self.values(name)
            return Summary.of(values) if values else None
        return self.metric(name) if name in self.metric_names else None

    def to_dict(self) -> dict:
        """JSON-able summary."""
        seats = range(self.players)
        return {
            "label": self.config.label,
            "variants": list(self.config.variants),
            "expansions": list(self.config.expansions),
            "map": self.config.map,
            "game": self.game,
            "games": len(self.records),
            "unfinished": len(self.records) - self.finished,
            "win_rates": [self.win_rate(s) for s in seats],
            "win_rate_ci95": [list(self.win_interval(s)) for s in seats],
            "score": self.scores().to_dict(),
            "seat_mean_scores": [self.seat_scores(s).mean for s in seats],
            "margin_of_victory": Summary.of(self.values("margin of victory")).to_dict(),
            "game_length": Summary.of(self.values("game length (decisions)")).to_dict(),
            "draws": self.draws / len(self.records),
            "draws_ci95": list(self.draw_interval()),
            "measures": {name: self._measure_dict(name) for name in MEASURES if self.defined(name)},
            "metrics": {name: self.metric(name).to_dict() for name in self.metric_names},
            "skill_trace": [s.to_dict() for s in self.skill],
        }

    def _measure_dict(self, name: str) -> dict:
        mean, low, high = self.interval(name)
        finite = math.isfinite(low) and math.isfinite(high)
        return {
            "mean": mean,
            "ci95": [low, high] if finite else None,
            "summary": Summary.of(self.values(name)).to_dict(),
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
    skill: SkillPlan | None = None
    detect: Detect | None = None  # the change that matters (--detect)
    plan: Plan | None = None  # the pilot's plan (--detect)
    sequential: Sequential | None = None  # the looks and verdicts (--until-decided)

    def to_dict(self, records: bool = True) -> dict:
        """JSON-able result; with `records`, every game of every configuration."""
        out = {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "bots": self.bots,
            "seconds": self.seconds,
            "alpha": ALPHA,
            "power": POWER,
            "detect": None if self.detect is None else self.detect.to_dict(),
            "plan": None if self.plan is None else self.plan.to_dict(),
            "sequential": None if self.sequential is None else self.sequential.to_dict(),
            "skill_trace": None if self.skill is None else self.skill.to_dict(),
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
    skill: SkillPlan | None = None,
    detect: Detect | None = None,
) -> CompareResult:
    """Play `games` seeded games of every configuration, then summarise and compare them.

    With `skill`, each configuration's skill trace is played too (`metro.analysis.skill`); with
    `detect`, the words weigh what the games could have detected against that change.
    """
    if games < 2:
        raise ValueError(f"comparing needs at least 2 games per configuration, not {games}")
    run = _Run.of(game, players, seed, bots, configs, map, skill)
    started = time.perf_counter()
    with open_backend(jobs, dask, stall) as backend:
        played = _play_records(backend, run.setups, run.codes, 0, games, progress)
        traces = run.skill_traces(backend, progress)
    return run.result(played, traces, time.perf_counter() - started, detect)


def compare_until_decided(
    game: str,
    players: int,
    seed: int | str,
    bots: Sequence[str],
    configs: Sequence[Config],
    design: Design,
    detect: Detect,
    decide: Sequence[str] = (),
    map: str | None = None,
    jobs: int = 1,
    dask: str | None = None,
    progress: Callable[[int], None] | None = None,
    stall: float = STALL_SECONDS,
    skill: SkillPlan | None = None,
) -> CompareResult:
    """Play batches of games 0, 1, … until every difference (or those in `decide`) is decided.

    After each batch, every chosen difference is tested at the design's level (metro.analysis.power);
    the run stops once all are decided or at the design's maximum. Game i is seeded SEED/i as in
    `compare`, so a run stopped after k batches is the first k batches of a longer one. The skill
    trace, if asked, is played once at the end and not part of the decision.
    """
    run = _Run.of(game, players, seed, bots, configs, map, skill)
    run.check_names(decide)
    sequential = Sequential(design, detect)
    played: list[list[GameResult]] = [[] for _ in configs]
    started = time.perf_counter()
    with open_backend(jobs, dask, stall) as backend:
        for look in range(1, design.looks + 1):
            first, last = len(played[0]), design.games_after(look)
            batch = _play_records(backend, run.setups, run.codes, first, last - first, progress)
            for mine, more in zip(played, batch, strict=True):
                mine.extend(more)
            sequential.looks = look
            _look(sequential, run.result(played, [[] for _ in configs], 0, detect), decide, last)
            if not sequential.undecided:
                break
        traces = run.skill_traces(backend, progress)
    result = run.result(played, traces, time.perf_counter() - started, detect)
    result.sequential = sequential
    return result


def _look(sequential: Sequential, result: CompareResult, decide: Sequence[str], games: int) -> None:
    """Record what one look decides about each chosen difference."""
    detect, level = sequential.detect, sequential.design.alpha
    for comparison in result.comparisons:
        for d in chosen(comparison.differences, decide):
            threshold = detect.threshold(d.base, is_rate(d.name))
            sequential.record(comparison.config, d, verdict(d, threshold, level), games)


def plan_games(
    game: str,
    players: int,
    seed: int | str,
    bots: Sequence[str],
    configs: Sequence[Config],
    detect: Detect,
    pilot: int,
    max_games: int,
    decide: Sequence[str] = (),
    map: str | None = None,
    jobs: int = 1,
    dask: str | None = None,
    progress: Callable[[int], None] | None = None,
    stall: float = STALL_SECONDS,
) -> CompareResult:
    """A pilot of `pilot` games seeded SEED/pilot/i, compared, with the plan it gives (`.plan`)."""
    _Run.of(game, players, seed, bots, configs, map, None).check_names(decide)
    result = compare(
        game,
        players,
        pilot,
        f"{seed}/{PILOT}",
        bots,
        configs,
        map,
        jobs,
        dask,
        progress,
        stall,
        detect=detect,
    )
    rows = [
        row
        for c in result.comparisons
        for row in plan_rows(c.config, chosen(c.differences, decide), detect, is_rate)
    ]
    result.plan = Plan(detect, pilot, result.seed, max_games, rows)
    return result


@dataclass
class _Run:
    """What every batch of a comparison shares: its configurations, compiled, and its bots."""

    players: int
    seed: str
    bots: list[str]
    configs: Sequence[Config]
    setups: list[Setup]
    prepared: list[tuple[GameCode, Game]]
    skill: SkillPlan | None

    @classmethod
    def of(
        cls,
        game: str,
        players: int,
        seed: int | str,
        bots: Sequence[str],
        configs: Sequence[Config],
        map: str | None,
        skill: SkillPlan | None,
    ) -> _Run:
        """Check the options and compile every configuration (every compile error before any game)."""
        if len(bots) != players:
            raise ValueError(f"{len(bots)} bots for {players} players: give one bot per seat")
        if skill is not None:
            skill.check()
        path = game_path(game)
        setups = [
            Setup(path, players, str(seed), tuple(bots), c.variants, c.expansions, c.map or map)
            for c in configs
        ]
        prepared = [prepare(setup) for setup in setups]
        return cls(players, str(seed), list(bots), configs, setups, prepared, skill)

    @property
    def codes(self) -> list[GameCode]:
        """Each configuration's compiled code."""
        return [code for code, _ in self.prepared]

    def check_names(self, names: Sequence[str]) -> None:
        """OptionError unless every name is a quantity compared (a measure, a seat's win rate, a metric)."""
        metrics = self.prepared[0][1].metric_names
        known = [*MEASURES, *(f"seat {s + 1} win rate" for s in range(self.players)), *metrics]
        unknown = [n for n in names if n not in known]
        if unknown:
            raise OptionError(
                f"--decide: no quantity named {', '.join(repr(n) for n in unknown)} "
                f"(the quantities: {', '.join(known)})"
            )

    def skill_traces(
        self, backend: Backend, progress: Callable[[int], None] | None
    ) -> list[list[SkillRound]]:
        """Each configuration's skill trace (empty lists without one)."""
        if self.skill is None:
            return [[] for _ in self.configs]
        return _play_skill(backend, self.setups, self.codes, self.skill, progress)

    def result(
        self,
        played: Sequence[Sequence[GameResult]],
        traces: Sequence[list[SkillRound]],
        seconds: float,
        detect: Detect | None,
    ) -> CompareResult:
        """The games played so far, summarised and compared with the base."""
        results = [
            ConfigResult(
                config,
                loaded.name,
                [Record(config.label, i, r, tuple(self.bots)) for i, r in enumerate(games)],
                loaded.metric_names,
                trace,
            )
            for config, (_, loaded), games, trace in zip(
                self.configs, self.prepared, played, traces, strict=True
            )
        ]
        comparisons = [compare_with_base(results[0], other, detect) for other in results[1:]]
        return CompareResult(
            results[0].game,
            self.players,
            len(played[0]),
            self.seed,
            self.bots,
            results,
            comparisons,
            seconds,
            self.skill,
            detect,
        )


def _parts(backend: Backend, configs: int) -> int:
    """How many batches each configuration's games are split into."""
    parts = SERIAL_BATCHES if backend.workers == 1 else backend.workers * BATCHES_PER_WORKER
    return max(1, parts // configs)


def _play_records(
    backend: Backend,
    setups: Sequence[Setup],
    codes: Sequence[GameCode],
    first: int,
    games: int,
    progress: Callable[[int], None] | None,
) -> list[list[GameResult]]:
    """Every configuration's games first, …, first + games - 1, recorded, in game order."""
    parts = _parts(backend, len(setups))
    owners, tasks = [], []
    for number, (setup, code) in enumerate(zip(setups, codes, strict=True)):
        for start, count in batches(games, parts):
            owners.append(number)
            tasks.append((code, setup, first + start, count, True))
    done = None if progress is None else (lambda part: progress(len(part)))
    parts_played = run_tasks(backend, run_records, tasks, done)
    played: list[list[GameResult]] = [[] for _ in setups]
    for number, part in zip(owners, parts_played, strict=True):
        played[number].extend(part)  # tasks are in game order within a configuration
    return played


def _play_skill(
    backend: Backend,
    setups: Sequence[Setup],
    codes: Sequence[GameCode],
    plan: SkillPlan,
    progress: Callable[[int], None] | None,
) -> list[list[SkillRound]]:
    """Every configuration's skill trace: each round's games, in game order."""
    parts = _parts(backend, len(setups) * plan.rounds)
    owners, tasks = [], []
    for number, (setup, code) in enumerate(zip(setups, codes, strict=True)):
        for step in range(plan.rounds):
            small, large = plan.budgets(step)
            for start, count in batches(plan.games, parts):
                owners.append((number, step))
                tasks.append((code, setup, start, count, small, large))
    done = None if progress is None else (lambda part: progress(len(part)))
    parts_played = run_tasks(backend, run_skill, tasks, done)
    games: dict[tuple[int, int], list] = {owner: [] for owner in owners}
    for owner, part in zip(owners, parts_played, strict=True):
        games[owner].extend(part)
    return [
        [
            skill_round(*plan.budgets(step), games[(number, step)], setup.players)
            for step in range(plan.rounds)
        ]
        for number, setup in enumerate(setups)
    ]


def compare_with_base(
    base: ConfigResult, other: ConfigResult, detect: Detect | None = None
) -> Comparison:
    """The other configuration's paired differences from the base, and what they say.

    A measure some games lack (decisiveness after a shared win) is paired over the games where
    both configurations have it; one neither has is left out.
    """
    names = list(MEASURES)
    names += [f"seat {seat + 1} win rate" for seat in range(base.players)]
    names += [m for m in base.metric_names if m in other.metric_names]
    names += [s.name for s in base.skill if s.name in {o.name for o in other.skill}]
    differences = []
    for name in names:
        pairs = [
            (a, b)
            for a, b in zip(other.measure(name), base.measure(name), strict=True)
            if a is not None and b is not None
        ]
        if pairs:
            mine, theirs = zip(*pairs, strict=True)
            differences.append(paired_difference(name, mine, theirs))
    differences = adjust(differences)
    words = describe(other.config.label, differences, detect)
    return Comparison(other.config.label, differences, words)
