"""Small helpers generated code calls: collections, piles, bags, randomness, scenario steps."""

from __future__ import annotations

import os
from bisect import bisect_left, bisect_right, insort
from itertools import combinations, compress
from math import comb

from runtime import rng as _rng
from runtime.errors import IllegalAction, RuleError, ScenarioFailure
from runtime.frames import RETURN, UNLISTED, WAITING, Action, Frame  # noqa: F401 (UNLISTED: for generated code)
from runtime.graph import components
from runtime.limits import MAX_DOMAIN, MAX_SUBSETS, STEP_BUDGET
from runtime.values import INT_LIMIT, ListD

# Re-exported for generated code: a guard table's slot for an integer key (compiler/guards.py).
__all__ = ["Action", "Frame", "bisect_left", "bisect_right"]

UNSET = object()  # a value a legal-action listing has not computed yet (compiler/lower.py)


def int_ok(value):
    """The integer itself if it lies in the documented range (INT_LIMIT), else a RuleError."""
    if -INT_LIMIT <= value < INT_LIMIT:
        return value
    raise _too_large(value)


def opt_int_ok(value):
    """`int_ok` for an optional integer (none passes)."""
    if value is None or -INT_LIMIT <= value < INT_LIMIT:
        return value
    raise _too_large(value)


def ints_ok(items):
    """A collection of integers (or a table with integer values) whose every value is in range."""
    for value in items.values() if isinstance(items, dict) else items:
        if value is not None and not -INT_LIMIT <= value < INT_LIMIT:
            raise _too_large(value)
    return items


def _too_large(value: int) -> RuleError:
    # Never str() of the value: Python refuses to print integers of more than 4300 digits.
    sign = "-" if value < 0 else ""
    return RuleError(
        f"an integer result (about {sign}2**{abs(value).bit_length() - 1}) is outside the "
        "range -2**63 .. 2**63 - 1"
    )


# `weight` below is the number of steps one iteration may take (its body, nested walks and
# calls), as the compiler's `cost` pass bounds it; every charge is the iterations times it.


class LabelScope:
    """What a label function charges its walks to: a label reads no state, only the budget."""

    __slots__ = ("_iters",)

    def __init__(self):
        self._iters = 0


# `at` below is where a charge is made: (file, line, column) of the construct, a constant the
# generated module binds once (`_L0_49_52`, compiler/sources.py `location_name`), so it costs a
# call one global read; the file is the path the module binds to its table's entry
# (`source_paths`).
Spot = tuple[str, int, int]


def source_paths(names: tuple[str, ...], module_file: str) -> tuple[str, ...]:
    """The paths of a generated module's rule files (`SOURCES`, named relative to the game's
    folder), as its messages name them: joined to the game's folder when the loader ran the
    module (its file name is then `<metro:GAME_FILE>`), else the names as written (a module
    written by `metro compile -o` and imported)."""
    if not (module_file.startswith("<metro:") and module_file.endswith(">")):
        return tuple(names)
    folder = os.path.dirname(module_file[len("<metro:") : -1])
    return tuple(os.path.normpath(os.path.join(folder, name)) for name in names)


def line_table(rows: tuple[tuple[int, int, int, int], ...]) -> dict[int, tuple[int, int]]:
    """A generated module's `METRO_LINES`: each generated line -> (rule file's index, line), from
    rows (first line, last line, file index, line) of lines that came from one .metro line."""
    return {n: (source, line) for first, last, source, line in rows for n in range(first, last + 1)}


def tick(state, at: Spot, weight: int = 1) -> None:
    """Count one iteration of a `while`/`loop`; fail at its line instead of hanging."""
    state._iters += weight
    if state._iters > STEP_BUDGET:
        over_budget(at)


def spend(state, steps: int, at: Spot) -> None:
    """Charge a call whose body may take `steps` steps (more than run free) before it runs."""
    state._iters += steps
    if state._iters > STEP_BUDGET:
        over_budget(at)


