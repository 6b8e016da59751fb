"""Text to AST: the cached Lark parser, the tree transformer, and syntax diagnostics."""

from __future__ import annotations

import re
import sys
from functools import lru_cache

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from dsl import ast
from dsl.diagnostics import INPUT, SYNTAX, TOO_DEEP, Diagnostics
from dsl.source import SourceFile, Span
from dsl.syntax_errors import SEPARATORS, describe_expected

# Documented limits: a larger file or deeper nesting is refused with a diagnostic.
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_NESTING = 200
MAX_NODES_PER_DECL = 50_000


@lru_cache(maxsize=1)
def metro_parser() -> Lark:
    """The one Lark LALR parser for .metro files (built once per process)."""
    return Lark.open_from_package(
        "grammar",
        "metro.lark",
        ("",),
        parser="lalr",
        propagate_positions=True,
        maybe_placeholders=True,
        strict=True,
    )


def parse(text: str, filename: str) -> ast.File:
    """Parse one file; raise CompileError with diagnostics on any problem."""
    source = SourceFile(filename, text)
    diags = Diagnostics()
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        diags.error(INPUT, f"file is larger than the limit of {MAX_FILE_BYTES // 1024 // 1024} MiB",
                    Span.point(filename, 1, 1))
        diags.raise_if_errors({filename: source})
    bad = _first_control_character(text)
    if bad is not None:
        line, col = bad
        diags.error(INPUT, "the file contains a control character (binary data?)",
                    Span.point(filename, line, col))
        diags.raise_if_errors({filename: source})
    try:
        tree = metro_parser().parse(text, on_error=_soft_keyword)
    except UnexpectedInput as error:
        diags.items.append(_syntax_diagnostic(error, text, filename))
        diags.raise_if_errors({filename: source})
        raise  # unreachable: a syntax diagnostic is always an error
    deep = _too_deep(tree)
    if deep is not None:
        message, where = deep
        diags.error(TOO_DEEP, message, Span.point(filename, *where))
        diags.raise_if_errors({filename: source})
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 4 * MAX_NESTING + 1000))
    try:
        return AstBuilder(filename).transform(tree)
    finally:
        sys.setrecursionlimit(old_limit)


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
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        _fail_input(path, f"cannot read file: {error.strerror or error}")
    if len(data) > MAX_FILE_BYTES:
        _fail_input(path, f"file is larger than the limit of {MAX_FILE_BYTES // 1024 // 1024} MiB")
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


_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f]")


def _first_control_character(text: str) -> tuple[int, int] | None:
    found = _CONTROL.search(text)
    if found is None:
        return None
    index = found.start()
    before = text[:index]
    return before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1


