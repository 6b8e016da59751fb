"""Pass `emit_python`: IR printed as Python (hand-built IR), and the expression tidying it relies on."""

from __future__ import annotations

import ast as pyast
import os

import pytest

from compiler import emit, ir
from compiler.emit import CodeGenerator
from compiler.expr import (
    ME,
    Attr,
    BinOp,
    Call,
    Const,
    Display,
    Format,
    FrameLocal,
    Index,
    Lambda,
    Local,
    Name,
    Paren,
    S,
    Slice,
    StateField,
    Unary,
    call,
    helper,
)
from compiler.indexes import Index as MaintainedIndex
from compiler.printer import ir_expr as X
from compiler.printer import py
from compiler.pyexpr import strip_outer, tidy
from compiler.types import ElemT
from dsl.source import Span


def at(line: int) -> Span:
    return Span.point("games/demo/rules.metro", line, 3)


def text(generator: CodeGenerator) -> str:
    return generator.w.render(1, {})


def test_a_function_with_statement_comments_and_no_redundant_parentheses():
    x = Local("v_x")
    where = Paren(Display("bare", (Const("f"), Const(7), Const(1))))
    tick = ir.Eval(X(helper("_l", "tick", S, where)), at(7))
    body = [
        ir.Assign(X(x), X(Paren(Paren(BinOp(StateField("g_count"), "+", Const(1))))), at(4)),
        ir.If(
            [ir.Branch(X(Paren(BinOp(x, ">", Const(3)))), [ir.Return(X(Paren(x)), at(6))], at(5))],
            orelse=[],
            span=at(5),
        ),
        ir.For(X(Local("v_c")), X(call("range", Paren(Paren(Const(2))))), [tick], at(7)),
        ir.Return(),
    ]
    gen = CodeGenerator()
    gen.function(ir.Function("f_demo__0", ["S"], body, at(3)))
    assert text(gen) == (
        "def f_demo__0(S):\n"
        "    # rules.metro:4\n"
        "    v_x = S.g_count + 1\n"
        "    # rules.metro:5\n"
        "    if v_x > 3:\n"
        "        # rules.metro:6\n"
        "        return v_x\n"
        "    else:\n"
        "        pass\n"
        "    # rules.metro:7\n"
        "    for v_c in range(2):\n"
        "        _l.tick(S, ('f', 7, 1))\n"
        "    return\n"
        "\n"
    )


def test_the_line_map_records_each_statement_not_its_comment():
    gen = CodeGenerator()
    gen.function(ir.Function("g", ["S"], [ir.Eval(X(call("go", S)), at(9))], at(8)))
    line_map: dict[int, tuple[str, int]] = {}
    lines = gen.w.render(10, line_map).splitlines()
    assert lines[1].strip() == "# rules.metro:9"
    assert line_map == {10: ("games/demo/rules.metro", 8), 12: ("games/demo/rules.metro", 9)}


def test_a_frame_procedure_dispatches_on_its_blocks():
    blocks = [
        [
            ir.Assign(X(FrameLocal("n")), X(Const(0)), at(2)),
            ir.Suspend(site=4, resume=1, span=at(3)),
        ],
        [ir.PushCall("s_next__0", [("p", X(Paren(ME)))], 2, at(4))],
        [ir.Jump(0), ir.FrameReturn(X(FrameLocal("n")))],
    ]
    gen = CodeGenerator()
    gen.frame_proc(ir.FrameProc("s_demo__0", blocks))
    assert text(gen) == (
        "def s_demo__0(S, F):\n"
        "    L = F.L\n"
        "    while True:\n"
        "        pc = F.pc\n"
        "        if pc == 0:\n"
        "            # rules.metro:2\n"
        "            L['n'] = 0\n"
        "            # rules.metro:3\n"
        "            S.site = 4\n"
        "            F.pc = 1\n"
        "            return _SUSPEND\n"
        "        elif pc == 1:\n"
        "            # rules.metro:4\n"
        "            _f = _Frame('s_next__0', {'p': me})\n"
        "            S.stack.append(_f)\n"
        "            F.pc = 2\n"
        "            _s = s_next__0(S, _f)\n"
        "            if _s != _RETURN:\n"
        "                return _s\n"
        "            S.stack.pop()\n"
        "            F.ret = _f.ret\n"
        "            F.pc = 0\n"
        "            continue\n"
        "        elif pc == 2:\n"
        "            F.pc = 0\n"
        "            continue\n"
        "        else:\n"
        "            raise AssertionError('bad program counter')\n"
        "\n"
    )