def each(state, items, at: Spot, weight: int = 1):
    """Charge a walk over `items` (a collection or range) to the step budget; returns `items`."""
    try:
        steps = state._iters + len(items) * weight
    except OverflowError:  # a range longer than any machine word
        over_budget(at)
    state._iters = steps
    if steps > STEP_BUDGET:
        over_budget(at)
    return items


def action_table(rank: int, name: str, descs: tuple, domains: tuple):
    """Every action of one name built once: nested tuples indexed by the argument values (the
    action itself when it takes none). Listing then looks actions up instead of building them."""

    def build(args: tuple, rest: tuple):
        if not rest:
            return Action((rank, name, args, descs))
        return tuple(build((*args, value), rest[1:]) for value in rest[0])

    return build((), domains)


ACTION_MEMO_LIMIT = 1 << 16  # actions one name's memo keeps before it starts again


def new_action(memo: dict, rank: int, name: str, args: tuple, descs) -> Action:
    """Build an action a listing did not find in its memo (`MEMO_<name>`) and remember it there.

    Actions are immutable and equal by value, so a listing may return the one built before."""
    if len(memo) >= ACTION_MEMO_LIMIT:
        memo.clear()
    action = memo[args] = Action((rank, name, args, descs))
    return action


def action_row(rows, at, prefix: tuple, stop: int, rank: int, name: str, descs) -> list:
    """The actions `prefix + (k,)` for k in 0 … stop-1, kept in `rows` at `at` (a list by
    position, or a dict by the prefix, bounded like the memo); a listing takes a slice of it.
    It is made longer when a larger value is listed."""
    if type(rows) is dict and len(rows) >= ACTION_MEMO_LIMIT:
        rows.clear()
    row = (rows.get(at) if type(rows) is dict else rows[at]) or []
    row += [Action((rank, name, (*prefix, k), descs)) for k in range(len(row), stop)]
    rows[at] = row
    return row


def frame_of(proc: str, pc: int, ret, names: tuple, values: tuple) -> Frame:
    """The frame a procedure run by its frameless entry has at block `pc`: its locals so far
    (those still UNSET were not set yet, so a frame would not hold them) and last call's result."""
    frame = Frame(proc, {n: v for n, v in zip(names, values, strict=True) if v is not UNSET}, pc)
    frame.ret = ret
    return frame


def run_on(S, run, frame: Frame):
    """Run a frame an entry made (on top of the stack) as the runner would: its result, or
    WAITING if it waits (then it stays on the stack)."""
    signal = run(S, frame)
    if signal != RETURN:
        return WAITING[signal]
    S.stack.pop()
    return frame.ret


def group_by(table: list, values: int) -> list[list]:
    """A table's maintained index: the sorted keys holding each value (none's last)."""
    groups: list[list] = [[] for _ in range(values + 1)]
    for key, value in enumerate(table):
        groups[-1 if value is None else value].append(key)
    return groups


def regroup(groups: list[list], key, old, new):
    """Move `key` from its old value's list to its new value's in a maintained index; returns `new`."""
    if old is not new and old != new:
        before = groups[-1 if old is None else old]
        del before[bisect_left(before, key)]
        insort(groups[-1 if new is None else new], key)
    return new


def none_views(table: list, cells: tuple) -> list[list]:
    """Views of a maintained index: for each cell (sorted keys), its keys whose entry is none."""
    return [[key for key in cell if table[key] is None] for cell in cells]


def regroup_viewed(groups: list[list], views: list[list], holding: tuple, key, old, new):
    """`regroup`, and `key` taken out of the views holding it (`holding[key]`) when its entry
    stops being none, put back in when it becomes none; returns `new`."""
    if old is not new and old != new:
        regroup(groups, key, old, new)
        if old is None:
            for cell in holding[key]:
                view = views[cell]
                del view[bisect_left(view, key)]
        elif new is None:
            for cell in holding[key]:
                insort(views[cell], key)
    return new


