"""Expressions of generated Python as a tree: what the expression lowerer builds.

Each node names what it reads (a local, a state field, a table, a runtime helper, a source
location), so the analyses after lowering visit nodes instead of reading text; one printer
(compiler/printer.py) writes them as Python. Nodes are immutable and compare by value: the
same code built twice is the same node (hoisting and tabulation key on that).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from functools import cache


@dataclass(frozen=True, slots=True)
class Expr:
    """An expression of generated Python."""


@dataclass(frozen=True, slots=True)
class Name(Expr):
    """A name the module or Python defines: `S`, `me`, `C_x`, `E_color__red`, `D3`, `len`."""

    id: str


@dataclass(frozen=True, slots=True)
class Local(Expr):
    """A Python-level local variable of generated code (`v_x`, `v_x_3`, `_e0`)."""

    id: str


@dataclass(frozen=True, slots=True)
class FrameLocal(Expr):
    """A local kept in the frame of a procedure that may wait (`L['x']`)."""

    name: str


@dataclass(frozen=True, slots=True)
class Hoisted(Expr):
    """A value a listing computes once, before its loops or at the first that needs it (`_h3`,
    compiler/hoist.py)."""

    number: int


@dataclass(frozen=True, slots=True)
class Listing(Expr):
    """The function listing an action's legal arguments (`A_claim_legal`)."""

    action: str


@dataclass(frozen=True, slots=True)
class Helper(Expr):
    """A runtime function or class, reached through its module's alias (`_l.each`)."""

    module: str  # the alias the generated module imports the runtime module as
    name: str


@dataclass(frozen=True, slots=True)
class StateField(Expr):
    """A field of the game state (`S.g_score`, `S.p_hand`, `S.n`)."""

    name: str


@dataclass(frozen=True, slots=True)
class Table(Expr):
    """A constant table of a map element kind's field (`K_route__length`)."""

    kind: str
    field: str


@dataclass(frozen=True, slots=True)
class Const(Expr):
    """A safe literal value (int, bool, None, str, geometry and containers of them)."""

    value: object


@dataclass(frozen=True, slots=True)
class Loc(Expr):
    """A source location (file, line, column) passed to the runtime's budget helpers; the file
    as its index in the module's table of rule files (compiler/sources.py)."""

    source: int
    line: int
    col: int


@dataclass(frozen=True, slots=True)
class Attr(Expr):
    """`obj.name`."""

    obj: Expr
    name: str


@dataclass(frozen=True, slots=True)
class Index(Expr):
    """`obj[index]`."""

    obj: Expr
    index: Expr


@dataclass(frozen=True, slots=True)
class Call(Expr):
    """`func(args…)`; `inline` marks a call of a small one-expression function that the
    `inline_functions` stage may replace by the function's body."""

    func: Expr
    args: tuple[Expr, ...]
    inline: bool = False


@dataclass(frozen=True, slots=True)
class BinOp(Expr):
    """`left op right` for an arithmetic, comparison, membership or boolean operator."""

    left: Expr
    op: str
    right: Expr


@dataclass(frozen=True, slots=True)
class Unary(Expr):
    """`-operand` or `not operand`."""

    op: str
    operand: Expr


@dataclass(frozen=True, slots=True)
class Paren(Expr):
    """`(inner)`: parentheses as the lowerer writes them (the printer drops those that group nothing)."""

    inner: Expr


@dataclass(frozen=True, slots=True)
class Operand(Expr):
    """`inner` as an operand of an operator: the printer parenthesises it unless it is one operand."""

    inner: Expr


@dataclass(frozen=True, slots=True)
class Cond(Expr):
    """`then if cond else orelse`."""

    then: Expr
    cond: Expr
    orelse: Expr


@dataclass(frozen=True, slots=True)
class Display(Expr):
    """A list `[a, b]`, tuple `(a, b, )`, set or dict display (`items` of a dict are `Pair`s),
    or a tuple's items written bare as Python writes them, `a, b` or `a,` (kind "bare")."""

    kind: str  # "list", "tuple", "set", "dict" or "bare"
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Pair(Expr):
    """`key: value` in a dict display or comprehension."""

    key: Expr
    value: Expr


@dataclass(frozen=True, slots=True)
class Starred(Expr):
    """`*value` in a display."""

    value: Expr


@dataclass(frozen=True, slots=True)
class For(Expr):
    """`for target in iterable` clause of a comprehension (binds `target`)."""

    target: Expr
    iterable: Expr


@dataclass(frozen=True, slots=True)
class If(Expr):
    """`if cond` clause of a comprehension."""

    cond: Expr


@dataclass(frozen=True, slots=True)
class Comp(Expr):
    """A comprehension: `[elem for … if …]` (kind "list"), `{…}` ("set"/"dict"), or a bare
    generator `elem for …` ("gen") as the only argument of a call."""

    kind: str
    elem: Expr
    clauses: tuple[For | If, ...]


@dataclass(frozen=True, slots=True)
class Slice(Expr):
    """`start:stop` as an index (either may be left out: `x[:]` copies a list)."""

    start: Expr | None
    stop: Expr | None


@dataclass(frozen=True, slots=True)
class Lambda(Expr):
    """`lambda params: body`."""

    params: tuple[str, ...]
    body: Expr


@dataclass(frozen=True, slots=True)
class Format(Expr):
    """An f-string `f'text {value!r} text'`: text parts as written, each value by its repr."""

    parts: tuple[str | Expr, ...]


