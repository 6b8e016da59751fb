"""The AST builder: one method per grammar alias, building that rule's node as it reduces."""

from __future__ import annotations

from lark import Token

from dsl import ast
from dsl.literals import integer, unquote
from dsl.source import Span
from dsl.templates import read_template


def _present(items) -> tuple:
    return tuple(item for item in items if item is not None)


class AstBuilder:
    """Builds AST nodes as the parser reduces; each method is named after a grammar alias.

    Lark calls a method with the rule's kept children; `here` is the span of the whole
    rule text, set just before by `dsl.lark_hooks` as the rule reduces.
    """

    def __init__(self, parse_placeholder=None):
        self.filename = ""
        self.here = Span("", 0, 0, 0, 0)
        self.parse_placeholder = parse_placeholder  # text, line, column -> the expression

    # files
    def start(self, ch):
        return ch[0]

    def game_file(self, ch):
        return ast.GameFile(unquote(ch[0]), tuple(ch[1:]), self.here)

    def map_file(self, ch):
        return ast.MapFile(unquote(ch[0]), unquote(ch[1]), tuple(ch[2:]), self.here)

    def library_map_file(self, ch):
        return ast.MapFile(unquote(ch[0]), unquote(ch[1]), tuple(ch[2:]), self.here, True)

    def library_file(self, ch):
        return ast.LibraryFile(unquote(ch[0]), tuple(ch[1:]), self.here)

    def patch_file(self, ch):
        return ast.PatchFile(ch[0], unquote(ch[1]), unquote(ch[2]), tuple(ch[3:]), self.here)

    def part_file(self, ch):
        return ast.PartFile(unquote(ch[0]), unquote(ch[1]), tuple(ch[2:]), self.here)

    def _word(self, ch):
        return str(ch[0])

    patch_kind = removable = visibility = order = optional = _word

    # declarations
    def override_decl(self, ch):
        return ast.OverrideDecl(ch[0], self.here)

    def relabel_kind_decl(self, ch):
        return ast.RelabelKindDecl(str(ch[0]), ch[1], self.here)

    def remove_decl(self, ch):
        name = unquote(ch[1]) if ch[1].type == "STRING" else str(ch[1])
        return ast.RemoveDecl(ch[0], name, self.here)

    def extend_enum_decl(self, ch):
        names, words = ch[1]
        return ast.ExtendEnumDecl(str(ch[0]), names, self.here, words)

    def group_decl(self, ch):
        return ast.GroupDecl(str(ch[0]), ch[1], self.here)

    def extend_group_decl(self, ch):
        return ast.ExtendGroupDecl(str(ch[0]), ch[1], self.here)

    def players_decl(self, ch):
        return ast.PlayersDecl(integer(ch[0]), integer(ch[1]), self.here)

    def default_map_decl(self, ch):
        return ast.DefaultMapDecl(
            tuple(unquote(c) for c in ch), self.here, tuple(self._at(c) for c in ch)
        )

    def default_bot_decl(self, ch):
        return ast.DefaultBotDecl(unquote(ch[0]), self.here)

    def level_decl(self, ch):
        return ast.LevelDecl(str(ch[0]), unquote(ch[1]), self.here, self._at(ch[1]))

    def max_decisions_decl(self, ch):
        return ast.MaxDecisionsDecl(integer(ch[0]), self.here)

    def use_decl(self, ch):
        return ast.UseDecl(unquote(ch[0]), self.here, self._at(ch[0]))

    def use_library_decl(self, ch):
        return ast.UseLibraryDecl(unquote(ch[0]), self.here, self._at(ch[0]))

    def _at(self, token: Token) -> Span:
        return Span(self.filename, token.line, token.column, token.end_line, token.end_column)

    def requires_decl(self, ch):
        return ast.CombinationDecl(True, unquote(ch[0]), self.here)

    def excludes_decl(self, ch):
        return ast.CombinationDecl(False, unquote(ch[0]), self.here)

    def enum_decl(self, ch):
        base = str(ch[1]) if ch[1] is not None else None
        names, words = ch[2]
        return ast.EnumDecl(str(ch[0]), base, names, self.here, words)

    def enum_values(self, ch):
        values = [c for c in ch if c is not None]
        words = tuple(word for _, word in values)
        return tuple(name for name, _ in values), words if any(words) else ()

    def enum_value(self, ch):
        return str(ch[0]), (unquote(ch[1]) if ch[1] is not None else None)

    def enum_names(self, ch):
        return tuple(str(t) for t in ch if t is not None)

    def const_decl(self, ch):
        return ast.ConstDecl(str(ch[0]), ch[1], self.here)

    def schema_decl(self, ch):
        kinds = tuple(c for c in ch if isinstance(c, ast.KindDecl))
        checks = tuple(c for c in ch if isinstance(c, ast.CheckDecl))
        draws = tuple(c for c in ch if isinstance(c, ast.DrawDecl))
        return ast.SchemaDecl(kinds, checks, self.here, draws)

    def kind_decl(self, ch):
        label = ch[-1] if isinstance(ch[-1], ast.Label) else None
        fields = tuple(c for c in ch[1:] if isinstance(c, ast.FieldDecl))
        return ast.KindDecl(str(ch[0]), fields, self.here, label)

    def label(self, ch):
        return ast.Label(ch[0], self.here)

    def label_if(self, ch):
        return ast.LabelIf(ch[1], ch[0], ch[2], self.here)

    def template(self, ch):
        return read_template(ch[0], self.filename, self.parse_placeholder)

    def template_expr(self, ch):
        return ch[0]

    def field_decl(self, ch):
        return ast.FieldDecl(str(ch[0]), ch[1], ch[2], self.here)

    def check_each_decl(self, ch):
        return ast.CheckDecl(unquote(ch[0]), str(ch[1]), str(ch[2]), ch[3], ch[4], self.here)

    def check_decl(self, ch):
        return ast.CheckDecl(unquote(ch[0]), None, None, None, ch[1], self.here)

    def draw_decl(self, ch):
        name, bindings, shape, *props = ch
        return ast.DrawDecl(unquote(name), bindings or (), shape, tuple(props), self.here)

    def draw_bindings(self, ch):
        return tuple(ch)

    def draw_binding(self, ch):
        return ast.DrawBinding(str(ch[0]), ch[1], ch[2], self.here)

    def point_shape(self, ch):
        return ast.DrawShape("point", tuple(ch), self.here)

    def line_shape(self, ch):
        return ast.DrawShape("line", tuple(ch), self.here)

    def along_shape(self, ch):
        return ast.DrawShape("along", tuple(ch), self.here)

    def path_shape(self, ch):
        return ast.DrawShape("path", tuple(ch), self.here)

    def rect_shape(self, ch):
        return ast.DrawShape("rect", tuple(ch), self.here)

    def box_shape(self, ch):
        return ast.DrawShape("box", tuple(ch), self.here)

    def text_shape(self, ch):
        return ast.DrawShape("text", tuple(ch), self.here)

    def draw_prop(self, ch):
        return ast.DrawProp(ch[0], ch[1], self.here)

    def draw_prop_name(self, ch):
        return str(ch[0])

    def state_decl(self, ch):
        return ast.StateDecl(False, tuple(ch), self.here)

    def per_player_decl(self, ch):
        return ast.StateDecl(True, tuple(ch), self.here)

    def field_spec(self, ch):
        shown = ch[3] or ("", None)
        return ast.FieldSpec(
            str(ch[0]),
            ch[1],
            ch[2] or "public",
            ch[4],
            self.here,
            heading=shown[1],
            internal=shown[0] == "internal",
        )

    def heading(self, ch):
        return ("heading", unquote(ch[0]))

    def internal(self, ch):
        return ("internal", None)

    def params(self, ch):
        return tuple(ch)

    action_params = args = params

    def param(self, ch):
        return ast.Param(str(ch[0]), ch[1], self.here)

    def action_param(self, ch):
        heading = unquote(ch[2]) if ch[2] is not None else None
        return ast.ActionParam(str(ch[0]), ch[1], ch[3], self.here, heading=heading)

    def function_expr_decl(self, ch):
        return ast.FunctionDecl(str(ch[0]), ch[1] or (), ch[2], None, ch[3], self.here)

    def function_decl(self, ch):
        return ast.FunctionDecl(str(ch[0]), ch[1] or (), ch[2], ch[3], None, self.here)

    def procedure_decl(self, ch):
        return ast.ProcedureDecl(str(ch[0]), ch[1] or (), ch[2], ch[3], self.here)

    def action_decl(self, ch):
        return ast.ActionDecl(str(ch[0]), ch[1] or (), ch[3], ch[4], self.here, ch[2])

    def flow_decl(self, ch):
        return ast.FlowDecl(ch[0], ch[1], self.here)

    def score_decl(self, ch):
        return ast.ScoreDecl(str(ch[0]), ch[1], self.here)

    def breakdown_decl(self, ch):
        return ast.BreakdownDecl(str(ch[0]), tuple(ch[1:]), self.here)

    def display_decl(self, ch):
        return ast.DisplayDecl(str(ch[0]), tuple(ch[1:]), self.here)

    def breakdown_entry(self, ch):
        return ast.BreakdownEntry(unquote(ch[0]), ch[1], self.here)

    def breakdown_each(self, ch):
        return ast.BreakdownEntry("", ch[1], self.here, each=ch[0])

    def estimate_decl(self, ch):
        return ast.EstimateDecl(str(ch[0]), ch[1], self.here)

    def metric_decl(self, ch):
        return ast.MetricDecl(unquote(ch[0]), str(ch[1]), ch[2], self.here)

    def rank_decl(self, ch):
        return ast.RankDecl(str(ch[0]), tuple(ch[1:]), self.here)

    def rank_key(self, ch):
        return ast.RankKey(ch[0], ch[1] == "desc", self.here)

    def bot_decl(self, ch):
        return ast.BotDecl(unquote(ch[0]), tuple(ch[1:]), self.here)

    def bot_rule(self, ch):
        return ast.BotRule(str(ch[0]), ch[1], self.here)

    def invariant_decl(self, ch):
        return ast.InvariantDecl(unquote(ch[0]), ch[1], self.here)

    def scenario_decl(self, ch):
        seed = integer(ch[2]) if ch[2] is not None else 0
        return ast.ScenarioDecl(unquote(ch[0]), integer(ch[1]), seed, tuple(ch[3:]), self.here)

    # map data
    def map_item(self, ch):
        return ast.MapItem(str(ch[0]), ch[1], _present(ch[2:]), self.here)

    def elem_name(self, ch):
        return str(ch[0])

    def elem_string(self, ch):
        return unquote(ch[0])

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

    def _collection(kind):
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
        return ast.Choose(ch[0] is not None, str(ch[1]), ch[2], ch[3], ch[4], self.here, ch[5])

    def each_choose_stmt(self, ch):
        return ast.EachChoose(str(ch[0]), ch[1], str(ch[2]), ch[3], ch[4], self.here, ch[5])

    def choose_action_stmt(self, ch):
        orelse = ch[-1]
        names = tuple(str(t) for t in ch[1:-1])
        spans = tuple(self._at(t) for t in ch[1:-1])
        return ast.ChooseAction(ch[0], names, orelse, self.here, spans)

    def each_choose_action_stmt(self, ch):
        names, spans = tuple(str(t) for t in ch[2:]), tuple(self._at(t) for t in ch[2:])
        return ast.EachChooseAction(str(ch[0]), ch[1], names, self.here, spans)

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

    def chance_step(self, ch):
        return ast.ChanceStep(ch[0], self.here)

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
        return ast.IntLit(integer(ch[0]), self.here)

    def str_lit(self, ch):
        return ast.StrLit(unquote(ch[0]), self.here)

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
