"""Pass `lower` (frames): procedures that wait for decisions become resumable state machines.

A body is cut into numbered blocks at every decision and at every call of a waiting
procedure (`ir.FrameProc`). Each block ends by jumping (`ir.Jump`), suspending at a decision
site (`ir.Suspend`), pushing a callee frame (`ir.PushCall`) or returning. Loops that contain
decisions keep their iterator and index in the frame's locals. Each decision becomes an
`ir.Site` with its legal/why/resume functions; each action an `ir.Action`.

Dispatch is `visit_<StmtClass>` by name (the compiler-wide visitor scheme is not in yet).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from compiler import ir
from compiler.expr import (
    ME,
    Attr,
    BinOp,
    Call,
    Comp,
    Const,
    Display,
    Expr,
    For,
    Format,
    FrameLocal,
    If,
    Index,
    Lambda,
    Listing,
    Local,
    Name,
    Paren,
    S,
    Unary,
    call,
    helper,
    listed_unless_valued,
)
from compiler.lower_exprs import Env, source_text
from compiler.lower_listings import (
    OUT,
    OUT_APPEND,
    action_table,
    append_action,
    domain_iter,
    legal_function,
    static_size,
    walk_table,
    why_function,
)
from compiler.lower_stmts import (
    LoweringContext,
    StmtLowerer,
    escapes,
    refused,
    skip_unless,
    waits,
    where_args,
)
from compiler.names import names_of
from compiler.printer import ir_expr
from compiler.types import IntT, OptT
from compiler.visit import StrictVisitor
from dsl import ast

X = ir_expr
SITE_PARAMS = ["S", "F", "p", "a"]
F, P, A = Name("F"), Name("p"), Name("a")  # a site function's frame, player and action
ACTS = Local("_acts")  # the actions a menu or choice offers, listed before it waits


@dataclass
class LoopTargets:
    """Where `break` and `continue` jump inside a lowered loop."""

    exit: int
    head: int


class FrameLowerer(StrictVisitor):
    """Lowers one body into a frame procedure."""

    def __init__(self, ctx: LoweringContext, pyname: str, rule: str, within: tuple[str, int]):
        self.ctx = ctx
        self.gen = ctx.gen
        self.plain = StmtLowerer(ctx)
        self.pyname = pyname
        self.rule = rule
        self.within = within
        self.blocks: list[list[ir.Stmt]] = [[]]
        self.cur = self.blocks[0]
        self.env = Env(frame=True, within=within)
        self.locals_made = 0  # the numbered frame locals made so far, counted in this procedure

    def frame_local_number(self) -> int:
        """A number for frame locals (`_it3`), counted per procedure: they are saved with a game,
        so a save stays loadable after edits to other rules. The module-wide count moves on too,
        so the names of other code stay as they were."""
        self.gen.fresh()
        self.locals_made += 1
        return self.locals_made

    def emit(self, *stmts: ir.Stmt) -> None:
        """Append statements to the current block."""
        self.cur.extend(stmts)

    def new_block(self) -> int:
        """Allocate a block; returns its number."""
        self.blocks.append([])
        return len(self.blocks) - 1

    def goto(self, block: int) -> None:
        """Write code that continues at a block."""
        self.cur = self.blocks[block]

    def jump(self, target: int, span=None) -> None:
        """End the current path with a jump."""
        self.emit(ir.Jump(target, span))

    def lower(self, block: ast.Block) -> ir.FrameProc:
        """The whole frame procedure for a body."""
        self.body(block, [])
        self.emit(ir.FrameReturn())
        for stmts in self.blocks:
            if not stmts:
                stmts.append(ir.FrameReturn())
        return ir.FrameProc(self.pyname, self.blocks)

    def body(self, block: ast.Block, loops: list[LoopTargets]) -> None:
        """Lower a block's statements into the current and new blocks."""
        for stmt in block.stmts:
            self.stmt(stmt, loops)
        if block.returns:
            self.emit(ir.FrameReturn(span=block.span))

    def stmt(self, node: ast.Stmt, loops: list[LoopTargets]) -> None:
        """Lower one statement (plain if it neither waits nor jumps out)."""
        if not waits(self.gen, node, self.within[0]) and not (loops and escapes(node)):
            self.emit(*self.plain.stmt(node, self.env))
            return
        self.visit(node, loops)

    # ------------------------------------------------------------ control flow

    def visit_Break(self, node, loops):
        self.jump(loops[-1].exit, node.span)

    def visit_Continue(self, node, loops):
        self.jump(loops[-1].head, node.span)

    def visit_If(self, node: ast.If, loops):
        targets = [self.new_block() for _ in node.branches]
        other = self.new_block() if node.orelse is not None else None
        join = self.new_block()
        branches = [
            ir.Branch(X(self.gen.expr(cond, self.env)), [ir.Jump(target)], cond.span)
            for target, (cond, _) in zip(targets, node.branches, strict=True)
        ]
        self.emit(ir.If(branches, span=node.span))
        self.jump(other if other is not None else join)
        for target, (_, body) in zip(targets, node.branches, strict=True):
            self.goto(target)
            self.body(body, loops)
            self.jump(join)
        if other is not None:
            self.goto(other)
            self.body(node.orelse, loops)
            self.jump(join)
        self.goto(join)

    def visit_For(self, node: ast.For, loops):
        k = self.frame_local_number()
        it, i = FrameLocal(f"_it{k}"), FrameLocal(f"_i{k}")
        self.emit(
            ir.Assign(X(it), X(call("list", self.gen.items(node.iterable, self.env))), node.span)
        )
        fetch = ir.Assign(X(self.env.local(node.var)), X(Index(it, i)))
        self._counted_loop(node, loops, call("len", it), i, fetch)

    def visit_Repeat(self, node: ast.Repeat, loops):
        k = self.frame_local_number()
        n, i = FrameLocal(f"_n{k}"), FrameLocal(f"_i{k}")
        count = helper(
            "_l", "times", S, self.gen.expr(node.count, self.env), *self.gen.charge_args(node)
        )
        self.emit(ir.Assign(X(n), X(count), node.span))
        self._counted_loop(node, loops, n, i)

    def _counted_loop(
        self, node: ast.For | ast.Repeat, loops, limit: Expr, index: FrameLocal, fetch=None
    ) -> None:
        """Run the body while `index` counts from 0 up to `limit`; `fetch` binds each item first."""
        head, exit_ = self.new_block(), self.new_block()
        self.emit(ir.Assign(X(index), X(Const(0))))
        self.jump(head)
        self.goto(head)
        self.emit(ir.If([ir.Branch(X(BinOp(index, ">=", limit)), [ir.Jump(exit_)])]))
        if fetch is not None:
            self.emit(fetch)
        self.emit(ir.Assign(X(index), X(Const(1)), op="+="))
        where = getattr(node, "where", None)
        if where is not None:
            cond = self.gen.expr(where, self.env)
            self.emit(skip_unless(cond, ir.Jump(head), where.span))
        self.body(node.body, loops + [LoopTargets(exit_, head)])
        self.jump(head)
        self.goto(exit_)

    def visit_While(self, node: ast.While, loops):
        self._loop(node, loops, self.gen.expr(node.cond, self.env))

    def visit_Loop(self, node: ast.Loop, loops):
        self._loop(node, loops, None)

    def _loop(self, node, loops, cond: Expr | None) -> None:
        head, exit_ = self.new_block(), self.new_block()
        self.jump(head)
        self.goto(head)
        self.emit(ir.Eval(X(helper("_l", "tick", S, *self.gen.charge_args(node))), node.span))
        if cond is not None:
            self.emit(skip_unless(cond, ir.Jump(exit_), node.span))
        self.body(node.body, loops + [LoopTargets(exit_, head)])
        self.jump(head)
        self.goto(exit_)

    # ------------------------------------------------------------ calls of waiting procedures

    def _call(
        self, call: ast.Expr, after_target: Expr | None, span, target: ast.Expr | None = None
    ) -> None:
        gen = self.gen
        if isinstance(call, ast.SuperCall):
            name, version = self.within
            callee = gen.version_name("s", name, version - 1)
            decl = gen.p.procedures[name].versions[version - 1]
        else:
            callee, _ = gen.callable_name(call.func)
            decl = gen.p.procedures[call.func].active
        args = [
            (p.name, X(gen.checked(gen.expr(a, self.env), a, gen.t(a))))
            for p, a in zip(decl.params, call.args, strict=True)
        ]
        resume = self.new_block()
        self.emit(ir.PushCall(callee, args, resume, span))
        self.goto(resume)
        if after_target is not None:
            result = gen.t(call)
            check = (
                "opt_int_ok"
                if isinstance(result, OptT) and isinstance(result.inner, IntT)
                else ("int_ok" if isinstance(result, IntT) else "")
            )
            value = helper("_l", check, Attr(F, "ret")) if check else Attr(F, "ret")
            if target is not None:
                self.emit(*self.plain.store(target, after_target, value, self.env, span))
            else:
                self.emit(ir.Assign(X(after_target), X(value), span))

    def visit_ExprStmt(self, node: ast.ExprStmt, loops):
        self._call(node.expr, None, node.span)

    def visit_Let(self, node: ast.Let, loops):
        self._call(node.value, self.env.local(node.name), node.span)

    def visit_Assign(self, node: ast.Assign, loops):
        if node.op == "=":
            self._call(node.value, self.gen.expr(node.target, self.env), node.span, node.target)
        else:  # `x += wait()`: the target is read when the call has returned
            self._call(node.value, None, node.span)
            self.emit(*self.plain.assign(node, Attr(F, "ret"), self.env))

    # ------------------------------------------------------------ decisions

    def _add_site(self, kind: str, players: Expr, legal, resume_fn, node, **extra) -> None:
        """Register the decision site being lowered (its index is `len(ctx.sites)`)."""
        index = len(self.ctx.sites)
        why = extra.pop("why", None)
        if why is None:
            where = extra.pop("where", None)
            text = source_text(self.gen.p, where.span) if where is not None else ""
            reason = "not a legal choice here" + (f": `{text}` must hold" if text else "")
            value = refused(Const(reason), self.rule, where_args(self.gen.p, node.span))
            why = ir.Function(f"site{index}_why", SITE_PARAMS, [ir.Return(X(value))])
        site = ir.Site(
            index, kind, X(players), legal, why, resume_fn, node.span.file, node.span.line,
            self.rule, **extra,
        )  # fmt: skip
        self.ctx.sites.append(site)

    def _value_legal(
        self, site: int, node, env: Env, descs: Expr, optional: bool
    ) -> tuple[ir.Function, ir.Function | None]:
        """`site<N>_legal` of a value choice (each domain value the guard allows), and the plain
        listing it falls back to when it differs (it walks a guard table; else None). The stage
        `hoist_listings` computes its invariant values once (compiler/hoist.py)."""
        name = f"site{site}_legal"
        plain = self._value_listing(name, node, env, descs, optional, False)
        with self.gen.numbered_apart(
            "h"
        ):  # the names the rest of the module gets stay as they were
            fast = self._value_listing(name, node, env, descs, optional, True)
        if fast.body == plain.body:
            return plain, None
        plain.name = f"{name}_plain"
        return fast, plain

    def _value_listing(
        self, name: str, node, env: Env, descs: str, optional: bool, optimised: bool
    ) -> ir.Function:
        """The listing of a value choice; `optimised`, the guard's part fixed by the map walks a
        table."""
        gen = self.gen
        guard_env = replace(env, listing=optimised).bind(node.name).bind("me", ME)
        var = guard_env.local(node.name)
        table = action_table(self.ctx, node.name, 0, descs, [gen.cp.types[id(node)]])
        inner: list[ir.Stmt] = [
            ir.Eval(X(Call(OUT_APPEND, (Index(Name(table), var),))))
            if table is not None
            else append_action(self.ctx, 0, node.name, Paren(Display("bare", (var,))), descs)
        ]
        domain = domain_iter(self.ctx, node.domain, env, node.span)
        where = gen.expr(node.where, guard_env) if node.where is not None else None
        setup = []
        if optimised and node.where is not None:
            tables = self.ctx.guard_tables()
            plan = tables.plan(node.name, node.domain, node.where, [], {node.name})
            if plan.table is not None or plan.walk is not None:
                lookup = tables.lookup(plan, name.removesuffix("_legal"), node.name, guard_env)
                size = static_size(gen, node.domain)
                charge = gen.charge_args(node.domain, node.span)
                setup, domain = walk_table([], domain, lookup, size, charge, node.span)
                where = tables.residual(plan, guard_env)
        if where is not None:
            inner = [ir.If([ir.Branch(X(where), inner, node.where.span)])]
        body: list[ir.Stmt] = [
            ir.Assign(X(OUT), X(Display("list", ()))),
            *setup,
            ir.For(X(var), X(domain), inner, node.span),
        ]
        if optional:
            none = Paren(Display("bare", (Const(None),)))
            action = Paren(Display("bare", (Const(1), Const(node.name), none, descs)))
            body.append(ir.Eval(X(Call(OUT_APPEND, (Call(Name("_A"), (action,)),)))))
        body.append(ir.Return(X(OUT)))
        return ir.Function(name, ["S", "F", "me"], body)

    def visit_Choose(self, node: ast.Choose, loops):
        gen = self.gen
        self.emit(ir.NeedsFrame())  # a frameless entry makes the frame here
        by = FrameLocal(f"_by{self.frame_local_number()}")
        value_t = gen.cp.types[id(node)]
        desc = gen.desc(OptT(value_t) if node.optional else value_t)
        descs = self.ctx.arg_descs(node.name, Paren(Display("bare", (Name(desc),))))
        self.ctx.register_choice(node.name, descs, 0)
        resume = self.new_block()
        site = len(self.ctx.sites)
        legal, plain = self._value_legal(site, node, self.env, descs, node.optional)
        resume_fn = ir.Function(
            f"site{site}_resume",
            SITE_PARAMS,
            [
                ir.Assign(X(Index(Attr(F, "L"), Const(node.name))), X(_first_argument())),
                ir.Assign(X(Attr(F, "pc")), X(Const(resume))),
                ir.Return(X(Const(True))),
            ],
        )
        players = _chooser(by)
        self._add_site(
            "value", players, legal, resume_fn, node,
            where=node.where, frame=(self.pyname, resume), legal_plain=plain,
            private=id(node) in gen.cp.private_choices,
        )  # fmt: skip
        message = f"nothing to choose for {node.name}"
        # A listing that reads no frame is called without one: a driven version may then have
        # the driver pick (the chooser and the value kept; emit writes `cache_legal`).
        framed = _reads_frame(legal, plain)
        waits = (
            [ir.Eval(X(Call(Attr(S, "cache_legal"), (by, ACTS)))), ir.Suspend(site, resume)]
            if framed
            else [ir.Suspend(site, resume, chooser=X(by), value=node.name)]
        )
        listing = Call(Name(f"site{site}_legal"), (S, F if framed else Const(None), by))
        self.emit(
            ir.Assign(X(by), X(gen.expr(node.by, self.env)), node.span),
            ir.Assign(X(ACTS), X(listed_unless_valued(listing))),
            ir.If([ir.Branch(X(Unary("not", ACTS)), [ir.RaiseRuleError(message, *_at(node))])]),
            *waits,
        )
        self.goto(resume)

    def visit_EachChoose(self, node: ast.EachChoose, loops):
        gen = self.gen
        self.emit(ir.NeedsFrame())  # a frameless entry makes the frame here
        k = self.frame_local_number()
        who, sub = f"_who{k}", f"_sub{k}"
        inner = self.env.bind(node.var, ME)
        desc = gen.desc(gen.cp.types[id(node)])
        descs = self.ctx.arg_descs(node.name, Paren(Display("bare", (Name(desc),))))
        self.ctx.register_choice(node.name, descs, 0)
        resume = self.new_block()
        site = len(self.ctx.sites)
        legal, plain = self._value_legal(site, node, inner, descs, optional=False)
        names = (Const(who), Const(sub))
        submit = helper("_l", "submit", S, F, P, _first_argument(), *names, Const(node.name))
        resume_fn = _resume_when(site, submit, resume)
        players = _yet_to_choose(who, sub)
        self._add_site(
            "each", players, legal, resume_fn, node,
            where=node.where, frame=(self.pyname, resume), secret=(who, sub), legal_plain=plain,
            private=id(node) in gen.cp.private_choices,
        )  # fmt: skip
        listing = Name(f"site{site}_legal")
        start = helper("_l", "start_each", S, F, listing, *names, Const(node.name))
        everyone = call("list", gen.items(node.players, self.env))
        self.emit(
            ir.Assign(X(FrameLocal(who)), X(everyone), node.span),
            ir.Assign(X(FrameLocal(sub)), X(Display("dict", ()))),
            ir.If([ir.Branch(X(start), [ir.Suspend(site, resume)])]),
        )
        self.jump(resume)
        self.goto(resume)

    def menu_functions(self, site: int, node) -> tuple[ir.Function, ir.Function, tuple[str, ...]]:
        """`site<N>_legal` (every offered action's legal arguments) and `site<N>_why` for a menu,
        and the actions it lists."""
        gen = self.gen
        offered = sorted(gen.p.offered(node.actions), key=lambda a: gen.action_rank.get(a, 0))
        body: list[ir.Stmt] = [ir.Assign(X(OUT), X(Display("list", ())))]
        body += [ir.Eval(X(Call(Listing(n), (S, ME, OUT)))) for n in offered if n in gen.p.actions]
        body.append(ir.Return(X(OUT)))
        legal = ir.Function(f"site{site}_legal", ["S", "F", "me"], body)
        name, args = Index(A, Const(1)), Index(A, Const(2))
        message = Format((name, f" is not offered here (offered: {', '.join(offered)})"))
        refusal = refused(message, self.rule, where_args(self.gen.p, node.span))
        listed = Paren(Display("bare", tuple(Const(n) for n in offered)))
        why = ir.Function(
            f"site{site}_why",
            SITE_PARAMS,
            [
                ir.If([ir.Branch(X(BinOp(name, "not in", listed)), [ir.Return(X(refusal))])]),
                ir.Return(X(Call(Index(Name("ACTION_WHY"), name), (S, P, args)))),
            ],
        )
        return legal, why, tuple(n for n in offered if n in gen.p.actions)

    def visit_ChooseAction(self, node: ast.ChooseAction, loops):
        gen = self.gen
        self.emit(ir.NeedsFrame())  # a frameless entry makes the frame here
        by = FrameLocal(f"_by{self.frame_local_number()}")
        resume = self.new_block()
        other = self.new_block() if node.orelse is not None else None
        site = len(self.ctx.sites)
        legal, why, offered = self.menu_functions(site, node)
        resume_fn = ir.Function(
            f"site{site}_resume",
            SITE_PARAMS,
            [
                ir.Assign(X(Attr(F, "pc")), X(Const(resume))),
                ir.Eval(X(Call(Attr(Attr(S, "stack"), "append"), (_action_frame(),)))),
                ir.Return(X(Const(True))),
            ],
        )
        players = _chooser(by)
        self._add_site(
            "actions", players, legal, resume_fn, node,
            why=why, frame=(self.pyname, resume), offered=offered,
        )  # fmt: skip
        # A menu's listing reads no frame (its actions' listings take the chooser alone): a
        # driven version may list it where it has made none.
        listing: Expr = Call(Name(f"site{site}_legal"), (S, Const(None), by))
        if any(_never_refused(gen.p.actions[name].active) for name in offered):
            listing = listed_unless_valued(listing)  # never empty: it decides nothing here
        self.emit(
            ir.Assign(X(by), X(gen.expr(node.by, self.env)), node.span),
            ir.Assign(X(ACTS), X(listing)),
            ir.If([ir.Branch(X(ACTS), [ir.Suspend(site, resume, chooser=X(by))])]),
        )
        self.jump(other if other is not None else resume)
        if other is not None:
            self.goto(other)
            self.body(node.orelse, loops)
            self.jump(resume)
        self.goto(resume)

    def visit_EachChooseAction(self, node: ast.EachChooseAction, loops):
        gen = self.gen
        self.emit(ir.NeedsFrame())  # a frameless entry makes the frame here
        k = self.frame_local_number()
        who, sub = f"_who{k}", f"_sub{k}"
        resume = self.new_block()
        site = len(self.ctx.sites)
        legal, why, offered = self.menu_functions(site, node)
        names = (Const(who), Const(sub))
        submit = helper("_l", "submit_action", S, F, P, A, *names, Name("ACTION_FRAMES"))
        resume_fn = _resume_when(site, submit, resume)
        players = _yet_to_choose(who, sub)
        self._add_site(
            "each_actions", players, legal, resume_fn, node,
            why=why, frame=(self.pyname, resume), secret=(who, sub), offered=offered,
        )  # fmt: skip
        listing = Name(f"site{site}_legal")
        start = helper("_l", "start_each_action", S, F, listing, *names, Name("ACTION_FRAMES"))
        everyone = call("list", gen.items(node.players, self.env))
        self.emit(
            ir.Assign(X(FrameLocal(who)), X(everyone), node.span),
            ir.Assign(X(FrameLocal(sub)), X(Display("dict", ()))),
            ir.If([ir.Branch(X(start), [ir.Suspend(site, resume)])]),
            ir.Yield(resume),
        )
        self.goto(resume)


