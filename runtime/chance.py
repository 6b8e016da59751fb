"""Explicit chance: every random event is a chance node whose outcome can be given and recorded.

A game runs in one of three chance modes (`Game.new_game(..., chance=...)`):

- `seeded` (the default): every random event draws from the state's SplitMix64 generator
  (`runtime/rng.py`) and nothing is recorded. States are plain `State`s; this module is not used.
- `recorded`: the same draws in the same order (so the very same game), and each event's outcome
  is logged: `state.record()` then replays the game without the seed.
- `explicit`: nothing is drawn. At each random event the game stops at a chance node
  (`state.to_move == [CHANCE]`) until the caller gives the outcome, either whole
  (`state.apply_outcome({"kind": "shuffle", "order": [...]})`) or as elementary picks
  (`state.chance_outcomes()` lists them with exact probabilities; `state.apply_chance(value)`).

Outcomes (the JSON forms, docs/protocol.md):
- a shuffle: `{"kind": "shuffle", "order": [item, ...]}`, the pile's items after shuffling,
  bottom first (the last is the top, drawn first), each written as in the state JSON;
- a roll: `{"kind": "roll", "sides": n, "value": v}` with 1 <= v <= n;
- a mix (`mix(inside, items, percents)`, runtime/lib.py): `{"kind": "mix", "out": [item, ...]}`,
  the items that came out of the mixer, first out first; the rest stay inside.
A shuffle whose result is certain (fewer than two distinct items), a roll of one side and a mix
whose result is certain (an empty mixer, a chance of 0%, or 100% with all items alike) are not
chance nodes:
they happen without an outcome and are not recorded.

The elementary decomposition (for tools that enumerate outcomes, like OpenSpiel's chance
nodes): a roll is one pick of 1..n, each 1/n. A shuffle is a sequence of picks of its items from
the top down: each pick is one of the distinct items not yet picked, with probability
(its remaining count) / (items remaining); once the rest are all alike, the order is complete.
A mix (chance p of each item coming out) is first, unless p is 0% or 100%, one pick per distinct
item inside (in sorted order) of how many of its c copies come out, k with probability
C(c, k) p^k (1 - p)^(c - k); then the order of the items out, picked like a shuffle's, first out
first.

Scenarios give outcomes with `chance <value>` steps (`force`): in recorded mode the next random
event takes it instead of drawing (a roll's number; a shuffle's top items, first drawn first,
the rest shuffled by the generator; a mix's items out, first out first), and logs the outcome.

How a state stops mid-step: a step (the start of a game, or one decision) runs with the outcomes
given so far; at an event with no outcome left it raises `ChanceNeeded`, the state goes back to
where the step began, and the step runs again, from the start, once the outcome is given.
Rule code is deterministic given its outcomes, so the re-run takes the same path.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import comb

from runtime import rng as _rng
from runtime.errors import IllegalAction, InvalidSave, MetroRuntimeError, RuleError
from runtime.frames import Action
from runtime.lib import mix_draw
from runtime.saves import at, exact_keys
from runtime.state import State
from runtime.values import Desc, check_int, check_list, check_object, decode_any, show

__all__ = [
    "CHANCE",
    "EXPLICIT",
    "MODES",
    "RECORDED",
    "SEEDED",
    "ChanceNeeded",
    "ChanceNode",
    "ChanceState",
    "load_state",
    "replay_record",
]

CHANCE = -1  # the "player" to move at a chance node (explicit mode only)
SEEDED, RECORDED, EXPLICIT = "seeded", "recorded", "explicit"
MODES = (SEEDED, RECORDED, EXPLICIT)
SHUFFLE, ROLL, MIX = "shuffle", "roll", "mix"


@dataclass(frozen=True)
class ChanceNode:
    """A random event waiting for its outcome: what it is, where in the rules, and the picks so far."""

    kind: str  # "shuffle", "roll" or "mix"
    items: tuple  # a shuffle's pile or a mixer's contents (runtime values, in order); () for a roll
    sides: int  # a roll's sides; a shuffle's or mix's number of items
    desc: Desc | None = None  # how the items are written
    picked: tuple = ()  # picks so far: a shuffle's items, top first; a mix's counts, then items
    file: str = ""
    line: int = 0
    percent: int = 0  # a mix's chance of each item coming out

    def outcomes(self) -> list[tuple[object, Fraction]]:
        """The next elementary pick's values with exact probabilities (summing to 1)."""
        if self.kind == ROLL:
            return [(value, Fraction(1, self.sides)) for value in range(1, self.sides + 1)]
        if self.kind == MIX and len(self.picked) < self.counted:
            item_count = _distinct(self.items)[len(self.picked)][1]
            p = Fraction(self.percent, 100)
            return [
                (k, comb(item_count, k) * p**k * (1 - p) ** (item_count - k))
                for k in range(item_count + 1)
            ]
        return _order_picks(self.left())

    @property
    def counted(self) -> int:
        """How many of a mix's picks are counts (one per distinct item, unless p is 0 or 100%)."""
        if self.kind != MIX or self.percent in (0, 100):
            return 0
        return len(_distinct(self.items))

    def out(self) -> Counter:
        """The items coming out of a mix, once its counts are picked (all of a shuffle's)."""
        if self.kind != MIX or self.percent == 100:
            return Counter(self.items)
        counts = self.picked[: self.counted]
        return +Counter(
            {item: k for (item, _), k in zip(_distinct(self.items), counts, strict=False)}
        )

    def left(self) -> Counter:
        """The items not yet picked of the order being picked."""
        return _remaining(tuple(self.out().elements()), self.picked[self.counted :])

    def encode_pick(self, index: int, value):
        """A pick as JSON: a mix's counts as numbers, items as in the state JSON."""
        if index < self.counted or self.desc is None:
            return value
        return self.desc.encode(value)

    def decode_pick(self, index: int, doc, players: int):
        """A pick from its JSON form (`encode_pick`'s inverse)."""
        if index < self.counted or self.desc is None:
            return doc
        return self.desc.decode(doc, players)

    def to_doc(self) -> dict:
        """JSON form: kind, and the items (as a sorted multiset), a roll's sides, a mix's chance."""
        if self.kind == ROLL:
            return {"kind": ROLL, "sides": self.sides}
        items = [self.desc.encode(x) for x in sorted(self.items, key=_none_first)]
        if self.kind == MIX:
            return {"kind": MIX, "items": items, "percent": self.percent}
        return {"kind": SHUFFLE, "items": items}

    @property
    def where(self) -> str:
        """`file:line` of the event in the rules (empty if unknown)."""
        return f"{self.file}:{self.line}" if self.file else ""


