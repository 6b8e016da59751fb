"""Seeded games played by bots, in this process, a process pool or a Dask cluster, aggregated per seat.

Game i of a simulation uses the seed `f"{seed}/{i}"` and the bot at seat p the seed
`f"{seed}/{i}/{p}"`, so results depend only on the inputs, never on how the games are
split over workers (`metro.analysis.executors`). Workers receive the generated module's text
(`GameCode`), never the rule files: a forked worker finds the game already loaded, and any
other (spawned, or on another machine) loads it once, without compiling.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from loader.games import game_path
from loader.loading import game_from_source, keyed_game_source, loaded, remember
from metro.analysis.executors import STALL_SECONDS, open_backend, run_tasks
from metro.analysis.measures import Decision, GameMeasures, Trajectory
from metro.bots import Bot, make_bot
from runtime.driver import drive
from runtime.errors import MetroRuntimeError, RuleError
from runtime.machine import Game
from runtime.state import State

BATCHES_PER_WORKER = 8  # several batches per worker even out unequal game lengths
SERIAL_BATCHES = 100  # progress updates in a serial run


@dataclass(frozen=True)
class GameResult:
    """How one game ended: scores, places (1 = best), winners and its length in decisions."""

    seed: int | str
    scores: list[int]
    ranking: list[int]
    winners: list[int]
    decisions: int
    over: bool
    metrics: dict[str, list[int]] = field(default_factory=dict)  # when asked for
    measures: GameMeasures | None = None  # when recorded (metro compare)


def play_game(
    game: Game,
    players: int,
    seed: int | str,
    bots: Sequence[Bot],
    metrics: bool = False,
    trusted: bool = False,
    record: bool = False,
) -> GameResult:
    """Play one game, each seat's bot deciding, until the game ends or nobody is to move.

    With `metrics`, the game's declared metrics are recorded at the end. With `trusted`, the
    bots' choices are taken unchecked (`State.apply_legal`): only for bots known to return one
    of the legal actions they were given, such as those of `make_bot`; if every bot is also
    `frameless`, the game runs on the frameless driver (the same game, faster). With `record`,
    the game is played decision by decision and summarised in `measures` (the same game: the
    recording only reads each position before its bot does).
    """
    measures = None
    if record:
        state, measures = _recorded(game, players, seed, bots, trusted)
    elif trusted and game.drives and all(getattr(bot, "frameless", False) for bot in bots):
        state = drive(game, players, seed, bots)
    else:
        state = game.new_game(players, seed)
        apply = state.apply_legal if trusted else state.apply
        while True:
            movers = state.to_move
            if not movers:
                break
            player = movers[0]
            apply(player, bots[player].choose(state, player))
    over = state.is_over
    winners = state.winners() if over else []
    return GameResult(
        seed,
        state.scores(),
        state.ranking(),
        winners,
        len(state.history),
        over,
        state.metrics() if metrics else {},
        measures,
    )


def _recorded(
    game: Game, players: int, seed: int | str, bots: Sequence[Bot], trusted: bool
) -> tuple[State, GameMeasures]:
    """Play one game as play_game's framed loop does, noting what the measures need on the way."""
    state = game.new_game(players, seed)
    apply = state.apply_legal if trusted else state.apply
    decisions: list[Decision] = []
    # Estimates are read only for a game that declares one: for any other they are the scores.
    estimates: list[list[int]] | None = [] if game.has_estimate else None
    while True:
        movers = state.to_move
        if not movers:
            break
        player = movers[0]
        # The bot asks for the same list: it is cached at this position, so this costs one lookup.
        decisions.append(Decision(player, len(state.legal_actions(player)), tuple(movers)))
        if estimates is not None:
            estimates.append(state.estimates())
        apply(player, bots[player].choose(state, player))
    winners = state.winners() if state.is_over else []
    return state, GameMeasures.of(Trajectory(players, decisions, winners, estimates))


@dataclass(frozen=True)
class Setup:
    """What fixes a simulation's games: the rules and their options, seats, base seed, bots."""

    path: str
    players: int
    seed: str
    bots: tuple[str, ...] = ()  # one bot spec per seat
    variants: tuple[str, ...] = ()
    expansions: tuple[str, ...] = ()
    map: str | None = None


