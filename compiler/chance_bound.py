"""The most outcomes one random event of a game can have, known while compiling.

A tool that enumerates chance outcomes (OpenSpiel's explicit chance nodes) must size its
outcome space before the game starts. An elementary outcome (runtime/chance.py) is one face
of a roll, or one distinct item picked from a pile being shuffled; so a roll of a constant
number of sides has that many, and a shuffle at most as many as its items' type has values
(an enum's values, a map kind's elements, the most players, two truth values). A mix picks
how many of each distinct item inside come out, then their order: its bound is the items'
type's count of values plus one, taking a mixer to hold each value at most that many times
(the OpenSpiel adapter refuses, with a clear error, an outcome beyond the bound). A roll whose
sides are computed while playing (but for `roll(size(players))`, a random seat), or a shuffle or mix of numbers, texts or tuples, has no bound
known before the game.
"""

from __future__ import annotations

from compiler.lower_exprs import ExprLowerer
from compiler.refs import FunctionRef, ProcedureRef
from compiler.types import CollT, is_finite
from dsl import ast
from dsl.visitor import walk


def chance_bound(gen: ExprLowerer) -> int | None:
    """The most elementary outcomes of any random event the rules can meet: 0 if none, None if unknown."""
    p = gen.p
    declared = [*p.functions.values(), *p.procedures.values(), *p.actions.values()]
    if p.flow is not None:
        declared.append(p.flow)
    bound: int | None = 0
    for versions in declared:
        for decl in versions.versions:
            for node in walk(decl):
                here = _event_bound(gen, node)
                if here is None:
                    return None
                bound = max(bound, here)
    return bound


def _event_bound(gen: ExprLowerer, node: ast.Node) -> int | None:
    """A random event's most outcomes (None: unknown); 0 for a node that is no random event."""
    if isinstance(node, ast.Shuffle):
        pile = gen.t(node.target)
        if isinstance(pile, CollT) and is_finite(pile.item):
            return gen.sizes.value_count(pile.item)
        return None
    if (
        isinstance(node, ast.Call)
        and node.func == "roll"
        and not isinstance(gen.cp.ref(node), FunctionRef | ProcedureRef)
        and len(node.args) == 1
    ):
        sides = node.args[0]
        if (  # roll(size(players)): a random seat, at most the most players
            isinstance(sides, ast.Call)
            and sides.func == "size"
            and len(sides.args) == 1
            and isinstance(sides.args[0], ast.PlayersLit)
            and gen.p.players is not None
        ):
            return gen.p.players.hi
        return gen.sizes.const_int(sides)
    if (
        isinstance(node, ast.Call)
        and node.func == "mix"
        and not isinstance(gen.cp.ref(node), FunctionRef | ProcedureRef)
    ):
        inside = gen.t(node.args[0])
        if isinstance(inside, CollT) and is_finite(inside.item):
            return gen.sizes.value_count(inside.item) + 1
        return None
    return 0