class ChanceNeeded(MetroRuntimeError):
    """Raised inside a step at a random event with no outcome given (caught by ChanceState)."""

    def __init__(self, node: ChanceNode):
        super().__init__(f"a chance outcome is needed ({node.kind})")
        self.node = node


@dataclass
class _Record:
    """One random event that happened: after how many decisions, and its outcome (JSON form)."""

    after: int
    outcome: dict


@dataclass(frozen=True)
class _Forced:
    """An outcome a scenario gave (`chance value`) for the next random event, and where."""

    value: object
    file: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class _Pending:
    """A step stopped at a chance node: the decision (None at the start), outcomes so far, the node."""

    step: tuple[int, Action] | None
    given: list[dict]
    node: ChanceNode


@dataclass
class ChanceLog:
    """The chance side of a state: its mode, the outcomes so far, and a step waiting for one."""

    mode: str
    log: list[_Record] = field(default_factory=list)
    pending: _Pending | None = None
    feed: list[dict] = field(default_factory=list)  # outcomes for the step being run
    used: int = 0  # how many of `feed` the running step has taken
    forced: list[_Forced] = field(default_factory=list)  # scenario `chance` steps not yet used

    def copy(self) -> ChanceLog:
        """An independent copy (outcome docs are never changed, so they are shared)."""
        pending = self.pending
        if pending is not None:
            pending = _Pending(pending.step, list(pending.given), pending.node)
        return ChanceLog(self.mode, list(self.log), pending, forced=list(self.forced))

    def force(self, value, file: str, line: int) -> None:
        """A scenario's `chance` step: the next random event's outcome (recorded mode only)."""
        if self.mode != RECORDED:
            raise RuleError("scenario chance steps run in recorded chance mode", file, line)
        self.forced.append(_Forced(value, file, line))

    # ------------------------------------------------------------ called by runtime.lib

    def shuffle(self, state: State, items: list, desc: Desc | None) -> None:
        """Shuffle a pile: from the generator (recorded) or from the given outcomes (explicit)."""
        certain = all(x == items[0] for x in items)
        if self.mode == RECORDED:
            if self.forced:
                _forced_shuffle(state, items, self.forced.pop(0))
            else:
                state.rng = _rng.shuffle(state.rng, items)
            if not certain:
                self._log(state, _shuffle_doc(items, desc))
            return
        if certain:
            return
        outcome = self._next(ChanceNode(SHUFFLE, tuple(items), len(items), desc))
        items[:] = _decode_order(outcome, items, desc, state.n)

    def roll(self, state: State, sides: int) -> int:
        """A number 1..sides: from the generator (recorded) or from the given outcomes (explicit)."""
        if self.mode == RECORDED:
            if self.forced:
                value = _forced_roll(self.forced.pop(0), sides) - 1
            else:
                state.rng, value = _rng.below(state.rng, sides)
            if sides > 1:
                self._log(state, _roll_doc(sides, value + 1))
            return value + 1
        if not 0 < sides < _rng.BELOW_LIMIT:
            raise ValueError(f"n must satisfy 1 <= n < 2**32, got {sides}")  # as seeded play says
        if sides == 1:
            return 1
        return _roll_value(self._next(ChanceNode(ROLL, (), sides)), sides)

    def mix(self, state: State, inside: list, percent: int, desc: Desc | None) -> list:
        """The items out of a mixer (removed from `inside`): drawn (recorded) or given (explicit)."""
        certain = (
            not inside or percent == 0 or (percent == 100 and all(x == inside[0] for x in inside))
        )
        if self.mode == RECORDED:
            if self.forced:
                out = _forced_mix(self.forced.pop(0), inside, percent)
            else:
                state.rng, out = mix_draw(state.rng, inside, percent)
            if not certain:
                self._log(state, _mix_doc(out, desc))
            return out
        if certain:
            out = list(inside) if percent == 100 else []
        else:
            node = ChanceNode(MIX, tuple(inside), len(inside), desc, percent=percent)
            out = _decode_out(self._next(node), node, state.n)
        _take_out(inside, out)
        return out

    def _log(self, state: State, outcome: dict) -> None:
        self.log.append(_Record(len(state.history), outcome))

    def _next(self, node: ChanceNode) -> dict:
        if self.used < len(self.feed):
            self.used += 1
            return self.feed[self.used - 1]
        raise ChanceNeeded(node)


