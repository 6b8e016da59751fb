"""The `cost` pass alone: walk weights, forced charges on small walks, calls charged at entry."""

from __future__ import annotations

from compiler import compile_game
from compiler.cost import step_costs
from compiler.refs import EnumAllRef
from dsl import ast
from dsl.visitor import walk
from runtime.limits import FREE_STEPS

HEAD = 'game "Cost" {\n  players 1..1\n  enum V { %s }\n  state { n: int public = 0 }\n'
TAIL = "  flow { n = total() }\n  score(p) = n\n  rank p by n desc\n}\n"


def checked(tmp_path, body: str, values: int = 8):
    """The checked program of a one-player game whose enum V has `values` values."""
    names = " ".join(f"v{i}" for i in range(values))
    (tmp_path / "rules.metro").write_text(HEAD % names + body + TAIL)
    return compile_game(str(tmp_path), stop_after="check").checked


def enum_size(cp):
    """Walks over an enum are free, of the enum's size (as in generated code)."""

    def size(node):
        ref = cp.ref(node) if isinstance(node, ast.Name) else None
        return len(cp.enum_values[ref.enum]) if isinstance(ref, EnumAllRef) else None

    return size


def comp_fors(cp, function: str) -> list[ast.CompFor]:
    """The comprehension clauses of a function's body, in source order."""
    decl = cp.program.functions[function].active
    return [node for node in walk(decl) if isinstance(node, ast.CompFor)]


def test_a_small_walk_nested_in_a_small_walk_stays_free(tmp_path):
    cp = checked(tmp_path, "  function total() -> int = sum(1 for a in V for b in V)\n")
    costs = step_costs(cp, enum_size(cp))
    outer, inner = comp_fors(cp, "total")
    assert costs.weight(inner.iterable) == 1 and costs.weight(outer.iterable) == 1 + 8
    assert not costs.is_forced(outer.iterable) and not costs.is_forced(inner.iterable)
    assert costs.entry_charge("total") == 0 and costs.bodies["total"] == 8 * 9


def test_nested_small_walks_past_the_free_steps_are_charged(tmp_path):
    cp = checked(
        tmp_path, "  function total() -> int = sum(1 for a in V for b in V for c in V)\n", 64
    )
    costs = step_costs(cp, enum_size(cp))
    outer, middle, inner = comp_fors(cp, "total")
    assert 64 * costs.weight(inner.iterable) <= FREE_STEPS and not costs.is_forced(inner.iterable)
    assert costs.weight(middle.iterable) == 1 + 64 and costs.is_forced(
        middle.iterable
    )  # 64 * 65 > FREE_STEPS
    assert costs.weight(outer.iterable) == 1 and not costs.is_forced(
        outer.iterable
    )  # its body is charged
    assert costs.bodies["total"] == 64  # the rest, 64 * 64 * 65 steps, is charged at run time


def test_calls_that_fan_out_are_charged_at_entry(tmp_path):
    chain = "".join(f"  function f{i}() -> int = f{i + 1}() + f{i + 1}()\n" for i in range(20))
    body = chain + "  function f20() -> int = 1\n  function total() -> int = f0()\n"
    cp = checked(tmp_path, body)
    costs = step_costs(cp, enum_size(cp))
    charged = [name for name in costs.entry if name.startswith("f")]
    assert charged  # some level of the doubling tree is past the free steps
    for i in range(20):
        callee = costs.bodies[f"f{i + 1}"]
        step = 1 if f"f{i + 1}" in costs.entry else 1 + callee
        assert costs.bodies[f"f{i}"] == 2 * step
    assert all(costs.bodies[name] > FREE_STEPS for name in charged)


def test_a_loop_s_weight_counts_its_body(tmp_path):
    body = (
        "  function total() -> int = 0\n"
        "  procedure spin() { while n < 3 { n = n + sum(1 for a in V) } }\n"
    )
    cp = checked(tmp_path, body)
    costs = step_costs(cp, enum_size(cp))
    loop = next(n for n in walk(cp.program.procedures["spin"].active) if isinstance(n, ast.While))
    assert costs.weight(loop) == 1 + 8
