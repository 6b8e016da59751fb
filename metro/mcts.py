"""Information-set Monte Carlo tree search (single observer, Cowling, Powley & Whitehouse 2012).

Each iteration draws a determinization of the decider's information set
(`runtime.determinize.sample_position`), descends one tree keyed by actions along those
legal in that determinization (UCB1 with availability counts), adds one node, values it and
backs the value up for every seat.

Reward of a seat (`metro.evaluation.rewards`): 0.8 for a sole first place and 0.4 for a
shared one, plus 0.2 x its normalized margin (0 when far behind, 0.1 level, 0.2 far ahead);
so wins count most and values break near-ties. A game that declares an `estimate` has its new
leaf valued by it at once (no random playout: random play, such as random bids, adds more
noise than information once the rules can judge a position): 0.5 + 0.5 tanh(margin / scale),
the scale being the mean margin size met so far in this search. Any other game is played on
at random for at most `playout` decisions and, if still unfinished, valued the same way on
its score as if the game ended there (the rules' `final` block run on a copy).

The root's actions start with PRIOR_VISITS virtual visits at their one-ply value (what greedy
knows), and the action chosen is the one of the best lower confidence bound of its mean reward,
prior included ("secure child"): among many near-equal options (a bid of any amount) the search
must find evidence before it departs from what pays at once.

Simultaneous choices are decoupled (DUCT, Lanctot et al. 2013): at such a node every player
still to choose picks by UCB1 from their own statistics, which no other player's choice of
this step is part of, so nobody's choice depends on what the others chose in secret; the
child is keyed by all the choices together. Every chooser's statistics there start at their
options' one-ply values too (taken before anyone chooses), so the others are modelled as
playing sensibly, not as bidding at random, until the search learns better. Chance happens inside `apply` from the state's
own generator, which every determinization re-seeds, so each iteration meets fresh chance
outcomes below the same action sequence (an open-loop tree).
"""

from __future__ import annotations

import math
import random
import time

from metro.evaluation import margins, rewards, settle
from runtime.determinize import sample_position
from runtime.machine import Action, State

ITERATIONS = 200
PLAYOUT = 80  # decisions played at random after the tree, for a game without an estimate
PLAYOUT_WITH_ESTIMATE = 0  # ... and for a game that declares one: its leaves are valued by it
EXPLORATION = 0.7  # UCB1's constant for rewards in [0, 1]
PRIOR_VISITS = 8  # virtual visits each root action starts with, at its one-ply value
SECURITY = 1.0  # how much the final choice discounts a mean reward by its uncertainty


class Arm:
    """One player's statistics of one action at a simultaneous choice."""

    __slots__ = ("reward", "visits")

    def __init__(self):
        self.visits = 0
        self.reward = 0.0


class Node:
    """A tree node: visits, availability, each seat's summed reward, children, secret arms.

    Children are keyed by an action, or after a simultaneous choice by the tuple of
    (player, action) choices made there; `arms` holds each chooser's statistics there.
    """

    __slots__ = ("arms", "available", "children", "reward", "visits")

    def __init__(self, players: int):
        self.children: dict[object, Node] = {}
        self.visits = 0
        self.available = 1
        self.reward = [0.0] * players
        self.arms: dict[int, dict[Action, Arm]] | None = None


