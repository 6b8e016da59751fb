"""How emit writes a frame procedure (compiler/emit.py builds on this): the frame version, a
loop dispatching on the frame's program counter; the frameless entry of a called procedure
(`<name>_enter`, compiler/entries.py); and the driven version (`<name>_drive`,
compiler/drives.py) that the frameless driver runs (runtime/driver.py).

The entry and the driven version write the same blocks with the frame's locals as Python
variables. Where a decision starts (`ir.NeedsFrame`) both make the frame the procedure would
have there; the entry then goes on as the frame version, while the driven version asks its
driver `D` for the decision at once (the driver runs whatever the choice starts, driven too)
and goes on with its locals read back from that frame.
"""

from __future__ import annotations

from compiler import ir
from compiler.blocks import reachable, threaded
from compiler.drives import Drive
from compiler.entries import Entry, local
from compiler.literals import ident

MAX_INLINE_LEVEL = 40  # a block is written at its jump only up to this indentation


def _entered(proc: ir.FrameProc) -> set[int]:
    """The blocks control can reach: the first, those jumped to, and resume points."""
    found = {0}
    for block in proc.blocks:
        for stmt in _statements(block):
            if isinstance(stmt, ir.Jump):
                found.add(stmt.target)
            elif isinstance(stmt, ir.Suspend | ir.PushCall | ir.Yield):
                found.add(stmt.resume)
    return found


def _single_entry(
    proc: ir.FrameProc, unwritten: frozenset[int] = frozenset(), calls_return: bool = False
) -> set[int]:
    """Blocks entered by exactly one jump and never resumed at (the entry block is not one),
    counting the jumps of the blocks written (a frameless entry does not write `unwritten`);
    with `calls_return`, a call's resume point counts as a jump (the driven version calls)."""
    jumps: dict[int, int] = {}
    resumed = {0}
    for number, block in enumerate(proc.blocks):
        if number in unwritten:
            continue
        for stmt in _statements(block):
            if isinstance(stmt, ir.Jump) or (calls_return and isinstance(stmt, ir.PushCall)):
                target = stmt.target if isinstance(stmt, ir.Jump) else stmt.resume
                jumps[target] = jumps.get(target, 0) + 1
            elif isinstance(stmt, ir.Suspend | ir.PushCall | ir.Yield):
                resumed.add(stmt.resume)
    return {number for number, count in jumps.items() if count == 1 and number not in resumed}


def _statements(stmts: list[ir.Stmt]):
    """Every statement of a block that can run, those inside branches included."""
    for stmt in reachable(stmts):
        yield stmt
        if isinstance(stmt, ir.If):
            for branch in stmt.branches:
                yield from _statements(branch.body)
            yield from _statements(stmt.orelse or [])


