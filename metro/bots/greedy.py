"""The greedy bot: one-ply lookahead on sampled positions, so it never peeks at hidden data."""

from __future__ import annotations

import random

from metro.bots.evaluation import margin, settle
from runtime.determinize import sample_position
from runtime.errors import IllegalAction
from runtime.machine import Action, State

SAMPLES = 3  # sampled positions each action is tried on


def preference(game) -> dict | None:
    """The action scores of the bot the game declares (its default one, else its only one)."""
    declared = getattr(game.module, "BOTS", {})
    if game.default_bot in declared:
        return declared[game.default_bot]
    return next(iter(declared.values())) if len(declared) == 1 else None


class GreedyBot:
    """Takes the action whose position is valued best: the margin, then the game's declared bot.

    Each legal action is applied to a few sampled positions (`runtime.determinize`), never the
    true one; at a simultaneous choice the others' pending choices are then drawn at random.
    The position reached is valued by its margin on the game's `estimate`, or with none on the
    score as if the game ended there (`metro.bots.evaluation`), averaged over the samples; ties
    go to the score the game's own `bot` block gives the action, then to the seeded generator.
    """

    def __init__(self, seed: int | str = 0, game=None, samples: int = SAMPLES):
        self.rng = random.Random(seed)
        self.samples = samples
        self.scores = preference(game) if game is not None else None

    def choose(self, state: State, player: int) -> Action:
        """The best-valued legal action."""
        actions = state.legal_actions(player)
        if len(actions) == 1:
            return actions[0]
        totals = [0.0] * len(actions)
        first = None
        for _ in range(self.samples):
            sample = sample_position(state, player, self.rng)
            others = int(
                self.rng.random() * (1 << 53)
            )  # the others' secret choices: one draw for all
            if first is None:
                first = sample
            sample.legal_actions(player)  # listed once here: each clone below keeps the list
            for index, action in enumerate(actions):
                after = sample.clone()
                try:
                    after.apply(player, action)
                except IllegalAction:  # cannot happen when legality reads no secret
                    totals[index] -= float("inf")
                    continue
                settle(after, player, others)
                totals[index] += margin(after, player)
        keys = [
            (total, self._preference(first, player, a))
            for total, a in zip(totals, actions, strict=True)
        ]
        best = max(keys)
        tied = [a for a, key in zip(actions, keys, strict=True) if key == best]
        return tied[int(self.rng.random() * len(tied))]

    def _preference(self, sample: State, player: int, action: Action):
        scorer = None if self.scores is None else self.scores.get(action.name)
        if scorer is None:
            return 0
        return sample._guarded(scorer, sample, player, action.args)
