"""Labels, breakdowns and screen headings, from the checked program to data and functions.

- A map kind's label is computed here, when compiling, for every element (constant
  evaluation of its placeholders, each value shown the way the runtime shows it): the
  generated module holds the texts (`K_route__label`).
- An action's or choice's label is a function of its arguments (`label_<name>(a)`), which
  the arguments' descriptors carry (`AD_<name> = _v.ArgDescs((...), label_<name>)`), so
  `Action.label` reads it wherever the action is, without a game state.
- The breakdown is a function of the state and a player: (heading, text) per entry.
- How each state field is shown to people: its heading, whether it is bookkeeping.
"""

from __future__ import annotations

from compiler import ir
from compiler.builtin_rules import item_type
from compiler.checked import CheckedProgram
from compiler.consteval import EvalBudgetError, EvalError, Evaluator, MapData
from compiler.expr import (
    Attr,
    Call,
    Code,
    Comp,
    Cond,
    Const,
    Display,
    Expr,
    Index,
    Name,
    Paren,
    Starred,
    call,
    helper,
    walk,
)
from compiler.literals import ident
from compiler.lower_exprs import Env, ExprLowerer
from compiler.lower_stmts import LoweringContext
from compiler.printer import ir_expr
from compiler.types import (
    BoolT,
    CollT,
    ElemT,
    EnumT,
    GeoT,
    MapT,
    OptT,
    PlayerT,
    StrT,
    TupleT,
    Type,
    is_finite,
)
from dsl import ast
from dsl.diagnostics import LABEL, TOO_LARGE, Diagnostics
from runtime import values as v

X = ir_expr  # an IR expression of a node


def value_words(cp: CheckedProgram, enum: str) -> tuple[str, ...]:
    """How each value of an enum reads: declared words (here or on a base enum), else its name."""
    p = cp.program
    chain = []
    name: str | None = enum
    while name is not None and name in p.enums and name not in chain:
        chain.append(name)
        name = p.enums[name].base
    out = []
    for value in cp.enum_values[enum]:
        words = next(
            (p.enum_words[e][value] for e in chain if value in p.enum_words.get(e, {})), None
        )
        out.append(words if words is not None else v.plain_words(value))
    return tuple(out)


def declares_words(cp: CheckedProgram, enum: str) -> bool:
    """True if some value of the enum reads other than its name with spaces for `_`."""
    return value_words(cp, enum) != tuple(map(v.plain_words, cp.enum_values[enum]))


# ------------------------------------------------------------------ map kinds: when compiling


def element_labels(
    cp: CheckedProgram, data: MapData, evaluator: Evaluator, diags: Diagnostics
) -> dict[str, tuple[str, ...]]:
    """Each labelled kind's element texts, in `cp.label_kinds` order (errors at the placeholder)."""
    labels: dict[str, tuple[str, ...]] = {}
    evaluator.steps = 0  # the labels have a budget of their own, after the constants and checks
    for kind in cp.label_kinds:
        label = cp.program.kinds[kind].label
        fields = data.fields.get(kind, {})
        texts = []
        for index, element in enumerate(data.ids.get(kind, [])):
            env = {name: column[index] for name, column in fields.items()}
            env[kind] = index
            try:
                template = _chosen(label.text, evaluator, env)
                descs = [display_desc(cp, data, labels, cp.type_of(e)) for e in template.exprs]
                values = [evaluator.eval(e, env) for e in template.exprs]
            except EvalError as error:
                code = TOO_LARGE if isinstance(error, EvalBudgetError) else LABEL
                diags.error(
                    code,
                    f"the label of {kind} '{element}' cannot be computed: {error}",
                    error.node.span,
                )
                break
            texts.append(
                _fill(template.texts, [d.display(x) for d, x in zip(descs, values, strict=True)])
            )
        else:
            labels[kind] = tuple(texts)
    return labels


def _chosen(text: ast.Template | ast.LabelIf, evaluator: Evaluator, env: dict) -> ast.Template:
    """The template a label shows for one element (its conditions evaluated)."""
    while isinstance(text, ast.LabelIf):
        text = text.then if evaluator.eval(text.cond, env) else text.orelse
    return text


def _fill(texts: tuple[str, ...], shown: list[str]) -> str:
    out = [texts[0]]
    for value, text in zip(shown, texts[1:], strict=True):
        out += (value, text)
    return "".join(out)


