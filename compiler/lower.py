"""Pass `lower`: procedures that wait for decisions become resumable state machines.

A body is cut into numbered blocks at every decision and at every call of a waiting
procedure. The function for a body runs `while True: dispatch on F.pc`, and each
block ends by jumping (`F.pc = k; continue`), suspending at a decision site
(`return SUSPEND`), pushing a callee frame (`return CALL`) or returning. Loops that
contain decisions keep their iterator and index in the frame's locals.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from compiler.codegen import Env, Generator, source_text
from compiler.pywriter import PyWriter
from compiler.types import BoolT, CollT, ElemT, EnumT, IntT, OptT, PlayerT
from dsl import ast
from runtime.limits import MAX_DOMAIN, MAX_SUBSETS


@dataclass
class LoopTargets:
    """Where `break` and `continue` jump inside a lowered loop."""

    exit: int
    head: int


class FrameLowerer:
    """Lowers one body into a frame procedure."""

    def __init__(self, gen: Generator, pyname: str, rule: str):
        self.gen = gen
        self.pyname = pyname
        self.rule = rule
        self.blocks: list[PyWriter] = []
        self.w = self.new_block_writer()
        self.env = Env(frame=True)

    def new_block_writer(self) -> PyWriter:
        writer = PyWriter(indent=3)
        self.blocks.append(writer)
        return writer

    def new_block(self) -> int:
        """Allocate a block; returns its number."""
        self.new_block_writer()
        return len(self.blocks) - 1

    def goto(self, block: int) -> None:
        """Write code that continues at a block."""
        self.w = self.blocks[block]

    def jump(self, target: int, span=None) -> None:
        """End the current path with a jump."""
        self.w.line(f"F.pc = {target}", span)
        self.w.line("continue")

    def lower(self, block: ast.Block) -> PyWriter:
        """The whole frame procedure for a body."""
        self.body(block, [])
        self.w.line("return _l.ret(F)")
        self.gen.frame_pcs[self.pyname] = len(self.blocks)
        out = PyWriter()
        out.line(f"def {self.pyname}(S, F):")
        with out.indented():
            out.line("L = F.L")
            out.line("while True:")
            with out.indented():
                out.line("pc = F.pc")
                for number, writer in enumerate(self.blocks):
                    out.line(f"{'if' if number == 0 else 'elif'} pc == {number}:")
                    with out.indented():
                        if not writer.lines:
                            writer.line("return _l.ret(F)")
                        out.extend(writer)
                out.line("else:")
                with out.indented():
                    out.line("raise AssertionError('bad program counter')")
        return out

    def body(self, block: ast.Block, loops: list[LoopTargets]) -> None:
        """Lower a block's statements into the current and new blocks."""
        for stmt in block.stmts:
            self.stmt(stmt, loops)
        if block.returns:
            self.w.line("return _l.ret(F)", block.span)

    def stmt(self, node: ast.Stmt, loops: list[LoopTargets]) -> None:
        """Lower one statement (plain Python if it neither waits nor jumps out)."""
        gen = self.gen
        if not gen.waits(node) and not (loops and gen.escapes(node)):
            gen.stmt(node, self.w, self.env)
            return
        getattr(self, f"l_{type(node).__name__}")(node, loops)

    # ------------------------------------------------------------ control flow

    def l_Break(self, node, loops):
        self.jump(loops[-1].exit, node.span)

    def l_Continue(self, node, loops):
        self.jump(loops[-1].head, node.span)

    def l_If(self, node: ast.If, loops):
        targets = [self.new_block() for _ in node.branches]
        other = self.new_block() if node.orelse is not None else None
        join = self.new_block()
        for i, (cond, _) in enumerate(node.branches):
            self.w.line(f"{'if' if i == 0 else 'elif'} {self.gen.expr(cond, self.env)}:", cond.span)
            with self.w.indented():
                self.jump(targets[i])
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

    def l_For(self, node: ast.For, loops):
        k = self.gen.fresh()
        it, i = f"L['_it{k}']", f"L['_i{k}']"
        self.w.line(f"{it} = list({self.gen.items(node.iterable, self.env)})", node.span)
        self._counted_loop(node, loops, f"len({it})", i, f"{self.env.local(node.var)} = {it}[{i}]")

    def l_Repeat(self, node: ast.Repeat, loops):
        k = self.gen.fresh()
        n, i = f"L['_n{k}']", f"L['_i{k}']"
        self.w.line(
            f"{n} = _l.times(S, {self.gen.expr(node.count, self.env)}, {node.span.file!r}, "
            f"{node.span.line!r})",
            node.span,
        )
        self._counted_loop(node, loops, n, i)

    def _counted_loop(
        self, node: ast.For | ast.Repeat, loops, limit: str, index: str, fetch: str | None = None
    ) -> None:
        """Run the body while `index` counts from 0 up to `limit`; `fetch` binds each item first."""
        head, exit_ = self.new_block(), self.new_block()
        self.w.line(f"{index} = 0")
        self.jump(head)
        self.goto(head)
        self.w.line(f"if {index} >= {limit}:")
        with self.w.indented():
            self.jump(exit_)
        if fetch is not None:
            self.w.line(fetch)
        self.w.line(f"{index} += 1")
        where = getattr(node, "where", None)
        if where is not None:
            self.w.line(f"if not {self.gen.expr(where, self.env)}:", where.span)
            with self.w.indented():
                self.jump(head)
        self.body(node.body, loops + [LoopTargets(exit_, head)])
        self.jump(head)
        self.goto(exit_)

    def l_While(self, node: ast.While, loops):
        head, exit_ = self.new_block(), self.new_block()
        self.jump(head)
        self.goto(head)
        self.w.line(f"_l.tick(S, {node.span.file!r}, {node.span.line!r})", node.span)
        self.w.line(f"if not {self.gen.expr(node.cond, self.env)}:", node.span)
        with self.w.indented():
            self.jump(exit_)
        self.body(node.body, loops + [LoopTargets(exit_, head)])
        self.jump(head)
        self.goto(exit_)

    def l_Loop(self, node: ast.Loop, loops):
        head, exit_ = self.new_block(), self.new_block()
        self.jump(head)
        self.goto(head)
        self.w.line(f"_l.tick(S, {node.span.file!r}, {node.span.line!r})", node.span)
        self.body(node.body, loops + [LoopTargets(exit_, head)])
        self.jump(head)
        self.goto(exit_)

    # ------------------------------------------------------------ calls of waiting procedures

    def _call(self, call: ast.Expr, after_target: str | None, span) -> None:
        gen = self.gen
        if isinstance(call, ast.SuperCall):
            name, version = gen.current_versions
            callee = gen.version_name("s", name, version - 1)
            decl = gen.p.procedures[name].versions[version - 1]
        else:
            callee, _ = gen.callable_name(call.func)
            decl = gen.p.procedures[call.func].active
        params = ", ".join(
            f"{p.name!r}: {gen.checked(gen.expr(a, self.env), a, gen.t(a))}"
            for p, a in zip(decl.params, call.args, strict=True)
        )
        resume = self.new_block()
        self.w.line(f"S.stack.append(_Frame({callee!r}, {{{params}}}))", span)
        self.w.line(f"F.pc = {resume}")
        self.w.line("return _CALL")
        self.goto(resume)
        if after_target is not None:
            result = gen.t(call)
            check = (
                "_l.opt_int_ok"
                if isinstance(result, OptT) and isinstance(result.inner, IntT)
                else ("_l.int_ok" if isinstance(result, IntT) else "")
            )
            self.w.line(
                f"{after_target} = {check}(F.ret)" if check else f"{after_target} = F.ret", span
            )

    def l_ExprStmt(self, node: ast.ExprStmt, loops):
        self._call(node.expr, None, node.span)

    def l_Let(self, node: ast.Let, loops):
        self._call(node.value, self.env.local(node.name), node.span)

    def l_Assign(self, node: ast.Assign, loops):
        if node.op == "=":
            self._call(node.value, self.gen.expr(node.target, self.env), node.span)
        else:  # `x += wait()`: the target is read when the call has returned
            self._call(node.value, None, node.span)
            self.gen.assign(node, "F.ret", self.w, self.env)

    # ------------------------------------------------------------ decisions

    def l_Choose(self, node: ast.Choose, loops):
        gen = self.gen
        k = gen.fresh()
        by = f"L['_by{k}']"
        value_t = gen.cp.types[id(node)]
        desc = gen.desc(OptT(value_t) if node.optional else value_t)
        rank = 0
        gen.register_choice(node.name, desc, rank, node.span)
        resume = self.new_block()
        site = len(gen.sites)
        guard_env = self.env.bind(node.name).bind("me", "me")
        legal = PyWriter()
        legal.line(f"def site{site}_legal(S, F, me):")
        with legal.indented():
            legal.line("L = F.L")
            legal.line("out = []")
            legal.line(
                f"for {guard_env.local(node.name)} in {self.domain_iter(node.domain, self.env, node.span)}:",
                node.span,
            )
            with legal.indented():
                if node.where is not None:
                    legal.line(f"if {gen.expr(node.where, guard_env)}:", node.where.span)
                    with legal.indented():
                        legal.line(
                            f"out.append(_A(({rank}, {node.name!r}, ({guard_env.local(node.name)},), "
                            f"({desc},))))"
                        )
                else:
                    legal.line(
                        f"out.append(_A(({rank}, {node.name!r}, ({guard_env.local(node.name)},), ({desc},))))"
                    )
            if node.optional:
                legal.line(f"out.append(_A(({rank + 1}, {node.name!r}, (None,), ({desc},))))")
            legal.line("return out")
        resume_fn = PyWriter()
        resume_fn.line(f"def site{site}_resume(S, F, p, a):")
        with resume_fn.indented():
            resume_fn.line(f"F.L[{node.name!r}] = a[2][0]")
            resume_fn.line(f"F.pc = {resume}")
            resume_fn.line("return True")
        players = f"lambda S, F: [F.L['_by{k}']]"
        gen.add_site(
            "value",
            players,
            legal,
            resume_fn,
            node,
            self.rule,
            where=node.where,
            frame=(self.pyname, resume),
        )
        self.w.line(f"{by} = {gen.expr(node.by, self.env)}", node.span)
        self.w.line(f"_acts = site{site}_legal(S, F, {by})")
        self.w.line("if not _acts:")
        with self.w.indented():
            self.w.line(
                f"raise _RuleError('nothing to choose for {node.name}', {node.span.file!r}, "
                f"{node.span.line!r})"
            )
        self.w.line(f"S.cache_legal({by}, _acts)")
        self.w.line(f"S.site = {site}")
        self.w.line(f"F.pc = {resume}")
        self.w.line("return _SUSPEND")
        self.goto(resume)

    def domain_iter(self, domain, env: Env, span, charge: bool = True) -> str:
        """Code iterating a choice domain in ascending order, without repeats.

        With `charge`, a domain whose size is not known when compiling is charged to the step
        budget (a range domain is also refused beyond MAX_DOMAIN values); `span` locates that.
        """
        gen = self.gen
        where = f"{span.file!r}, {span.line!r}"
        if isinstance(domain, ast.TypeDomain):
            tnode = domain.type
            if isinstance(tnode, ast.RangeType):
                lo, hi = gen.expr(tnode.lo, env), gen.expr(tnode.hi, env)
                step = gen.expr(tnode.step, env) if tnode.step is not None else "1"
                size = gen.range_size(tnode.lo, tnode.hi, tnode.step)
                if size is not None and size > MAX_DOMAIN:
                    gen.errors.append(
                        (
                            f"this domain has {size:,} values, more than the limit of {MAX_DOMAIN:,}",
                            span,
                        )
                    )
                if not charge or (size is not None and size <= MAX_DOMAIN):
                    return f"range({lo}, ({hi}) + 1, {step})"
                return f"_l.domain(S, {lo}, {hi}, {step}, {where})"
            t = gen.checker_type(tnode)
            if isinstance(t, BoolT):
                return "(False, True)"
            if isinstance(t, EnumT | ElemT | PlayerT):
                return f"range({gen.size_of(t)})"
            raise AssertionError("infinite domain")
        if isinstance(domain, ast.InDomain):
            t = gen.t(domain.collection)
            code = gen.expr(domain.collection, env)
            if isinstance(t, CollT) and t.kind == "bag":
                code = f"_l.bag_distinct({code})"
            elif not isinstance(domain.collection, ast.RangeExpr):
                code = f"_l.distinct({code})"
            return f"_l.each(S, {code}, {where})" if charge else code
        self.check_subsets(domain, span)
        items = gen.items(domain.collection, env)
        lo = gen.expr(domain.lo, env) if domain.lo is not None else "0"
        hi = gen.expr(domain.hi, env) if domain.hi is not None else "10 ** 6"
        code = f"_l.subsets(S, {items}, {lo}, {hi}, {where})"
        # In a read-only enumeration a domain that depends on no parameter is computed once.
        parts = [domain.collection] + [b for b in (domain.lo, domain.hi) if b is not None]
        if gen.hoist is not None and all(gen.invariant(part, env) for part in parts):
            return gen.hoisted(code)
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
            gen.errors.append(
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

    def l_EachChoose(self, node: ast.EachChoose, loops):
        gen = self.gen
        k = gen.fresh()
        who, sub = f"_who{k}", f"_sub{k}"
        inner = self.env.bind(node.var, "me")
        value_t = gen.cp.types[id(node)]
        desc = gen.desc(value_t)
        gen.register_choice(node.name, desc, 0, node.span)
        resume = self.new_block()
        site = len(gen.sites)
        guard_env = inner.bind(node.name).bind("me", "me")
        legal = PyWriter()
        legal.line(f"def site{site}_legal(S, F, me):")
        with legal.indented():
            legal.line("L = F.L")
            legal.line("out = []")
            legal.line(
                f"for {guard_env.local(node.name)} in {self.domain_iter(node.domain, inner, node.span)}:",
                node.span,
            )
            with legal.indented():
                cond = gen.expr(node.where, guard_env) if node.where is not None else "True"
                legal.line(f"if {cond}:")
                with legal.indented():
                    legal.line(
                        f"out.append(_A((0, {node.name!r}, ({guard_env.local(node.name)},), ({desc},))))"
                    )
            legal.line("return out")
        resume_fn = PyWriter()
        resume_fn.line(f"def site{site}_resume(S, F, p, a):")
        with resume_fn.indented():
            resume_fn.line(f"if _l.submit(S, F, p, a[2][0], {who!r}, {sub!r}, {node.name!r}):")
            with resume_fn.indented():
                resume_fn.line(f"F.pc = {resume}")
                resume_fn.line("return True")
            resume_fn.line("return False")
        players = f"lambda S, F: [p for p in F.L[{who!r}] if p not in F.L[{sub!r}]]"
        gen.add_site(
            "each",
            players,
            legal,
            resume_fn,
            node,
            self.rule,
            where=node.where,
            frame=(self.pyname, resume),
            secret=(who, sub),
        )
        self.w.line(f"L[{who!r}] = list({gen.items(node.players, self.env)})", node.span)
        self.w.line(f"L[{sub!r}] = {{}}")
        self.w.line(f"if _l.start_each(S, F, site{site}_legal, {who!r}, {sub!r}, {node.name!r}):")
        with self.w.indented():
            self.w.line(f"S.site = {site}")
            self.w.line(f"F.pc = {resume}")
            self.w.line("return _SUSPEND")
        self.jump(resume)
        self.goto(resume)

    def menu_functions(self, site: int, node) -> tuple[PyWriter, PyWriter]:
        """`site<N>_legal` (every offered action's legal arguments) and `site<N>_why` for a menu."""
        gen = self.gen
        offered = sorted(gen.p.offered(node.actions), key=lambda a: gen.action_rank.get(a, 0))
        legal = PyWriter()
        legal.line(f"def site{site}_legal(S, F, me):")
        with legal.indented():
            legal.line("out = []")
            for name in offered:
                if name in gen.p.actions:
                    legal.line(f"A_{name}_legal(S, me, out)")
            legal.line("return out")
        why = PyWriter()
        why.line(f"def site{site}_why(S, F, p, a):")
        with why.indented():
            why.line(f"if a[1] not in {tuple(offered)!r}:")
            with why.indented():
                why.line(
                    f"return (f'{{a[1]!r}} is not offered here (offered: {', '.join(offered)})', "
                    f"{self.rule!r}, {node.span.file!r}, {node.span.line!r})"
                )
            why.line("return ACTION_WHY[a[1]](S, p, a[2])")
        return legal, why

    def l_ChooseAction(self, node: ast.ChooseAction, loops):
        gen = self.gen
        k = gen.fresh()
        by = f"L['_by{k}']"
        resume = self.new_block()
        other = self.new_block() if node.orelse is not None else None
        site = len(gen.sites)
        legal, why = self.menu_functions(site, node)
        resume_fn = PyWriter()
        resume_fn.line(f"def site{site}_resume(S, F, p, a):")
        with resume_fn.indented():
            resume_fn.line(f"F.pc = {resume}")
            resume_fn.line("S.stack.append(ACTION_FRAMES[a[1]](p, a[2]))")
            resume_fn.line("return True")
        players = f"lambda S, F: [F.L['_by{k}']]"
        gen.add_site(
            "actions",
            players,
            legal,
            resume_fn,
            node,
            self.rule,
            why=why,
            frame=(self.pyname, resume),
        )
        self.w.line(f"{by} = {gen.expr(node.by, self.env)}", node.span)
        self.w.line(f"_acts = site{site}_legal(S, F, {by})")
        self.w.line("if _acts:")
        with self.w.indented():
            self.w.line(f"S.cache_legal({by}, _acts)")
            self.w.line(f"S.site = {site}")
            self.w.line(f"F.pc = {resume}")
            self.w.line("return _SUSPEND")
        self.jump(other if other is not None else resume)
        if other is not None:
            self.goto(other)
            self.body(node.orelse, loops)
            self.jump(resume)
        self.goto(resume)

    def l_EachChooseAction(self, node: ast.EachChooseAction, loops):
        gen = self.gen
        k = gen.fresh()
        who, sub = f"_who{k}", f"_sub{k}"
        resume = self.new_block()
        site = len(gen.sites)
        legal, why = self.menu_functions(site, node)
        resume_fn = PyWriter()
        resume_fn.line(f"def site{site}_resume(S, F, p, a):")
        with resume_fn.indented():
            resume_fn.line(f"if _l.submit_action(S, F, p, a, {who!r}, {sub!r}, ACTION_FRAMES):")
            with resume_fn.indented():
                resume_fn.line(f"F.pc = {resume}")
                resume_fn.line("return True")
            resume_fn.line("return False")
        players = f"lambda S, F: [p for p in F.L[{who!r}] if p not in F.L[{sub!r}]]"
        gen.add_site(
            "each_actions",
            players,
            legal,
            resume_fn,
            node,
            self.rule,
            why=why,
            frame=(self.pyname, resume),
            secret=(who, sub),
        )
        self.w.line(f"L[{who!r}] = list({gen.items(node.players, self.env)})", node.span)
        self.w.line(f"L[{sub!r}] = {{}}")
        self.w.line(
            f"if _l.start_each_action(S, F, site{site}_legal, {who!r}, {sub!r}, ACTION_FRAMES):"
        )
        with self.w.indented():
            self.w.line(f"S.site = {site}")
            self.w.line(f"F.pc = {resume}")
            self.w.line("return _SUSPEND")
        self.w.line(f"F.pc = {resume}")
        self.w.line("return _CALL")
        self.goto(resume)


def action_functions(
    gen: Generator, name: str, decl: ast.ActionDecl, version: int
) -> list[PyWriter]:
    """`A_<name>_legal` (enumerates legal argument tuples) and `A_<name>_why` (explains a refusal)."""
    rank = gen.action_rank[name]
    types = [gen.cp.signatures[name].params[i][1] for i in range(len(decl.params))]
    descs = "(" + "".join(gen.desc(t) + ", " for t in types) + ")"
    gen.action_descs[name] = (descs, rank)
    plain = _legal_function(gen, name, decl, f"A_{name}_legal_plain", rank, descs, hoist=False)
    legal = _legal_function(gen, name, decl, f"A_{name}_legal", rank, descs, hoist=True)
    why = PyWriter()
    why.line(f"def A_{name}_why(S, me, args):", decl.span)
    env = Env(frame=False).bind("me", "me")
    with why.indented():
        why.line(f"if len(args) != {len(decl.params)}:")
        with why.indented():
            why.line(
                f"return ('{name} takes {len(decl.params)} argument(s)', {name!r}, "
                f"{decl.span.file!r}, {decl.span.line!r})"
            )
        if decl.when is not None:
            text = source_text(gen.p, decl.when.span)
            why.line(f"if not {gen.expr(decl.when, env)}:", decl.when.span)
            with why.indented():
                why.line(
                    f"return ({f'{name} is not allowed now: `{text}` does not hold'!r}, {name!r}, "
                    f"{decl.when.span.file!r}, {decl.when.span.line!r})"
                )
        lowerer = FrameLowerer(gen, "", name)
        for i, param in enumerate(decl.params):
            env = env.bind(param.name)
            var = env.local(param.name)
            why.line(f"{var} = args[{i}]")
            why.line(
                f"if {var} not in {lowerer.domain_iter(param.domain, env, param.span, charge=False)}:",
                param.span,
            )
            with why.indented():
                why.line(
                    f"return (f'{name}: {{{var}!r}} is not a possible {param.name}', {name!r}, "
                    f"{param.span.file!r}, {param.span.line!r})"
                )
            if param.where is not None:
                text = source_text(gen.p, param.where.span)
                why.line(f"if not {gen.expr(param.where, env)}:", param.where.span)
                with why.indented():
                    why.line(
                        f"return ({f'{name}: `{text}` does not hold for this {param.name}'!r}, "
                        f"{name!r}, {param.where.span.file!r}, {param.where.span.line!r})"
                    )
        why.line("return None")
    body = FrameLowerer(gen, f"a_{name}__{version}", name)
    return [plain, legal, why, body.lower(decl.body)]


def _legal_function(
    gen: Generator, name: str, decl: ast.ActionDecl, pyname: str, rank: int, descs: str, hoist: bool
) -> PyWriter:
    """The enumeration of an action's legal arguments.

    With `hoist`, every state read and every aggregate that depends on no parameter is computed
    once before the loops (guards cannot change the state). Those precomputations may evaluate
    something a guard would have skipped; if one fails, the plain version runs instead, so the
    result is always exactly the plain one.
    """
    env = Env(frame=False).bind("me", "me")
    legal = PyWriter()
    legal.line(f"def {pyname}(S, me, out):", decl.span)
    gen.hoist = {} if hoist else None
    with legal.indented():
        guard_at = len(legal.lines)
        if decl.when is not None:
            legal.line(f"if not {gen.expr(decl.when, env)}:", decl.when.span)
            with legal.indented():
                legal.line("return")
        guard_aliases = dict(gen.hoist or {})
        loops_at = len(legal.lines)
        lowerer = FrameLowerer(gen, "", name)
        depth = 0
        # Domains of known size before the first other one cost nothing (their product is
        # bounded when compiling); every later one is counted each time it is walked, inline
        # because this is the hot path: one listing walks at most MAX_DOMAIN more values.
        combinations, free, counted = 1, True, False
        for i, param in enumerate(decl.params):
            env = env.bind(param.name)
            size = lowerer.static_size(param.domain)
            free = free and size is not None
            domain = lowerer.domain_iter(param.domain, env, param.span, charge=False)
            if free:
                within, combinations = combinations <= MAX_DOMAIN, combinations * size
                if within and combinations > MAX_DOMAIN:
                    gen.errors.append(
                        (
                            f"action '{name}' has more than {MAX_DOMAIN:,} combinations of "
                            "arguments (the domain limit)",
                            param.span,
                        )
                    )
            else:
                if not counted:
                    legal.lines.insert(loops_at, (legal.level - depth, "_n = 0", None))
                    counted = True
                legal.line(f"_d{i} = {domain}", param.span)
                legal.line(f"_n += len(_d{i})", param.span)
                legal.line(f"if _n > {MAX_DOMAIN}:")
                with legal.indented():
                    legal.line(
                        f"_l.too_many_arguments({name!r}, {param.span.file!r}, {param.span.line!r})"
                    )
                domain = f"_d{i}"
            legal.line(f"for {env.local(param.name)} in {domain}:", param.span)
            legal.level += 1
            depth += 1
            if param.where is not None:
                legal.line(f"if not {gen.expr(param.where, env)}:", param.where.span)
                with legal.indented():
                    legal.line("continue")
        args = "".join(env.local(p.name) + ", " for p in decl.params)
        legal.line(f"out.append(_A(({rank}, {name!r}, ({args}), {descs})))")
        legal.level -= depth
    if hoist:
        later = {code: alias for code, alias in gen.hoist.items() if code not in guard_aliases}
        legal.lines[loops_at:loops_at] = _alias_block(later, name)
        legal.lines[guard_at:guard_at] = _alias_block(guard_aliases, name)
    gen.hoist = None
    return legal


def _alias_block(aliases: dict[str, str], name: str) -> list:
    if not aliases:
        return []
    lines = [(1, "try:", None)]
    lines += [(2, f"{alias} = {code}", None) for code, alias in aliases.items()]
    lines += [(1, "except Exception:", None), (2, f"return A_{name}_legal_plain(S, me, out)", None)]
    return lines
