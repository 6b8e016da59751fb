"""Hidden information re-drawn: a position consistent with what one player can see.

`sample_position(state, player, rng)` is the determinization step of information-set
search. It is derived from the compiled game's declared visibility alone:

* Every container `player` cannot see — a `hidden` list, pile, set or bag (also inside a
  table, one container per entry), and other players' `owner` ones (`hidden` per-player
  ones for everyone) — gives its items to a pool of their element type. Each pool is
  shuffled and dealt back, every container keeping its size; so the multiset of hidden
  items is conserved and everything public, and all of `player`'s own data, is unchanged.
* Other players' secret simultaneous choices not yet revealed are re-drawn among their
  legal options in the sampled position; `player`'s own stays.
* The generator of chance is re-seeded from `rng`, as is the game's seed, and other
  players' entries in the history are blanked, so nothing in the copy tells the future
  draws or the true hidden data.

Limits: hidden scalars (a hidden int, an optional value) and containers of containers stay
as they are; so do procedure locals. The sample agrees with the player's view, not with all
that a player could deduce from the rules and the game so far (that a deck holds only its
own cards, the order a pile was built in, a hidden pile whose top is shown elsewhere).
"""

from __future__ import annotations

import random
import weakref
from dataclasses import dataclass

from runtime import rng as _rng
from runtime.machine import Action, State
from runtime.values import BagD, Desc, ListD, MapD, NamedD, RangeD, SetD

# Stands for another player's past action in a sample's history (only its length is used).
BLANK = Action((0, "hidden", (), ()))


@dataclass(slots=True)
class Container:
    """One hidden collection of a position: its value (changed in place) and its descriptor."""

    value: list | set
    desc: ListD | SetD | BagD

    def items(self) -> list:
        """Its items, bag counts spelled out."""
        if isinstance(self.desc, BagD):
            return [i for i, count in enumerate(self.value) for _ in range(count)]
        if isinstance(self.desc, SetD):
            return sorted(self.value)
        return list(self.value)

    def size(self) -> int:
        """How many items it holds."""
        return sum(self.value) if isinstance(self.desc, BagD) else len(self.value)

    def fill(self, items: list) -> None:
        """Replace its content by `items` (as many as it held)."""
        if isinstance(self.desc, BagD):
            counts = [0] * len(self.value)
            for i in items:
                counts[i] += 1
            self.value[:] = counts
        elif isinstance(self.desc, SetD):
            self.value.clear()
            self.value.update(items)
        else:
            self.value[:] = items


def sample_position(state: State, player: int, rng: random.Random, reopen: bool = False) -> State:
    """A copy of `state` with all that `player` cannot see re-drawn at random from `rng`.

    With `reopen`, the others' pending secret choices are taken back instead of re-drawn:
    they are to choose again, as before they chose (a search then models their choice).
    """
    # A sample plays on with seeded chance: its hidden order is re-drawn anyway.
    sample = state.clone() if state.chance is None else state.seeded_clone()
    # Only Random.random() repeats across Python versions; the rest uses runtime.rng.
    seed = int(rng.random() * (1 << 53))
    stream = _rng.seed_state(seed)
    for pool in _pools(sample.game.module):
        stream = pool.deal(sample, player, stream)
    if reopen:
        _reopen_secret_choices(sample, player)
    else:
        stream = _redraw_secret_choices(sample, player, stream)
    stream, sample.rng = _rng.next_u64(stream)
    sample.seed = seed
    sample.history = _blanked_history(state.history, player)
    # The cached lists were the true position's; the player's own stays, as what they may
    # choose never depends on what they cannot see (the `visibility` check of guards).
    own = None if state._legal is None else state._legal.get(player)
    sample.forget_legal()
    if own is not None:
        sample.cache_legal(player, own)
    # The clone's indexes still hold: they are kept over tables of single values
    # (compiler/indexes.py), and only collections are re-dealt.
    return sample


# The last history blanked: (a copy of it, the player, its blanked entries). A search samples
# one position many times; comparing the history with the copy, entry by entry the same
# objects, costs less than blanking it again.
_LAST_BLANKED: tuple[list, int, tuple] | None = None


