"""The typed AST: frozen dataclasses, each with a span that equality ignores."""

from __future__ import annotations

from dataclasses import dataclass, field

from dsl.source import Span


def _span() -> Span:
    return field(compare=False, repr=False)  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Node:
    """Base of every AST node."""


@dataclass(frozen=True, slots=True)
class Expr(Node):
    """Base of expressions."""


@dataclass(frozen=True, slots=True)
class Stmt(Node):
    """Base of statements."""


@dataclass(frozen=True, slots=True)
class Decl(Node):
    """Base of declarations."""


@dataclass(frozen=True, slots=True)
class TypeExpr(Node):
    """Base of written types."""


# ---------------------------------------------------------------- types


@dataclass(frozen=True, slots=True)
class NamedType(TypeExpr):
    """A type named by an identifier: int, bool, an enum, a map kind."""

    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class PlayerType(TypeExpr):
    """The player type."""

    span: Span = _span()


@dataclass(frozen=True, slots=True)
class OptionalType(TypeExpr):
    """`T?`: a value of T or none."""

    inner: TypeExpr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class RangeType(TypeExpr):
    """`lo..hi [step s]`: the integers in a range."""

    lo: Expr
    hi: Expr
    step: Expr | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class CollectionType(TypeExpr):
    """`list of T`, `pile of T`, `bag of T`, `set of T`."""

    kind: str
    item: TypeExpr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MapType(TypeExpr):
    """`map K -> V`."""

    key: TypeExpr
    value: TypeExpr
    span: Span = _span()


# ---------------------------------------------------------------- domains of choices


@dataclass(frozen=True, slots=True)
class TypeDomain(Node):
    """Choose any value of a finite type."""

    type: TypeExpr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class InDomain(Node):
    """Choose an item of a collection."""

    collection: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class SubsetDomain(Node):
    """Choose a subset of a collection, optionally with a size range."""

    collection: Expr
    lo: Expr | None
    hi: Expr | None
    span: Span = _span()


Domain = TypeDomain | InDomain | SubsetDomain

# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class IntLit(Expr):
    """An integer literal."""

    value: int
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class StrLit(Expr):
    """A string literal (already unescaped)."""

    value: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BoolLit(Expr):
    """`true` or `false`."""

    value: bool
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class NoneLit(Expr):
    """`none`."""

    span: Span = _span()