class ChanceState(State):
    """A state in `recorded` or `explicit` chance mode (`Game.new_game(..., chance=...)`).

    Each compiled game gets its own subclass of this and its generated State, so seeded
    states pay nothing for it.
    """

    __slots__ = ()

    # ------------------------------------------------------------ the contract, chance-aware

    @property
    def to_move(self) -> list[int]:
        """`[CHANCE]` at a chance node, else the players who must decide now."""
        if self.chance.pending is not None:
            return [CHANCE]
        return State.to_move.fget(self)

    def legal_actions(self, player: int) -> list[Action]:
        """No actions at a chance node (its outcomes are `chance_outcomes()`)."""
        if self.chance.pending is not None:
            return []
        return State.legal_actions(self, player)

    def apply(self, player: int, action) -> None:
        """Take an action; in explicit mode the step may stop at a chance node."""
        if self.chance.pending is not None:
            node = self.chance.pending.node
            raise IllegalAction(
                f"a chance outcome ({node.kind}) is awaited, not an action",
                "",
                node.file,
                node.line,
            )
        if self.chance.mode == RECORDED:
            State.apply(self, player, action)
            return
        self._step((player, action), [])

    def apply_legal(self, player: int, action: Action) -> None:
        """The bots' fast path, unchecked in recorded mode; in explicit mode the step is checked
        and may stop at a chance node, as `apply`'s does."""
        if self.chance.mode == RECORDED:  # nothing waits for an outcome in recorded mode
            State.apply_legal(self, player, action)
        else:
            self.apply(player, action)

    def view(self, player: int) -> dict:
        """What `player` may see; nobody is to move at a chance node."""
        doc = State.view(self, player)
        if self.chance.pending is not None:
            doc["to_move"] = []
        return doc

    def clone(self) -> ChanceState:
        """An independent copy, chance log and pending node included."""
        other = State.clone(self)
        other.chance = self.chance.copy()
        return other

    def seeded_clone(self) -> State:
        """A copy in seeded mode: later random events draw from its generator (as bots search)."""
        return self._copy_into(object.__new__(self.game.module.State))

    def to_doc(self) -> dict:
        """The position as JSON-able data, with its chance mode and log."""
        doc = State.to_doc(self)
        pending = self.chance.pending
        doc["chance"] = {
            "mode": self.chance.mode,
            "log": [[r.after, r.outcome] for r in self.chance.log],
            "pending": None if pending is None else _pending_doc(pending),
        }
        return doc

    # ------------------------------------------------------------ chance

    @property
    def chance_node(self) -> ChanceNode | None:
        """The random event waiting for its outcome, or None."""
        pending = self.chance.pending
        return None if pending is None else pending.node

    def chance_outcomes(self) -> list[tuple[object, Fraction]]:
        """The elementary outcomes of the waiting event with exact probabilities ([] if none waits)."""
        node = self.chance_node
        return [] if node is None else node.outcomes()

    def apply_chance(self, value) -> None:
        """Give one elementary outcome (a value of `chance_outcomes()`)."""
        node = self._waiting()
        if not any(value == v for v, _ in node.outcomes()):
            raise IllegalAction(
                f"{value!r} is not an outcome of this {node.kind} now", "", node.file, node.line
            )
        if node.kind == ROLL:
            self._resume(_roll_doc(node.sides, value))
            return
        node = replace(node, picked=(*node.picked, value))
        left = node.left()
        if len(node.picked) < node.counted or len(left) > 1:
            self.chance.pending.node = node
            return
        order = list(node.picked[node.counted :]) + list(left.elements())
        if node.kind == MIX:
            self._resume(_mix_doc(order, node.desc))
        else:
            self._resume(_shuffle_doc(list(reversed(order)), node.desc))

    def apply_outcome(self, outcome: dict) -> None:
        """Give the waiting event's whole outcome in its JSON form (IllegalAction if it does not fit)."""
        node = self._waiting()
        if not isinstance(outcome, dict) or outcome.get("kind") != node.kind:
            raise IllegalAction(
                f"the waiting chance event is a {node.kind}, not {_kind_of(outcome)}",
                "",
                node.file,
                node.line,
            )
        try:
            if node.kind == ROLL:
                outcome = _roll_doc(node.sides, _roll_value(outcome, node.sides))
            elif node.kind == MIX:
                outcome = _mix_doc(_decode_out(outcome, node, self.n), node.desc)
            else:
                order = _decode_order(outcome, node.items, node.desc, self.n)
                top = list(reversed(order))[: len(node.picked)]
                if tuple(top) != node.picked:
                    raise ValueError("the order does not begin (from the top) with the picks made")
                outcome = _shuffle_doc(order, node.desc)
        except ValueError as error:
            raise IllegalAction(str(error), "", node.file, node.line) from None
        self._resume(outcome)

    def record(self) -> list[dict]:
        """Every step so far in order: `{"chance": outcome}` and `{"apply": {"player", "action"}}`."""
        steps: list[dict] = []
        log = self.chance.log
        at = 0
        for decided in range(len(self.history) + 1):
            while at < len(log) and log[at].after <= decided:
                steps.append({"chance": log[at].outcome})
                at += 1
            if decided < len(self.history):
                player, action = self.history[decided]
                steps.append({"apply": {"player": player, "action": action.id}})
        return steps

    # ------------------------------------------------------------ running a step

    def _waiting(self) -> ChanceNode:
        node = self.chance_node
        if node is None:
            raise IllegalAction("no chance event is waiting for an outcome")
        return node

    def _resume(self, outcome: dict) -> None:
        pending = self.chance.pending
        self.chance.pending = None
        self._step(pending.step, [*pending.given, outcome])

    def _step(self, step: tuple[int, Action] | None, given: list[dict]) -> None:
        """Run the start (step None) or one decision with these outcomes; stop at the next node."""
        before = State.clone(self)
        chance = self.chance
        chance.feed, chance.used = given, 0
        try:
            if step is None:
                self._run()
            else:
                State.apply(self, *step)
        except ChanceNeeded as need:
            if step is not None:  # the action as the game read it (an id becomes its Action)
                step = self.history[-1]
            before._copy_into(self)
            file, line = self.game.locate(need.__traceback__)
            chance.pending = _Pending(step, given, replace(need.node, file=file, line=line))
            return
        finally:
            chance.feed, chance.used = [], 0
        chance.log.extend(_Record(len(self.history), outcome) for outcome in given)


