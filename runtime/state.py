"""A game position: the `State` every generated game's State subclasses, and its runner."""

from __future__ import annotations

import json

from runtime.display import screen
from runtime.errors import EndGame, IllegalAction, MetroRuntimeError, RuleError
from runtime.frames import RETURN, SUSPEND, UNLISTED, Action, Frame, Site
from runtime.values import PLAYER


class State:
    """A game position. Generated games subclass it with one slot per declared field."""

    __slots__ = (
        "_iters",
        "_lazy",
        "_legal",
        "game",
        "history",
        "n",
        "over",
        "rng",
        "seed",
        "site",
        "stack",
    )
    chance = (
        None  # seeded play; states in another chance mode keep their log here (runtime/chance.py)
    )

    # ------------------------------------------------------------ the public contract

    @property
    def to_move(self) -> list[int]:
        """Players who must decide now (several at a simultaneous choice); empty when over."""
        if self.over:
            return []
        return self.game.sites[self.site].players(self, self.stack[-1])

    def legal_actions(self, player: int) -> list[Action]:
        """The sorted, finite list of actions `player` may take now (empty if not to move)."""
        # Cached per player until the position changes: callers ask for every player's list
        # (views, bots, checks) many times at one position. Whatever changes the position
        # (taking an action, a scenario step, restoring a save) drops the cache.
        known = self._legal
        if known is not None:
            actions = known.get(player)
            if actions is not None:
                return actions
        if self.over:
            return []
        frame = self.stack[-1]
        site = self.game.sites[self.site]
        if player not in site.players(self, frame):
            return []
        actions = self._query(site.legal, self, frame, player)
        self.cache_legal(player, actions)
        return actions

    def cache_legal(self, player: int, actions: list[Action]) -> None:
        """Remember `player`'s legal actions at this position (generated code lists them early)."""
        if type(player) is not int or not 0 <= player < self.n:
            # Only a restored save's corrupted procedure locals can name someone else.
            raise RuleError(f"the player to decide is {player!r}, not a player of this game")
        if actions is UNLISTED:  # not made (`apply_to_value`): `legal_actions` makes it
            return
        if self._legal is None:
            self._legal = {player: actions}
        else:
            self._legal[player] = actions

    def forget_legal(self) -> None:
        """Drop the legal lists cached at this position (its fields were changed outside an action)."""
        self._legal = None

    def apply(self, player: int, action) -> None:
        """Take an action; an illegal one raises IllegalAction and leaves the state unchanged."""
        if not isinstance(action, Action | str):
            raise TypeError(
                f"an action is an Action or its id (a str), not {type(action).__name__}"
            )
        if self.over:
            raise IllegalAction("the game is over")
        if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < self.n:
            raise IllegalAction(f"there is no player {player!r}")
        frame = self.stack[-1]
        site = self.game.sites[self.site]
        if player not in site.players(self, frame):
            raise IllegalAction(
                f"it is not {PLAYER.label(player)}'s decision now", site.rule, site.file, site.line
            )
        legal = self.legal_actions(player)
        if isinstance(action, str):
            action = self._find(legal, action, site)
        if action not in legal:
            reason = self._query(site.why, self, frame, player, action)
            if reason is None:
                reason = (
                    f"{action!s} is not one of the {len(legal)} legal choices",
                    site.rule,
                    site.file,
                    site.line,
                )
            raise IllegalAction(*reason)
        State.apply_legal(self, player, action)  # checked: no subclass's fast path is needed

    def apply_legal(self, player: int, action: Action) -> None:
        """Take an action that `legal_actions(player)` returned at this very position, unchecked.

        The fast path for bots and simulations: nothing is validated, so any other action
        (or player, or a position changed since the list was made) corrupts the game.
        """
        site = self.game.sites[self.site]
        history = self.history
        history.append((player, action))
        known, self._legal = self._legal, None
        self._iters = 0  # the step budget counts the work between two decisions
        try:  # what _guarded does, inline on the hot path
            resumed = site.resume(self, self.stack[-1], player, action)
        except RuleError as error:
            if error.file:
                raise
            raise self.game.rule_error(error) from error
        except MetroRuntimeError:
            raise
        except Exception as error:
            raise self.game.rule_error(error) from error
        if resumed:
            self._run()
        elif site.secret and known is not None:
            # A simultaneous choice still waiting for others: nothing but the hidden submission
            # changed, and no one's options may depend on it, so the others' lists still hold.
            self._legal = {q: acts for q, acts in known.items() if q != player}
        if len(history) > self.game.max_decisions and not self.over:
            raise RuleError(
                f"the game exceeded its budget of {self.game.max_decisions} decisions "
                "(`max decisions`)"
            )

    def apply_to_value(self, player: int, action: Action) -> None:
        """`apply_legal` for a position that will only be valued (a search's one-ply values):
        at the decision it reaches, a listing that cannot come out empty is not made
        (`legal_actions` makes it when asked). A listing that would fail fails only then."""
        self._lazy = True
        try:
            self.apply_legal(player, action)
        finally:
            self._lazy = False

    def _find(self, legal: list[Action], text: str, site: Site) -> Action:
        for action in legal:
            if action.id == text:
                return action
        try:  # the same id written differently, e.g. a plain name quoted: "red" for red
            action = self.game.parse_action(text)
        except ValueError:
            action = None
        if action in legal:
            return action
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise IllegalAction(f"'{shown}' is not a legal choice now", site.rule, site.file, site.line)

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        return self.over

    def scores(self) -> list[int]:
        """Each player's score (from the game's `score` declaration)."""
        score = self.game.module.score
        return [self._guarded(score, self, p) for p in range(self.n)]

    def ranking(self) -> list[int]:
        """Each player's place (1 = best); players tied on every ranking key share a place."""
        rank_key = self.game.module.rank_key
        keys = [self._guarded(rank_key, self, p) for p in range(self.n)]
        order = sorted(range(self.n), key=lambda p: keys[p])
        places = [0] * self.n
        for position, p in enumerate(order):
            if position and keys[p] == keys[order[position - 1]]:
                places[p] = places[order[position - 1]]
            else:
                places[p] = position + 1
        return places

    def display(self, player: int | None):
        """What `player` may see, for people (runtime/display.py); None: what everyone sees."""
        return screen(self, player)

    def breakdown(self, player: int) -> list[tuple[str, str]]:
        """How `player`'s score came about, as the rules' `breakdown` declares it: (heading, text)."""
        fn = self.game.module.BREAKDOWN
        return [] if fn is None else list(self._guarded(fn, self, player))

    def display_entries(self, player: int) -> list[tuple[str, str]]:
        """What screens show of `player` beyond its fields, as the rules' `display` declares it."""
        fn = self.game.module.DISPLAY
        return [] if fn is None else list(self._guarded(fn, self, player))

    def estimates(self) -> list[int]:
        """Each player's position as the game's `estimate` values it (the score if none, or once over)."""
        estimate = self.game.module.ESTIMATE
        if estimate is None or self.over:
            return self.scores()
        return [self._guarded(estimate, self, p) for p in range(self.n)]

    def metrics(self) -> dict[str, list[int]]:
        """Each of the game's declared metrics (`metric "name"(p) = …`), one value per player."""
        return {
            name: [self._guarded(fn, self, p) for p in range(self.n)]
            for name, fn in self.game.module.METRICS
        }

    def winners(self) -> list[int]:
        """Players in first place."""
        return [p for p, place in enumerate(self.ranking()) if place == 1]

    def clone(self) -> State:
        """An independent copy (equal until one of them changes)."""
        return self._copy_into(object.__new__(type(self)))

    def _copy_into(self, other: State) -> State:
        """Make `other` an independent copy of this position (its chance log aside); return it."""
        other.game = self.game
        other.n = self.n
        other.seed = self.seed
        other.rng = self.rng
        other.stack = [frame.copy() for frame in self.stack]
        other.site = self.site
        other.history = list(self.history)
        other.over = self.over
        other._legal = None if self._legal is None else dict(self._legal)
        other._iters = 0
        other._lazy = False
        self.game.module.copy_fields(self, other)
        return other

    def __deepcopy__(self, memo) -> State:
        # copy.deepcopy (which OpenSpiel's Python games clone with) is a clone: the compiled
        # game, shared by its states, is never copied.
        return self.clone()

    def __eq__(self, other) -> bool:
        return isinstance(other, State) and self.to_doc() == other.to_doc()

    __hash__ = None  # type: ignore[assignment]

    def to_doc(self) -> dict:
        """The whole position as JSON-able data."""
        module = self.game.module
        return {
            "game": self.game.name,
            "players": self.n,
            "seed": self.seed,
            "rng": str(self.rng),
            "over": self.over,
            "site": self.site,
            "state": module.encode_fields(self),
            "player_state": [module.encode_player(self, p) for p in range(self.n)],
            "stack": [frame.to_doc() for frame in self.stack],
            "history": [[p, a.id] for p, a in self.history],
        }

    def to_json(self) -> str:
        """Canonical JSON text of the whole position (byte-identical for equal states)."""
        return json.dumps(self.to_doc(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def view(self, player: int) -> dict:
        """What `player` may see: no hidden data, no other player's private data."""
        module = self.game.module
        return {
            "game": self.game.name,
            "players": self.n,
            "you": PLAYER.label(player),
            "over": self.over,
            "to_move": [PLAYER.label(p) for p in self.to_move],
            "state": module.view_fields(self),
            "player_state": [module.view_player(self, p, p == player) for p in range(self.n)],
        }

    def public_view(self) -> dict:
        """What everyone may see (a spectator): a view with no player's own data; `you` is None."""
        module = self.game.module
        return {
            "game": self.game.name,
            "players": self.n,
            "you": None,
            "over": self.over,
            "to_move": [PLAYER.label(p) for p in self.to_move],
            "state": module.view_fields(self),
            "player_state": [module.view_player(self, p, False) for p in range(self.n)],
        }

    # ------------------------------------------------------------ running

    def _run(self) -> None:
        """Run frames until a decision is pending or the game is over."""
        procs = self.game.procs
        stack = self.stack
        try:
            while stack:
                frame = stack[-1]
                signal = procs[frame.proc](self, frame)
                if signal == SUSPEND:
                    return
                if signal == RETURN:
                    stack.pop()
                    if stack:
                        stack[-1].ret = frame.ret
        except EndGame as signal_:
            final = self.game.final_proc
            if final is not None and any(f.proc == final for f in stack):
                raise self.game.rule_error(
                    RuleError("`end game` while the game is already ending (inside `final`)"),
                    signal_.__traceback__,
                ) from None
            stack.clear()
            if final is not None:
                stack.append(Frame(final, {}))
                self._run()
                return
        except RuleError as error:
            if error.file:
                raise
            raise self.game.rule_error(error) from error
        except MetroRuntimeError:
            raise
        except Exception as error:  # a failure inside generated code: name the .metro line
            raise self.game.rule_error(error) from error
        if not stack:
            self.over = True

    def _query(self, fn, *args):
        """Run a question to the rules (the legal actions, why an action is refused) on a step
        budget of its own: asked any number of times between two decisions, it never uses up
        the budget of the rules' own work."""
        running, self._iters = self._iters, 0
        try:
            return self._guarded(fn, *args)
        finally:
            self._iters = running

    def _guarded(self, fn, *args):
        try:
            return fn(*args)
        except RuleError as error:
            if error.file:
                raise
            raise self.game.rule_error(error) from error
        except MetroRuntimeError:
            raise
        except Exception as error:
            raise self.game.rule_error(error) from error
