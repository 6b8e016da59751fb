"""Pass `check`: names, types, finite choice domains, purity and visibility.

The checker never changes the AST; it fills side tables keyed by node identity
(types, what each name refers to, which procedures wait for decisions) that the
code generator reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.builtins import BUILTINS, builtin_result, item_type
from compiler.program import Program
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
    Ref,
)
from compiler.types import (
    ANY,
    BOOL,
    BUILDING,
    FRAME,
    INT,
    NONE,
    PLACEMENT,
    PLAYER,
    SHAPE,
    STR,
    AnyT,
    BoolT,
    CollT,
    ElemT,
    EnumT,
    IntT,
    MapT,
    NoneT,
    OptT,
    PlayerT,
    Subtyping,
    TupleT,
    Type,
    is_finite,
    is_sequence,
)
from dsl import ast
from dsl.diagnostics import (
    ARGUMENTS,
    ASSIGN,
    BAD_NAME,
    DUPLICATE,
    NOT_FINITE,
    PURITY,
    SCENARIO,
    STRUCTURE,
    TOO_DEEP,
    TYPE,
    UNDEFINED_NAME,
    VISIBILITY,
    Diagnostics,
)
from dsl.keywords import RESERVED_WORDS
from dsl.visitor import walk
from runtime.limits import MAX_BLOCK_NESTING, MAX_LOOP_NESTING

GEOMETRY_ARGS = {
    "placements": (SHAPE, FRAME, BUILDING, INT),
    "fits": (BUILDING, FRAME, SHAPE, PLACEMENT),
    "place": (BUILDING, SHAPE, PLACEMENT),
    "without": (BUILDING, INT),
    "removable": (BUILDING,),
    "floor_count": (BUILDING,),
    "piece_count": (BUILDING,),
    "remove_at": (None, INT),
    "build": (FRAME, None),
    "cells_of": (FRAME,),
}
CHOOSE_NODES = (ast.Choose, ast.EachChoose, ast.ChooseAction, ast.EachChooseAction)
LOOP_NODES = (ast.For, ast.Repeat, ast.While, ast.Loop)
BLOCK_NODES = (*LOOP_NODES, ast.If)


@dataclass
class Local:
    """A local variable: its type and whether it may be assigned."""

    type: Type
    mutable: bool = True


@dataclass
class Scope:
    """Nested local scopes of one body, plus what the body may do."""

    frames: list[dict[str, Local]]
    pure: bool = False
    me: bool = False
    scenario: bool = False
    loop_depth: int = 0
    owner: str = ""
    returns: Type | None = None
    block_depth: int = 0
    final: bool = False  # inside the flow's `final` block

    def lookup(self, name: str) -> Local | None:
        """The innermost local of that name."""
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return None

    def child(self) -> Scope:
        """A nested block scope sharing the flags."""
        return Scope(
            self.frames + [{}],
            self.pure,
            self.me,
            self.scenario,
            self.loop_depth,
            self.owner,
            self.returns,
            self.block_depth,
            self.final,
        )

    def with_pure(self) -> Scope:
        """This scope, now read-only (for guards)."""
        self.pure = True
        return self


@dataclass
class Signature:
    """Parameter types and result of a function, procedure or action."""

    params: list[tuple[str, Type]]
    ret: Type | None


@dataclass
class CheckedProgram:
    """The program plus everything the checker learned about it."""

    program: Program
    sub: Subtyping
    enum_values: dict[str, list[str]]
    value_enum: dict[str, tuple[str, int]]
    kind_fields: dict[str, list[tuple[str, Type]]]
    state_types: dict[str, Type]
    player_types: dict[str, Type]
    const_types: dict[str, Type]
    signatures: dict[str, Signature]
    types: dict[int, Type] = field(default_factory=dict)
    refs: dict[int, Ref] = field(default_factory=dict)
    suspends: set[str] = field(default_factory=set)
    calls: dict[str, set[str]] = field(default_factory=dict)

    def type_of(self, node: ast.Expr) -> Type:
        """The checked type of an expression."""
        return self.types.get(id(node), ANY)

    def ref(self, node: ast.Node) -> Ref | None:
        """What a name, field, index or call refers to (None for anything else)."""
        return self.refs.get(id(node))


def valid_identifier(name: str) -> bool:
    """Plain ASCII identifiers that are not Python keywords after mangling are always safe."""
    return name.isascii() and name.isidentifier() and not name.startswith("__")


class Checker:
    """Checks a merged program and returns a CheckedProgram."""

    def __init__(self, program: Program, diags: Diagnostics):
        self.p = program
        self.diags = diags
        bases = {name: decl.base for name, decl in program.enums.items()}
        self.sub = Subtyping(bases)
        self.cp = CheckedProgram(program, self.sub, {}, {}, {}, {}, {}, {}, {})
        self.current_decl = ""

    # ------------------------------------------------------------ entry

    def run(self) -> CheckedProgram:
        """Run every check; findings go to the diagnostics."""
        self._names()
        self._enums()
        self._kinds()
        self._consts()
        self._state()
        self._signatures()
        self._bodies()
        self._suspension()
        self._visibility()
        self._choice_names()
        self._structure()
        return self.cp

    def error(self, code, message: str, node: ast.Node, *notes: str) -> None:
        """Record an error at a node."""
        self.diags.error(code, message, node.span, *notes)

    # ------------------------------------------------------------ declarations

    def _names(self) -> None:
        p = self.p
        groups = [
            p.enums,
            p.consts,
            p.kinds,
            p.state,
            p.per_player,
            p.functions,
            p.procedures,
            p.actions,
        ]
        for table in groups:
            for name, entry in table.items():
                decl = entry.active if hasattr(entry, "active") else entry
                if not valid_identifier(name) or name in RESERVED_WORDS:
                    self.error(BAD_NAME, f"'{name[:40]}' cannot be used as a name", decl)
        # Values, state, kinds and enums share one namespace; functions, procedures and actions
        # are only ever called or offered by name, so they live in their own.
        owners: dict[str, str] = {}
        for label, table in [
            ("enum", p.enums),
            ("const", p.consts),
            ("map kind", p.kinds),
            ("state field", p.state),
        ]:
            for name, entry in table.items():
                if name in owners:
                    decl = entry.active if hasattr(entry, "active") else entry
                    self.error(
                        DUPLICATE, f"'{name}' names both a {owners[name]} and a {label}", decl
                    )
                owners[name] = label
        self.global_names = owners
        for label, table in [("function", p.functions), ("procedure", p.procedures)]:
            for name, entry in table.items():
                other = "function" if label == "procedure" else "procedure"
                if name in (p.procedures if label == "function" else p.functions):
                    self.error(
                        DUPLICATE, f"'{name}' names both a {label} and a {other}", entry.active
                    )

    def _enums(self) -> None:
        for name, decl in self.p.enums.items():
            seen, base = {name}, decl.base
            while base is not None:
                if base not in self.p.enums:
                    self.error(UNDEFINED_NAME, f"enum '{name}' extends unknown enum '{base}'", decl)
                    break
                if base in seen:
                    self.error(
                        TYPE,
                        f"the extends chain of enum '{name}' loops: {self._extends_chain(name)}",
                        decl,
                    )
                    break
                seen.add(base)
                base = self.p.enums[base].base
            else:
                values = self.p.enum_values(name)
                if len(set(values)) != len(values):
                    self.error(DUPLICATE, f"enum '{name}' lists a value twice", decl)
                self.cp.enum_values[name] = values
                continue
            self.cp.enum_values[name] = list(decl.values)
        # A bare value name refers to the most basic enum that declares it.
        for name, values in self.cp.enum_values.items():
            for index, value in enumerate(values):
                home = self._home_enum(name, value)
                existing = self.cp.value_enum.get(value)
                if existing is not None and existing[0] != home:
                    if not (
                        self.sub.enum_extends(existing[0], home)
                        or self.sub.enum_extends(home, existing[0])
                    ):
                        self.error(
                            DUPLICATE,
                            f"enum value '{value}' is declared by both "
                            f"'{existing[0]}' and '{home}'",
                            self.p.enums[name],
                        )
                    continue
                self.cp.value_enum[value] = (
                    home,
                    self.cp.enum_values[home].index(value)
                    if value in self.cp.enum_values.get(home, [])
                    else index,
                )
                if not valid_identifier(value) or value in RESERVED_WORDS:
                    self.error(
                        BAD_NAME,
                        f"'{value[:40]}' cannot be used as an enum value",
                        self.p.enums[name],
                    )
                elif value in self.global_names:
                    self.error(
                        DUPLICATE,
                        f"enum value '{value}' is also a {self.global_names[value]}",
                        self.p.enums[name],
                    )

    def _extends_chain(self, name: str) -> str:
        """`A extends B extends A`: the chain from `name` until an enum repeats."""
        chain = [name]
        while chain.count(chain[-1]) < 2:
            chain.append(self.p.enums[chain[-1]].base)
        return " extends ".join(chain)

    def _home_enum(self, name: str, value: str) -> str:
        # Walks up at most once per enum: a cycle of `extends` was reported by `_enums`.
        seen = {name}
        decl = self.p.enums[name]
        while (
            decl.base
            and decl.base not in seen
            and decl.base in self.cp.enum_values
            and value in self.cp.enum_values[decl.base]
        ):
            name = decl.base
            seen.add(name)
            decl = self.p.enums[name]
        return name

    def _kinds(self) -> None:
        for name, kind in self.p.kinds.items():
            fields: list[tuple[str, Type]] = []
            seen: set[str] = set()
            for f in kind.fields:
                if f.name in seen:
                    self.error(DUPLICATE, f"field '{f.name}' twice in kind '{name}'", f)
                seen.add(f.name)
                if not valid_identifier(f.name):
                    self.error(BAD_NAME, f"'{f.name[:40]}' cannot be a field name", f)
                fields.append((f.name, self.type_expr(f.type, data=True)))
            self.cp.kind_fields[name] = fields

    def _consts(self) -> None:
        scope = Scope([{}], pure=True)
        for name, versions in self.p.consts.items():
            decl = versions.active
            self.current_decl = name
            self.cp.const_types[name] = self.expr(decl.value, scope)
            if len(versions.versions) > 1:
                # An override keeps the base's type, and the error belongs to the override's line.
                base_t = self.expr(versions.versions[0].value, scope)
                if not self.sub.assignable(self.cp.const_types[name], base_t):
                    self.error(
                        TYPE,
                        f"override of const '{name}' has type {self.cp.const_types[name]}, "
                        f"but the base declares {base_t}",
                        decl,
                    )
                    self.cp.const_types[name] = base_t
            for node in walk(decl.value):
                if isinstance(self.cp.ref(node), GlobalRef):
                    self.error(TYPE, "a const may not read the game state", node)

    def _state(self) -> None:
        scope = Scope([{}], pure=True)
        for table, out in (
            (self.p.state, self.cp.state_types),
            (self.p.per_player, self.cp.player_types),
        ):
            for name, spec in table.items():
                t = self.type_expr(spec.type)
                out[name] = t
                if spec.init is not None:
                    init_t = self.expr(spec.init, scope)
                    self.expect_assignable(init_t, t, spec.init, "initial value")
                    for node in walk(spec.init):
                        if isinstance(self.cp.ref(node), GlobalRef):
                            self.error(TYPE, "an initial value may not read the game state", node)
                if isinstance(t, CollT) and t.kind == "bag" and not is_finite(t.item):
                    self.error(
                        TYPE,
                        f"a bag holds enum values, map elements or players, not {t.item}",
                        spec.type,
                    )

    def _signatures(self) -> None:
        for table in (self.p.functions, self.p.procedures):
            for name, versions in table.items():
                sigs = [self._signature(decl) for decl in versions.versions]
                for decl, sig in zip(versions.versions[1:], sigs[1:], strict=True):
                    if self._sig_types(sig) != self._sig_types(sigs[0]):
                        self.error(
                            TYPE,
                            f"override of '{name}' changes its parameters or result "
                            f"(was {self._describe(sigs[0])})",
                            decl,
                        )
                self.cp.signatures[name] = sigs[-1]
        for name in self.p.actions:
            self.cp.signatures[name] = Signature([], None)

    def _sig_types(self, sig: Signature):
        return ([t for _, t in sig.params], sig.ret)

    def _describe(self, sig: Signature) -> str:
        params = ", ".join(f"{n}: {t}" for n, t in sig.params)
        return f"({params})" + (f" -> {sig.ret}" if sig.ret else "")

    def _signature(self, decl) -> Signature:
        params = []
        seen: set[str] = set()
        for param in decl.params:
            if param.name in seen:
                self.error(DUPLICATE, f"parameter '{param.name}' twice", param)
            seen.add(param.name)
            params.append((param.name, self.type_expr(param.type)))
        ret = self.type_expr(decl.ret) if decl.ret is not None else None
        return Signature(params, ret)

    # ------------------------------------------------------------ bodies

    def _bodies(self) -> None:
        p = self.p
        for name, versions in p.functions.items():
            for decl in versions.versions:
                self.current_decl = name
                scope = self._param_scope(decl, pure=True)
                scope.returns = self.cp.signatures[name].ret
                if decl.expr is not None:
                    self.expect_assignable(
                        self.expr(decl.expr, scope), scope.returns, decl.expr, "result"
                    )
                else:
                    self.block(decl.body, scope)
                    if not self._always_returns(decl.body):
                        self.error(STRUCTURE, f"function '{name}' may end without `return`", decl)
        for name, versions in p.procedures.items():
            for decl in versions.versions:
                self.current_decl = name
                scope = self._param_scope(decl, pure=False)
                scope.returns = self.cp.signatures[name].ret
                self.block(decl.body, scope)
                if scope.returns is not None and not self._always_returns(decl.body):
                    self.error(
                        STRUCTURE, f"procedure '{name}' may end without returning a value", decl
                    )
        for name, versions in p.actions.items():
            for decl in versions.versions:
                self.current_decl = name
                scope = Scope([{}], me=True, owner=name)
                params = []
                if (
                    len(decl.params) > MAX_LOOP_NESTING
                ):  # listing the arguments nests one loop per parameter
                    self.error(
                        TOO_DEEP,
                        f"an action has more than {MAX_LOOP_NESTING} parameters",
                        decl.params[MAX_LOOP_NESTING],
                    )
                for param in decl.params:
                    t = self.domain(param.domain, scope)
                    if param.name in scope.frames[-1] or param.name in self.global_names:
                        self.error(DUPLICATE, f"parameter '{param.name}' hides another name", param)
                    scope.frames[-1][param.name] = Local(t, mutable=False)
                    params.append((param.name, t))
                    if param.where is not None:
                        self.condition(param.where, scope.child().with_pure())
                if decl.when is not None:
                    when_scope = Scope([{}], me=True, pure=True)
                    self.condition(decl.when, when_scope)
                self.cp.signatures[name] = Signature(params, None)
                self.block(decl.body, scope)
        if p.flow is not None:
            for decl in p.flow.versions:
                self.current_decl = "flow"
                self.block(decl.body, Scope([{}], owner="flow"))
                if decl.final is not None:
                    self.block(decl.final, Scope([{}], owner="flow", final=True))
        if p.score is not None:
            decl = p.score.active
            scope = Scope([{decl.var: Local(PLAYER, False)}], pure=True)
            self.expect_assignable(self.expr(decl.expr, scope), INT, decl.expr, "score")
        if p.rank is not None:
            decl = p.rank.active
            scope = Scope([{decl.var: Local(PLAYER, False)}], pure=True)
            for key in decl.keys:
                t = self.expr(key.expr, scope)
                if not isinstance(t, IntT | BoolT | AnyT):
                    self.error(
                        TYPE, f"a ranking key must be a number or a truth value, not {t}", key.expr
                    )
        for decl in p.invariants.values():
            self.current_decl = decl.name
            self.condition(decl.expr, Scope([{}], pure=True))
        for decl in p.bots.values():
            for rule in decl.rules:
                if rule.action not in p.actions:
                    self.error(
                        UNDEFINED_NAME,
                        f"bot '{decl.name}' scores unknown action '{rule.action}'",
                        rule,
                    )
                    continue
                scope = Scope([{}], pure=True, me=True)
                for name, t in self.cp.signatures[rule.action].params:
                    scope.frames[-1][name] = Local(t, False)
                self.expect_assignable(
                    self.expr(rule.score, scope), INT, rule.score, "a bot's score"
                )
        for decl in p.scenarios.values():
            self.current_decl = decl.name
            lo, hi = (p.players.lo, p.players.hi) if p.players else (1, 99)
            # Under a variant that changes the player range, the base's scenarios just do not apply.
            if not lo <= decl.players <= hi and not p.applied:
                self.error(
                    SCENARIO,
                    f"scenario uses {decl.players} players; the game allows {lo}..{hi}",
                    decl,
                )
            scope = Scope([{}], scenario=True, owner=f"scenario {decl.name}")
            for step in decl.steps:
                self.stmt(step, scope)
        for decl in p.checks.values():
            self.current_decl = decl.name
            scope = Scope([{}], pure=True)
            if decl.var is not None:
                if decl.kind not in p.kinds:
                    self.error(UNDEFINED_NAME, f"unknown map kind '{decl.kind}'", decl)
                    continue
                scope.frames[-1][decl.var] = Local(ElemT(decl.kind), False)
                if decl.where is not None:
                    self.condition(decl.where, scope)
            self.condition(decl.cond, scope)
            for node in walk(decl.cond):
                if isinstance(self.cp.ref(node), GlobalRef):
                    self.error(TYPE, "a map check may only read map data, not the game state", node)

    def _param_scope(self, decl, pure: bool) -> Scope:
        scope = Scope([{}], pure=pure, owner=decl.name)
        for name, t in self._signature_quiet(decl):
            if name in self.global_names:
                self.error(
                    DUPLICATE,
                    f"parameter '{name}' hides the {self.global_names[name]} '{name}'",
                    decl,
                )
            scope.frames[-1][name] = Local(t, mutable=False)
        return scope

    def _signature_quiet(self, decl) -> list[tuple[str, Type]]:
        sig = self.cp.signatures.get(decl.name)
        return sig.params if sig else []

    def _always_returns(self, block: ast.Block) -> bool:
        for stmt in block.stmts:
            if isinstance(stmt, ast.Return | ast.EndGame):
                return True
            if isinstance(stmt, ast.If) and stmt.orelse is not None:
                if all(self._always_returns(b) for _, b in stmt.branches) and self._always_returns(
                    stmt.orelse
                ):
                    return True
        return False

    # ------------------------------------------------------------ suspension and structure

    def _suspension(self) -> None:
        """Mark every procedure/action that can wait for a decision; refuse recursion."""
        bodies: dict[str, list[ast.Node]] = {}
        for table in (self.p.functions, self.p.procedures, self.p.actions):
            for name, versions in table.items():
                bodies[name] = list(versions.versions)
        direct: set[str] = set()
        calls: dict[str, set[str]] = {}
        for name, decls in bodies.items():
            out: set[str] = set()
            for decl in decls:
                for node in walk(decl):
                    if isinstance(node, CHOOSE_NODES):
                        direct.add(name)
                    if isinstance(node, ast.Call) and node.func in bodies and node.func != name:
                        out.add(node.func)
                    if isinstance(node, ast.Call) and node.func == name:
                        self.error(STRUCTURE, f"'{name}' calls itself; rules may not recurse", node)
            calls[name] = out
        self.cp.calls = calls
        suspends = set(direct)
        changed = True
        while changed:
            changed = False
            for name, out in calls.items():
                if name not in suspends and out & suspends:
                    suspends.add(name)
                    changed = True
        self.cp.suspends = suspends
        # Cycles through several procedures are recursion too.
        state: dict[str, int] = {}
        for root in sorted(calls):
            stack = [(root, iter(sorted(calls[root])))]
            state[root] = 1
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    state[node] = 2
                    stack.pop()
                elif state.get(nxt) == 1:
                    decl = bodies[nxt][-1]
                    self.error(
                        STRUCTURE,
                        f"'{nxt}' is reached again through its own calls; rules may not recurse",
                        decl,
                    )
                    state[nxt] = 2
                elif state.get(nxt) is None and nxt in calls:
                    state[nxt] = 1
                    stack.append((nxt, iter(sorted(calls[nxt]))))
        for name in suspends & set(self.p.functions):
            self.error(
                PURITY,
                f"function '{name}' waits for a decision; make it a procedure",
                self.p.functions[name].active,
            )
        # Calls to a waiting procedure must be whole statements (or a let's whole value).
        for decls in bodies.values():
            for decl in decls:
                self._check_waiting_calls(decl)
        if self.p.flow is not None:
            self._check_waiting_calls(self.p.flow.active)

    def _visibility(self) -> None:
        """Legal choices are shown to the chooser, so their guards may not read secrets."""
        for versions in self.p.actions.values():
            decl = versions.active
            guards = (
                [decl.when]
                + [p.where for p in decl.params]
                + [_domain_expr(p.domain) for p in decl.params]
            )
            for guard in guards:
                self._guard_reads(guard, set())
        bodies = [
            v for t in (self.p.procedures, self.p.actions) for vs in t.values() for v in vs.versions
        ]
        if self.p.flow is not None:
            bodies += self.p.flow.versions
        for body in bodies:
            for node in walk(body):
                if isinstance(node, ast.Choose):
                    for guard in (node.where, _domain_expr(node.domain)):
                        self._guard_reads(guard, set())
                elif isinstance(node, ast.EachChoose):
                    for guard in (node.where, _domain_expr(node.domain)):
                        self._guard_reads(guard, {node.var})

    def _guard_reads(
        self, guard: ast.Expr | None, choosers: set[str], seen: set[str] | None = None
    ) -> None:
        if guard is None:
            return
        seen = set() if seen is None else seen
        for node in walk(guard):
            # Functions a guard calls are read through too (for hidden state; their player
            # parameters are not tracked, so owner fields read inside them are not checked).
            if (
                isinstance(node, ast.Call)
                and node.func in self.p.functions
                and node.func not in seen
            ):
                seen.add(node.func)
                decl = self.p.functions[node.func].active
                self._guard_reads(decl.expr or decl.body, {p.name for p in decl.params}, seen)
        counted: set[int] = set()
        for node in walk(guard):
            if isinstance(node, ast.Call) and node.func == "size":
                counted.update(id(n) for n in node.args)
        for node in walk(guard):
            ref = self.cp.ref(node)
            if isinstance(ref, GlobalRef) and id(node) not in counted:
                spec = self.p.state.get(node.name)
                if spec is not None and spec.visibility != "public":
                    self.error(
                        VISIBILITY,
                        f"the legal choices would reveal the {spec.visibility} field "
                        f"'{node.name}' (only its size() may be used here)",
                        node,
                    )
            if isinstance(ref, PlayerFieldRef) and id(node) not in counted:
                spec = self.p.per_player.get(node.name)
                obj = node.obj
                own = isinstance(obj, ast.MeLit) or (
                    isinstance(obj, ast.Name) and obj.name in choosers
                )
                if spec is not None and (
                    spec.visibility == "hidden" or (spec.visibility == "owner" and not own)
                ):
                    self.error(
                        VISIBILITY,
                        f"the legal choices would reveal another player's "
                        f"{spec.visibility} field '{node.name}'",
                        node,
                    )

    def _choice_names(self) -> None:
        """Choices are recorded by name in histories, so one name must always mean one type."""
        seen: dict[str, tuple[Type, ast.Node]] = {}
        bodies = [
            v for t in (self.p.procedures, self.p.actions) for vs in t.values() for v in vs.versions
        ]
        if self.p.flow is not None:
            bodies += self.p.flow.versions
        for decl in bodies:
            for node in walk(decl):
                if isinstance(node, ast.Choose | ast.EachChoose) and id(node) in self.cp.types:
                    t = self.cp.types[id(node)]
                    if isinstance(node, ast.Choose) and node.optional:
                        t = OptT(t)
                    if node.name in seen and seen[node.name][0] != t:
                        self.error(
                            TYPE,
                            f"choice '{node.name}' is {t} here but {seen[node.name][0]} "
                            f"at line {seen[node.name][1].span.line}; give it another name",
                            node,
                        )
                    if node.name in self.p.actions:  # its ids would read as the action's: b(red)
                        self.error(
                            DUPLICATE,
                            f"choice '{node.name}' has the name of an action; give it another name",
                            node,
                        )
                    seen.setdefault(node.name, (t, node))

    def _check_waiting_calls(self, decl: ast.Node) -> None:
        allowed: set[int] = set()
        for node in walk(decl):
            if isinstance(node, ast.ExprStmt) and isinstance(node.expr, ast.Call):
                allowed.add(id(node.expr))
            if isinstance(node, ast.Let | ast.Assign) and isinstance(node.value, ast.Call):
                allowed.add(id(node.value))
        for node in walk(decl):
            if (
                isinstance(node, ast.Call)
                and node.func in self.cp.suspends
                and id(node) not in allowed
            ):
                self.error(
                    STRUCTURE,
                    f"'{node.func}' waits for decisions, so it can only be called as a "
                    "statement or as the whole value of `let`",
                    node,
                )

    def _structure(self) -> None:
        p = self.p
        if p.players is None:
            self.diags.error(
                STRUCTURE,
                "the game does not say how many players it takes (`players 2..5`)",
                _file_span(p),
            )
        elif not 1 <= p.players.lo <= p.players.hi <= 64:
            self.error(STRUCTURE, "players must be a range within 1..64", p.players)
        if p.flow is None:
            self.diags.error(STRUCTURE, "the game has no `flow`", _file_span(p))
        if p.kinds and not p.map_files:
            self.diags.error(
                STRUCTURE,
                "the game declares a map schema but no map was given "
                '(`default map "file.metro"` or --map)',
                _file_span(p),
            )

    # ------------------------------------------------------------ types and domains

    def type_expr(self, node: ast.TypeExpr, data: bool = False) -> Type:
        """The checker type a written type denotes (recorded for the code generator)."""
        t = self._type_expr(node, data)
        self.cp.types[id(node)] = t
        return t

    def _type_expr(self, node: ast.TypeExpr, data: bool) -> Type:
        if isinstance(node, ast.NamedType):
            builtin = {
                "int": INT,
                "bool": BOOL,
                "text": STR,
                "shape": SHAPE,
                "frame": FRAME,
                "building": BUILDING,
                "placement": PLACEMENT,
            }.get(node.name)
            if builtin is not None:
                return builtin
            if node.name in self.p.enums:
                return EnumT(node.name)
            if node.name in self.p.kinds:
                return ElemT(node.name)
            self.error(
                UNDEFINED_NAME,
                f"unknown type '{node.name}'",
                node,
                "types are int, bool, text, player, shape, frame, building, placement, enums, "
                "map kinds and collections of them",
            )
            return ANY
        if isinstance(node, ast.PlayerType):
            return PLAYER
        if isinstance(node, ast.OptionalType):
            return OptT(self.type_expr(node.inner, data))
        if isinstance(node, ast.RangeType):
            scope = Scope([{}], pure=True)
            for bound in (node.lo, node.hi, node.step):
                if bound is not None:
                    self.expect_assignable(self.expr(bound, scope), INT, bound, "range bound")
            return INT
        if isinstance(node, ast.CollectionType):
            return CollT(node.kind, self.type_expr(node.item, data))
        if isinstance(node, ast.MapType):
            key = self.type_expr(node.key, data)
            if not is_finite(key) and not isinstance(key, IntT | AnyT):
                self.error(
                    TYPE,
                    f"map keys must be enum values, map elements, players or numbers, not {key}",
                    node.key,
                )
            return MapT(key, self.type_expr(node.value, data))
        return ANY

    def domain(self, node: ast.Node, scope: Scope) -> Type:
        """The type of a choice's values; the domain must be finite."""
        pure = scope.child().with_pure()
        if isinstance(node, ast.TypeDomain):
            if isinstance(node.type, ast.RangeType):
                for bound in (node.type.lo, node.type.hi, node.type.step):
                    if bound is not None:
                        self.expect_assignable(self.expr(bound, pure), INT, bound, "range bound")
                return INT
            t = self.type_expr(node.type)
            if not is_finite(t) and not isinstance(t, AnyT):
                self.error(
                    NOT_FINITE,
                    f"cannot choose among all values of {t}: the choice must be finite",
                    node,
                    "choose from an enum, a map kind, players, bool, a range lo..hi, "
                    "`in` a collection or a `subset of` one",
                )
            return t
        if isinstance(node, ast.InDomain):
            t = self.expr(node.collection, pure)
            item = item_type(t)
            if item is None:
                self.error(NOT_FINITE, f"cannot choose from {t}: not a collection", node)
                return ANY
            return item
        if isinstance(node, ast.SubsetDomain):
            t = self.expr(node.collection, pure)
            item = item_type(t)
            if item is None:
                self.error(NOT_FINITE, f"cannot choose a subset of {t}: not a collection", node)
                return ANY
            for bound in (node.lo, node.hi):
                if bound is not None:
                    self.expect_assignable(self.expr(bound, pure), INT, bound, "size bound")
            return CollT("list", item)
        return ANY

    def expect_assignable(self, src: Type, dst: Type | None, node: ast.Node, what: str) -> None:
        """Report a type error unless src may be stored as dst."""
        if dst is None:
            return
        if not self.sub.assignable(src, dst) and not self._converts(src, dst):
            self.error(TYPE, f"{what} has type {src}, but {dst} is expected", node)

    def _converts(self, src: Type, dst: Type) -> bool:
        # A list literal or comprehension may fill a bag or a set of the same items.
        return (
            isinstance(src, CollT)
            and isinstance(dst, CollT)
            and src.kind == "list"
            and dst.kind in ("bag", "set")
            and self.sub.assignable(src.item, dst.item)
        )

    def condition(self, node: ast.Expr, scope: Scope) -> None:
        """Check an expression that must be a truth value."""
        t = self.expr(node, scope)
        if not isinstance(t, BoolT | AnyT):
            self.error(TYPE, f"a condition must be a truth value, not {t}", node)

    # ------------------------------------------------------------ statements

    def block(self, block: ast.Block, scope: Scope) -> None:
        """Check a block in a new nested scope."""
        inner = scope.child()
        inner.block_depth += 1
        for stmt in block.stmts:
            self.stmt(stmt, inner)

    def stmt(self, node: ast.Stmt, scope: Scope) -> None:
        """Check one statement."""
        method = getattr(self, f"s_{type(node).__name__}")
        if isinstance(node, LOOP_NODES) and scope.loop_depth == MAX_LOOP_NESTING:
            self.error(
                TOO_DEEP, f"loops are nested deeper than the limit of {MAX_LOOP_NESTING}", node
            )
        elif isinstance(node, BLOCK_NODES) and scope.block_depth == MAX_BLOCK_NESTING + 1:
            self.error(
                TOO_DEEP, f"blocks are nested deeper than the limit of {MAX_BLOCK_NESTING}", node
            )
        if scope.pure and isinstance(
            node, (ast.Draw, ast.Move, ast.Shuffle, ast.EndGame, *CHOOSE_NODES)
        ):
            self.error(
                PURITY, "a function or guard may not change the game or wait for a decision", node
            )
        if not scope.scenario and isinstance(node, ast.Play | ast.Refuse | ast.Expect):
            self.error(SCENARIO, "`play`, `refuse` and `expect` belong in scenarios", node)
        if scope.scenario and isinstance(node, CHOOSE_NODES):
            self.error(SCENARIO, "a scenario cannot wait for a decision; use `play`", node)
        method(node, scope)

    def s_Let(self, node: ast.Let, scope: Scope) -> None:
        t = self.expr(node.value, scope)
        if isinstance(node.value, ast.Call) and node.value.func in self.p.procedures:
            sig = self.cp.signatures.get(node.value.func)
            if sig is not None and sig.ret is None:
                self.error(TYPE, f"procedure '{node.value.func}' returns no value", node.value)
        if node.type is not None:
            declared = self.type_expr(node.type)
            self.expect_assignable(t, declared, node.value, f"'{node.name}'")
            t = declared
            self.cp.types[id(node)] = declared
        elif isinstance(t, NoneT):
            self.error(TYPE, f"give '{node.name}' a type: `let {node.name}: T? = none`", node)
        self._declare(node.name, t, node, scope)

    def _declare(
        self, name: str, t: Type, node: ast.Node, scope: Scope, mutable: bool = True
    ) -> None:
        if not valid_identifier(name) or name in RESERVED_WORDS:
            self.error(BAD_NAME, f"'{name[:40]}' cannot be used as a name", node)
        if name in self.global_names or name in self.cp.value_enum:
            self.error(DUPLICATE, f"'{name}' hides a declaration of the same name", node)
        elif scope.lookup(name) is not None:
            self.error(DUPLICATE, f"'{name}' is already a local here", node)
        scope.frames[-1][name] = Local(t, mutable)

    def s_Assign(self, node: ast.Assign, scope: Scope) -> None:
        target_t = self.lvalue(node.target, scope)
        value_t = self.expr(node.value, scope)
        if node.op == "=":
            self.expect_assignable(value_t, target_t, node.value, "the value")
        elif isinstance(target_t, CollT) and node.op in ("+=", "-="):
            if node.op == "-=" and target_t.kind not in ("bag", "set"):
                self.error(TYPE, "`-=` removes items from a bag or a set", node)
            elif not isinstance(value_t, CollT | AnyT) or not self.sub.assignable(
                value_t.item if isinstance(value_t, CollT) else ANY, target_t.item
            ):
                self.error(TYPE, f"cannot add {value_t} to {target_t}", node.value)
        elif not isinstance(target_t, IntT | AnyT) or not isinstance(value_t, IntT | AnyT):
            self.error(TYPE, f"`{node.op}` needs numbers, not {target_t} and {value_t}", node)

    def lvalue(self, node: ast.Expr, scope: Scope) -> Type:
        """Check an assignment target and return its type."""
        root = node
        while isinstance(root, ast.Field | ast.Index):
            root = root.obj
        t = self.expr(node, scope)
        ref = self.cp.ref(node)
        if isinstance(node, ast.Name):
            if ref is None:
                return t
            if isinstance(ref, LocalRef):
                local = scope.lookup(node.name)
                if local is not None and not local.mutable:
                    self.error(
                        ASSIGN,
                        f"'{node.name}' is a parameter or choice and cannot be assigned",
                        node,
                    )
                return t
            if isinstance(ref, GlobalRef):
                if scope.pure:
                    self.error(PURITY, "a function or guard may not change the game state", node)
                return t
            self.error(ASSIGN, f"cannot assign to {ref.what} '{node.name}'", node)
            return t
        if isinstance(node, ast.Field):
            if isinstance(ref, PlayerFieldRef):
                if scope.pure:
                    self.error(PURITY, "a function or guard may not change the game state", node)
                return t
            self.error(ASSIGN, "only player fields can be assigned with `.`", node)
            return t
        if isinstance(node, ast.Index):
            obj_t = self.cp.type_of(node.obj)
            if isinstance(obj_t, CollT) and obj_t.kind == "set":
                self.error(ASSIGN, "cannot assign into a set; use add() or remove()", node)
            self._mutable_root(node.obj, scope)
            return t
        self.error(ASSIGN, "this cannot be assigned", node)
        return t

    def _mutable_root(self, node: ast.Expr, scope: Scope) -> None:
        ref = self.cp.ref(node)
        if isinstance(ref, GlobalRef | PlayerFieldRef):
            if scope.pure:
                self.error(PURITY, "a function or guard may not change the game state", node)
        elif isinstance(ref, LocalRef):
            pass
        elif isinstance(node, ast.Index):
            self._mutable_root(node.obj, scope)
        else:
            self.error(ASSIGN, "this cannot be changed (constants and map data are fixed)", node)

    def s_ExprStmt(self, node: ast.ExprStmt, scope: Scope) -> None:
        if not isinstance(node.expr, ast.Call | ast.SuperCall):
            self.error(
                STRUCTURE, "an expression on its own does nothing; call a procedure or assign", node
            )
        self.expr(node.expr, scope, statement=True)

    def s_Return(self, node: ast.Return, scope: Scope) -> None:
        t = self.expr(node.value, scope) if node.value is not None else None
        if scope.returns is None:
            self.error(
                STRUCTURE,
                "this body returns no value; use a bare `return` at the end of a block",
                node,
            )
        elif t is not None:
            self.expect_assignable(t, scope.returns, node.value, "the returned value")

    def s_Break(self, node, scope: Scope) -> None:
        if scope.loop_depth == 0:
            self.error(STRUCTURE, "`break` outside a loop", node)

    s_Continue = s_Break

    def s_EndGame(self, node, scope: Scope) -> None:
        if scope.final:
            self.error(STRUCTURE, "`end game` inside `final`: the game is already ending", node)

    def s_Draw(self, node: ast.Draw, scope: Scope) -> None:
        if node.count is not None:
            self.expect_assignable(self.expr(node.count, scope), INT, node.count, "the count")
        src = self.expr(node.source, scope)
        if not (isinstance(src, CollT) and is_sequence(src)) and not isinstance(src, AnyT):
            self.error(TYPE, f"`draw` takes from a pile or list, not {src}", node.source)
        self._mutable_root(node.source, scope)
        dst = self.expr(node.dest, scope)
        self._check_dest(src, dst, node.dest, scope)

    def s_Move(self, node: ast.Move, scope: Scope) -> None:
        item = self.expr(node.item, scope)
        src = self.expr(node.source, scope)
        dst = self.expr(node.dest, scope)
        for coll, where in ((src, node.source), (dst, node.dest)):
            if not isinstance(coll, CollT | AnyT):
                self.error(TYPE, f"`move` works between collections, not {coll}", where)
            self._mutable_root(where, scope)
        if isinstance(src, CollT):
            if not self.sub.comparable(item, src.item):
                self.error(TYPE, f"cannot move {item} out of {src}", node.item)
        if isinstance(dst, CollT):
            self.expect_assignable(item, dst.item, node.item, "the moved item")

    def _check_dest(self, src: Type, dst: Type, where: ast.Expr, scope: Scope) -> None:
        if not isinstance(dst, CollT | AnyT):
            self.error(TYPE, f"can only draw into a collection, not {dst}", where)
            return
        self._mutable_root(where, scope)
        if isinstance(src, CollT) and isinstance(dst, CollT):
            self.expect_assignable(src.item, dst.item, where, "the drawn items")

    def s_Shuffle(self, node: ast.Shuffle, scope: Scope) -> None:
        t = self.expr(node.target, scope)
        if not (isinstance(t, CollT) and is_sequence(t)) and not isinstance(t, AnyT):
            self.error(TYPE, f"can only shuffle a pile or list, not {t}", node.target)
        self._mutable_root(node.target, scope)

    def s_Choose(self, node: ast.Choose, scope: Scope) -> None:
        self.expect_assignable(self.expr(node.by, scope), PLAYER, node.by, "`by`")
        t = self.domain(node.domain, scope)
        self.cp.types[id(node)] = t  # the chosen value's type, for lowering and naming
        guard = scope.child()
        guard.pure, guard.me = True, True
        guard.frames[-1][node.name] = Local(t, False)
        if node.where is not None:
            self.condition(node.where, guard)
        self._declare(node.name, OptT(t) if node.optional else t, node, scope, mutable=False)

    def s_EachChoose(self, node: ast.EachChoose, scope: Scope) -> None:
        t = self.expr(node.players, scope)
        if not (isinstance(t, CollT) and self.sub.assignable(t.item, PLAYER)) and not isinstance(
            t, AnyT
        ):
            self.error(TYPE, f"`each … in` needs a collection of players, not {t}", node.players)
        inner = scope.child()
        inner.frames[-1][node.var] = Local(PLAYER, False)
        value_t = self.domain(node.domain, inner)
        self.cp.types[id(node)] = value_t
        guard = inner.child()
        guard.pure, guard.me = True, True
        guard.frames[-1][node.name] = Local(value_t, False)
        if node.where is not None:
            self.condition(node.where, guard)
        self._declare(node.name, MapT(PLAYER, value_t), node, scope, mutable=False)

    def s_ChooseAction(self, node: ast.ChooseAction, scope: Scope) -> None:
        self.expect_assignable(self.expr(node.by, scope), PLAYER, node.by, "`by`")
        seen: set[str] = set()
        for name in node.actions:
            if name not in self.p.actions and name not in self.p.groups:
                self.error(
                    UNDEFINED_NAME,
                    f"unknown action or action group '{name}'",
                    node,
                    *self._suggest(name, list(self.p.actions) + list(self.p.groups)),
                )
            if name in seen:
                self.error(DUPLICATE, f"action '{name}' is offered twice", node)
            seen.add(name)
        for name in self.p.offered(node.actions):
            if name not in self.p.actions and name not in self.p.groups:
                self.error(UNDEFINED_NAME, f"action group offers unknown action '{name}'", node)
        if node.orelse is not None:
            self.block(node.orelse, scope)

    def s_EachChooseAction(self, node: ast.EachChooseAction, scope: Scope) -> None:
        t = self.expr(node.players, scope)
        if not (isinstance(t, CollT) and self.sub.assignable(t.item, PLAYER)) and not isinstance(
            t, AnyT
        ):
            self.error(TYPE, f"`each … in` needs a collection of players, not {t}", node.players)
        for name in self.p.offered(node.actions):
            if name not in self.p.actions:
                self.error(
                    UNDEFINED_NAME,
                    f"unknown action '{name}'",
                    node,
                    *self._suggest(name, self.p.actions),
                )

    def s_If(self, node: ast.If, scope: Scope) -> None:
        for cond, body in node.branches:
            self.condition(cond, scope)
            self.block(body, scope)
        if node.orelse is not None:
            self.block(node.orelse, scope)

    def s_For(self, node: ast.For, scope: Scope) -> None:
        t = self.expr(node.iterable, scope)
        item = item_type(t)
        if item is None:
            self.error(TYPE, f"cannot loop over {t}", node.iterable)
            item = ANY
        inner = scope.child()
        inner.loop_depth += 1
        self._declare(node.var, item, node, inner, mutable=False)
        if node.where is not None:
            self.condition(node.where, inner)
        self.block(node.body, inner)

    def s_Repeat(self, node: ast.Repeat, scope: Scope) -> None:
        self.expect_assignable(self.expr(node.count, scope), INT, node.count, "the count")
        inner = scope.child()
        inner.loop_depth += 1
        self.block(node.body, inner)

    def s_While(self, node: ast.While, scope: Scope) -> None:
        self.condition(node.cond, scope)
        inner = scope.child()
        inner.loop_depth += 1
        self.block(node.body, inner)

    def s_Loop(self, node: ast.Loop, scope: Scope) -> None:
        inner = scope.child()
        inner.loop_depth += 1
        self.block(node.body, inner)

    def s_Play(self, node: ast.Play, scope: Scope) -> None:
        self.expect_assignable(self.expr(node.player, scope), PLAYER, node.player, "the player")
        for arg in node.args:
            self.expr(arg, scope)

    s_Refuse = s_Play

    def s_Expect(self, node: ast.Expect, scope: Scope) -> None:
        self.condition(node.expr, scope)

    # ------------------------------------------------------------ expressions

    def expr(self, node: ast.Expr, scope: Scope, statement: bool = False) -> Type:
        """Check an expression, record and return its type."""
        method = getattr(self, f"e_{type(node).__name__}")
        t = method(node, scope, statement) if isinstance(node, ast.Call) else method(node, scope)
        self.cp.types[id(node)] = t
        return t

    def e_IntLit(self, node, scope):
        return INT

    def e_StrLit(self, node, scope):
        return STR

    def e_BoolLit(self, node, scope):
        return BOOL

    def e_NoneLit(self, node, scope):
        return NONE

    def e_PlayersLit(self, node, scope):
        return CollT("list", PLAYER)

    def e_MeLit(self, node, scope):
        if not scope.me:
            self.error(
                UNDEFINED_NAME, "`me` is only known inside an action or a choice's `where`", node
            )
        return PLAYER

    def e_Name(self, node: ast.Name, scope: Scope) -> Type:
        name = node.name
        local = scope.lookup(name)
        if local is not None:
            self.cp.refs[id(node)] = LocalRef(name)
            return local.type
        p = self.p
        if name in p.state:
            self.cp.refs[id(node)] = GlobalRef(name)
            return self.cp.state_types.get(name, ANY)
        if name in p.consts:
            self.cp.refs[id(node)] = ConstRef(name)
            if name not in self.cp.const_types:
                if name == self.current_decl:
                    self.error(TYPE, f"const '{name}' refers to itself", node)
                    return ANY
                saved = self.current_decl
                self.current_decl = name
                self.cp.const_types[name] = self.expr(
                    p.consts[name].active.value, Scope([{}], pure=True)
                )
                self.current_decl = saved
            return self.cp.const_types[name]
        if name in self.cp.value_enum:
            enum, index = self.cp.value_enum[name]
            self.cp.refs[id(node)] = EnumValueRef(enum, index)
            return EnumT(enum)
        if name in p.enums:
            self.cp.refs[id(node)] = EnumAllRef(name)
            return CollT("list", EnumT(name))
        if name in p.kinds:
            self.cp.refs[id(node)] = KindAllRef(name)
            return CollT("list", ElemT(name))
        if name in p.per_player:
            self.error(
                UNDEFINED_NAME, f"'{name}' is a player field; write `p.{name}` for a player p", node
            )
            return ANY
        candidates = [
            n
            for n in (
                list(p.state)
                + list(p.consts)
                + list(self.cp.value_enum)
                + [n for f in scope.frames for n in f]
            )
        ]
        self.error(
            UNDEFINED_NAME, f"unknown name '{name[:60]}'", node, *self._suggest(name, candidates)
        )
        return ANY

    def _suggest(self, name: str, candidates) -> tuple[str, ...]:
        import difflib

        close = difflib.get_close_matches(name, sorted(candidates), n=1, cutoff=0.75)
        return (f"did you mean '{close[0]}'?",) if close else ()

    def e_Field(self, node: ast.Field, scope: Scope) -> Type:
        if (
            isinstance(node.obj, ast.Name)
            and node.obj.name in self.p.enums
            and scope.lookup(node.obj.name) is None
        ):
            values = self.cp.enum_values.get(node.obj.name, [])
            if node.name not in values:
                self.error(
                    UNDEFINED_NAME, f"enum '{node.obj.name}' has no value '{node.name}'", node
                )
                return ANY
            self.cp.refs[id(node)] = EnumValueRef(node.obj.name, values.index(node.name))
            return EnumT(self._home_enum(node.obj.name, node.name))
        obj = self.expr(node.obj, scope)
        base = obj.inner if isinstance(obj, OptT) else obj
        if isinstance(base, PlayerT):
            if node.name not in self.p.per_player:
                self.error(
                    UNDEFINED_NAME,
                    f"players have no field '{node.name}'",
                    node,
                    *self._suggest(node.name, self.p.per_player),
                )
                return ANY
            self.cp.refs[id(node)] = PlayerFieldRef(node.name)
            return self.cp.player_types.get(node.name, ANY)
        if isinstance(base, ElemT):
            fields = dict(self.cp.kind_fields.get(base.kind, []))
            if node.name not in fields:
                self.error(
                    UNDEFINED_NAME,
                    f"{base.kind} has no field '{node.name}'",
                    node,
                    *self._suggest(node.name, fields),
                )
                return ANY
            self.cp.refs[id(node)] = ElemFieldRef(base.kind, node.name)
            return fields[node.name]
        if isinstance(base, AnyT):
            return ANY
        self.error(TYPE, f"{obj} has no fields", node)
        return ANY

    def e_Index(self, node: ast.Index, scope: Scope) -> Type:
        if (
            isinstance(node.obj, ast.Name)
            and node.obj.name in self.p.kinds
            and isinstance(node.index, ast.StrLit)
            and scope.lookup(node.obj.name) is None
        ):
            self.cp.refs[id(node)] = ElemByIdRef(node.obj.name, node.index.value)
            return ElemT(node.obj.name)
        obj = self.expr(node.obj, scope)
        key = self.expr(node.index, scope)
        key0 = key.inner if isinstance(key, OptT) else key
        if isinstance(obj, MapT):
            self.expect_assignable(key0, obj.key, node.index, "the key")
            return obj.value
        if isinstance(obj, CollT) and obj.kind == "bag":
            self.expect_assignable(key0, obj.item, node.index, "the key")
            return INT
        if isinstance(obj, CollT) and obj.kind in ("list", "pile"):
            self.expect_assignable(key0, INT, node.index, "the position")
            return obj.item
        if isinstance(obj, TupleT):
            if not isinstance(node.index, ast.IntLit) or not 0 <= node.index.value < len(obj.items):
                self.error(
                    TYPE,
                    f"a tuple of {len(obj.items)} is indexed by a number 0..{len(obj.items) - 1}",
                    node.index,
                )
                return ANY
            return obj.items[node.index.value]
        if isinstance(obj, AnyT):
            return ANY
        self.error(TYPE, f"cannot index {obj}", node)
        return ANY

    def e_Call(self, node: ast.Call, scope: Scope, statement: bool = False) -> Type:
        name = node.func
        p = self.p
        if name in p.functions or name in p.procedures:
            sig = self.cp.signatures.get(name)
            is_proc = name in p.procedures
            self.cp.refs[id(node)] = ProcedureRef(name) if is_proc else FunctionRef(name)
            if is_proc and scope.pure:
                self.error(PURITY, f"a function or guard may not call procedure '{name}'", node)
            if sig is None:
                return ANY
            self._call_args(node, node.args, sig, scope)
            if sig.ret is None:
                if not statement:
                    self.error(TYPE, f"procedure '{name}' returns no value", node)
                return ANY
            return sig.ret
        if name in p.actions:
            self.error(
                STRUCTURE, f"'{name}' is an action: offer it with `choose by p {{ {name} }}`", node
            )
            return ANY
        builtin = BUILTINS.get(name)
        if builtin is None:
            known = list(p.functions) + list(p.procedures) + list(BUILTINS)
            self.error(
                UNDEFINED_NAME, f"unknown function '{name[:60]}'", node, *self._suggest(name, known)
            )
            return ANY
        self.cp.refs[id(node)] = BuiltinRef(name)
        lo, hi = builtin.arity
        if not lo <= len(node.args) <= hi:
            self.error(
                ARGUMENTS,
                f"{name}() takes {lo if lo == hi else f'{lo} to {hi}'} argument"
                f"{'s' if hi != 1 else ''}, not {len(node.args)}",
                node,
            )
            for arg in node.args:
                self.expr(arg, scope)
            return ANY
        if builtin.mutates and scope.pure:
            self.error(PURITY, f"a function or guard may not call {name}()", node)
        args = [self.expr(arg, scope) for arg in node.args]
        if builtin.mutates and name != "roll":
            self._mutable_root(node.args[0], scope)
            if name in ("add", "remove", "put_bottom"):
                coll = args[0]
                if isinstance(coll, CollT):
                    item = (
                        args[1].inner
                        if isinstance(args[1], OptT) and not isinstance(coll.item, OptT)
                        else args[1]
                    )
                    self.expect_assignable(item, coll.item, node.args[1], "the item")
                elif not isinstance(coll, AnyT):
                    self.error(TYPE, f"{name}() needs a collection, not {coll}", node.args[0])
        expected = GEOMETRY_ARGS.get(name)
        if expected is not None:
            for arg, want, node_arg in zip(args, expected, node.args, strict=True):
                arg = arg.inner if isinstance(arg, OptT) else arg
                if want is not None and not self.sub.assignable(arg, want):
                    self.error(TYPE, f"{name}() expects {want} here, not {arg}", node_arg)
        result = builtin_result(name, args)
        if isinstance(result, str):
            self.error(TYPE, result, node)
            return ANY
        return result

    def _call_args(self, node, args, sig: Signature, scope: Scope) -> None:
        if len(args) != len(sig.params):
            self.error(ARGUMENTS, f"expected {len(sig.params)} argument(s), got {len(args)}", node)
        for arg, (pname, ptype) in zip(args, sig.params, strict=False):
            t = self.expr(arg, scope)
            # An optional value passes where its value is expected (none there is a runtime error).
            if isinstance(t, OptT) and not isinstance(ptype, OptT):
                t = t.inner
            self.expect_assignable(t, ptype, arg, f"argument '{pname}'")
        for arg in args[len(sig.params) :]:
            self.expr(arg, scope)

    def e_SuperCall(self, node: ast.SuperCall, scope: Scope) -> Type:
        owner = self.current_decl
        versions = self.p.functions.get(owner) or self.p.procedures.get(owner)
        if versions is None or len(versions.versions) < 2:
            self.error(
                STRUCTURE,
                "`super` is only allowed in an `override` of a function or procedure",
                node,
            )
            for arg in node.args:
                self.expr(arg, scope)
            return ANY
        sig = self.cp.signatures[owner]
        self._call_args(node, node.args, sig, scope)
        return sig.ret or ANY

    def e_GenCall(self, node: ast.GenCall, scope: Scope) -> Type:
        if node.func not in ("sum", "count", "any", "all", "min", "max", "sorted", "distinct"):
            self.error(
                UNDEFINED_NAME,
                f"'{node.func}' cannot take a comprehension "
                "(use sum, count, any, all, min, max, sorted or distinct)",
                node,
            )
        inner = self._comp_scope(node.fors, scope)
        elem = self.expr(node.elem, inner)
        if node.func in ("any", "all") and not isinstance(elem, BoolT | AnyT):
            self.error(TYPE, f"{node.func}() needs truth values, not {elem}", node.elem)
        if node.func in ("sum",) and not isinstance(elem, IntT | AnyT):
            self.error(TYPE, f"sum() needs numbers, not {elem}", node.elem)
        elem = self._narrowed(node.elem, node.fors, elem)
        return {"sum": INT, "count": INT, "any": BOOL, "all": BOOL}.get(
            node.func, CollT("list", elem) if node.func in ("sorted", "distinct") else elem
        )

    def _comp_scope(self, fors, scope: Scope) -> Scope:
        inner = scope.child()
        for comp in fors:
            t = self.expr(comp.iterable, inner)
            item = item_type(t)
            if item is None:
                self.error(TYPE, f"cannot loop over {t}", comp.iterable)
                item = ANY
            inner = inner.child()
            if comp.var in self.global_names:
                self.error(DUPLICATE, f"'{comp.var}' hides a declaration of the same name", comp)
            inner.frames[-1][comp.var] = Local(item, False)
            if comp.where is not None:
                self.condition(comp.where, inner)
        return inner

    def e_ListComp(self, node: ast.ListComp, scope: Scope) -> Type:
        inner = self._comp_scope(node.fors, scope)
        return CollT("list", self._narrowed(node.elem, node.fors, self.expr(node.elem, inner)))

    def _narrowed(self, elem: ast.Expr, fors, t: Type) -> Type:
        """`[x for … where x is not none]` holds values, not optional values."""
        where = fors[-1].where
        if (
            isinstance(t, OptT)
            and isinstance(where, ast.IsNone)
            and where.negated
            and where.operand == elem
        ):
            return t.inner
        return t

    def e_ListLit(self, node: ast.ListLit, scope: Scope) -> Type:
        item: Type = ANY
        for i, element in enumerate(node.items):
            t = self.expr(element, scope)
            item = t if i == 0 else self.sub.join(item, t)
            if isinstance(item, AnyT) and i > 0 and not isinstance(t, AnyT):
                self.error(TYPE, f"list items of different types ({t})", element)
        return CollT("list", item)

    def e_TupleLit(self, node: ast.TupleLit, scope: Scope) -> Type:
        return TupleT(tuple(self.expr(item, scope) for item in node.items))

    def e_DictLit(self, node: ast.DictLit, scope: Scope) -> Type:
        key: Type = ANY
        value: Type = ANY
        for i, (k, v) in enumerate(node.entries):
            kt, vt = self.expr(k, scope), self.expr(v, scope)
            # Each key on its own: a list key joined with a number key would pass as `any`.
            if not self._table_key(kt, k):
                return MapT(ANY, ANY)
            joined = kt if i == 0 else self.sub.join(key, kt)
            if isinstance(joined, AnyT) and not isinstance(key, AnyT) and not isinstance(kt, AnyT):
                self.error(TYPE, f"table keys of different types ({key} and {kt})", k)
                return MapT(ANY, ANY)
            key = joined
            value = vt if i == 0 else self.sub.join(value, vt)
        return MapT(key, value)

    def _table_key(self, key: Type, node: ast.Expr) -> bool:
        """True if values of type `key` may be table keys, else an error at `node`."""
        if is_finite(key) or isinstance(key, IntT | AnyT):
            return True
        self.error(
            TYPE, f"table keys must be numbers, enum values, elements or players, not {key}", node
        )
        return False

    def e_DictComp(self, node: ast.DictComp, scope: Scope) -> Type:
        inner = self._comp_scope(node.fors, scope)
        key, value = self.expr(node.key, inner), self.expr(node.value, inner)
        self._table_key(key, node.key)
        return MapT(key, value)

    def e_RangeExpr(self, node: ast.RangeExpr, scope: Scope) -> Type:
        for bound in (node.lo, node.hi):
            self.expect_assignable(self.expr(bound, scope), INT, bound, "range bound")
        return CollT("list", INT)

    def e_BinOp(self, node: ast.BinOp, scope: Scope) -> Type:
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        if node.op == "+" and isinstance(left, CollT) and isinstance(right, CollT | AnyT):
            joined = self.sub.join(left, right) if isinstance(right, CollT) else left
            if isinstance(joined, AnyT):
                item = self.sub.join(left.item, right.item)  # type: ignore[union-attr]
                if (
                    isinstance(item, AnyT)
                    and not isinstance(left.item, AnyT)
                    and not isinstance(right.item, AnyT)
                ):  # type: ignore[union-attr]
                    self.error(TYPE, f"cannot join {left} and {right}", node)
                joined = CollT("list", item)
            if not is_sequence(left):
                self.error(TYPE, "only lists join with `+`", node)
            return joined
        if not isinstance(left, IntT | AnyT) or not isinstance(right, IntT | AnyT):
            self.error(TYPE, f"`{node.op}` needs numbers, not {left} and {right}", node)
        return INT

    def e_Neg(self, node: ast.Neg, scope: Scope) -> Type:
        t = self.expr(node.operand, scope)
        if not isinstance(t, IntT | AnyT):
            self.error(TYPE, f"cannot negate {t}", node)
        return INT

    def e_Compare(self, node: ast.Compare, scope: Scope) -> Type:
        left, right = self.expr(node.left, scope), self.expr(node.right, scope)
        if node.op in ("in", "not in"):
            if isinstance(right, MapT):
                self.error(TYPE, "`in` tests membership of a collection, not a table", node)
            item = item_type(right)
            if item is None:
                self.error(
                    TYPE, f"`{node.op}` needs a collection on the right, not {right}", node.right
                )
            elif not self.sub.comparable(left, item):
                self.error(TYPE, f"{left} can never be in {right}", node)
            return BOOL
        if node.op in ("==", "!="):
            if not self.sub.comparable(left, right):
                self.error(TYPE, f"cannot compare {left} with {right}", node)
            return BOOL
        ordered = (IntT, AnyT, EnumT, ElemT, PlayerT)
        if (
            not isinstance(left, ordered)
            or not isinstance(right, ordered)
            or (not self.sub.comparable(left, right))
        ):
            self.error(
                TYPE,
                f"`{node.op}` compares numbers (or values of one enum), not {left} and {right}",
                node,
            )
        return BOOL

    def e_IsNone(self, node: ast.IsNone, scope: Scope) -> Type:
        t = self.expr(node.operand, scope)
        if not isinstance(t, OptT | AnyT | NoneT):
            self.error(TYPE, f"{t} is never none", node)
        return BOOL

    def e_Not(self, node: ast.Not, scope: Scope) -> Type:
        self.condition(node.operand, scope)
        return BOOL

    def e_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Type:
        self.condition(node.left, scope)
        self.condition(node.right, scope)
        return BOOL

    def e_CondExpr(self, node: ast.CondExpr, scope: Scope) -> Type:
        self.condition(node.cond, scope)
        a, b = self.expr(node.then, scope), self.expr(node.orelse, scope)
        joined = self.sub.join(a, b)
        if isinstance(joined, AnyT) and not isinstance(a, AnyT) and not isinstance(b, AnyT):
            self.error(TYPE, f"the two branches differ: {a} and {b}", node)
        return joined


def _domain_expr(domain) -> ast.Expr | None:
    if isinstance(domain, ast.InDomain | ast.SubsetDomain):
        return domain.collection
    return None


def _file_span(program: Program):
    from dsl.source import Span

    return Span.point(program.game_file, 1, 1)


__all__ = ["Checker", "CheckedProgram", "valid_identifier"]
