"""Bots that pick actions for players: the protocol, a random bot and a registry by name.

A bot is named by a spec: a name, optionally with a budget after a colon: `mcts:500`
(iterations per decision), `mcts:250ms` (time per decision), `greedy:8` (sampled positions);
mcts's budget may add after a slash how many decisions from the root get one-ply priors
(`mcts:800/2`; 1 if not given).
Budgets are bounded (docs/language/bots.md states the bounds), so no spec, typed or read
from a save, can stall a game for hours at one decision.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from metro.bots.greedy import GreedyBot
from metro.bots.mcts import PRIOR_DEPTH, MctsBot
from metro.bots.preference import PreferenceBot
from runtime.machine import Action, State

# The largest budgets, stated in docs/language/bots.md: 50 times mcts's default of 200
# iterations, a minute of search, and greedy's 3 samples made 100.
MAX_MCTS_ITERATIONS = 10_000
MAX_MCTS_MILLISECONDS = 60_000
MAX_GREEDY_SAMPLES = 100
MAX_PRIOR_DEPTH = 4  # decisions from the root given one-ply priors (`mcts:800/2`)


class Bot(Protocol):
    """Anything that picks one of a player's legal actions.

    A bot whose `frameless` is true only reads the position it is asked about (never copies,
    saves, restores or changes it): games of such bots may run on the frameless driver
    (runtime/driver.py), which keeps no frames for the positions between decisions. A bot that
    chooses from the legal list alone may also have `pick(actions)`, which the driver then calls
    at a menu instead of `choose`, making no frame for it.
    """

    def choose(self, state: State, player: int) -> Action:
        """One of `state.legal_actions(player)`."""
        ...


class RandomBot:
    """Uniform over the legal actions, drawn from its own seeded generator."""

    frameless = True  # it only reads the legal actions

    def __init__(self, seed: int | str = 0, game=None):
        self.rng = random.Random(seed)

    def choose(self, state: State, player: int) -> Action:
        """A uniformly random legal action."""
        return self.pick(state.legal_actions(player))

    def pick(self, actions: list[Action]) -> Action:
        """A uniformly random one of `actions` (the legal list: the driver may ask so)."""
        # Only Random.random() is promised to repeat across Python versions for one seed.
        return actions[int(self.rng.random() * len(actions))]


def _random(seed: int | str, game, budget: str | None) -> Bot:
    if budget is not None:
        raise ValueError("the random bot takes no budget")
    return RandomBot(seed)


def _greedy(seed: int | str, game, budget: str | None) -> Bot:
    if budget is None:
        return GreedyBot(seed, game)
    samples = _count(budget, "greedy", "sampled positions", MAX_GREEDY_SAMPLES)
    return GreedyBot(seed, game, samples=samples)


def _mcts(seed: int | str, game, budget: str | None) -> Bot:
    if budget is None:
        return MctsBot(seed, game)
    budget, slash, depth = budget.partition("/")
    prior_depth = PRIOR_DEPTH
    if slash:
        prior_depth = _count(depth, "mcts", "decisions given priors", MAX_PRIOR_DEPTH)
    if budget.endswith("ms"):
        time = _count(budget[:-2], "mcts", "milliseconds", MAX_MCTS_MILLISECONDS)
        return MctsBot(seed, game, milliseconds=time, prior_depth=prior_depth)
    iterations = _count(budget, "mcts", "iterations", MAX_MCTS_ITERATIONS)
    return MctsBot(seed, game, iterations=iterations, prior_depth=prior_depth)


def _count(text: str, bot: str, what: str, most: int) -> int:
    # Digits only: int() would also take "1_000", " 5" and other spellings no doc shows.
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= most:
        raise ValueError(
            f"the {bot} bot's budget is a whole number of {what} (1 to {most}), not {text!r}"
        )
    return int(text)


# A factory gets the bot's seed, the game (or None) and the budget after the colon (or None).
BOTS: dict[str, Callable[[int | str, object, str | None], Bot]] = {
    "greedy": _greedy,
    "mcts": _mcts,
    "random": _random,
}


# The levels of play every game has, unless its rules name other bots for them (`level hard "…"`).
DEFAULT_LEVELS = {"easy": "random", "medium": "greedy", "hard": "mcts"}


def levels(game=None) -> dict[str, str]:
    """Each level of play and the bot it names: the defaults, then the game's own."""
    return DEFAULT_LEVELS | (game.levels if game is not None else {})


def bot_names(game=None) -> list[str]:
    """The registered bots, the levels of play, and the bots the game declares in its rules."""
    declared = list(getattr(game.module, "BOTS", {})) if game is not None else []
    return sorted(set(BOTS) | set(levels(game)) | set(declared))


def spec_of(name: str, game=None) -> str:
    """The bot a name stands for: a level's bot, else the name itself (a declared bot's name
    wins over a level's)."""
    declared = getattr(game.module, "BOTS", {}) if game is not None else {}
    return levels(game).get(name, name) if name not in declared else name


def make_bot(name: str, seed: int | str, game=None) -> Bot:
    """A new bot: one the game declares (`bot "name" {…}`), a level of play, or a registered
    kind[:budget]; else ValueError."""
    declared = getattr(game.module, "BOTS", {}) if game is not None else {}
    spec = spec_of(name, game)
    if spec == name:
        return _made(name, seed, game, declared)
    try:
        return _made(spec, seed, game, declared)
    except ValueError as error:
        raise ValueError(f"level '{name}' names a bot that cannot be made: {error}") from None


def _made(name: str, seed: int | str, game, declared: dict) -> Bot:
    """A declared bot or a registered kind[:budget] (never a level: a level names a bot)."""
    if name in declared:
        return PreferenceBot(declared[name], seed)
    kind, colon, budget = name.partition(":")
    factory = BOTS.get(kind)
    if factory is None:
        raise ValueError(f"unknown bot '{name}' (known: {', '.join(bot_names(game))})")
    return factory(seed, game, budget if colon else None)
