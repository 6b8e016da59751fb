"""`metro tournament`: bots against each other on the same deals, seats rotated, rated.

The tables are every set of `players` bots from those named (every pair, with two players);
with fewer bots than seats, one table seats them in turn (A, B, A, B …). Each table plays
`deals` deals: deal d is the game seeded `f"{seed}/{d}"` for every table, played once in each
rotation of the seats (rotation r puts the table's bot i at seat (i + r) mod players), so every
bot meets every deal from every seat. The bot at seat s of rotation r in deal d is seeded
`f"{seed}/{d}/{r}/{s}"`. Results depend only on these inputs, never on how the games are split
over workers (`metro.analysis.executors`); the seconds each bot thinks are measured, not
repeated.

Ratings (`metro.analysis.ratings`) count a game as a contest between every two seats of
different bots; games that did not reach their end are left out of them and counted.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from loader.games import game_path
from metro.analysis.executors import STALL_SECONDS, open_backend, run_tasks
from metro.analysis.ratings import Rating, Tally, rate
from metro.analysis.simulate import (
    BATCHES_PER_WORKER,
    GameCode,
    Setup,
    batches,
    load,
    play_game,
    prepare,
    wilson_interval,
)
from metro.bots import Bot, make_bot
from runtime.errors import MetroRuntimeError, RuleError
from runtime.machine import Action, Game, State

SERIAL_BATCHES = 50  # progress updates in a serial run
MAX_TABLES = 200  # tables of one tournament (C(12, 2) = 66; C(10, 5) = 252 is refused)


def tables(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The tables a tournament plays: each a tuple of bots in seat order of the first rotation."""
    if len(set(bots)) != len(bots):
        raise ValueError("a bot is named twice: name each bot once")
    if len(bots) < 2:
        raise ValueError("a tournament needs at least two bots")
    if len(bots) < players:
        return [tuple(bots[seat % len(bots)] for seat in range(players))]
    chosen = list(itertools.combinations(bots, players))
    if len(chosen) > MAX_TABLES:
        raise ValueError(
            f"{len(bots)} bots make {len(chosen)} tables of {players}; "
            f"at most {MAX_TABLES}: name fewer bots"
        )
    return chosen


def seated(table: tuple[str, ...], rotation: int) -> tuple[str, ...]:
    """The bot at each seat in a rotation of the table: the table's bot i sits at (i + r) mod n."""
    n = len(table)
    return tuple(table[(seat - rotation) % n] for seat in range(n))


class TimedBot:
    """A bot whose thinking is timed (CPU seconds) and its decisions counted."""

    def __init__(self, bot: Bot):
        self.bot = bot
        self.seconds = 0.0
        self.decisions = 0
        self.frameless = getattr(bot, "frameless", False)
        if callable(getattr(bot, "pick", None)):
            self.pick = self._pick  # the frameless driver calls pick where a bot has it

    def choose(self, state: State, player: int) -> Action:
        """The bot's choice, timed."""
        started = time.process_time()
        action = self.bot.choose(state, player)
        self.seconds += time.process_time() - started
        self.decisions += 1
        return action

    def _pick(self, actions: list[Action]) -> Action:
        started = time.process_time()
        action = self.bot.pick(actions)
        self.seconds += time.process_time() - started
        self.decisions += 1
        return action


@dataclass(frozen=True)
class Match:
    """One game of a tournament: where and how it was played, and how it ended."""

    table: int
    deal: int
    rotation: int
    bots: tuple[str, ...]  # by seat
    scores: list[int]
    places: list[int]  # 1 = best
    decisions: int
    over: bool
    metrics: dict[str, list[int]]
    seconds: list[float]  # each seat's thinking, CPU seconds
    choices: list[int]  # each seat's decisions

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {
            "table": self.table,
            "deal": self.deal,
            "rotation": self.rotation,
            "bots": list(self.bots),
            "scores": self.scores,
            "places": self.places,
            "decisions": self.decisions,
            "over": self.over,
            "metrics": self.metrics,
        }


@dataclass(frozen=True)
class Entry:
    """What a tournament plays: its game, seats, bots, tables, deals and seed."""

    setup: Setup  # the game's rules and options; its `bots`: every bot named
    bots: tuple[str, ...]
    tables: tuple[tuple[str, ...], ...]
    deals: int


def play_deals(code: GameCode, entry: Entry, table: int, start: int, count: int) -> list[Match]:
    """Load the game (once per process) and play deals start .. start+count-1 of one table, in
    every rotation; the task workers run."""
    game = load(code)
    return [
        _match(game, entry, table, deal, rotation)
        for deal in range(start, start + count)
        for rotation in range(entry.setup.players)
    ]


def _match(game: Game, entry: Entry, table: int, deal: int, rotation: int) -> Match:
    players, seed = entry.setup.players, entry.setup.seed
    bots = seated(entry.tables[table], rotation)
    timed = [
        TimedBot(make_bot(spec, f"{seed}/{deal}/{rotation}/{seat}", game))
        for seat, spec in enumerate(bots)
    ]
    game_seed = f"{seed}/{deal}"
    try:
        result = play_game(game, players, game_seed, timed, metrics=True, trusted=True)
    except MetroRuntimeError as error:
        raise RuleError(
            f"in deal {deal} (seed '{game_seed}'), {', '.join(bots)}: {error}"
        ) from error
    return Match(
        table,
        deal,
        rotation,
        bots,
        result.scores,
        result.ranking,
        result.decisions,
        result.over,
        result.metrics,
        [bot.seconds for bot in timed],
        [bot.decisions for bot in timed],
    )