def start(state: ChanceState, mode: str) -> None:
    """Run a new state (fields initialised, flow frame pushed) to its first decision in `mode`."""
    state.chance = ChanceLog(mode)
    if mode == RECORDED:
        state._run()
    else:
        state._step(None, [])


def replay_record(game, players: int, steps: list[dict]):
    """A game in explicit chance mode driven by a record (`ChanceState.record()`'s steps)."""
    state = game.new_game(players, chance=EXPLICIT)
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or len(step) != 1:
            raise ValueError(f"step {index}: expected {{'chance': …}} or {{'apply': …}}")
        if "chance" in step:
            state.apply_outcome(step["chance"])
        elif "apply" in step and isinstance(step["apply"], dict):
            state.apply(step["apply"].get("player"), step["apply"].get("action"))
        else:
            raise ValueError(f"step {index}: expected {{'chance': …}} or {{'apply': …}}")
    return state


# ---------------------------------------------------------------- saves


def load_state(game, doc: dict) -> ChanceState:
    """A state in recorded or explicit chance mode from its save (`saves.load` has read `doc`)."""
    with at("chance"):
        mode, log, pending = _read_chance(doc["chance"])
    if pending is not None and pending["player"] is None:
        # Stopped before the first decision: start the game again with the outcomes given.
        state = game.new_game(doc["players"], doc["seed"], chance=EXPLICIT)
        with at("chance", "pending"):
            _give_saved(state, pending)
        if state.to_doc() != doc:
            raise InvalidSave("the save is not the game started again with its outcomes")
        return state
    state = game.chance_class()()
    state.chance = ChanceLog(mode, log)
    game.restore(doc, state)
    if log and log[-1].after > len(state.history):
        raise InvalidSave("an outcome is logged after more decisions than were made", ("chance",))
    if pending is not None:
        with at("chance", "pending"):
            step = (pending["player"], pending["action"])
            try:
                state._step(step, [])
            except (MetroRuntimeError, ValueError) as error:
                raise InvalidSave(f"the waiting step cannot be taken again: {error}") from None
            _give_saved(state, pending)
    if state.to_doc() != doc:
        raise InvalidSave("the save's chance log or waiting step is not the one its game reaches")
    return state


