"""Pass `lower` (module): the checked program as one `ir.Module`.

Input: the checked program, its map data and constant evaluator. Output: the IR module —
the state layout, functions and procedures (frames for those that wait), actions, decision
sites, scoring, scenarios, invariants and bots — plus diagnostics for constants that cannot
be computed and for limits found while lowering.
"""

from __future__ import annotations

import dataclasses

from compiler import ir
from compiler.chance_bound import chance_bound
from compiler.checked import CheckedProgram
from compiler.consteval import EvalBudgetError, EvalError, Evaluator, MapData
from compiler.cost import StepCosts
from compiler.expr import (
    ME,
    PLAYER_COUNT,
    Attr,
    BinOp,
    Call,
    Comp,
    Cond,
    Const,
    Display,
    Expr,
    For,
    Helper,
    Index,
    Local,
    Name,
    Pair,
    Paren,
    S,
    StateField,
    Unary,
    call,
    helper,
)
from compiler.literals import ident
from compiler.lower import FrameLowerer, lower_action
from compiler.lower_draws import lower_draws
from compiler.lower_exprs import Env, ExprLowerer, spot
from compiler.lower_labels import (
    argument_headings,
    breakdown_function,
    declares_words,
    display_function,
    field_display,
    label_functions,
    value_words,
)
from compiler.lower_stmts import LoweringContext, StmtLowerer
from compiler.printer import ir_expr, py
from compiler.program import Program, Versions
from compiler.sizes import Sizes
from compiler.types import (
    INT,
    BoolT,
    CollT,
    ElemT,
    EnumT,
    GeoT,
    IntT,
    MapT,
    OptT,
    PlayerT,
    StrT,
    TupleT,
    Type,
    is_finite,
)
from dsl import ast
from dsl.diagnostics import TOO_LARGE, TYPE, Diagnostics
from dsl.visitor import walk

X = ir_expr  # an IR expression of a node
P = Name("p")  # the player a scoring or player function is given


def lower_program(
    cp: CheckedProgram,
    data: MapData,
    evaluator: Evaluator,
    sizes: Sizes,
    costs: StepCosts,
    diags: Diagnostics,
) -> ir.Module:
    """The IR module of a checked program, its walks charged by `costs` (errors go to `diags`)."""
    ctx = LoweringContext(ExprLowerer(cp, data, evaluator, sizes, costs))
    p = cp.program
    ctx.gen.enum_words = {name for name in cp.enum_values if declares_words(cp, name)}
    consts = []
    for name, versions in p.consts.items():
        try:
            consts.append((name, evaluator.const(name, versions.active)))
        except EvalError as error:
            kind = TOO_LARGE if isinstance(error, EvalBudgetError) else (error.code or TYPE)
            diags.error(
                kind, f"const '{name}' cannot be computed before the game: {error}", error.node.span
            )
    fields = _fields(ctx)
    functions = _callables(ctx)
    actions = [
        lower_action(ctx, name, versions.active, len(versions.versions) - 1)
        for name, versions in p.actions.items()
    ]
    flow_procs = []
    if p.flow is not None:
        flow = p.flow.active
        for pyname, block in (("s__flow", flow.body), ("s__final", flow.final)):
            if block is not None:
                flow_procs.append(FrameLowerer(ctx, pyname, "flow", ("flow", 0)).lower(block))
    score, rank_key = _scoring(ctx)
    labels, arg_descs = label_functions(ctx)
    breakdown = breakdown_function(ctx)
    module = ir.Module(
        enums=[(n, tuple(v)) for n, v in cp.enum_values.items()],
        tables=[
            (kind, tuple(data.ids[kind]), [(f, tuple(v)) for f, v in data.fields[kind].items()])
            for kind in p.kinds
        ],
        consts=consts,
        fields=fields,
        functions=functions,
        actions=actions,
        sites=ctx.sites,
        score=score,
        rank_key=rank_key,
        scenarios=_scenarios(ctx),
        invariants=_invariants(ctx),
        bots=_bots(ctx),
        action_descs={name: (py(d), rank) for name, (d, rank) in ctx.action_descs.items()},
        flow_procs=flow_procs,
        has_final=p.flow is not None and p.flow.active.final is not None,
        descriptors=ctx.gen.descriptors,
        draws=lower_draws(ctx),
        named_values=sorted(
            ctx.gen.named_values.items(), key=lambda entry: (entry[0].split("__")[0], entry[1])
        ),
        enum_words={name: value_words(cp, name) for name in sorted(ctx.gen.enum_words)},
        element_labels=data.labels,
        labels=labels,
        arg_descs=arg_descs,
        breakdown=breakdown,
        display=display_function(ctx),
        field_display=field_display(ctx.gen),
        argument_headings=argument_headings(ctx.gen),
        estimate=_estimate(ctx),
        metrics=_metrics(ctx),
        guard_tables=ctx.guard_tables().constants,
        indexes=[i for i in ctx.indexes.values() if i.field in ctx.guard_tables().walked],
        views=list(ctx.guard_tables().views.values()),
        action_tables=ctx.action_tables,
        chance_bound=chance_bound(ctx.gen),
    )
    tested = {
        ctx.gen.version_name(prefix, name, version)
        for name in _scenario_only(p)
        for prefix in ("f", "p")
        for version in range(len((p.functions.get(name) or p.procedures[name]).versions))
    }
    module.scenario_functions = [
        f for f in module.functions if isinstance(f, ir.Function) and f.name in tested
    ]
    module.functions = [f for f in module.functions if f not in module.scenario_functions]
    for message, span in dict.fromkeys(ctx.errors):
        diags.error(TOO_LARGE, message, span)
    return module