def charged(state, items, size: int, at: Spot, weight: int = 1):
    """Charge a walk over `size` values (a domain as written) and return `items`, those a guard's
    fixed part lets through (compiler/guards.py): the budget counts what the rules say."""
    state._iters += size * weight
    if state._iters > STEP_BUDGET:
        over_budget(at)
    return items


def each_bag(state, bag: list, at: Spot, weight: int = 1) -> list:
    """The items of a bag with repeats, charged before they are listed."""
    each(state, range(sum(bag)), at, weight)
    return bag_items(bag)


def times(state, count: int, at: Spot, weight: int = 1) -> int:
    """Charge `repeat count times` to the step budget; returns the count."""
    if count > 0:
        state._iters += count * weight
        if state._iters > STEP_BUDGET:
            over_budget(at)
    return count


def over_budget(at: Spot):
    """Fail: the rules ran more loop steps between two decisions than the budget allows."""
    raise RuleError(
        f"the rules ran more than {STEP_BUDGET:,} loop steps without a decision "
        "(the step budget); is a loop or range unbounded?",
        *at,
    )


def too_many_arguments(action: str, at: Spot):
    """Fail: listing an action's legal arguments walked more values than the domain limit."""
    raise RuleError(
        f"listing the arguments of '{action}' walks more than {MAX_DOMAIN:,} values (the domain "
        "limit)",
        *at,
    )


def domain(state, lo: int, hi: int, step: int, at: Spot, weight: int = 1) -> range:
    """The values lo..hi of a choice or parameter domain, refused beyond MAX_DOMAIN values."""
    values = range(lo, hi + 1, step)
    try:
        size = len(values)
    except OverflowError:
        size = MAX_DOMAIN + 1
    if size > MAX_DOMAIN:
        raise RuleError(
            f"a choice domain of {lo}..{hi} has more than {MAX_DOMAIN:,} values (the domain limit)",
            *at,
        )
    return each(state, values, at, weight)


def seat(state, number: int) -> int:
    """The player in 1-based seat `number`."""
    if not 1 <= number <= state.n:
        raise RuleError(f"there is no seat {number} with {state.n} players")
    return number - 1


def roll(state, sides: int) -> int:
    """A number from 1 to `sides`: from the state's generator, or given (runtime/chance.py)."""
    if state.chance is not None:
        return state.chance.roll(state, sides)
    state.rng, value = _rng.below(state.rng, sides)
    return value + 1


def shuffle(state, items: list, desc=None) -> None:
    """Shuffle a pile (items written by `desc`): with the state's generator, or as given."""
    if state.chance is not None:
        state.chance.shuffle(state, items, desc)
        return
    state.rng = _rng.shuffle(state.rng, items)


def mix(state, inside: list, items: list, percents: list, desc=None) -> list:
    """Put items into a mixer; each item inside comes out with a chance: those that did, in order.

    `percents[k - 1]` is each item's chance in percent when `k` items are inside after the
    items go in (the last entry for more); the items that come out leave `inside`, in a random
    order (first out first); the rest stay. Drawn from the state's generator, or as given
    (runtime/chance.py).
    """
    inside.extend(items)
    percent = mix_percent(percents, len(inside))
    if state.chance is not None:
        return state.chance.mix(state, inside, percent, desc)
    state.rng, out = mix_draw(state.rng, inside, percent)
    return out


def mix_percent(percents: list, inside: int) -> int:
    """The chance in percent of each item coming out of a mixer holding `inside` items."""
    if not percents:
        raise RuleError("a mixer needs at least one chance (in percent)")
    percent = percents[min(max(inside, 1), len(percents)) - 1]
    if not 0 <= percent <= 100:
        raise RuleError(f"a mixer's chance is a percent from 0 to 100, not {percent}")
    return percent


