"""The generic executor of compiled games: frames, decision sites, actions, states and games.

A compiled game is a module of plain functions. Procedures that wait for decisions are
state machines over a `Frame` (program counter + locals), so the whole game position —
including the middle of a procedure — is data that can be cloned, saved and replayed.
"""

from __future__ import annotations

import linecache
from collections.abc import Callable
from types import CodeType, ModuleType

from runtime import rng as _rng
from runtime import saves
from runtime.action_ids import parse_id
from runtime.errors import RuleError
from runtime.frames import CALL, RETURN, SUSPEND, WAITING, Action, Frame, Site, Waiting
from runtime.state import State
from runtime.values import check_list, each_item

# Generated modules import these from here (compiler/emit.py); their homes are runtime/frames.py
# and runtime/state.py.
__all__ = [
    "CALL",
    "RETURN",
    "SUSPEND",
    "WAITING",
    "Action",
    "Frame",
    "Game",
    "Site",
    "State",
    "Waiting",
    "compile_module",
    "load_module",
    "run_module",
]


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
        # The generated lines of each module that runs rule code, by file name: each line's
        # (index into the module's rule files, line), with the paths of those files.
        self._metro_lines = {module.__file__: (module.METRO_LINES, module.SOURCE_PATHS)}
        self.name: str = module.GAME_NAME
        self.min_players, self.max_players = module.PLAYERS
        self.max_decisions: int = module.MAX_DECISIONS
        self.sites: list[Site] = module.SITES
        self.procs: dict = module.PROCS
        self.final_proc: str | None = module.FINAL_PROC
        # The driven versions of its procedures, if compiled with them (runtime/driver.py).
        self.drives: dict | None = getattr(module, "DRIVES", None)
        self.default_bot: str | None = module.DEFAULT_BOT
        self.levels: dict[str, str] = dict(module.LEVELS)  # a level of play -> the bot it names
        self.has_estimate: bool = module.ESTIMATE is not None
        self.metric_names: list[str] = [name for name, _ in module.METRICS]
        # The words heading each action parameter's values where people pick them, by action.
        self.argument_headings: dict[str, tuple[str, ...]] = module.ACTION_HEADINGS
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
            self._metro_lines[module.__file__] = (module.METRO_LINES, module.SOURCE_PATHS)
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
        from runtime import chance as _chance  # only games in another chance mode load it

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
        state._lazy = False
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
        state._lazy = False
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
                where = lines[0].get(tb.tb_lineno)
                if where is not None:
                    found = (lines[1][where[0]], where[1])
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
