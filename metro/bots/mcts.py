"""Information-set Monte Carlo tree search (single observer, Cowling, Powley & Whitehouse 2012).

Each iteration draws a determinization of the decider's information set
(`runtime.determinize.sample_position`), descends one tree keyed by actions along those
legal in that determinization (UCB1 with availability counts), and backs the value of the
position reached up for every seat.

Within `prior_depth` decisions of the root (by default PRIOR_DEPTH, the root alone; the spec
`mcts:800/2` gives two), a node is expanded by trying every legal action once on the
iteration's determinization (a one-ply lookahead, greedy's knowledge), each child starting
with that value as PRIOR_VISITS virtual visits; the iteration moves on to the child UCB1
prefers and, if new, stops there, valued by its one-ply value. Deeper, each iteration adds one node (an option not tried yet, at random) and values it
at once. Where priors are known the search widens progressively: a node visited n times
considers only its 1 + WIDENING * sqrt(n) options of the best one-ply value (options of equal
value in an order drawn at random for the node), so iterations go to the few options that pay
at once until the evidence on them grows (a bid of any of fifty amounts). Priors at every node
cost five to fourteen times the time per game for no measured gain.

Reward of a seat (`metro.bots.evaluation.rewards`): at the end, 0.8 for a sole first place and 0.4
for a shared one, plus 0.2 x its normalized margin; before the end 0.5 + 0.5 tanh(margin /
scale) on the estimate, the scale being the mean margin size met so far in this search. A
game without an estimate is played on at random for at most `playout` decisions from each
new leaf, then valued the same way on its score as if the game ended there (the rules'
`final` block run on a copy).

The action chosen is the one of the best lower confidence bound of the mean reward the search
met ("secure child"), among the options it tried: the virtual visits are left out, as one-ply
values drawn against random secret choices of the others sit higher than searched lines. At a
simultaneous root it is the best response to the others' choices as often as the search made
them: each tried option is valued against all of them (by the searched mean of that
combination, else by a new leaf's value), so options are compared against the same choices of
the others, not each against those it happened to meet (which let a costly bid that changes
nothing win by luck).

Simultaneous choices are decoupled (DUCT, Lanctot et al. 2013): at such a node every player
still to choose picks by UCB1 from their own statistics, which no other player's choice of
this step is part of, so nobody's choice depends on what the others chose in secret; the
child is keyed by all the choices together. Every chooser's statistics there start at their
options' one-ply values too (taken before anyone chooses, averaged over SIMULTANEOUS_DRAWS
random draws of the others' choices), so the others are modelled as playing sensibly, not as
bidding at random, until the search learns better. Others who
have already chosen in secret are asked again in each sample (`sample_position(reopen=True)`):
their choice is searched like everyone's, not drawn once at random. Chance happens
inside `apply` from the state's own generator, which every determinization re-seeds, so
each iteration meets fresh chance outcomes below the same action sequence (an open-loop
tree).
"""

from __future__ import annotations

import gc
import math
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from metro.bots.evaluation import Draws, margin_rewards, margins, next_choice, rewards
from runtime.determinize import sample_position
from runtime.driver import play_out
from runtime.machine import Action, State

ITERATIONS = 200
PLAYOUT = 80  # decisions played at random after the tree, for a game without an estimate
PLAYOUT_WITH_ESTIMATE = 0  # ... and for a game that declares one: its leaves are valued by it
EXPLORATION = 0.7  # UCB1's constant for rewards in [0, 1]
PRIOR_VISITS = 8  # virtual visits each new child starts with, at its one-ply value
SECURITY = 1.0  # how much the final choice discounts a mean reward by its uncertainty
PRIOR_DEPTH = 1  # decisions from the root within which new nodes are expanded with one-ply priors
SIMULTANEOUS_DRAWS = 4  # random draws of the others' choices a chooser's one-ply values average
WIDENING = 0.5  # a node visited n times considers its 1 + WIDENING * sqrt(n) best-prior options


