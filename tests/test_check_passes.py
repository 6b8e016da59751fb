"""Each check pass on its own: run the passes up to one, on a small program, and read its output."""

from __future__ import annotations

import pytest

from compiler.check import PASSES, check
from compiler.check.control import check_control
from compiler.check.draws import check_draws
from compiler.check.effects import check_effects
from compiler.check.labels import check_labels
from compiler.check.names import check_names, valid_identifier
from compiler.check.structure import check_structure
from compiler.check.types import check_types
from compiler.check.visibility import check_visibility
from compiler.checked import CheckedProgram
from compiler.refs import BuiltinRef, EnumValueRef, GlobalRef, LocalRef, PlayerFieldRef
from compiler.resolve import resolve
from compiler.types import INT, PLAYER, CollT, EnumT
from compiler.visit import StrictVisitor, Visitor
from dsl import ast
from dsl.diagnostics import Diagnostics
from dsl.source import Span
from dsl.visitor import walk

SPAN = Span.point("t.metro", 1, 1)
HEAD = 'game "G" {\n  players 2..4\n  enum Card { a b c }\n'


def _program(tmp_path, body: str, flow: str = "flow { end game }"):
    (tmp_path / "rules.metro").write_text(HEAD + body + "\n  " + flow + "\n}\n")
    return resolve(str(tmp_path))


def _run(tmp_path, body: str, until: str, flow: str = "flow { end game }"):
    """The CheckedProgram and the (code, message) findings after the passes through `until`."""
    diags = Diagnostics()
    cp = check(_program(tmp_path, body, flow), diags, until=until)
    return cp, [(d.code.code, d.message) for d in diags.items]


def test_the_passes_run_in_their_documented_order():
    assert [name for name, _ in PASSES] == [
        "names",
        "types",
        "control",
        "effects",
        "visibility",
        "labels",
        "structure",
        "draws",
    ]
    assert [run for _, run in PASSES] == [
        check_names,
        check_types,
        check_control,
        check_effects,
        check_visibility,
        check_labels,
        check_structure,
        check_draws,
    ]


# ---------------------------------------------------------------- names


def test_names_fills_the_global_namespace_and_enum_values(tmp_path):
    cp, errors = _run(
        tmp_path, "  enum Bright extends Card { d }\n  const N = 3\n  state { x: int = 0 }", "names"
    )
    assert errors == []
    assert cp.global_names == {
        "Card": "enum",
        "Bright": "enum",
        "N": "const",
        "x": "state field",
    }
    assert cp.enum_values["Bright"] == ["a", "b", "c", "d"]
    assert cp.value_enum["a"] == ("Card", 0) and cp.value_enum["d"] == ("Bright", 3)
    assert cp.types == {} and cp.refs == {}  # typing is the next pass's job


def test_names_reports_clashes_and_reserved_names(tmp_path):
    _, errors = _run(tmp_path, "  const Card = 1\n  const me = 2", "names")
    assert ("duplicate", "'Card' names both a enum and a const") in errors
    assert ("bad-name", "'me' cannot be used as a name") in errors


def test_valid_identifier():
    assert valid_identifier("route_2")
    assert not valid_identifier("__class__")
    assert not valid_identifier("café")


# ---------------------------------------------------------------- types


def test_types_sets_types_and_typed_refs(tmp_path):
    cp, errors = _run(
        tmp_path,
        "  state { deck: list of Card = [a, b] }\n"
        "  per player { score: int = 0 }\n"
        "  function count_of(p: player) -> int = size(deck) + p.score",
        "types",
    )
    assert errors == []
    expr = cp.program.functions["count_of"].active.expr
    refs = {
        type(n).__name__ + ":" + getattr(n, "name", getattr(n, "func", "")): cp.ref(n)
        for n in walk(expr)
        if cp.ref(n) is not None
    }
    assert refs == {
        "Call:size": BuiltinRef("size"),
        "Name:deck": GlobalRef("deck"),
        "Name:p": LocalRef("p"),
        "Field:score": PlayerFieldRef("score"),
    }
    assert cp.type_of(expr) == INT
    assert cp.signatures["count_of"].params == [("p", PLAYER)]
    assert cp.state_types["deck"] == CollT("list", EnumT("Card"))
    init = cp.program.state["deck"].init
    assert [cp.ref(item) for item in init.items] == [
        EnumValueRef("Card", 0),
        EnumValueRef("Card", 1),
    ]


def test_types_reports_a_type_error_and_nothing_of_later_passes(tmp_path):
    _, errors = _run(
        tmp_path,
        "  function f() -> int = true\n  procedure p() { break }",
        "types",
    )
    assert errors == [("type", "result has type bool, but int is expected")]


# ---------------------------------------------------------------- control


def test_control_places_statements(tmp_path):
    _, errors = _run(
        tmp_path,
        "  state { xs: list of Card = [] }\n"
        "  procedure p() { break }\n"
        "  function f() -> int { shuffle xs\n return 1 }\n"
        "  procedure q() -> int { if true { return 1 } }",
        "control",
        flow="flow { end game } final { end game }",
    )
    assert sorted(errors) == [
        ("purity", "a function or guard may not change the game or wait for a decision"),
        ("purity", "a function or guard may not change the game state"),  # from `types`
        ("structure", "`break` outside a loop"),
        ("structure", "`end game` inside `final`: the game is already ending"),
        ("structure", "procedure 'q' may end without returning a value"),
    ]