def test_a_block_entered_by_one_jump_is_written_at_it():
    blocks = [
        [ir.If([ir.Branch(X(FrameLocal("a")), [ir.Jump(2)])]), ir.Jump(3)],
        [ir.Eval(X(call("after"))), ir.FrameReturn()],  # resumed at: stays in the dispatch
        [ir.Eval(X(call("once"))), ir.Suspend(site=0, resume=1)],
        [ir.Eval(X(call("loop"))), ir.Jump(3)],  # a loop: its head has two ways in
    ]
    gen = CodeGenerator()
    gen.frame_proc(ir.FrameProc("s_demo__0", blocks))
    code = text(gen)
    assert "pc == 2" not in code and "F.pc = 2" not in code
    assert "            if L['a']:\n                once()\n" in code
    assert "elif pc == 1:" in code and "elif pc == 3:" in code
    assert code.count("loop()") == 1


def test_a_jump_to_a_block_that_only_jumps_on_goes_straight_there():
    blocks = [
        [ir.If([ir.Branch(X(FrameLocal("a")), [ir.Jump(2)])]), ir.Jump(3)],
        [ir.Eval(X(call("after"))), ir.FrameReturn()],
        [ir.Jump(4)],  # only jumps on: never written
        [ir.Eval(X(call("other"))), ir.Jump(2)],
        [ir.Eval(X(call("step"))), ir.Suspend(site=0, resume=5)],
        [ir.Jump(1)],  # a resume point that only jumps on: kept for the runner
    ]
    gen = CodeGenerator()
    gen.frame_proc(ir.FrameProc("s_demo__0", blocks))
    code = text(gen)
    assert "pc == 2" not in code and "F.pc = 2" not in code
    assert "elif pc == 4:" in code and code.count("F.pc = 4") == 2
    # the resume point stays in the dispatch, with the block it leads to written there
    assert "elif pc == 5:\n            after()\n" in code and "pc == 1" not in code


def test_a_store_keeps_an_index_up_to_date_only_if_a_walk_uses_it():
    owner = MaintainedIndex("owner", ElemT("road"), 3)
    table, road = StateField("g_owner"), Local("v_r")
    entry = ir.IndexedStore(X(Index(table, road)), X(Local("_iv")), owner, X(road))
    whole = ir.IndexedStore(X(table), X(call("list", Local("v_t"))), owner)
    gen = CodeGenerator()
    gen.indexes = [owner]
    gen.function(ir.Function("f", ["S"], [entry, whole]))
    assert text(gen).splitlines()[1:4] == [
        "    S.g_owner[v_r] = _l.regroup(S.i_owner, v_r, S.g_owner[v_r], _iv)",
        "    S.g_owner = list(v_t)",
        "    S.i_owner = _l.group_by(S.g_owner, 3)",
    ]
    unused = CodeGenerator()
    unused.function(ir.Function("f", ["S"], [entry, whole]))
    assert text(unused).splitlines()[1:3] == [
        "    S.g_owner[v_r] = _iv",
        "    S.g_owner = list(v_t)",
    ]


def test_frame_locals_are_bound_only_when_read():
    gen = CodeGenerator()
    clear = X(Call(Attr(Attr(Name("F"), "L"), "clear"), ()))
    gen.frame_proc(ir.FrameProc("s_quiet", [[ir.Eval(clear), ir.FrameReturn()]]))
    gen.function(ir.Function("site0_legal", ["S", "F", "me"], [ir.Return(X(Display("list", ())))]))
    assert "L = F.L" not in text(gen)


