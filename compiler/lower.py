"""Pass `lower` (frames): procedures that wait for decisions become resumable state machines.

A body is cut into numbered blocks at every decision and at every call of a waiting
procedure (`ir.FrameProc`). Each block ends by jumping (`ir.Jump`), suspending at a decision
site (`ir.Suspend`), pushing a callee frame (`ir.PushCall`) or returning. Loops that contain
decisions keep their iterator and index in the frame's locals. Each decision becomes an
`ir.Site` with its legal/why/resume functions; each action an `ir.Action`.

Dispatch is `visit_<StmtClass>` by name (the compiler-wide visitor scheme is not in yet).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from math import comb

from compiler import ir
from compiler.builtins import BUILTINS
from compiler.codegen import Env, Generator, Tabulation, ident, source_text, spot
from compiler.guards import StaticParam
from compiler.loop_bindings import bind_attributes
from compiler.lower_guards import static_param
from compiler.lower_stmts import (
    LoweringContext,
    StmtLowerer,
    escapes,
    skip_unless,
    waits,
    where_args,
)
from compiler.pyexpr import PyExpr
from compiler.refs import BuiltinRef
from compiler.types import BoolT, CollT, ElemT, EnumT, IntT, OptT, PlayerT
from compiler.visit import StrictVisitor
from dsl import ast
from runtime.limits import MAX_DOMAIN, MAX_SUBSETS, STEP_BUDGET

X = PyExpr.of
SITE_PARAMS = ["S", "F", "p", "a"]


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
        it, i = f"L['_it{k}']", f"L['_i{k}']"
        self.emit(
            ir.Assign(X(it), X(f"list({self.gen.items(node.iterable, self.env)})"), node.span)
        )
        fetch = ir.Assign(X(self.env.local(node.var)), X(f"{it}[{i}]"))
        self._counted_loop(node, loops, f"len({it})", i, fetch)

    def visit_Repeat(self, node: ast.Repeat, loops):
        k = self.frame_local_number()
        n, i = f"L['_n{k}']", f"L['_i{k}']"
        count = f"_l.times(S, {self.gen.expr(node.count, self.env)}, {self.gen.charge_args(node)})"
        self.emit(ir.Assign(X(n), X(count), node.span))
        self._counted_loop(node, loops, n, i)

    def _counted_loop(
        self, node: ast.For | ast.Repeat, loops, limit: str, index: str, fetch=None
    ) -> None:
        """Run the body while `index` counts from 0 up to `limit`; `fetch` binds each item first."""
        head, exit_ = self.new_block(), self.new_block()
        self.emit(ir.Assign(X(index), X("0")))
        self.jump(head)
        self.goto(head)
        self.emit(ir.If([ir.Branch(X(f"{index} >= {limit}"), [ir.Jump(exit_)])]))
        if fetch is not None:
            self.emit(fetch)
        self.emit(ir.Assign(X(index), X("1"), op="+="))
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

    def _loop(self, node, loops, cond: str | None) -> None:
        head, exit_ = self.new_block(), self.new_block()
        self.jump(head)
        self.goto(head)
        self.emit(ir.Eval(X(f"_l.tick(S, {self.gen.charge_args(node)})"), node.span))
        if cond is not None:
            self.emit(skip_unless(cond, ir.Jump(exit_), node.span))
        self.body(node.body, loops + [LoopTargets(exit_, head)])
        self.jump(head)
        self.goto(exit_)

    # ------------------------------------------------------------ calls of waiting procedures

    def _call(
        self, call: ast.Expr, after_target: str | None, span, target: ast.Expr | None = None
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
                "_l.opt_int_ok"
                if isinstance(result, OptT) and isinstance(result.inner, IntT)
                else ("_l.int_ok" if isinstance(result, IntT) else "")
            )
            value = f"{check}(F.ret)" if check else "F.ret"
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
            self.emit(*self.plain.assign(node, "F.ret", self.env))

    # ------------------------------------------------------------ decisions

    def _add_site(self, kind: str, players: str, legal, resume_fn, node, **extra) -> None:
        """Register the decision site being lowered (its index is `len(ctx.sites)`)."""
        index = len(self.ctx.sites)
        why = extra.pop("why", None)
        if why is None:
            where = extra.pop("where", None)
            text = source_text(self.gen.p, where.span) if where is not None else ""
            reason = "not a legal choice here" + (f": `{text}` must hold" if text else "")
            value = f"({reason!r}, {self.rule!r}, {where_args(node.span)})"
            why = ir.Function(f"site{index}_why", SITE_PARAMS, [ir.Return(X(value))])
        site = ir.Site(
            index, kind, X(players), legal, why, resume_fn, node.span.file, node.span.line,
            self.rule, **extra,
        )  # fmt: skip
        self.ctx.sites.append(site)

    def _value_legal(
        self, site: int, node, env: Env, descs: str, optional: bool
    ) -> tuple[ir.Function, ir.Function | None]:
        """`site<N>_legal` of a value choice (each domain value the guard allows), and the plain
        listing it falls back to when it computes reads once or walks a guard table (else None)."""
        name = f"site{site}_legal"
        plain = self._value_listing(name, node, env, descs, optional, None)
        with self.gen.numbered_apart(
            "h"
        ):  # the names the rest of the module gets stay as they were
            fast = self._value_listing(name, node, env, descs, optional, f"{name}_plain")
        if fast is None:
            return plain, None
        plain.name = f"{name}_plain"
        return fast, plain

    def _value_listing(
        self, name: str, node, env: Env, descs: str, optional: bool, fallback: str | None
    ) -> ir.Function | None:
        """The listing of a value choice; with a `fallback`, reads that depend on no value are
        computed once and the guard's part fixed by the map walks a table (None if neither)."""
        gen = self.gen
        hoist = {} if fallback is not None else None
        guard_env = replace(env, hoist=hoist).bind(node.name).bind("me", "me")
        var = guard_env.local(node.name)
        table = _action_table(self.ctx, node.name, 0, descs, [gen.cp.types[id(node)]])
        inner: list[ir.Stmt] = [
            ir.Eval(X(f"out.append({table}[{var}])"))
            if table is not None
            else _append_action(self.ctx, 0, node.name, f"({var},)", descs)
        ]
        domain = self.domain_iter(node.domain, env, node.span)
        where = gen.expr(node.where, guard_env) if node.where is not None else None
        walked, setup = False, []
        if fallback is not None and node.where is not None:
            tables = self.ctx.guard_tables()
            plan = tables.plan(node.name, node.domain, node.where, [], {node.name})
            if plan.table is not None or plan.walk is not None:
                table = tables.lookup(plan, name.removesuffix("_legal"), node.name, guard_env)
                size = self.static_size(node.domain)
                charge = gen.charge_args(node.domain, node.span)
                setup, domain = _walk_table([], domain, table, size, charge, node.span)
                where, walked = tables.residual(plan, guard_env), True
        if where is not None:
            inner = [ir.If([ir.Branch(X(where), inner, node.where.span)])]
        body: list[ir.Stmt] = [
            ir.Assign(X("out"), X("[]")),
            *setup,
            ir.For(X(var), X(domain), inner, node.span),
        ]
        if optional:
            body.append(ir.Eval(X(f"out.append(_A((1, {node.name!r}, (None,), {descs})))")))
        body.append(ir.Return(X("out")))
        if fallback is None:
            return ir.Function(name, ["S", "F", "me"], body)
        aliases = used_aliases(hoist, body)
        if not aliases and not walked:
            return None
        block = [
            ir.Try(
                [ir.Assign(X(a), X(c)) for c, a in aliases.items()],
                [ir.Return(X(f"{fallback}(S, F, me)"))],
            )
        ]
        return ir.Function(name, ["S", "F", "me"], (block if aliases else []) + body)

    def visit_Choose(self, node: ast.Choose, loops):
        gen = self.gen
        self.emit(ir.NeedsFrame())  # a frameless entry makes the frame here
        by = f"L['_by{self.frame_local_number()}']"
        value_t = gen.cp.types[id(node)]
        desc = gen.desc(OptT(value_t) if node.optional else value_t)
        descs = self.ctx.arg_descs(node.name, f"({desc},)")
        self.ctx.register_choice(node.name, descs, 0)
        resume = self.new_block()
        site = len(self.ctx.sites)
        legal, plain = self._value_legal(site, node, self.env, descs, node.optional)
        resume_fn = ir.Function(
            f"site{site}_resume",
            SITE_PARAMS,
            [
                ir.Assign(X(f"F.L[{node.name!r}]"), X("a[2][0]")),
                ir.Assign(X("F.pc"), X(str(resume))),
                ir.Return(X("True")),
            ],
        )
        players = f"lambda S, F: [F.L[{by[2:-1]}]]"
        self._add_site(
            "value", players, legal, resume_fn, node,
            where=node.where, frame=(self.pyname, resume), legal_plain=plain,
            private=id(node) in gen.cp.private_choices,
        )  # fmt: skip
        message = f"nothing to choose for {node.name}"
        self.emit(
            ir.Assign(X(by), X(gen.expr(node.by, self.env)), node.span),
            ir.Assign(X("_acts"), X(f"site{site}_legal(S, F, {by})")),
            ir.If([ir.Branch(X("not _acts"), [ir.RaiseRuleError(message, *_at(node))])]),
            ir.Eval(X(f"S.cache_legal({by}, _acts)")),
            ir.Suspend(site, resume),
        )
        self.goto(resume)

    def domain_iter(self, domain, env: Env, span, charge: bool = True) -> str:
        """Code iterating a choice domain in ascending order, without repeats.

        With `charge`, a domain whose size is not known when compiling is charged to the step
        budget (a range domain is also refused beyond MAX_DOMAIN values); `span` locates that.
        """
        gen = self.gen
        where = gen.charge_args(domain, span)  # weighted by what one value's test may cost
        forced = gen.costs.is_forced(domain)
        if isinstance(domain, ast.TypeDomain):
            tnode = domain.type
            if isinstance(tnode, ast.RangeType):
                lo, hi = gen.expr(tnode.lo, env), gen.expr(tnode.hi, env)
                step = gen.expr(tnode.step, env) if tnode.step is not None else "1"
                size = gen.range_size(tnode.lo, tnode.hi, tnode.step)
                if size is not None and size > MAX_DOMAIN:
                    self.ctx.errors.append(
                        (
                            f"this domain has {size:,} values, more than the limit of {MAX_DOMAIN:,}",
                            span,
                        )
                    )
                if not charge or (size is not None and size <= MAX_DOMAIN and not forced):
                    return f"range({lo}, ({hi}) + 1, {step})"
                return f"_l.domain(S, {lo}, {hi}, {step}, {where})"
            t = gen.checker_type(tnode)
            if isinstance(t, BoolT):
                code = "(False, True)"
            elif isinstance(t, EnumT | ElemT | PlayerT):
                code = f"range({gen.size_of(t)})"
            else:
                raise AssertionError("infinite domain")
            return f"_l.each(S, {code}, {where})" if charge and forced else code
        if isinstance(domain, ast.InDomain):
            t = gen.t(domain.collection)
            code = gen.expr(domain.collection, env)
            if isinstance(t, CollT) and t.kind == "bag":
                code = f"_l.bag_distinct({code})"
            elif not (
                isinstance(domain.collection, ast.RangeExpr)
                or _sorted_unique(gen, domain.collection)
            ):
                code = f"_l.distinct({code})"
            return f"_l.each(S, {code}, {where})" if charge else code
        self.check_subsets(domain, span)
        items = gen.items(domain.collection, env)
        lo = gen.expr(domain.lo, env) if domain.lo is not None else "0"
        hi = gen.expr(domain.hi, env) if domain.hi is not None else "10 ** 6"
        code = f"_l.subsets(S, {items}, {lo}, {hi}, {where})"
        # In a read-only enumeration a domain that depends on no parameter is computed once.
        parts = [domain.collection] + [b for b in (domain.lo, domain.hi) if b is not None]
        if env.hoist is not None and all(gen.invariant(part, env) for part in parts):
            return gen.hoisted(code, env)
        return code

    def check_subsets(self, domain, span) -> None:
        """Refuse a `subset of` a collection of known size with more than MAX_SUBSETS subsets."""
        gen = self.gen
        count = gen.const_size(domain.collection)
        lo = gen.const_int(domain.lo) if domain.lo is not None else 0
        hi = gen.const_int(domain.hi) if domain.hi is not None else count
        if count is None or lo is None or hi is None:
            return
        total = sum(comb(count, k) for k in range(max(lo, 0), min(hi, count) + 1))
        if total > MAX_SUBSETS:
            self.ctx.errors.append(
                (
                    f"`subset of` {count} items has {total:,} subsets, more than the limit of "
                    f"{MAX_SUBSETS:,}",
                    span,
                )
            )

    def static_size(self, domain) -> int | None:
        """The number of values of a domain when it is known while compiling, else None."""
        gen = self.gen
        if not isinstance(domain, ast.TypeDomain):
            return None
        tnode = domain.type
        if isinstance(tnode, ast.RangeType):
            size = gen.range_size(tnode.lo, tnode.hi, tnode.step)
            return size if size is not None and size <= MAX_DOMAIN else None
        t = gen.checker_type(tnode)
        if isinstance(t, BoolT):
            return 2
        if isinstance(t, PlayerT):
            return gen.p.players.hi if gen.p.players else 1
        return int(gen.size_of(t))

    def visit_EachChoose(self, node: ast.EachChoose, loops):
        gen = self.gen
        self.emit(ir.NeedsFrame())  # a frameless entry makes the frame here
        k = self.frame_local_number()
        who, sub = f"_who{k}", f"_sub{k}"
        inner = self.env.bind(node.var, "me")
        desc = gen.desc(gen.cp.types[id(node)])
        descs = self.ctx.arg_descs(node.name, f"({desc},)")
        self.ctx.register_choice(node.name, descs, 0)
        resume = self.new_block()
        site = len(self.ctx.sites)
        legal, plain = self._value_legal(site, node, inner, descs, optional=False)
        submit = f"_l.submit(S, F, p, a[2][0], {who!r}, {sub!r}, {node.name!r})"
        resume_fn = _resume_when(site, submit, resume)
        players = f"lambda S, F: [p for p in F.L[{who!r}] if p not in F.L[{sub!r}]]"
        self._add_site(
            "each", players, legal, resume_fn, node,
            where=node.where, frame=(self.pyname, resume), secret=(who, sub), legal_plain=plain,
            private=id(node) in gen.cp.private_choices,
        )  # fmt: skip
        start = f"_l.start_each(S, F, site{site}_legal, {who!r}, {sub!r}, {node.name!r})"
        self.emit(
            ir.Assign(X(f"L[{who!r}]"), X(f"list({gen.items(node.players, self.env)})"), node.span),
            ir.Assign(X(f"L[{sub!r}]"), X("{}")),
            ir.If([ir.Branch(X(start), [ir.Suspend(site, resume)])]),
        )
        self.jump(resume)
        self.goto(resume)

    def menu_functions(self, site: int, node) -> tuple[ir.Function, ir.Function, tuple[str, ...]]:
        """`site<N>_legal` (every offered action's legal arguments) and `site<N>_why` for a menu,
        and the actions it lists."""
        gen = self.gen
        offered = sorted(gen.p.offered(node.actions), key=lambda a: gen.action_rank.get(a, 0))
        body: list[ir.Stmt] = [ir.Assign(X("out"), X("[]"))]
        body += [ir.Eval(X(f"A_{n}_legal(S, me, out)")) for n in offered if n in gen.p.actions]
        body.append(ir.Return(X("out")))
        legal = ir.Function(f"site{site}_legal", ["S", "F", "me"], body)
        refusal = (
            f"(f'{{a[1]!r}} is not offered here (offered: {', '.join(offered)})', "
            f"{self.rule!r}, {where_args(node.span)})"
        )
        why = ir.Function(
            f"site{site}_why",
            SITE_PARAMS,
            [
                ir.If([ir.Branch(X(f"a[1] not in {tuple(offered)!r}"), [ir.Return(X(refusal))])]),
                ir.Return(X("ACTION_WHY[a[1]](S, p, a[2])")),
            ],
        )
        return legal, why, tuple(n for n in offered if n in gen.p.actions)

    def visit_ChooseAction(self, node: ast.ChooseAction, loops):
        gen = self.gen
        self.emit(ir.NeedsFrame())  # a frameless entry makes the frame here
        by = f"L['_by{self.frame_local_number()}']"
        resume = self.new_block()
        other = self.new_block() if node.orelse is not None else None
        site = len(self.ctx.sites)
        legal, why, offered = self.menu_functions(site, node)
        resume_fn = ir.Function(
            f"site{site}_resume",
            SITE_PARAMS,
            [
                ir.Assign(X("F.pc"), X(str(resume))),
                ir.Eval(X("S.stack.append(ACTION_FRAMES[a[1]](p, a[2]))")),
                ir.Return(X("True")),
            ],
        )
        players = f"lambda S, F: [F.L[{by[2:-1]}]]"
        self._add_site(
            "actions", players, legal, resume_fn, node,
            why=why, frame=(self.pyname, resume), offered=offered,
        )  # fmt: skip
        self.emit(
            ir.Assign(X(by), X(gen.expr(node.by, self.env)), node.span),
            ir.Assign(X("_acts"), X(f"site{site}_legal(S, F, {by})")),
            ir.If(
                [
                    ir.Branch(
                        X("_acts"),
                        [ir.Eval(X(f"S.cache_legal({by}, _acts)")), ir.Suspend(site, resume)],
                    )
                ]
            ),
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
        submit = f"_l.submit_action(S, F, p, a, {who!r}, {sub!r}, ACTION_FRAMES)"
        resume_fn = _resume_when(site, submit, resume)
        players = f"lambda S, F: [p for p in F.L[{who!r}] if p not in F.L[{sub!r}]]"
        self._add_site(
            "each_actions", players, legal, resume_fn, node,
            why=why, frame=(self.pyname, resume), secret=(who, sub), offered=offered,
        )  # fmt: skip
        start = f"_l.start_each_action(S, F, site{site}_legal, {who!r}, {sub!r}, ACTION_FRAMES)"
        self.emit(
            ir.Assign(X(f"L[{who!r}]"), X(f"list({gen.items(node.players, self.env)})"), node.span),
            ir.Assign(X(f"L[{sub!r}]"), X("{}")),
            ir.If([ir.Branch(X(start), [ir.Suspend(site, resume)])]),
            ir.Yield(resume),
        )
        self.goto(resume)


def _sorted_unique(gen, node: ast.Expr) -> bool:
    """True for a call of a builtin whose list is already ascending and without repeats."""
    return isinstance(gen.cp.ref(node), BuiltinRef) and BUILTINS[node.func].sorted_unique


def _at(node) -> tuple[str, int]:
    return node.span.file, node.span.line


def _resume_when(site: int, accepted: str, resume: int) -> ir.Function:
    """`site<N>_resume` for a simultaneous choice: resume once `accepted` says everyone has chosen."""
    done = [ir.Assign(X("F.pc"), X(str(resume))), ir.Return(X("True"))]
    return ir.Function(
        f"site{site}_resume",
        SITE_PARAMS,
        [ir.If([ir.Branch(X(accepted), done)]), ir.Return(X("False"))],
    )


# ---------------------------------------------------------------- actions


def lower_action(ctx: LoweringContext, name: str, decl: ast.ActionDecl, version: int) -> ir.Action:
    """An action's IR: legal enumerations (hoisted and plain), why-not function and body frame."""
    gen = ctx.gen
    within = (name, version)
    rank = gen.action_rank[name]
    types = [gen.cp.signatures[name].params[i][1] for i in range(len(decl.params))]
    descs = ctx.arg_descs(name, "(" + "".join(gen.desc(t) + ", " for t in types) + ")")
    ctx.action_descs[name] = (descs, rank)
    plain = _legal_function(ctx, name, decl, f"A_{name}_legal_plain", rank, descs, within, False)
    built = _action_table(ctx, name, rank, descs, types)
    legal = _legal_function(ctx, name, decl, f"A_{name}_legal", rank, descs, within, True, built)
    why = _why_function(ctx, name, decl, within)
    frame_name = f"a_{name}__{version}"
    body = FrameLowerer(ctx, frame_name, name, within).lower(decl.body)
    params = [p.name for p in decl.params]
    return ir.Action(name, frame_name, params, plain, legal, why, body)


MAX_ACTION_TABLE = 4096  # an action with at most this many argument combinations is built once


def _action_table(ctx: LoweringContext, name: str, rank: int, descs: str, types) -> str | None:
    """The module constant holding every action (or choice) of `name` built once, if its
    parameters all have few values (an enum, a kind, truth values): listing it then builds nothing."""
    domains, count = [], 1
    for t in types:
        if isinstance(t, BoolT):
            domains.append("(False, True)")
            count *= 2
        elif isinstance(t, EnumT | ElemT):
            size = int(ctx.gen.size_of(t))
            domains.append(f"range({size})")
            count *= size
        else:
            return None
    if count > MAX_ACTION_TABLE:
        return None
    table = f"ACTIONS_{ident(name)}"
    if table not in ctx.action_memos:  # a choice made at several places has one table
        ctx.action_memos.add(table)
        code = f"_l.action_table({rank}, {name!r}, {descs}, ({''.join(d + ', ' for d in domains)}))"
        ctx.action_tables.append(ir.Assign(X(table), X(code)))
    return table


def _append_action(ctx: LoweringContext, rank: int, name: str, args: str, descs: str) -> ir.Eval:
    """`out.append(…)` of the action with these arguments, looked up in the name's memo of
    actions already built (`MEMO_<name>`, runtime/lib.py `new_action`) and built on a miss."""
    memo = f"MEMO_{ident(name)}"
    if memo not in ctx.action_memos:
        ctx.action_memos.add(memo)
        ctx.action_tables.append(ir.Assign(X(memo), X("{}")))
    build = f"_l.new_action({memo}, {rank}, {name!r}, {args}, {descs})"
    return ir.Eval(X(f"out.append({memo}.get({args}) or {build})"))


def _refusal(message: str, rule: str, span) -> ir.Return:
    """`return (message, rule, file, line)`: why an action is refused."""
    return ir.Return(X(f"({message}, {rule!r}, {where_args(span)})"))


def _why_function(ctx: LoweringContext, name: str, decl: ast.ActionDecl, within) -> ir.Function:
    """`A_<name>_why`: the first reason an argument tuple is refused, or None."""
    gen = ctx.gen
    env = Env(frame=False, within=within).bind("me", "me")
    count = len(decl.params)
    body: list[ir.Stmt] = [
        ir.If(
            [
                ir.Branch(
                    X(f"len(args) != {count}"),
                    [_refusal(repr(f"{name} takes {count} argument(s)"), name, decl.span)],
                )
            ]
        )
    ]
    if decl.when is not None:
        text = source_text(gen.p, decl.when.span)
        message = repr(f"{name} is not allowed now: `{text}` does not hold")
        refusal = _refusal(message, name, decl.when.span)
        body.append(skip_unless(gen.expr(decl.when, env), refusal, decl.when.span))
    lowerer = FrameLowerer(ctx, "", name, within)
    for i, param in enumerate(decl.params):
        env = env.bind(param.name)
        var = env.local(param.name)
        body.append(ir.Assign(X(var), X(f"args[{i}]")))
        domain = lowerer.domain_iter(param.domain, env, param.span, charge=False)
        message = f"f'{name}: {{{var}!r}} is not a possible {param.name}'"
        refusal = _refusal(message, name, param.span)
        body.append(ir.If([ir.Branch(X(f"{var} not in {domain}"), [refusal], param.span)]))
        if param.where is not None:
            text = source_text(gen.p, param.where.span)
            message = repr(f"{name}: `{text}` does not hold for this {param.name}")
            refusal = _refusal(message, name, param.where.span)
            body.append(skip_unless(gen.expr(param.where, env), refusal, param.where.span))
    body.append(ir.Return(X("None")))
    return ir.Function(f"A_{name}_why", ["S", "me", "args"], body, decl.span)


def _legal_function(
    ctx: LoweringContext,
    name: str,
    decl: ast.ActionDecl,
    pyname: str,
    rank: int,
    descs: str,
    within: tuple[str, int],
    hoist: bool,
    built: str | None = None,
) -> ir.Function:
    """The enumeration of an action's legal arguments (taken from the table `built`, if any).

    With `hoist` (the hoisting optimisation), every state read and every aggregate that depends
    on no parameter is computed once before the loops (guards cannot change the state). Those
    precomputations may evaluate something a guard would have skipped; if one fails, the plain
    version runs instead, so the result is always exactly the plain one.
    """
    gen = ctx.gen
    types = [gen.cp.signatures[name].params[i][1] for i in range(len(decl.params))]
    tabulation = Tabulation() if hoist else None
    env = Env(frame=False, within=within, hoist={} if hoist else None, tabulation=tabulation)
    env = env.bind("me", "me")
    guard: list[ir.Stmt] = []
    if decl.when is not None:
        guard.append(skip_unless(gen.expr(decl.when, env), ir.Return(), decl.when.span))
    guard_aliases = dict(env.hoist or {})
    lowerer = FrameLowerer(ctx, "", name, within)
    # Domains of known size before the first other one cost nothing (their product is
    # bounded when compiling); every later one is counted each time it is walked, inline
    # because this is the hot path: one listing walks at most MAX_DOMAIN more values.
    combinations, free, counted = 1, True, False
    loops: list[tuple[list[ir.Stmt], str, str, ir.Stmt | None, object]] = []
    tests: list[str | None] = []  # each loop's test (the code of its `where`)
    static: list[StaticParam] = []  # earlier parameters with fixed domains (table dimensions)
    for i, param in enumerate(decl.params):
        env = env.bind(param.name)
        size = lowerer.static_size(param.domain)
        free = free and size is not None
        domain = lowerer.domain_iter(param.domain, env, param.span, charge=False)
        # Each value's tests (and the parameters after it) may cost several steps (pass `cost`).
        # The values listed are at most MAX_DOMAIN: only tests dearer than STEP_BUDGET/MAX_DOMAIN
        # steps each could take more than the budget unseen, so only those are charged.
        weighed = gen.costs.weight(param.domain) > STEP_BUDGET // MAX_DOMAIN
        charge = f"{gen.charge_args(param.domain, param.span)}"
        local = env.local(param.name)
        if tabulation is not None and _once_per_listing(domain):
            tabulation.values[local] = domain  # its values are computed once per listing
        where_code = gen.expr(param.where, env) if param.where is not None else None
        table = None
        if hoist:  # the listing walks a table of the values the guard's fixed part lets through
            tables = ctx.guard_tables()
            loop_vars = {p.name for p in decl.params[: i + 1]}
            plan = tables.plan(param.name, param.domain, param.where, static, loop_vars)
            if plan.table is not None or plan.walk is not None:
                tabulation.values.pop(local, None)
                tabulation.tables.pop(local, None)
                with gen.numbered_apart("t"):
                    table = tables.lookup(plan, name, param.name, env)
                    where_code = tables.residual(plan, env)
        here = static_param(gen, param.name, param.domain)
        if here is not None:
            static.append(here)
        setup: list[ir.Stmt] = []
        if free:
            if gen.costs.is_forced(param.domain):
                domain = f"_l.each(S, {domain}, {charge})"
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
            too_many = ir.Eval(X(f"_l.too_many_arguments({name!r}, {spot(param.span)})"))
            setup = [
                ir.Assign(
                    X(f"_d{i}"),
                    X(f"_l.each(S, {domain}, {charge})" if weighed else domain),
                    param.span,
                ),
                ir.Assign(X("_n"), X(f"len(_d{i})"), param.span, "+="),
                ir.If([ir.Branch(X(f"_n > {MAX_DOMAIN}"), [too_many])]),
            ]
            if weighed and table is None and isinstance(param.domain, ast.SubsetDomain):
                setup[:1] = _charged_inline(f"_d{i}", domain, gen.costs.weight(param.domain), param)
            domain = f"_d{i}"
        if table is not None:
            setup, domain = _walk_table(setup, domain, table, size, charge, param.span)
        where = None
        if where_code is not None:
            where = skip_unless(where_code, ir.Continue(), param.where.span)
        loops.append((setup, local, domain, where, param.span))
        tests.append(where_code)
    args = "".join(env.local(p.name) + ", " for p in decl.params)
    append = ir.Eval(X(f"out.append(_A(({rank}, {name!r}, ({args}), {descs})))"))
    if built is not None:
        indexes = "".join(f"[{env.local(p.name)}]" for p in decl.params)
        append = ir.Eval(X(f"out.append({built}{indexes})"))
    elif hoist:
        append = _append_action(ctx, rank, name, f"({args})", descs)
    count = [ir.Assign(X("_n"), X("0"))] if counted else []
    if not hoist:
        return ir.Function(
            pyname, ["S", "me", "out"], guard + count + _nest(loops, append), decl.span
        )
    loops = _with_tables(loops, tests, env, guard + _nest(loops, append))
    # Hoisted values are computed once, at the first loop whose tests need them: those of
    # inner loops only once an outer value has passed its (cheaper) tests.
    aliases = used_aliases(env.hoist, guard + _nest(loops, append))
    first = {c: a for c, a in aliases.items() if c in guard_aliases}
    depths = _first_use(aliases, guard, loops)
    for code, alias in aliases.items():
        if _READ.fullmatch(code):  # a field read costs less than checking whether it was made
            depths[alias] = min(depths[alias], 0)
    groups = [_at_depth(aliases, depths, d) for d in range(len(loops))]
    groups = [{c: a for c, a in group.items() if c not in guard_aliases} for group in groups]
    inner = [append]
    locals_ = (f"_a{number}" for number in itertools.count())
    for depth in reversed(range(len(loops))):
        setup, var, domain, where, span = loops[depth]
        if isinstance(types[depth], ElemT) and var.isidentifier():
            inner = bind_attributes(var, inner, locals_)
        inner = setup + [ir.For(X(var), X(domain), ([where] if where else []) + inner, span)]
        if depth > 0:
            inner = _lazy_block(groups[depth], name) + inner
    lazy = [group for group in groups[1:] if group]
    body = (
        _alias_block(first, name)
        + guard
        + _alias_block(groups[0] if groups else {}, name)
        + ([ir.Assign(X("_k"), X("len(out)"))] if lazy else [])
        + [ir.Assign(X(_lazy_marker(group)), X("_UNSET")) for group in lazy]
        + count
        + inner
    )
    return ir.Function(pyname, ["S", "me", "out"], body, decl.span)


def _charged_inline(name: str, domain: str, weight: int, param) -> list[ir.Stmt]:
    """`name = domain`, a list of subsets, its walk charged as `_l.each` charges it, inline (a
    listing may walk it once for every combination of the parameters before it)."""
    over = ir.Eval(X(f"_l.over_budget({spot(param.span)})"))
    return [
        ir.Assign(X(name), X(domain), param.span),
        ir.Assign(X("S._iters"), X(f"len({name}) * {weight}"), param.span, "+="),
        ir.If([ir.Branch(X(f"S._iters > {STEP_BUDGET}"), [over])]),
    ]


def _with_tables(loops: list, tests: list, env: Env, body: list[ir.Stmt]) -> list:
    """The loops, each walking its values paired with the aggregates over them its tests read.

    The pairs are made once per listing, when the loop is first reached. A loop whose test
    reads none of the parameters before it keeps only the values that pass it (and computes
    their aggregates only): the test is made once per value, not once per outer combination.
    (Doing that for loops without aggregates too was measured: it gained nothing, as most
    listings reach such a loop for one or two outer values.)
    """
    tabulation = env.tabulation
    code = " ".join(e.code for e in ir.expressions(body))
    out = []
    outer: list[str] = []  # the names earlier loops bind
    for number, (setup, var, domain, where, span) in enumerate(loops):
        tables = {
            aggregate: element
            for aggregate, element in tabulation.tables.get(var, {}).items()
            if _reads(code, element)
        }
        test = tests[number]
        alone = test is not None and outer and not any(_reads(test, name) for name in outer)
        names = [var, *tables.values()]
        if tables:
            values = tabulation.values[var]
            row = ", ".join(names)
            pairs = f"[({', '.join([var, *tables])}) for {var} in {values}]"
            if alone:
                if any(_reads(test, element) for element in tables.values()):
                    pairs = f"[({row}) for {row} in {pairs} if {test}]"
                else:
                    pairs = f"[({', '.join([var, *tables])}) for {var} in {values} if {test}]"
                where = None
            domain = Generator.hoisted(pairs, env)
            var = row
        outer += names
        out.append((setup, var, domain, where, span))
    return out


def _reads(code: str, name: str) -> bool:
    """True if generated `code` reads the Python variable `name`."""
    return re.search(rf"(?<![\w.]){re.escape(name)}\b", code) is not None


def _nest(loops: list, innermost: ir.Stmt) -> list[ir.Stmt]:
    """The parameters' loops, one inside the other, around the innermost statement."""
    inner: list[ir.Stmt] = [innermost]
    for setup, var, domain, where, span in reversed(loops):
        inner = setup + [ir.For(X(var), X(domain), ([where] if where else []) + inner, span)]
    return inner


_READ = re.compile(r"S\.[gp]_\w+(\[me\])?")  # a state field read by a listing
_ALIAS = re.compile(r"_h\d+")  # a value a listing computes once
_FEW = re.compile(r"range\((\d+)\)")  # every value of an enum or a kind
TABULATED_CONSTANTS = 16  # aggregates over at most this many values of a kind are tabulated


def _once_per_listing(domain: str) -> bool:
    """True if a parameter's values are computed once per listing, or fixed and few.

    An aggregate over a fixed domain is worth tabulating when the domain is small: the table
    takes every value's aggregate, and the loop may be reached for one outer value only.
    """
    few = _FEW.fullmatch(domain)
    return bool(_ALIAS.fullmatch(domain) or (few and int(few.group(1)) <= TABULATED_CONSTANTS))


def _first_use(aliases: dict[str, str], guard: list[ir.Stmt], loops: list) -> dict[str, int]:
    """For each hoisted alias, the first loop whose setup, domain or test needs it (-1: the guard)."""
    names = re.compile(r"\b_h\d+\b")
    depth = {alias: len(loops) for alias in aliases.values()}
    parts = [(-1, " ".join(e.code for e in ir.expressions(guard)))]
    for number, (setup, _, domain, where, _) in enumerate(loops):
        stmts = setup + ([where] if where else [])
        parts.append((number, domain + " " + " ".join(e.code for e in ir.expressions(stmts))))
    for number, code in parts:
        for alias in names.findall(code):
            if alias in depth:
                depth[alias] = min(depth[alias], number)
    # A value used to compute another one is needed where that one is.
    by_alias = {alias: code for code, alias in aliases.items()}
    for alias in reversed(list(by_alias)):
        for used in names.findall(by_alias[alias]):
            if used in depth:
                depth[used] = min(depth[used], depth[alias])
    return depth


def _at_depth(aliases: dict[str, str], depths: dict[str, int], depth: int) -> dict[str, str]:
    """The aliases first needed at one loop depth, in the order they were registered."""
    return {code: alias for code, alias in aliases.items() if depths[alias] == depth}


def _lazy_marker(group: dict[str, str]) -> str:
    """The alias whose being unset tells a lazily computed group has not run yet (its last)."""
    return list(group.values())[-1]


def _lazy_block(aliases: dict[str, str], name: str) -> list[ir.Stmt]:
    """Hoisted values needed first inside a loop: computed the first time it gets there.

    If one fails, what was listed so far is dropped and the plain enumeration runs instead.
    """
    if not aliases:
        return []
    fallback = [
        ir.Eval(X("del out[_k:]")),
        ir.Return(X(f"A_{name}_legal_plain(S, me, out)")),
    ]
    assigns: list[ir.Stmt] = [ir.Assign(X(alias), X(code)) for code, alias in aliases.items()]
    marker = _lazy_marker(aliases)
    return [ir.If([ir.Branch(X(f"{marker} is _UNSET"), [ir.Try(assigns, fallback)])])]


def _walk_table(
    setup: list[ir.Stmt], domain: str, table: str, size: int, charge: str, span
) -> tuple[list[ir.Stmt], str]:
    """A parameter's loop over its guard table instead of its domain (same setup, same charges).

    The step budget and the domain limit count the values as written, as the plain listing
    does: an optimisation never changes when a limit is reached.
    """
    charged = domain.startswith("_l.each(") or any(
        isinstance(s, ir.Assign) and s.value.code.startswith("_l.each(") for s in setup
    )
    out: list[ir.Stmt] = [ir.Eval(X(f"_l.times(S, {size}, {charge})"), span)] if charged else []
    for stmt in setup:
        if isinstance(stmt, ir.Assign) and stmt.op == "+=":
            out.append(ir.Assign(stmt.target, X(str(size)), stmt.span, "+="))
        elif isinstance(stmt, ir.If):
            out.append(stmt)
    return out, table


def used_aliases(aliases: dict[str, str], body: list[ir.Stmt]) -> dict[str, str]:
    """The hoisted reads (code -> alias) that `body`, or a used read, refers to.

    A read is registered as soon as its code is generated, also when an enclosing
    expression is then hoisted as a whole; those inner aliases are never read.
    """
    names = re.compile(r"\b_h\d+\b")
    used: set[str] = set()
    pending = [e.code for e in ir.expressions(body)]
    by_alias = {alias: code for code, alias in aliases.items()}
    while pending:
        for alias in names.findall(pending.pop()):
            if alias not in used and alias in by_alias:
                used.add(alias)
                pending.append(by_alias[alias])
    return {code: alias for code, alias in aliases.items() if alias in used}


def _alias_block(aliases: dict[str, str], name: str) -> list[ir.Stmt]:
    """Hoisted reads bound once, falling back to the plain enumeration if one fails."""
    if not aliases:
        return []
    fallback = ir.Return(X(f"A_{name}_legal_plain(S, me, out)"))
    assigns: list[ir.Stmt] = [ir.Assign(X(alias), X(code)) for code, alias in aliases.items()]
    return [ir.Try(assigns, [fallback])]