# ------------------------------------------------------------------ the state layout


def _fields(ctx: LoweringContext) -> list[ir.Field]:
    """The state layout; computed in the order the descriptor constants are numbered by."""
    gen = ctx.gen
    p, cp = gen.p, gen.cp
    specs = [(n, s, cp.state_types[n], f"g_{ident(n)}", False) for n, s in p.state.items()]
    specs += [(n, s, cp.player_types[n], f"p_{ident(n)}", True) for n, s in p.per_player.items()]
    inits = []
    for _, spec, t, _, per_player in specs:
        init = _init_code(gen, t, spec.init)
        each = (For(Local("_p"), call("range", PLAYER_COUNT)),)
        inits.append(Comp("list", init, each) if per_player else init)
    descs = [gen.desc(t) for _, _, t, _, _ in specs]
    saves = [_save_desc(gen, t, spec.type) for _, spec, t, _, _ in specs]
    out = []
    for (name, spec, t, slot, per_player), init, desc, save in zip(
        specs, inits, descs, saves, strict=True
    ):
        if per_player:
            item = Local("_x")
            inner = _copy_code(t, item)
            whole = StateField(slot)
            copy = _whole_copy(whole) if inner == item else _copied_items(inner, item, whole)
        else:
            copy = _copy_code(t, StateField(slot))
        out.append(
            ir.Field(
                name, slot, per_player, X(init), X(copy), desc, save, spec.visibility, spec.span
            )
        )
    return out


def _init_code(gen: ExprLowerer, t: Type, init) -> Expr:
    if init is not None:
        value = gen.expr(init, Env(frame=False))
        return gen.convert(value, gen.t(init), t) if isinstance(t, CollT | MapT) else value
    if isinstance(t, IntT):
        return Const(0)
    if isinstance(t, BoolT):
        return Const(False)
    if isinstance(t, StrT):
        return Const("")
    if isinstance(t, OptT):
        return Const(None)
    if isinstance(t, CollT):
        if t.kind == "bag":
            return BinOp(Display("list", (Const(0),)), "*", gen.size_of(t.item))
        return call("set") if t.kind == "set" else Display("list", ())
    if isinstance(t, MapT):
        if not is_finite(t.key):
            return Display("dict", ())
        each = (For(Local("_k"), call("range", gen.size_of(t.key))),)
        return Comp("list", _init_code(gen, t.value, None), each)
    if isinstance(t, TupleT):
        return Display("tuple", tuple(_init_code(gen, i, None) for i in t.items))
    if isinstance(t, GeoT) and t.kind == "building":
        return Call(Attr(Helper("_shapes", "Building"), "empty"), ())
    if isinstance(t, GeoT) and t.kind == "frame":
        return helper("_shapes", "Frame", Display("tuple", ()))
    return Const(None) if isinstance(t, GeoT) else Const(0)