def display_desc(cp: CheckedProgram, data: MapData, labels: dict, t: Type) -> v.Desc:
    """The runtime descriptor of a type, to show compile-time values as the game would."""
    if isinstance(t, BoolT):
        return v.BOOL
    if isinstance(t, StrT):
        return v.STR
    if isinstance(t, PlayerT):
        return v.PLAYER
    if isinstance(t, EnumT):
        return v.NamedD(tuple(cp.enum_values[t.name]), value_words(cp, t.name))
    if isinstance(t, ElemT):
        return v.NamedD(tuple(data.ids.get(t.kind, [])), labels.get(t.kind))
    if isinstance(t, OptT):
        return v.OptD(display_desc(cp, data, labels, t.inner))
    if isinstance(t, CollT) and t.kind == "set":
        return v.SetD(display_desc(cp, data, labels, t.item))
    if isinstance(t, CollT):  # a bag, when compiling, is a list of its items
        return v.ListD(display_desc(cp, data, labels, t.item))
    if isinstance(t, MapT):
        key, value = (display_desc(cp, data, labels, x) for x in (t.key, t.value))
        return v.MapD(key, value, None)
    if isinstance(t, TupleT):
        return v.TupleD(tuple(display_desc(cp, data, labels, i) for i in t.items))
    if isinstance(t, GeoT):
        return v.GeoD(t.kind)
    return v.INT  # IntT, AnyT


# ------------------------------------------------------------------ actions and choices: at run time


def label_functions(ctx: LoweringContext) -> tuple[list[ir.Function], list[ir.Assign]]:
    """The label function of every labelled action and choice, and the `AD_<name>` constants."""
    gen = ctx.gen
    p, cp = gen.p, gen.cp
    functions, constants = [], []
    for name, descs in ctx.labelled.items():
        if name in p.actions:
            decl = p.actions[name].active
            params = [param.name for param in decl.params]
            label = decl.label
        else:
            label, _ = cp.choice_labels[name]
            params = [name]
        functions.append(_label_function(gen, name, params, label))
        value = helper("_v", "ArgDescs", descs, Name(f"label_{ident(name)}"))
        constants.append(ir.Assign(X(Name(f"AD_{ident(name)}")), X(value)))
    return functions, constants


def _label_function(
    gen: ExprLowerer, name: str, params: list[str], label: ast.Label
) -> ir.Function:
    """`label_<name>(a)`: the label's text for the argument values `a`.

    A label reads no game state (pass `labels` checks it): `S` is only a fresh counter
    for the step budget of the walks and calls its placeholders make.
    """
    env = Env(frame=False)
    for param in params:
        env = env.bind(param)
    text = _text_code(gen, label.text, env)
    read = set(walk(text))
    body: list[ir.Stmt] = [  # only the arguments the label reads
        ir.Assign(X(env.local(param)), X(Index(Name("a"), Const(i))))
        for i, param in enumerate(params)
        if env.local(param) in read
    ]
    failed = f"the label of {name} cannot be shown for these values"
    body += _guarded(text, failed, label.span)
    return ir.Function(f"label_{ident(name)}", ["a"], body, label_scope=True)


def _guarded(value: Expr, failed: str, span) -> list[ir.Stmt]:
    """`return value`, a failure reported as a RuleError at `span`.

    The statements carry no span: what people read is no rule, so the coverage of the rules
    (metro/coverage.py, from the line map) leaves labels and breakdowns out.
    """
    raised = ir.RaiseRuleError(failed, span.file, span.line)
    return [ir.Try([ir.Return(X(value))], [raised])]


def _text_code(gen: ExprLowerer, text: ast.Template | ast.LabelIf, env: Env) -> Expr:
    """A label's text: a template, or a conditional choice of them."""
    if isinstance(text, ast.Template):
        return _template_code(gen, text, env)
    then, orelse = _text_code(gen, text.then, env), _text_code(gen, text.orelse, env)
    return Paren(Cond(then, gen.expr(text.cond, env), orelse))


def _template_code(gen: ExprLowerer, template: ast.Template, env: Env) -> Expr:
    """A template's texts and its placeholders' values joined as people read them."""
    parts: list[Expr] = [Const(template.texts[0])] if template.texts[0] else []
    for expr, text in zip(template.exprs, template.texts[1:], strict=True):
        parts.append(_display(gen, expr, gen.expr(expr, env)))
        if text:
            parts.append(Const(text))
    if not parts:
        return Const("")
    if len(parts) == 1:
        return parts[0] if template.texts[0] else call("str", parts[0])
    listed = Code(("(", *_commas(parts), ",)"))
    return Call(Attr(Const(""), "join"), (listed,))


