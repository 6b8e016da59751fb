"""Every named declaration of a compiled game and every place that names it.

`SymbolIndex.build` walks the syntax tree of each file a compilation read, with what the
checker found out (`CheckedProgram.refs`: what each name, field and call refers to, and
the types of expressions). A declaration and its uses share a key, such as
`("function", "share")`, `("player field", "money")`, `("kind field", "edge", "length")`
or `("local", file, line, col, name)` for a parameter or local; go to definition, find
references, rename and hover are lookups by key. The AST keeps the span of each node, not
of the name inside it, so names are found in the node's text (`Locator`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from compiler.checked import CheckedProgram
from compiler.program import Program
from compiler.refs import (
    BuiltinRef,
    ConstRef,
    ElemByIdRef,
    ElemFieldRef,
    EnumAllRef,
    EnumValueRef,
    FunctionRef,
    GlobalRef,
    KindAllRef,
    LocalRef,
    PlayerFieldRef,
    ProcedureRef,
)
from compiler.types import BoolT, CollT, ElemT, IntT, OptT, Type
from compiler.visit import Visitor
from dsl import ast
from dsl.source import SourceFile, Span
from dsl.visitor import walk

Key = tuple

SHOWN_DECLARATION = 200  # characters of a constant's declaration shown (a table may run long)
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\[^\n])*"|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*')

# What the words of a key's first part are called in hovers.
KINDS = {
    "const": "const",
    "function": "function",
    "procedure": "procedure",
    "action": "action",
    "group": "action group",
    "enum": "enum",
    "value": "enum value",
    "kind": "map kind",
    "kind field": "field",
    "state": "state field",
    "player field": "player field",
    "element": "map element",
    "local": "local",
    "scenario": "scenario",
    "invariant": "invariant",
    "check": "check",
    "bot": "bot",
    "flow": "flow",
    "score": "score",
    "rank": "rank",
    "draw": "drawing",
    "metric": "metric",
    "estimate": "estimate",
    "breakdown": "breakdown",
    "display": "display",
}

# Removable declarations named by a string (`remove draw "decks"`): the key's first part.
NAMED_BY_STRING = frozenset({"scenario", "invariant", "check", "draw", "metric"})

# Keys whose names are identifiers: these can be renamed.
RENAMEABLE = frozenset(
    {
        "const",
        "function",
        "procedure",
        "action",
        "group",
        "enum",
        "value",
        "kind",
        "kind field",
        "state",
        "player field",
        "local",
        "element",
    }
)


@dataclass(frozen=True)
class Definition:
    """Where a named thing is declared: its name's span, the whole declaration, words for hover."""

    key: Key
    name: str
    span: Span
    whole: Span
    detail: str
    doc: str = ""


@dataclass(frozen=True)
class Reference:
    """One place that names a declared thing (`type`: the checked type there, if known)."""

    key: Key
    span: Span
    type: str = ""


@dataclass(frozen=True)
class Outline:
    """One entry of a file's outline (document symbols), with the entries inside it."""

    name: str
    kind: str
    detail: str
    span: Span
    whole: Span
    children: tuple[Outline, ...] = ()


