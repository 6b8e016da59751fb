"""The IR of a game's state machine: what `lower` produces and `emit` prints as Python.

Statements are nodes; an expression is a `PyExpr`: the expression node (compiler/expr.py)
lowering built, which the analyses after lowering visit, and the tidied Python text the
printer wrote for it.
Every statement carries the span of the .metro text it comes from (None for bookkeeping),
which the emitter writes as a `# file:line` comment and records in the line map.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields

from compiler.pyexpr import PyExpr
from dsl.source import Span


@dataclass
class Stmt:
    """A statement of generated code."""


@dataclass
class Assign(Stmt):
    """`target = value` (`op` "=") or an in-place update such as `target |= value`."""

    target: PyExpr
    value: PyExpr
    span: Span | None = None
    op: str = "="


@dataclass
class Eval(Stmt):
    """An expression evaluated for its effect (a call)."""

    expr: PyExpr
    span: Span | None = None


@dataclass
class Delete(Stmt):
    """`del target` (a list's tail, say)."""

    target: PyExpr
    span: Span | None = None


@dataclass
class Branch:
    """One `if`/`elif` arm: a condition (located at `span`) and its body."""

    cond: PyExpr
    body: list[Stmt]
    span: Span | None = None


@dataclass
class IndexedStore(Stmt):
    """`target = value` into a state table with a maintained index (compiler/indexes.py).

    `key` is the entry written (None: the whole table). The emitter keeps the index up to
    date only if some walk uses it; otherwise this is a plain assignment.
    """

    target: PyExpr
    value: PyExpr
    index: object  # compiler.indexes.Index
    key: PyExpr | None = None
    span: Span | None = None


@dataclass
class If(Stmt):
    """`if`/`elif` branches and an optional `else` body."""

    branches: list[Branch]
    orelse: list[Stmt] | None = None
    span: Span | None = None


@dataclass
class For(Stmt):
    """`for target in iterable: body`."""

    target: PyExpr
    iterable: PyExpr
    body: list[Stmt]
    span: Span | None = None
    # A listing's loop over map elements: the first statement of `body` after its own test,
    # from where the element's fixed attributes may be read once (compiler/loop_bindings.py).
    bind_from: int | None = None


@dataclass
class While(Stmt):
    """`while cond: body`."""

    cond: PyExpr
    body: list[Stmt]
    span: Span | None = None


@dataclass
class Break(Stmt):
    """Leave the innermost Python loop."""

    span: Span | None = None


@dataclass
class Continue(Stmt):
    """Next iteration of the innermost Python loop."""

    span: Span | None = None


@dataclass
class Return(Stmt):
    """Return from a plain function (`value` None returns None)."""

    value: PyExpr | None = None
    span: Span | None = None


@dataclass
class Try(Stmt):
    """`try: body` with `except Exception: handler`."""

    body: list[Stmt]
    handler: list[Stmt]


@dataclass
class RaiseEndGame(Stmt):
    """`end game`: unwind to the runtime, which runs `final`."""

    span: Span | None = None


@dataclass
class RaiseRuleError(Stmt):
    """Stop with a rule error naming a .metro line."""

    message: str
    file: str
    line: int
    span: Span | None = None


# ---------------------------------------------------------------- frame statements


@dataclass
class Jump(Stmt):
    """Continue at block `target` of the frame procedure."""

    target: int
    span: Span | None = None


@dataclass
class Suspend(Stmt):
    """Wait at decision site `site`; resume at block `resume`."""

    site: int
    resume: int
    span: Span | None = None
    # The one chooser of a menu or of a value choice whose listing reads no frame, its legal
    # actions in `_acts`: the frame versions keep them for `legal_actions`; a driven version
    # may have the driver pick without a frame (emit_procs.py).
    chooser: PyExpr | None = None
    value: str | None = None  # a value choice's local, set to the chosen action's argument


@dataclass
class PushCall(Stmt):
    """Call a waiting procedure: push its frame (callee name, arguments) and resume at `resume`."""

    callee: str
    args: list[tuple[str, PyExpr]]
    resume: int
    span: Span | None = None


@dataclass
class NeedsFrame(Stmt):
    """The rest of the block is a decision: it needs the procedure's frame (a frameless entry
    makes the frame here and goes on as the frame version, compiler/entries.py)."""


@dataclass
class Yield(Stmt):
    """Hand control to a frame the runtime pushed; resume at block `resume` when it returns."""

    resume: int
    span: Span | None = None


@dataclass
class FrameReturn(Stmt):
    """Finish the frame (with a value for the caller's `F.ret`)."""

    value: PyExpr | None = None
    span: Span | None = None


# ---------------------------------------------------------------- callables


@dataclass
class Function:
    """A plain Python function: name, parameters and body."""

    name: str
    params: list[str]
    body: list[Stmt]
    span: Span | None = None
    reads_frame_locals: bool = False  # starts with `L = F.L` when its body uses `L`
    # A label's text reads no state: when its body reads `S` (a walk or call charges it), it
    # starts with `S = _l.LabelScope()`, decided when written (inlining may take the reads away).
    label_scope: bool = False


@dataclass
class FrameProc:
    """A procedure split at its decision points: numbered blocks run by a program-counter loop.

    A procedure that is called (`params`, its parameters' names in order) also gets an entry
    that runs without a frame until it must wait (at `NeedsFrame`).
    """

    name: str
    blocks: list[list[Stmt]]
    params: list[str] | None = None
    entry: object = None  # its frameless entry's plan (compiler.entries.Entry), if it has one
    drive: object = None  # its driven version's plan (compiler.drives.Drive), if it has one


@dataclass
class Site:
    """A decision point: who decides, its legal/why/resume functions, and the frame waiting there."""

    index: int
    kind: str  # value, each, actions, each_actions
    players: PyExpr  # `lambda S, F: [...]`
    legal: Function
    why: Function
    resume: Function
    file: str
    line: int
    rule: str
    frame: tuple[str, int]
    secret: tuple[str, str] | None = None  # frame locals: who chooses, what each has chosen
    private: bool = False  # the chosen value is the chooser's own secret (from owner-only data)
    legal_plain: Function | None = None  # the listing `legal` falls back to, if it has one
    offered: tuple[str, ...] = ()  # a menu's actions, whose listings `legal` calls in turn


@dataclass
class Action:
    """An action: its legal enumeration (optimised and plain), why-not explanation and body frame."""

    name: str
    frame_name: str
    params: list[str]
    legal_plain: Function
    legal: Function
    why: Function
    body: FrameProc


@dataclass
class GuardTable:
    """A module constant made while compiling: the values a guard's fixed part lets through."""

    name: str
    comment: str
    value: object  # nested tuples of ints (values, or the points of an integer key)


@dataclass
class IndexViews:
    """Cells of guard tables (compiler/guards.py) walked as views of a maintained index: for
    each cell, its keys whose entry in the table is none, kept sorted as the table changes."""

    index: object  # compiler.indexes.Index
    keys: int  # how many keys the table has
    cells: list[tuple[int, ...]] = field(default_factory=list)  # the keys of each cell

    @property
    def slot(self) -> str:
        """The state slot holding the views (a list of keys per cell)."""
        return f"v_{self.index.field}"

    def number(self, cell: tuple[int, ...]) -> int:
        """A cell's number among the views (a new cell is added)."""
        if cell not in self.cells:
            self.cells.append(cell)
        return self.cells.index(cell)


@dataclass
class Field:
    """One slot of the state layout: a game-wide field or a per-player one."""

    name: str
    slot: str
    per_player: bool
    init: PyExpr  # the slot's initial value (a list over the players for a per-player field)
    copy: PyExpr  # a copy of the slot `S.<slot>` (for `clone`)
    desc: str
    save_desc: str
    visibility: str
    span: Span | None = None


@dataclass
class Module:
    """Everything one generated module holds."""

    enums: list[tuple[str, tuple[str, ...]]]  # name, value names (a value is its index)
    tables: list[tuple[str, tuple, list[tuple[str, tuple]]]]  # map kind, element ids, columns
    consts: list[tuple[str, object]]
    fields: list[Field]
    functions: list[Function | FrameProc]
    actions: list[Action]
    sites: list[Site]
    score: Function
    rank_key: Function
    scenarios: list[tuple[Function, tuple]]  # function, (name, players, seed, file, line)
    invariants: list[tuple[Function, tuple]]  # function, (name, file, line)
    bots: list[tuple[str, list[tuple[str, Function]]]]  # bot name, (action, scoring function)
    action_descs: dict[str, tuple[str, int]]
    flow_procs: list[FrameProc] = field(default_factory=list)  # the flow, then `final` if any
    has_final: bool = False
    descriptors: list[Assign] = field(default_factory=list)  # `D3 = _v.ListD(D1)`
    named_values: list[tuple[str, int]] = field(default_factory=list)  # E_/M_ constants
    draws: list[tuple[str, Function]] = field(default_factory=list)  # drawings of the state
    # How people read things (compiler/lower_labels.py): enum words and element labels (texts),
    # label functions with the `AD_<name>` lines naming them, the breakdown, fields' headings.
    enum_words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    element_labels: dict[str, tuple[str, ...]] = field(default_factory=dict)
    labels: list[Function] = field(default_factory=list)
    arg_descs: list[Assign] = field(default_factory=list)  # `AD_<name> = _v.ArgDescs(…)`
    breakdown: Function | None = None
    display: Function | None = None  # the rules' `display` entries of a player
    field_display: list[tuple] = field(default_factory=list)  # name, heading, internal, key kind
    argument_headings: dict[str, tuple[str, ...]] = field(default_factory=dict)  # by action
    estimate: Function | None = None  # a position's value for a player, as bots judge it
    metrics: list[tuple[str, Function]] = field(default_factory=list)  # metric name, function
    guard_tables: list[GuardTable] = field(default_factory=list)
    indexes: list = field(default_factory=list)  # maintained indexes (compiler/indexes.py)
    views: list[IndexViews] = field(default_factory=list)  # cells walked as views of an index
    action_tables: list[Assign] = field(default_factory=list)  # `ACTIONS_<name> = …`
    chance_bound: int | None = 0  # most outcomes of one random event (compiler/chance_bound.py)
    # Functions and procedures only the scenarios and invariants call: the scenarios module's.
    scenario_functions: list[Function] = field(default_factory=list)

    def frame_procs(self) -> list[FrameProc]:
        """Every frame procedure, in emission order."""
        procs = [f for f in self.functions if isinstance(f, FrameProc)]
        return procs + [a.body for a in self.actions] + self.flow_procs


def expressions(stmts: list[Stmt]) -> Iterator[PyExpr]:
    """Every expression in `stmts` and the statements nested in them, in order."""
    for stmt in stmts:
        for f in fields(stmt):
            yield from _expressions_in(getattr(stmt, f.name))


def _expressions_in(value) -> Iterator[PyExpr]:
    if isinstance(value, PyExpr):
        yield value
    elif isinstance(value, Stmt):
        yield from expressions([value])
    elif isinstance(value, Branch):
        yield value.cond
        yield from expressions(value.body)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _expressions_in(item)


def statements(stmts: list[Stmt]) -> Iterator[Stmt]:
    """Every statement in `stmts` and the statements nested in them, in order."""
    for stmt in stmts:
        yield stmt
        for f in fields(stmt):
            value = getattr(stmt, f.name)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, Stmt):
                        yield from statements([item])
                    elif isinstance(item, Branch):
                        yield from statements(item.body)


