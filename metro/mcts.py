"""Information-set Monte Carlo tree search (single observer, Cowling, Powley & Whitehouse 2012).

Each iteration draws a determinization of the decider's information set
(`runtime.determinize.sample_position`), descends one tree keyed by actions along those
legal in that determinization (UCB1 with availability counts), adds one node, plays on at
random for at most `playout` decisions and backs the result up for every seat.

Reward of a seat (`metro.evaluation.rewards`): 0.8 for a sole first place and 0.4 for a
shared one by the game's ranking, plus 0.2 x its normalized score margin (0 when far behind,
0.1 level, 0.2 far ahead); so wins count most and scores break near-ties. A playout cut off
by its budget is valued as if the game ended there (the rules' `final` block run on a copy).

Simultaneous choices: the decider chooses first; other players' secret choices are not
observed, so they are drawn at random and are not tree nodes. Chance happens inside `apply`
from the state's own generator, which every determinization re-seeds.
"""

from __future__ import annotations

import math
import random
import time

from metro.evaluation import as_ended, rewards
from runtime.determinize import sample_position
from runtime.machine import Action, State

ITERATIONS = 200
PLAYOUT = 80  # decisions played at random after the tree
EXPLORATION = 0.7  # UCB1's constant for rewards in [0, 1]


class Node:
    """A tree node: visits, availability and each seat's summed reward, children by action."""

    __slots__ = ("available", "children", "reward", "visits")

    def __init__(self, players: int):
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.available = 1
        self.reward = [0.0] * players


class MctsBot:
    """ISMCTS with a budget per decision: `iterations`, or `milliseconds` of search if given."""

    def __init__(
        self,
        seed: int | str = 0,
        game=None,
        iterations: int = ITERATIONS,
        milliseconds: float | None = None,
        playout: int = PLAYOUT,
    ):
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.milliseconds = milliseconds
        self.playout = playout

    def choose(self, state: State, player: int) -> Action:
        """The most visited of the player's legal actions after the search."""
        actions = state.legal_actions(player)
        if len(actions) == 1:
            return actions[0]
        root = Node(state.n)
        deadline = None
        if self.milliseconds is not None:
            deadline = time.perf_counter() + self.milliseconds / 1000
        done = 0
        while (
            done < self.iterations
            if deadline is None
            else not done or time.perf_counter() < deadline
        ):
            self._iterate(root, sample_position(state, player, self.rng), player)
            done += 1
        return max(
            actions,
            key=lambda a: (
                (root.children[a].visits, root.children[a].reward[player])
                if a in root.children
                else (-1, 0.0)
            ),
        )

    def _iterate(self, root: Node, state: State, player: int) -> None:
        # Every action taken here is one of the legal actions of the position it is taken at:
        # the unchecked fast path.
        node, path = root, [root]
        while not state.over:
            mover, actions, secret = self._decider(state, player)
            if secret:  # another player's secret choice: unobserved, so not in the tree
                state.apply_legal(mover, self._pick(actions))
                continue
            untried = []
            for action in actions:
                child = node.children.get(action)
                if child is None:
                    untried.append(action)
                else:
                    child.available += 1
            if untried:
                action = self._pick(untried)
                node.children[action] = child = Node(state.n)
                state.apply_legal(mover, action)
                path.append(child)
                break
            action, node = self._select(node, actions, mover)
            state.apply_legal(mover, action)
            path.append(node)
        rewards = self._playout(state)
        for visited in path:
            visited.visits += 1
            for seat, reward in enumerate(rewards):
                visited.reward[seat] += reward

    def _decider(self, state: State, player: int) -> tuple[int, list[Action], bool]:
        """Who decides next in the search, their actions, and whether that choice is unobserved."""
        movers = state.to_move
        mover = player if player in movers else movers[0]
        secret = mover != player and state.game.sites[state.site].secret
        return mover, state.legal_actions(mover), secret

    def _select(self, node: Node, actions: list[Action], mover: int) -> tuple[Action, Node]:
        """The child of the highest UCB1 value for the mover, among those available now."""
        best, best_value = None, -math.inf
        for action in actions:
            child = node.children[action]
            value = child.reward[mover] / child.visits + EXPLORATION * math.sqrt(
                math.log(child.available) / child.visits
            )
            if value > best_value:
                best, best_value = (action, child), value
        return best

    def _playout(self, state: State) -> list[float]:
        for _ in range(self.playout):
            if state.over:
                break
            mover = state.to_move[0]
            state.apply_legal(mover, self._pick(state.legal_actions(mover)))
        return rewards(as_ended(state))

    def _pick(self, actions: list[Action]) -> Action:
        return actions[int(self.rng.random() * len(actions))]