def _copy_code(t: Type, code: Expr, depth: int = 0) -> Expr:
    if isinstance(t, CollT):
        if t.kind == "set":
            return call("set", code)
        if _immutable(t.item):
            return _whole_copy(code)
        item = Local(f"_c{depth}")
        return _copied_items(_copy_code(t.item, item, depth + 1), item, code)
    if isinstance(t, MapT):
        if not is_finite(t.key):
            key, value = Local("_k"), Local("_w")
            pair = Pair(key, _copy_code(t.value, value, depth + 1))
            items = Call(Attr(code, "items"), ())
            return Comp("dict", pair, (For(Display("bare", (key, value)), items),))
        if _immutable(t.value):
            return _whole_copy(code)
        item = Local(f"_c{depth}")
        return _copied_items(_copy_code(t.value, item, depth + 1), item, code)
    if isinstance(t, OptT) and not _immutable(t.inner):
        copied = _copy_code(t.inner, code, depth)
        return Paren(Cond(Const(None), BinOp(code, "is", Const(None)), copied))
    return code


def _copied_items(inner: Expr, item: Local, code: Expr) -> Expr:
    """A list of `inner` for each `item` of `code`; `list(map(list.copy, code))` when each item
    is a list copied whole (a list, or a table with an entry per key, is always stored as a
    Python list: lowering's `convert` makes one), which makes no Python frame per copy."""
    if inner == _whole_copy(item):
        return call("list", call("map", Attr(Name("list"), "copy"), code))
    return Comp("list", inner, (For(item, code),))


def _whole_copy(code: Expr) -> Expr:
    """`code.copy()`: a copy of a list of values that never change (a method call costs less
    than a slice, which makes a slice object first)."""
    return Call(Attr(code, "copy"), ())


def _immutable(t: Type) -> bool:
    if isinstance(t, OptT):
        return _immutable(t.inner)
    if isinstance(t, TupleT):
        return all(_immutable(i) for i in t.items)
    return isinstance(t, IntT | BoolT | StrT | EnumT | ElemT | PlayerT | GeoT)


def _save_desc(gen: ExprLowerer, t: Type, node: ast.TypeExpr) -> str:
    """The descriptor a save's field is decoded with: the field's own, plus its declared int ranges."""
    if isinstance(node, ast.RangeType) and isinstance(t, IntT):
        bounds = [_const_int(gen, b) for b in (node.lo, node.hi)]
        step = 1 if node.step is None else _const_int(gen, node.step)
        if None in bounds or step is None or step < 1:
            return gen.desc(t)
        return gen.extra_desc(
            helper("_v", "RangeD", Const(bounds[0]), Const(bounds[1]), Const(step))
        )
    if isinstance(node, ast.OptionalType) and isinstance(t, OptT):
        inner = _save_desc(gen, t.inner, node.inner)
        return (
            gen.desc(t)
            if inner == gen.desc(t.inner)
            else gen.extra_desc(helper("_v", "OptD", Name(inner)))
        )
    if isinstance(node, ast.CollectionType) and isinstance(t, CollT) and t.kind in ("list", "pile"):
        item = _save_desc(gen, t.item, node.item)
        return (
            gen.desc(t)
            if item == gen.desc(t.item)
            else gen.extra_desc(helper("_v", "ListD", Name(item)))
        )
    if isinstance(node, ast.MapType) and isinstance(t, MapT):
        value = _save_desc(gen, t.value, node.value)
        if value == gen.desc(t.value):
            return gen.desc(t)
        size = gen.size_of(t.key) if is_finite(t.key) else Const(None)
        size = Const(0) if size == PLAYER_COUNT else size
        return gen.extra_desc(helper("_v", "MapD", Name(gen.desc(t.key)), Name(value), size))
    return gen.desc(t)


def _const_int(gen: ExprLowerer, node: ast.Expr) -> int | None:
    try:
        value = gen.evaluator.eval(node, {})
    except EvalError:
        return None
    return value if type(value) is int else None


# ------------------------------------------------------------------ functions and procedures


