"""AST nodes of declarations, and of the files that hold them (map data too)."""

from __future__ import annotations

from dataclasses import dataclass, field

from dsl.ast.expressions import CompFor, Domain, Label
from dsl.ast.nodes import Decl, Expr, Node, Stmt, TypeExpr, span_field
from dsl.ast.statements import Block
from dsl.source import Span

# ---------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class PlayersDecl(Decl):
    """`players lo..hi`."""

    lo: int
    hi: int
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class DefaultMapDecl(Decl):
    """`default map "a.metro", "b.metro"`: the data files (map, cards, …) a game loads."""

    paths: tuple[str, ...]
    span: Span = span_field()
    path_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)  # one per path


@dataclass(frozen=True, slots=True)
class DefaultBotDecl(Decl):
    """`default bot "name"`."""

    bot: str
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class LevelDecl(Decl):
    """`level hard "mcts:400"`: the bot a level of play names (easy, medium, hard, …)."""

    name: str
    bot: str
    span: Span = span_field()
    bot_span: Span | None = field(default=None, compare=False, repr=False)  # the string itself


@dataclass(frozen=True, slots=True)
class MaxDecisionsDecl(Decl):
    """`max decisions N`: the game's step budget."""

    count: int
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class UseDecl(Decl):
    """`use "file.metro"`: include a part file."""

    path: str
    span: Span = span_field()
    path_span: Span | None = field(default=None, compare=False, repr=False)  # the string itself


@dataclass(frozen=True, slots=True)
class UseLibraryDecl(Decl):
    """`use library "name"`: include a shared component library by name (never by path)."""

    name: str
    span: Span = span_field()
    name_span: Span | None = field(default=None, compare=False, repr=False)  # the string itself


@dataclass(frozen=True, slots=True)
class CombinationDecl(Decl):
    """`requires "Name"` / `excludes "Name"`: which expansions or variants a patch goes with."""

    required: bool
    other: str
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class EnumDecl(Decl):
    """`enum Name [extends Base] { a b "words for b" c }`."""

    name: str
    base: str | None
    values: tuple[str, ...]
    span: Span = span_field()
    words: tuple[str | None, ...] = ()  # how each value reads (None: its name, `_` as spaces)


@dataclass(frozen=True, slots=True)
class ExtendEnumDecl(Decl):
    """`extend enum Name { d e }`."""

    name: str
    values: tuple[str, ...]
    span: Span = span_field()
    words: tuple[str | None, ...] = ()


