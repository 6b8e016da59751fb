"""AST nodes of statements."""

from __future__ import annotations

from dataclasses import dataclass, field

from dsl.ast.expressions import Domain, Label
from dsl.ast.nodes import Expr, Node, Stmt, TypeExpr, span_field
from dsl.source import Span

# ---------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class Block(Node):
    """A braced statement list; `returns` marks a closing bare `return`."""

    stmts: tuple[Stmt, ...]
    returns: bool
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Let(Stmt):
    """`let name [: T] = value`."""

    name: str
    type: TypeExpr | None
    value: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Assign(Stmt):
    """`target op value` with op one of = += -= *=."""

    target: Expr
    op: str
    value: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class ExprStmt(Stmt):
    """A call evaluated for its effect."""

    expr: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Return(Stmt):
    """`return value` (a bare return is Block.returns)."""

    value: Expr | None
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Break(Stmt):
    """`break`."""

    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Continue(Stmt):
    """`continue`."""

    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Draw(Stmt):
    """`draw [n] from pile to dest`."""

    count: Expr | None
    source: Expr
    dest: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Move(Stmt):
    """`move item from source to dest`."""

    item: Expr
    source: Expr
    dest: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Shuffle(Stmt):
    """`shuffle pile` with the state's generator."""

    target: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class EndGame(Stmt):
    """`end game`: stop at once, go to scoring."""

    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Choose(Stmt):
    """`choose [optional] x: domain [where g] by p`: one player's decision."""

    optional: bool
    name: str
    domain: Domain
    where: Expr | None
    by: Expr
    span: Span = span_field()
    label: Label | None = None


@dataclass(frozen=True, slots=True)
class EachChoose(Stmt):
    """`each p in ps choose x: domain [where g]`: simultaneous secret decisions."""

    var: str
    players: Expr
    name: str
    domain: Domain
    where: Expr | None
    span: Span = span_field()
    label: Label | None = None


@dataclass(frozen=True, slots=True)
class ChooseAction(Stmt):
    """`choose by p { a, b, … } [else {…}]`: one of the named actions."""

    by: Expr
    actions: tuple[str, ...]
    orelse: Block | None
    span: Span = span_field()
    action_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)  # each name


@dataclass(frozen=True, slots=True)
class EachChooseAction(Stmt):
    """`each p in ps choose { a, b }`: everyone picks an action in secret; they then run in ps order."""

    var: str
    players: Expr
    actions: tuple[str, ...]
    span: Span = span_field()
    action_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)  # each name


@dataclass(frozen=True, slots=True)
class If(Stmt):
    """`if/elif/else`."""

    branches: tuple[tuple[Expr, Block], ...]
    orelse: Block | None
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class For(Stmt):
    """`for x in C [where g] {…}`."""

    var: str
    iterable: Expr
    where: Expr | None
    body: Block
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Repeat(Stmt):
    """`repeat n times {…}`."""

    count: Expr
    body: Block
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class While(Stmt):
    """`while cond {…}` (bounded by the game's decision budget)."""

    cond: Expr
    body: Block
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Loop(Stmt):
    """`loop {…}` until `break` (bounded by the game's decision budget)."""

    body: Block
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Play(Stmt):
    """Scenario step: `play p: action(args)`."""

    player: Expr
    action: str
    args: tuple[Expr, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Refuse(Stmt):
    """Scenario step: `refuse p: action(args)` must be illegal."""

    player: Expr
    action: str
    args: tuple[Expr, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class ChanceStep(Stmt):
    """Scenario step: `chance value`, the outcome of the next random event."""

    value: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Expect(Stmt):
    """Scenario step: `expect cond`."""

    expr: Expr
    span: Span = span_field()