class MctsBot:
    """ISMCTS with a budget per decision: `iterations`, or `milliseconds` of search if given."""

    def __init__(
        self,
        seed: int | str = 0,
        game=None,
        iterations: int = ITERATIONS,
        milliseconds: float | None = None,
        playout: int | None = None,
    ):
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.milliseconds = milliseconds
        if playout is None:
            estimated = game is not None and game.has_estimate
            playout = PLAYOUT_WITH_ESTIMATE if estimated else PLAYOUT
        self.playout = playout

    def choose(self, state: State, player: int) -> Action:
        """The player's legal action of the best secure value (mean less uncertainty) after the search."""
        actions = state.legal_actions(player)
        if len(actions) == 1:
            return actions[0]
        root = Node(state.n)
        self._cut_offs, self._margin_total = 0, 0.0
        self._seed_root(root, state, player, actions)
        deadline = None
        if self.milliseconds is not None:
            deadline = time.perf_counter() + self.milliseconds / 1000
        done = 0
        while (
            done < self.iterations
            if deadline is None
            else not done or time.perf_counter() < deadline
        ):
            self._iterate(root, sample_position(state, player, self.rng))
            done += 1
        # The "secure" child: the best mean reward less its uncertainty, prior visits included.
        # With as many options as a bid has, visits are spread nearly evenly, so the most
        # visited is chosen by noise, and the best mean is often one seen a few lucky times.
        if root.arms is not None:  # the root is a simultaneous choice
            arms = root.arms[player]
            return max(actions, key=lambda a: _secure(arms[a].reward, arms[a].visits))
        children = root.children
        return max(actions, key=lambda a: _secure(children[a].reward[player], children[a].visits))

    def _seed_root(self, root: Node, state: State, player: int, actions: list[Action]) -> None:
        """Start every root action at its one-ply value, as if visited PRIOR_VISITS times.

        That is greedy's knowledge: among many options (a bid of any of fifty amounts) the
        search then needs evidence before it prefers one that loses value at once. The value
        is taken on one sampled position.
        """
        values = self._one_ply(sample_position(state, player, self.rng), player, actions)
        if state.game.sites[state.site].secret:
            root.arms = {player: _prior_arms(actions, values, player)}
            return
        for action, value in zip(actions, values, strict=True):
            child = root.children[action] = Node(state.n)
            child.visits = child.available = PRIOR_VISITS
            child.reward = [PRIOR_VISITS * v for v in value]

    def _one_ply(self, state: State, mover: int, actions: list[Action]) -> list[list[float]]:
        """Each action's rewards for every seat one decision ahead of `state` (a sample).

        At a simultaneous choice the others' choices are drawn at random, the same draw for
        every action, so that actions are compared on equal terms.
        """
        others = int(self.rng.random() * (1 << 53))
        reached = []
        for action in actions:
            after = state.clone()
            after.apply(mover, action)  # a sample: checked, like greedy
            settle(after, mover, others)
            reached.append(after)
        for after in reached:
            if not after.over:
                self._cut_offs += 1
                self._margin_total += sum(abs(m) for m in margins(after)) / after.n
        scale = max(1.0, self._margin_total / max(1, self._cut_offs))
        return [rewards(after, scale) for after in reached]

    def _iterate(self, root: Node, state: State) -> None:
        node, path, pulled = root, [root], []
        while not state.over:
            if state.game.sites[state.site].secret:
                key = self._simultaneous(node, state, pulled)
                child = node.children.get(key)
                if child is None:
                    node.children[key] = child = Node(state.n)
                    path.append(child)
                    break
                node = child
                path.append(node)
                continue
            mover = state.to_move[0]
            actions = state.legal_actions(mover)
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
        values = self._playout(state)
        for visited in path:
            visited.visits += 1
            for seat, value in enumerate(values):
                visited.reward[seat] += value
        for seat, arm in pulled:
            arm.visits += 1
            arm.reward += values[seat]

    def _simultaneous(self, node: Node, state: State, pulled: list) -> tuple:
        """Everyone still to choose at this simultaneous choice picks from their own arms."""
        if node.arms is None:
            node.arms = {}
        for mover in state.to_move:  # new choosers start at their one-ply values, like the root
            if mover not in node.arms:
                actions = state.legal_actions(mover)
                values = self._one_ply(state, mover, actions)
                node.arms[mover] = _prior_arms(actions, values, mover)
        chosen: list[tuple[int, Action]] = []
        choosers: set[int] = set()
        site = state.site
        while not state.over and state.site == site:
            mover = state.to_move[0]
            if mover in choosers:  # the same choice asked again (a new step): a new node
                break
            arms = node.arms.setdefault(mover, {})
            action = self._pull(arms, state.legal_actions(mover))
            pulled.append((mover, arms[action]))
            chosen.append((mover, action))
            choosers.add(mover)
            state.apply_legal(mover, action)
        return tuple(chosen)

    def _pull(self, arms: dict[Action, Arm], actions: list[Action]) -> Action:
        """An untried action at random, else the one of the highest UCB1 value."""
        untried = [a for a in actions if a not in arms]
        if untried:
            action = self._pick(untried)
            arms[action] = Arm()
            return action
        total = math.log(sum(arms[a].visits for a in actions) + 1)
        return max(
            actions,
            key=lambda a: (
                arms[a].reward / max(arms[a].visits, 1)
                + EXPLORATION * math.sqrt(total / max(arms[a].visits, 1))
            ),
        )

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
        if state.over:
            return rewards(state)
        # The scale of a cut-off position's margins: their mean size so far in this search.
        self._cut_offs += 1
        self._margin_total += sum(abs(m) for m in margins(state)) / state.n
        return rewards(state, max(1.0, self._margin_total / self._cut_offs))

    def _pick(self, actions: list[Action]) -> Action:
        return actions[int(self.rng.random() * len(actions))]


def _secure(reward: float, visits: int) -> float:
    """A lower confidence bound of an action's mean reward."""
    return reward / visits - SECURITY / math.sqrt(visits)


def _prior_arms(actions: list[Action], values: list[list[float]], mover: int) -> dict[Action, Arm]:
    """Arms that start at their one-ply values, as if pulled PRIOR_VISITS times."""
    arms = {}
    for action, value in zip(actions, values, strict=True):
        arm = arms[action] = Arm()
        arm.visits, arm.reward = PRIOR_VISITS, PRIOR_VISITS * value[mover]
    return arms