class Arm:
    """One player's statistics of one action at a simultaneous choice, and its one-ply value."""

    __slots__ = ("prior", "reward", "tie", "visits")

    def __init__(self, prior: float = -math.inf, tie: float = 0.0):
        self.visits = 0
        self.reward = 0.0
        self.prior = prior
        self.tie = tie  # orders options of equal one-ply value (drawn at random)


class Arms(dict):
    """One player's arms at a simultaneous choice, by action, and their order by prior."""

    __slots__ = ("ranked",)

    def __init__(self) -> None:
        super().__init__()
        # (legal list, its options best prior first) of the last pull among them
        self.ranked: tuple[list[Action], list[Action]] | None = None


class Node:
    """A tree node: visits (virtual ones included), availability, each seat's summed reward.

    Children are keyed by an action, or after a simultaneous choice by the tuple of
    (player, action) choices made there; `arms` holds each chooser's statistics there.
    `prior` is the one-ply value a child was created with (None for a node never valued so),
    `tie` a random number that orders children of equal one-ply value.
    """

    __slots__ = (
        "arms",
        "available",
        "children",
        "fresh",
        "kept",
        "prior",
        "ranked",
        "reward",
        "tie",
        "visits",
    )

    def __init__(self, players: int):
        self.children: dict[object, Node] = {}
        self.visits = 0
        self.available = 1
        self.reward = [0.0] * players
        self.arms: dict[int, Arms] | None = None
        self.prior: list[float] | None = None
        self.tie = 0.0
        self.fresh = True  # not yet reached by an iteration (only its prior is known)
        # (legal list, mover, its options best prior first) of the last selection among them
        self.ranked: tuple[list[Action], int, list[Action]] | None = None
        # (legal list, its children in that order) of the last expansion (`_expand`)
        self.kept: tuple[list[Action], list[Node]] | None = None