def rewrite_nested(stmt: Stmt, rewrite) -> None:
    """Replace, in place, each list of statements nested in `stmt` by `rewrite(that list)`."""
    for f in fields(stmt):
        value = getattr(stmt, f.name)
        if isinstance(value, list) and value and isinstance(value[0], Stmt):
            setattr(stmt, f.name, rewrite(value))
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Branch):
                    item.body = rewrite(item.body)


def rewrite_statement_lists(holder, rewrite) -> None:
    """Replace, in place, every list of statements in `holder` (a module, a function, a list of
    statements) by `rewrite(that list)`, the lists nested in its statements first."""
    _rewrite(holder, statements=rewrite)


def rewrite_expressions(holder, rewrite) -> None:
    """Replace, in place, every expression that has a node by `rewrite(expression)`, in `holder`
    (a module, a function, a list of statements)."""
    _rewrite(holder, expression=rewrite)


def _rewrite(holder, expression=None, statements=None) -> None:
    """Walk everything `holder` holds, replacing expressions by `expression(it)` and lists of
    statements by `statements(it)` (either may be None: left as they are)."""
    seen: set[int] = set()  # a function reached twice (a site's listing is an action's) once

    def visit(value):
        if isinstance(value, PyExpr):
            return value if expression is None or value.node is None else expression(value)
        if isinstance(value, list):
            value[:] = [visit(item) for item in value]
            if statements is not None and value and all(isinstance(i, Stmt) for i in value):
                return statements(value)
        elif isinstance(value, tuple):
            return tuple(visit(item) for item in value)
        elif isinstance(value, _HOLDERS) and id(value) not in seen:
            seen.add(id(value))
            for f in fields(value):
                if f.name not in _DATA:
                    setattr(value, f.name, visit(getattr(value, f.name)))
        return value

    visit(holder)


# What holds the module's expressions (a guard table or an index holds none).
_HOLDERS = (Module, Stmt, Branch, Function, FrameProc, Site, Action, Field)
# The module's data, which holds no expression (map tables and constants can be large).
_DATA = frozenset(
    {"enums", "tables", "consts", "action_descs", "desc_lines", "named_values", "enum_words"}
    | {"element_labels", "arg_desc_lines", "field_display", "guard_tables", "indexes", "views"}
    | {"argument_headings"}
)