class ProcWriter:
    """The writing of frame procedures, mixed into emit's CodeGenerator (which provides the
    writer `w`, `stmts`, `code`, `bare`, `uses` and the state these methods set, its
    `__init__` says what each holds)."""

    def frame_proc(self, proc: ir.FrameProc) -> None:
        """A frame procedure: a loop dispatching on the program counter to its blocks.

        A block entered by one jump only (not where the frame resumes) is written where that
        jump is, so most steps run straight on instead of going round the dispatch loop.
        """
        self.origin = None
        w = self.w
        proc = threaded(proc)
        self.proc, self.inlining, self.dispatched = proc, [], set()
        entered = _entered(proc)
        self.single = _single_entry(proc, frozenset(range(len(proc.blocks))) - entered)
        if proc.name in self.entries:  # its entry's frame goes on there through this version
            self.single -= self.entries[proc.name].framed_jumps
        w.line(f"def {proc.name}(S, F):")
        self.here = set()
        with w.indented():
            at = len(w.lines)
            w.line("while True:")
            with w.indented():
                w.line("pc = F.pc")
                self._dispatch(proc, [n for n in sorted(entered) if n not in self.single], set())
            self._bind_frame_locals(at)
        self.proc = None
        self.gap()
        if proc.name in self.entries:
            self.frameless_entry(proc, self.entries[proc.name])
        if proc.drive is not None:
            self.driven(proc, proc.drive)

    def _dispatch(self, proc: ir.FrameProc, pending: list[int], written: set[int]) -> None:
        """`if`/`elif pc == N:` for each pending block (and each block of one entry reached by a
        jump it could not be written at), then `else: raise` (a bad program counter)."""
        w = self.w
        while pending:
            number = pending.pop(0)
            w.line(f"{'if' if not written else 'elif'} pc == {number}:")
            written.add(number)
            with w.indented():
                self.inlining = [number]
                self.stmts(proc.blocks[number])
            pending += sorted(self.dispatched - written - set(pending))
        w.line("else:")
        with w.indented():
            w.line("raise AssertionError('bad program counter')")

    def frameless_entry(self, proc: ir.FrameProc, entry: Entry) -> None:
        """`<name>_enter(S, …)`: the procedure run without a frame until a block needs one.

        The same blocks as the frame version, the locals as variables (one not yet set holds
        `_UNSET`, so the frame made at a hand-over holds just what it would have held).
        """
        params = "".join(", " + local(name) for name in entry.params)
        unwritten = frozenset(range(len(proc.blocks))) - entry.written
        self._with_variables(proc, entry, f"def {proc.name}_enter(S{params}):", unwritten)

    def driven(self, proc: ir.FrameProc, drive: Drive) -> None:
        """`<name>_drive(S, D, …)`: the procedure run by the frameless driver `D`, its locals as
        variables, its calls plain calls of the callees' driven versions, its decisions asked
        of `D` at once (compiler/drives.py)."""
        params = "".join(", " + local(name) for name in drive.params)
        prologue = []
        if drive.packed:  # an action's: `me` and its arguments' tuple, as a menu has them
            params = f", {local(drive.params[0])}, _args"
            if len(drive.params) > 1:
                prologue = [", ".join(local(name) for name in drive.params[1:]) + ", = _args"]
        self.driving = True
        try:
            header = f"def {proc.name}_drive(S, D{params}):"
            self._with_variables(proc, drive, header, calls=True, prologue=prologue)
            self._driven_from_frame(proc, drive)
        finally:
            self.driving = False

    def _driven_from_frame(self, proc: ir.FrameProc, drive: Drive) -> None:
        """`<name>_drive_from(S, D, F)`: the driven version going on from a frame of the runner's
        (its locals, program counter and last call's result), where a game the runner played
        so far is played on by the driver (`runtime.driver.play_out`)."""
        self.origin = None
        w = self.w
        proc = threaded(proc)
        entered = _entered(proc)
        self.proc, self.inlining, self.dispatched = proc, [], set()
        self.single = _single_entry(proc, frozenset(range(len(proc.blocks))) - entered)
        self.entry = drive
        self.entry_locals, self.entry_base, self.entry_ret = set(), False, False
        names = drive.params + drive.others
        w.line(f"def {proc.name}_drive_from(S, D, F):")
        with w.indented():
            at = len(w.lines)
            w.line("_ret = F.ret")
            w.line("pc = F.pc")
            w.line("while True:")
            with w.indented():
                self._dispatch(proc, [n for n in sorted(entered) if n not in self.single], set())
            used = [name for name in names if name in self.entry_locals]  # what the blocks read
            start = [f"{local(name)} = L.get({name!r}, _UNSET)" for name in used]
            if used:
                self.uses("_UNSET")
                start.insert(0, "L = F.L")
            w.lines[at:at] = [(w.level, line, None) for line in start]
        self.entry = None
        self.proc = None
        self.gap()

    def _with_variables(
        self,
        proc: ir.FrameProc,
        plan: Entry | Drive,
        header: str,
        unwritten: frozenset[int] = frozenset(),
        calls: bool = False,
        prologue: list[str] | None = None,
    ) -> None:
        """A version of the procedure with its frame locals as variables (after `prologue`): its
        first block, and a dispatch loop on `pc` if blocks are reached again."""
        self.origin = None
        w = self.w
        proc = threaded(proc)
        self.proc, self.inlining, self.dispatched = proc, [0], set()
        self.single = _single_entry(proc, unwritten, calls_return=calls)
        self.entry = plan
        self.entry_locals, self.entry_base, self.entry_ret = set(), False, False
        w.line(header)
        with w.indented():
            at = len(w.lines)
            self.stmts(proc.blocks[0])
            if self.dispatched:  # blocks reached again (loops): a dispatch loop, as in a frame
                body = w.lines[at:]
                del w.lines[at:]
                w.line("pc = 0")
                w.line("while True:")
                with w.indented():
                    w.line("if pc == 0:")
                    w.lines.extend((level + 2, text, span) for level, text, span in body)
                    self._dispatch(proc, sorted(self.dispatched - {0}), {0})
            unset = [local(n) for n in plan.others if n in self.entry_locals]
            start = [" = ".join(unset) + " = _UNSET"] if unset else []
            if unset:
                self.uses("_UNSET")
            if self.entry_base:
                start.insert(0, "_base = len(S.stack)")
            if self.entry_ret:
                start.insert(0, "_ret = None")
            start[:0] = prologue or []
            w.lines[at:at] = [(w.level, line, None) for line in start]
        self.entry = None
        self.proc = None
        self.gap()

    def _driven_frame(self) -> None:
        """In a driven version, where a decision starts: its frame made and put on the stack."""
        plan = self.entry
        names = plan.params + plan.others
        self.entry_locals.update(names)
        self.entry_ret = True
        self.uses("_Frame", *(("_UNSET",) if plan.others else ()))
        values = ", ".join(f"{name!r}: {local(name)}" for name in names)
        self.w.line(f"F = _Frame({self.proc.name!r}, {{{values}}}, {self.inlining[-1]})")
        self.w.line("F.ret = _ret")
        self.w.line("S.stack.append(F)")
        self.w.line("L = F.L")
        self.framed = True
        self.framed_writes = []

    def _read_back(self, names) -> None:
        """The driven version's variables read back from its decision's frame `L`."""
        for name in names:
            self.w.line(f"{local(name)} = L[{name!r}]")

    def _frame_of(self, pc: int) -> str:
        """Arguments that make the frame this procedure has at block `pc` (in an entry)."""
        entry = self.entry
        names = entry.params + entry.others
        self.entry_locals.update(names)
        self.entry_ret = True
        values = ", ".join(local(name) for name in names) + ("," if len(names) == 1 else "")
        return f"{self.proc.name!r}, {pc}, _ret, {names!r}, ({values})"

    def decision(self, rest: list[ir.Stmt]) -> None:
        """A driven version's decision, `rest` the statements after its `NeedsFrame`: a menu or
        value choice of one chooser is written twice, for a bare driver (`D.bare`: every bot picks from the
        legal list alone, so no frame is made and the driver picks) and as the frame the bot
        sees; any other decision as that frame only."""
        picking = self.picking  # a decision inside a bare branch's jumps is its own
        if self._menu_alone(rest):
            self.w.line("if D.bare:")
            with self.w.indented():
                self.picking = True
                for stmt in rest:
                    self.statement(stmt)
            self.w.line("else:")
            with self.w.indented():
                self._framed_decision(rest)
        else:
            self._framed_decision(rest)
        self.picking = picking

    def _framed_decision(self, rest: list[ir.Stmt]) -> None:
        """The decision with the frame the bot sees, asked of the driver."""
        self.picking = False
        self.statement(ir.NeedsFrame())
        for stmt in rest:
            self.statement(stmt)

    def _menu_alone(self, rest: list[ir.Stmt]) -> bool:
        """Whether the decision is one menu or value choice with its chooser (its listing reads no
        frame) and nothing else that waits."""
        waits = [
            s for s in ir.statements(rest) if isinstance(s, ir.Suspend | ir.Yield | ir.PushCall)
        ]
        return len(waits) == 1 and isinstance(waits[0], ir.Suspend) and waits[0].chooser is not None

    def visit_NeedsFrame(self, node: ir.NeedsFrame) -> None:
        if self.entry is None:
            return  # the frame version has its frame
        if self.driving:  # the frame the bot sees: every local, those not set yet as _UNSET
            self._driven_frame()
            return
        # An entry makes the frame here and writes the rest of the block as the frame version.
        self.uses("_l")
        self.w.line(f"F = _l.frame_of({self._frame_of(self.inlining[-1])})")
        self.w.line("S.stack.append(F)")
        self.w.line("L = F.L")
        self.framed = True

    def visit_Jump(self, node: ir.Jump) -> None:
        target = node.target
        if self.framed and self.driving:  # no decision was taken: on with the variables
            self.w.line("S.stack.pop()", node.span)
            self._read_back(self.framed_writes)
            self.framed = False
            self.visit_Jump(node)
            self.framed = True
            return
        if self.framed:  # the frame version goes on from there
            self.uses("_l")
            self.w.line(f"F.pc = {target}", node.span)
            self.w.line(f"return _l.run_on(S, {ident(self.proc.name)}, F)")
            return
        if (
            target in self.single
            and target not in self.inlining
            and self.w.level < MAX_INLINE_LEVEL
        ):
            self.inlining.append(target)
            self.stmts(self.proc.blocks[target])
            self.inlining.pop()
            return
        self.dispatched.add(target)
        self.w.line(f"{'F.pc' if self.entry is None else 'pc'} = {target}", node.span)
        self.w.line("continue")

    def visit_Suspend(self, node: ir.Suspend) -> None:
        if self.picking:  # a bare driver picks from the list (and runs a menu's action chosen)
            self.w.line(f"S.site = {node.site}", node.span)
            chooser = self.code(node.chooser)
            if node.value is None:
                self.w.line(f"_ret = D.pick_action(S, {chooser}, _acts)")
            else:
                self.entry_locals.add(node.value)
                self.w.line(f"{local(node.value)} = D.pick(S, {chooser}, _acts)[2][0]")
            self._go_on(node.resume, ())
            return
        assert self.entry is None or self.framed, "an entry decides only in its frame"
        if node.chooser is not None:  # the menu's list, for `legal_actions` at this position
            self.w.line(f"S.cache_legal({self.code(node.chooser)}, _acts)", node.span)
        if self.driving:  # the driver asks for the decision, runs what it starts, drops F
            self.w.line(f"S.site = {node.site}", node.span)
            if self.site_kinds[node.site] == "actions":  # it runs the action chosen, driven
                self.w.line(f"_ret = D.act(S, F, {node.site})")
                self._go_on(node.resume, self.framed_writes)
            else:  # its resume may set any local
                self.w.line(f"_ret = D.decide(S, F, {node.site})")
                self._go_on(node.resume, self.entry.params + self.entry.others)
            return
        self.w.line(f"S.site = {node.site}", node.span)
        self.w.line(f"F.pc = {node.resume}")
        self.uses("_SUSPEND", *(("_l",) if self.framed else ()))
        self.w.line("return _l.WAITING[_SUSPEND]" if self.framed else "return _SUSPEND")

    def visit_PushCall(self, node: ir.PushCall) -> None:
        # The callee's frame goes on the stack and runs at once, as the runner would run it;
        # if it finishes without waiting, this frame takes its result and goes on.
        args = ", ".join(f"{name!r}: {self.code(value)}" for name, value in node.args)
        w = self.w
        assert not self.framed, "a decision's block ends at the decision"
        if self.driving:
            self._driven_call(node)
            return
        if self.entry is not None:
            self._entry_call(node)
            return
        if node.callee in self.entries:  # the callee runs frameless until it must wait
            self.uses("_Waiting")
            values = ", ".join(self.code(value) for _, value in node.args)
            w.line(f"F.pc = {node.resume}", node.span)
            w.line(f"_r = {ident(node.callee)}_enter(S{', ' if values else ''}{values})")
            w.line("if type(_r) is _Waiting:")
            with w.indented():
                w.line("return _r.signal")
            w.line("F.ret = _r")
            run = reachable(self.proc.blocks[node.resume])
            if len(run) == 1 and isinstance(run[0], ir.Jump):
                w.line(f"F.pc = {run[0].target}")
            w.line("continue")
            return
        self.uses("_Frame", "_RETURN")
        w.line(f"_f = _Frame({node.callee!r}, {{{args}}})", node.span)
        w.line("S.stack.append(_f)")
        w.line(f"F.pc = {node.resume}")
        w.line(f"_s = {ident(node.callee)}(S, _f)")
        w.line("if _s != _RETURN:")
        with w.indented():
            w.line("return _s")
        w.line("S.stack.pop()")
        w.line("F.ret = _f.ret")
        run = reachable(self.proc.blocks[node.resume])
        if len(run) == 1 and isinstance(run[0], ir.Jump):  # where the resume point only jumps on
            w.line(f"F.pc = {run[0].target}")
        w.line("continue")

    def _go_on(self, resume: int, names) -> None:
        """After a decision in a driven version: the variables it may have set read back, on
        at `resume`."""
        self._read_back(names)
        self.dispatched.add(resume)
        self.w.line(f"pc = {resume}")
        self.w.line("continue")

    def _driven_call(self, node: ir.PushCall) -> None:
        """A call inside a driven version: the callee's driven version, its result `_ret`."""
        values = ", ".join(self.code(value) for _, value in node.args)
        self.entry_ret = True
        self.w.line(
            f"_ret = {ident(node.callee)}_drive(S, D{', ' if values else ''}{values})", node.span
        )
        run = reachable(self.proc.blocks[node.resume])
        onward = len(run) == 1 and isinstance(run[0], ir.Jump)  # the resume point only jumps on
        self.visit_Jump(ir.Jump(run[0].target if onward else node.resume))

    def _entry_call(self, node: ir.PushCall) -> None:
        """A call inside a frameless entry: if the callee waits, this procedure's frame goes
        under the callee's, resuming where the frame version would."""
        w = self.w
        self.uses("_l")
        self.entry_base = True
        waiting = f"S.stack.insert(_base, _l.frame_of({self._frame_of(node.resume)}))"
        if node.callee in self.entries:
            self.uses("_Waiting")
            values = ", ".join(self.code(value) for _, value in node.args)
            w.line(f"_r = {ident(node.callee)}_enter(S{', ' if values else ''}{values})", node.span)
            w.line("if type(_r) is _Waiting:")
            with w.indented():
                w.line(waiting)
                w.line("return _r")
            w.line("_ret = _r")
        else:
            args = ", ".join(f"{name!r}: {self.code(value)}" for name, value in node.args)
            self.uses("_Frame", "_RETURN")
            w.line(f"_f = _Frame({node.callee!r}, {{{args}}})", node.span)
            w.line("S.stack.append(_f)")
            w.line(f"_s = {ident(node.callee)}(S, _f)")
            w.line("if _s != _RETURN:")
            with w.indented():
                w.line(waiting)
                w.line("return _l.WAITING[_s]")
            w.line("S.stack.pop()")
            w.line("_ret = _f.ret")
        run = reachable(self.proc.blocks[node.resume])
        onward = len(run) == 1 and isinstance(run[0], ir.Jump)  # the resume point only jumps on
        self.visit_Jump(ir.Jump(run[0].target if onward else node.resume))

    def visit_Yield(self, node: ir.Yield) -> None:
        assert self.entry is None or self.framed, "an entry decides only in its frame"
        if self.driving:  # the driver runs the frames the choices pushed, then drops F
            self.w.line("_ret = D.settle(S, F)", node.span)
            self._go_on(node.resume, self.entry.params + self.entry.others)
            return
        self.w.line(f"F.pc = {node.resume}", node.span)
        self.uses("_CALL", *(("_l",) if self.framed else ()))
        self.w.line("return _l.WAITING[_CALL]" if self.framed else "return _CALL")

    def visit_FrameReturn(self, node: ir.FrameReturn) -> None:
        value = "None" if node.value is None else self.bare(node.value)
        assert not self.framed, "a decision's block ends at the decision"
        if self.entry is not None:
            self.w.line(f"return {value}", node.span)
            return
        self.uses("_RETURN")
        self.w.line(f"F.ret = {value}", node.span)
        self.w.line("return _RETURN")
