"""The frameless driver: a whole game played by the generated driven versions of its procedures
(compiler/drives.py), each seat's bot asked where a decision is.

The runner (runtime/state.py) keeps every procedure in a frame so that a game can stop at any
decision and be saved, copied or replayed; a bot that never does any of that to the position it
is asked about (`frameless = True`: a random bot, a rules-declared preference) needs none of
it. The driver plays such games as plain Python calls: the same listings, actions, history,
step budget and decision budget as `State.apply_legal` in a loop, so the same seeds give the
same games. At a decision the procedure makes the frame it has there (so the bot sees the
position as the runner shows it, `legal_actions`, `to_move`, views) and calls the driver: `act`
at a menu, `decide` at any other choice. When every bot picks from the legal list alone (a
`pick(actions)` method, as a random bot has), the driver is bare: a menu, or a value choice
whose listing reads no frame, makes no frame and calls `pick_action` (`pick`) with the chooser
and the list. `play_out` plays on a position the runner reached (a
search's playouts), to the end or for a number of decisions.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress

from runtime.errors import EndGame, MetroRuntimeError, RuleError
from runtime.frames import Frame
from runtime.state import State


class Driver:
    """Asks the seats' bots at each decision of a driven game and runs what the choices start."""

    def __init__(self, game, bots: Sequence, stop: int | None = None) -> None:
        self.bots = bots
        self.sites = game.sites
        self.drives = game.drives
        self.actions = game.module.ACTION_DRIVES
        self.max_decisions = game.max_decisions
        # The history's length at which a decision is not taken: past the decision budget, or
        # where a playout is cut off (`stop`).
        self.limit = game.max_decisions + 1 if stop is None else min(stop, game.max_decisions + 1)
        self.stop = stop
        # Bots that choose from the legal list alone (`pick`): menus need no frame for them,
        # unless a playout is cut off at a decision, whose position is read there.
        self.bare = stop is None and all(callable(getattr(bot, "pick", None)) for bot in bots)

    def pick(self, state: State, player: int, actions: list):
        """The chooser `player` of a menu or value choice picks one of its legal `actions` (a
        bare driver: no frame was made): the action chosen."""
        history = state.history
        if len(history) >= self.limit:
            self._limit_reached(len(history))
        if type(player) is not int or not 0 <= player < state.n:
            state.cache_legal(player, actions)  # refuses a chooser who is not a player
        action = self.bots[player].pick(actions)
        history.append((player, action))
        state._legal = None
        state._iters = 0  # the step budget counts the work between two decisions
        return action

    def pick_action(self, state: State, player: int, actions: list):
        """A menu's chooser picks (as `pick`, written out: one call less at every decision),
        and the action chosen runs by its driven version (its result)."""
        history = state.history
        if len(history) >= self.limit:
            self._limit_reached(len(history))
        if type(player) is not int or not 0 <= player < state.n:
            state.cache_legal(player, actions)  # refuses a chooser who is not a player
        action = self.bots[player].pick(actions)
        history.append((player, action))
        state._legal = None
        state._iters = 0  # the step budget counts the work between two decisions
        return self.actions[action[1]](state, self, player, action[2])

    def act(self, state: State, frame: Frame, index: int):
        """The menu at site `index`, its frame `frame` on top of the stack: the chooser's bot
        asked, the frame taken off, and the action chosen run by its driven version (its
        result, as the frame would have it)."""
        history = state.history
        if len(history) >= self.limit:
            self._limit_reached(len(history))
        player = self.sites[index].players(state, frame)[0]
        action = self.bots[player].choose(state, player)
        history.append((player, action))
        state._legal = None
        state._iters = 0  # the step budget counts the work between two decisions
        state.stack.pop()
        return self.actions[action[1]](state, self, player, action[2])

    def decide(self, state: State, frame: Frame, index: int):
        """The decision at site `index`, its frame `frame` on top of the stack: each chooser's
        bot asked in turn (as `to_move` lists them) until the site resumes; then what the
        choices started is run and the frame is taken off the stack (the frame's last result)."""
        site = self.sites[index]
        history = state.history
        while True:
            if len(history) >= self.limit:
                self._limit_reached(len(history))
            player = site.players(state, frame)[0]
            action = self.bots[player].choose(state, player)
            history.append((player, action))
            known, state._legal = state._legal, None
            state._iters = 0  # the step budget counts the work between two decisions
            if site.resume(state, frame, player, action):
                break
            if site.secret and known is not None:  # as State.apply_legal keeps them
                state._legal = {q: acts for q, acts in known.items() if q != player}
        return self.settle(state, frame)

    def _limit_reached(self, decisions: int) -> None:
        if self.stop is not None and decisions >= self.stop:
            raise Cutoff
        raise DecisionBudget(self.max_decisions)

    def settle(self, state: State, frame: Frame):
        """Run the frames the choices pushed above `frame` (actions, top first), each by its
        driven version, then take `frame` off the stack (its last result)."""
        stack = state.stack
        while stack[-1] is not frame:
            pushed = stack.pop()
            frame.ret = self.drives[pushed.proc](state, self, pushed.L)
        stack.pop()
        return frame.ret


