"""Pass `emit_python`: the checked program as one Python module for the runtime.

Expressions and plain statements become Python directly; procedures that wait for
decisions are lowered into state machines (`lower_frame`): a program counter and the
locals live in a `Frame`, so a game can stop at any decision and resume from data.
Every literal from a rule file reaches the output through `repr` and every identifier
is validated and prefixed, so no rule text is ever executed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.builtins import BUILTINS
from compiler.checked import CheckedProgram
from compiler.consteval import EvalError, Evaluator, MapData
from compiler.pywriter import PyWriter
from compiler.refs import (
    BuiltinRef,
    ConstRef,
    ElemByIdRef,
    ElemFieldRef,
    EnumAllRef,
    EnumValueRef,
    FunctionRef,
    GlobalRef,
    KindAllRef,
    LocalRef,
    PlayerFieldRef,
    ProcedureRef,
)
from compiler.types import (
    AnyT,
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
from dsl.source import Span
from dsl.visitor import walk
from runtime.geometry import Building, Frame, Shape
from runtime.limits import FREE_WALK

CHOOSE_NODES = (ast.Choose, ast.EachChoose, ast.ChooseAction, ast.EachChooseAction)
# Library calls whose integer results are small by nature (counts, seats, positions).
IN_RANGE_BUILTINS = frozenset(
    {
        "size",
        "count",
        "seat",
        "seat_number",
        "next_player",
        "index_of",
        "floor_count",
        "piece_count",
    }
)


def ident(name: str) -> str:
    """A validated identifier fragment (the checker already refused anything else)."""
    if not (name.isascii() and name.replace("_", "a").isalnum()):
        raise ValueError(f"unsafe identifier {name!r}")
    return name


def lit(value) -> str:
    """A Python literal for a safe value (ints, bools, None, str, geometry, and containers of them)."""
    if value is None or isinstance(value, bool | int | str):
        return repr(value)
    if isinstance(value, Shape):
        return f"_shapes.Shape({lit(value.cells)})"
    if isinstance(value, Frame):
        return f"_shapes.Frame({lit(value.cells)})"
    if isinstance(value, Building):
        return f"_shapes.Building({lit(value.pieces)})"
    if isinstance(value, list):
        return "[" + ", ".join(lit(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(lit(v) + ", " for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot emit a literal of type {type(value).__name__}")


@dataclass
class Env:
    """How locals are reached in the code being generated."""

    frame: bool
    names: dict[str, str] = field(default_factory=dict)
    me: str = "me"
    tag: str = ""

    def local(self, name: str) -> str:
        """Python code reading local `name`."""
        code = self.names.get(name)
        if code is not None:
            return code
        return f"L[{name!r}]" if self.frame else f"v_{ident(name)}{self.tag}"

    def bind(self, name: str, code: str | None = None) -> Env:
        """A copy where `name` is a Python-level variable."""
        names = dict(self.names)
        names[name] = code or f"v_{ident(name)}{self.tag}"
        return Env(self.frame, names, self.me, self.tag)


class Generator:
    """Emits the module for one checked program and its map data."""

    def __init__(self, cp: CheckedProgram, data: MapData, evaluator: Evaluator):
        self.cp = cp
        self.p = cp.program
        self.data = data
        self.evaluator = evaluator
        self.sites: list[dict] = []
        self.descs: dict[str, str] = {}
        self.desc_lines: list[str] = []
        self.action_descs: dict[str, tuple[str, int]] = {}
        self.counter = 0
        self.action_rank = {name: 2 * i for i, name in enumerate(self.p.actions)}
        self.current_versions: tuple[str, int] = ("", 0)
        # While generating a read-only enumeration, state reads become locals bound once.
        self.hoist: dict[str, str] | None = None
        self.frame_proc_names: list[str] = []
        self.frame_pcs: dict[str, int] = {}  # frame procedure -> number of program counters
        self.inline_depth = 0
        # Limits found while generating (reported as diagnostics by the emit pass).
        self.errors: list[tuple[str, Span]] = []

    def hoisted(self, code: str) -> str:
        """An alias for a state read inside a read-only enumeration."""
        if self.hoist is None:
            return code
        alias = self.hoist.get(code)
        if alias is None:
            alias = self.hoist[code] = f"_h{len(self.hoist)}"
        return alias

    # ------------------------------------------------------------ names

    def fresh(self) -> int:
        """A new number for synthetic locals."""
        self.counter += 1
        return self.counter

    def version_name(self, prefix: str, name: str, version: int) -> str:
        """Python name of one version of a function/procedure."""
        return f"{prefix}_{ident(name)}__{version}"

    def callable_name(self, name: str) -> tuple[str, bool]:
        """(Python name, waits-for-decisions) of the active version of a function/procedure."""
        if name in self.p.functions:
            return self.version_name("f", name, len(self.p.functions[name].versions) - 1), False
        versions = self.p.procedures[name].versions
        if name in self.cp.suspends:
            return self.version_name("s", name, len(versions) - 1), True
        return self.version_name("p", name, len(versions) - 1), False

    def size_of(self, t: Type) -> str:
        """Number of values of a finite type, as code."""
        if isinstance(t, EnumT):
            return str(len(self.cp.enum_values[t.name]))
        if isinstance(t, ElemT):
            return str(self.data.count(t.kind))
        if isinstance(t, BoolT):
            return "2"
        return "S.n"

    def desc(self, t: Type) -> str:
        """A module-level descriptor constant for a type."""
        key = repr(t)
        if key in self.descs:
            return self.descs[key]
        if isinstance(t, IntT | AnyT):
            code = "_v.INT"
        elif isinstance(t, BoolT):
            code = "_v.BOOL"
        elif isinstance(t, StrT):
            code = "_v.STR"
        elif isinstance(t, PlayerT):
            code = "_v.PLAYER"
        elif isinstance(t, EnumT):
            code = f"_v.NamedD(E_{ident(t.name)})"
        elif isinstance(t, ElemT):
            code = f"_v.NamedD(K_{ident(t.kind)})"
        elif isinstance(t, OptT):
            code = f"_v.OptD({self.desc(t.inner)})"
        elif isinstance(t, CollT) and t.kind == "bag":
            size = self.size_of(t.item)
            code = f"_v.BagD({self.desc(t.item)}, {size if size != 'S.n' else self.p.players.hi})"
        elif isinstance(t, CollT) and t.kind == "set":
            code = f"_v.SetD({self.desc(t.item)})"
        elif isinstance(t, CollT):
            code = f"_v.ListD({self.desc(t.item)})"
        elif isinstance(t, MapT):
            size = self.size_of(t.key) if is_finite(t.key) else "None"
            code = (
                f"_v.MapD({self.desc(t.key)}, {self.desc(t.value)}, {0 if size == 'S.n' else size})"
            )
        elif isinstance(t, TupleT):
            code = "_v.TupleD((" + "".join(self.desc(i) + ", " for i in t.items) + "))"
        elif isinstance(t, GeoT):
            code = f"_v.GeoD({t.kind!r})"
        else:
            code = "_v.INT"
        name = f"D{len(self.descs)}"
        self.descs[key] = name
        self.desc_lines.append(f"{name} = {code}")
        return name

    def t(self, node: ast.Expr) -> Type:
        """The checked type of an expression."""
        return self.cp.type_of(node)

    def checker_type(self, node: ast.TypeExpr) -> Type:
        """The type a written type denotes (recorded by the checker)."""
        return self.cp.types[id(node)]

    def register_choice(self, name: str, desc: str, rank: int, span: Span) -> None:
        """Record how a choice's values are labelled, so ids can be parsed back."""
        self.action_descs.setdefault(name, (f"({desc},)", rank))

    def add_site(
        self,
        kind,
        players,
        legal: PyWriter,
        resume: PyWriter,
        node,
        rule: str,
        where=None,
        why: PyWriter | None = None,
        frame: tuple[str, int] = ("", 0),
        secret: tuple[str, str] | None = None,
    ) -> None:
        """Register a decision site with its functions.

        `frame` is the (procedure, pc) waiting at it; `secret`, for a simultaneous choice, the
        frame locals holding who chooses and what each has chosen so far.
        """
        index = len(self.sites)
        if why is None:
            why = PyWriter()
            why.line(f"def site{index}_why(S, F, p, a):")
            with why.indented():
                text = source_text(self.p, where.span) if where is not None else ""
                reason = "not a legal choice here" + (f": `{text}` must hold" if text else "")
                why.line(f"return ({reason!r}, {rule!r}, {node.span.file!r}, {node.span.line!r})")
        self.sites.append(
            {
                "index": index,
                "kind": kind,
                "players": players,
                "legal": legal,
                "resume": resume,
                "why": why,
                "file": node.span.file,
                "line": node.span.line,
                "rule": rule,
                "frame": frame,
                "secret": secret,
            }
        )

    # ------------------------------------------------------------ expressions

    def expr(self, node: ast.Expr, env: Env) -> str:
        """Python code for an expression."""
        return getattr(self, f"x_{type(node).__name__}")(node, env)

    def x_IntLit(self, node, env):
        return repr(node.value)

    def x_StrLit(self, node, env):
        return repr(node.value)

    def x_BoolLit(self, node, env):
        return repr(node.value)

    def x_NoneLit(self, node, env):
        return "None"

    def x_PlayersLit(self, node, env):
        return "list(range(S.n))"

    def x_MeLit(self, node, env):
        return env.local("me") if env.frame and "me" not in env.names else env.me

    def x_Name(self, node: ast.Name, env: Env) -> str:
        ref = self.cp.ref(node)
        if isinstance(ref, LocalRef):
            return env.local(node.name)
        if isinstance(ref, GlobalRef):
            return self.hoisted(f"S.g_{ident(node.name)}")
        if isinstance(ref, ConstRef):
            return f"C_{ident(node.name)}"
        if isinstance(ref, EnumValueRef):
            return repr(ref.index)
        if isinstance(ref, EnumAllRef):
            return f"list(range({len(self.cp.enum_values[ref.enum])}))"
        if isinstance(ref, KindAllRef):
            return f"list(range({self.data.count(ref.kind)}))"
        raise AssertionError(f"unresolved name {node.name}")

    def x_Field(self, node: ast.Field, env: Env) -> str:
        ref = self.cp.ref(node)
        if isinstance(ref, EnumValueRef):
            return repr(ref.index)
        obj = self.expr(node.obj, env)
        if isinstance(ref, PlayerFieldRef):
            if obj.strip("()") == "me":
                return self.hoisted(f"S.p_{ident(node.name)}[me]")
            return f"S.p_{ident(node.name)}[{obj}]"
        if isinstance(ref, ElemFieldRef):
            return f"K_{ident(ref.kind)}__{ident(ref.field)}[{obj}]"
        raise AssertionError("unresolved field")

    def x_Index(self, node: ast.Index, env: Env) -> str:
        ref = self.cp.ref(node)
        if isinstance(ref, ElemByIdRef):
            ids = self.data.ids.get(ref.kind, [])
            if ref.id not in ids:
                return f"_l.no_element({ref.kind!r}, {ref.id!r})"
            return repr(ids.index(ref.id))
        return f"{self.expr(node.obj, env)}[{self.expr(node.index, env)}]"

    def items(self, node: ast.Expr, env: Env, snapshot: bool = False, charge: bool = True) -> str:
        """Code iterating the items of a collection expression in a defined order.

        With `charge`, a walk that is not bounded when compiling (anything but an enum, a map
        the players, or a kind, constant range or constant collection of at most FREE_WALK items)
        is charged to the step budget first.
        """
        t = self.t(node)
        if isinstance(node, ast.RangeExpr):
            code = f"range({self.expr(node.lo, env)}, ({self.expr(node.hi, env)}) + 1)"
            size = self.range_size(node.lo, node.hi)
            free = size is not None and size <= FREE_WALK
            return self.charged(code, node) if charge and not free else code
        if isinstance(node, ast.PlayersLit):
            return "range(S.n)"
        ref = self.cp.ref(node)
        if isinstance(ref, EnumAllRef):  # an enum is small (written out in the rules)
            return f"range({len(self.cp.enum_values[ref.enum])})"
        if isinstance(ref, KindAllRef):
            code = f"range({self.data.count(ref.kind)})"
            return (
                self.charged(code, node)
                if charge and self.data.count(ref.kind) > FREE_WALK
                else code
            )
        charge = charge and not self.small_constant(node)
        code = self.expr(node, env)
        if isinstance(t, GeoT):
            return f"({code}).cells"
        if isinstance(t, CollT):
            if t.kind == "bag":
                if charge:
                    return f"_l.each_bag(S, {code}, {node.span.file!r}, {node.span.line!r})"
                return f"_l.bag_items({code})"
            if t.kind == "set":
                code = f"sorted({code})"
            elif snapshot and code.startswith(("S.", "L[")):
                code = f"tuple({code})"
        return self.charged(code, node) if charge else code

    def charged(self, code: str, node: ast.Node) -> str:
        """`code` (a sized collection or range), charged to the step budget at `node`'s line."""
        return f"_l.each(S, {code}, {node.span.file!r}, {node.span.line!r})"

    def small_constant(self, node: ast.Expr) -> bool:
        """True for a constant collection, or an entry of a constant table, of at most FREE_WALK items."""
        if isinstance(node, ast.Index):
            values = self._const_value(node.obj)
            values = (
                values.values()
                if isinstance(values, dict)
                else values
                if isinstance(values, list)
                else None
            )
            return values is not None and all(_small(v) for v in values)
        return _small(self._const_value(node))

    def _const_value(self, node: ast.Expr):
        if isinstance(self.cp.ref(node), ConstRef):
            try:
                return self.evaluator.const(node.name, node)
            except (EvalError, RecursionError):
                return None
        return None

    def const_int(self, node: ast.Expr | None) -> int | None:
        """The value of an integer expression made of literals and consts, else None."""
        if node is None:
            return None
        if isinstance(node, ast.IntLit):
            return node.value
        if isinstance(node, ast.Neg):
            value = self.const_int(node.operand)
            return None if value is None else -value
        if isinstance(self.cp.ref(node), ConstRef):
            value = self._const_value(node)
            return value if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(node, ast.BinOp) and node.op in ("+", "-", "*"):
            left, right = self.const_int(node.left), self.const_int(node.right)
            if left is None or right is None:
                return None
            return (
                left + right if node.op == "+" else left - right if node.op == "-" else left * right
            )
        return None

    def const_size(self, node: ast.Expr) -> int | None:
        """The number of items of a collection known while compiling (literal, const, enum, kind), else None."""
        if isinstance(node, ast.ListLit):
            return len(node.items)
        if isinstance(node, ast.RangeExpr):
            return self.range_size(node.lo, node.hi)
        ref = self.cp.ref(node)
        if isinstance(ref, EnumAllRef):
            return len(self.cp.enum_values[ref.enum])
        if isinstance(ref, KindAllRef):
            return self.data.count(ref.kind)
        value = self._const_value(node)
        return len(value) if isinstance(value, list | tuple | set | dict) else None

    def range_size(self, lo: ast.Expr, hi: ast.Expr, step: ast.Expr | None = None) -> int | None:
        """The number of values of lo..hi (step) if its bounds are constant, else None."""
        bounds = (
            self.const_int(lo),
            self.const_int(hi),
            self.const_int(step) if step is not None else 1,
        )
        if None in bounds or bounds[2] == 0:
            return None
        return max(
            0, (bounds[1] + 1 - bounds[0] + bounds[2] - (1 if bounds[2] > 0 else -1)) // bounds[2]
        )

    def comp(self, elem: ast.Expr, fors, env: Env) -> tuple[str, Env]:
        """`elem for … in … if …` clauses, and the env inside them."""
        parts = []
        inner = env
        for c in fors:
            iterable = self.items(c.iterable, inner)
            inner = inner.bind(c.var)
            parts.append(f"for {inner.local(c.var)} in {iterable}")
            if c.where is not None:
                parts.append(f"if {self.expr(c.where, inner)}")
        return " ".join(parts), inner

    def x_ListComp(self, node, env):
        if self.hoist is not None and self.invariant(node, env):
            return self.hoisted(self._list_comp(node, env))
        return self._list_comp(node, env)

    def _list_comp(self, node, env):
        clauses, inner = self.comp(node.elem, node.fors, env)
        return f"[{self.expr(node.elem, inner)} {clauses}]"

    def invariant(self, node: ast.Expr, env: Env) -> bool:
        """True if an expression reads only the state and `me` (so a read-only loop may compute it once)."""
        bound = {
            c.var
            for sub in walk(node)
            if isinstance(sub, ast.GenCall | ast.ListComp)
            for c in sub.fors
        }
        for sub in walk(node):
            if isinstance(self.cp.ref(sub), LocalRef):
                if sub.name not in bound and env.local(sub.name).strip("()") != "me":
                    return False
            if isinstance(sub, ast.Call) and sub.func in (
                "roll",
                "take_top",
                "add",
                "remove",
                "clear",
                "put_bottom",
                "to_move",
            ):
                return False
        return True

    def x_GenCall(self, node: ast.GenCall, env: Env) -> str:
        if self.hoist is not None and self.invariant(node, env):
            return self.hoisted(self._gen_call(node, env))
        return self._gen_call(node, env)

    def _gen_call(self, node: ast.GenCall, env: Env) -> str:
        clauses, inner = self.comp(node.elem, node.fors, env)
        elem = self.expr(node.elem, inner)
        func = node.func
        if func == "count":
            if isinstance(self.t(node.elem), BoolT):
                return f"sum(1 {clauses} if {elem})"
            return f"sum(1 {clauses})"
        if func in ("sum", "any", "all"):
            return f"{func}({elem} {clauses})"
        if func == "min":
            return f"_l.least({elem} {clauses})"
        if func == "max":
            return f"_l.greatest({elem} {clauses})"
        if func == "sorted":
            return f"sorted({elem} {clauses})"
        return f"_l.distinct({elem} {clauses})"

    def x_ListLit(self, node, env):
        return "[" + ", ".join(self.expr(i, env) for i in node.items) + "]"

    def x_TupleLit(self, node, env):
        return "(" + "".join(self.expr(i, env) + ", " for i in node.items) + ")"

    def x_DictLit(self, node, env):
        return (
            "{"
            + ", ".join(f"{self.expr(k, env)}: {self.expr(v, env)}" for k, v in node.entries)
            + "}"
        )

    def x_DictComp(self, node: ast.DictComp, env: Env) -> str:
        clauses, inner = self.comp(node.key, node.fors, env)
        return f"{{{self.expr(node.key, inner)}: {self.expr(node.value, inner)} {clauses}}}"

    def x_BinOp(self, node: ast.BinOp, env: Env) -> str:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if isinstance(self.t(node.left), CollT):
            return f"[*{self.charged(left, node)}, *{self.charged(right, node)}]"
        op = "//" if node.op == "/" else node.op
        return f"({left} {op} {right})"

    def x_Neg(self, node, env):
        return f"(-{self.expr(node.operand, env)})"

    def x_Compare(self, node: ast.Compare, env: Env) -> str:
        left, right = self.expr(node.left, env), self.expr(node.right, env)
        if node.op in ("in", "not in"):
            rt = self.t(node.right)
            if isinstance(rt, CollT) and rt.kind == "bag":
                return f"({right}[{left}] {'>' if node.op == 'in' else '<='} 0)"
            if isinstance(node.right, ast.RangeExpr):  # membership of a range takes no walk
                return f"({left} {node.op} {self.items(node.right, env, charge=False)})"
            return f"({left} {node.op} {right})"
        return f"({left} {node.op} {right})"

    def x_IsNone(self, node, env):
        return f"({self.expr(node.operand, env)} is {'not ' if node.negated else ''}None)"

    def x_Not(self, node, env):
        return f"(not {self.expr(node.operand, env)})"

    def x_BoolOp(self, node, env):
        return f"({self.expr(node.left, env)} {node.op} {self.expr(node.right, env)})"

    def x_CondExpr(self, node, env):
        return f"({self.expr(node.then, env)} if {self.expr(node.cond, env)} else {self.expr(node.orelse, env)})"

    def x_SuperCall(self, node: ast.SuperCall, env: Env) -> str:
        name, version = self.current_versions
        prefix = "f" if name in self.p.functions else "p"
        args = "".join(", " + self.expr(a, env) for a in node.args)
        return f"{self.version_name(prefix, name, version - 1)}(S{args})"

    def x_Call(self, node: ast.Call, env: Env) -> str:
        ref = self.cp.ref(node)
        args = [self.expr(a, env) for a in node.args]
        if isinstance(ref, FunctionRef):
            if self.hoist is not None and self.invariant(node, env):
                saved, self.hoist = self.hoist, None
                try:
                    code = self.x_Call(node, env)
                finally:
                    self.hoist = saved
                return self.hoisted(code)
            inlined = self.inline(node.func, node.args, args, env)
            if inlined is not None:
                return inlined
        if isinstance(ref, FunctionRef | ProcedureRef):
            pyname, waits = self.callable_name(node.func)
            if waits:
                raise AssertionError("waiting calls are lowered as statements")
            return f"{pyname}(S{''.join(', ' + a for a in args)})"
        return self.builtin(node, args, env)

    def inline(self, name: str, arg_nodes, args: list[str], env: Env) -> str | None:
        """The body of a small one-expression function with its arguments substituted, if safe."""
        versions = self.p.functions[name].versions
        decl = versions[-1]
        if decl.expr is None or len(versions) > 1 or self.inline_depth > 4:
            return None
        if any(not isinstance(a, ast.Name | ast.MeLit | ast.IntLit | ast.Field) for a in arg_nodes):
            return None
        if sum(1 for _ in walk(decl.expr)) > 80:
            return None
        inner = Env(frame=False, tag=f"_{self.fresh()}")
        for param, code in zip(decl.params, args, strict=True):
            inner = inner.bind(param.name, f"({code})")
        self.inline_depth += 1
        try:
            return f"({self.expr(decl.expr, inner)})"
        finally:
            self.inline_depth -= 1

    def builtin(self, node: ast.Call, args: list[str], env: Env) -> str:
        """Code for a library call, as its entry in compiler/builtins.py writes it."""
        return BUILTINS[node.func].emit_code(self, node, args, env)

    def checked(self, code: str, value: ast.Expr, dst: Type) -> str:
        """Code for `value` about to be stored where `dst` is declared: integers range-checked.

        Only stored values are checked (a value grows without bound only by being stored and
        reused), and only those not already known to be in range.
        """
        if isinstance(dst, OptT) and isinstance(dst.inner, IntT):
            return code if self.in_range(value) else f"_l.opt_int_ok({code})"
        if isinstance(dst, IntT):
            return code if self.in_range(value) else f"_l.int_ok({code})"
        item = (
            dst.value
            if isinstance(dst, MapT)
            else dst.item
            if isinstance(dst, CollT) and dst.kind != "bag"
            else None
        )
        if isinstance(item, OptT):
            item = item.inner
        if isinstance(item, IntT) and not self.stored(value):
            return f"_l.ints_ok({code})"
        return code

    def in_range(self, node: ast.Expr) -> bool:
        """True if an integer expression cannot lie outside the range: literals, stored values, sizes."""
        if isinstance(node, ast.IntLit | ast.BoolLit | ast.NoneLit) or self.stored(node):
            return True
        if isinstance(node, ast.CondExpr):
            return self.in_range(node.then) and self.in_range(node.orelse)
        if isinstance(self.cp.ref(node), BuiltinRef):
            if node.func in ("min", "max") and len(node.args) == 2:
                return all(self.in_range(a) for a in node.args)
            return node.func in IN_RANGE_BUILTINS
        return False

    def stored(self, node: ast.Expr) -> bool:
        """True if `node` reads a constant, the state or map data (whose integers are all in range)."""
        ref = self.cp.ref(node)
        if isinstance(node, ast.Name):
            return isinstance(ref, GlobalRef | ConstRef | EnumValueRef)
        if isinstance(node, ast.Field):
            return isinstance(ref, PlayerFieldRef | ElemFieldRef | EnumValueRef)
        if isinstance(node, ast.Index):
            return isinstance(ref, ElemByIdRef) or self.stored(node.obj)
        return False

    def convert(self, code: str, src: Type, dst: Type) -> str:
        """Code storing a value of type src where dst is declared (copies collections)."""
        if isinstance(dst, CollT):
            if dst.kind == "bag":
                if isinstance(src, CollT) and src.kind == "bag":
                    return f"list({code})"
                return f"_l.to_bag({code}, {self.size_of(dst.item)})"
            if dst.kind == "set":
                return f"set({code})"
            if isinstance(src, CollT) and src.kind == "bag":
                return f"_l.bag_items({code})"
            return f"list({code})"
        if isinstance(dst, MapT):
            if is_finite(dst.key):
                return f"_l.table_to_list({code}, {self.size_of(dst.key)})"
            return f"dict({code})"
        return code

    # ------------------------------------------------------------ plain statements

    def stmts(self, stmts, w: PyWriter, env: Env, returns: bool = False) -> None:
        """Plain Python for statements that never wait for a decision."""
        wrote = False
        for stmt in stmts:
            self.stmt(stmt, w, env)
            wrote = True
        if returns:
            w.line("return _l.ret(F)" if env.frame else "return None")
            wrote = True
        if not wrote:
            w.line("pass")

    def stmt(self, node: ast.Stmt, w: PyWriter, env: Env) -> None:
        """One plain statement."""
        getattr(self, f"s_{type(node).__name__}")(node, w, env)

    def s_Let(self, node: ast.Let, w, env):
        value = self.expr(node.value, env)
        declared = self.cp.types.get(id(node))
        if node.type is not None and isinstance(declared, CollT | MapT):
            value = self.convert(value, self.t(node.value), declared)
        value = self.checked(value, node.value, declared or self.t(node.value))
        w.line(f"{env.local(node.name)} = {value}", node.span)

    def s_Assign(self, node: ast.Assign, w, env):
        self.assign(node, self.expr(node.value, env), w, env)

    def assign(self, node: ast.Assign, value: str, w, env) -> None:
        """An assignment of the value computed by `value` (also a waiting call's result)."""
        target = self.expr(node.target, env)
        tt, vt = self.t(node.target), self.t(node.value)
        if node.op == "=":
            if isinstance(tt, CollT | MapT):
                value = self.convert(value, vt, tt)
            w.line(f"{target} = {self.checked(value, node.value, tt)}", node.span)
        elif isinstance(tt, CollT):
            value = self.checked(value, node.value, tt)
            if isinstance(vt, CollT) and vt.kind == "bag":
                items = f"_l.each_bag(S, {value}, {node.span.file!r}, {node.span.line!r})"
            else:
                items = self.charged(value, node)
            if tt.kind == "bag":
                fn = "bag_add_all" if node.op == "+=" else "bag_remove_all"
                w.line(f"_l.{fn}({target}, {items})", node.span)
            elif tt.kind == "set":
                w.line(f"{target} {'|=' if node.op == '+=' else '-='} set({items})", node.span)
            else:
                w.line(f"{target}.extend({items})", node.span)
        else:
            self.augmented(node, value, w, env)

    def augmented(self, node: ast.Assign, value: str, w, env) -> None:
        """`x += v` (or -=, *=) on a number, its result range-checked.

        The parts of the target (container, index) are evaluated once, before the value,
        as Python's own augmented assignment does.
        """
        target = node.target
        ref = self.cp.ref(target)
        if isinstance(ref, PlayerFieldRef):
            container, index = f"S.p_{ident(target.name)}", self.expr(target.obj, env)
        elif isinstance(target, ast.Index) and not isinstance(ref, ElemByIdRef):
            container, index = self.expr(target.obj, env), self.expr(target.index, env)
        else:
            container = index = None
        if container is None:
            place = self.expr(target, env)
        elif _stable(container) and _stable(index):
            place = f"{container}[{index}]"
        else:
            # Python temporaries used at once (no counter: numbered frame locals are saved state).
            w.line(f"_at, _ai = {container}, {index}", node.span)
            place = "_at[_ai]"
        check = "_l.opt_int_ok" if isinstance(self.t(target), OptT) else "_l.int_ok"
        w.line(f"{place} = {check}({place} {node.op[0]} {value})", node.span)

    def s_ExprStmt(self, node: ast.ExprStmt, w, env):
        w.line(self.expr(node.expr, env), node.span)

    def s_Return(self, node: ast.Return, w, env):
        value = self.expr(node.value, env) if node.value is not None else "None"
        w.line(f"return _l.ret(F, {value})" if env.frame else f"return {value}", node.span)

    def s_Break(self, node, w, env):
        w.line("break", node.span)

    def s_Continue(self, node, w, env):
        w.line("continue", node.span)

    def s_EndGame(self, node, w, env):
        w.line("raise _EndGame()", node.span)

    def s_Draw(self, node: ast.Draw, w, env):
        count = self.expr(node.count, env) if node.count is not None else "1"
        source = self.expr(node.source, env)
        items = f"_l.draw({source}, {count})"
        self.add_items(node.dest, items, w, env, node.span)

    def add_items(self, dest: ast.Expr, items: str, w, env, span: Span) -> None:
        """Append drawn items to a destination collection."""
        code = self.expr(dest, env)
        t = self.t(dest)
        if isinstance(t, CollT) and t.kind == "bag":
            w.line(f"_l.bag_add_all({code}, {items})", span)
        elif isinstance(t, CollT) and t.kind == "set":
            w.line(f"{code}.update({items})", span)
        else:
            w.line(f"{code}.extend({items})", span)

    def s_Move(self, node: ast.Move, w, env):
        item = self.expr(node.item, env)
        source, dest = self.expr(node.source, env), self.expr(node.dest, env)
        st, dt = self.t(node.source), self.t(node.dest)
        tmp = f"_m{self.fresh()}"
        w.line(f"{tmp} = {item}", node.span)
        skind = st.kind if isinstance(st, CollT) else "list"
        dkind = dt.kind if isinstance(dt, CollT) else "list"
        remove = {"bag": "_l.bag_remove", "set": "_l.set_remove"}.get(skind, "_l.list_remove")
        w.line(f"{remove}({source}, {tmp})", node.span)
        if dkind == "bag":
            w.line(f"{dest}[{tmp}] += 1", node.span)
        elif dkind == "set":
            w.line(f"{dest}.add({tmp})", node.span)
        else:
            w.line(f"{dest}.append({tmp})", node.span)

    def s_Shuffle(self, node, w, env):
        w.line(f"_l.shuffle(S, {self.expr(node.target, env)})", node.span)

    def s_If(self, node: ast.If, w, env):
        for i, (cond, body) in enumerate(node.branches):
            w.line(f"{'if' if i == 0 else 'elif'} {self.expr(cond, env)}:", cond.span)
            with w.indented():
                self.stmts(body.stmts, w, env, body.returns)
        if node.orelse is not None:
            w.line("else:")
            with w.indented():
                self.stmts(node.orelse.stmts, w, env, node.orelse.returns)

    def s_For(self, node: ast.For, w, env):
        iterable = self.items(node.iterable, env, snapshot=True)
        w.line(f"for {env.local(node.var)} in {iterable}:", node.span)
        with w.indented():
            if node.where is not None:
                w.line(f"if not {self.expr(node.where, env)}:", node.where.span)
                with w.indented():
                    w.line("continue")
            self.stmts(node.body.stmts, w, env, node.body.returns)

    def s_Repeat(self, node: ast.Repeat, w, env):
        count = f"_l.times(S, {self.expr(node.count, env)}, {node.span.file!r}, {node.span.line!r})"
        w.line(f"for _r{self.fresh()} in range({count}):", node.span)
        with w.indented():
            self.stmts(node.body.stmts, w, env, node.body.returns)

    def s_While(self, node: ast.While, w, env):
        w.line(f"while {self.expr(node.cond, env)}:", node.span)
        with w.indented():
            w.line(f"_l.tick(S, {node.span.file!r}, {node.span.line!r})", node.span)
            self.stmts(node.body.stmts, w, env, node.body.returns)

    def s_Loop(self, node: ast.Loop, w, env):
        w.line("while True:", node.span)
        with w.indented():
            w.line(f"_l.tick(S, {node.span.file!r}, {node.span.line!r})", node.span)
            self.stmts(node.body.stmts, w, env, node.body.returns)

    def s_Play(self, node: ast.Play, w, env):
        self._step("play", node, w, env)

    def s_Refuse(self, node: ast.Refuse, w, env):
        self._step("refuse", node, w, env)

    def _step(self, fn: str, node, w, env):
        args = "".join(self.expr(a, env) + ", " for a in node.args)
        w.line(
            f"_l.{fn}(S, {self.expr(node.player, env)}, {node.action!r}, ({args}), "
            f"{node.span.file!r}, {node.span.line!r})",
            node.span,
        )

    def s_Expect(self, node: ast.Expect, w, env):
        text = source_text(self.p, node.expr.span)
        detail = "''"
        if isinstance(node.expr, ast.Compare):
            left = self.expr(node.expr.left, env)
            right = self.expr(node.expr.right, env)
            detail = (
                f"'found ' + _l.show({left}, {self.desc(self.t(node.expr.left))}) + "
                f"' and ' + _l.show({right}, {self.desc(self.t(node.expr.right))})"
            )
        w.line(
            f"_l.expect({self.expr(node.expr, env)}, {text!r}, {detail}, {node.span.file!r}, "
            f"{node.span.line!r})",
            node.span,
        )

    # ------------------------------------------------------------ suspension analysis

    def waits(self, node: ast.Node) -> bool:
        """True if executing this statement may stop for a decision."""
        for sub in walk(node):
            if isinstance(sub, CHOOSE_NODES):
                return True
            if (
                isinstance(sub, ast.Call)
                and sub.func in self.cp.suspends
                and sub.func in self.p.procedures
            ):
                return True
            if isinstance(sub, ast.SuperCall) and self.current_versions[0] in self.cp.suspends:
                return True
        return False

    def escapes(self, node: ast.Node) -> bool:
        """True if a break/continue inside leaves this statement."""
        if isinstance(node, ast.Break | ast.Continue):
            return True
        if isinstance(node, ast.For | ast.Repeat | ast.While | ast.Loop):
            return False
        if isinstance(node, ast.If):
            blocks = [b for _, b in node.branches] + ([node.orelse] if node.orelse else [])
            return any(self.escapes(s) for b in blocks for s in b.stmts)
        if isinstance(node, ast.ChooseAction) and node.orelse is not None:
            return any(self.escapes(s) for s in node.orelse.stmts)
        return False


def _stable(code: str) -> bool:
    """True if evaluating `code` twice gives the same place: a Python name, a number, a frame local."""
    return (
        code.isidentifier()
        or code.isdigit()
        or code.startswith("S.p_")
        and code[4:].isidentifier()
        or (code.startswith("L['") and code.endswith("']") and code[3:-2].isidentifier())
    )


def _small(value) -> bool:
    return isinstance(value, list | tuple | set | dict) and len(value) <= FREE_WALK


def source_text(program, span: Span) -> str:
    """The .metro text of a one-line span (for messages)."""
    source = program.sources.get(span.file)
    if source is None or span.line < 1:
        return ""
    line = source.line(span.line)
    if span.end_line == span.line:
        return line[span.col - 1 : span.end_col - 1]
    return line[span.col - 1 :]