def _read_chance(doc) -> tuple[str, list[_Record], dict | None]:
    doc = exact_keys(doc, ("mode", "log", "pending"))
    mode = doc["mode"]
    if mode not in (RECORDED, EXPLICIT):
        raise InvalidSave(f"the chance mode is recorded or explicit, not {show(mode)}", ("mode",))
    log: list[_Record] = []
    with at("log"):
        for index, entry in enumerate(check_list(doc["log"])):
            with at(index):
                if type(entry) is not list or len(entry) != 2:
                    raise InvalidSave(f"expected [decisions, outcome], found {show(entry)}")
                after = check_int(entry[0])
                if after < (log[-1].after if log else 0):
                    raise InvalidSave("the log is not in the order of play", (0,))
                with at(1):
                    log.append(_Record(after, _checked_outcome(entry[1])))
    pending = doc["pending"]
    if pending is not None:
        with at("pending"):
            if mode != EXPLICIT:
                raise InvalidSave("only a game in explicit chance mode waits for outcomes")
            pending = exact_keys(pending, ("player", "action", "given", "node", "picked"))
            player, action = pending["player"], pending["action"]
            if (player is None) != (action is None) or (
                player is not None and (type(player) is not int or type(action) is not str)
            ):
                raise InvalidSave("a waiting step is a player and an action id, or both null")
            with at("given"):
                each = check_list(pending["given"])
                pending["given"] = [_checked_outcome(o) for o in each]
            check_list(pending["picked"])
    return mode, log, pending


