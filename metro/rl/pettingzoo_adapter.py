"""Every metro game as a PettingZoo AEC environment (the rl extra): `metro.pettingzoo_env(name, players=N)`.

Agents are `player_0` … `player_{N-1}`, one per seat in seat order; the agent to act is the first of the players to move
(at a simultaneous choice each chooses in turn, and none sees the others' choices). Each
observation is `{"observation": vector, "action_mask": mask}` from `metro.rl.encoding`: the
acting player's view, never hidden data, and index k of the action space is their k-th
legal action. Rewards come at the end: 1 for a sole win, 1/k for a win shared by k, else 0.
A game that reaches its `max decisions` is truncated; one in which nobody can move ends
with no winner. `reset(seed=S)` plays the game the runtime seeds with S (`game.new_game(N, S)`).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from loader import load_game
from loader.games import game_path
from metro.rl.encoding import MAX_ACTIONS, Encoder, action_mask
from runtime.machine import Game
from runtime.values import PLAYER


class MetroEnv(AECEnv):
    """One game at one player count as an AEC environment."""

    metadata: ClassVar[dict] = {
        "render_modes": ["ansi"],
        "name": "metro_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: Game,
        players: int,
        max_actions: int = MAX_ACTIONS,
        render_mode: str | None = None,
    ):
        super().__init__()
        if not game.min_players <= players <= game.max_players:
            raise ValueError(
                f"{game.name} takes {game.min_players}-{game.max_players} players, not {players}"
            )
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode is 'ansi' or None, not {render_mode!r}")
        self.game = game
        self.players = players
        self.max_actions = max_actions
        self.render_mode = render_mode
        self.encoder = Encoder(game, players)
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        # One space object per agent and instance, returned every time (PettingZoo's seed test).
        observation = spaces.Dict(
            {
                "observation": spaces.Box(
                    -np.inf, np.inf, shape=(self.encoder.size,), dtype=np.float64
                ),
                "action_mask": spaces.Box(0, 1, shape=(max_actions,), dtype=np.int8),
            }
        )
        self._observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self._action_spaces = {a: spaces.Discrete(max_actions) for a in self.possible_agents}
        self.state_ = None

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of an agent (the same object every call)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of an agent (the same object every call)."""
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game, seeded with `seed` (0 if none is given)."""
        self.state_ = self.game.new_game(self.players, 0 if seed is None else seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._settle()

    def observe(self, agent: str) -> dict:
        """What `agent` sees now, and which action indices are legal for it."""
        seat = self._seat[agent]
        vector = np.asarray(self.encoder.observe(self.state_, seat), dtype=np.float64)
        mask = np.asarray(action_mask(self.state_, seat, self.max_actions), dtype=np.int8)
        return {"observation": vector, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """The acting agent takes its `action`-th legal action (None once it is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        legal = self.state_.legal_actions(seat)
        if action is None or not 0 <= int(action) < len(legal):
            raise ValueError(f"{agent} has {len(legal)} legal actions; {action!r} is none of them")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.state_.apply(seat, legal[int(action)])
        self._settle()
        self._accumulate_rewards()

    def _settle(self) -> None:
        """Point at the next agent to act, or end the game with its rewards."""
        state = self.state_
        movers = state.to_move
        truncated = bool(movers) and len(state.history) >= self.game.max_decisions
        if movers and not truncated:
            self.agent_selection = self.possible_agents[movers[0]]
            return
        winners = state.winners() if state.over else []
        for agent in self.agents:
            seat = self._seat[agent]
            self.rewards[agent] = 1.0 / len(winners) if seat in winners else 0.0
            self.terminations[agent] = not truncated
            self.truncations[agent] = truncated
        self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        """The position as text ('ansi'), or nothing without a render mode."""
        if self.render_mode is None:
            return None
        state = self.state_
        lines = [f"{self.game.name}: {len(state.history)} decisions, scores {state.scores()}"]
        if state.over:
            lines.append("over; winners: " + ", ".join(PLAYER.label(p) for p in state.winners()))
        else:
            lines.append("to move: " + ", ".join(PLAYER.label(p) for p in state.to_move))
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""


def pettingzoo_env(
    name: str,
    players: int,
    variants=(),
    expansions=(),
    max_actions: int = MAX_ACTIONS,
    render_mode: str | None = None,
) -> MetroEnv:
    """A game (a shipped game's name or a path) as a PettingZoo AEC environment."""
    game = load_game(game_path(name), expansions=expansions, variants=variants)
    return MetroEnv(game, players, max_actions, render_mode)
