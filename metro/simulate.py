"""Seeded games played by bots, serially or over a process pool, aggregated per seat.

Game i of a simulation uses the seed `f"{seed}/{i}"` and the bot at seat p the seed
`f"{seed}/{i}/{p}"`, so results depend only on the inputs, never on how the games are
split over processes. Workers receive the game's path and options, not compiled code
(classes made by exec do not pickle): forked workers find the game the parent loaded,
others load it from the module cache.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from fractions import Fraction

from compiler import load_game
from metro.bots import Bot, make_bot
from metro.games import game_path
from runtime.errors import MetroRuntimeError, RuleError
from runtime.machine import Game

BATCHES_PER_JOB = 8  # several batches per worker even out unequal game lengths
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


def play_game(
    game: Game, players: int, seed: int | str, bots: Sequence[Bot], trusted: bool = False
) -> GameResult:
    """Play one game, each seat's bot deciding, until the game ends or nobody is to move.

    With `trusted`, the bots' choices are taken unchecked (`State.apply_legal`): only for bots
    known to return one of the legal actions they were given, such as those of `make_bot`.
    """
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
    return GameResult(seed, state.scores(), state.ranking(), winners, len(state.history), over)


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


def load(setup: Setup) -> Game:
    """Compile the game, or load it from the on-disk module cache (CompileError on bad rules)."""
    return load_game(
        setup.path, expansions=setup.expansions, variants=setup.variants, map=setup.map
    )


# The game of the simulation this process runs: a forked worker inherits it from the parent,
# a spawned one loads it once.
_running: dict[Setup, Game] = {}


def _worker_game(setup: Setup) -> Game:
    game = _running.get(setup)
    if game is None:
        _running.clear()
        game = _running[setup] = load(setup)
    return game


def play_batch(game: Game, setup: Setup, start: int, count: int) -> Tally:
    """Play games start .. start+count-1 of a simulation and tally them."""
    tally = Tally.empty(setup.players)
    for index in range(start, start + count):
        seed = f"{setup.seed}/{index}"
        bots = [make_bot(spec, f"{seed}/{seat}", game) for seat, spec in enumerate(setup.bots)]
        try:
            tally.add(play_game(game, setup.players, seed, bots, trusted=True))
        except MetroRuntimeError as error:
            raise RuleError(f"in game {index} (seed '{seed}'): {error}") from error
    return tally


def run_batch(setup: Setup, start: int, count: int) -> Tally:
    """Load the game (once per process) and play one batch; the process-pool task."""
    return play_batch(_worker_game(setup), setup, start, count)


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
) -> SimulationStats:
    """Play `games` seeded games of `game` (a name or path); `bots` (one per seat) or `bot` for all."""
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, not {games}")
    seats = tuple(bots) if bots is not None else (bot,) * players
    if len(seats) != players:
        raise ValueError(f"{len(seats)} bots for {players} players: give one bot per seat")
    setup = Setup(
        game_path(game), players, str(seed), seats, tuple(variants), tuple(expansions), map
    )
    loaded = load(setup)  # compile errors surface here, and workers then find the module cached
    _running.clear()
    _running[setup] = loaded
    if not loaded.min_players <= players <= loaded.max_players:
        raise ValueError(
            f"{loaded.name} takes {loaded.min_players}-{loaded.max_players} players, not {players}"
        )
    for spec in dict.fromkeys(seats):
        make_bot(spec, 0, loaded)  # an unknown bot fails here, before any game is played
    started = time.perf_counter()
    tally = Tally.empty(players)
    if jobs <= 1:
        for start, count in batches(games, SERIAL_BATCHES):
            _merge(tally, play_batch(loaded, setup, start, count), progress)
    else:
        _run_pool(setup, batches(games, jobs * BATCHES_PER_JOB), jobs, tally, progress)
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


def _merge(tally: Tally, part: Tally, progress: Callable[[int], None] | None) -> None:
    tally.merge(part)
    if progress is not None:
        progress(part.games)


def _run_pool(
    setup: Setup,
    parts: list[tuple[int, int]],
    jobs: int,
    tally: Tally,
    progress: Callable[[int], None] | None,
) -> None:
    # The platform's start method: fork on Linux (workers inherit the loaded game), spawn or
    # forkserver elsewhere (workers load it from the module cache; scripts then need an
    # `if __name__ == "__main__":`).
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_batch, setup, start, count) for start, count in parts]
        try:
            for future in as_completed(futures):
                _merge(tally, future.result(), progress)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