def mix_draw(rng: int, inside: list, percent: int) -> tuple[int, list]:
    """One draw of a mixer from the generator: each item in turn, then the order of those out."""
    out = []
    kept = []
    for item in inside:
        rng, value = _rng.below(rng, 100)
        (out if value < percent else kept).append(item)
    inside[:] = kept
    return _rng.shuffle(rng, out), out


def take_top(pile: list):
    """Remove and return the top of a pile."""
    if not pile:
        raise RuleError("cannot take from an empty pile")
    return pile.pop()


def draw(source: list, count: int) -> list:
    """Take `count` items from the top of a pile (first drawn first)."""
    if count < 0 or count > len(source):
        raise RuleError(f"cannot draw {count} from a pile of {len(source)}")
    if count == 0:
        return []
    taken = source[-count:]
    del source[-count:]
    taken.reverse()
    return taken


def bag_add(bag: list, item, count: int = 1) -> None:
    """Put items into a bag."""
    bag[item] += count


def bag_add_all(bag: list, items) -> None:
    """Put every item of a collection into a bag."""
    for item in items:
        bag[item] += 1


def bag_remove(bag: list, item) -> None:
    """Take one item out of a bag."""
    if bag[item] <= 0:
        raise RuleError("the bag holds no such item")
    bag[item] -= 1


def bag_remove_all(bag: list, items) -> None:
    """Take every item of a collection out of a bag."""
    for item in items:
        bag_remove(bag, item)


def bag_items(bag: list) -> list:
    """The items of a bag with repeats, in value order."""
    out = []
    for item, count in enumerate(bag):
        if count:
            out.extend([item] * count)
    return out


def bag_distinct(bag: list) -> list:
    """The values a bag holds at least once, in order."""
    return list(compress(range(len(bag)), bag))


def to_bag(items, size: int) -> list:
    """A bag (list of counts) holding the given items."""
    counts = [0] * size
    for item in items:
        counts[item] += 1
    return counts


def table_to_list(table, size: int) -> list:
    """A table over a finite key as the list the runtime keeps (missing keys are none)."""
    if isinstance(table, dict):
        return [table.get(key) for key in range(size)]
    return list(table)


def remove_at(items: list, index: int) -> None:
    """Remove the item at a position."""
    if not 0 <= index < len(items):
        raise RuleError(f"no item at position {index}")
    del items[index]


def list_remove(items: list, item) -> None:
    """Remove the first occurrence of an item."""
    try:
        items.remove(item)
    except ValueError:
        raise RuleError("the collection holds no such item") from None


def set_remove(items: set, item) -> None:
    """Remove an item from a set."""
    if item not in items:
        raise RuleError("the set holds no such item")
    items.discard(item)


def distinct(items) -> list:
    """Distinct items in ascending order (None first)."""
    return sorted(set(items), key=_none_first)


def _none_first(value):
    return (value is not None, value)


def index_of(items, item) -> int:
    """Position of an item, -1 if absent."""
    for i, value in enumerate(items):
        if value == item:
            return i
    return -1


def least(values, what: str = "min"):
    """Minimum of a non-empty collection."""
    values = list(values)
    if not values:
        raise RuleError(f"{what}() of an empty collection")
    return min(values)


def greatest(values):
    """Maximum of a non-empty collection."""
    values = list(values)
    if not values:
        raise RuleError("max() of an empty collection")
    return max(values)


