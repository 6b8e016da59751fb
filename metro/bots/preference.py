"""Bots declared in rule files: take the legal action the game's `bot` block scores highest."""

from __future__ import annotations

import random

from runtime.errors import MetroRuntimeError, RuleError
from runtime.machine import Action, State


class PreferenceBot:
    """Scores each legal action with the game's declared expressions; ties are broken at random."""

    frameless = True  # its expressions only read the position

    def __init__(self, scores: dict, seed: int | str = 0):
        self.scores = scores
        self.rng = random.Random(seed)

    def choose(self, state: State, player: int) -> Action:
        """The best-scored legal action (unscored actions count 0)."""
        best: list[Action] = []
        best_score = None
        scorer_of = self.scores.get
        name = scorer = None
        try:
            for action in state.legal_actions(player):
                # Listings are sorted, so the actions of one name come together: one lookup each.
                if action[1] != name:
                    name = action[1]
                    scorer = scorer_of(name)
                score = scorer(state, player, action[2]) if scorer is not None else 0
                if best_score is None or score > best_score:
                    best, best_score = [action], score
                elif score == best_score:
                    best.append(action)
        # As State._guarded: a failing or over-budget score is a RuleError at its .metro line.
        except RuleError as error:
            if error.file:
                raise
            raise state.game.rule_error(error) from error
        except MetroRuntimeError:
            raise
        except Exception as error:
            raise state.game.rule_error(error) from error
        return self.rng.choice(best)


def declared_bot(game, name: str, seed: int | str = 0) -> PreferenceBot | None:
    """The game's own bot of that name, if it declares one."""
    scores = getattr(game.module, "BOTS", {}).get(name)
    return PreferenceBot(scores, seed) if scores is not None else None