def _display(gen: ExprLowerer, node: ast.Expr, value: Expr) -> Expr:
    """`value` (of `node`'s type) as people read it."""
    return Call(Attr(Name(gen.desc(gen.t(node))), "display"), (value,))


def _commas(parts: list[Expr]) -> list[str | Expr]:
    """The parts with `, ` between them (the inside of a tuple or call)."""
    out: list[str | Expr] = []
    for part in parts:
        out += [", ", part] if out else [part]
    return out


# ------------------------------------------------------------------ the breakdown and the fields


def breakdown_function(ctx: LoweringContext) -> ir.Function:
    """`breakdown(S, p)`: each entry's heading and value as text (an empty tuple if none)."""
    return _entries_function(ctx, ctx.gen.p.breakdown, "breakdown")


def display_function(ctx: LoweringContext) -> ir.Function | None:
    """`display(S, p)`: the rules' `display` entries of a player as (heading, text), if declared."""
    if ctx.gen.p.display is None:
        return None
    return _entries_function(ctx, ctx.gen.p.display, "display")


def _entries_function(ctx: LoweringContext, versions, name: str) -> ir.Function:
    gen = ctx.gen
    if versions is None:
        return ir.Function(name, ["S", "p"], [ir.Return(X(Display("tuple", ())))])
    decl = versions.active
    env = Env(frame=False).bind(decl.var)
    value = Display("tuple", tuple(_entry(gen, e, env) for e in decl.entries))
    body: list[ir.Stmt] = [ir.Assign(X(env.local(decl.var)), X(Name("p")))]
    body += _guarded(value, f"the {name} cannot be computed", decl.span)
    return ir.Function(name, ["S", "p"], body)


def _entry(gen: ExprLowerer, entry, env: Env) -> Expr:
    """One entry's `(heading, text)`, or for a `for` entry `*((heading, text) for …)`."""
    if entry.each is None:
        value = _display(gen, entry.expr, gen.expr(entry.expr, env))
        return Paren(Display("bare", (Const(entry.heading), value)))
    clauses, inner = gen.comp(entry.expr, (entry.each,), env)
    item = gen.desc(item_type(gen.t(entry.each.iterable)))
    heading = Call(Attr(Name(item), "display"), (inner.local(entry.each.var),))
    value = _display(gen, entry.expr, gen.expr(entry.expr, inner))
    pair = Paren(Display("bare", (heading, value)))
    return Starred(Paren(Comp("gen", pair, clauses)))


def field_display(gen: ExprLowerer) -> list[tuple]:
    """(name, heading, internal, key kind) of every state and player field, in layout order.

    The key kind (a map kind's or enum's name, or None) lets people's screens put the tables
    keyed by the same kind side by side.
    """
    out = []
    for table, types in (
        (gen.p.state, gen.cp.state_types),
        (gen.p.per_player, gen.cp.player_types),
    ):
        for name, spec in table.items():
            t = types[name]
            key = None
            if isinstance(t, MapT) and is_finite(t.key):
                key = t.key.kind if isinstance(t.key, ElemT) else getattr(t.key, "name", None)
            out.append((name, spec.heading, spec.internal, key))
    return out


def argument_headings(gen: ExprLowerer) -> dict[str, tuple[str, ...]]:
    """The words heading each action parameter's values where people pick them: its declared
    heading, else its kind's or enum's name in words, else its own name in words."""
    out = {}
    for name, versions in gen.p.actions.items():
        params = versions.active.params
        types = [gen.cp.signatures[name].params[i][1] for i in range(len(params))]
        out[name] = tuple(
            param.heading if param.heading is not None else _heading_of(param.name, t)
            for param, t in zip(params, types, strict=True)
        )
    return out


def _heading_of(name: str, t) -> str:
    """A parameter's words without a declared heading."""
    if isinstance(t, ElemT):
        return v.plain_words(t.kind)
    if isinstance(t, EnumT):
        return v.plain_words(t.name)
    return v.plain_words(name)


__all__ = [
    "argument_headings",
    "breakdown_function",
    "declares_words",
    "display_function",
    "element_labels",
    "field_display",
    "label_functions",
    "value_words",
]