@dataclass(frozen=True, slots=True)
class GroupDecl(Decl):
    """`actions name { a, b }`: a named list of actions, offered together by `choose by p { name }`."""

    name: str
    actions: tuple[str, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class ExtendGroupDecl(Decl):
    """`extend actions name { c }`: offer more actions wherever the group is offered."""

    name: str
    actions: tuple[str, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class ConstDecl(Decl):
    """`const NAME = value`."""

    name: str
    value: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class FieldDecl(Node):
    """A field of a map kind: `name: T [= default]`."""

    name: str
    type: TypeExpr
    default: Expr | None
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class KindDecl(Decl):
    """`kind name(fields…) [label "…"]` in a map schema."""

    name: str
    fields: tuple[FieldDecl, ...]
    span: Span = span_field()
    label: Label | None = None


@dataclass(frozen=True, slots=True)
class CheckDecl(Decl):
    """`check "message" [for x in kind [where g]]: cond` over map data."""

    message: str
    var: str | None
    kind: str | None
    where: Expr | None
    cond: Expr
    span: Span = span_field()

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
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class DrawShape(Node):
    """The shape of a drawing: `point at P`, `line from P to Q`, `text T at P`, …"""

    shape: str  # point, line, along, path, rect, box, text
    args: tuple[Expr, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class DrawProp(Node):
    """`colour C`, `label V`, … : one property of a drawing."""

    name: str
    value: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class DrawDecl(Decl):
    """`draw "name" [for x in C …]: [shape] props`: how map data or the state is drawn."""

    name: str
    bindings: tuple[DrawBinding, ...]
    shape: DrawShape | None
    props: tuple[DrawProp, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class SchemaDecl(Decl):
    """`map schema { kind…; check…; draw… }`."""

    kinds: tuple[KindDecl, ...]
    checks: tuple[CheckDecl, ...]
    span: Span = span_field()
    draws: tuple[DrawDecl, ...] = ()


@dataclass(frozen=True, slots=True)
class FieldSpec(Node):
    """A state field: `name: T [public|owner|hidden] ["Heading" | internal] [= init]`."""

    name: str
    type: TypeExpr
    visibility: str
    init: Expr | None
    span: Span = span_field()
    heading: str | None = None  # what a person reads for it (None: its name)
    internal: bool = False  # bookkeeping: left off people's screens (still in views)


@dataclass(frozen=True, slots=True)
class StateDecl(Decl):
    """`state {…}` (global) or `per player {…}`."""

    per_player: bool
    fields: tuple[FieldSpec, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class Param(Node):
    """`name: T`."""

    name: str
    type: TypeExpr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class FunctionDecl(Decl):
    """A pure function: `function f(params) -> T = expr` or with a body."""

    name: str
    params: tuple[Param, ...]
    ret: TypeExpr
    body: Block | None
    expr: Expr | None
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class ProcedureDecl(Decl):
    """`procedure p(params) [-> T] {…}`: may change state and wait for decisions."""

    name: str
    params: tuple[Param, ...]
    ret: TypeExpr | None
    body: Block
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class ActionParam(Node):
    """An action parameter: `name: domain ["heading"] [where g]`."""

    name: str
    domain: Domain
    where: Expr | None
    span: Span = span_field()
    heading: str | None = None  # the words heading its values where people pick them


@dataclass(frozen=True, slots=True)
class ActionDecl(Decl):
    """`action a(params) [label "…"] [when g] {…}`: something a player may choose to do."""

    name: str
    params: tuple[ActionParam, ...]
    when: Expr | None
    body: Block
    span: Span = span_field()
    label: Label | None = None


@dataclass(frozen=True, slots=True)
class FlowDecl(Decl):
    """`flow {…} [final {…}]`: the game from setup to the end; `final` also runs after `end game`."""

    body: Block
    final: Block | None
    span: Span = span_field()

    @property
    def name(self) -> str:
        """There is one flow."""
        return "flow"


@dataclass(frozen=True, slots=True)
class ScoreDecl(Decl):
    """`score(p) = expr`."""

    var: str
    expr: Expr
    span: Span = span_field()

    @property
    def name(self) -> str:
        """There is one score."""
        return "score"


@dataclass(frozen=True, slots=True)
class EstimateDecl(Decl):
    """`estimate(p) = expr`: how good the position is for p, as bots value it before the end."""

    var: str
    expr: Expr
    span: Span = span_field()

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
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class BreakdownEntry(Node):
    """`"Heading": value` — one line of a player's score breakdown or display — or
    `for x in C [where …]: value`, a line for each element, headed by the element's label."""

    heading: str
    expr: Expr
    span: Span = span_field()
    each: CompFor | None = None


@dataclass(frozen=True, slots=True)
class BreakdownDecl(Decl):
    """`breakdown(p) { "Heading": value, … }`: how a player's score came about, for people."""

    var: str
    entries: tuple[BreakdownEntry, ...]
    span: Span = span_field()

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
    span: Span = span_field()

    @property
    def name(self) -> str:
        """There is one display."""
        return "display"


@dataclass(frozen=True, slots=True)
class RankKey(Node):
    """One key of the ranking."""

    expr: Expr
    descending: bool
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class RankDecl(Decl):
    """`rank p by key [desc], …`: order of the final standings; full ties share."""

    var: str
    keys: tuple[RankKey, ...]
    span: Span = span_field()

    @property
    def name(self) -> str:
        """There is one ranking."""
        return "rank"


@dataclass(frozen=True, slots=True)
class InvariantDecl(Decl):
    """`invariant "name" { cond }`: holds after every step of every game."""

    name: str
    expr: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class BotRule(Node):
    """`action: score` — how much a bot likes taking that action (its parameters are in scope)."""

    action: str
    score: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class BotDecl(Decl):
    """`bot "name" { action: score … }`: a bot that takes the legal action it scores highest."""

    name: str
    rules: tuple[BotRule, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class ScenarioDecl(Decl):
    """`scenario "name" players N [seed S] {…}`: a rule test."""

    name: str
    players: int
    seed: int
    steps: tuple[Stmt, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class OverrideDecl(Decl):
    """`override <decl>`: replace the declaration of the same name."""

    decl: Decl
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class RelabelKindDecl(Decl):
    """`override kind name label "…"`: a new label for a map kind declared elsewhere."""

    name: str
    label: Label
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class RemoveDecl(Decl):
    """`remove <what> name`."""

    what: str
    name: str
    span: Span = span_field()


# ---------------------------------------------------------------- files and map data


@dataclass(frozen=True, slots=True)
class MapArg(Node):
    """`[field:] value` of a map item."""

    name: str | None
    value: Expr
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class MapItem(Node):
    """`kind id(args…)`: one element of map data."""

    kind: str
    ident: str
    args: tuple[MapArg, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class GameFile(Node):
    """`game "Name" {…}`."""

    name: str
    decls: tuple[Decl, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class MapFile(Node):
    """`map "Name" for "Game" {…}`, or `map "Name" for library "name" {…}`: data of a library."""

    name: str
    game: str
    items: tuple[MapItem, ...]
    span: Span = span_field()
    for_library: bool = False


@dataclass(frozen=True, slots=True)
class PatchFile(Node):
    """`variant|expansion "Name" for "Game" {…}`."""

    kind: str
    name: str
    game: str
    decls: tuple[Decl, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class PartFile(Node):
    """`part "Name" for "Game" {…}`: more declarations of a game, used by it."""

    name: str
    game: str
    decls: tuple[Decl, ...]
    span: Span = span_field()


@dataclass(frozen=True, slots=True)
class LibraryFile(Node):
    """`library "name" {…}`: declarations of a shared component library."""

    name: str
    decls: tuple[Decl, ...]
    span: Span = span_field()


File = GameFile | MapFile | PatchFile | PartFile | LibraryFile
