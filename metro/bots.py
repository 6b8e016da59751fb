"""Bots that pick actions for players: the protocol, a random bot and a registry by name."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from metro.preference import PreferenceBot
from runtime.machine import Action, State


class Bot(Protocol):
    """Anything that picks one of a player's legal actions."""

    def choose(self, state: State, player: int) -> Action:
        """One of `state.legal_actions(player)`."""
        ...


class RandomBot:
    """Uniform over the legal actions, drawn from its own seeded generator."""

    def __init__(self, seed: int | str = 0):
        self.rng = random.Random(seed)

    def choose(self, state: State, player: int) -> Action:
        """A uniformly random legal action."""
        actions = state.legal_actions(player)
        # Only Random.random() is promised to repeat across Python versions for one seed.
        return actions[int(self.rng.random() * len(actions))]


BOTS: dict[str, Callable[[int | str], Bot]] = {"random": RandomBot}


def bot_names(game=None) -> list[str]:
    """The registered bots plus those the game declares in its rules."""
    declared = list(getattr(game.module, "BOTS", {})) if game is not None else []
    return sorted(set(BOTS) | set(declared))


def make_bot(name: str, seed: int | str, game=None) -> Bot:
    """A new bot: one the game declares (`bot "name" {…}`), or a registered kind; else ValueError."""
    declared = getattr(game.module, "BOTS", {}) if game is not None else {}
    if name in declared:
        return PreferenceBot(declared[name], seed)
    try:
        factory = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot '{name}' (known: {', '.join(bot_names(game))})") from None
    return factory(seed)