def _give_saved(state: ChanceState, pending: dict) -> None:
    """Give the saved outcomes and picks of a waiting step again; it must stop at the saved node."""
    try:
        for outcome in pending["given"]:
            state.apply_outcome(outcome)
        node = state.chance_node
        if node is None or node.to_doc() != pending["node"]:
            raise InvalidSave("the step does not stop at the saved chance node")
        for index, pick in enumerate(pending["picked"]):
            state.apply_chance(state.chance_node.decode_pick(index, pick, state.n))
    except IllegalAction as error:
        raise InvalidSave(f"a saved outcome does not fit: {error}") from None
    if state.chance_node is None:
        raise InvalidSave("the saved outcomes complete the step: nothing is waiting")


def _checked_outcome(doc) -> dict:
    """An outcome's JSON form, checked for shape only (its items are checked when it is used)."""
    kind = check_object(doc).get("kind")
    if kind == ROLL:
        exact_keys(doc, ("kind", "sides", "value"))
        sides, value = check_int(doc["sides"]), check_int(doc["value"])
        if not 1 <= value <= sides:
            raise InvalidSave(f"a roll's value is 1..{sides}, not {value}")
        return _roll_doc(sides, value)
    if kind == SHUFFLE:
        exact_keys(doc, ("kind", "order"))
        with at("order"):
            order = check_list(doc["order"])
            for index, item in enumerate(order):
                with at(index):
                    decode_any(item)
        return {"kind": SHUFFLE, "order": list(order)}
    if kind == MIX:
        exact_keys(doc, ("kind", "out"))
        with at("out"):
            out = check_list(doc["out"])
            for index, item in enumerate(out):
                with at(index):
                    decode_any(item)
        return {"kind": MIX, "out": list(out)}
    raise InvalidSave(f'an outcome\'s "kind" is "shuffle", "roll" or "mix", not {show(kind)}')


# ---------------------------------------------------------------- outcomes in JSON form


def _remaining(items: tuple, picked: tuple) -> Counter:
    left = Counter(items)
    left.subtract(picked)
    return +left


def _distinct(items: tuple) -> list[tuple[object, int]]:
    """A mixer's distinct items with their counts, in sorted order."""
    return sorted(Counter(items).items(), key=lambda pair: _none_first(pair[0]))


def _order_picks(left: Counter) -> list[tuple[object, Fraction]]:
    total = sum(left.values())
    return [
        (item, Fraction(count, total))
        for item, count in sorted(left.items(), key=lambda pair: _none_first(pair[0]))
    ]


def _shuffle_doc(order, desc: Desc | None) -> dict:
    encode = desc.encode if desc is not None else (lambda x: x)
    return {"kind": SHUFFLE, "order": [encode(x) for x in order]}


def _mix_doc(out, desc: Desc | None) -> dict:
    encode = desc.encode if desc is not None else (lambda x: x)
    return {"kind": MIX, "out": [encode(x) for x in out]}


