"""Where metro reaches into Lark's internals: the cached parser, its rule callbacks and lexer.

Three private hooks, each for a reason Lark's public API cannot meet:

- `Lark._callbacks`, the table the LALR parser calls as it reduces each rule, is wrapped
  rule by rule. Its entries receive the rule's unfiltered children (keywords and
  punctuation included), so each node's span covers its whole text; and the nesting and
  per-declaration size limits are measured there, as rules reduce, so a hostile file is
  refused before a deep tree is ever built (no parse tree is built at all: the AST
  builder runs in the callbacks).
- `_plugins={"ContextualLexer": ...}` swaps in `dsl.lexer.FastContextualLexer`, which
  gives Lark's tokens in one regex match each (tests/test_lexer.py checks they are equal).
- `on_error` (public) with `interactive_parser.feed_token` reads soft keywords as names.

These are pinned to lark >=1.2,<1.4 (pyproject.toml); tests/test_lexer.py and the
`NotImplementedError` below fail loudly if a Lark release changes them.
"""

from __future__ import annotations

import threading
from functools import lru_cache

from lark import Lark
from lark.exceptions import UnexpectedInput

from dsl.ast_builder import AstBuilder
from dsl.diagnostics import SYNTAX, TOO_DEEP
from dsl.keywords import soft_keyword
from dsl.lexer import FastContextualLexer
from dsl.literals import Refused
from dsl.memory import paused_gc
from dsl.source import Span

# Documented limits: deeper nesting or a larger declaration is refused with a diagnostic.
MAX_NESTING = 200
MAX_NODES_PER_DECL = 50_000

# Rules whose nodes are whole files: each of their declarations has its own size budget.
FILE_RULES = frozenset({"start", "game_file", "map_file", "patch_file", "part_file"})

# The builder is shared by every parse, and holds the file name. Re-entrant: a label's
# placeholders are parsed (start `template_expr`) while the file around them is.
_PARSE_LOCK = threading.RLock()


@lru_cache(maxsize=1)
def metro_parser() -> Lark:
    """The one Lark LALR parser for .metro files (built once per process).

    Lark calls the AST builder as it reduces each rule (no parse tree is built), through
    a `_Measure` around each rule's callback that gives the builder the rule's span and
    enforces the nesting and size limits.
    """
    builder = AstBuilder(parse_placeholder)
    lark = Lark.open_from_package(
        "grammar",
        "metro.lark",
        ("",),
        parser="lalr",
        transformer=builder,
        maybe_placeholders=True,
        strict=True,
        start=["start", "template_expr"],
        _plugins={"ContextualLexer": FastContextualLexer},
    )
    # The callbacks dict is the one the LALR parser calls; each entry receives the
    # unfiltered children (keywords and punctuation included), so spans cover them.
    callbacks = lark._callbacks
    for rule, callback in list(callbacks.items()):
        name = rule.alias or rule.origin.name
        # Lark's own helper rules (repetitions) are spliced into their parent: not nodes.
        spliced = rule.origin.name.startswith("_")
        if not (spliced or rule.options.expand1 or hasattr(builder, name)):
            raise NotImplementedError(f"no AST builder for grammar rule {name!r}")
        measure = _Measure(callback, builder, node=not spliced, limited=name not in FILE_RULES)
        callbacks[rule] = (
            _PassThrough(measure) if rule.options.expand1 and not rule.alias else measure
        )
    return lark


def build_ast(text: str, filename: str):
    """The AST of `text`; raises Lark's UnexpectedInput or `Refused` (with LimitExceeded)."""
    parser = metro_parser()
    with _PARSE_LOCK, paused_gc():
        parser.options.transformer.filename = filename
        return parser.parse(text, start="start", on_error=soft_keyword).value


def parse_placeholder(text: str, line: int, column: int):
    """One label placeholder's expression, found at `line` and `column` of the file being parsed.

    The text is parsed after as many newlines and spaces as put it at its place, so every
    node's span (and every syntax error) points into the file itself.
    """
    padded = "\n" * (line - 1) + " " * (column - 1) + text
    parser = metro_parser()
    with _PARSE_LOCK:
        try:
            return parser.parse(padded, start="template_expr", on_error=soft_keyword).value
        except UnexpectedInput as error:
            raise PlaceholderSyntax(error, padded) from None


class PlaceholderSyntax(Refused):
    """A syntax error inside a label's placeholder (raised through the enclosing parse)."""

    code = SYNTAX

    def __init__(self, error: UnexpectedInput, text: str):
        self.error = error
        self.text = text
        super().__init__("syntax error in a label's placeholder", error.line, error.column)


class LimitExceeded(Refused):
    """A node past MAX_NESTING or MAX_NODES_PER_DECL."""

    code = TOO_DEEP


class _Built:
    """A built value on the parser's stack: the text it covers, its height and node count."""

    __slots__ = ("column", "count", "end_column", "end_line", "height", "line", "value")

    def __init__(self, value, line, column, end_line, end_column, height, count):
        self.value = value
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        self.height = height
        self.count = count


class _Measure:
    """One rule's callback: measures its children, sets the builder's span, checks limits."""

    __slots__ = ("builder", "callback", "limited", "node")

    def __init__(self, callback, builder: AstBuilder, node: bool, limited: bool):
        self.callback = callback
        self.builder = builder
        self.node = node
        self.limited = limited

    def __call__(self, children: list):
        values = []
        first = last = None
        height = count = 0
        for child in children:
            if type(child) is _Built:
                values.append(child.value)
                if child.height > height:
                    height = child.height
                count += child.count
                if child.line:
                    last = child
                    if first is None:
                        first = child
            else:
                values.append(child)
                if child is not None:  # a Token
                    last = child
                    if first is None:
                        first = child
        builder = self.builder
        if first is None:
            line = column = end_line = end_column = 0
        else:
            line, column, end_line, end_column = (
                first.line,
                first.column,
                last.end_line,
                last.end_column,
            )
        builder.here = Span(builder.filename, line, column, end_line, end_column)
        result = self.callback(values)
        if not self.node:
            return _Built(result, line, column, end_line, end_column, height, count)
        for value in values:
            if value is result:  # a `?rule` passed its one child through: no node of its own
                return _Built(result, line, column, end_line, end_column, height, count)
        height += 1
        count += 1
        if height > MAX_NESTING:
            raise LimitExceeded(
                f"nesting is deeper than the limit of {MAX_NESTING} levels", line, column
            )
        if count > MAX_NODES_PER_DECL and self.limited:
            raise LimitExceeded(
                f"a declaration is larger than the limit of {MAX_NODES_PER_DECL} nodes",
                line,
                column,
            )
        return _Built(result, line, column, end_line, end_column, height, count)


class _PassThrough:
    """A `?rule` callback: one built child is the rule's value as it is (most reductions)."""

    __slots__ = ("measure",)

    def __init__(self, measure: _Measure):
        self.measure = measure

    def __call__(self, children: list):
        if len(children) == 1 and type(children[0]) is _Built:
            return children[0]
        return self.measure(children)