@dataclass
class Standing:
    """A bot's record over the whole tournament."""

    bot: str
    games: int = 0
    wins: float = 0.0  # a first place shared by k counts 1/k
    score_total: int = 0
    place_total: int = 0
    seconds: float = 0.0
    decisions: int = 0
    metric_totals: dict[str, int] = field(default_factory=dict)

    def win_rate(self) -> float:
        """Share of its games it won."""
        return self.wins / self.games if self.games else 0.0

    def to_dict(self, metric_names: Sequence[str]) -> dict:
        """JSON-able fields."""
        games = max(self.games, 1)
        low, high = wilson_interval(self.wins, self.games)
        return {
            "bot": self.bot,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate(),
            "win_rate_ci95": [low, high],
            "mean_score": self.score_total / games,
            "mean_place": self.place_total / games,
            "seconds_per_decision": self.seconds / self.decisions if self.decisions else None,
            "metrics": {name: self.metric_totals.get(name, 0) / games for name in metric_names},
        }


@dataclass
class TournamentResult:
    """Every game of a tournament, each bot's standing and rating, and the pairwise results."""

    game: str
    players: int
    deals: int
    seed: str
    bots: list[str]
    tables: list[tuple[str, ...]]
    matches: list[Match]
    ratings: list[Rating]
    standings: list[Standing]
    pairwise: Tally
    metric_names: list[str]
    seconds: float

    @property
    def unfinished(self) -> int:
        """Games that did not reach their end (left out of the ratings)."""
        return sum(not m.over for m in self.matches)

    def by_rating(self) -> list[int]:
        """The bots' numbers, best rated first (ties by the order named)."""
        return sorted(range(len(self.bots)), key=lambda b: -self.ratings[b].elo)

    def to_dict(self, records: bool = True) -> dict:
        """JSON-able result; with `records`, every game."""
        out = {
            "game": self.game,
            "players": self.players,
            "deals": self.deals,
            "games": len(self.matches),
            "seed": self.seed,
            "bots": self.bots,
            "tables": [list(t) for t in self.tables],
            "seconds": self.seconds,
            "unfinished": self.unfinished,
            "ratings": [self.ratings[b].to_dict() for b in self.by_rating()],
            "standings": [s.to_dict(self.metric_names) for s in self.standings],
            "pairwise": [
                {
                    "bot": self.bots[a],
                    "against": self.bots[b],
                    "won": self.pairwise.wins[a][b],
                    "contests": self.pairwise.contests(a, b),
                }
                for a in range(len(self.bots))
                for b in range(len(self.bots))
                if a != b and self.pairwise.contests(a, b)
            ],
        }
        if records:
            out["records"] = [m.to_dict() for m in self.matches]
        return out


def tournament(
    game: str,
    players: int,
    bots: Sequence[str],
    deals: int,
    seed: int | str,
    variants: Sequence[str] = (),
    expansions: Sequence[str] = (),
    map: str | None = None,
    jobs: int = 1,
    dask: str | None = None,
    progress: Callable[[int], None] | None = None,
    stall: float = STALL_SECONDS,
) -> TournamentResult:
    """Play every table's deals in every seat rotation, then rate the bots."""
    if deals < 2:
        raise ValueError(f"a tournament needs at least 2 deals, not {deals}")
    chosen = tables(list(bots), players)
    setup = Setup(
        game_path(game), players, str(seed), tuple(bots), tuple(variants), tuple(expansions), map
    )
    code, loaded = prepare(setup)  # compile errors, seat counts and unknown bots, before any game
    entry = Entry(setup, tuple(bots), tuple(chosen), deals)
    started = time.perf_counter()
    with open_backend(jobs, dask, stall) as backend:
        parts = SERIAL_BATCHES if backend.workers == 1 else backend.workers * BATCHES_PER_WORKER
        parts = max(1, parts // len(chosen))
        tasks = [
            (code, entry, table, start, count)
            for table in range(len(chosen))
            for start, count in batches(deals, parts)
        ]
        done = None if progress is None else (lambda part: progress(len(part)))
        played = run_tasks(backend, play_deals, tasks, done)
    seconds = time.perf_counter() - started
    matches = [match for part in played for match in part]
    return summarise(loaded, entry, matches, seconds)


def summarise(game: Game, entry: Entry, matches: list[Match], seconds: float) -> TournamentResult:
    """Standings, pairwise results and ratings of a tournament's games."""
    bots = list(entry.bots)
    number = {bot: b for b, bot in enumerate(bots)}
    standings = [Standing(bot) for bot in bots]
    by_deal = [Tally(len(bots)) for _ in range(entry.deals)]
    for match in matches:
        winners = [seat for seat, place in enumerate(match.places) if place == 1]
        for seat, bot in enumerate(match.bots):
            standing = standings[number[bot]]
            standing.games += 1
            standing.wins += 1 / len(winners) if seat in winners else 0.0
            standing.score_total += match.scores[seat]
            standing.place_total += match.places[seat]
            standing.seconds += match.seconds[seat]
            standing.decisions += match.choices[seat]
            for name, values in match.metrics.items():
                standing.metric_totals[name] = standing.metric_totals.get(name, 0) + values[seat]
        if not match.over:
            continue
        for first, second in itertools.combinations(range(entry.setup.players), 2):
            a, b = number[match.bots[first]], number[match.bots[second]]
            if a != b:
                by_deal[match.deal].add(a, b, match.places[first], match.places[second])
    pairwise = Tally(len(bots))
    for deal in by_deal:
        pairwise.merge(deal)
    return TournamentResult(
        game.name,
        entry.setup.players,
        entry.deals,
        entry.setup.seed,
        bots,
        list(entry.tables),
        matches,
        rate(bots, by_deal, entry.setup.seed),
        standings,
        pairwise,
        list(game.metric_names),
        seconds,
    )