def _decode_out(outcome: dict, node: ChanceNode, n: int) -> list:
    """A mix outcome's items as runtime values; ValueError unless they can come out of `node`."""
    out = outcome.get("out") if isinstance(outcome, dict) else None
    if outcome.get("kind") != MIX or not isinstance(out, list):
        raise ValueError('a mix outcome is {"kind": "mix", "out": [...]}')
    values = [node.desc.decode(x, n) for x in out] if node.desc is not None else list(out)
    taken = Counter(values)
    if taken - Counter(node.items):
        raise ValueError("the items out are not all inside the mixer")
    if node.percent == 100 and len(values) != len(node.items):
        raise ValueError("every item comes out of a mixer at 100%")
    counted = node.picked[: node.counted]
    if any(taken[item] != k for (item, _), k in zip(_distinct(node.items), counted, strict=False)):
        raise ValueError("the items out do not match the counts picked")
    ordered = node.picked[node.counted :]
    if tuple(values[: len(ordered)]) != ordered:
        raise ValueError("the items out do not begin with the picks made")
    return values


def _take_out(inside: list, out: list) -> None:
    for item in out:
        inside.remove(item)


def _forced_shuffle(state: State, items: list, forced: _Forced) -> None:
    """A shuffle whose top items a scenario gave (first drawn first); the rest from the generator."""
    top = forced.value
    if not isinstance(top, list) or Counter(top) - Counter(items):
        raise RuleError(
            f"the chance outcome given at {forced.where} is not a list of this pile's items "
            "(its top items, first drawn first)"
        )
    rest = list(items)
    _take_out(rest, top)
    state.rng = _rng.shuffle(state.rng, rest)
    items[:] = rest + list(reversed(top))


def _forced_roll(forced: _Forced, sides: int) -> int:
    value = forced.value
    if type(value) is not int or not 1 <= value <= sides:
        raise RuleError(f"the chance outcome given at {forced.where} is not a roll of 1..{sides}")
    return value


def _forced_mix(forced: _Forced, inside: list, percent: int) -> list:
    out = forced.value
    if not isinstance(out, list) or Counter(out) - Counter(inside):
        raise RuleError(
            f"the chance outcome given at {forced.where} is not a list of items inside the mixer"
        )
    if (percent == 0 and out) or (percent == 100 and len(out) != len(inside)):
        raise RuleError(
            f"the chance outcome given at {forced.where} cannot happen: each item's chance is "
            f"{percent}%"
        )
    out = list(out)
    _take_out(inside, out)
    return out


def _roll_doc(sides: int, value: int) -> dict:
    return {"kind": ROLL, "sides": sides, "value": value}


def _decode_order(outcome: dict, items, desc: Desc | None, n: int) -> list:
    """A shuffle outcome's order as runtime values; ValueError unless it reorders `items`."""
    order = outcome.get("order") if isinstance(outcome, dict) else None
    if outcome.get("kind") != SHUFFLE or not isinstance(order, list):
        raise ValueError('a shuffle outcome is {"kind": "shuffle", "order": [...]}')
    if len(order) != len(items):
        raise ValueError(f"the order lists {len(order)} items, the pile holds {len(items)}")
    values = [desc.decode(x, n) for x in order] if desc is not None else list(order)
    if Counter(values) != Counter(items):
        raise ValueError("the order is not a reordering of the pile's items")
    return values


def _roll_value(outcome: dict, sides: int) -> int:
    value = outcome.get("value")
    if (
        outcome.get("kind") != ROLL
        or outcome.get("sides") != sides
        or type(value) is not int
        or not 1 <= value <= sides
    ):
        raise ValueError(
            f'a roll outcome here is {{"kind": "roll", "sides": {sides}, "value": 1..{sides}}}'
        )
    return value


def _kind_of(outcome) -> str:
    kind = outcome.get("kind") if isinstance(outcome, dict) else None
    return f"a {kind}" if isinstance(kind, str) else "an outcome of no known kind"


def _pending_doc(pending: _Pending) -> dict:
    node = pending.node
    return {
        "player": None if pending.step is None else pending.step[0],
        "action": None if pending.step is None else pending.step[1].id,
        "given": pending.given,
        "node": node.to_doc(),
        "picked": [node.encode_pick(i, x) for i, x in enumerate(node.picked)],
    }


def _none_first(value):
    return (value is not None, value)