def subsets(state, items, lo: int, hi: int, at: Spot, weight: int = 1) -> list[tuple]:
    """Sub-collections (sorted tuples of the items) with size in lo..hi, at most MAX_SUBSETS of them."""
    values = sorted(items)
    count = len(values)
    sizes = range(lo if lo > 0 else 0, (hi if hi < count else count) + 1)
    if count <= 1:  # the common case of none or one item: no subset made twice, none to sort
        spend(state, len(sizes) * weight, at)
        return [tuple(values[:size]) for size in sizes]
    total = 0
    for size in sizes:  # an upper bound (repeated items give fewer distinct subsets)
        total += comb(count, size)
        if total > MAX_SUBSETS:
            raise RuleError(
                f"`subset of` {count} items has more than {MAX_SUBSETS:,} subsets (the subset "
                "limit)",
                *at,
            )
    spend(state, total * weight, at)  # as `each` charges a walk over `total` values
    out = [combo for size in sizes for combo in combinations(values, size)]
    if len(set(values)) < len(values):  # repeated items: the same subset made more than once
        out = list(dict.fromkeys(out))
    out.sort()
    return out


def graph_connected(edges, vertices) -> bool:
    """True if the edges join every vertex to every other."""
    vertices = list(vertices)
    if len(vertices) <= 1:
        return True
    home = {v: i for i, comp in enumerate(components(list(edges))) for v in comp}
    first = home.get(vertices[0])
    return first is not None and all(home.get(v) == first for v in vertices)


# ---------------------------------------------------------------- simultaneous choices


def start_each(state, frame, legal, who_key: str, sub_key: str, result: str) -> bool:
    """Begin a simultaneous choice; players without options are skipped. True if anyone decides."""
    local_vars = frame.L
    submitted = local_vars[sub_key]
    _list_or_skip(state, frame, legal, local_vars[who_key], submitted)
    if all(p in submitted for p in local_vars[who_key]):
        local_vars[result] = [submitted.get(p) for p in range(state.n)]
        return False
    return True


def _list_or_skip(state, frame, legal, players, submitted: dict) -> None:
    """List each chooser's legal choices once: kept for the decision, or none chosen if empty."""
    for player in players:
        actions = legal(state, frame, player)
        if actions:
            state.cache_legal(player, actions)
        else:
            submitted[player] = None


def submit(state, frame, player: int, value, who_key: str, sub_key: str, result: str) -> bool:
    """Record one secret choice; True when everyone has chosen (the choices are then revealed)."""
    local_vars = frame.L
    submitted = local_vars[sub_key]
    submitted[player] = value
    if all(p in submitted for p in local_vars[who_key]):
        local_vars[result] = [submitted.get(p) for p in range(state.n)]
        return True
    return False


def start_each_action(state, frame, legal, who_key: str, sub_key: str, frames) -> bool:
    """Begin a simultaneous action choice; True if anyone has something to choose.

    If nobody has, the (empty) set of choices is resolved at once: nothing is pushed.
    """
    local_vars = frame.L
    submitted = local_vars[sub_key]
    _list_or_skip(state, frame, legal, local_vars[who_key], submitted)
    if all(p in submitted for p in local_vars[who_key]):
        _push_actions(state, local_vars[who_key], submitted, frames)
        return False
    return True


def submit_action(state, frame, player: int, action, who_key: str, sub_key: str, frames) -> bool:
    """Record one secret action; when all are in, push them so they run in the players' order."""
    local_vars = frame.L
    submitted = local_vars[sub_key]
    submitted[player] = [action[1], list(action[2])]
    if all(p in submitted for p in local_vars[who_key]):
        _push_actions(state, local_vars[who_key], submitted, frames)
        return True
    return False


def _push_actions(state, order, submitted, frames) -> None:
    # The stack runs its top first, so the last player in order is pushed first.
    for player in reversed(order):
        choice = submitted.get(player)
        if choice is not None:
            name, args = choice
            state.stack.append(frames[name](player, tuple(args)))


# ---------------------------------------------------------------- scenario steps


def play(state, player: int, name: str, args: tuple, file: str, line: int) -> None:
    """Scenario step: apply the named action, failing the scenario if it is not legal."""
    state.forget_legal()
    action = _match(state, player, name, args)
    if action is None:
        legal = ", ".join(a.id for a in state.legal_actions(player)[:12]) or "none"
        raise ScenarioFailure(
            f"{_show(state, name, args)} is not legal for P{player + 1}; legal: {legal}", file, line
        )
    state.apply(player, action)
    unused_chance(state, file, line)


