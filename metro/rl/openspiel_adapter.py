"""Every metro game as an OpenSpiel game (the rl extra): `metro.openspiel_game(name, players=N)`.

Importing this module also registers the game `metro` with OpenSpiel, so that
`pyspiel.load_game("metro(game=NAME,players=3)")` works (NAME a shipped game's name), and with
it OpenSpiel's serialisation of games and states (`pyspiel.serialize_game_and_state`).
Parameters: `game` (a shipped game's name or a path), `players`, `variants` and `expansions`
(names or paths joined by `+`), `chance` (`explicit` or `sampled`), `seed` (sampled chance
only) and `max_actions`.

A sequential game of imperfect information: the player to act is the first of those to move
(at a simultaneous choice each chooses in turn, and no observation shows the others'
choices). Action k is the k-th of the player's legal actions; observations are
`metro.rl.encoding`'s vector of the player's view. Returns: 1 for a sole win, 1/k for a win
shared by k, else 0, at the end; a game that reaches its `max decisions`, or in which nobody
can move, ends with 0.

Chance is explicit by default (`EXPLICIT_STOCHASTIC`): every random event of the rules is
given by OpenSpiel's chance player as the runtime's elementary outcomes (runtime/chance.py)
with their exact probabilities. A roll of n sides is one chance node, outcome v as action
v - 1; a shuffle is one chance node per item from the top, until the rest are all alike,
each outcome an item as the index of its value in its type (an enum value, a map element, a
seat), with probability its count among the items left. `max_chance_outcomes` is the bound
the compiler derives from the rules (compiler/chance_bound.py): a game without random events
is `DETERMINISTIC`. With `chance="sampled"` (`SAMPLED_STOCHASTIC`) dice and shuffles happen
inside the actions instead, from the position's generator seeded with the game's `seed`:
many fewer steps (no chance node per card), and the only way to play a game whose random
events have no bound known before play (a roll of a computed number of sides, a shuffle of
numbers).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pyspiel

from loader import load_game
from loader.games import game_path
from metro.rl.encoding import MAX_ACTIONS, Encoder, TooManyActions
from runtime.chance import CHANCE, EXPLICIT, ChanceNode
from runtime.machine import Game, State

SHORT_NAME = "metro"
EXPLICIT_CHANCE, SAMPLED_CHANCE = "explicit", "sampled"
# Every parameter with its default (OpenSpiel takes its types from these).
DEFAULTS = {
    "game": "",
    "players": 2,
    "variants": "",
    "expansions": "",
    "chance": EXPLICIT_CHANCE,
    "seed": 0,
    "max_actions": MAX_ACTIONS,
}
JOIN = "+"  # between the names of several variants or expansions in one parameter


def _metro_game(key: tuple[str, tuple[str, ...], tuple[str, ...]]) -> Game:
    """The compiled game of (game, variants, expansions), from the compiler's cache when current."""
    name, variants, expansions = key
    return load_game(game_path(name), expansions=list(expansions), variants=list(variants))


def _names(text: str) -> tuple[str, ...]:
    return tuple(part for part in text.split(JOIN) if part)


