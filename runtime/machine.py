"""The generic executor of compiled games: frames, decision sites, actions, states and games.

A compiled game is a module of plain functions. Procedures that wait for decisions are
state machines over a `Frame` (program counter + locals), so the whole game position —
including the middle of a procedure — is data that can be cloned, saved and replayed.
"""

from __future__ import annotations

import json
import linecache
from collections.abc import Callable
from types import CodeType, ModuleType

from runtime import rng as _rng
from runtime import saves
from runtime.action_ids import parse_id
from runtime.display import screen
from runtime.errors import EndGame, IllegalAction, MetroRuntimeError, RuleError
from runtime.values import PLAYER, check_list, copy_any, each_item, encode_any, plain_words

# What a frame procedure returns to the runner.
SUSPEND = 0  # a decision is pending: the state's `site` says which
RETURN = 1  # the frame finished; its result is in `frame.ret`
CALL = 2  # a new frame was pushed on top


class Waiting:
    """What a procedure's frameless entry returns when it had to wait (compiler/entries.py):
    its frame is on the stack, and `signal` is what that frame told the runner."""

    __slots__ = ("signal",)

    def __init__(self, signal: int):
        self.signal = signal


WAITING = {SUSPEND: Waiting(SUSPEND), CALL: Waiting(CALL)}


class Action(tuple):
    """A legal move: (rank, name, args, descriptors); ordered, hashable, with a stable id."""

    __slots__ = ()

    @property
    def name(self) -> str:
        """The action's (or choice's) name."""
        return self[1]

    @property
    def args(self) -> tuple:
        """Argument values (runtime representation)."""
        return self[2]

    @property
    def id(self) -> str:
        """Stable text id, e.g. `claim_route(R001,red,0)`; the grammar is in runtime/action_ids.py."""
        args = self[2]
        if not args:
            return self[1]
        return (
            self[1] + "(" + ",".join(d.label(a) for d, a in zip(self[3], args, strict=True)) + ")"
        )

    @property
    def label(self) -> str:
        """How a person reads it: the label the rules declare, else its name and arguments in words.

        E.g. `claim Atlanta–Nashville (1, gray): 1 gray`, or by default `draw face up red`.
        A label depends on the arguments only, so it reads alike wherever the action is shown.
        """
        labeller = getattr(self[3], "labeller", None)
        if labeller is not None:
            return labeller(self[2])
        words = [plain_words(self[1])]
        words += [d.display(a) for d, a in zip(self[3], self[2], strict=True)]
        return " ".join(words)

    def __str__(self) -> str:
        return self.id

    def __repr__(self) -> str:
        return f"Action({self.id})"


class Frame:
    """One running procedure: which, where it stopped, its locals and the last call's result."""

    __slots__ = ("L", "pc", "proc", "ret")

    def __init__(self, proc: str, local_vars: dict, pc: int = 0):
        self.proc = proc
        self.pc = pc
        self.L = local_vars
        self.ret = None

    def copy(self) -> Frame:
        """An independent copy."""
        frame = Frame(self.proc, copy_any(self.L), self.pc)
        frame.ret = copy_any(self.ret)
        return frame

    def to_doc(self) -> dict:
        """Tagged JSON form."""
        return {
            "proc": self.proc,
            "pc": self.pc,
            "locals": encode_any(self.L),
            "ret": encode_any(self.ret),
        }

    @staticmethod
    def from_doc(doc: dict, pcs: dict[str, int]) -> Frame:
        """Inverse of to_doc; InvalidSave unless it is a frame of a procedure in `pcs` (name -> pc count)."""
        proc, pc, local_vars, ret = saves.frame_parts(doc, pcs)
        frame = Frame(proc, local_vars, pc)
        frame.ret = ret
        return frame


class Site:
    """A decision point: who decides, the legal actions, why one is refused, how it resumes."""

    __slots__ = (
        "file",
        "index",
        "kind",
        "legal",
        "line",
        "players",
        "private",
        "resume",
        "rule",
        "why",
    )

    @property
    def secret(self) -> bool:
        """True for simultaneous choices: what each player chose stays hidden until all have chosen."""
        return self.kind in ("each", "each_actions")

    def __init__(self, index, kind, players, legal, why, resume, file, line, rule):
        self.index = index
        self.kind = kind
        self.players = players
        self.legal = legal
        self.why = why
        self.resume = resume
        self.file = file
        self.line = line
        self.rule = rule
        self.private = (
            False  # what was chosen is the chooser's secret (set by Game from the module)
        )