class MctsBot:
    """ISMCTS with a budget per decision: `iterations`, or `milliseconds` of search if given."""

    def __init__(
        self,
        seed: int | str = 0,
        game=None,
        iterations: int = ITERATIONS,
        milliseconds: float | None = None,
        playout: int | None = None,
        prior_depth: int = PRIOR_DEPTH,
    ):
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.milliseconds = milliseconds
        if playout is None:
            estimated = game is not None and game.has_estimate
            playout = PLAYOUT_WITH_ESTIMATE if estimated else PLAYOUT
        self.playout = playout
        self.prior_depth = prior_depth

    def choose(self, state: State, player: int) -> Action:
        """The player's legal action of the best secure value (mean less uncertainty) after the search."""
        actions = state.legal_actions(player)
        if len(actions) == 1:
            return actions[0]
        with _without_cycle_collection():
            return self._search(state, player, actions)

    def _search(self, state: State, player: int, actions: list[Action]) -> Action:
        """The search behind `choose`, for a player with more than one legal action."""
        root = Node(state.n)
        root.fresh = False
        self._cut_offs, self._margin_total = 0, 0.0
        deadline = None
        if self.milliseconds is not None:
            deadline = time.perf_counter() + self.milliseconds / 1000
        done = 0
        while (
            done < self.iterations
            if deadline is None
            else not done or time.perf_counter() < deadline
        ):
            self._iterate(root, sample_position(state, player, self.rng, reopen=True))
            done += 1
        # The "secure" child: the best mean reward less its uncertainty, of the rewards the search
        # met (the prior's virtual visits left out: one-ply values drawn against random secret
        # choices of the others sit higher than what searched lines meet), among the options
        # the search tried. The most visited would be chosen by noise among near-equal options.
        if root.arms is not None:  # the root is a simultaneous choice
            return self._best_response(root, state, player, actions)
        children = root.children
        return max(
            actions,
            key=lambda a: _secure(
                children[a].reward[player], children[a].visits, _prior(children[a], player)
            ),
        )

    def _best_response(
        self, root: Node, state: State, player: int, actions: list[Action]
    ) -> Action:
        """At a simultaneous root: the option of the best mean reward against the others' likely choices.

        The others' choices are weighted as often as the search made them together, and their
        one-ply best choices (a sensible but not searching player's) as much again. Each of
        the player's tried options meets all of them (the searched mean where the search met
        that combination, else the value of a new leaf there), so that options are compared
        against the same choices of the others, not each against the ones it happened to meet.
        """
        arms = root.arms[player]
        tried = [a for a in actions if _secure(arms[a].reward, arms[a].visits, arms[a].prior)[0]]
        profiles: dict[tuple, int] = {}
        for key, child in root.children.items():
            others = tuple(choice for choice in key if choice[0] != player)
            profiles[others] = profiles.get(others, 0) + child.visits
        if not tried or not profiles:
            return max(
                actions, key=lambda a: _secure(arms[a].reward, arms[a].visits, arms[a].prior)
            )
        # the order the choices are made in at the root, the player's own among them
        order = [choice[0] for choice in next(iter(root.children))]
        # As likely as all searched choices together: each other plays their option of the best
        # one-ply value (as a greedy player would), not only what the search made them answer.
        sensible = tuple(
            (mover, max(root.arms[mover], key=lambda a, m=mover: root.arms[m][a].prior))
            for mover in order
            if mover != player
        )
        profiles[sensible] = profiles.get(sensible, 0) + sum(profiles.values())
        best, best_value = None, -math.inf
        for action in tried:
            total = 0.0
            for others, weight in profiles.items():
                chosen = dict(others)
                chosen[player] = action
                key = tuple((mover, chosen[mover]) for mover in order if mover in chosen)
                child = root.children.get(key)
                if child is not None and child.visits:
                    value = child.reward[player] / child.visits
                else:
                    value = self._leaf_value(state, player, key)
                total += weight * value
            if total > best_value:
                best, best_value = action, total
        return best

    def _leaf_value(self, state: State, player: int, key: tuple) -> float:
        """The player's reward at a new leaf below the root after the choices `key` (0 if they cannot be made)."""
        sample = sample_position(state, player, self.rng, reopen=True)
        for mover, action in key:
            if sample.over or sample.to_move[:1] != [mover]:
                return 0.0
            if action not in sample.legal_actions(mover):
                return 0.0
            sample.apply_legal(mover, action)
        return self._playout(sample)[player]

    def _iterate(self, root: Node, state: State) -> None:
        node, path, pulled = root, [root], []
        values, depth = None, 0
        while not state.over:
            if state.game.sites[state.site].secret:
                key = self._simultaneous(node, state, pulled)
                child = node.children.get(key)
                if child is None:
                    node.children[key] = child = Node(state.n)
                    child.fresh = False
                    path.append(child)
                    break
                node = child
                path.append(node)
                continue
            mover = state.to_move[0]
            actions = state.legal_actions(mover)
            if depth >= self.prior_depth:  # deep in the tree: one new node, valued at once
                child, action = self._add_untried(node, actions)
                if child is not None:
                    state.apply_to_value(mover, action)  # a leaf: valued or played out from
                    path.append(child)
                    break
                action, child = self._select(node, actions, mover, widen=False)
            else:
                self._expand(node, state, mover, actions)
                action, child = self._select(node, actions, mover, widen=True)
            depth += 1
            path.append(child)
            node = child
            if child.fresh:
                child.fresh = False
                if child.prior is not None:  # a new position valued by its prior: the leaf
                    values = child.prior  # (the position itself is not needed: not played)
                    break
            state.apply_legal(mover, action)
        if values is None:
            values = self._playout(state)
        for visited in path:
            visited.visits += 1
            for seat, value in enumerate(values):
                visited.reward[seat] += value
        for seat, arm in pulled:
            arm.visits += 1
            arm.reward += values[seat]

    def _add_untried(self, node: Node, actions: list[Action]) -> tuple[Node | None, Action | None]:
        """A new child for an option of `node` never tried (at random), if any; count availability."""
        children = node.children
        untried = []
        for action in actions:
            child = children.get(action)
            if child is None:
                untried.append(action)
            else:
                child.available += 1
        if not untried:
            return None, None
        action = self._pick(untried)
        child = children[action] = Node(len(node.reward))
        child.fresh = False
        return child, action

    def _expand(self, node: Node, state: State, mover: int, actions: list[Action]) -> None:
        """Give every action not yet a child of `node` a child at its one-ply value; count availability."""
        kept = node.kept
        if kept is not None and kept[0] == actions:  # the same legal list as last time (a root's)
            for child in kept[1]:
                child.available += 1
            return
        children = node.children
        missing = [a for a in actions if a not in children]
        if missing:
            values = self._one_ply(state, mover, missing) if len(actions) > 1 else [None]
            for action, value in zip(missing, values, strict=True):
                child = children[action] = Node(state.n)
                child.prior = value
                child.tie = self.rng.random()
                if value is not None:
                    child.visits = child.available = PRIOR_VISITS
                    child.reward = [PRIOR_VISITS * v for v in value]
        kept = node.kept = (actions, [children[action] for action in actions])
        for child in kept[1]:
            child.available += 1

    def _one_ply(
        self,
        state: State,
        mover: int,
        actions: list[Action],
        draws: int = 1,
        outcomes: dict | None = None,
    ) -> list[list[float]]:
        """Each action's rewards for every seat one decision ahead of `state`.

        At a simultaneous choice the others' choices are drawn at random, the same draws for
        every action, so that actions are compared on equal terms; the rewards are averaged
        over `draws` such draws. `outcomes` keeps the steps played (see `_reach`).
        """
        seeds = [Draws(int(self.rng.random() * (1 << 53))) for _ in range(draws)]
        # Each option's own choice is made once, on one copy, for all the draws: only the last
        # draw may change that copy (the others copy it where they play on).
        last = draws - 1
        reached: list[list] = [[None] * len(actions) for _ in seeds]
        for index, action in enumerate(actions):
            chose = state.clone()
            chose.apply_to_value(mover, action)  # valued, so its next listing need not be made
            for drawn, others in enumerate(seeds):
                reached[drawn][index] = self._reach(
                    chose, mover, action, others, outcomes, drawn == last
                )
        totals = [[0.0] * state.n for _ in actions]
        for found in reached:
            rewarded = self._rewarded(found)
            totals = [
                [total + value / draws for total, value in zip(sums, values, strict=True)]
                for sums, values in zip(totals, rewarded, strict=True)
            ]
        return totals

    def _rewarded(
        self, reached: list[tuple[list[float] | None, list[int] | None]]
    ) -> list[list[float]]:
        """The rewards of one draw's outcomes (`_outcome`), each option's in turn; the margins
        met count toward the search's scale (in the options' order, then the scale is taken)."""
        for _, seen in reached:
            if seen is not None:
                self._cut_offs += 1
                self._margin_total += sum(map(abs, seen)) / len(seen)
        scale = max(1.0, self._margin_total / max(1, self._cut_offs))
        return [ended if seen is None else margin_rewards(seen, scale) for ended, seen in reached]

    def _reach(
        self,
        chose: State,
        mover: int,
        action: Action,
        draws: Draws,
        outcomes: dict | None,
        own: bool,
    ) -> tuple[list[float] | None, list[int] | None]:
        """Where `action` leads one decision ahead, the others settled by `draws`: `_outcome`.

        `chose` is the position once the mover took `action`; it is changed only if `own`
        (else copied before the others' first choice is played). `outcomes` holds the
        simultaneous steps begun at the position before and played to their end, by the
        choices made in them (each player's once): all choosers' one-ply values at a
        simultaneous choice meet the same combinations again (one's option against a drawn
        choice of the other, the other's against a drawn one of the first), and what a step
        leads to depends on who chose what, not on the order they chose in.
        """
        after = chose
        chosen = [(mover, action)]
        # The others choose as evaluation.settle has them choose (the same draws).
        while (choice := next_choice(after, mover, draws, len(chosen) - 1)) is not None:
            chosen.append(choice)
            if outcomes is not None:
                known = outcomes.get(tuple(sorted(chosen, key=_chooser)))
                if known is not None:
                    return known
            if not own:
                after, own = after.clone(), True
            # valued or asked its next chooser's listing, which legal_actions then makes
            after.apply_to_value(*choice)
        outcome = _outcome(after)
        if outcomes is None:
            return outcome
        # Kept only where any chooser's settling stops too: the step over, no other begun.
        ended = after.over or not after.game.sites[after.site].secret
        if ended and len({player for player, _ in chosen}) == len(chosen):
            outcomes[tuple(sorted(chosen, key=_chooser))] = outcome
        return outcome

    def _simultaneous(self, node: Node, state: State, pulled: list) -> tuple:
        """Everyone still to choose at this simultaneous choice picks from their own arms."""
        if node.arms is None:
            node.arms = {}
        outcomes: dict = {}  # the steps the choosers' one-ply draws played (see _reach)
        for mover in state.to_move:  # new choosers start at their one-ply values
            if mover not in node.arms:
                actions = state.legal_actions(mover)
                values = self._one_ply(state, mover, actions, SIMULTANEOUS_DRAWS, outcomes)
                node.arms[mover] = _prior_arms(actions, values, mover, self.rng)
        chosen: list[tuple[int, Action]] = []
        choosers: set[int] = set()
        site = state.site
        while not state.over and state.site == site:
            mover = state.to_move[0]
            if mover in choosers:  # the same choice asked again (a new step): a new node
                break
            arms = node.arms.setdefault(mover, Arms())
            action = self._pull(arms, state.legal_actions(mover), node.visits)
            pulled.append((mover, arms[action]))
            chosen.append((mover, action))
            choosers.add(mover)
            state.apply_legal(mover, action)
        return tuple(chosen)

    def _pull(self, arms: Arms, actions: list[Action], visits: int) -> Action:
        """Among the best-prior options a node of `visits` visits considers: an untried one at random, else UCB1's."""
        # Sorted again only for another legal list: an arm's prior never changes, and an arm
        # added for an untried option ranks as no arm does.
        ranked = arms.ranked
        if ranked is None or ranked[0] != actions:
            order = _by_prior(
                actions,
                lambda a: (arms[a].prior, arms[a].tie) if a in arms else (-math.inf, 0.0),
            )
            arms.ranked = ranked = (actions, order)
        actions = ranked[1][: _considered(visits)]
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

    def _select(
        self, node: Node, actions: list[Action], mover: int, widen: bool
    ) -> tuple[Action, Node]:
        """The child of the highest UCB1 value for the mover, among the best-prior ones if `widen`."""
        children = node.children
        if len(actions) == 1:
            return actions[0], children[actions[0]]
        if widen:
            # The options in order of their fixed priors, sorted again only for another list
            # (a root's kept legal list is the same at every iteration).
            ranked = node.ranked
            if ranked is None or ranked[0] is not actions or ranked[1] != mover:
                order = sorted(
                    actions,
                    key=lambda a: (_prior(children[a], mover), children[a].tie),
                    reverse=True,
                )
                node.ranked = ranked = (actions, mover, order)
            actions = ranked[2][: _considered(node.visits)]
        best, best_value = None, -math.inf
        for action in actions:
            child = children[action]
            value = child.reward[mover] / child.visits + EXPLORATION * math.sqrt(
                math.log(child.available) / child.visits
            )
            if value > best_value:
                best, best_value = (action, child), value
        return best

    def _playout(self, state: State) -> list[float]:
        if self.playout and not state.over and state.game.drives and state.chance is None:
            # The same random decisions, played by the frameless driver (runtime/driver.py).
            play_out(state, [_Picker(self._pick)] * state.n, decisions=self.playout)
        else:
            for _ in range(self.playout):
                if state.over:
                    break
                mover = state.to_move[0]
                state.apply_legal(mover, self._pick(state.legal_actions(mover)))
        if state.over:
            return rewards(state)
        # The scale of a cut-off position's margins: their mean size so far in this search.
        # The margins are valued once (the estimate is the costly part of a playout).
        found = margins(state)
        self._cut_offs += 1
        self._margin_total += sum(map(abs, found)) / state.n
        return margin_rewards(found, max(1.0, self._margin_total / self._cut_offs))

    def _pick(self, actions: list[Action]) -> Action:
        return actions[int(self.rng.random() * len(actions))]