def test_control_counts_loop_nesting(tmp_path):
    from runtime.limits import MAX_LOOP_NESTING

    loops = "repeat 2 times { " * (MAX_LOOP_NESTING + 1) + "}" * (MAX_LOOP_NESTING + 1)
    _, errors = _run(tmp_path, f"  procedure p() {{ {loops} }}", "control")
    assert errors == [("too-deep", f"loops are nested deeper than the limit of {MAX_LOOP_NESTING}")]


# ---------------------------------------------------------------- effects


EFFECTS = """
  action go() { end game }
  procedure ask() { choose by seat(1) { go } }
  procedure turn() { ask() }
  procedure tally() { let n = 1 }
  function two() -> int = 2
"""


def test_effects_builds_the_call_graph_and_the_suspends_set(tmp_path):
    cp, errors = _run(tmp_path, EFFECTS, "effects", flow="flow { turn()\n tally() }")
    assert errors == []
    assert cp.calls == {"two": set(), "ask": set(), "turn": {"ask"}, "tally": set(), "go": set()}
    assert cp.suspends == {"ask", "turn"}


def test_effects_refuses_recursion_and_waiting_in_expressions(tmp_path):
    cp, errors = _run(
        tmp_path,
        EFFECTS + "  procedure ping() { pong() }\n  procedure pong() { ping() }\n"
        "  procedure bad() { let xs = [turn()] }",
        "effects",
        flow="flow { turn() }",
    )
    messages = [m for _, m in errors]
    assert "'ping' is reached again through its own calls; rules may not recurse" in messages
    assert any(m.startswith("'turn' waits for decisions") for m in messages)
    assert cp.calls["ping"] == {"pong"} and cp.calls["pong"] == {"ping"}


# ---------------------------------------------------------------- visibility


VISIBILITY = """
  state { deck: pile of Card hidden }
  per player { hand: bag of Card owner }
  action peek(c: Card where c in deck) { }
  action fair(c: Card where size(deck) > 0 and me.hand[c] > 0) { }
  action spy(c: Card where seat(2).hand[c] > 0) { }
"""


def test_visibility_reports_only_the_guards_that_reveal(tmp_path):
    _cp, errors = _run(tmp_path, VISIBILITY, "visibility", flow="flow { end game }")
    assert errors == [
        (
            "visibility",
            "the legal choices would reveal the hidden field 'deck' (only its size() may be used here)",
        ),
        ("visibility", "the legal choices would reveal another player's owner field 'hand'"),
    ]


def test_visibility_alone_needs_the_refs_of_types(tmp_path):
    """Run without `types`, the pass sees no references and so reports nothing."""
    diags = Diagnostics()
    cp = CheckedProgram.start(_program(tmp_path, VISIBILITY))
    check_names(cp, diags)
    check_visibility(cp, diags)
    assert diags.items == []


# ---------------------------------------------------------------- structure


def test_structure_reports_choice_names_with_two_types(tmp_path):
    _, errors = _run(
        tmp_path,
        "  procedure one() { choose x: Card by seat(1) }\n"
        "  procedure two() { choose x: bool by seat(1) }",
        "structure",
        flow="flow { one()\n two() }",
    )
    assert [m.split(" at line")[0] for _, m in errors] == ["choice 'x' is bool here but Card"]


# ---------------------------------------------------------------- the visitor


def test_visitor_dispatches_by_class_and_falls_back_to_children():
    class Names(Visitor):
        def __init__(self):
            self.seen = []

        def visit_Name(self, node, depth):
            self.seen.append((node.name, depth))

    expr = ast.BinOp("+", ast.Name("a", SPAN), ast.Neg(ast.Name("b", SPAN), SPAN), SPAN)
    names = Names()
    names.visit(expr, 0)
    assert names.seen == [("a", 0), ("b", 0)]
    assert Names._rules[ast.Name] is Names.visit_Name
    assert Names._rules[ast.BinOp] is None  # cached: no rule, so generic_visit
    assert Visitor._rules == {}  # each visitor class has its own cache


def test_a_strict_visitor_refuses_a_node_it_has_no_rule_for():
    class OnlyNames(StrictVisitor):
        def visit_Name(self, node):
            return node.name

    assert OnlyNames().visit(ast.Name("a", SPAN)) == "a"
    with pytest.raises(AssertionError, match="no rule for Neg in OnlyNames"):
        OnlyNames().visit(ast.Neg(ast.Name("b", SPAN), SPAN))


@pytest.mark.parametrize("until", [name for name, _ in PASSES])
def test_every_prefix_of_the_passes_runs_on_a_shipped_game(until):
    program = resolve("games/ticket_to_ride")
    diags = Diagnostics()
    check(program, diags, until=until)
    assert not diags.has_errors