@dataclass
class Tally:
    """Exact sums over a batch of games; tallies of disjoint batches merge in any order."""

    games: int
    unfinished: int
    decisions: int
    wins: list[Fraction]
    score_sums: list[int]

    @classmethod
    def empty(cls, players: int) -> Tally:
        """A tally of no games."""
        return cls(0, 0, 0, [Fraction(0)] * players, [0] * players)

    def add(self, result: GameResult) -> None:
        """Count one game (a tie for first gives each of the k winners 1/k of a win)."""
        self.games += 1
        self.decisions += result.decisions
        if not result.over:
            self.unfinished += 1
        for seat in result.winners:
            self.wins[seat] += Fraction(1, len(result.winners))
        for seat, score in enumerate(result.scores):
            self.score_sums[seat] += score

    def merge(self, other: Tally) -> None:
        """Add another batch's sums to this one."""
        self.games += other.games
        self.unfinished += other.unfinished
        self.decisions += other.decisions
        self.wins = [a + b for a, b in zip(self.wins, other.wins, strict=True)]
        self.score_sums = [a + b for a, b in zip(self.score_sums, other.score_sums, strict=True)]


@dataclass(frozen=True)
class GameCode:
    """A compiled game as workers receive it: the generated module's text, keyed by its digest."""

    source: str
    filename: str  # what tracebacks name
    variants: tuple[str, ...]
    digest: str
    key: str  # what this process remembers the loaded game by (loader.loading.loaded)

    @classmethod
    def of(cls, setup: Setup) -> GameCode:
        """Compile the setup's game, or take it from the on-disk cache (CompileError on bad rules)."""
        source, filename, key = keyed_game_source(
            setup.path, setup.expansions, setup.variants, setup.map
        )
        digest = hashlib.sha256(source.encode()).hexdigest()
        return cls(source, filename, setup.variants, digest, key)


def load(code: GameCode) -> Game:
    """The runnable game of `code`, run once per process: the game the command already loaded,
    if it did (forked workers inherit it), else the module cache's code of it or its text's."""
    game = loaded(code.key)
    if game is None:
        game = game_from_source(code.source, code.filename, code.variants, key=code.key)
        remember(code.key, game)
    return game


def play_batch(game: Game, setup: Setup, start: int, count: int) -> Tally:
    """Play games start .. start+count-1 of a simulation and tally them."""
    tally = Tally.empty(setup.players)
    for result in play_results(game, setup, start, count):
        tally.add(result)
    return tally


def play_results(
    game: Game, setup: Setup, start: int, count: int, metrics: bool = False, record: bool = False
) -> list[GameResult]:
    """Games start .. start+count-1 of a simulation, one result each (metrics, measures if asked)."""
    results = []
    for index in range(start, start + count):
        seed = f"{setup.seed}/{index}"
        bots = [make_bot(spec, f"{seed}/{seat}", game) for seat, spec in enumerate(setup.bots)]
        try:
            results.append(
                play_game(game, setup.players, seed, bots, metrics, trusted=True, record=record)
            )
        except MetroRuntimeError as error:
            raise RuleError(f"in game {index} (seed '{seed}'): {error}") from error
    return results


def run_batch(code: GameCode, setup: Setup, start: int, count: int) -> Tally:
    """Load the game (once per process) and play one batch; the task workers run."""
    return play_batch(load(code), setup, start, count)


def run_records(
    code: GameCode, setup: Setup, start: int, count: int, record: bool = False
) -> list[GameResult]:
    """Load the game (once per process) and play one batch: each game's result, with metrics
    (and, with `record`, its measures)."""
    return play_results(load(code), setup, start, count, metrics=True, record=record)