def _blanked_history(history: list, player: int) -> list:
    """A new list of `history` with other players' actions blanked."""
    global _LAST_BLANKED
    last = _LAST_BLANKED
    if last is not None and last[1] == player and last[0] == history:
        return list(last[2])
    blanked = [(p, a) if p == player else (p, BLANK) for p, a in history]
    _LAST_BLANKED = (list(history), player, tuple(blanked))
    return blanked


def hidden_containers(state: State, player: int) -> list[Container]:
    """The collections of `state` whose items `player` cannot see and the sampler re-deals."""
    return _containers(_sources(state.game.module), state, player)


def _containers(sources, state: State, player: int) -> list[Container]:
    """The containers of these sources in `state` that `player` cannot see, in their order."""
    found: list[Container] = []
    values: list = []
    for source in sources:
        source.gather(state, player, values)
        found += [Container(value, source.leaf) for value in values]
        values.clear()
    return found


@dataclass(frozen=True, slots=True)
class _Source:
    """A hidden field whose containers all go to one pool (`leaf`, their descriptor)."""

    attr: str
    desc: Desc
    per_player: bool
    owner: bool  # a per-player field that is the owner's alone (the others' are re-dealt)
    leaf: ListD | SetD | BagD

    def gather(self, state: State, player: int, out: list) -> None:
        """Append this field's containers in `state` that `player` cannot see (their values;
        a table's entries each, in key order) to `out`."""
        value = getattr(state, self.attr)
        if not self.per_player:
            _gather(value, self.desc, out)
            return
        for p in range(state.n):
            if not self.owner or p != player:
                _gather(value[p], self.desc, out)


def _gather(value, desc: Desc, out: list) -> None:
    """Append the containers a value of `desc` holds (a table's entries each) to `out`."""
    if isinstance(desc, MapD):
        entries = value if desc.n is not None else [value[k] for k in sorted(value)]
        inner = desc.value
        if isinstance(inner, MapD):
            for entry in entries:
                _gather(entry, inner, out)
        else:
            out.extend(entries)
    else:
        out.append(value)


@dataclass(frozen=True, slots=True)
class _Pool:
    """The hidden fields whose items are pooled together, in hidden_containers' order."""

    sources: tuple[_Source, ...]
    lists: bool  # every container a list: dealt without Container objects

    def deal(self, state: State, player: int, stream: int) -> int:
        """Re-deal this pool's containers in `state` (as `deal` does); the new stream."""
        if not self.lists:
            return deal(_containers(self.sources, state, player), stream)
        values: list = []
        for source in self.sources:
            source.gather(state, player, values)
        return _deal_lists(values, stream)


def _deal_lists(lists: list[list], stream: int) -> int:
    """deal for containers that are all lists (the same draws, the same deal)."""
    pool: list = []
    for value in lists:
        pool += value
    stream = _rng.shuffle(stream, pool)
    end = len(pool)
    for value in lists:
        start = end - len(value)
        value[:] = pool[start:end]
        end = start
    return stream


# A compiled module's hidden fields that hold pooled containers (_sources), and its pools in the
# order they are dealt (_pools).
_SOURCES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_POOLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _sources(module) -> tuple[_Source, ...]:
    """The module's state fields that are not public, then its per-player ones, in their
    declared order: those holding collections the sampler re-deals."""
    known = _SOURCES.get(module)
    if known is not None:
        return known
    found = []
    for name, attr, desc in module.SAVE_FIELDS:
        if module.STATE_VISIBILITY.get(name, "public") != "public":
            found.append((attr, desc, False, False))
    for name, attr, desc in module.SAVE_PLAYER_FIELDS:
        visibility = module.PLAYER_VISIBILITY.get(name, "public")
        if visibility != "public":
            found.append((attr, desc, True, visibility == "owner"))
    known = tuple(
        _Source(attr, desc, per_player, owner, leaf)
        for attr, desc, per_player, owner in found
        if (leaf := _leaf(desc)) is not None
    )
    _SOURCES[module] = known
    return known