class MetroSpielGame(pyspiel.Game):
    """A metro game at one player count, as OpenSpiel sees it; `params` as in the module's text."""

    def __init__(self, params: dict | None = None):
        given = dict(params or {})
        unknown = sorted(set(given) - set(DEFAULTS))
        if unknown:
            raise ValueError(f"unknown parameters {unknown}: known are {sorted(DEFAULTS)}")
        full = {**DEFAULTS, **given}
        if not full["game"]:
            raise ValueError("name the game: metro(game=NAME_OR_PATH,players=N)")
        if full["chance"] not in (EXPLICIT_CHANCE, SAMPLED_CHANCE):
            raise ValueError(f"chance is 'explicit' or 'sampled', not {full['chance']!r}")
        self.key = (full["game"], _names(full["variants"]), _names(full["expansions"]))
        game = self.metro = _metro_game(self.key)
        players = self.players = full["players"]
        if not game.min_players <= players <= game.max_players:
            raise ValueError(
                f"{game.name} takes {game.min_players}-{game.max_players} players, not {players}"
            )
        self.seed = full["seed"]
        self.max_actions = full["max_actions"]
        self.encoder = Encoder(game, players)
        bound = game.module.CHANCE_BOUND
        self.explicit = full["chance"] == EXPLICIT_CHANCE and bound != 0
        if self.explicit and bound is None:
            raise ValueError(
                f"{game.name} has random events whose number of outcomes is not known before "
                "play (a roll of a computed number of sides, or a shuffle of numbers, texts or "
                "tuples): play it with chance='sampled'"
            )
        mode = pyspiel.GameType.ChanceMode
        game_type = _game_type(
            mode.EXPLICIT_STOCHASTIC
            if self.explicit
            else mode.DETERMINISTIC
            if bound == 0
            else mode.SAMPLED_STOCHASTIC,
            players,
            players,
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=self.max_actions,
            max_chance_outcomes=bound if self.explicit else 0,
            num_players=players,
            min_utility=0.0,
            max_utility=1.0,
            max_game_length=game.max_decisions,
        )
        # Only the parameters given differ from the defaults: the game's text reloads it.
        shown = {k: v for k, v in full.items() if k == "game" or v != DEFAULTS[k]}
        super().__init__(game_type, info, shown)

    def new_initial_state(self) -> MetroSpielState:
        """A new game: stopped at its first chance node (explicit chance), or seeded with `seed`."""
        chance = EXPLICIT if self.explicit else "seeded"
        return MetroSpielState(self, self.metro.new_game(self.players, self.seed, chance=chance))

    def make_py_observer(self, iig_obs_type=None, params=None) -> MetroObserver:
        """The observer of a player's view (the same for every observation type asked)."""
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return MetroObserver(self)


def _game_type(chance_mode, low: int, high: int) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME,
        long_name="metro: a game written as .metro rules",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance_mode,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULTS,
    )


class Position:
    """The metro position inside an OpenSpiel state.

    OpenSpiel serialises a Python state by pickling its attributes: a position pickles as its
    save (`State.to_json`) and the key of its game, and is restored (checked) from them.
    """

    __slots__ = ("key", "state")

    def __init__(self, key: tuple, state: State):
        self.key = key
        self.state = state

    def __deepcopy__(self, memo) -> Position:
        return Position(self.key, self.state.clone())

    def __reduce__(self):
        return (_restored, (self.key, self.state.to_json()))


def _restored(key: tuple, text: str) -> Position:
    return Position(key, _metro_game(key).state_from_json(text))


