"""Pass `lower`: the checked program as an IR of the state machine (tests/data/mini)."""

from __future__ import annotations

import os

import pytest

from compiler import compile_game, ir
from tests.conftest import ROOT

MINI = os.path.join(ROOT, "tests", "data", "mini")


@pytest.fixture(scope="module")
def module() -> ir.Module:
    ctx = compile_game(MINI, stop_after="lower")
    assert ctx.python is None  # emission has not run
    return ctx.module


def kinds(stmts):
    return [type(s).__name__ for s in stmts]


def test_plain_callables_are_functions_and_waiting_ones_frames(module):
    by_name = {f.name: f for f in module.functions}
    assert list(by_name) == ["f_doubled__0", "p_bump__0", "s_pick__0"]
    assert isinstance(by_name["f_doubled__0"], ir.Function)
    assert by_name["f_doubled__0"].params == ["S", "v_x"]
    assert isinstance(by_name["p_bump__0"], ir.Function)
    assert isinstance(by_name["s_pick__0"], ir.FrameProc)


def test_a_waiting_procedure_is_split_at_its_decision(module):
    pick = next(f for f in module.functions if f.name == "s_pick__0")
    first, after = pick.blocks
    # the decision needs the frame from here (a frameless entry makes it there)
    assert kinds(first) == ["NeedsFrame", "Assign", "Assign", "If", "Suspend"]
    # its listing reads no frame: the chooser is kept (`cache_legal`, a bare driver's pick)
    suspend = first[-1]
    assert (suspend.site, suspend.resume, suspend.value) == (0, 1, "n")
    assert suspend.chooser.code == "L['_by1']"
    raised = first[3].branches[0].body[0]
    assert isinstance(raised, ir.RaiseRuleError) and raised.line == 10
    assert kinds(after) == ["Assign", "FrameReturn"]
    assert after[0].span.line == 11  # `picks += n` keeps its .metro line


def test_decision_points_are_sites_with_their_frames(module):
    assert [(s.index, s.kind, s.frame) for s in module.sites] == [
        (0, "value", ("s_pick__0", 1)),
        (1, "actions", ("s__flow", 2)),
    ]
    value = module.sites[0]
    assert value.legal.name == "site0_legal" and value.rule == "pick"
    assert (value.file.endswith("rules.metro"), value.line) == (True, 10)
    assert kinds(value.resume.body) == ["Assign", "Assign", "Return"]


def test_calls_of_waiting_procedures_push_frames(module):
    flow = module.flow_procs[0]
    assert flow.name == "s__flow" and not module.has_final
    push = flow.blocks[0][0]
    assert isinstance(push, ir.PushCall)
    assert (push.callee, push.resume) == ("s_pick__0", 1)
    assert [(name, value.code) for name, value in push.args] == [("p", "_l.seat(S, 1)")]
    # bump() is plain
    assert kinds(flow.blocks[1]) == ["Eval", "NeedsFrame", "Assign", "Assign", "If", "Jump"]


def test_actions_have_legal_why_and_a_body_frame(module):
    (paint,) = module.actions
    assert (paint.name, paint.frame_name, paint.params) == ("paint", "a_paint__0", ["c"])
    assert paint.legal.name == "A_paint_legal" and paint.legal_plain.name == "A_paint_legal_plain"
    assert kinds(paint.legal.body) == ["For"]
    assert paint.why.params == ["S", "me", "args"]
    assert [p.name for p in module.frame_procs()] == ["s_pick__0", "a_paint__0", "s__flow"]


def test_state_layout_and_named_values(module):
    assert [(f.name, f.slot, f.per_player) for f in module.fields] == [
        ("picks", "g_picks", False),
        ("last", "g_last", False),
    ]
    assert module.fields[1].init.code == "E_Color__red"
    assert module.named_values == [("E_Color__red", 0), ("E_Color__blue", 1)]


def test_the_hoisting_stage_binds_state_reads_once(tmp_path):
    (tmp_path / "rules.metro").write_text(
        'game "Hoist" {\n  players 2..2\n  state { limit: int public = 2 }\n'
        "  action take(n: 0..5 where n * limit < 7) { limit = n }\n"
        "  flow { choose by seat(1) { take } }\n}\n"
    )
    (lowered,) = compile_game(str(tmp_path), stop_after="lower").module.actions
    assert lowered.legal.body[0].body[0].branches[0].cond.code == "not ((v_n * S.g_limit) < 7)"
    (action,) = compile_game(str(tmp_path), stop_after="hoist_listings").module.actions
    hoisted, loop = action.legal.body
    assert isinstance(hoisted, ir.Try)
    assert [(a.target.code, a.value.code) for a in hoisted.body] == [("_h0", "S.g_limit")]
    assert hoisted.handler[0].value.code == "A_take_legal_plain(S, me, out)"
    assert loop.body[0].branches[0].cond.code == "not ((v_n * _h0) < 7)"
    assert kinds(action.legal_plain.body) == ["For"]  # the plain version reads the state itself


def test_hoisting_computes_a_value_once_as_a_whole(tmp_path):
    (tmp_path / "rules.metro").write_text(
        'game "Hoist" {\n  players 2..2\n  state { limit: int public = 2 }\n'
        "  function twice(x: int) -> int = x * 2\n"
        "  action take(n: 0..5 where n * twice(limit) < 7) { limit = n }\n"
        "  flow { choose by seat(1) { take } }\n}\n"
    )
    # Calls are inlined, then the listing's invariant values hoisted, by stages after lowering.
    (action,) = compile_game(str(tmp_path), stop_after="hoist_listings").module.actions
    hoisted = action.legal.body[0]
    # The inlined call is computed once, from `limit` read once (for other values to share).
    assert [(a.target.code, a.value.bare()) for a in hoisted.body] == [
        ("_h0", "S.g_limit"),
        ("_h1", "_h0 * 2"),
    ]