class Locator:
    """Finds a name inside a node's text (skipping strings and comments)."""

    def __init__(self, sources: dict[str, SourceFile]):
        self.sources = sources
        self._starts: dict[str, list[int]] = {}

    def offset(self, file: str, line: int, col: int) -> int:
        """The character offset of a 1-based line and column."""
        starts = self._starts.get(file)
        if starts is None:
            text = self.sources[file].text
            starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
            self._starts[file] = starts
        return starts[min(line, len(starts)) - 1] + col - 1

    def position(self, file: str, offset: int) -> tuple[int, int]:
        """The 1-based line and column of a character offset."""
        self.offset(file, 1, 1)
        starts = self._starts[file]
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    def find(self, span: Span, name: str, after: Span | None = None) -> Span | None:
        """The span of the first word `name` in `span` (after `after`'s end, if given)."""
        if span.file not in self.sources or span.line < 1:
            return None
        text = self.sources[span.file].text
        start = self.offset(span.file, span.line, span.col)
        if after is not None and after.line >= 1:
            start = max(start, self.offset(after.file, after.end_line, after.end_col))
        end = self.offset(span.file, span.end_line, span.end_col)
        for found in _TOKEN.finditer(text, start, max(end, start)):
            if found.group() == name:
                return self.span(span.file, found.start(), found.end())
        return None

    def strings(self, span: Span) -> Span | None:
        """The span of the first string literal in `span`."""
        if span.file not in self.sources or span.line < 1:
            return None
        text = self.sources[span.file].text
        start = self.offset(span.file, span.line, span.col)
        end = self.offset(span.file, span.end_line, span.end_col)
        for found in _TOKEN.finditer(text, start, end):
            if found.group().startswith('"'):
                return self.span(span.file, found.start(), found.end())
        return None

    def span(self, file: str, start: int, end: int) -> Span:
        """The span between two offsets."""
        line, col = self.position(file, start)
        end_line, end_col = self.position(file, end)
        return Span(file, line, col, end_line, end_col)

    def doc_comment(self, span: Span) -> str:
        """The comment lines right above a declaration, without their `#`."""
        source = self.sources.get(span.file)
        if source is None or span.line < 2:
            return ""
        lines: list[str] = []
        number = span.line - 1
        while number >= 1:
            text = source.line(number).strip()
            if not text.startswith("#") or set(text) <= {"#", "-", " ", "="}:
                break
            lines.append(text[1:].strip())
            number -= 1
        return "\n".join(reversed(lines))

    def header(self, whole: Span, stop: Span | None) -> str:
        """A declaration's text up to `stop` (its body), on one line."""
        source = self.sources.get(whole.file)
        if source is None or whole.line < 1:
            return ""
        start = self.offset(whole.file, whole.line, whole.col)
        if stop is not None and stop.line >= 1:
            end = self.offset(stop.file, stop.line, stop.col)
        else:
            end = self.offset(whole.file, whole.end_line, whole.end_col)
        text = source.text[start:end]
        text = re.sub(r"#[^\n]*", "", text)
        return re.sub(r"\s+", " ", text).strip().rstrip("{=").strip()


@dataclass
class SymbolIndex:
    """Definitions and references of one or more compilations of a game."""

    definitions: dict[Key, list[Definition]] = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)
    outlines: dict[str, list[Outline]] = field(default_factory=dict)
    types: dict[Key, str] = field(default_factory=dict)  # a declaration's type, in words
    values: dict[Key, str] = field(default_factory=dict)  # a constant's computed value, in words
    _by_file: dict[str, list[tuple[Span, Key, object]]] = field(default_factory=dict)

    # ------------------------------------------------------------ building

    @classmethod
    def build(
        cls,
        trees: dict[str, ast.File],
        sources: dict[str, SourceFile],
        program: Program | None,
        checked: CheckedProgram | None,
        constants: dict[str, object] | None = None,
    ) -> SymbolIndex:
        """The index of the files of one compilation (`constants`: the values it computed)."""
        index = cls()
        _Builder(index, Locator(sources), program, checked, constants or {}).run(trees)
        index._sort()
        return index

    def merge(self, other: SymbolIndex) -> None:
        """Add another compilation's findings (the same game with a patch), without repeats."""
        for key, defs in other.definitions.items():
            mine = self.definitions.setdefault(key, [])
            mine.extend(d for d in defs if d.span not in {m.span for m in mine})
        seen = {(r.key, r.span) for r in self.references}
        self.references.extend(r for r in other.references if (r.key, r.span) not in seen)
        for file, outline in other.outlines.items():
            self.outlines.setdefault(file, outline)
        for key, words in other.types.items():
            self.types.setdefault(key, words)
        for key, words in other.values.items():
            self.values.setdefault(key, words)
        self._sort()

    def _sort(self) -> None:
        by_file: dict[str, list[tuple[Span, Key, object]]] = {}
        for defs in self.definitions.values():
            for d in defs:
                by_file.setdefault(d.span.file, []).append((d.span, d.key, d))
        for r in self.references:
            by_file.setdefault(r.span.file, []).append((r.span, r.key, r))
        for items in by_file.values():
            items.sort(key=lambda item: (item[0].line, item[0].col))
        self._by_file = by_file

    def add_definition(self, definition: Definition) -> None:
        """Record a declaration."""
        self.definitions.setdefault(definition.key, []).append(definition)

    # ------------------------------------------------------------ queries

    def at(self, file: str, line: int, col: int) -> tuple[Key, object] | None:
        """The key and the definition or reference whose name covers a 1-based place."""
        for span, key, item in self._by_file.get(file, []):
            if span.line == line and span.col <= col <= span.end_col:
                return key, item
            if span.line > line:
                break
        return None

    def definitions_of(self, key: Key) -> list[Definition]:
        """Where a key is declared (every version: the base first, then overrides)."""
        return self.definitions.get(key, [])

    def references_to(self, key: Key) -> list[Reference]:
        """Every place that names a key."""
        return [r for r in self.references if r.key == key]

    def locals_in(self, file: str, line: int) -> list[Definition]:
        """The parameters and locals of the declaration around a line, declared before it."""
        return [
            d
            for defs in self.definitions.values()
            for d in defs
            if d.key[0] == "local"
            and d.span.file == file
            and d.span.line <= line <= d.whole.end_line
            and d.whole.line <= line
        ]