def chance(state, value, file: str, line: int) -> None:
    """Scenario step: the outcome of the next random event (a roll's number, a shuffle's top
    items first drawn first, a mixer's items out first out first)."""
    if state.chance is None:
        raise ScenarioFailure("chance steps need a game in recorded chance mode", file, line)
    state.chance.force(list(value) if isinstance(value, list | tuple) else value, file, line)


def unused_chance(state, file: str, line: int) -> None:
    """Fail a scenario step after which an outcome its `chance` steps gave is still unused."""
    forced = state.chance.forced if state.chance is not None else ()
    if forced:
        raise ScenarioFailure(
            f"the chance outcome given at {forced[0].where} was not used (no random event took it)",
            file,
            line,
        )


def refuse(state, player: int, name: str, args: tuple, file: str, line: int) -> None:
    """Scenario step: the named action must be refused, and the state left unchanged."""
    state.forget_legal()
    before = state.to_json()
    action = _match(state, player, name, args)
    if action is not None:
        raise ScenarioFailure(
            f"{_show(state, name, args)} was expected to be illegal for P{player + 1}, "
            "but it is legal",
            file,
            line,
        )
    probe = Action((0, name, tuple(args), ()))
    try:
        state.apply(player, probe)
    except IllegalAction:
        pass
    else:
        raise ScenarioFailure(f"{_show(state, name, args)} was applied", file, line)
    if state.to_json() != before:
        raise ScenarioFailure("a refused action changed the state", file, line)


def _match(state, player: int, name: str, args: tuple):
    wanted = tuple(tuple(a) if isinstance(a, list) else a for a in args)
    for action in state.legal_actions(player):
        if action.name == name and _same_args(action.args, wanted, action[3]):
            return action
    return None


def _same_args(have: tuple, wanted: tuple, descs: tuple) -> bool:
    # A subset may be written in any order; every other value must match exactly.
    if len(have) != len(wanted):
        return False
    for a, b, desc in zip(have, wanted, descs, strict=True):
        if isinstance(desc, ListD) and isinstance(a, tuple) and isinstance(b, tuple):
            if sorted(a) != sorted(b):
                return False
        elif a != b:
            return False
    return True


def _show(state, name: str, args: tuple) -> str:
    """An action as its id would read, e.g. claim_route(R011,yellow,0)."""
    entry = state.game.module.ACTION_DESCS.get(name)
    if not args:
        return name
    try:
        descs = entry[0]
        return Action(
            (0, name, tuple(tuple(a) if isinstance(a, list) else a for a in args), descs)
        ).id
    except Exception:  # noqa: BLE001 - a malformed step still gets a readable message
        return f"{name}({', '.join(map(str, args))})"


SHOWN_CHARS = 300  # a value in a scenario's message is cut after this many characters


def show(value, desc) -> str:
    """A value as readable JSON text (for scenario messages), cut if it is long."""
    import json

    try:
        text = json.dumps(desc.encode(value), ensure_ascii=False)
    except Exception:  # noqa: BLE001 - a scenario message must never hide the real failure
        text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def no_element(kind: str, ident: str):
    """A rule named a map element the map does not have."""
    raise RuleError(f"the map has no {kind} '{ident}'")


def expect(ok: bool, text: str, seen, file: str, line: int) -> None:
    """Scenario step: a condition that must hold; failing, it says what its operands were
    (`seen()` gives (source text, shown value) pairs)."""
    if ok:
        return
    try:
        values = [f"{words} = {value}" for words, value in seen()] if seen else []
    except Exception:  # noqa: BLE001 - a scenario message must never hide the real failure
        values = []
    raise ScenarioFailure(
        f"expected {text}" + (f"; saw {', '.join(values)}" if values else ""), file, line
    )
