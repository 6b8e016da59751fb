"""The skill trace of `metro compare --skill-trace`: does thinking more win more under these rules?

Round r plays the search bot at budget b·2^(r+1) against itself at b·2^r (the larger budget
at one seat, the smaller at every other). Game i of every round and configuration is seeded
`f"{seed}/{i}"` and its bots `f"{seed}/{i}/{p}"`, as the compared games are, and the larger
budget sits at seat i mod players, so seats rotate and every round meets the same deals. A
round's answer is the larger budget's win rate with its Wilson interval, against the
1/players it would have if budget did not matter.
"""

from __future__ import annotations

from dataclasses import dataclass

from metro.analysis.simulate import GameCode, Setup, load, play_game, wilson_interval
from metro.bots import make_bot
from runtime.errors import MetroRuntimeError, RuleError

SKILL_BOT = "mcts"  # the search bot, whose budget is its iterations per decision
SKILL_BUDGET = 25  # the first round's smaller budget
SKILL_ROUNDS = 3
SKILL_GAMES = 20  # games per round and configuration
SKILL_PREFIX = "skill: "  # how the rounds' quantities are named among a comparison's


@dataclass(frozen=True)
class SkillPlan:
    """What a skill trace plays: the bot, its first budget, the rounds and the games per round."""

    budget: int = SKILL_BUDGET
    rounds: int = SKILL_ROUNDS
    games: int = SKILL_GAMES
    bot: str = SKILL_BOT

    def budgets(self, number: int) -> tuple[str, str]:
        """The round's smaller and larger bot specs."""
        small = self.budget * 2**number
        return f"{self.bot}:{small}", f"{self.bot}:{2 * small}"

    def check(self) -> None:
        """ValueError unless every round's bots can be made (budgets within the bot's bounds)."""
        if self.rounds < 1 or self.games < 1:
            raise ValueError("a skill trace needs at least one round of at least one game")
        for number in range(self.rounds):
            for spec in self.budgets(number):
                make_bot(spec, 0)  # an out-of-bounds budget says so here, before any game

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {"bot": self.bot, "budget": self.budget, "rounds": self.rounds, "games": self.games}


@dataclass(frozen=True)
class SkillRound:
    """One round of a skill trace: the larger budget's share of each game's win."""

    small: str
    large: str
    shares: list[float]  # per game: 1 for a sole win, 1/k for a win shared by k, else 0
    finished: int
    players: int

    @property
    def win_rate(self) -> float:
        """The larger budget's share of the finished games' wins."""
        return sum(self.shares) / self.finished if self.finished else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the win rate."""
        return wilson_interval(sum(self.shares), self.finished)

    @property
    def name(self) -> str:
        """How differences and tables name the round."""
        return f"{SKILL_PREFIX}{self.large} vs {self.small} win rate"

    def to_dict(self) -> dict:
        """JSON-able fields."""
        return {
            "small": self.small,
            "large": self.large,
            "games": len(self.shares),
            "finished": self.finished,
            "win_rate": self.win_rate,
            "ci95": list(self.interval),
            "even": 1 / self.players,
        }


@dataclass(frozen=True)
class SkillGame:
    """One skill-trace game as a worker returns it: the larger budget's share and if it ended."""

    share: float
    over: bool


def run_skill(
    code: GameCode, setup: Setup, start: int, count: int, small: str, large: str
) -> list[SkillGame]:
    """Load the game (once per process) and play skill games start .. start+count-1."""
    game = load(code)
    out = []
    for index in range(start, start + count):
        seed = f"{setup.seed}/{index}"
        strong = index % setup.players  # seats rotate game by game
        specs = [large if seat == strong else small for seat in range(setup.players)]
        bots = [make_bot(spec, f"{seed}/{seat}", game) for seat, spec in enumerate(specs)]
        try:
            result = play_game(game, setup.players, seed, bots, trusted=True)
        except MetroRuntimeError as error:
            raise RuleError(f"in skill game {index} (seed '{seed}'): {error}") from error
        share = 1 / len(result.winners) if strong in result.winners else 0.0
        out.append(SkillGame(share, result.over))
    return out


def skill_round(small: str, large: str, games: list[SkillGame], players: int) -> SkillRound:
    """A round's summary from its games, in game order."""
    return SkillRound(small, large, [g.share for g in games], sum(g.over for g in games), players)