def _callables(ctx: LoweringContext) -> list[ir.Function | ir.FrameProc]:
    gen = ctx.gen
    p, cp = gen.p, gen.cp
    plain = StmtLowerer(ctx)
    out: list[ir.Function | ir.FrameProc] = []
    for name, versions in p.functions.items():
        for version, decl in enumerate(versions.versions):
            env = Env(frame=False, within=(name, version))
            if decl.expr is not None:
                body = [ir.Return(X(gen.expr(decl.expr, env)), decl.expr.span)]
            else:
                body = plain.block(decl.body.stmts, env, decl.body.returns)
            params = ["S"] + [f"v_{ident(x.name)}" for x in decl.params]
            body = _entry_charge(gen, name, version, versions, decl) + body
            out.append(ir.Function(gen.version_name("f", name, version), params, body, decl.span))
    for name, versions in p.procedures.items():
        for version, decl in enumerate(versions.versions):
            within = (name, version)
            if name in cp.suspends:
                pyname = gen.version_name("s", name, version)
                proc = FrameLowerer(ctx, pyname, name, within).lower(decl.body)
                proc.blocks[0][:0] = _entry_charge(gen, name, version, versions, decl)
                proc.params = [x.name for x in decl.params]
                out.append(proc)
                continue
            env = Env(frame=False, within=within)
            body = plain.block(decl.body.stmts, env, decl.body.returns)
            params = ["S"] + [f"v_{ident(x.name)}" for x in decl.params]
            body = _entry_charge(gen, name, version, versions, decl) + body
            out.append(ir.Function(gen.version_name("p", name, version), params, body, decl.span))
    return out


def _entry_charge(gen: ExprLowerer, name: str, version: int, versions, decl) -> list[ir.Stmt]:
    """The charge a call of `name` makes when it starts, if its body costs more than runs free.

    Only the newest version is called by name; older ones run through `super`, inside its cost.
    """
    steps = gen.costs.entry_charge(name)
    if not steps or version != len(versions.versions) - 1:
        return []
    return [ir.Eval(X(helper("_l", "spend", S, Const(steps), spot(gen.p, decl.span))), decl.span)]


def _scoring(ctx: LoweringContext) -> tuple[ir.Function, ir.Function]:
    gen = ctx.gen
    p = gen.p
    body: list[ir.Stmt] = [ir.Return(X(Const(0)))]
    if p.score is not None:
        decl = p.score.active
        env = Env(frame=False).bind(decl.var)
        value = gen.checked(gen.expr(decl.expr, env), decl.expr, INT)
        body = [ir.Return(X(value), decl.expr.span)]
        if _reads(decl.expr, decl.var):
            body.insert(0, ir.Assign(X(env.local(decl.var)), X(P)))
    score = ir.Function("score", ["S", "p"], body)
    body = [ir.Return(X(Paren(Display("bare", (Unary("-", Call(Name("score"), (S, P))),)))))]
    if p.rank is not None:
        decl = p.rank.active
        env = Env(frame=False).bind(decl.var)
        keys = []
        for key in decl.keys:
            code = _int_value(gen.expr(key.expr, env))
            keys.append(Unary("-", code) if key.descending else code)
        value = Display("tuple", tuple(keys))
        body = [ir.Return(X(value), decl.span)]
        if any(_reads(key.expr, decl.var) for key in decl.keys):
            body.insert(0, ir.Assign(X(env.local(decl.var)), X(P)))
    return score, ir.Function("rank_key", ["S", "p"], body)


def _int_value(code: Expr) -> Expr:
    """`code`'s value as an integer: int() makes a truth value a count; the range check keeps
    every result a 64-bit integer."""
    return helper("_l", "int_ok", call("int", code))


def _player_function(ctx: LoweringContext, name: str, var: str, expr: ast.Expr) -> ir.Function:
    """`name(S, p)`: the integer value of `expr` for the player `p` bound to `var`."""
    gen = ctx.gen
    env = Env(frame=False).bind(var)
    # int() makes a truth value a count; the range check keeps every result a 64-bit integer.
    value = _int_value(gen.expr(expr, env))
    body: list[ir.Stmt] = [ir.Return(X(value), expr.span)]
    if _reads(expr, var):
        body.insert(0, ir.Assign(X(env.local(var)), X(P)))
    return ir.Function(name, ["S", "p"], body)


def _int_value(code: Expr) -> Expr:
    """`_l.int_ok(int(code))`: int() makes a truth value a count; the range check keeps every
    result a 64-bit integer."""
    return helper("_l", "int_ok", call("int", code))


