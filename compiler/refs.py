"""What a name, field, index or call in a checked program refers to (set by the checker)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class LocalRef:
    """A parameter, choice, loop variable or local of the enclosing body."""

    name: str
    site: object = field(default=None, compare=False)  # the AST node that binds it (tools read it)
    what = "local"


@dataclass(frozen=True)
class GlobalRef:
    """A field of the game's shared state."""

    name: str
    what = "global"


@dataclass(frozen=True)
class ConstRef:
    """A named constant."""

    name: str
    what = "const"


@dataclass(frozen=True)
class EnumValueRef:
    """One value of an enum, by its index (shared with the enums it extends)."""

    enum: str
    index: int
    what = "enum value"


@dataclass(frozen=True)
class EnumAllRef:
    """An enum's name used as the list of all its values."""

    enum: str
    what = "enum all"


@dataclass(frozen=True)
class KindAllRef:
    """A map kind's name used as the list of all its elements."""

    kind: str
    what = "kind all"


@dataclass(frozen=True)
class PlayerFieldRef:
    """A per-player state field read through a player (`p.hand`)."""

    field: str
    what = "player field"


@dataclass(frozen=True)
class ElemFieldRef:
    """A field of a map element (`r.length`)."""

    kind: str
    field: str
    what = "elem field"


@dataclass(frozen=True)
class ElemByIdRef:
    """A map element named by its id (`city["Denver"]`)."""

    kind: str
    id: str
    what = "elem by id"


@dataclass(frozen=True)
class FunctionRef:
    """A call of a pure function of the rules."""

    name: str
    what = "function"


@dataclass(frozen=True)
class ProcedureRef:
    """A call of a procedure of the rules (it may change the state and suspend)."""

    name: str
    what = "procedure"


@dataclass(frozen=True)
class BuiltinRef:
    """A call of a builtin."""

    name: str
    what = "builtin"


Ref = (
    LocalRef
    | GlobalRef
    | ConstRef
    | EnumValueRef
    | EnumAllRef
    | KindAllRef
    | PlayerFieldRef
    | ElemFieldRef
    | ElemByIdRef
    | FunctionRef
    | ProcedureRef
    | BuiltinRef
)
