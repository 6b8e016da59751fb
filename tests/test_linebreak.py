"""Long generated lines are broken inside their brackets: the same code, lines that read."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from compiler.linebreak import WIDTH, broken


def same_code(line: str, lines: list[str]) -> bool:
    """True if the broken lines parse to the same tree as the line (a block's head given a body)."""
    body = "\n" + line[: len(line) - len(line.lstrip())] + "    pass" if line.endswith(":") else ""
    whole = "if True:\n" + line + body
    return ast.dump(ast.parse(whole)) == ast.dump(ast.parse("if True:\n" + "\n".join(lines) + body))


def test_a_long_call_has_an_argument_a_line_and_its_closing_at_the_statement():
    args = ", ".join(f"S.g_value_number_{n}[v_p] + C_BONUS" for n in range(8))
    line = f"    return _l.total({args})"
    lines = broken(line)
    assert lines[0] == "    return _l.total("
    assert lines[1] == "        S.g_value_number_0[v_p] + C_BONUS,"
    assert lines[-1] == "    )"
    assert all(len(text) <= WIDTH for text in lines)
    assert same_code(line, lines)


def test_a_long_condition_is_cut_before_its_ands_and_ors():
    tests = " and ".join(f"(S.p_money[v_p] >= C_PRICE_{n})" for n in range(6))
    line = f"    if ({tests} or S.g_round > 3):"
    lines = broken(line)
    assert lines[0] == "    if ("
    assert any(text.lstrip().startswith("or ") for text in lines)
    assert any(text.lstrip().startswith("and ") for text in lines)
    assert lines[-1] == "    ):"
    assert same_code(line, lines)


def test_short_items_fill_lines_side_by_side():
    line = (
        "    _shapes.Frame(("
        + " ".join(f"({x}, {y}, )," for x in range(5) for y in range(4))
        + "))"
    )
    lines = broken(line)
    assert len(lines) < 8 and all(len(text) <= WIDTH for text in lines)
    assert same_code(line, lines)


def test_what_cannot_be_broken_is_left_as_it_is():
    message = "x" * 150
    assert broken(f"    return {message!r}") == [f"    return {message!r}"]
    assert broken("    table = (  # opened here, closed on a later line") == [
        "    table = (  # opened here, closed on a later line"
    ]
    assert broken("    f(a)") == ["    f(a)"]


names = st.sampled_from(["S.g_x", "v_p", "K_route__length[v_r]", "C_LIMIT", "(a if b else c)"])


@st.composite
def expressions(draw, depth=0):
    """Python expressions of calls, comparisons, boolean operators and comprehensions."""
    if depth > 3 or (draw(st.booleans()) and depth > 0):
        return draw(names)
    kind = draw(st.sampled_from(["call", "and", "compare", "comp", "list"]))
    parts = [draw(expressions(depth + 1)) for _ in range(draw(st.integers(1, 5)))]
    if kind == "call":
        return f"_l.helper_function({', '.join(parts)})"
    if kind == "and":
        return "(" + " and ".join(parts) + ")"
    if kind == "compare":
        return f"({parts[0]} == {parts[-1]})"
    if kind == "comp":
        return f"[v_x for v_x in range(9) if {parts[0]}]"
    return "[" + ", ".join(parts) + "]"


@given(expressions())
def test_any_broken_statement_is_the_same_code(expression):
    line = f"        v_result = {expression}"
    lines = broken(line)
    assert same_code(line, lines)
    assert "\n".join(lines).replace("\n", "").replace(" ", "") == line.replace(" ", "")