@dataclass(frozen=True)
class SimulationStats:
    """A simulation's results: per-seat wins and mean scores, game length and speed."""

    game: str
    players: int
    games: int
    seed: str
    bots: list[str]
    wins: list[float]
    mean_scores: list[float]
    decisions: int
    unfinished: int
    seconds: float

    @property
    def bot(self) -> str:
        """The bot of every seat, or the seats' bots joined by commas."""
        return self.bots[0] if len(set(self.bots)) == 1 else ",".join(self.bots)

    @property
    def finished(self) -> int:
        """Games that reached their end."""
        return self.games - self.unfinished

    @property
    def mean_decisions(self) -> float:
        """Decisions per game."""
        return self.decisions / self.games

    @property
    def games_per_second(self) -> float:
        """Throughput in games."""
        return self.games / self.seconds if self.seconds else math.inf

    @property
    def decisions_per_second(self) -> float:
        """Throughput in decisions."""
        return self.decisions / self.seconds if self.seconds else math.inf

    def win_rate(self, seat: int) -> float:
        """Share of the finished games that the seat won."""
        return self.wins[seat] / self.finished if self.finished else 0.0

    def win_interval(self, seat: int) -> tuple[float, float]:
        """95% Wilson score interval of the seat's win rate."""
        return wilson_interval(self.wins[seat], self.finished)

    def to_dict(self) -> dict:
        """JSON-able summary."""
        seats = range(self.players)
        return {
            "game": self.game,
            "games": self.games,
            "players": self.players,
            "seed": self.seed,
            "bot": self.bot,
            "bots": self.bots,
            "seconds": self.seconds,
            # JSON has no infinity: a run too short to time has no rate.
            "games_per_second": self.games_per_second if self.seconds else None,
            "decisions_per_second": self.decisions_per_second if self.seconds else None,
            "mean_decisions": self.mean_decisions,
            "unfinished": self.unfinished,
            "wins_by_seat": self.wins,
            "win_rates": [self.win_rate(s) for s in seats],
            "win_rate_ci95": [list(self.win_interval(s)) for s in seats],
            "mean_scores": self.mean_scores,
        }


def wilson_interval(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (the whole [0, 1] with no trials)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def batches(games: int, parts: int) -> list[tuple[int, int]]:
    """Split game indices 0..games-1 into at most `parts` runs of (start, count)."""
    parts = max(1, min(parts, games))
    size, extra = divmod(games, parts)
    out, start = [], 0
    for part in range(parts):
        count = size + (part < extra)
        out.append((start, count))
        start += count
    return out


def simulate(
    game: str,
    players: int,
    games: int,
    seed: int | str,
    bot: str = "random",
    variants: Sequence[str] = (),
    expansions: Sequence[str] = (),
    map: str | None = None,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    bots: Sequence[str] | None = None,
    dask: str | None = None,
    stall: float = STALL_SECONDS,
) -> SimulationStats:
    """Play `games` seeded games of `game` (a name or path); `bots` (one per seat) or `bot` for all.

    `jobs` worker processes on this machine, or a Dask cluster: `dask` is a scheduler's
    address or "local". The results are the same whichever runs the games; a run in which no
    batch finishes for `stall` seconds ends with WorkersLost.
    """
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, not {games}")
    seats = tuple(bots) if bots is not None else (bot,) * players
    if len(seats) != players:
        raise ValueError(f"{len(seats)} bots for {players} players: give one bot per seat")
    setup = Setup(
        game_path(game), players, str(seed), seats, tuple(variants), tuple(expansions), map
    )
    code, loaded = prepare(setup)
    started = time.perf_counter()
    tally = Tally.empty(players)

    def merge(part: Tally) -> None:
        tally.merge(part)
        if progress is not None:
            progress(part.games)

    with open_backend(jobs, dask, stall) as backend:
        parts = SERIAL_BATCHES if backend.workers == 1 else backend.workers * BATCHES_PER_WORKER
        tasks = [(code, setup, start, count) for start, count in batches(games, parts)]
        run_tasks(backend, run_batch, tasks, merge)
    seconds = time.perf_counter() - started
    return SimulationStats(
        game=loaded.name,
        players=players,
        games=tally.games,
        seed=setup.seed,
        bots=list(seats),
        wins=[float(w) for w in tally.wins],
        mean_scores=[s / tally.games for s in tally.score_sums],
        decisions=tally.decisions,
        unfinished=tally.unfinished,
        seconds=seconds,
    )


def prepare(setup: Setup) -> tuple[GameCode, Game]:
    """Compile and load the setup's game, and check its player count and bots before any game."""
    code = GameCode.of(setup)  # compile errors surface here
    loaded = load(code)  # loaded before any worker is forked, so forked workers inherit it
    players = setup.players
    if not loaded.min_players <= players <= loaded.max_players:
        raise ValueError(
            f"{loaded.name} takes {loaded.min_players}-{loaded.max_players} players, not {players}"
        )
    for spec in dict.fromkeys(setup.bots):
        make_bot(spec, 0, loaded)  # an unknown bot fails here, before any game is played
    return code, loaded