def _shortened(text: str) -> str:
    """A declaration's text cut to SHOWN_DECLARATION characters."""
    if len(text) <= SHOWN_DECLARATION:
        return text
    return text[: SHOWN_DECLARATION - 1] + "…"


def _type_words(t: Type | None) -> str:
    return "" if t is None else str(t)


class _Builder(Visitor):
    """Walks the files of one compilation, filling a SymbolIndex: a declaration's rule
    (`visit_<Decl>`) records what it declares and returns its outline entry."""

    def __init__(
        self,
        index: SymbolIndex,
        locate: Locator,
        program: Program | None,
        checked: CheckedProgram | None,
        constants: dict[str, object],
    ):
        self.index = index
        self.locate = locate
        self.program = program
        self.cp = checked
        self.constants = constants
        self.elements: dict[str, list[str]] = {}  # element id -> kinds that have it
        self.field_kinds: dict[int, str] = {}  # id of a kind's field declaration -> the kind
        self.scope: Span | None = None  # the declaration being walked

    # ------------------------------------------------------------ helpers

    def define(self, key: Key, name: str, span: Span | None, whole: Span, detail: str) -> None:
        if span is None:
            return
        doc = self.locate.doc_comment(whole)
        self.index.add_definition(Definition(key, name, span, whole, detail, doc))

    def refer(self, key: Key, span: Span | None, node: ast.Node | None = None) -> None:
        if span is None:
            return
        words = ""
        if self.cp is not None and node is not None and id(node) in self.cp.types:
            words = _type_words(self.cp.types[id(node)])
        self.index.references.append(Reference(key, span, words))

    def name_in(self, node: ast.Node, name: str, after: Span | None = None) -> Span | None:
        return self.locate.find(node.span, name, after)

    def global_key(self, name: str) -> Key | None:
        """What a bare name refers to when the checker did not say (an unchecked version)."""
        p = self.program
        if p is None:
            return None
        if name in p.state:
            return ("state", name)
        if name in p.consts:
            return ("const", name)
        if self.cp is not None and name in self.cp.value_enum:
            return ("value", name)
        if name in p.enums:
            return ("enum", name)
        if name in p.kinds:
            return ("kind", name)
        if name in p.functions:
            return ("function", name)
        if name in p.procedures:
            return ("procedure", name)
        if name in p.actions:
            return ("action", name)
        if name in self.elements:
            return ("element", self.elements[name][0], name)
        return None

    def callable_key(self, name: str) -> Key | None:
        p = self.program
        if p is None:
            return None
        for kind, table in (("function", p.functions), ("procedure", p.procedures)):
            if name in table:
                return (kind, name)
        return None

    def action_key(self, name: str) -> Key:
        if self.program is not None and name in self.program.groups:
            return ("group", name)
        return ("action", name)

    # ------------------------------------------------------------ files

    def run(self, trees: dict[str, ast.File]) -> None:
        for tree in trees.values():
            if isinstance(tree, ast.MapFile):
                for item in tree.items:
                    self.elements.setdefault(item.ident, []).append(item.kind)
            for node in walk(tree):
                if isinstance(node, ast.KindDecl):
                    self.field_kinds.update((id(f), node.name) for f in node.fields)
        for path, tree in trees.items():
            outline: list[Outline] = []
            if isinstance(tree, ast.MapFile):
                outline.extend(self.map_item(item) for item in tree.items)
            else:
                for decl in tree.decls:
                    entry = self.decl(decl)
                    if entry is not None:
                        outline.append(entry)
            self.index.outlines[path] = outline
        if self.cp is not None:
            self.declared_types()

    def declared_types(self) -> None:
        cp, types = self.cp, self.index.types
        for name, t in cp.const_types.items():
            types[("const", name)] = str(t)
            value = self.constants.get(name)
            if isinstance(t, (IntT, BoolT)) and value is not None:  # a number reads the same
                self.index.values[("const", name)] = str(value).lower()
        for name, t in cp.state_types.items():
            types[("state", name)] = str(t)
        for name, t in cp.player_types.items():
            types[("player field", name)] = str(t)
        for kind, fields in cp.kind_fields.items():
            for name, t in fields:
                types[("kind field", kind, name)] = str(t)
        for value, (enum, _) in cp.value_enum.items():
            types[("value", value)] = enum

    # ------------------------------------------------------------ declarations

    def generic_visit(self, node: ast.Node, *args):
        """A declaration without an outline entry (players, uses, defaults, requires)."""
        return None

    def decl(self, decl: ast.Decl) -> Outline | None:
        if isinstance(decl, ast.OverrideDecl):
            entry = self.decl(decl.decl)
            if entry is None:
                return None
            detail = f"override {entry.detail}"
            return Outline(entry.name, entry.kind, detail, entry.span, decl.span, entry.children)
        self.scope = decl.span
        self.expressions(decl)
        return self.visit(decl)

    def _simple(self, key_kind: str, decl, stop=None):
        span = self.name_in(decl, decl.name)
        detail = self.locate.header(decl.span, stop)
        self.define((key_kind, decl.name), decl.name, span, decl.span, detail)
        return Outline(decl.name, key_kind, detail, span or decl.span, decl.span)

    def visit_ConstDecl(self, decl: ast.ConstDecl):
        span = self.name_in(decl, decl.name)
        detail = _shortened(self.locate.header(decl.span, None)) or f"const {decl.name}"
        self.define(("const", decl.name), decl.name, span, decl.span, detail)
        return Outline(decl.name, "const", detail, span or decl.span, decl.span)

    def _callable(self, kind: str, decl, stop):
        outline = self._simple(kind, decl, stop=stop)
        for param in decl.params:
            self.local(param, param.name)
        return outline

    def visit_FunctionDecl(self, decl: ast.FunctionDecl):
        stop = decl.body.span if decl.body is not None else decl.expr.span
        return self._callable("function", decl, stop)

    def visit_ProcedureDecl(self, decl: ast.ProcedureDecl):
        return self._callable("procedure", decl, decl.body.span)

    def visit_ActionDecl(self, decl: ast.ActionDecl):
        return self._callable("action", decl, decl.body.span)

    def visit_EnumDecl(self, decl: ast.EnumDecl):
        outline = self._simple("enum", decl)
        if decl.base is not None:
            self.refer(("enum", decl.base), self.name_in(decl, decl.base, outline.span))
        return self._values(decl, outline)

    def visit_ExtendEnumDecl(self, decl: ast.ExtendEnumDecl):
        span = self.name_in(decl, decl.name)
        self.refer(("enum", decl.name), span)
        outline = Outline(
            decl.name, "enum", f"extend enum {decl.name}", span or decl.span, decl.span
        )
        return self._values(decl, outline)

    def _values(self, decl, outline: Outline) -> Outline:
        children = []
        after = outline.span
        for value in decl.values:
            span = self.name_in(decl, value, after)
            enum = decl.name
            self.define(("value", value), value, span, decl.span, f"{value}: {enum}")
            if span is not None:
                children.append(Outline(value, "value", enum, span, span))
                after = span
        return Outline(
            outline.name, "enum", outline.detail, outline.span, outline.whole, tuple(children)
        )

    def visit_GroupDecl(self, decl: ast.GroupDecl):
        span = self.name_in(decl, decl.name)
        detail = f"actions {decl.name}"
        self.define(("group", decl.name), decl.name, span, decl.span, detail)
        self._action_names(decl, decl.actions, span)
        return Outline(decl.name, "group", detail, span or decl.span, decl.span)

    def visit_ExtendGroupDecl(self, decl: ast.ExtendGroupDecl):
        span = self.name_in(decl, decl.name)
        self.refer(("group", decl.name), span)
        self._action_names(decl, decl.actions, span)
        return Outline(
            decl.name, "group", f"extend actions {decl.name}", span or decl.span, decl.span
        )

    def _action_names(self, decl, names, after: Span | None) -> None:
        for name in names:
            span = self.name_in(decl, name, after)
            self.refer(self.action_key(name), span)
            after = span or after

    def visit_SchemaDecl(self, decl: ast.SchemaDecl):
        children = [self.kind(kind) for kind in decl.kinds]
        children += [self.visit_CheckDecl(check) for check in decl.checks]
        children += [self.visit_DrawDecl(draw) for draw in decl.draws]
        return Outline("map schema", "schema", "", decl.span, decl.span, tuple(children))

    def kind(self, decl: ast.KindDecl) -> Outline:
        span = self.name_in(decl, decl.name)
        self.define(("kind", decl.name), decl.name, span, decl.span, f"kind {decl.name}")
        children = []
        for f in decl.fields:
            fspan = self.locate.find(f.span, f.name)
            detail = self.locate.header(f.span, None)
            self.define(("kind field", decl.name, f.name), f.name, fspan, f.span, detail)
            if fspan is not None:
                children.append(Outline(f.name, "kind field", detail, fspan, f.span))
        return Outline(decl.name, "kind", "", span or decl.span, decl.span, tuple(children))

    def visit_CheckDecl(self, decl: ast.CheckDecl):
        span = self.locate.strings(decl.span)
        self.define(
            ("check", decl.message), decl.message, span, decl.span, f"check {decl.message!r}"
        )
        if decl.kind is not None:
            self.refer(("kind", decl.kind), self.name_in(decl, decl.kind, span))
        if decl.var is not None:
            self.local(decl, decl.var, after=span)
        return Outline(decl.message, "check", "", span or decl.span, decl.span)

    def visit_StateDecl(self, decl: ast.StateDecl):
        kind = "player field" if decl.per_player else "state"
        children = []
        for spec in decl.fields:
            span = self.locate.find(spec.span, spec.name)
            detail = self.locate.header(spec.span, spec.init.span if spec.init else None)
            self.define((kind, spec.name), spec.name, span, spec.span, detail)
            if span is not None:
                children.append(Outline(spec.name, kind, detail, span, spec.span))
        name = "per player" if decl.per_player else "state"
        return Outline(name, "state", "", decl.span, decl.span, tuple(children))

    def visit_FlowDecl(self, decl: ast.FlowDecl):
        return Outline("flow", "flow", "", decl.span, decl.span)

    def visit_ScoreDecl(self, decl: ast.ScoreDecl):
        self.local(decl, decl.var)
        return Outline("score", "score", self.locate.header(decl.span, None), decl.span, decl.span)

    def visit_RankDecl(self, decl: ast.RankDecl):
        self.local(decl, decl.var)
        return Outline("rank", "rank", self.locate.header(decl.span, None), decl.span, decl.span)

    def visit_EstimateDecl(self, decl: ast.EstimateDecl):
        self.local(decl, decl.var)
        detail = self.locate.header(decl.span, None)
        return Outline("estimate", "estimate", detail, decl.span, decl.span)

    def visit_BreakdownDecl(self, decl: ast.BreakdownDecl):
        return self._rows_outline(decl, "breakdown")

    def visit_DisplayDecl(self, decl: ast.DisplayDecl):
        return self._rows_outline(decl, "display")

    def _rows_outline(self, decl: ast.BreakdownDecl | ast.DisplayDecl, word: str) -> Outline:
        """A breakdown's or display's outline: its rows under it, its player a local."""
        self.local(decl, decl.var)
        children = []
        for entry in decl.entries:
            span = self.locate.strings(entry.span) or entry.span
            heading = entry.heading if entry.each is None else f"for {entry.each.var}"
            children.append(Outline(heading, f"{word} entry", "", span, entry.span))
        detail = f"{word}({decl.var})"
        return Outline(word, word, detail, decl.span, decl.span, tuple(children))

    def visit_MetricDecl(self, decl: ast.MetricDecl):
        span = self.locate.strings(decl.span)
        detail = self.locate.header(decl.span, decl.expr.span)
        self.define(("metric", decl.name), decl.name, span, decl.span, detail)
        self.local(decl, decl.var, after=span)
        return Outline(decl.name, "metric", detail, span or decl.span, decl.span)

    def visit_DrawDecl(self, decl: ast.DrawDecl):
        span = self.locate.strings(decl.span)
        first = decl.shape or (decl.props[0] if decl.props else None)
        detail = self.locate.header(decl.span, first.span if first is not None else None)
        self.define(("draw", decl.name), decl.name, span, decl.span, detail)
        return Outline(decl.name, "draw", detail, span or decl.span, decl.span)

    def _named_by_string(self, kind: str, decl) -> Outline:
        span = self.locate.strings(decl.span)
        self.define((kind, decl.name), decl.name, span, decl.span, f"{kind} {decl.name!r}")
        return Outline(decl.name, kind, "", span or decl.span, decl.span)

    def visit_InvariantDecl(self, decl: ast.InvariantDecl):
        return self._named_by_string("invariant", decl)

    def visit_ScenarioDecl(self, decl: ast.ScenarioDecl):
        return self._named_by_string("scenario", decl)

    def visit_BotDecl(self, decl: ast.BotDecl):
        for rule in decl.rules:
            self.refer(("action", rule.action), self.locate.find(rule.span, rule.action))
        return self._named_by_string("bot", decl)

    def visit_RemoveDecl(self, decl: ast.RemoveDecl):
        if decl.what in ("function", "procedure", "action", "const"):
            self.refer((decl.what, decl.name), self.name_in(decl, decl.name))
        elif decl.what in NAMED_BY_STRING:
            self.refer((decl.what, decl.name), self.locate.strings(decl.span))
        return None

    def map_item(self, item: ast.MapItem) -> Outline:
        self.refer(("kind", item.kind), self.locate.find(item.span, item.kind))
        kind_span = Span(
            item.span.file,
            item.span.line,
            item.span.col,
            item.span.line,
            item.span.col + len(item.kind),
        )
        span = self.locate.find(item.span, item.ident, kind_span) or self.locate.strings(item.span)
        key = ("element", item.kind, item.ident)
        self.define(key, item.ident, span, item.span, f"{item.kind} {item.ident}")
        listed = self.cp.kind_fields.get(item.kind, []) if self.cp is not None else []
        fields = dict(listed)
        for position, arg in enumerate(item.args):
            name = arg.name
            if name is not None:
                self.refer(("kind field", item.kind, name), self.locate.find(arg.span, name))
            elif position < len(listed):  # written in the kind's field order
                name = listed[position][0]
            self.map_value(arg.value, fields.get(name))
        return Outline(item.ident, "element", item.kind, span or item.span, item.span)

    def map_value(self, value: ast.Expr, t: Type | None) -> None:
        """Names in map data: elements of the field's kind, or enum values."""
        while isinstance(t, OptT | CollT):
            t = t.inner if isinstance(t, OptT) else t.item
        for node in walk(value):
            if isinstance(node, ast.Name):
                if isinstance(t, ElemT) and node.name in self.elements:
                    self.refer(("element", t.kind, node.name), node.span)
                elif self.cp is not None and node.name in self.cp.value_enum:
                    self.refer(("value", node.name), node.span)

    # ------------------------------------------------------------ locals and uses

    def local(self, site: ast.Node, name: str, after: Span | None = None) -> None:
        """A parameter or local: its whole is the declaration around it (where it is visible)."""
        span = self.locate.find(site.span, name, after)
        if span is None:
            return
        key = ("local", span.file, span.line, span.col, name)
        detail = name
        t = self.cp.types.get(id(site)) if self.cp is not None else None
        if isinstance(site, ast.EachChoose) and name == site.var:  # who chooses
            detail = f"{name}: player"
        elif t is not None and isinstance(site, ast.Let | ast.Choose | ast.EachChoose):
            detail = f"{name}: {t}"
        elif isinstance(site, ast.Param | ast.ActionParam):
            detail = self.locate.header(site.span, None)
        self.index.add_definition(Definition(key, name, span, self.scope, detail))

    def local_key(self, ref: LocalRef) -> Key | None:
        site = ref.site
        if site is None:
            return None
        if isinstance(site, ast.FieldDecl) and id(site) in self.field_kinds:  # in a kind's label
            return ("kind field", self.field_kinds[id(site)], ref.name)
        if isinstance(site, ast.KindDecl):  # the element itself, in its kind's label
            return ("kind", site.name)
        span = self.locate.find(site.span, ref.name)
        if span is None:
            return None
        return ("local", span.file, span.line, span.col, ref.name)

    def expressions(self, root: ast.Node) -> None:
        """Every use of a name below a node: names, fields, calls, types, actions, locals."""
        uses = _Uses(self)
        for node in walk(root):
            uses.visit(node)