def _never_refused(decl: ast.ActionDecl) -> bool:
    """True for an action without parameters or a `when`: offered, it is always legal."""
    return not decl.params and decl.when is None


def _at(node) -> tuple[str, int]:
    return node.span.file, node.span.line


def _resume_when(site: int, accepted: Expr, resume: int) -> ir.Function:
    """`site<N>_resume` for a simultaneous choice: resume once `accepted` says everyone has chosen."""
    done = [ir.Assign(X(Attr(F, "pc")), X(Const(resume))), ir.Return(X(Const(True)))]
    return ir.Function(
        f"site{site}_resume",
        SITE_PARAMS,
        [ir.If([ir.Branch(X(accepted), done)]), ir.Return(X(Const(False)))],
    )


def _reads_frame(*listings: ir.Function | None) -> bool:
    """Whether a choice's listings read its procedure's frame (its locals)."""
    for listing in listings:
        for x in ir.expressions(listing.body if listing is not None else []):
            found = names_of(x)
            if found.uses_frame or found.frame_locals or found.reads_ret or "L" in found.names:
                return True
    return False


def _first_argument() -> Expr:
    """`a[2][0]`: the one value a choice's action carries."""
    return Index(Index(A, Const(2)), Const(0))


def _action_frame() -> Expr:
    """`ACTION_FRAMES[a[1]](p, a[2])`: the frame of the action a player chose at a menu."""
    return Call(Index(Name("ACTION_FRAMES"), Index(A, Const(1))), (P, Index(A, Const(2))))


