"""An action's listings: the enumerations of its legal arguments, plain and optimised, and why
an argument tuple is refused.

The optimised listing walks the tables of values a guard's fixed part lets through; the stages
after lowering compute aggregates over one parameter once per value (compiler/tabulate.py),
compute once what depends on no parameter (compiler/hoist.py) and read a loop value's fixed
attributes once (compiler/loop_bindings.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from compiler import ir
from compiler.builtins import BUILTINS
from compiler.expr import (
    ME,
    Attr,
    BinOp,
    Call,
    Const,
    Display,
    Expr,
    Format,
    Helper,
    Index,
    Local,
    Name,
    Paren,
    S,
    Slice,
    StateField,
    call,
    helper,
)
from compiler.guards import StaticParam
from compiler.invariance import OUT
from compiler.literals import ident
from compiler.lower_exprs import Env, ExprLowerer, source_text, spot
from compiler.lower_guards import static_param
from compiler.lower_stmts import (
    LoweringContext,
    refused,
    skip_unless,
    where_args,
)
from compiler.printer import ir_expr
from compiler.refs import BuiltinRef
from compiler.types import BoolT, CollT, ElemT, EnumT, PlayerT
from dsl import ast
from runtime.limits import MAX_DOMAIN, MAX_SUBSETS, STEP_BUDGET

X = ir_expr


def domain_iter(ctx: LoweringContext, domain, env: Env, span, charge: bool = True) -> Expr:
    """A walk of a choice domain in ascending order, without repeats.

    With `charge`, a domain whose size is not known when compiling is charged to the step
    budget (a range domain is also refused beyond MAX_DOMAIN values); `span` locates that.
    """
    gen = ctx.gen
    where = gen.charge_args(domain, span)  # weighted by what one value's test may cost
    forced = gen.costs.is_forced(domain)
    if isinstance(domain, ast.TypeDomain):
        tnode = domain.type
        if isinstance(tnode, ast.RangeType):
            lo, hi = gen.expr(tnode.lo, env), gen.expr(tnode.hi, env)
            step = gen.expr(tnode.step, env) if tnode.step is not None else Const(1)
            size = gen.sizes.range_size(tnode.lo, tnode.hi, tnode.step)
            if size is not None and size > MAX_DOMAIN:
                ctx.errors.append(
                    (
                        f"this domain has {size:,} values, more than the limit of {MAX_DOMAIN:,}",
                        span,
                    )
                )
            if not charge or (size is not None and size <= MAX_DOMAIN and not forced):
                return call("range", lo, BinOp(Paren(hi), "+", Const(1)), step)
            return helper("_l", "domain", S, lo, hi, step, *where)
        t = gen.checker_type(tnode)
        if isinstance(t, BoolT):
            code: Expr = Paren(Display("bare", (Const(False), Const(True))))
        elif isinstance(t, EnumT | ElemT | PlayerT):
            code = call("range", gen.size_of(t))
        else:
            raise AssertionError("infinite domain")
        return helper("_l", "each", S, code, *where) if charge and forced else code
    if isinstance(domain, ast.InDomain):
        t = gen.t(domain.collection)
        code = gen.expr(domain.collection, env)
        if isinstance(t, CollT) and t.kind == "bag":
            code = Call(BAG_DISTINCT, (code,))
        elif not (
            isinstance(domain.collection, ast.RangeExpr) or _sorted_unique(gen, domain.collection)
        ):
            code = helper("_l", "distinct", code)
        return helper("_l", "each", S, code, *where) if charge else code
    check_subsets(ctx, domain, span)
    items = gen.items(domain.collection, env)
    lo = gen.expr(domain.lo, env) if domain.lo is not None else Const(0)
    hi = gen.expr(domain.hi, env) if domain.hi is not None else BinOp(Const(10), "**", Const(6))
    return helper("_l", "subsets", S, items, lo, hi, *where)


def check_subsets(ctx: LoweringContext, domain, span) -> None:
    """Refuse a `subset of` a collection of known size with more than MAX_SUBSETS subsets."""
    gen = ctx.gen
    count = gen.sizes.const_size(domain.collection)
    lo = gen.sizes.const_int(domain.lo) if domain.lo is not None else 0
    hi = gen.sizes.const_int(domain.hi) if domain.hi is not None else count
    if count is None or lo is None or hi is None:
        return
    total = sum(comb(count, k) for k in range(max(lo, 0), min(hi, count) + 1))
    if total > MAX_SUBSETS:
        ctx.errors.append(
            (
                f"`subset of` {count} items has {total:,} subsets, more than the limit of "
                f"{MAX_SUBSETS:,}",
                span,
            )
        )


def static_size(gen: ExprLowerer, domain) -> int | None:
    """The number of values of a domain when it is known while compiling, else None."""
    if not isinstance(domain, ast.TypeDomain):
        return None
    tnode = domain.type
    if isinstance(tnode, ast.RangeType):
        size = gen.sizes.range_size(tnode.lo, tnode.hi, tnode.step)
        return size if size is not None and size <= MAX_DOMAIN else None
    t = gen.checker_type(tnode)
    if isinstance(t, BoolT):
        return 2
    if isinstance(t, PlayerT):
        return gen.p.players.hi if gen.p.players else 1
    return gen.size_of(t).value


def _sorted_unique(gen, node: ast.Expr) -> bool:
    """True for a call of a builtin whose list is already ascending and without repeats."""
    return isinstance(gen.cp.ref(node), BuiltinRef) and BUILTINS[node.func].sorted_unique


MAX_ACTION_TABLE = 4096  # an action with at most this many argument combinations is built once


def action_table(ctx: LoweringContext, name: str, rank: int, descs: Expr, types) -> str | None:
    """The module constant holding every action (or choice) of `name` built once, if its
    parameters all have few values (an enum, a kind, truth values): listing it then builds nothing."""
    domains, count = [], 1
    for t in types:
        if isinstance(t, BoolT):
            domains.append(Paren(Display("bare", (Const(False), Const(True)))))
            count *= 2
        elif isinstance(t, EnumT | ElemT):
            size = ctx.gen.size_of(t).value
            domains.append(call("range", Const(size)))
            count *= size
        else:
            return None
    if count > MAX_ACTION_TABLE:
        return None
    table = f"ACTIONS_{ident(name)}"
    if table not in ctx.action_memos:  # a choice made at several places has one table
        ctx.action_memos.add(table)
        code = helper(
            "_l",
            "action_table",
            Const(rank),
            Const(name),
            descs,
            Display("tuple", tuple(domains)),
        )
        ctx.action_tables.append(ir.Assign(X(Name(table)), X(code)))
    return table


def append_action(ctx: LoweringContext, rank: int, name: str, args: Expr, descs: Expr) -> ir.Eval:
    """`out.append(…)` of the action with these arguments, looked up in the name's memo of
    actions already built (`MEMO_<name>`, runtime/lib.py `new_action`) and built on a miss."""
    memo = f"MEMO_{ident(name)}"
    if memo not in ctx.action_memos:
        ctx.action_memos.add(memo)
        ctx.action_tables.append(ir.Assign(X(Name(memo)), X(Display("dict", ()))))
    build = helper("_l", "new_action", Name(memo), Const(rank), Const(name), args, descs)
    found = BinOp(Call(Attr(Name(memo), "get"), (args,)), "or", build)
    return ir.Eval(X(Call(OUT_APPEND, (found,))))


def _refusal(ctx: LoweringContext, message: Expr, rule: str, span) -> ir.Return:
    """`return (message, rule, file, line)`: why an action is refused."""
    return ir.Return(X(refused(message, rule, where_args(ctx.gen.p, span))))


def why_function(ctx: LoweringContext, name: str, decl: ast.ActionDecl, within) -> ir.Function:
    """`A_<name>_why`: the first reason an argument tuple is refused, or None."""
    gen = ctx.gen
    env = Env(frame=False, within=within).bind("me", ME)
    count = len(decl.params)
    body: list[ir.Stmt] = [
        ir.If(
            [
                ir.Branch(
                    X(BinOp(call("len", ARGS), "!=", Const(count))),
                    [_refusal(ctx, Const(f"{name} takes {count} argument(s)"), name, decl.span)],
                )
            ]
        )
    ]
    if decl.when is not None:
        text = source_text(gen.p, decl.when.span)
        message = Const(f"{name} is not allowed now: `{text}` does not hold")
        refusal = _refusal(ctx, message, name, decl.when.span)
        body.append(skip_unless(gen.expr(decl.when, env), refusal, decl.when.span))
    for i, param in enumerate(decl.params):
        env = env.bind(param.name)
        var = env.local(param.name)
        body.append(ir.Assign(X(var), X(Index(ARGS, Const(i)))))
        domain = domain_iter(ctx, param.domain, env, param.span, charge=False)
        message = Format((f"{name}: ", var, f" is not a possible {param.name}"))
        refusal = _refusal(ctx, message, name, param.span)
        body.append(ir.If([ir.Branch(X(BinOp(var, "not in", domain)), [refusal], param.span)]))
        if param.where is not None:
            text = source_text(gen.p, param.where.span)
            message = Const(f"{name}: `{text}` does not hold for this {param.name}")
            refusal = _refusal(ctx, message, name, param.where.span)
            body.append(skip_unless(gen.expr(param.where, env), refusal, param.where.span))
    body.append(ir.Return(X(Const(None))))
    return ir.Function(f"A_{name}_why", ["S", "me", "args"], body, decl.span)


def legal_function(
    ctx: LoweringContext,
    name: str,
    decl: ast.ActionDecl,
    pyname: str,
    rank: int,
    descs: Expr,
    within: tuple[str, int],
    optimised: bool,
    built: str | None = None,
) -> ir.Function:
    """The enumeration of an action's legal arguments (taken from the table `built`, if any).

    The `optimised` one walks guard tables and looks its actions up in a memo; the stages
    `tabulate_listings` and `hoist_listings` then compute its aggregates over one parameter
    once per value and its invariant values once, falling back to the plain one
    (`A_<name>_legal_plain`) if one fails.
    """
    gen = ctx.gen
    types = [gen.cp.signatures[name].params[i][1] for i in range(len(decl.params))]
    env = Env(frame=False, within=within, listing=optimised)
    env = env.bind("me", ME)
    guard: list[ir.Stmt] = []
    if decl.when is not None:
        guard.append(skip_unless(gen.expr(decl.when, env), ir.Return(), decl.when.span))
    # Domains of known size before the first other one cost nothing (their product is
    # bounded when compiling); every later one is counted each time it is walked, inline
    # because this is the hot path: one listing walks at most MAX_DOMAIN more values.
    combinations, free, counted = 1, True, False
    last_range = None  # a counted range of step 1: (its number, start, stop, refusal, span)
    loops: list[tuple[list[ir.Stmt], Expr, Expr, ir.Stmt | None, object]] = []
    static: list[StaticParam] = []  # earlier parameters with fixed domains (table dimensions)
    for i, param in enumerate(decl.params):
        env = env.bind(param.name)
        size = static_size(gen, param.domain)
        free = free and size is not None
        domain = domain_iter(ctx, param.domain, env, param.span, charge=False)
        # Each value's tests (and the parameters after it) may cost several steps (pass `cost`).
        # The values listed are at most MAX_DOMAIN: only tests dearer than STEP_BUDGET/MAX_DOMAIN
        # steps each could take more than the budget unseen, so only those are charged.
        weighed = gen.costs.weight(param.domain) > STEP_BUDGET // MAX_DOMAIN
        charge = gen.charge_args(param.domain, param.span)
        local = env.local(param.name)
        where_code = gen.expr(param.where, env) if param.where is not None else None
        table = None
        if optimised:  # the listing walks a table of the values the guard's fixed part lets through
            tables = ctx.guard_tables()
            loop_vars = {p.name for p in decl.params[: i + 1]}
            plan = tables.plan(param.name, param.domain, param.where, static, loop_vars)
            if plan.table is not None or plan.walk is not None:
                with gen.numbered_apart("t"):
                    table = tables.lookup(plan, name, param.name, env)
                    where_code = tables.residual(plan, env)
        if i == 0:  # the bag whose distinct items the first parameter walks as they are
            bag_walk = (
                _walked_bag(domain)
                if table is None and where_code is None and not weighed
                else None
            )
        here = static_param(gen, param.name, param.domain)
        if here is not None:
            static.append(here)
        setup: list[ir.Stmt] = []
        if free:
            if gen.costs.is_forced(param.domain):
                domain = helper("_l", "each", S, domain, *charge)
            within_limit, combinations = combinations <= MAX_DOMAIN, combinations * size
            if within_limit and combinations > MAX_DOMAIN:
                ctx.errors.append(
                    (
                        f"action '{name}' has more than {MAX_DOMAIN:,} combinations of "
                        "arguments (the domain limit)",
                        param.span,
                    )
                )
        else:
            counted = True
            too_many = ir.Eval(
                X(helper("_l", "too_many_arguments", Const(name), spot(ctx.gen.p, param.span)))
            )
            values = Local(f"_d{i}")
            setup = [
                ir.Assign(
                    X(values),
                    X(helper("_l", "each", S, domain, *charge) if weighed else domain),
                    param.span,
                ),
                ir.Assign(X(COUNT), X(call("len", values)), param.span, "+="),
                ir.If([ir.Branch(X(BinOp(COUNT, ">", Const(MAX_DOMAIN))), [too_many])]),
            ]
            if weighed and table is None and isinstance(param.domain, ast.SubsetDomain):
                setup[:1] = _charged_inline(
                    ctx, values, domain, gen.costs.weight(param.domain), param
                )
            if not weighed and isinstance(domain, Call) and domain.func == Name("range"):
                last_range = (i, domain.args[0], domain.args[1], too_many, param.span)
            domain = values
        if table is not None:
            setup, domain = walk_table(setup, domain, table, size, charge, param.span)
        where = None
        if where_code is not None:
            where = skip_unless(where_code, ir.Continue(), param.where.span)
        loops.append((setup, local, domain, where, param.span))
    args = Display("tuple", tuple(env.local(p.name) for p in decl.params))
    action = (Const(rank), Const(name), args, descs)
    append = ir.Eval(X(Call(OUT_APPEND, (Call(Name("_A"), (Paren(Display("bare", action)),)),))))
    if built is not None:
        listed: Expr = Name(built)
        for p in decl.params:
            listed = Index(listed, env.local(p.name))
        append = ir.Eval(X(Call(OUT_APPEND, (listed,))))
    elif optimised:
        append = append_action(ctx, rank, name, args, descs)
    if optimised and built is not None and len(decl.params) == 1 and bag_walk is not None:
        # one parameter over the distinct items of a bag, its actions built once: the actions
        # of the items the bag holds, in the items' order, taken at C speed (no count: the
        # values are the bag's kinds, fewer than the domain limit)
        taken = helper("_l", "compress", Name(built), bag_walk)
        body = guard + [ir.Eval(X(Call(OUT_EXTEND, (taken,))), decl.params[0].span)]
        return ir.Function(pyname, ["S", "me", "out"], body, decl.span)
    innermost: list[ir.Stmt] = [append]
    last = len(decl.params) - 1
    if optimised and built is None and _rowed(decl.params[last], loops[last], last_range, last):
        _, var, _, _, _ = loops.pop()
        earlier = [env.local(p.name) for p in decl.params[:-1]]
        rows = _Rows(name, Display("tuple", tuple(earlier)), _flat(earlier, static, decl.params))
        innermost = action_row(ctx, rank, rows, last_range, descs, var, append)
    count = [ir.Assign(X(COUNT), X(Const(0)))] if counted else []
    # The optimised listing's loops over elements may read their fixed attributes once.
    elements = [optimised and isinstance(t, ElemT) for t in types]
    body = guard + count + _nest(loops, innermost, elements)
    return ir.Function(pyname, ["S", "me", "out"], body, decl.span)


def _walked_bag(domain: Expr) -> Expr | None:
    """The bag a domain walks the distinct items of (`_l.bag_distinct(bag)`), else None."""
    if isinstance(domain, Call) and domain.func == BAG_DISTINCT:
        return domain.args[0]
    return None


def _rowed(param: ast.Param, loop, last_range, last: int) -> bool:
    """Whether the last parameter is an integer range of step 1 walked as listed (no test,
    not charged per value), counted: its actions may come from a row (`action_row`)."""
    written = param.domain
    return (
        last_range is not None
        and last_range[0] == last
        and loop[3] is None
        and isinstance(written, ast.TypeDomain)
        and isinstance(written.type, ast.RangeType)
        and written.type.step is None
    )


@dataclass(frozen=True)
class _Rows:
    """Where a listing keeps its rows of actions: a list by the earlier arguments' position
    among their fixed values (`flat`), else a dict by their tuple (`prefix`)."""

    action: str
    prefix: Expr
    flat: tuple[Expr, int] | None  # (the position's code, how many positions)

    @property
    def name(self) -> Name:
        """The module constant holding the rows."""
        return Name(f"ROWS_{ident(self.action)}")


def _flat(earlier: list[Local], static: list[StaticParam], params) -> tuple[Expr, int] | None:
    """The position of the earlier arguments among all their combinations, if each has fixed
    values 0 … n-1 and there are at most FLAT_ROWS combinations."""
    sizes = {s.name: len(s.values) for s in static}
    if any(p.name not in sizes for p in params[:-1]):
        return None
    position: Expr = Const(0)
    count = 1
    for local, param in zip(earlier, params, strict=False):
        size = sizes[param.name]
        position = local if count == 1 else BinOp(BinOp(position, "*", Const(size)), "+", local)
        count *= size
    return (position, count) if count <= FLAT_ROWS else None


def action_row(
    ctx: LoweringContext,
    rank: int,
    rows: _Rows,
    ranged: tuple,
    descs: Expr,
    var: Local,
    append: ir.Stmt,
) -> list[ir.Stmt]:
    """The actions of the last parameter's range of values, counted as the listing counts a
    domain, then added as one item or a slice of the row kept for the earlier arguments
    (`ROWS_<name>`: the actions for 0, 1, … up to the largest value listed so far, runtime/lib.py
    `action_row`), or one by one when the range starts below 0 or ends past ROW_VALUES."""
    number, start, stop, too_many, span = ranged
    name = rows.name
    if name.id not in ctx.action_memos:
        ctx.action_memos.add(name.id)
        made = Display("dict", ())
        if rows.flat is not None:
            made = BinOp(Display("list", (Const(None),)), "*", Const(rows.flat[1]))
        ctx.action_tables.append(ir.Assign(X(name), X(made)))
    at = rows.prefix if rows.flat is None else rows.flat[0]
    found = Call(Attr(name, "get"), (at,)) if rows.flat is None else Index(name, at)
    lo, hi, row = Local(f"_lo{number}"), Local(f"_hi{number}"), Local("_row")
    short = BinOp(BinOp(row, "is", Const(None)), "or", BinOp(call("len", row), "<", hi))
    build = helper(
        "_l", "action_row", name, at, rows.prefix, hi, Const(rank), Const(rows.action), descs
    )
    one = BinOp(BinOp(hi, "-", lo), "==", Const(1))
    listed = [
        ir.Assign(X(row), X(found)),
        ir.If([ir.Branch(X(Paren(short)), [ir.Assign(X(row), X(build))])]),
        ir.If(
            [ir.Branch(X(one), [ir.Eval(X(Call(OUT_APPEND, (Index(row, lo),))))])],
            [ir.Eval(X(Call(Attr(OUT, "extend"), (Index(row, Slice(lo, hi)),))))],
        ),
    ]
    one_by_one = [ir.For(X(var), X(call("range", lo, hi)), [append])]
    in_row = BinOp(BinOp(lo, ">=", Const(0)), "and", BinOp(hi, "<=", Const(ROW_VALUES)))
    counted = [
        ir.Assign(X(COUNT), X(BinOp(hi, "-", lo)), None, "+="),
        ir.If([ir.Branch(X(BinOp(COUNT, ">", Const(MAX_DOMAIN))), [too_many])]),
        ir.If([ir.Branch(X(in_row), listed)], one_by_one),
    ]
    return [
        ir.Assign(X(lo), X(start), span),
        ir.Assign(X(hi), X(stop), span),
        ir.If([ir.Branch(X(BinOp(hi, ">", lo)), counted)]),
    ]


def _charged_inline(
    ctx: LoweringContext, name: Local, domain: Expr, weight: int, param
) -> list[ir.Stmt]:
    """`name = domain`, a list of subsets, its walk charged as `_l.each` charges it, inline (a
    listing may walk it once for every combination of the parameters before it)."""
    over = ir.Eval(X(helper("_l", "over_budget", spot(ctx.gen.p, param.span))))
    iters = StateField("_iters")
    return [
        ir.Assign(X(name), X(domain), param.span),
        ir.Assign(X(iters), X(BinOp(call("len", name), "*", Const(weight))), param.span, "+="),
        ir.If([ir.Branch(X(BinOp(iters, ">", Const(STEP_BUDGET))), [over])]),
    ]


def _nest(loops: list, innermost: list[ir.Stmt], elements: list[bool]) -> list[ir.Stmt]:
    """The parameters' loops, one inside the other, around the innermost statements (those
    `elements` marks bind their elements' attributes after their tests, compiler/loop_bindings.py)."""
    inner = innermost
    for depth in reversed(range(len(loops))):
        setup, var, domain, where, span = loops[depth]
        test = [where] if where else []
        bind_from = len(test) if elements[depth] else None
        inner = setup + [ir.For(X(var), X(domain), test + inner, span, bind_from)]
    return inner


