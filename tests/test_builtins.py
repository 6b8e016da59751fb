"""The builtin table: complete entries, a generated reference that is up to date, one source of names."""

from __future__ import annotations

import importlib
import os
import re

import pytest

from compiler import generate_python
from compiler.builtin_docs import builtin_reference, main
from compiler.builtins import BUILTINS, COMPREHENSIONS, RUNTIME_ALIASES, TABLE
from compiler.check import check
from compiler.emit import IMPORTS
from compiler.refs import BuiltinRef
from compiler.resolve import resolve
from dsl import ast
from dsl.diagnostics import Diagnostics
from dsl.visitor import walk

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_reference_document_is_generated_from_the_table():
    with open(os.path.join(ROOT, "docs", "builtins.md"), encoding="utf-8") as f:
        assert f.read() == builtin_reference(), "run: python -m compiler.builtin_docs --markdown"


def test_the_generator_prints_the_reference(capsys):
    main(["--markdown"])
    assert capsys.readouterr().out == builtin_reference()


def test_every_builtin_is_listed_once_in_the_reference():
    rows = [line for line in builtin_reference().splitlines() if line.startswith("| `")]
    assert [re.match(r"\| `(\w+)\(", row).group(1) for row in rows] == [b.name for b in TABLE]
    assert len(BUILTINS) == len(TABLE)


@pytest.mark.parametrize("builtin", TABLE, ids=lambda b: b.name)
def test_every_entry_is_complete(builtin):
    assert builtin.doc and not builtin.doc.endswith(".")
    assert callable(builtin.result)
    assert builtin.runtime is not None or builtin.emit is not None
    assert builtin.effect in ("reads", "changes", "random")
    lo, hi = builtin.arity
    assert 0 <= lo <= hi
    forms = builtin.args.split(" | ")  # the reference shows one call per number of arguments
    assert {len(form.split(", ")) if form else 0 for form in forms} == set(range(lo, hi + 1))
    assert builtin.params == () or len(builtin.params) == hi == lo
    if builtin.runtime is not None:
        module, _, function = builtin.runtime.rpartition(".")
        assert callable(getattr(importlib.import_module(module), function))
        assert module in RUNTIME_ALIASES
    if isinstance(builtin.emit, str):
        used = {int(i) for i in re.findall(r"\{(\d+)\}", builtin.emit)}
        assert used <= set(range(hi))
    assert (builtin.over is not None) == (builtin.name in COMPREHENSIONS)
    if builtin.over is not None:
        assert builtin.const is not None  # a comprehension over constants is a constant too


def test_runtime_aliases_are_the_generated_modules_imports():
    for module, alias in RUNTIME_ALIASES.items():
        package, _, name = module.rpartition(".")
        assert (alias, f"from {package} import {name} as {alias}") in IMPORTS
    source = generate_python(os.path.join(ROOT, "games", "tokyo_jutaku"))
    assert "from runtime import shapes as _shapes\n" in source  # the geometry builtins use it


@pytest.mark.parametrize("name", ["abs", "ceil_to", "floor_to", "ceil_div"])
def test_emitted_arithmetic_computes_what_constant_evaluation_does(name):
    builtin = BUILTINS[name]
    for a in (-7, -1, 0, 1, 6, 7):
        for b in (1, 2, 3, 5):
            values = [a, b][: builtin.arity[1]]
            code = builtin.emit.format(*[repr(v) for v in values])
            assert eval(code) == builtin.const(values), (name, values)


def test_the_checker_knows_builtins_only_from_the_table(tmp_path):
    calls = "\n".join(f"    let x_{i} = {b.name}()" for i, b in enumerate(TABLE))
    (tmp_path / "rules.metro").write_text(
        'game "G" {\n  players 2..2\n  procedure p() {\n'
        + calls
        + "\n    let y = nosuch(1)\n    let z = size(v for v in [1])\n  }\n  flow { p() }\n}\n"
    )
    diags = Diagnostics()
    check(resolve(str(tmp_path)), diags, until="types")
    messages = [d.message for d in diags.items]
    assert "unknown function 'nosuch'" in messages
    assert not [m for m in messages if m.startswith("unknown function") and "nosuch" not in m]
    comprehension = [m for m in messages if "cannot take a comprehension" in m]
    assert comprehension == [
        "'size' cannot take a comprehension (use "
        + ", ".join(COMPREHENSIONS[:-1])
        + f" or {COMPREHENSIONS[-1]})"
    ]
    assert COMPREHENSIONS == ["sum", "count", "any", "all", "min", "max", "sorted", "distinct"]


@pytest.mark.parametrize("game", ["ticket_to_ride", "tokyo_metro", "tokyo_jutaku"])
def test_every_builtin_call_of_a_shipped_game_is_in_the_table(game):
    program = resolve(os.path.join(ROOT, "games", game))
    diags = Diagnostics()
    cp = check(program, diags)
    assert not diags.has_errors
    called = set()
    for versions in [*program.functions.values(), *program.procedures.values()]:
        for decl in versions.versions:
            for node in walk(decl):
                if isinstance(node, ast.Call) and isinstance(cp.ref(node), BuiltinRef):
                    called.add(node.func)
    assert called and called <= set(BUILTINS)


def test_constant_evaluation_refuses_what_it_cannot_compute(tmp_path):
    """No rule for `players` (the visitor's fallback), no `const` for seat(), min() of nothing."""
    from compiler import compile_game
    from dsl.diagnostics import CompileError

    (tmp_path / "rules.metro").write_text(
        'game "G" {\n  players 2..4\n  const A = size(players)\n  const B = seat(1)\n'
        "  const C = min(x for x in [1] where x > 1)\n  const D = max([5, 7])\n"
        "  flow { end game }\n}\n"
    )
    with pytest.raises(CompileError) as info:
        compile_game(str(tmp_path))
    prefix = "cannot be computed before the game: "
    assert [d.message for d in info.value.diagnostics] == [
        f"const 'A' {prefix}this expression cannot be computed before the game starts",
        f"const 'B' {prefix}seat() cannot be computed before the game starts",
        f"const 'C' {prefix}min() of nothing",
    ]


def test_a_const_may_call_a_function_with_a_comprehension_variable(tmp_path):
    """The call's arguments get their references even though consts are typed before the
    signatures; a const that fails once is reported for its reason, never as a cycle."""
    from compiler import compile_game
    from dsl.diagnostics import CompileError

    (tmp_path / "rules.metro").write_text(
        'game "G" {\n  players 2..4\n  function small(n: int, k: int) -> bool = n < k\n'
        "  const A = {k: [n for n in 1..5 where small(n, k)] for k in [3, 4]}\n"
        "  const B = A[3] + [seat_number(seat(1))]\n  const C = B\n  flow { end game }\n}\n"
    )
    with pytest.raises(CompileError) as info:
        compile_game(str(tmp_path))
    messages = [d.message for d in info.value.diagnostics]
    assert all("depends on itself" not in m for m in messages)
    assert messages == [
        "const 'B' cannot be computed before the game: seat() cannot be computed before the game starts",
        "const 'C' cannot be computed before the game: seat() cannot be computed before the game starts",
    ]
    (tmp_path / "rules.metro").write_text(
        'game "G" {\n  players 2..4\n  function small(n: int, k: int) -> bool = n < k\n'
        "  const A = {k: [n for n in 1..5 where small(n, k)] for k in [3, 4]}\n"
        "  flow { end game }\n}\n"
    )
    ctx = compile_game(str(tmp_path))
    assert ctx.evaluator.const("A", ctx.program.consts["A"].active) == {3: [1, 2], 4: [1, 2, 3]}