def _too_deep(tree: Tree) -> tuple[str, tuple[int, int]] | None:
    """The first place nested deeper than MAX_NESTING, or a declaration of too many nodes."""
    # Iterative, so a 10,000-deep input cannot overflow the Python stack here.
    stack: list[tuple[Tree, int, list[int]]] = [(tree, 1, [0])]
    while stack:
        node, depth, count = stack.pop()
        meta = node.meta
        where = (getattr(meta, "line", 1), getattr(meta, "column", 1))
        if depth > MAX_NESTING:
            return f"nesting is deeper than the limit of {MAX_NESTING} levels", where
        count[0] += 1
        if count[0] > MAX_NODES_PER_DECL:
            return (f"a declaration is larger than the limit of {MAX_NODES_PER_DECL} nodes", where)
        # Each declaration (a child of the file) gets its own node budget.
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth + 1, [0] if depth <= 2 else count))
    return None


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
            return Diagnostic(SYNTAX, "the file ends before a '{' is closed", span,
                              notes=(f"the unclosed '{{' is at {filename}:{opener[0]}:{opener[1]}",))
        return Diagnostic(SYNTAX, "the file ends too early; expected "
                          + describe_expected(expected, _literal_of), span)
    assert isinstance(error, UnexpectedToken)
    literals = {_literal_of(name) for name in expected}
    missing = [SEPARATORS[lit] for lit in SEPARATORS if lit in literals]
    previous = _previous_token_end(text, token.start_pos)
    if previous is not None and missing and token.line != previous[0]:
        # Lark reports the next line's first token; the slip is at the end of the previous one.
        line, col, word = previous
        span = Span.point(filename, line, col)
        return Diagnostic(SYNTAX, f"missing {missing[0]} after '{word}'", span,
                          notes=(f"expected {describe_expected(expected, _literal_of)}",))
    found = f"'{token.value}'" if token.value else token.type
    end_col = token.end_column if token.end_line == token.line and token.end_column else token.column + 1
    span = Span(filename, token.line, token.column, token.line, end_col)
    return Diagnostic(SYNTAX, f"unexpected {found}; expected "
                      + describe_expected(expected, _literal_of), span)


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
            if nxt == "u" and i + 5 < len(body) + 0 and _is_hex(body[i + 2 : i + 6]):
                out.append(chr(int(body[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(escapes.get(nxt, nxt))
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _is_hex(text: str) -> bool:
    return len(text) == 4 and all(c in "0123456789abcdefABCDEF" for c in text)


def _present(items) -> tuple:
    return tuple(item for item in items if item is not None)


@v_args(meta=True)
class AstBuilder(Transformer):
    """Builds AST nodes; each method is named after a grammar alias."""

    def __init__(self, filename: str):
        super().__init__()
        self.filename = filename

    def span(self, meta) -> Span:
        """The span of a tree node."""
        if getattr(meta, "empty", True):
            return Span(self.filename, 0, 0, 0, 0)
        return Span(self.filename, meta.line, meta.column, meta.end_line, meta.end_column)

    def __default__(self, data, children, meta):
        raise NotImplementedError(f"no AST builder for grammar rule {data!r}")

    # files
    def start(self, meta, ch):
        return ch[0]

    def game_file(self, meta, ch):
        return ast.GameFile(_unquote(ch[0]), tuple(ch[1:]), self.span(meta))

    def map_file(self, meta, ch):
        return ast.MapFile(_unquote(ch[0]), _unquote(ch[1]), tuple(ch[2:]), self.span(meta))

    def patch_file(self, meta, ch):
        return ast.PatchFile(ch[0], _unquote(ch[1]), _unquote(ch[2]), tuple(ch[3:]), self.span(meta))

    def part_file(self, meta, ch):
        return ast.PartFile(_unquote(ch[0]), _unquote(ch[1]), tuple(ch[2:]), self.span(meta))

    def _word(self, meta, ch):
        return str(ch[0])

    patch_kind = removable = visibility = order = optional = _word

    # declarations
    def override_decl(self, meta, ch):
        return ast.OverrideDecl(ch[0], self.span(meta))

    def remove_decl(self, meta, ch):
        name = _unquote(ch[1]) if ch[1].type == "STRING" else str(ch[1])
        return ast.RemoveDecl(ch[0], name, self.span(meta))

    def extend_enum_decl(self, meta, ch):
        return ast.ExtendEnumDecl(str(ch[0]), ch[1], self.span(meta))

    def group_decl(self, meta, ch):
        return ast.GroupDecl(str(ch[0]), ch[1], self.span(meta))

    def extend_group_decl(self, meta, ch):
        return ast.ExtendGroupDecl(str(ch[0]), ch[1], self.span(meta))

    def players_decl(self, meta, ch):
        return ast.PlayersDecl(int(ch[0]), int(ch[1]), self.span(meta))

    def default_map_decl(self, meta, ch):
        return ast.DefaultMapDecl(tuple(_unquote(c) for c in ch), self.span(meta))

    def default_bot_decl(self, meta, ch):
        return ast.DefaultBotDecl(_unquote(ch[0]), self.span(meta))

    def max_decisions_decl(self, meta, ch):
        return ast.MaxDecisionsDecl(int(ch[0]), self.span(meta))

    def use_decl(self, meta, ch):
        return ast.UseDecl(_unquote(ch[0]), self.span(meta))

    def requires_decl(self, meta, ch):
        return ast.CombinationDecl(True, _unquote(ch[0]), self.span(meta))

    def excludes_decl(self, meta, ch):
        return ast.CombinationDecl(False, _unquote(ch[0]), self.span(meta))

    def enum_decl(self, meta, ch):
        base = str(ch[1]) if ch[1] is not None else None
        return ast.EnumDecl(str(ch[0]), base, ch[2], self.span(meta))

    def enum_names(self, meta, ch):
        return tuple(str(t) for t in ch if t is not None)

    def const_decl(self, meta, ch):
        return ast.ConstDecl(str(ch[0]), ch[1], self.span(meta))

    def schema_decl(self, meta, ch):
        kinds = tuple(c for c in ch if isinstance(c, ast.KindDecl))
        checks = tuple(c for c in ch if isinstance(c, ast.CheckDecl))
        return ast.SchemaDecl(kinds, checks, self.span(meta))

    def kind_decl(self, meta, ch):
        return ast.KindDecl(str(ch[0]), _present(ch[1:]), self.span(meta))

    def field_decl(self, meta, ch):
        return ast.FieldDecl(str(ch[0]), ch[1], ch[2], self.span(meta))

    def check_each_decl(self, meta, ch):
        return ast.CheckDecl(_unquote(ch[0]), str(ch[1]), str(ch[2]), ch[3], ch[4], self.span(meta))

    def check_decl(self, meta, ch):
        return ast.CheckDecl(_unquote(ch[0]), None, None, None, ch[1], self.span(meta))

    def state_decl(self, meta, ch):
        return ast.StateDecl(False, tuple(ch), self.span(meta))

    def per_player_decl(self, meta, ch):
        return ast.StateDecl(True, tuple(ch), self.span(meta))

    def field_spec(self, meta, ch):
        return ast.FieldSpec(str(ch[0]), ch[1], ch[2] or "public", ch[3], self.span(meta))

    def params(self, meta, ch):
        return tuple(ch)

    action_params = args = params

    def param(self, meta, ch):
        return ast.Param(str(ch[0]), ch[1], self.span(meta))

    def action_param(self, meta, ch):
        return ast.ActionParam(str(ch[0]), ch[1], ch[2], self.span(meta))

    def function_expr_decl(self, meta, ch):
        return ast.FunctionDecl(str(ch[0]), ch[1] or (), ch[2], None, ch[3], self.span(meta))

    def function_decl(self, meta, ch):
        return ast.FunctionDecl(str(ch[0]), ch[1] or (), ch[2], ch[3], None, self.span(meta))

    def procedure_decl(self, meta, ch):
        return ast.ProcedureDecl(str(ch[0]), ch[1] or (), ch[2], ch[3], self.span(meta))

    def action_decl(self, meta, ch):
        return ast.ActionDecl(str(ch[0]), ch[1] or (), ch[2], ch[3], self.span(meta))

    def flow_decl(self, meta, ch):
        return ast.FlowDecl(ch[0], ch[1], self.span(meta))

    def score_decl(self, meta, ch):
        return ast.ScoreDecl(str(ch[0]), ch[1], self.span(meta))

    def rank_decl(self, meta, ch):
        return ast.RankDecl(str(ch[0]), tuple(ch[1:]), self.span(meta))

    def rank_key(self, meta, ch):
        return ast.RankKey(ch[0], ch[1] == "desc", self.span(meta))

    def bot_decl(self, meta, ch):
        return ast.BotDecl(_unquote(ch[0]), tuple(ch[1:]), self.span(meta))

    def bot_rule(self, meta, ch):
        return ast.BotRule(str(ch[0]), ch[1], self.span(meta))

    def invariant_decl(self, meta, ch):
        return ast.InvariantDecl(_unquote(ch[0]), ch[1], self.span(meta))

    def scenario_decl(self, meta, ch):
        seed = int(ch[2]) if ch[2] is not None else 0
        return ast.ScenarioDecl(_unquote(ch[0]), int(ch[1]), seed, tuple(ch[3:]), self.span(meta))

    # map data
    def map_item(self, meta, ch):
        return ast.MapItem(str(ch[0]), ch[1], _present(ch[2:]), self.span(meta))

    def elem_name(self, meta, ch):
        return str(ch[0])

    def elem_string(self, meta, ch):
        return _unquote(ch[0])

    def map_arg(self, meta, ch):
        return ast.MapArg(str(ch[0]) if ch[0] is not None else None, ch[1], self.span(meta))

    # types and domains
    def named_type(self, meta, ch):
        return ast.NamedType(str(ch[0]), self.span(meta))

    def player_type(self, meta, ch):
        return ast.PlayerType(self.span(meta))

    def optional_type(self, meta, ch):
        return ast.OptionalType(ch[0], self.span(meta))

    def range_type(self, meta, ch):
        return ast.RangeType(ch[0], ch[1], ch[2], self.span(meta))

    def _collection(kind):  # noqa: N805 - a method factory evaluated in the class body
        def build(self, meta, ch):
            return ast.CollectionType(kind, ch[0], self.span(meta))

        return build

    list_type = _collection("list")
    pile_type = _collection("pile")
    bag_type = _collection("bag")
    set_type = _collection("set")

    def map_type(self, meta, ch):
        return ast.MapType(ch[0], ch[1], self.span(meta))

    def type_domain(self, meta, ch):
        return ast.TypeDomain(ch[0], self.span(meta))

    def in_domain(self, meta, ch):
        return ast.InDomain(ch[0], self.span(meta))

    def subset_domain(self, meta, ch):
        return ast.SubsetDomain(ch[0], ch[1], ch[2], self.span(meta))

    # statements
    def block(self, meta, ch):
        returns = bool(ch) and ch[-1] == "__bare_return__"
        stmts = tuple(c for c in ch if c is not None and c != "__bare_return__")
        return ast.Block(stmts, returns, self.span(meta))

    def bare_return(self, meta, ch):
        return "__bare_return__"

    def let_stmt(self, meta, ch):
        return ast.Let(str(ch[0]), ch[1], ch[2], self.span(meta))

    def assign_stmt(self, meta, ch):
        return ast.Assign(ch[0], str(ch[1]), ch[2], self.span(meta))

    def expr_stmt(self, meta, ch):
        return ast.ExprStmt(ch[0], self.span(meta))

    def return_stmt(self, meta, ch):
        return ast.Return(ch[0], self.span(meta))

    def break_stmt(self, meta, ch):
        return ast.Break(self.span(meta))

    def continue_stmt(self, meta, ch):
        return ast.Continue(self.span(meta))

    def draw_stmt(self, meta, ch):
        return ast.Draw(ch[0], ch[1], ch[2], self.span(meta))

    def move_stmt(self, meta, ch):
        return ast.Move(ch[0], ch[1], ch[2], self.span(meta))

    def shuffle_stmt(self, meta, ch):
        return ast.Shuffle(ch[0], self.span(meta))

    def end_game_stmt(self, meta, ch):
        return ast.EndGame(self.span(meta))

    def choose_stmt(self, meta, ch):
        return ast.Choose(ch[0] is not None, str(ch[1]), ch[2], ch[3], ch[4], self.span(meta))

    def each_choose_stmt(self, meta, ch):
        return ast.EachChoose(str(ch[0]), ch[1], str(ch[2]), ch[3], ch[4], self.span(meta))

    def choose_action_stmt(self, meta, ch):
        orelse = ch[-1]
        names = tuple(str(t) for t in ch[1:-1])
        return ast.ChooseAction(ch[0], names, orelse, self.span(meta))

    def each_choose_action_stmt(self, meta, ch):
        return ast.EachChooseAction(str(ch[0]), ch[1], tuple(str(t) for t in ch[2:]), self.span(meta))

    def if_stmt(self, meta, ch):
        branches = [(ch[0], ch[1])]
        orelse = ch[-1]
        branches.extend(ch[2:-1])
        return ast.If(tuple(branches), orelse, self.span(meta))

    def elif_clause(self, meta, ch):
        return (ch[0], ch[1])

    def for_stmt(self, meta, ch):
        return ast.For(str(ch[0]), ch[1], ch[2], ch[3], self.span(meta))

    def repeat_stmt(self, meta, ch):
        return ast.Repeat(ch[0], ch[1], self.span(meta))

    def while_stmt(self, meta, ch):
        return ast.While(ch[0], ch[1], self.span(meta))

    def loop_stmt(self, meta, ch):
        return ast.Loop(ch[0], self.span(meta))

    def play_step(self, meta, ch):
        return ast.Play(ch[0], str(ch[1]), ch[2] or (), self.span(meta))

    def refuse_step(self, meta, ch):
        return ast.Refuse(ch[0], str(ch[1]), ch[2] or (), self.span(meta))

    def expect_step(self, meta, ch):
        return ast.Expect(ch[0], self.span(meta))

    # expressions
    def or_op(self, meta, ch):
        return ast.BoolOp("or", ch[0], ch[1], self.span(meta))

    def and_op(self, meta, ch):
        return ast.BoolOp("and", ch[0], ch[1], self.span(meta))

    def not_op(self, meta, ch):
        return ast.Not(ch[0], self.span(meta))

    def compare(self, meta, ch):
        return ast.Compare(str(ch[1]), ch[0], ch[2], self.span(meta))

    def in_op(self, meta, ch):
        return ast.Compare("in", ch[0], ch[1], self.span(meta))

    def not_in_op(self, meta, ch):
        return ast.Compare("not in", ch[0], ch[1], self.span(meta))

    def is_none(self, meta, ch):
        return ast.IsNone(ch[0], False, self.span(meta))

    def is_not_none(self, meta, ch):
        return ast.IsNone(ch[0], True, self.span(meta))

    def binop(self, meta, ch):
        return ast.BinOp(str(ch[1]), ch[0], ch[2], self.span(meta))

    def neg(self, meta, ch):
        return ast.Neg(ch[0], self.span(meta))

    def field(self, meta, ch):
        return ast.Field(ch[0], str(ch[1]), self.span(meta))

    def index(self, meta, ch):
        return ast.Index(ch[0], ch[1], self.span(meta))

    def call(self, meta, ch):
        return ast.Call(str(ch[0]), ch[1] or (), self.span(meta))

    def gen_call(self, meta, ch):
        return ast.GenCall(str(ch[0]), ch[1], tuple(ch[2:]), self.span(meta))

    def super_call(self, meta, ch):
        return ast.SuperCall(ch[0] or (), self.span(meta))

    def int_lit(self, meta, ch):
        return ast.IntLit(int(ch[0]), self.span(meta))

    def str_lit(self, meta, ch):
        return ast.StrLit(_unquote(ch[0]), self.span(meta))

    def true_lit(self, meta, ch):
        return ast.BoolLit(True, self.span(meta))

    def false_lit(self, meta, ch):
        return ast.BoolLit(False, self.span(meta))

    def none_lit(self, meta, ch):
        return ast.NoneLit(self.span(meta))

    def players_lit(self, meta, ch):
        return ast.PlayersLit(self.span(meta))

    def me_lit(self, meta, ch):
        return ast.MeLit(self.span(meta))

    def name(self, meta, ch):
        return ast.Name(str(ch[0]), self.span(meta))

    def tuple_lit(self, meta, ch):
        return ast.TupleLit(_present(ch), self.span(meta))

    def cond_expr(self, meta, ch):
        return ast.CondExpr(ch[1], ch[0], ch[2], self.span(meta))

    def list_lit(self, meta, ch):
        return ast.ListLit(_present(ch), self.span(meta))

    def list_comp(self, meta, ch):
        return ast.ListComp(ch[0], tuple(ch[1:]), self.span(meta))

    def dict_lit(self, meta, ch):
        return ast.DictLit(_present(ch), self.span(meta))

    def dict_comp(self, meta, ch):
        return ast.DictComp(ch[0], ch[1], tuple(ch[2:]), self.span(meta))

    def dict_entry(self, meta, ch):
        return (ch[0], ch[1])

    def comp_for(self, meta, ch):
        return ast.CompFor(str(ch[0]), ch[1], ch[2], self.span(meta))

    def range_expr(self, meta, ch):
        return ast.RangeExpr(ch[0], ch[1], self.span(meta))