class MetroSpielState(pyspiel.State):
    """A position of a metro game."""

    def __init__(self, game: MetroSpielGame, state: State):
        super().__init__(game)
        self.held = Position(game.key, state)
        self.max_actions = game.max_actions
        self.max_decisions = game.metro.max_decisions
        self.max_chance_outcomes = game.max_chance_outcomes()

    @property
    def position(self) -> State:
        """The metro state."""
        return self.held.state

    def _ended(self) -> bool:
        position = self.position
        return not position.to_move or len(position.history) >= self.max_decisions

    def current_player(self) -> int:
        """The player to act, CHANCE at a chance node, or TERMINAL."""
        if self._ended():
            return pyspiel.PlayerId.TERMINAL
        mover = self.position.to_move[0]
        return pyspiel.PlayerId.CHANCE if mover == CHANCE else mover

    def _legal_actions(self, player: int) -> list[int]:
        """0 .. len(legal)-1 for the player to act (OpenSpiel asks only for them)."""
        count = len(self.position.legal_actions(player))
        if count > self.max_actions:
            raise TooManyActions(
                f"{count} legal actions here, more than the game's {self.max_actions}: "
                "ask for a larger max_actions"
            )
        return list(range(count))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The waiting random event's next elementary outcomes, as actions with probabilities."""
        node = self.position.chance_node
        return [(self._chance_action(node, v), float(p)) for v, p in node.outcomes()]

    def _chance_action(self, node: ChanceNode, value) -> int:
        action = value - 1 if node.kind == "roll" else int(value)
        if not 0 <= action < self.max_chance_outcomes:
            raise ValueError(
                f"a {node.kind} at {node.where} has outcome {action}, outside the game's "
                f"{self.max_chance_outcomes} chance outcomes"
            )
        return action

    def _apply_action(self, action: int) -> None:
        position = self.position
        if self.is_chance_node():
            node = position.chance_node
            for value, _ in node.outcomes():
                if self._chance_action(node, value) == action:
                    position.apply_chance(value)
                    return
            raise ValueError(f"{action} is not an outcome of the waiting {node.kind} now")
        player = position.to_move[0]
        position.apply(player, position.legal_actions(player)[action])

    def _action_to_string(self, player: int, action: int) -> str:
        position = self.position
        if self._ended():
            return f"action {action}"
        if player == pyspiel.PlayerId.CHANCE:
            node = position.chance_node
            if node is not None:
                for value, _ in node.outcomes():
                    if self._chance_action(node, value) == action:
                        return _outcome_text(node, value)
            return f"chance outcome {action}"
        if player == position.to_move[0]:
            legal = position.legal_actions(player)
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
        # The steps so far fix the position: the rules are deterministic given the outcomes
        # of chance (explicit), or given the seed (sampled).
        position = self.position
        if position.chance is None:
            moves = " ".join(f"{p + 1}:{a.id}" for p, a in position.history)
            return f"seed {position.seed}; {moves}"
        steps = [_step_text(step) for step in position.record()]
        node = position.chance_node
        if node is not None and node.picked:
            steps.append("picked:" + ",".join(node.desc.label(v) for v in node.picked))
        return " ".join(steps)


def _outcome_text(node: ChanceNode, value) -> str:
    if node.kind == "roll":
        return f"roll {value} of {node.sides} ({node.where})"
    if node.kind == "mix":
        if len(node.picked) < node.counted:
            return f"mix ({node.where}): {value} of one kind of item come out"
        return f"mix ({node.where}): {node.desc.label(value)} comes out next"
    return f"shuffle ({node.where}): {node.desc.label(value)} next from the top"


def _step_text(step: dict) -> str:
    if "apply" in step:
        return f"{step['apply']['player'] + 1}:{step['apply']['action']}"
    outcome = step["chance"]
    if outcome["kind"] == "roll":
        return f"roll:{outcome['value']}"
    if outcome["kind"] == "mix":
        return "mix:" + ",".join(map(str, outcome["out"]))
    return "shuffle:" + ",".join(map(str, outcome["order"]))


class MetroObserver:
    """OpenSpiel's observer interface over `metro.rl.encoding`."""

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
    chance: str = EXPLICIT_CHANCE,
) -> MetroSpielGame:
    """A game (a shipped game's name or a path) as an OpenSpiel game."""
    for part in (name, *variants, *expansions):
        if JOIN in part or re.search(r"[(),=]", part):
            raise ValueError(
                f"{part!r}: a game, variant or expansion named in OpenSpiel holds none of + ( ) , ="
            )
    params = {
        "game": name,
        "players": players,
        "variants": JOIN.join(variants),
        "expansions": JOIN.join(expansions),
        "chance": chance,
        "seed": seed,
        "max_actions": max_actions,
    }
    return MetroSpielGame(params)


# The registered type stands for every metro game: each game object carries its own (its
# chance mode, its player count); the player range here only has to contain theirs.
if SHORT_NAME not in pyspiel.registered_names():
    pyspiel.register_game(
        _game_type(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC, 1, 1000), MetroSpielGame
    )