def _estimate(ctx: LoweringContext) -> ir.Function | None:
    decl = ctx.gen.p.estimate
    if decl is None:
        return None
    return _player_function(ctx, "estimate", decl.active.var, decl.active.expr)


def _metrics(ctx: LoweringContext) -> list[tuple[str, ir.Function]]:
    return [
        (decl.name, _player_function(ctx, f"metric_{i}", decl.var, decl.expr))
        for i, decl in enumerate(ctx.gen.p.metrics.values())
    ]


def _scenarios(ctx: LoweringContext) -> list[tuple[ir.Function, tuple]]:
    plain = StmtLowerer(ctx)
    out = []
    for index, decl in enumerate(ctx.gen.p.scenarios.values()):
        body = plain.block(decl.steps, Env(frame=False, within=("scenario", 0)))
        info = (decl.name, decl.players, decl.seed, decl.span.file, decl.span.line)
        out.append((ir.Function(f"scenario_{index}", ["S"], body, decl.span), info))
    return out


def _scenario_only(p: Program) -> set[str]:
    """The functions and procedures only scenarios and invariants call (directly or through
    each other): the game module does without them. A name a rule mentions anywhere else keeps
    it in the game."""
    callables = {**p.functions, **p.procedures}

    def mentioned(nodes: list[ast.Node]) -> set[str]:
        out = set()
        for node in nodes:
            for sub in walk(node):
                if isinstance(sub, ast.Call) and sub.func in callables:
                    out.add(sub.func)
                elif isinstance(sub, ast.Name) and sub.name in callables:
                    out.add(sub.name)
        return out

    def closure(names: set[str]) -> set[str]:
        todo, seen = list(names), set(names)
        while todo:
            for name in mentioned(callables[todo.pop()].versions) - seen:
                seen.add(name)
                todo.append(name)
        return seen

    tests = ("scenarios", "invariants", "functions", "procedures")
    others: list[ast.Node] = []
    for spec in dataclasses.fields(p):
        if spec.name not in tests:
            _nodes_in(getattr(p, spec.name), others)
    used = closure(mentioned(others))
    return closure(mentioned([*p.scenarios.values(), *p.invariants.values()])) - used


def _nodes_in(value, out: list[ast.Node]) -> None:
    """Every syntax node held in `value` (nodes, versions, lists and dicts of them)."""
    if isinstance(value, ast.Node):
        out.append(value)
    elif isinstance(value, Versions):
        out.extend(value.versions)
    elif isinstance(value, list | tuple | set):
        for item in value:
            _nodes_in(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _nodes_in(item, out)


def _invariants(ctx: LoweringContext) -> list[tuple[ir.Function, tuple]]:
    gen = ctx.gen
    out = []
    for index, decl in enumerate(gen.p.invariants.values()):
        body = [ir.Return(X(gen.expr(decl.expr, Env(frame=False))), decl.expr.span)]
        info = (decl.name, decl.span.file, decl.span.line)
        out.append((ir.Function(f"invariant_{index}", ["S"], body, decl.span), info))
    return out


def _bots(ctx: LoweringContext) -> list[tuple[str, list[tuple[str, ir.Function]]]]:
    gen = ctx.gen
    p = gen.p
    out = []
    for bot_index, decl in enumerate(p.bots.values()):
        rules = []
        for rule in decl.rules:
            # an action's arguments, or a choice's one value (the checker knows every rule's name)
            if rule.action in p.actions:
                names = [param.name for param in p.actions[rule.action].active.params]
            else:
                names = [rule.action]
            env = Env(frame=False).bind("me", ME)
            body: list[ir.Stmt] = []
            for i, name in enumerate(names):
                env = env.bind(name)
                if _reads(rule.score, name):
                    body.append(ir.Assign(X(env.local(name)), X(Index(Name("args"), Const(i)))))
            body.append(ir.Return(X(gen.expr(rule.score, env)), rule.score.span))
            name = f"bot{bot_index}_{ident(rule.action)}"
            rules.append((rule.action, ir.Function(name, ["S", "me", "args"], body, rule.span)))
        out.append((decl.name, rules))
    return out


def _reads(expr: ast.Expr, name: str) -> bool:
    """True if `expr` mentions the local `name` (so a binding of it is used)."""
    return any(isinstance(sub, ast.Name) and sub.name == name for sub in walk(expr))
