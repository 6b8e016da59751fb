"""Every metro game as an OpenSpiel game (the rl extra): `metro.openspiel_game(name, players=N)`.

A sequential game of imperfect information: the player to act is the first of those to move
(at a simultaneous choice each chooses in turn, and no observation shows the others'
choices). Chance is sampled (`SAMPLED_STOCHASTIC`): dice and shuffles happen inside the
actions, from the position's seeded generator, as everywhere in metro; every initial state is
seeded with the game's `seed` parameter, so the same actions always lead to the same position.
Action k is the k-th of the player's legal actions; observations are `metro.encoding`'s
vector of the player's view. Returns: 1 for a sole win, 1/k for a win shared by k, else 0, at
the end; a game that reaches its `max decisions`, or in which nobody can move, ends with 0.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pyspiel

from compiler import load_game
from metro.encoding import MAX_ACTIONS, Encoder, TooManyActions
from metro.games import game_path
from runtime.machine import Game, State


class MetroSpielGame(pyspiel.Game):
    """A metro game at one player count, as OpenSpiel sees it."""

    def __init__(self, game: Game, players: int, seed: int = 0, max_actions: int = MAX_ACTIONS):
        if not game.min_players <= players <= game.max_players:
            raise ValueError(
                f"{game.name} takes {game.min_players}-{game.max_players} players, not {players}"
            )
        self.metro = game
        self.players = players
        self.seed = seed
        self.max_actions = max_actions
        self.encoder = Encoder(game, players)
        short = "metro_" + re.sub(r"[^a-z0-9]+", "_", game.name.lower()).strip("_")
        game_type = pyspiel.GameType(
            short_name=short,
            long_name=f"metro: {game.name}",
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
            information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.GENERAL_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=players,
            min_num_players=players,
            provides_information_state_string=False,
            provides_information_state_tensor=False,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification={"players": players, "seed": seed},
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=max_actions,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            max_game_length=game.max_decisions,
        )
        super().__init__(game_type, info, {"players": players, "seed": seed})

    def new_initial_state(self) -> MetroSpielState:
        """A new game, seeded with the game's seed."""
        return MetroSpielState(self, self.metro.new_game(self.players, self.seed))

    def make_py_observer(self, iig_obs_type=None, params=None) -> MetroObserver:
        """The observer of a player's view (the same for every observation type asked)."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return MetroObserver(self)


class MetroSpielState(pyspiel.State):
    """A position of a metro game."""

    def __init__(self, game: MetroSpielGame, state: State):
        super().__init__(game)
        self.position = state
        self.max_actions = game.max_actions
        self.max_decisions = game.metro.max_decisions

    def _ended(self) -> bool:
        position = self.position
        return not position.to_move or len(position.history) >= self.max_decisions

    def current_player(self) -> int:
        """The player to act, or TERMINAL."""
        if self._ended():
            return pyspiel.PlayerId.TERMINAL
        return self.position.to_move[0]

    def _legal_actions(self, player: int) -> list[int]:
        """0 .. len(legal)-1 for the player to act, nothing for anyone else."""
        if self._ended() or player != self.position.to_move[0]:
            return []
        count = len(self.position.legal_actions(player))
        if count > self.max_actions:
            raise TooManyActions(
                f"{count} legal actions here, more than the game's {self.max_actions}: "
                "ask for a larger max_actions"
            )
        return list(range(count))

    def _apply_action(self, action: int) -> None:
        player = self.position.to_move[0]
        self.position.apply(player, self.position.legal_actions(player)[action])

    def _action_to_string(self, player: int, action: int) -> str:
        if not self._ended() and player == self.position.to_move[0]:
            legal = self.position.legal_actions(player)
            if 0 <= action < len(legal):
                return legal[action].id
        return f"action {action}"

    def is_terminal(self) -> bool:
        """True once the game is over, or can go on no more."""
        return self._ended()

    def returns(self) -> list[float]:
        """Win shares at the end, zeros before."""
        position = self.position
        if not position.over:
            return [0.0] * position.n
        winners = position.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(position.n)]

    def __str__(self) -> str:
        # The seed and the actions fix the position (the rules are deterministic given them).
        position = self.position
        moves = " ".join(f"{p + 1}:{a.id}" for p, a in position.history)
        return f"seed {position.seed}; {moves}"


class MetroObserver:
    """OpenSpiel's observer interface over `metro.encoding`."""

    def __init__(self, game: MetroSpielGame):
        self.encoder = game.encoder
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MetroSpielState, player: int) -> None:
        """Fill the tensor with `player`'s view of `state`."""
        self.tensor[:] = self.encoder.observe(state.position, player)

    def string_from(self, state: MetroSpielState, player: int) -> str:
        """`player`'s view of `state` as JSON text."""
        return json.dumps(state.position.view(player), sort_keys=True)


def openspiel_game(
    name: str,
    players: int,
    variants=(),
    expansions=(),
    seed: int = 0,
    max_actions: int = MAX_ACTIONS,
) -> MetroSpielGame:
    """A game (a shipped game's name or a path) as an OpenSpiel game."""
    game = load_game(game_path(name), expansions=expansions, variants=variants)
    return MetroSpielGame(game, players, seed, max_actions)
