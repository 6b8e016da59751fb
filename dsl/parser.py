"""Text to AST: the cached Lark parser, the AST builder it drives, and syntax diagnostics."""

from __future__ import annotations

import re
import threading
from functools import lru_cache

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from dsl import ast
from dsl.diagnostics import INPUT, INT_RANGE, SYNTAX, TOO_DEEP, Diagnostics
from dsl.files import UnreadableFile, read_regular
from dsl.lexer import FastContextualLexer
from dsl.memory import paused_gc
from dsl.source import SourceFile, Span
from dsl.syntax_errors import SEPARATORS, describe_expected
from runtime.values import INT_LIMIT

# Documented limits: a larger file or deeper nesting is refused with a diagnostic.
MAX_FILE_BYTES = 2 * 1024 * 1024
RULE_SUFFIX = ".metro"
MAX_NESTING = 200
MAX_NODES_PER_DECL = 50_000


@lru_cache(maxsize=1)
def metro_parser() -> Lark:
    """The one Lark LALR parser for .metro files (built once per process).

    Lark calls the AST builder as it reduces each rule (no parse tree is built), through
    a `_Measure` around each rule's callback that gives the builder the rule's span and
    enforces the nesting and size limits.
    """
    builder = AstBuilder()
    lark = Lark.open_from_package(
        "grammar",
        "metro.lark",
        ("",),
        parser="lalr",
        transformer=builder,
        maybe_placeholders=True,
        strict=True,
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


# Rules whose nodes are whole files: each of their declarations has its own size budget.
FILE_RULES = frozenset({"start", "game_file", "map_file", "patch_file", "part_file"})

_PARSE_LOCK = threading.Lock()


class _Refused(Exception):
    """Text the parser matched but the language refuses, raised from inside the parser."""

    code = INT_RANGE

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.where = (line or 1, column or 1)


class _LimitExceeded(_Refused):
    """A node past MAX_NESTING or MAX_NODES_PER_DECL."""

    code = TOO_DEEP


class _BadEscape(_Refused):
    """A string escape that is not a character (half of a surrogate pair)."""

    code = SYNTAX


class _Built:
    """A built value on the parser's stack: the text it covers, its height and node count."""

    __slots__ = ("value", "line", "column", "end_line", "end_column", "height", "count")

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

    __slots__ = ("callback", "builder", "node", "limited")

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
            raise _LimitExceeded(
                f"nesting is deeper than the limit of {MAX_NESTING} levels", line, column
            )
        if count > MAX_NODES_PER_DECL and self.limited:
            raise _LimitExceeded(
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


def parse(text: str, filename: str) -> ast.File:
    """Parse one file; raise CompileError with diagnostics on any problem."""
    source = SourceFile(filename, text)
    diags = Diagnostics()
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        diags.error(
            INPUT,
            f"file is larger than the limit of {MAX_FILE_BYTES // 1024 // 1024} MiB",
            Span.point(filename, 1, 1),
        )
        diags.raise_if_errors({filename: source})
    bad = _first_control_character(text)
    if bad is not None:
        line, col, char = bad
        what = (
            "half of a surrogate pair (not UTF-8 text)"
            if "\ud800" <= char <= "\udfff"
            else "control character"
        )
        diags.error(
            INPUT,
            f"the file contains a {what}, U+{ord(char):04X} (binary data?)",
            Span.point(filename, line, col),
        )
        diags.raise_if_errors({filename: source})
    parser = metro_parser()
    try:
        with (
            _PARSE_LOCK,
            paused_gc(),
        ):  # the builder is shared by every parse, and holds the file name
            parser.options.transformer.filename = filename
            return parser.parse(text, on_error=_soft_keyword).value
    except UnexpectedInput as error:
        diags.items.append(_syntax_diagnostic(error, text, filename))
    except _Refused as error:
        diags.error(error.code, str(error), Span.point(filename, *error.where))
    diags.raise_if_errors({filename: source})
    raise AssertionError("unreachable: a parse failure is always an error")


# Words that must stay reserved: they are values or the current player.
HARD_KEYWORDS = {"none", "true", "false", "me", "players", "super"}


def _soft_keyword(error: UnexpectedInput) -> bool:
    """Keywords are soft: where a keyword is not acceptable but a name is, read it as a name.

    The contextual lexer sees a keyword wherever LALR lookahead sets (merged across
    states) allow one, so a field named `score` after an expression would otherwise
    be read as the `score` declaration keyword.
    """
    if not isinstance(error, UnexpectedToken):
        return False
    token = error.token
    value = str(token)
    if "NAME" not in error.expected or token.type in ("NAME", "$END") or value in HARD_KEYWORDS:
        return False
    if not (value.isascii() and value.isidentifier()):
        return False
    error.interactive_parser.feed_token(Token.new_borrow_pos("NAME", value, token))
    return True


def read_source(path: str) -> str:
    """Read a rule file as UTF-8; raise CompileError naming the file on failure."""
    # Only `.metro` files are read, so a diagnostic can never quote any other file.
    if not path.endswith(RULE_SUFFIX):
        _fail_input(path, f"a rule file's name must end in `{RULE_SUFFIX}`")
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except UnreadableFile as error:
        _fail_input(path, error.reason)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        text = data[: error.start].decode("utf-8", "replace")
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
        diags = Diagnostics()
        diags.error(INPUT, "the file is not valid UTF-8 text", Span.point(path, line, col))
        diags.raise_if_errors({})
        raise


def _fail_input(path: str, message: str):
    diags = Diagnostics()
    diags.error(INPUT, message, Span.point(path, 1, 1))
    diags.raise_if_errors({})


# C0 controls other than tab, LF, form feed and CR; DEL; the C1 controls; and lone
# surrogates, which a str from the API may hold though no UTF-8 file can.
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _first_control_character(text: str) -> tuple[int, int, str] | None:
    found = _CONTROL.search(text)
    if found is None:
        return None
    index = found.start()
    before = text[:index]
    return before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1, found.group()


def _literal_of(name: str) -> str | None:
    try:
        pattern = metro_parser().get_terminal(name).pattern
    except KeyError:
        return None
    return pattern.value if pattern.type == "str" else None


def _syntax_diagnostic(error: UnexpectedInput, text: str, filename: str):
    from dsl.diagnostics import Diagnostic

    if isinstance(error, UnexpectedCharacters):
        char = text[error.pos_in_stream] if error.pos_in_stream < len(text) else ""
        shown = char if char.isprintable() else f"U+{ord(char):04X}"
        message = f"unexpected character '{shown}'"
        if char and not char.isascii():
            message += " (names and keywords use ASCII letters, digits and '_')"
        return Diagnostic(SYNTAX, message, Span.point(filename, error.line, error.column))
    expected = set(error.expected) if getattr(error, "expected", None) else set()
    token = getattr(error, "token", None)
    if isinstance(error, UnexpectedEOF) or (token is not None and token.type == "$END"):
        lines = text.split("\n")
        span = Span.point(filename, len(lines), len(lines[-1]) + 1)
        opener = _unclosed_brace(text)
        if opener is not None:
            return Diagnostic(
                SYNTAX,
                "the file ends before a '{' is closed",
                span,
                notes=(f"the unclosed '{{' is at {filename}:{opener[0]}:{opener[1]}",),
            )
        return Diagnostic(
            SYNTAX,
            "the file ends too early; expected " + describe_expected(expected, _literal_of),
            span,
        )
    assert isinstance(error, UnexpectedToken)
    literals = {_literal_of(name) for name in expected}
    missing = [SEPARATORS[lit] for lit in SEPARATORS if lit in literals]
    previous = _previous_token_end(text, token.start_pos)
    if previous is not None and missing and token.line != previous[0]:
        # Lark reports the next line's first token; the slip is at the end of the previous one.
        line, col, word = previous
        span = Span.point(filename, line, col)
        return Diagnostic(
            SYNTAX,
            f"missing {missing[0]} after '{word}'",
            span,
            notes=(f"expected {describe_expected(expected, _literal_of)}",),
        )
    found = f"'{token.value}'" if token.value else token.type
    end_col = (
        token.end_column if token.end_line == token.line and token.end_column else token.column + 1
    )
    span = Span(filename, token.line, token.column, token.line, end_col)
    return Diagnostic(
        SYNTAX, f"unexpected {found}; expected " + describe_expected(expected, _literal_of), span
    )


def _previous_token_end(text: str, pos: int) -> tuple[int, int, str] | None:
    """Line and column just after the last code character before `pos`, and its word."""
    lines = text[:pos].split("\n")
    for back in range(len(lines) - 1, -1, -1):
        code = _strip_comment(lines[back]).rstrip()
        if back == len(lines) - 1 and code == lines[back].rstrip():
            code = lines[back].rstrip()
        if code:
            word = code.split()[-1][-20:]
            return back + 1, len(code) + 1, word
    return None


def _unclosed_brace(text: str) -> tuple[int, int] | None:
    """Line and column of the innermost '{' that is never closed."""
    stack: list[tuple[int, int]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        in_string = False
        for col, char in enumerate(_strip_comment(line), start=1):
            if char == '"' and (col == 1 or line[col - 2] != "\\"):
                in_string = not in_string
            elif not in_string and char == "{":
                stack.append((number, col))
            elif not in_string and char == "}" and stack:
                stack.pop()
    return stack[-1] if stack else None


def _strip_comment(line: str) -> str:
    in_string = False
    for index, char in enumerate(line):
        if char == '"' and (index == 0 or line[index - 1] != "\\"):
            in_string = not in_string
        elif char == "#" and not in_string:
            return line[:index]
    return line


def _unquote(token: Token) -> str:
    body = str(token)[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    escapes = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "\\": "\\"}
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "u" and _is_hex(body[i + 2 : i + 6]):
                code = int(body[i + 2 : i + 6], 16)
                i += 6
                if (
                    0xD800 <= code <= 0xDBFF
                    and body[i : i + 2] == "\\u"
                    and _is_hex(body[i + 2 : i + 6])
                ):
                    low = int(body[i + 2 : i + 6], 16)
                    if (
                        0xDC00 <= low <= 0xDFFF
                    ):  # a UTF-16 pair written as two escapes: one character
                        out.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                        i += 6
                        continue
                if 0xD800 <= code <= 0xDFFF:
                    raise _BadEscape(
                        f"'\\u{code:04x}' is half of a surrogate pair, not a character",
                        token.line,
                        token.column + i - 5,
                    )
                out.append(chr(code))
                continue
            out.append(escapes.get(nxt, nxt))
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _is_hex(text: str) -> bool:
    return len(text) == 4 and all(c in "0123456789abcdefABCDEF" for c in text)


# Integers are 64-bit signed values; a longer literal is refused before `int()` reads it.
_MAX_INT_DIGITS = len(str(INT_LIMIT - 1))


def _int(token: Token) -> int:
    text = str(token)
    value = int(text) if len(text.lstrip("0")) <= _MAX_INT_DIGITS else INT_LIMIT
    if value >= INT_LIMIT:
        shown = text if len(text) <= 30 else f"{text[:12]}...({len(text)} digits)"
        raise _Refused(
            f"the integer {shown} is larger than the limit of {INT_LIMIT - 1} (2**63 - 1)",
            token.line,
            token.column,
        )
    return value


def _present(items) -> tuple:
    return tuple(item for item in items if item is not None)


class AstBuilder:
    """Builds AST nodes as the parser reduces; each method is named after a grammar alias.

    Lark calls a method with the rule's kept children; `here` is the span of the whole
    rule text, set just before by `_Measure`.
    """

    def __init__(self):
        self.filename = ""
        self.here = Span("", 0, 0, 0, 0)

    # files
    def start(self, ch):
        return ch[0]

    def game_file(self, ch):
        return ast.GameFile(_unquote(ch[0]), tuple(ch[1:]), self.here)

    def map_file(self, ch):
        return ast.MapFile(_unquote(ch[0]), _unquote(ch[1]), tuple(ch[2:]), self.here)

    def patch_file(self, ch):
        return ast.PatchFile(ch[0], _unquote(ch[1]), _unquote(ch[2]), tuple(ch[3:]), self.here)

    def part_file(self, ch):
        return ast.PartFile(_unquote(ch[0]), _unquote(ch[1]), tuple(ch[2:]), self.here)

    def _word(self, ch):
        return str(ch[0])

    patch_kind = removable = visibility = order = optional = _word

    # declarations
    def override_decl(self, ch):
        return ast.OverrideDecl(ch[0], self.here)

    def remove_decl(self, ch):
        name = _unquote(ch[1]) if ch[1].type == "STRING" else str(ch[1])
        return ast.RemoveDecl(ch[0], name, self.here)

    def extend_enum_decl(self, ch):
        return ast.ExtendEnumDecl(str(ch[0]), ch[1], self.here)

    def group_decl(self, ch):
        return ast.GroupDecl(str(ch[0]), ch[1], self.here)

    def extend_group_decl(self, ch):
        return ast.ExtendGroupDecl(str(ch[0]), ch[1], self.here)

    def players_decl(self, ch):
        return ast.PlayersDecl(_int(ch[0]), _int(ch[1]), self.here)

    def default_map_decl(self, ch):
        return ast.DefaultMapDecl(
            tuple(_unquote(c) for c in ch), self.here, tuple(self._at(c) for c in ch)
        )

    def default_bot_decl(self, ch):
        return ast.DefaultBotDecl(_unquote(ch[0]), self.here)

    def max_decisions_decl(self, ch):
        return ast.MaxDecisionsDecl(_int(ch[0]), self.here)

    def use_decl(self, ch):
        return ast.UseDecl(_unquote(ch[0]), self.here, self._at(ch[0]))

    def _at(self, token: Token) -> Span:
        return Span(self.filename, token.line, token.column, token.end_line, token.end_column)

    def requires_decl(self, ch):
        return ast.CombinationDecl(True, _unquote(ch[0]), self.here)

    def excludes_decl(self, ch):
        return ast.CombinationDecl(False, _unquote(ch[0]), self.here)

    def enum_decl(self, ch):
        base = str(ch[1]) if ch[1] is not None else None
        return ast.EnumDecl(str(ch[0]), base, ch[2], self.here)

    def enum_names(self, ch):
        return tuple(str(t) for t in ch if t is not None)

    def const_decl(self, ch):
        return ast.ConstDecl(str(ch[0]), ch[1], self.here)

    def schema_decl(self, ch):
        kinds = tuple(c for c in ch if isinstance(c, ast.KindDecl))
        checks = tuple(c for c in ch if isinstance(c, ast.CheckDecl))
        return ast.SchemaDecl(kinds, checks, self.here)

    def kind_decl(self, ch):
        return ast.KindDecl(str(ch[0]), _present(ch[1:]), self.here)

    def field_decl(self, ch):
        return ast.FieldDecl(str(ch[0]), ch[1], ch[2], self.here)

    def check_each_decl(self, ch):
        return ast.CheckDecl(_unquote(ch[0]), str(ch[1]), str(ch[2]), ch[3], ch[4], self.here)

    def check_decl(self, ch):
        return ast.CheckDecl(_unquote(ch[0]), None, None, None, ch[1], self.here)

    def state_decl(self, ch):
        return ast.StateDecl(False, tuple(ch), self.here)

    def per_player_decl(self, ch):
        return ast.StateDecl(True, tuple(ch), self.here)

    def field_spec(self, ch):
        return ast.FieldSpec(str(ch[0]), ch[1], ch[2] or "public", ch[3], self.here)

    def params(self, ch):
        return tuple(ch)

    action_params = args = params

    def param(self, ch):
        return ast.Param(str(ch[0]), ch[1], self.here)

    def action_param(self, ch):
        return ast.ActionParam(str(ch[0]), ch[1], ch[2], self.here)

    def function_expr_decl(self, ch):
        return ast.FunctionDecl(str(ch[0]), ch[1] or (), ch[2], None, ch[3], self.here)

    def function_decl(self, ch):
        return ast.FunctionDecl(str(ch[0]), ch[1] or (), ch[2], ch[3], None, self.here)

    def procedure_decl(self, ch):
        return ast.ProcedureDecl(str(ch[0]), ch[1] or (), ch[2], ch[3], self.here)

    def action_decl(self, ch):
        return ast.ActionDecl(str(ch[0]), ch[1] or (), ch[2], ch[3], self.here)

    def flow_decl(self, ch):
        return ast.FlowDecl(ch[0], ch[1], self.here)

    def score_decl(self, ch):
        return ast.ScoreDecl(str(ch[0]), ch[1], self.here)

    def rank_decl(self, ch):
        return ast.RankDecl(str(ch[0]), tuple(ch[1:]), self.here)

    def rank_key(self, ch):
        return ast.RankKey(ch[0], ch[1] == "desc", self.here)

    def bot_decl(self, ch):
        return ast.BotDecl(_unquote(ch[0]), tuple(ch[1:]), self.here)

    def bot_rule(self, ch):
        return ast.BotRule(str(ch[0]), ch[1], self.here)

    def invariant_decl(self, ch):
        return ast.InvariantDecl(_unquote(ch[0]), ch[1], self.here)

    def scenario_decl(self, ch):
        seed = _int(ch[2]) if ch[2] is not None else 0
        return ast.ScenarioDecl(_unquote(ch[0]), _int(ch[1]), seed, tuple(ch[3:]), self.here)

    # map data
    def map_item(self, ch):
        return ast.MapItem(str(ch[0]), ch[1], _present(ch[2:]), self.here)

    def elem_name(self, ch):
        return str(ch[0])

    def elem_string(self, ch):
        return _unquote(ch[0])

    def map_arg(self, ch):
        return ast.MapArg(str(ch[0]) if ch[0] is not None else None, ch[1], self.here)

    # types and domains
    def named_type(self, ch):
        return ast.NamedType(str(ch[0]), self.here)

    def player_type(self, ch):
        return ast.PlayerType(self.here)

    def optional_type(self, ch):
        return ast.OptionalType(ch[0], self.here)

    def range_type(self, ch):
        return ast.RangeType(ch[0], ch[1], ch[2], self.here)

    def _collection(kind):  # noqa: N805 - a method factory evaluated in the class body
        def build(self, ch):
            return ast.CollectionType(kind, ch[0], self.here)

        return build

    list_type = _collection("list")
    pile_type = _collection("pile")
    bag_type = _collection("bag")
    set_type = _collection("set")

    def map_type(self, ch):
        return ast.MapType(ch[0], ch[1], self.here)

    def type_domain(self, ch):
        return ast.TypeDomain(ch[0], self.here)

    def in_domain(self, ch):
        return ast.InDomain(ch[0], self.here)

    def subset_domain(self, ch):
        return ast.SubsetDomain(ch[0], ch[1], ch[2], self.here)

    # statements
    def block(self, ch):
        returns = bool(ch) and ch[-1] == "__bare_return__"
        stmts = tuple(c for c in ch if c is not None and c != "__bare_return__")
        return ast.Block(stmts, returns, self.here)

    def bare_return(self, ch):
        return "__bare_return__"

    def let_stmt(self, ch):
        return ast.Let(str(ch[0]), ch[1], ch[2], self.here)

    def assign_stmt(self, ch):
        return ast.Assign(ch[0], str(ch[1]), ch[2], self.here)

    def expr_stmt(self, ch):
        return ast.ExprStmt(ch[0], self.here)

    def return_stmt(self, ch):
        return ast.Return(ch[0], self.here)

    def break_stmt(self, ch):
        return ast.Break(self.here)

    def continue_stmt(self, ch):
        return ast.Continue(self.here)

    def draw_stmt(self, ch):
        return ast.Draw(ch[0], ch[1], ch[2], self.here)

    def move_stmt(self, ch):
        return ast.Move(ch[0], ch[1], ch[2], self.here)

    def shuffle_stmt(self, ch):
        return ast.Shuffle(ch[0], self.here)

    def end_game_stmt(self, ch):
        return ast.EndGame(self.here)

    def choose_stmt(self, ch):
        return ast.Choose(ch[0] is not None, str(ch[1]), ch[2], ch[3], ch[4], self.here)

    def each_choose_stmt(self, ch):
        return ast.EachChoose(str(ch[0]), ch[1], str(ch[2]), ch[3], ch[4], self.here)

    def choose_action_stmt(self, ch):
        orelse = ch[-1]
        names = tuple(str(t) for t in ch[1:-1])
        return ast.ChooseAction(ch[0], names, orelse, self.here)

    def each_choose_action_stmt(self, ch):
        return ast.EachChooseAction(str(ch[0]), ch[1], tuple(str(t) for t in ch[2:]), self.here)

    def if_stmt(self, ch):
        branches = [(ch[0], ch[1])]
        orelse = ch[-1]
        branches.extend(ch[2:-1])
        return ast.If(tuple(branches), orelse, self.here)

    def elif_clause(self, ch):
        return (ch[0], ch[1])

    def for_stmt(self, ch):
        return ast.For(str(ch[0]), ch[1], ch[2], ch[3], self.here)

    def repeat_stmt(self, ch):
        return ast.Repeat(ch[0], ch[1], self.here)

    def while_stmt(self, ch):
        return ast.While(ch[0], ch[1], self.here)

    def loop_stmt(self, ch):
        return ast.Loop(ch[0], self.here)

    def play_step(self, ch):
        return ast.Play(ch[0], str(ch[1]), ch[2] or (), self.here)

    def refuse_step(self, ch):
        return ast.Refuse(ch[0], str(ch[1]), ch[2] or (), self.here)

    def expect_step(self, ch):
        return ast.Expect(ch[0], self.here)

    # expressions
    def or_op(self, ch):
        return ast.BoolOp("or", ch[0], ch[1], self.here)

    def and_op(self, ch):
        return ast.BoolOp("and", ch[0], ch[1], self.here)

    def not_op(self, ch):
        return ast.Not(ch[0], self.here)

    def compare(self, ch):
        return ast.Compare(str(ch[1]), ch[0], ch[2], self.here)

    def in_op(self, ch):
        return ast.Compare("in", ch[0], ch[1], self.here)

    def not_in_op(self, ch):
        return ast.Compare("not in", ch[0], ch[1], self.here)

    def is_none(self, ch):
        return ast.IsNone(ch[0], False, self.here)

    def is_not_none(self, ch):
        return ast.IsNone(ch[0], True, self.here)

    def binop(self, ch):
        return ast.BinOp(str(ch[1]), ch[0], ch[2], self.here)

    def neg(self, ch):
        return ast.Neg(ch[0], self.here)

    def field(self, ch):
        return ast.Field(ch[0], str(ch[1]), self.here)

    def index(self, ch):
        return ast.Index(ch[0], ch[1], self.here)

    def call(self, ch):
        return ast.Call(str(ch[0]), ch[1] or (), self.here)

    def gen_call(self, ch):
        return ast.GenCall(str(ch[0]), ch[1], tuple(ch[2:]), self.here)

    def super_call(self, ch):
        return ast.SuperCall(ch[0] or (), self.here)

    def int_lit(self, ch):
        return ast.IntLit(_int(ch[0]), self.here)

    def str_lit(self, ch):
        return ast.StrLit(_unquote(ch[0]), self.here)

    def true_lit(self, ch):
        return ast.BoolLit(True, self.here)

    def false_lit(self, ch):
        return ast.BoolLit(False, self.here)

    def none_lit(self, ch):
        return ast.NoneLit(self.here)

    def players_lit(self, ch):
        return ast.PlayersLit(self.here)

    def me_lit(self, ch):
        return ast.MeLit(self.here)

    def name(self, ch):
        return ast.Name(str(ch[0]), self.here)

    def tuple_lit(self, ch):
        return ast.TupleLit(_present(ch), self.here)

    def cond_expr(self, ch):
        return ast.CondExpr(ch[1], ch[0], ch[2], self.here)

    def list_lit(self, ch):
        return ast.ListLit(_present(ch), self.here)

    def list_comp(self, ch):
        return ast.ListComp(ch[0], tuple(ch[1:]), self.here)

    def dict_lit(self, ch):
        return ast.DictLit(_present(ch), self.here)

    def dict_comp(self, ch):
        return ast.DictComp(ch[0], ch[1], tuple(ch[2:]), self.here)

    def dict_entry(self, ch):
        return (ch[0], ch[1])

    def comp_for(self, ch):
        return ast.CompFor(str(ch[0]), ch[1], ch[2], self.here)

    def range_expr(self, ch):
        return ast.RangeExpr(ch[0], ch[1], self.here)