def test_try_rule_error_and_end_game():
    hoisted, field = Local("_h0"), StateField("g_s")
    body = [
        ir.Try([ir.Assign(X(hoisted), X(StateField("g_a")))], [ir.Return(X(call("plain", S)))]),
        ir.Assign(X(field), X(call("set", Local("v"))), op="|="),
        ir.If([ir.Branch(X(hoisted), [ir.RaiseEndGame()])]),
        ir.RaiseRuleError("nothing to choose for x", "r.metro", 5),
        ir.Assign(X(field), X(call("set"))),  # never runs: not written
    ]
    gen = CodeGenerator()
    gen.function(ir.Function("h", ["S"], body))
    assert text(gen).splitlines()[1:] == [
        "    try:",
        "        _h0 = S.g_a",
        "    except Exception:",
        "        return plain(S)",
        "    S.g_s |= set(v)",
        "    if _h0:",
        "        raise _EndGame()",
        "    raise _RuleError('nothing to choose for x', _F0, 5)",  # the module's first rule file
        "",
    ]


@pytest.mark.parametrize(
    ("code", "tidied"),
    [
        ("((x))", "x"),
        ("K_route__twin[(v_r)]", "K_route__twin[v_r]"),
        ("range(1, (C) + 1)", "range(1, C + 1)"),
        ("(((a)) + 1) % S.n", "(a + 1) % S.n"),
        ("((a + b) * c)", "((a + b) * c)"),
        ("f((a, b))", "f((a, b))"),  # a tuple argument keeps its parentheses
        ("(x,)", "(x,)"),
        ("(1).bit_length()", "(1).bit_length()"),
        ("('(' + s)", "('(' + s)"),  # parentheses inside strings are text
        ("not (a in b)", "not (a in b)"),
        ("x in (a)", "x in a"),
    ],
)
def test_tidy_drops_only_redundant_parentheses(code, tidied):
    assert tidy(code) == tidied
    # Parentheses leave no trace in Python's syntax tree: equal trees, same meaning.
    assert pyast.dump(pyast.parse(tidied, mode="eval")) == pyast.dump(
        pyast.parse(code, mode="eval")
    )


def test_statement_position_drops_enclosing_parentheses_but_keeps_tuples():
    assert strip_outer("(a == b)") == "a == b"
    assert strip_outer("(a, b)") == "(a, b)"
    assert strip_outer("(x for x in y)") == "(x for x in y)"
    a_plus_b = BinOp(Local("a"), "+", Local("b"))
    assert X(Paren(a_plus_b)).operand() == "(a + b)" and X(a_plus_b).operand() == "(a + b)"
    assert X(Index(StateField("p_hand"), ME)).atomic and not X(Unary("-", Local("x"))).atomic


def test_the_printer_writes_tuples_slices_lambdas_and_messages_as_python_does():
    one, two = Display("bare", (Local("a"),)), Display("bare", (Local("a"), Local("b")))
    assert py(Paren(one)) == "(a,)" and py(Paren(two)) == "(a, b)" and py(two) == "a, b"
    assert py(Index(Local("xs"), Slice(None, None))) == "xs[:]"
    assert py(Index(Local("xs"), Slice(Local("k"), None))) == "xs[k:]"
    assert py(Lambda((), Const(None))) == "lambda: None"
    assert py(Lambda(("S", "F"), Name("F"))) == "lambda S, F: F"
    message = Format(("it's {", Index(Name("a"), Const(1)), "} not offered"))
    assert py(message) == "f'it\\'s {{{a[1]!r}}} not offered'"
    assert eval(py(message), {"a": ("x", "y")}) == "it's {'y'} not offered"


def test_the_runtime_names_each_template_writes_are_declared():
    # The imports follow from what the code reads (compiler/names.py) and from what each
    # template writes itself, declared in emit.TEMPLATE_NAMES: the declaration must be whole.
    import re

    from compiler.emit import IMPORTS, TEMPLATE_NAMES

    folder = os.path.join(os.path.dirname(emit.__file__), "templates")
    for name, declared in TEMPLATE_NAMES.items():
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            text = handle.read()
        written = {alias for alias, _ in IMPORTS if re.search(rf"(?<![\w.]){alias}\b", text)}
        assert written == set(declared), name
    assert set(TEMPLATE_NAMES) == set(os.listdir(folder))