class Cutoff(Exception):
    """A driven playout reached the number of decisions it was to take."""


class DecisionBudget(RuleError):
    """The game took more decisions than its `max decisions` (as State.apply_legal reports it)."""

    def __init__(self, most: int) -> None:
        super().__init__(f"the game exceeded its budget of {most} decisions (`max decisions`)")


def drive(game, players: int, seed: int | str, bots: Sequence) -> State:
    """A seeded game played to its end by `bots` (one a seat) through the driven versions: the
    state `new_game` and `apply_legal` in a loop would end with."""
    if game.drives is None:
        raise ValueError(f"{game.name} was compiled without driven versions (frameless_driver)")
    if not game.min_players <= players <= game.max_players:
        raise ValueError(
            f"{game.name} takes {game.min_players}-{game.max_players} players, not {players}"
        )
    state = game._fresh(game.module.State(), players, seed)  # as new_game, not run yet
    flow = state.stack.pop()
    driver = Driver(game, bots)
    _to_the_end(state, driver, lambda: driver.drives[flow.proc](state, driver, flow.L))
    return state


def play_out(state: State, bots: Sequence, decisions: int | None = None) -> None:
    """A position the runner reached, played on by `bots` through the driven versions (in
    place), as `apply_legal` in a loop would play it: to the end, or (a search's playouts) until
    `decisions` more have been taken, at the next decision. A game cut off so has the fields
    and history it has there, and that decision's player and legal actions, but not its frames:
    it can be read (scores, estimates, `as_ended`), not played on."""
    game = state.game
    if game.drives is None:
        raise ValueError(f"{game.name} was compiled without driven versions (frameless_driver)")
    if state.chance is not None:
        raise ValueError("only a game whose chance comes from its seed can be driven")
    if state.over:
        return
    driver = Driver(game, bots, None if decisions is None else len(state.history) + decisions)
    stack, going_on = state.stack, game.module.DRIVES_FROM

    def on() -> None:
        # The pending decision first (the driver runs what it starts), then each frame from
        # where it stopped, the one under it taking its result, as the runner goes on.
        frame = stack[-1]
        driver.decide(state, frame, state.site)
        result = going_on[frame.proc](state, driver, frame)
        while stack:
            frame = stack.pop()
            frame.ret = result
            result = going_on[frame.proc](state, driver, frame)

    with suppress(Cutoff):  # the playout's decisions are taken: the position stays as it is
        _to_the_end(state, driver, on)


def _to_the_end(state: State, driver: Driver, run) -> None:
    """Run a driven game to its end (`final` after `end game`), with the runner's errors."""
    game = state.game
    stack = state.stack
    try:
        try:
            run()
        except EndGame:
            final = game.final_proc
            if final is not None:
                stack.clear()
                try:
                    driver.drives[final](state, driver, {})
                except EndGame as signal:
                    ending = RuleError(
                        "`end game` while the game is already ending (inside `final`)"
                    )
                    raise game.rule_error(ending, signal.__traceback__) from None
    except (DecisionBudget, Cutoff):
        raise
    except RuleError as error:
        if error.file:
            raise
        raise game.rule_error(error, error.__traceback__) from error
    except MetroRuntimeError:
        raise
    except Exception as error:  # a failure inside generated code: name the .metro line
        raise game.rule_error(error, error.__traceback__) from error
    stack.clear()
    state.over = True
