"""Typing rules for expressions (part of the `types` pass; see `compiler/check/types.py`)."""

from __future__ import annotations

from compiler.builtin_rules import item_type
from compiler.builtins import BUILTINS, COMPREHENSIONS
from compiler.check.names import home_enum
from compiler.check.typer import Local, Scope, TyperBase
from compiler.checked import Signature
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
    ANY,
    BOOL,
    INT,
    NONE,
    PLAYER,
    STR,
    AnyT,
    CollT,
    ElemT,
    EnumT,
    IntT,
    MapT,
    NoneT,
    OptT,
    PlayerT,
    TupleT,
    Type,
    is_finite,
    is_sequence,
)
from dsl import ast
from dsl.diagnostics import ARGUMENTS, DUPLICATE, PURITY, STRUCTURE, TYPE, UNDEFINED_NAME


class ExpressionRules(TyperBase):
    """`visit_<Expr>(node, scope)`: an expression's type; names, fields and calls get a ref."""

    def visit_IntLit(self, node, scope):
        return INT

    def visit_StrLit(self, node, scope):
        return STR

    def visit_BoolLit(self, node, scope):
        return BOOL

    def visit_NoneLit(self, node, scope):
        return NONE

    def visit_PlayersLit(self, node, scope):
        return CollT("list", PLAYER)

    def visit_MeLit(self, node, scope):
        if not scope.me:
            self.error(
                UNDEFINED_NAME, "`me` is only known inside an action or a choice's `where`", node
            )
        return PLAYER

    def visit_Name(self, node: ast.Name, scope: Scope) -> Type:
        name = node.name
        local = scope.lookup(name)
        if local is not None:
            self.cp.refs[id(node)] = LocalRef(name, local.site)
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
        candidates = list(
            list(p.state)
            + list(p.consts)
            + list(self.cp.value_enum)
            + [n for f in scope.frames for n in f]
        )
        self.error(
            UNDEFINED_NAME, f"unknown name '{name[:60]}'", node, *self.suggest(name, candidates)
        )
        return ANY

    def visit_Field(self, node: ast.Field, scope: Scope) -> Type:
        if (
            isinstance(node.obj, ast.Name)
            and node.obj.name in self.p.enums
            and scope.lookup(node.obj.name) is None
        ):
            values = self.cp.enum_values.get(node.obj.name, [])
            if node.name not in values:
                self.error(
                    UNDEFINED_NAME,
                    f"enum '{node.obj.name}' has no value '{node.name}'",
                    node,
                    *self.suggest(node.name, values),
                )
                return ANY
            self.cp.refs[id(node)] = EnumValueRef(node.obj.name, values.index(node.name))
            return EnumT(home_enum(self.cp, node.obj.name, node.name))
        obj = self.expr(node.obj, scope)
        base = obj.inner if isinstance(obj, OptT) else obj
        if isinstance(base, PlayerT):
            if node.name not in self.p.per_player:
                self.error(
                    UNDEFINED_NAME,
                    f"players have no field '{node.name}'",
                    node,
                    *self.suggest(node.name, self.p.per_player),
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
                    *self.suggest(node.name, fields),
                )
                return ANY
            self.cp.refs[id(node)] = ElemFieldRef(base.kind, node.name)
            return fields[node.name]
        if isinstance(base, AnyT):
            return ANY
        self.error(TYPE, f"{obj} has no fields", node)
        return ANY

    def visit_Index(self, node: ast.Index, scope: Scope) -> Type:
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

    def visit_Call(self, node: ast.Call, scope: Scope, statement: bool = False) -> Type:
        name = node.func
        p = self.p
        if name in p.functions or name in p.procedures:
            sig = self.cp.signatures.get(name)
            is_proc = name in p.procedures
            self.cp.refs[id(node)] = ProcedureRef(name) if is_proc else FunctionRef(name)
            if is_proc and scope.pure:
                self.error(PURITY, f"a function or guard may not call procedure '{name}'", node)
            if sig is None:  # a const typed before the signatures: its arguments still get refs
                for arg in node.args:
                    self.expr(arg, scope)
                return ANY
            self._call_args(node, node.args, sig, scope)
            if sig.ret is None:
                if not statement:
                    self.error(TYPE, f"procedure '{name}' returns no value", node)
                return ANY
            return sig.ret
        builtin = BUILTINS.get(name)
        # An action is never called, so a call with an action's name that is also a builtin's
        # is the builtin (a library's functions keep their builtins whatever the game's actions).
        if name in p.actions and builtin is None:
            self.error(
                STRUCTURE, f"'{name}' is an action: offer it with `choose by p {{ {name} }}`", node
            )
            return ANY
        if builtin is None:
            known = list(p.functions) + list(p.procedures) + list(BUILTINS)
            self.error(
                UNDEFINED_NAME, f"unknown function '{name[:60]}'", node, *self.suggest(name, known)
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
        if builtin.effect != "reads" and scope.pure:
            self.error(PURITY, f"a function or guard may not call {name}()", node)
        args = [self.expr(arg, scope) for arg in node.args]
        if builtin.effect == "changes" or builtin.mutates:
            self.mutable_root(node.args[0], scope)
            if builtin.adds_item:
                self._item_of(name, args, node)
        for arg, want, node_arg in zip(args, builtin.params, node.args, strict=False):
            arg = arg.inner if isinstance(arg, OptT) else arg
            if want is not None and not self.sub.assignable(arg, want):
                self.error(TYPE, f"{name}() expects {want} here, not {arg}", node_arg)
        result = builtin.result(args)
        if isinstance(result, str):
            self.error(TYPE, result, node)
            return ANY
        return result

    def _item_of(self, name: str, args: list[Type], node: ast.Call) -> None:
        """The second argument must be an item of the collection in the first."""
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

    def visit_SuperCall(self, node: ast.SuperCall, scope: Scope) -> Type:
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

    def visit_GenCall(self, node: ast.GenCall, scope: Scope) -> Type:
        builtin = BUILTINS.get(node.func)
        over = builtin.over if builtin is not None else None
        if over is None:
            self.error(
                UNDEFINED_NAME,
                f"'{node.func}' cannot take a comprehension "
                f"(use {', '.join(COMPREHENSIONS[:-1])} or {COMPREHENSIONS[-1]})",
                node,
                *self.suggest(node.func, COMPREHENSIONS),
            )
        inner = self.comp_scope(node.fors, scope)
        elem = self.expr(node.elem, inner)
        if over is not None and over.item_ok is not None and not over.item_ok(elem):
            self.error(TYPE, over.needs.format(name=node.func, item=elem), node.elem)
        elem = self._narrowed(node.elem, node.fors, elem)
        return over.result(elem) if over is not None else elem

    def comp_scope(self, fors, scope: Scope) -> Scope:
        """The scope inside `for … in … [where …]` clauses, each checked."""
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
            inner.frames[-1][comp.var] = Local(item, False, comp)
            if comp.where is not None:
                self.condition(comp.where, inner)
        return inner

    def visit_ListComp(self, node: ast.ListComp, scope: Scope) -> Type:
        inner = self.comp_scope(node.fors, scope)
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

    def visit_ListLit(self, node: ast.ListLit, scope: Scope) -> Type:
        item: Type = ANY
        for i, element in enumerate(node.items):
            t = self.expr(element, scope)
            item = t if i == 0 else self.sub.join(item, t)
            if isinstance(item, AnyT) and i > 0 and not isinstance(t, AnyT):
                self.error(TYPE, f"list items of different types ({t})", element)
        return CollT("list", item)

    def visit_TupleLit(self, node: ast.TupleLit, scope: Scope) -> Type:
        return TupleT(tuple(self.expr(item, scope) for item in node.items))

    def visit_DictLit(self, node: ast.DictLit, scope: Scope) -> Type:
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

    def visit_DictComp(self, node: ast.DictComp, scope: Scope) -> Type:
        inner = self.comp_scope(node.fors, scope)
        key, value = self.expr(node.key, inner), self.expr(node.value, inner)
        self._table_key(key, node.key)
        return MapT(key, value)

    def visit_RangeExpr(self, node: ast.RangeExpr, scope: Scope) -> Type:
        for bound in (node.lo, node.hi):
            self.expect_assignable(self.expr(bound, scope), INT, bound, "range bound")
        return CollT("list", INT)

    def visit_BinOp(self, node: ast.BinOp, scope: Scope) -> Type:
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

    def visit_Neg(self, node: ast.Neg, scope: Scope) -> Type:
        t = self.expr(node.operand, scope)
        if not isinstance(t, IntT | AnyT):
            self.error(TYPE, f"cannot negate {t}", node)
        return INT

    def visit_Compare(self, node: ast.Compare, scope: Scope) -> Type:
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

    def visit_IsNone(self, node: ast.IsNone, scope: Scope) -> Type:
        t = self.expr(node.operand, scope)
        if not isinstance(t, OptT | AnyT | NoneT):
            self.error(TYPE, f"{t} is never none", node)
        return BOOL

    def visit_Not(self, node: ast.Not, scope: Scope) -> Type:
        self.condition(node.operand, scope)
        return BOOL

    def visit_BoolOp(self, node: ast.BoolOp, scope: Scope) -> Type:
        self.condition(node.left, scope)
        self.condition(node.right, scope)
        return BOOL

    def visit_CondExpr(self, node: ast.CondExpr, scope: Scope) -> Type:
        self.condition(node.cond, scope)
        a, b = self.expr(node.then, scope), self.expr(node.orelse, scope)
        joined = self.sub.join(a, b)
        if isinstance(joined, AnyT) and not isinstance(a, AnyT) and not isinstance(b, AnyT):
            self.error(TYPE, f"the two branches differ: {a} and {b}", node)
        return joined