class _Suspension:
    """How many searches run now (in any thread), and whether the collector was on before
    the first of them: the collector is one for the whole process."""

    lock = threading.Lock()
    searches = 0
    was_enabled = False


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """Suspend Python's cyclic garbage collector while searches run (as it was, after the last)."""
    # A search makes millions of short-lived copies of positions, all freed by reference
    # counting: the collector, run after every 700 new containers, found some 260 objects in
    # a whole game of one shipped game and took 10-15% of its time. Decisions do not depend on it.
    # Searches in several threads (a server's matches) overlap: only the last one to finish
    # puts the collector back, so a long-running process never keeps it off.
    with _Suspension.lock:
        if _Suspension.searches == 0:
            _Suspension.was_enabled = gc.isenabled()
            gc.disable()
        _Suspension.searches += 1
    try:
        yield
    finally:
        with _Suspension.lock:
            _Suspension.searches -= 1
            if _Suspension.searches == 0 and _Suspension.was_enabled:
                gc.enable()


class _Picker:
    """A playout's bot: the search's own random pick among the legal actions."""

    frameless = True  # it only reads the legal actions

    def __init__(self, pick) -> None:
        self.pick = pick

    def choose(self, state: State, player: int) -> Action:
        """A random legal action, drawn from the search's generator."""
        return self.pick(state.legal_actions(player))