class State:
    """A game position. Generated games subclass it with one slot per declared field."""

    __slots__ = ("_iters", "_legal", "game", "history", "n", "over", "rng", "seed", "site", "stack")
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


class Game:
    """A compiled game: creates states, restores them, and knows its scenarios and invariants.

    The scenarios and invariants are a module of their own, run over the game module's names;
    `scenarios` (a function of the game module giving that module, or None when there is none)
    is called the first time they are asked for, so play never loads them.
    """

    def __init__(
        self,
        module: ModuleType,
        variants: tuple[str, ...] = (),
        scenarios: Callable[[ModuleType], ModuleType] | None = None,
    ):
        self.module = module
        self._load_scenarios = scenarios
        self._scenarios_module: ModuleType | None = None
        # The generated lines of each module that runs rule code, by file name.
        self._metro_lines = {module.__file__: module.METRO_LINES}
        self.name: str = module.GAME_NAME
        self.min_players, self.max_players = module.PLAYERS
        self.max_decisions: int = module.MAX_DECISIONS
        self.sites: list[Site] = module.SITES
        self.procs: dict = module.PROCS
        self.final_proc: str | None = module.FINAL_PROC
        self.default_bot: str | None = module.DEFAULT_BOT
        self.has_estimate: bool = module.ESTIMATE is not None
        self.metric_names: list[str] = [name for name, _ in module.METRICS]
        self.variants = variants
        self.source_file: str = module.SOURCE_FILE
        for index in module.PRIVATE_SITES:
            self.sites[index].private = True
        self._chance_class: type | None = None  # made on first use (runtime/chance.py)

    @property
    def scenarios_module(self) -> ModuleType | None:
        """The module of the scenarios and invariants (loaded on first use; None if there is none)."""
        if self._scenarios_module is None and self._load_scenarios is not None:
            module = self._load_scenarios(self.module)
            self._metro_lines[module.__file__] = module.METRO_LINES
            self._scenarios_module = module
        return self._scenarios_module

    @property
    def scenarios(self) -> list[tuple]:
        """(name, players, seed, function, file, line) of each scenario."""
        module = self.scenarios_module
        return [] if module is None else module.SCENARIOS

    @property
    def invariants(self) -> list[tuple]:
        """(name, function, file, line) of each invariant."""
        module = self.scenarios_module
        return [] if module is None else module.INVARIANTS

    def __deepcopy__(self, memo) -> Game:
        return self  # compiled code and tables: immutable, shared by every copy of a position

    def new_game(self, players: int, seed: int | str = 0, chance: str = "seeded") -> State:
        """A new game, run to the first decision (or, with explicit chance, to a chance node).

        `chance` is "seeded" (random events from the seed), "recorded" (the same, with each
        outcome logged) or "explicit" (outcomes given by the caller); see runtime/chance.py.
        """
        if not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.name} takes {self.min_players}-{self.max_players} players, not {players}"
            )
        if chance == "seeded":
            state = self._fresh(self.module.State(), players, seed)
            state._run()
            return state
        from runtime import chance as _chance  # chance.py builds on this module

        if chance not in _chance.MODES:
            raise ValueError(f"chance is one of {', '.join(_chance.MODES)}, not {chance!r}")
        state = self._fresh(self.chance_class()(), players, seed)
        _chance.start(state, chance)
        return state

    def _fresh(self, state: State, players: int, seed: int | str) -> State:
        """`state` set up as a new game that has not run yet."""
        state.game = self
        state.n = players
        state.seed = seed
        state.rng = _rng.seed_state(seed)
        state.stack = [Frame(self.module.FLOW_PROC, {})]
        state.site = -1
        state.history = []
        state.over = False
        state._legal = None
        state._iters = 0
        self.module.init_fields(state)
        return state

    def chance_class(self) -> type:
        """The class of this game's states in recorded or explicit chance mode (made once)."""
        if self._chance_class is None:
            from runtime.chance import ChanceState

            base = self.module.State
            self._chance_class = type(
                base.__name__, (ChanceState, base), {"__slots__": ("chance",)}
            )
        return self._chance_class

    def state_from_json(self, doc: str | dict) -> State:
        """Restore a state from `State.to_json()` (or its parsed form); InvalidSave if it does not fit."""
        doc = saves.load(doc, self)
        if "chance" in doc:
            from runtime.chance import load_state

            return load_state(self, doc)
        return self.restore(doc, self.module.State())

    def restore(self, doc: dict, state: State) -> State:
        """Fill a blank `state` from a save `saves.load` has read; InvalidSave if it does not fit."""
        state.game = self
        state.n = doc["players"]
        state.seed = doc["seed"]
        state.rng = saves.rng_state(doc["rng"])
        state.over = doc["over"]
        state.site = doc["site"]
        with saves.at("stack"):
            state.stack = each_item(check_list(doc["stack"]), Frame.from_doc, self.module.PROC_PCS)
        state.site = saves.check_pending(self, state.over, state.site, state.stack)
        state._legal = None
        state._iters = 0
        saves.decode_fields(self.module, state, doc)
        self.module.refresh_indexes(state)
        with saves.at("history"):
            state.history = saves.decode_history(self, doc["history"], state.n)
        saves.check_sound(state)
        return state

    def parse_action(self, text: str) -> Action:
        """Rebuild an action from its id (ValueError, saying why, if it names no action of this game)."""
        name, nodes = parse_id(text)
        entry = self.module.ACTION_DESCS.get(name)
        if entry is None:
            raise ValueError(f"{self.name} has no action or choice named {name!r}")
        descs, rank = entry
        if len(nodes) != len(descs):
            raise ValueError(
                f"{name} takes {len(descs)} argument{'s' * (len(descs) != 1)}, "
                f"not {len(nodes)}: {text[:80]!r}"
            )
        args = []
        for index, (desc, node) in enumerate(zip(descs, nodes, strict=True), 1):
            try:
                args.append(desc.read(node))
            except ValueError as error:
                raise ValueError(f"argument {index} of {name}: {error}") from None
        if args == [None] and name not in self.module.ACTION_FRAMES:
            rank += (
                1  # an optional choice lists its none after its values (compiler/lower.py l_Choose)
            )
        return Action((rank, name, tuple(args), descs))

    def replay(self, players: int, seed, history: list[tuple[int, str]]) -> State:
        """Replay a recorded game from its seed and actions."""
        state = self.new_game(players, seed)
        for player, action in history:
            state.apply(player, action if isinstance(action, str) else action.id)
        return state

    def rule_error(self, error: Exception, tb=None) -> RuleError:
        """Translate an exception inside generated code into a RuleError at its .metro line."""
        file, line = self.locate(tb or error.__traceback__)
        message = _describe(error)
        return RuleError(message, file, line)

    def locate(self, tb) -> tuple[str, int]:
        """The deepest .metro position in a traceback."""
        found = ("", 0)
        while tb is not None:
            lines = self._metro_lines.get(tb.tb_frame.f_code.co_filename)
            if lines is not None:
                where = lines.get(tb.tb_lineno)
                if where is not None:
                    found = where
            tb = tb.tb_next
        return found


def _describe(error: Exception) -> str:
    if isinstance(error, RuleError):
        return str(error)
    if isinstance(error, ZeroDivisionError):
        return "division by zero"
    if isinstance(error, IndexError):
        return "an index is out of range (an empty pile or list?)"
    if isinstance(error, TypeError) and "NoneType" in str(error):
        return "a value is none where a value is needed"
    if isinstance(error, KeyError):
        return f"no entry for {error.args[0]!r}"
    return f"{type(error).__name__}: {error}"


def load_module(source: str, filename: str, name: str) -> ModuleType:
    """Turn generated Python text into a module (tracebacks show the generated lines)."""
    return run_module(compile_module(source, filename), filename, name)


def compile_module(source: str, filename: str) -> CodeType:
    """Compile generated Python text; tracebacks through it show its lines."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return compile(source, filename, "exec")


def run_module(
    code: CodeType, filename: str, name: str, over: ModuleType | None = None
) -> ModuleType:
    """The module a compiled game's code defines; a scenarios module runs `over` its game
    module (a copy of the game module's names, which its code reads)."""
    module = ModuleType(name)
    if over is not None:
        module.__dict__.update(vars(over))
        module.__name__ = name
    module.__file__ = filename
    exec(code, module.__dict__)
    return module