@dataclass(frozen=True, slots=True)
class Code(Expr):
    """Fixed Python syntax around subexpressions (a builtin's template, `x.method(…)` forms):
    the text parts hold only operators, brackets, keywords and attribute names."""

    parts: tuple[str | Expr, ...]


@cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind))


def children(node: Expr) -> Iterator[Expr]:
    """The subexpressions of `node`, in the order they are written."""
    for name in _field_names(type(node)):
        value = getattr(node, name)
        if isinstance(value, Expr):
            yield value
        elif isinstance(value, tuple):
            yield from (item for item in value if isinstance(item, Expr))


def walk(node: Expr) -> Iterator[Expr]:
    """`node` and every node below it, parents first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(children(current))))


def substitute(node: Expr, replace: dict[Expr, Expr]) -> Expr:
    """`node` with every subtree that is a key of `replace` replaced by its value."""
    if node in replace:
        return replace[node]
    return with_fields(node, lambda _, value: substitute(value, replace))


def with_fields(node: Expr, change, first: str | None = None) -> Expr:
    """`node` with `change(field name, subexpression)` applied to each subexpression of its
    fields (a tuple's one by one), the field `first` first; `node` itself if none changed."""
    changed = {}
    names = _field_names(type(node))
    if first is not None:  # the order matters to a change that records what it meets
        names = (first, *(name for name in names if name != first))
    for name in names:
        value = getattr(node, name)
        if isinstance(value, Expr):
            new = change(name, value)
        elif isinstance(value, tuple):
            new = tuple(change(name, v) if isinstance(v, Expr) else v for v in value)
        else:
            continue
        if new != value:
            changed[name] = new
    if not changed:
        return node
    return type(node)(
        *(changed.get(name, getattr(node, name)) for name in _field_names(type(node)))
    )


def substitute_free(node: Expr, replace: dict[Local, Expr], rename=None) -> Expr:
    """`node` with each free read of a local that is a key of `replace` replaced by its value;
    with `rename`, each local a comprehension binds is renamed `rename(local)` in its scope."""
    if isinstance(node, Local):
        return replace.get(node, node)
    if isinstance(node, Comp):
        clauses = []
        for clause in node.clauses:
            if isinstance(clause, If):
                clauses.append(If(substitute_free(clause.cond, replace, rename)))
                continue
            iterable = substitute_free(clause.iterable, replace, rename)  # read outside it
            bound = [sub for sub in walk(clause.target) if isinstance(sub, Local)]
            target = clause.target
            if rename is None:  # its own variable shadows a replaced one
                replace = {old: new for old, new in replace.items() if old not in bound}
            else:
                renamed = {old: rename(old) for old in bound}
                replace, target = {**replace, **renamed}, substitute(target, renamed)
            clauses.append(For(target, iterable))
        return Comp(node.kind, substitute_free(node.elem, replace, rename), tuple(clauses))
    return _decided(_with_children(node, lambda child: substitute_free(child, replace, rename)))


def _decided(node: Expr) -> Expr:
    """A test of a constant against none, and a conditional on a constant, decided while
    compiling (a constant put in for a local makes them: Python warns at `0 is None`)."""
    if isinstance(node, BinOp) and node.op in ("is", "is not"):
        left, right = unparen(node.left), unparen(node.right)
        if isinstance(left, Const) and isinstance(right, Const) and right.value is None:
            return Const((left.value is None) == (node.op == "is"))
    if isinstance(node, Cond):
        test = unparen(node.cond)
        if isinstance(test, Const) and type(test.value) is bool:
            return node.then if test.value else node.orelse
    return node


def rebuilt(node: Expr, change) -> Expr:
    """`node` rebuilt from the bottom up, `change` applied to each node once its own are rebuilt."""
    return change(_with_children(node, lambda child: rebuilt(child, change)))


def _with_children(node: Expr, change) -> Expr:
    """`node` with `change` applied to each of its subexpressions (`node` itself if it changed none)."""
    values = []
    changed = False
    for name in _field_names(type(node)):
        value = getattr(node, name)
        if isinstance(value, Expr):
            new = change(value)
        elif isinstance(value, tuple) and value:
            new = tuple(change(item) if isinstance(item, Expr) else item for item in value)
            if all(a is b for a, b in zip(new, value, strict=True)):
                new = value
        else:
            new = value
        changed = changed or new is not value
        values.append(new)
    return type(node)(*values) if changed else node


def unparen(node: Expr) -> Expr:
    """`node` without the parentheses around it."""
    while isinstance(node, Paren):
        node = node.inner
    return node


def call(func: str, *args: Expr) -> Call:
    """A call of a Python builtin (`len`, `sum`, `range`, …)."""
    return Call(Name(func), args)


def helper(module: str, name: str, *args: Expr) -> Call:
    """A call of a runtime helper (`_l.each(S, …)`)."""
    return Call(Helper(module, name), args)


S = Name("S")
ME = Name("me")
PLAYER_COUNT = StateField("n")


def listed_unless_valued(listing: Expr) -> Cond:
    """A decision's listing, not made for a position that will only be valued
    (`State.apply_to_value` sets `S._lazy`): `_l.UNLISTED`, which `cache_legal` leaves for
    `legal_actions` to make when asked. Only where the listing decides nothing (a value choice,
    whose empty listing fails; a menu that cannot be empty)."""
    return Cond(UNLISTED, LAZY, listing)


def lists_unless_valued(node: Expr | None) -> bool:
    """True for a listing made by `listed_unless_valued` (the driver plays no position to value)."""
    return isinstance(node, Cond) and node.then == UNLISTED and node.cond == LAZY


UNLISTED = Helper("_l", "UNLISTED")
LAZY = Attr(S, "_lazy")