def _pools(module) -> tuple[_Pool, ...]:
    """The module's pools of hidden items, in the order sample_position deals them (their
    names'), each with its sources in their declared order."""
    known = _POOLS.get(module)
    if known is not None:
        return known
    named: dict[str, list[_Source]] = {}
    for source in _sources(module):
        named.setdefault(_pool_name(source.leaf.item), []).append(source)
    known = tuple(
        _Pool(tuple(named[name]), all(type(s.leaf) is ListD for s in named[name]))
        for name in sorted(named)
    )
    _POOLS[module] = known
    return known


def _leaf(desc: Desc) -> ListD | SetD | BagD | None:
    """The descriptor of the pooled containers a value of `desc` holds, if any."""
    while isinstance(desc, MapD):
        desc = desc.value
    if isinstance(desc, ListD | SetD | BagD) and not desc.item.mutable:
        return desc
    return None


def element_key(desc: Desc) -> tuple:
    """Which pool an item goes to: equal for descriptors of the same type."""
    if isinstance(desc, NamedD):
        return ("named", desc.names)
    if isinstance(desc, RangeD):
        return ("range", desc.lo, desc.hi, desc.step)
    return (type(desc).__name__,)


# Each item descriptor met, by id, with its pool's name (kept beside it, so the id stays its).
_POOL_NAMES: dict[int, tuple[Desc, str]] = {}


def _pool_name(desc: Desc) -> str:
    """The name of the pool an item of this descriptor goes to: its element key's repr (pools
    are dealt in the order of these names)."""
    known = _POOL_NAMES.get(id(desc))
    if known is not None and known[0] is desc:
        return known[1]
    if len(_POOL_NAMES) >= 4096:  # descriptors of many games loaded one after the other
        _POOL_NAMES.clear()
    name = repr(element_key(desc))
    _POOL_NAMES[id(desc)] = (desc, name)
    return name


def deal(containers: list[Container], stream: int) -> int:
    """Shuffle the pooled items and deal them back; sets first, as they need distinct items."""
    pool: list = []
    for container in containers:
        pool.extend(container.value if type(container.desc) is ListD else container.items())
    stream = _rng.shuffle(stream, pool)
    sets = [container for container in containers if isinstance(container.desc, SetD)]
    hands = []
    for container in sets:
        hand = _distinct(pool, container.size())
        if hand is None:
            return stream  # no way to fill the sets: this pool keeps its true content
        hands.append(hand)
    for container, hand in zip(sets, hands, strict=True):
        container.fill(hand)
    # The others cannot fail: each takes its items from the end of what the sets left.
    end = len(pool)
    for container in containers:
        value = container.value
        if type(container.desc) is ListD:  # the common case, without the method calls
            start = end - len(value)
            value[:] = pool[start:end]
            end = start
        elif not isinstance(container.desc, SetD):
            start = end - container.size()
            container.fill(pool[start:end])
            end = start
    return stream


def _distinct(pool: list, size: int) -> list | None:
    """Take `size` distinct items from the end of the pool, or None if it has too few."""
    hand, rest = [], []
    while pool and len(hand) < size:
        item = pool.pop()
        (rest if item in hand else hand).append(item)
    pool.extend(reversed(rest))
    return hand if len(hand) == size else None


def _redraw_secret_choices(state: State, player: int, stream: int) -> int:
    """Replace other players' pending secret choices by options drawn from their legal ones."""
    secret = None if state.over else state.game.module.SITE_SECRETS.get(state.site)
    if secret is None:
        return stream
    frame = state.stack[-1]
    site = state.game.sites[state.site]
    submitted = frame.L[secret[1]]
    for p in sorted(submitted):
        if p == player or submitted[p] is None:
            continue  # their own choice, or a player who had no option
        options = state._guarded(site.legal, state, frame, p)
        stream, index = _rng.below(stream, len(options))
        action = options[index]
        submitted[p] = action.args[0] if site.kind == "each" else [action.name, list(action.args)]
    return stream


def _reopen_secret_choices(state: State, player: int) -> None:
    """Take back other players' pending secret choices: they are to choose again."""
    secret = None if state.over else state.game.module.SITE_SECRETS.get(state.site)
    if secret is None:
        return
    submitted = state.stack[-1].L[secret[1]]
    for p in sorted(submitted):
        if p != player and submitted[p] is not None:  # None: a player who had no option
            del submitted[p]
