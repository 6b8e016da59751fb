"""Which parts of a listing's expressions depend on none of its loops: the hoisting stage's
analysis (compiler/hoist.py), on expression nodes.

A listing reads the state and changes nothing (the checker refuses a guard or a function that
changes anything, compiler/check/expressions.py); what its expressions read that may vary is
the locals the listing binds (its loop values, counters, comprehensions' variables), the list
it fills and the position (who decides now, a slot of the state that is not one of the rules'
fields). A subtree reading none of those, but the comprehensions' variables bound inside it, has
one value for the whole listing.
"""

from __future__ import annotations

from compiler.expr import (
    ME,
    BinOp,
    Call,
    Code,
    Comp,
    Cond,
    Expr,
    For,
    Helper,
    Index,
    Local,
    Name,
    S,
    StateField,
    Unary,
    children,
)

OUT = Name("out")  # the list a listing appends its actions to
SUBSETS = Helper("_l", "subsets")  # a domain of subsets: every value a new tuple
# The state slots the rules' fields and their maintained indexes live in (and the number of
# players); any other slot is the position (`S.to_move`) or the budget, never computed once.
RULE_SLOTS = ("g_", "p_", "i_")


def rule_slot(field: StateField) -> bool:
    """True for a slot of a rules' field, of a maintained index or the player count."""
    return field.name.startswith(RULE_SLOTS) or field.name == "n"


class Invariance:
    """The free locals and state reads of the subtrees of some expressions, memoised per node."""

    def __init__(self) -> None:
        # by identity (hashing a node hashes its whole tree), with the node kept alive
        self._free: dict[int, tuple[Expr, frozenset[Expr] | None]] = {}

    def free(self, node: Expr) -> frozenset[Expr] | None:
        """The locals `node` reads that it does not bind (None: it reads the position or `out`)."""
        known = self._free.get(id(node))
        if known is not None:
            return known[1]
        found = self._compute(node)
        self._free[id(node)] = (node, found)
        return found

    def invariant(self, node: Expr) -> bool:
        """True if `node` has one value for the whole listing (it reads no loop's local)."""
        return self.free(node) == frozenset()

    def _compute(self, node: Expr) -> frozenset[Expr] | None:
        if isinstance(node, Local):
            return frozenset((node,))
        if isinstance(node, StateField):
            return frozenset() if rule_slot(node) else None
        if node == OUT:
            return None
        if isinstance(node, Comp):
            return self._comp(node)
        found: set[Expr] = set()
        for child in children(node):
            inner = self.free(child)
            if inner is None:
                return None
            found |= inner
        return frozenset(found)

    def _comp(self, node: Comp) -> frozenset[Expr] | None:
        """A comprehension's free locals: each clause sees the variables of the clauses before it."""
        bound: set[Expr] = set()
        found: set[Expr] = set()
        for part in (*node.clauses, node.elem):
            read = self.free(part.iterable if isinstance(part, For) else part)
            if read is None:
                return None
            found |= read - bound
            if isinstance(part, For):
                bound |= set(_locals(part.target))
        return frozenset(found)


def _locals(target: Expr):
    """The locals a loop's target binds (one, or a row of them)."""
    if isinstance(target, Local):
        yield target
    for child in children(target):
        yield from _locals(child)


def reads_state(node: Expr) -> bool:
    """True if `node` reads the state (a field, or the state passed to a function)."""
    if node == S or isinstance(node, StateField):
        return True
    return any(reads_state(child) for child in children(node))


def field_read(node: Expr) -> bool:
    """True for a read of a global or of one of `me`'s fields (`S.g_x`, `S.p_x[me]`)."""
    if isinstance(node, Index) and node.index == ME:
        node = node.obj
    return isinstance(node, StateField) and node.name.startswith(("g_", "p_"))


def aggregate(node: Expr) -> bool:
    """True for a list comprehension, an aggregate over a generator (sum, any, min, …) or a
    rule function's result: a value that walks something or runs the rules' code."""
    if isinstance(node, Comp):
        return node.kind == "list"
    if isinstance(node, Call):
        over_generator = any(isinstance(a, Comp) and a.kind == "gen" for a in node.args)
        return over_generator or (isinstance(node.func, Name) and node.args[:1] == (S,))
    return False


def costly(node: Expr) -> bool:
    """True for a value worth computing once in its own right: a global or one of `me`'s fields,
    a comprehension, an aggregate, a rule function's result or a domain of subsets."""
    if isinstance(node, StateField):
        return node.name.startswith("g_")
    if isinstance(node, Index):
        return field_read(node)
    if isinstance(node, Comp):
        return node.kind != "gen"  # a generator is walked once, by the call it is given to
    return aggregate(node) or (isinstance(node, Call) and node.func == SUBSETS)


def computed(node: Expr) -> bool:
    """True for a value computed from the state's values by operators, indexes, a builtin's
    template or a call (an inlined function's body, a guard table's entry picked by the state)."""
    if isinstance(node, Call) and node.args[:1] == (S,):
        return False  # given the state itself: it may charge the step budget as it walks
    if isinstance(node, Index | BinOp | Unary | Cond | Code | Call):  # not mere parentheses
        return reads_state(node)
    return False