ROW_VALUES = 32  # a row of actions holds those of the values 0 … 31 at most
FLAT_ROWS = 4096  # rows kept in a list by the earlier arguments' position, up to this many
OUT_APPEND = Attr(OUT, "append")
OUT_EXTEND = Attr(OUT, "extend")
BAG_DISTINCT = Helper("_l", "bag_distinct")
COUNT = Local("_n")  # the values a listing has walked (the domain limit counts them)
ARGS = Name("args")  # the argument values a why-not function is given


def walk_table(
    setup: list[ir.Stmt], domain: Expr, table: Expr, size: int, charge: tuple, span
) -> tuple[list[ir.Stmt], Expr]:
    """A parameter's loop over its guard table instead of its domain (same setup, same charges).

    The step budget and the domain limit count the values as written, as the plain listing
    does: an optimisation never changes when a limit is reached.
    """
    charged = _charged(domain) or any(
        isinstance(s, ir.Assign) and _charged(s.value.node) for s in setup
    )
    times = helper("_l", "times", S, Const(size), *charge)
    out: list[ir.Stmt] = [ir.Eval(X(times), span)] if charged else []
    for stmt in setup:
        if isinstance(stmt, ir.Assign) and stmt.op == "+=":
            out.append(ir.Assign(stmt.target, X(Const(size)), stmt.span, "+="))
        elif isinstance(stmt, ir.If):
            out.append(stmt)
    return out, table


def _charged(code: Expr) -> bool:
    """True for a walk charged to the step budget as a whole (`_l.each(…)`)."""
    return isinstance(code, Call) and code.func == Helper("_l", "each")