class _Uses(Visitor):
    """Records the names one node uses (the walk over the nodes is the builder's)."""

    def __init__(self, builder: _Builder):
        self.b = builder

    def generic_visit(self, node: ast.Node, *args):
        """A node that names nothing by itself."""
        return None

    def ref(self, node: ast.Node):
        return self.b.cp.ref(node) if self.b.cp is not None else None

    def visit_Name(self, node: ast.Name) -> None:
        ref = self.ref(node)
        key: Key | None
        if isinstance(ref, LocalRef):
            key = self.b.local_key(ref)
        elif isinstance(ref, GlobalRef):
            key = ("state", ref.name)
        elif isinstance(ref, ConstRef):
            key = ("const", ref.name)
        elif isinstance(ref, EnumValueRef):
            key = ("value", node.name)
        elif isinstance(ref, EnumAllRef):
            key = ("enum", ref.enum)
        elif isinstance(ref, KindAllRef):
            key = ("kind", ref.kind)
        else:
            key = self.b.global_key(node.name) if ref is None else None
        if key is not None:
            self.b.refer(key, node.span, node)

    def visit_Field(self, node: ast.Field) -> None:
        ref = self.ref(node)
        span = Span(
            node.span.file,
            node.span.end_line,
            node.span.end_col - len(node.name),
            node.span.end_line,
            node.span.end_col,
        )
        if isinstance(ref, PlayerFieldRef):
            self.b.refer(("player field", ref.field), span, node)
        elif isinstance(ref, ElemFieldRef):
            self.b.refer(("kind field", ref.kind, ref.field), span, node)
        elif isinstance(ref, EnumValueRef):
            self.b.refer(("value", node.name), span, node)
        elif ref is None and self.b.program is not None and node.name in self.b.program.per_player:
            self.b.refer(("player field", node.name), span, node)

    def visit_Index(self, node: ast.Index) -> None:
        ref = self.ref(node)
        if isinstance(ref, ElemByIdRef):
            self.b.refer(("element", ref.kind, ref.id), node.index.span, node)

    def visit_Call(self, node: ast.Call) -> None:
        ref = self.ref(node)
        span = Span(
            node.span.file,
            node.span.line,
            node.span.col,
            node.span.line,
            node.span.col + len(node.func),
        )
        if isinstance(ref, FunctionRef):
            self.b.refer(("function", ref.name), span, node)
        elif isinstance(ref, ProcedureRef):
            self.b.refer(("procedure", ref.name), span, node)
        elif isinstance(ref, BuiltinRef):
            self.b.refer(("builtin", ref.name), span, node)
        elif ref is None:
            key = self.b.callable_key(node.func)
            self.b.refer(key or ("builtin", node.func), span, node)

    def visit_GenCall(self, node: ast.GenCall) -> None:
        span = Span(
            node.span.file,
            node.span.line,
            node.span.col,
            node.span.line,
            node.span.col + len(node.func),
        )
        self.b.refer(self.b.callable_key(node.func) or ("builtin", node.func), span, node)

    def visit_NamedType(self, node: ast.NamedType) -> None:
        key = self.b.global_key(node.name)
        if key is not None and key[0] in ("enum", "kind"):
            self.b.refer(key, node.span)

    def visit_ChooseAction(self, node: ast.ChooseAction) -> None:
        for name, span in zip(node.actions, node.action_spans, strict=False):
            self.b.refer(self.b.action_key(name), span)

    def visit_EachChooseAction(self, node: ast.EachChooseAction) -> None:
        for name, span in zip(node.actions, node.action_spans, strict=False):
            self.b.refer(self.b.action_key(name), span)

    def visit_Play(self, node: ast.Play) -> None:
        self.b.refer(
            ("action", node.action), self.b.locate.find(node.span, node.action, node.player.span)
        )

    def visit_Refuse(self, node: ast.Refuse) -> None:
        self.b.refer(
            ("action", node.action), self.b.locate.find(node.span, node.action, node.player.span)
        )

    def visit_Let(self, node: ast.Let) -> None:
        self.b.local(node, node.name)

    def visit_For(self, node: ast.For) -> None:
        self.b.local(node, node.var)

    def visit_Choose(self, node: ast.Choose) -> None:
        self.b.local(node, node.name)

    def visit_EachChoose(self, node: ast.EachChoose) -> None:
        self.b.local(node, node.var)
        self.b.local(node, node.name)

    def visit_CompFor(self, node: ast.CompFor) -> None:
        self.b.local(node, node.var)

    def visit_DrawBinding(self, node: ast.DrawBinding) -> None:
        self.b.local(node, node.var)