def _chooser(by: FrameLocal) -> Lambda:
    """`lambda S, F: [F.L['_by<k>']]`: who decides a choice made by one player."""
    return Lambda(("S", "F"), Display("list", (Index(Attr(F, "L"), Const(by.name)),)))


def _yet_to_choose(who: str, sub: str) -> Lambda:
    """`lambda S, F: [p for p in F.L[who] if p not in F.L[sub]]`: who still decides at a
    simultaneous choice (`who` lists the players, `sub` those who have chosen)."""
    chosen = BinOp(P, "not in", Index(Attr(F, "L"), Const(sub)))
    return Lambda(
        ("S", "F"), Comp("list", P, (For(P, Index(Attr(F, "L"), Const(who))), If(chosen)))
    )


# ---------------------------------------------------------------- actions


def lower_action(ctx: LoweringContext, name: str, decl: ast.ActionDecl, version: int) -> ir.Action:
    """An action's IR: legal enumerations (optimised and plain), why-not function and body frame."""
    gen = ctx.gen
    within = (name, version)
    rank = gen.action_rank[name]
    types = [gen.cp.signatures[name].params[i][1] for i in range(len(decl.params))]
    descs = ctx.arg_descs(name, Display("tuple", tuple(Name(gen.desc(t)) for t in types)))
    ctx.action_descs[name] = (descs, rank)
    plain = legal_function(ctx, name, decl, f"A_{name}_legal_plain", rank, descs, within, False)
    built = action_table(ctx, name, rank, descs, types)
    legal = legal_function(ctx, name, decl, f"A_{name}_legal", rank, descs, within, True, built)
    why = why_function(ctx, name, decl, within)
    frame_name = f"a_{name}__{version}"
    body = FrameLowerer(ctx, frame_name, name, within).lower(decl.body)
    params = [p.name for p in decl.params]
    return ir.Action(name, frame_name, params, plain, legal, why, body)