def _outcome(after: State) -> tuple[list[float] | None, list[int] | None]:
    """A one-ply position's rewards once over (margins None), else (None, its margins)."""
    # Only these are kept: a copy of the position would stay alive (in memory) to no use.
    if after.over:
        return rewards(after), None
    return None, margins(after)


def _chooser(choice: tuple[int, Action]) -> int:
    """Who made a (player, action) choice."""
    return choice[0]


def _by_prior(actions: list[Action], rank) -> list[Action]:
    """The options best one-ply value first: a node visited n times considers the first `_considered(n)`.

    `rank` gives an option's one-ply value and its random tie-break: options of equal value
    come in a random order fixed for the node, not in the legal order, which would steer every
    choice among equal options (a square to walk to) to the first ones listed. Among many
    options (a bid of any amount, a square to walk to) the search so spends its iterations on
    the few that pay at once, and tries another only as the evidence on those grows
    (progressive widening).
    """
    return sorted(actions, key=rank, reverse=True)


def _considered(visits: int) -> int:
    """How many options, best prior first, a node visited `visits` times considers."""
    return 1 + int(WIDENING * math.sqrt(visits))


def _prior(node: Node, mover: int) -> float:
    return -math.inf if node.prior is None else node.prior[mover]


def _secure(reward: float, visits: int, prior: float) -> tuple[bool, float]:
    """Whether the search tried an option, and a lower confidence bound of the mean reward it met.

    `reward` and `visits` include PRIOR_VISITS virtual visits at `prior` when it is finite.
    An option never tried ranks below every tried one, by its prior.
    """
    if prior != -math.inf:
        reward, visits = reward - PRIOR_VISITS * prior, visits - PRIOR_VISITS
    if visits <= 0:
        return False, prior
    return True, reward / visits - SECURITY / math.sqrt(visits)


def _prior_arms(
    actions: list[Action], values: list[list[float]], mover: int, rng: random.Random
) -> Arms:
    """Arms that start at their one-ply values, as if pulled PRIOR_VISITS times (ties in random order)."""
    arms = Arms()
    for action, value in zip(actions, values, strict=True):
        arm = arms[action] = Arm(value[mover], rng.random())
        arm.visits, arm.reward = PRIOR_VISITS, PRIOR_VISITS * value[mover]
    return arms