@dataclass(frozen=True, slots=True)
class PlayersLit(Expr):
    """`players`: every player in seat order."""

    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MeLit(Expr):
    """`me`: the player taking the current action."""

    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Name(Expr):
    """A bare identifier."""

    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Field(Expr):
    """`obj.name`."""

    obj: Expr
    name: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Index(Expr):
    """`obj[index]`."""

    obj: Expr
    index: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Call(Expr):
    """`func(args…)` of a function, procedure or library builtin."""

    func: str
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class CompFor(Node):
    """`for var in iterable [where cond]` inside a comprehension."""

    var: str
    iterable: Expr
    where: Expr | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class GenCall(Expr):
    """`func(elem for x in C where …)`: an aggregate over a comprehension."""

    func: str
    elem: Expr
    fors: tuple[CompFor, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class SuperCall(Expr):
    """`super(args…)`: the overridden definition."""

    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BinOp(Expr):
    """Arithmetic: + - * / %."""

    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Compare(Expr):
    """Comparison: == != < <= > >= in, not in."""

    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class IsNone(Expr):
    """`x is none` / `x is not none`."""

    operand: Expr
    negated: bool
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Not(Expr):
    """`not x`."""

    operand: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BoolOp(Expr):
    """`a and b`, `a or b`."""

    op: str
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Neg(Expr):
    """`-x`."""

    operand: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class CondExpr(Expr):
    """`(a if cond else b)`."""

    cond: Expr
    then: Expr
    orelse: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class TupleLit(Expr):
    """`(a, b, …)`."""

    items: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ListLit(Expr):
    """`[a, b, …]`."""

    items: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ListComp(Expr):
    """`[elem for x in C where …]`."""

    elem: Expr
    fors: tuple[CompFor, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DictLit(Expr):
    """`{k: v, …}`: a table."""

    entries: tuple[tuple[Expr, Expr], ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DictComp(Expr):
    """`{key: value for x in C where …}`: a table built by a comprehension."""

    key: Expr
    value: Expr
    fors: tuple[CompFor, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Template(Node):
    """Text as a person reads it: `texts[0] {exprs[0]} texts[1] …` (one more text than exprs)."""

    texts: tuple[str, ...]
    exprs: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class LabelIf(Node):
    """`("…" if cond else "…")`: one of two texts, as a condition says."""

    cond: Expr
    then: Template | LabelIf
    orelse: Template | LabelIf
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Label(Node):
    """`label "…"` (or a `(… if … else …)` of texts): how an element, action or choice reads."""

    text: Template | LabelIf
    span: Span = _span()

    def templates(self) -> list[Template]:
        """Every text the label may show."""
        return [n for n in _label_parts(self.text) if isinstance(n, Template)]

    def conditions(self) -> list[Expr]:
        """Every condition that picks between its texts."""
        return [n.cond for n in _label_parts(self.text) if isinstance(n, LabelIf)]


def _label_parts(node: Template | LabelIf) -> list[Template | LabelIf]:
    if isinstance(node, Template):
        return [node]
    return [node, *_label_parts(node.then), *_label_parts(node.orelse)]


@dataclass(frozen=True, slots=True)
class RangeExpr(Expr):
    """`lo..hi`: the integers from lo to hi inclusive."""

    lo: Expr
    hi: Expr
    span: Span = _span()


# ---------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class Block(Node):
    """A braced statement list; `returns` marks a closing bare `return`."""

    stmts: tuple[Stmt, ...]
    returns: bool
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Let(Stmt):
    """`let name [: T] = value`."""

    name: str
    type: TypeExpr | None
    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Assign(Stmt):
    """`target op value` with op one of = += -= *=."""

    target: Expr
    op: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ExprStmt(Stmt):
    """A call evaluated for its effect."""

    expr: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Return(Stmt):
    """`return value` (a bare return is Block.returns)."""

    value: Expr | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Break(Stmt):
    """`break`."""

    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Continue(Stmt):
    """`continue`."""

    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Draw(Stmt):
    """`draw [n] from pile to dest`."""

    count: Expr | None
    source: Expr
    dest: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Move(Stmt):
    """`move item from source to dest`."""

    item: Expr
    source: Expr
    dest: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Shuffle(Stmt):
    """`shuffle pile` with the state's generator."""

    target: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class EndGame(Stmt):
    """`end game`: stop at once, go to scoring."""

    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Choose(Stmt):
    """`choose [optional] x: domain [where g] by p`: one player's decision."""

    optional: bool
    name: str
    domain: Domain
    where: Expr | None
    by: Expr
    span: Span = _span()
    label: Label | None = None


@dataclass(frozen=True, slots=True)
class EachChoose(Stmt):
    """`each p in ps choose x: domain [where g]`: simultaneous secret decisions."""

    var: str
    players: Expr
    name: str
    domain: Domain
    where: Expr | None
    span: Span = _span()
    label: Label | None = None


@dataclass(frozen=True, slots=True)
class ChooseAction(Stmt):
    """`choose by p { a, b, … } [else {…}]`: one of the named actions."""

    by: Expr
    actions: tuple[str, ...]
    orelse: Block | None
    span: Span = _span()
    action_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)  # each name


@dataclass(frozen=True, slots=True)
class EachChooseAction(Stmt):
    """`each p in ps choose { a, b }`: everyone picks an action in secret; they then run in ps order."""

    var: str
    players: Expr
    actions: tuple[str, ...]
    span: Span = _span()
    action_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)  # each name


@dataclass(frozen=True, slots=True)
class If(Stmt):
    """`if/elif/else`."""

    branches: tuple[tuple[Expr, Block], ...]
    orelse: Block | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class For(Stmt):
    """`for x in C [where g] {…}`."""

    var: str
    iterable: Expr
    where: Expr | None
    body: Block
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Repeat(Stmt):
    """`repeat n times {…}`."""

    count: Expr
    body: Block
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class While(Stmt):
    """`while cond {…}` (bounded by the game's decision budget)."""

    cond: Expr
    body: Block
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Loop(Stmt):
    """`loop {…}` until `break` (bounded by the game's decision budget)."""

    body: Block
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Play(Stmt):
    """Scenario step: `play p: action(args)`."""

    player: Expr
    action: str
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Refuse(Stmt):
    """Scenario step: `refuse p: action(args)` must be illegal."""

    player: Expr
    action: str
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ChanceStep(Stmt):
    """Scenario step: `chance value`, the outcome of the next random event."""

    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Expect(Stmt):
    """Scenario step: `expect cond`."""

    expr: Expr
    span: Span = _span()


# ---------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class PlayersDecl(Decl):
    """`players lo..hi`."""

    lo: int
    hi: int
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DefaultMapDecl(Decl):
    """`default map "a.metro", "b.metro"`: the data files (map, cards, …) a game loads."""

    paths: tuple[str, ...]
    span: Span = _span()
    path_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)  # one per path


@dataclass(frozen=True, slots=True)
class DefaultBotDecl(Decl):
    """`default bot "name"`."""

    bot: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MaxDecisionsDecl(Decl):
    """`max decisions N`: the game's step budget."""

    count: int
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class UseDecl(Decl):
    """`use "file.metro"`: include a part file."""

    path: str
    span: Span = _span()
    path_span: Span | None = field(default=None, compare=False, repr=False)  # the string itself


@dataclass(frozen=True, slots=True)
class UseLibraryDecl(Decl):
    """`use library "name"`: include a shared component library by name (never by path)."""

    name: str
    span: Span = _span()
    name_span: Span | None = field(default=None, compare=False, repr=False)  # the string itself


@dataclass(frozen=True, slots=True)
class CombinationDecl(Decl):
    """`requires "Name"` / `excludes "Name"`: which expansions or variants a patch goes with."""

    required: bool
    other: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class EnumDecl(Decl):
    """`enum Name [extends Base] { a b "words for b" c }`."""

    name: str
    base: str | None
    values: tuple[str, ...]
    span: Span = _span()
    words: tuple[str | None, ...] = ()  # how each value reads (None: its name, `_` as spaces)


@dataclass(frozen=True, slots=True)
class ExtendEnumDecl(Decl):
    """`extend enum Name { d e }`."""

    name: str
    values: tuple[str, ...]
    span: Span = _span()
    words: tuple[str | None, ...] = ()


@dataclass(frozen=True, slots=True)
class GroupDecl(Decl):
    """`actions name { a, b }`: a named list of actions, offered together by `choose by p { name }`."""

    name: str
    actions: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ExtendGroupDecl(Decl):
    """`extend actions name { c }`: offer more actions wherever the group is offered."""

    name: str
    actions: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ConstDecl(Decl):
    """`const NAME = value`."""

    name: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class FieldDecl(Node):
    """A field of a map kind: `name: T [= default]`."""

    name: str
    type: TypeExpr
    default: Expr | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class KindDecl(Decl):
    """`kind name(fields…) [label "…"]` in a map schema."""

    name: str
    fields: tuple[FieldDecl, ...]
    span: Span = _span()
    label: Label | None = None


@dataclass(frozen=True, slots=True)
class CheckDecl(Decl):
    """`check "message" [for x in kind [where g]]: cond` over map data."""

    message: str
    var: str | None
    kind: str | None
    where: Expr | None
    cond: Expr
    span: Span = _span()

    @property
    def name(self) -> str:
        """Checks are named by their message."""
        return self.message


@dataclass(frozen=True, slots=True)
class DrawBinding(Node):
    """`x in C [where cond]` of a drawing: one more loop over what is drawn."""

    var: str
    iterable: Expr
    where: Expr | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DrawShape(Node):
    """The shape of a drawing: `point at P`, `line from P to Q`, `text T at P`, …"""

    shape: str  # point, line, along, path, rect, box, text
    args: tuple[Expr, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DrawProp(Node):
    """`colour C`, `label V`, … : one property of a drawing."""

    name: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DrawDecl(Decl):
    """`draw "name" [for x in C …]: [shape] props`: how map data or the state is drawn."""

    name: str
    bindings: tuple[DrawBinding, ...]
    shape: DrawShape | None
    props: tuple[DrawProp, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class SchemaDecl(Decl):
    """`map schema { kind…; check…; draw… }`."""

    kinds: tuple[KindDecl, ...]
    checks: tuple[CheckDecl, ...]
    span: Span = _span()
    draws: tuple[DrawDecl, ...] = ()


@dataclass(frozen=True, slots=True)
class FieldSpec(Node):
    """A state field: `name: T [public|owner|hidden] ["Heading" | internal] [= init]`."""

    name: str
    type: TypeExpr
    visibility: str
    init: Expr | None
    span: Span = _span()
    heading: str | None = None  # what a person reads for it (None: its name)
    internal: bool = False  # bookkeeping: left off people's screens (still in views)


@dataclass(frozen=True, slots=True)
class StateDecl(Decl):
    """`state {…}` (global) or `per player {…}`."""

    per_player: bool
    fields: tuple[FieldSpec, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Param(Node):
    """`name: T`."""

    name: str
    type: TypeExpr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class FunctionDecl(Decl):
    """A pure function: `function f(params) -> T = expr` or with a body."""

    name: str
    params: tuple[Param, ...]
    ret: TypeExpr
    body: Block | None
    expr: Expr | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ProcedureDecl(Decl):
    """`procedure p(params) [-> T] {…}`: may change state and wait for decisions."""

    name: str
    params: tuple[Param, ...]
    ret: TypeExpr | None
    body: Block
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ActionParam(Node):
    """An action parameter: `name: domain [where g]`."""

    name: str
    domain: Domain
    where: Expr | None
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ActionDecl(Decl):
    """`action a(params) [label "…"] [when g] {…}`: something a player may choose to do."""

    name: str
    params: tuple[ActionParam, ...]
    when: Expr | None
    body: Block
    span: Span = _span()
    label: Label | None = None


@dataclass(frozen=True, slots=True)
class FlowDecl(Decl):
    """`flow {…} [final {…}]`: the game from setup to the end; `final` also runs after `end game`."""

    body: Block
    final: Block | None
    span: Span = _span()

    @property
    def name(self) -> str:
        """There is one flow."""
        return "flow"


@dataclass(frozen=True, slots=True)
class ScoreDecl(Decl):
    """`score(p) = expr`."""

    var: str
    expr: Expr
    span: Span = _span()

    @property
    def name(self) -> str:
        """There is one score."""
        return "score"


@dataclass(frozen=True, slots=True)
class EstimateDecl(Decl):
    """`estimate(p) = expr`: how good the position is for p, as bots value it before the end."""

    var: str
    expr: Expr
    span: Span = _span()

    @property
    def name(self) -> str:
        """There is one estimate."""
        return "estimate"


@dataclass(frozen=True, slots=True)
class MetricDecl(Decl):
    """`metric "name"(p) = expr`: a number recorded per player at the end of every game."""

    name: str
    var: str
    expr: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BreakdownEntry(Node):
    """`"Heading": value` — one line of a player's score breakdown or display — or
    `for x in C [where …]: value`, a line for each element, headed by the element's label."""

    heading: str
    expr: Expr
    span: Span = _span()
    each: CompFor | None = None


@dataclass(frozen=True, slots=True)
class BreakdownDecl(Decl):
    """`breakdown(p) { "Heading": value, … }`: how a player's score came about, for people."""

    var: str
    entries: tuple[BreakdownEntry, ...]
    span: Span = _span()

    @property
    def name(self) -> str:
        """There is one breakdown."""
        return "breakdown"


@dataclass(frozen=True, slots=True)
class DisplayDecl(Decl):
    """`display(p) { "Heading": value, … }`: what people's screens show of each player beyond
    its fields (a floor plan, a total), read from public data."""

    var: str
    entries: tuple[BreakdownEntry, ...]
    span: Span = _span()

    @property
    def name(self) -> str:
        """There is one display."""
        return "display"


@dataclass(frozen=True, slots=True)
class RankKey(Node):
    """One key of the ranking."""

    expr: Expr
    descending: bool
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class RankDecl(Decl):
    """`rank p by key [desc], …`: order of the final standings; full ties share."""

    var: str
    keys: tuple[RankKey, ...]
    span: Span = _span()

    @property
    def name(self) -> str:
        """There is one ranking."""
        return "rank"


@dataclass(frozen=True, slots=True)
class InvariantDecl(Decl):
    """`invariant "name" { cond }`: holds after every step of every game."""

    name: str
    expr: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BotRule(Node):
    """`action: score` — how much a bot likes taking that action (its parameters are in scope)."""

    action: str
    score: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BotDecl(Decl):
    """`bot "name" { action: score … }`: a bot that takes the legal action it scores highest."""

    name: str
    rules: tuple[BotRule, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ScenarioDecl(Decl):
    """`scenario "name" players N [seed S] {…}`: a rule test."""

    name: str
    players: int
    seed: int
    steps: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class OverrideDecl(Decl):
    """`override <decl>`: replace the declaration of the same name."""

    decl: Decl
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class RelabelKindDecl(Decl):
    """`override kind name label "…"`: a new label for a map kind declared elsewhere."""

    name: str
    label: Label
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class RemoveDecl(Decl):
    """`remove <what> name`."""

    what: str
    name: str
    span: Span = _span()


# ---------------------------------------------------------------- files and map data


@dataclass(frozen=True, slots=True)
class MapArg(Node):
    """`[field:] value` of a map item."""

    name: str | None
    value: Expr
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MapItem(Node):
    """`kind id(args…)`: one element of map data."""

    kind: str
    ident: str
    args: tuple[MapArg, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class GameFile(Node):
    """`game "Name" {…}`."""

    name: str
    decls: tuple[Decl, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class MapFile(Node):
    """`map "Name" for "Game" {…}`, or `map "Name" for library "name" {…}`: data of a library."""

    name: str
    game: str
    items: tuple[MapItem, ...]
    span: Span = _span()
    for_library: bool = False


@dataclass(frozen=True, slots=True)
class PatchFile(Node):
    """`variant|expansion "Name" for "Game" {…}`."""

    kind: str
    name: str
    game: str
    decls: tuple[Decl, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class PartFile(Node):
    """`part "Name" for "Game" {…}`: more declarations of a game, used by it."""

    name: str
    game: str
    decls: tuple[Decl, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class LibraryFile(Node):
    """`library "name" {…}`: declarations of a shared component library."""

    name: str
    decls: tuple[Decl, ...]
    span: Span = _span()


File = GameFile | MapFile | PatchFile | PartFile | LibraryFile
