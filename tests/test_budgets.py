"""Budgets on unbounded work: every loop kind, domain and subset enumeration, constant evaluation.

A game that compiles never hangs or exhausts memory: each case below is either refused when
compiling (a located diagnostic) or stops at run time with a RuleError naming its .metro line,
within a generous time limit (a hang fails the test instead of blocking the run).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler import generate_python
from dsl.diagnostics import CompileError
from loader import load_game
from metro.bots.preference import declared_bot
from runtime.errors import IllegalAction, RuleError
from runtime.limits import MAX_BLOCK_NESTING, MAX_DOMAIN, MAX_LOOP_NESTING, STEP_BUDGET
from tests.timeouts import time_limit

SECONDS = 30  # far more than any case needs; only a hang or a runaway loop reaches it

HEAD = 'game "Budget" {\n  players 1..1\n  state { n: int public = 0  big: int public = 1000000000000 }\n'
FLOW = "  flow { loop { choose by seat(1) { go, stop } } }\n  action stop() { end game }\n"


def write(tmp_path, body: str, flow: str = FLOW) -> str:
    """A one-player game with `body` declared in it; returns the rules file's path."""
    path = tmp_path / "rules.metro"
    path.write_text(HEAD + body + flow + "}\n")
    return str(path)


def line_of(path: str, text: str) -> int:
    """The 1-based line of the rules file that contains `text`."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


def run_error(
    tmp_path, body: str, marker: str, flow: str = FLOW, act: str | None = "go", at: str = ""
) -> RuleError:
    """Compile, start and (if `act`) take that action; the RuleError raised, located at `marker`'s
    line (and, given `at`, at the column where the text `at` starts on that line)."""
    path = write(tmp_path, body, flow)
    with time_limit(SECONDS):
        game = load_game(str(tmp_path), use_cache=False)
        with pytest.raises(RuleError) as info:
            state = game.new_game(1, 1)
            if act is not None:
                state.apply(0, act)
    error = info.value
    assert error.file.endswith("rules.metro") and error.line == line_of(path, marker), str(error)
    assert f"rules.metro:{error.line}:" in str(error)
    if at:
        column = Path(path).read_text(encoding="utf-8").splitlines()[error.line - 1].index(at) + 1
        assert error.column == column and f"rules.metro:{error.line}:{column}: " in str(error)
    return error


def compile_error(tmp_path, body: str, marker: str, code: str, flow: str = FLOW) -> str:
    """The compile diagnostic's message; it has `code` and points at `marker`'s line."""
    path = write(tmp_path, body, flow)
    with time_limit(SECONDS), pytest.raises(CompileError) as info:
        load_game(str(tmp_path), use_cache=False)
    found = [d for d in info.value.diagnostics if d.code.code == code]
    assert found, str(info.value)
    assert found[0].span.file.endswith("rules.metro") and found[0].span.line == line_of(
        path, marker
    ), str(info.value)
    return found[0].message


# ------------------------------------------------------------------ the step budget at run time


@pytest.mark.parametrize(
    ("body", "marker", "at"),
    [
        ("  action go() {\n    repeat big times { n += 1 }\n  }\n", "repeat big", "repeat"),
        ("  action go() {\n    for i in 0..big { n += 1 }\n  }\n", "for i in", "0..big"),
        (
            "  action go() {\n    let xs = [i for i in 0..big]\n    n = size(xs)\n  }\n",
            "let xs",
            "0..big",
        ),
        ("  action go() {\n    n = sum(i for i in 0..big)\n  }\n", "n = sum", "0..big"),
        (
            "  action go() {\n    n = count(i for i in 0..big where i > 0)\n  }\n",
            "n = count",
            "0..big",
        ),
        ("  action go() {\n    while true { n += 1 }\n  }\n", "while true", "while"),
        ("  action go() {\n    loop { n += 1 }\n  }\n", "loop {", "loop"),
        (
            "  function total() -> int = sum(i * j for i in 0..3000 for j in 0..3000)\n"
            "  action go() { n = total() }\n",
            "function total",
            "0..3000)",  # the inner walk, the one that runs out
        ),
        (
            "  action go() {\n    let xs = [1]\n    repeat 64 times {\n      xs += xs\n    }\n  }\n",
            "xs += xs",
            "xs += xs",
        ),
    ],
    ids=[
        "repeat",
        "for-range",
        "list-comprehension",
        "sum",
        "count",
        "while",
        "loop",
        "nested-comprehension",
        "doubling-list",
    ],
)
def test_every_loop_kind_stops_at_its_line_and_column(tmp_path, body, marker, at):
    error = run_error(tmp_path, body, marker, at=at)
    assert "step budget" in str(error)


SIXTY_FOUR = "  enum V { " + " ".join(f"v{i}" for i in range(64)) + " }\n"


def test_small_walks_nested_past_the_free_steps_are_charged(tmp_path):
    # Each walk is over a 64-value enum (free alone); nested, and through calls, they are not.
    body = (
        SIXTY_FOUR
        + "  function pairs(a: V) -> int = sum(1 for b in V for c in V)\n"
        + "  action go() { n = sum(pairs(a) + pairs(a) for a in V for d in V for e in V) }\n"
    )
    error = run_error(tmp_path, body, "function pairs", at="V for c in V")
    assert "step budget" in str(error)


def test_calls_that_fan_out_are_charged(tmp_path):
    # No loop at all: 2**40 calls through a chain of functions that each call the next twice.
    chain = "".join(f"  function f{i}() -> int = f{i + 1}() + f{i + 1}()\n" for i in range(40))
    body = chain + "  function f40() -> int = 1\n  action go() { n = f0() }\n"
    path = write(tmp_path, body)
    with time_limit(SECONDS):
        game = load_game(str(tmp_path), use_cache=False)
        state = game.new_game(1, 1)
        with pytest.raises(RuleError) as info:
            state.apply(0, "go")
    assert "step budget" in str(info.value)
    text = Path(path).read_text(encoding="utf-8").splitlines()[info.value.line - 1]
    assert text.startswith("  function f"), text


def test_a_loop_in_flow_names_its_line(tmp_path):
    flow = "  flow {\n    loop {\n      n += 1\n    }\n  }\n  action go() { end game }\n"
    error = run_error(tmp_path, "", "loop {", flow=flow, act=None, at="loop {")
    assert f"{STEP_BUDGET:,}" in str(error)


def test_a_waiting_loop_that_never_waits_is_counted(tmp_path):
    flow = (
        "  flow {\n    repeat big times {\n      if n < 0 { choose by seat(1) { go } }\n    }\n  }\n"
        "  action go() { end game }\n"
    )
    run_error(tmp_path, "", "repeat big", flow=flow, act=None, at="repeat big")


def test_the_budget_is_per_decision(tmp_path):
    """Work spread over many decisions is fine: the budget counts only since the last one."""
    path = write(
        tmp_path,
        "  action go() { for i in 1..(STEPS) { n += 1 } }\n"
        f"  const STEPS = {STEP_BUDGET // 4}\n",
    )
    with time_limit(SECONDS):
        game = load_game(str(tmp_path), use_cache=False)
        state = game.new_game(1, 1)
        for _ in range(6):
            state.apply(0, "go")
    assert state.g_n == 6 * (STEP_BUDGET // 4), path


def test_each_listing_of_legal_actions_has_a_budget_of_its_own(tmp_path):
    """Queries between two decisions (a scenario's arrangements and refusals, views, a tester's
    checks) each list the legal actions anew: their work does not add up to one budget."""
    write(
        tmp_path,
        "  action go(i: 0..1 where sum(j for j in 1..(STEPS)) > 0) { n += i }\n"
        f"  const STEPS = {STEP_BUDGET * 3 // 8}\n",
    )
    with time_limit(SECONDS):
        game = load_game(str(tmp_path), use_cache=False)
        state = game.new_game(1, 1)
        for _ in range(4):  # each listing takes three quarters of the budget
            state._legal = None  # as after an arrangement: the list is made again
            assert [a.id for a in state.legal_actions(0)] == ["go(0)", "go(1)", "stop"]
        state._legal = None
        with pytest.raises(IllegalAction):  # a refusal's reason is worked out on its own budget too
            state.apply(0, "go(2)")
        state.apply(0, "go(1)")
    assert state.g_n == 1


def test_a_slow_bot_score_stops_at_its_line(tmp_path):
    body = '  action go() { n += 1 }\n  bot "slow" {\n    go: sum(i for i in 0..big)\n  }\n'
    path = write(tmp_path, body)
    with time_limit(SECONDS):
        game = load_game(str(tmp_path), use_cache=False)
        state = game.new_game(1, 1)
        bot = declared_bot(game, "slow", 1)
        with pytest.raises(RuleError) as info:
            bot.choose(state, 0)
    assert info.value.line == line_of(path, "go: sum") and "step budget" in str(info.value)


# ------------------------------------------------------------------ domains and subsets


def test_a_constant_action_domain_beyond_the_limit_is_refused(tmp_path):
    message = compile_error(
        tmp_path, "  action go(k: 0..1000000000) { n = k }\n", "action go", "too-large"
    )
    assert f"{MAX_DOMAIN:,}" in message


def test_two_constant_parameters_beyond_the_limit_are_refused(tmp_path):
    body = "  action go(a: 1..100000,\n            b: 1..100000) { n = a + b }\n"
    message = compile_error(tmp_path, body, "b: 1..100000", "too-large")
    assert "combinations" in message


def test_a_computed_action_domain_beyond_the_limit_stops_at_its_line(tmp_path):
    body = "  action go(k: 0..big) { n = k }\n"
    error = run_error(tmp_path, body, "action go", act=None, at="k: 0..big")
    assert f"{MAX_DOMAIN:,}" in str(error)


def test_two_computed_parameters_stop_at_the_inner_one(tmp_path):
    body = "  state { m: int public = 50000 }\n  action go(a: 1..m,\n            b: 1..m) { n = a + b }\n"
    error = run_error(tmp_path, body, "b: 1..m", act=None, at="b: 1..m")
    assert "domain limit" in str(error)


def test_a_constant_choice_domain_beyond_the_limit_is_refused(tmp_path):
    flow = (
        "  flow {\n    each p in players choose k: 0..100000000\n  }\n  action go() { end game }\n"
    )
    compile_error(tmp_path, "", "choose k", "too-large", flow=flow)


def test_a_computed_choice_domain_beyond_the_limit_stops_at_its_line(tmp_path):
    flow = "  flow {\n    each p in players choose k: 0..big\n  }\n  action go() { end game }\n"
    run_error(tmp_path, "", "choose k", flow=flow, act=None, at="each p")


def test_a_constant_subset_domain_beyond_the_limit_is_refused(tmp_path):
    flow = (
        "  flow {\n    choose picked: subset of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, "
        "19, 20, 21, 22, 23, 24, 25] by seat(1)\n  }\n  action go() { end game }\n"
    )
    compile_error(tmp_path, "", "choose picked", "too-large", flow=flow)


def test_a_computed_subset_domain_beyond_the_limit_stops_at_its_line(tmp_path):
    flow = (
        "  flow {\n    let xs = [i for i in 1..(n + 25)]\n    choose picked: subset of xs by seat(1)\n  }\n"
        "  action go() { end game }\n"
    )
    error = run_error(tmp_path, "", "choose picked", flow=flow, act=None, at="choose picked")
    assert "subset limit" in str(error)


def test_a_subset_domain_walked_for_every_earlier_value_is_charged_every_time(tmp_path):
    # 4,096 subsets, each tested by a walk of 40 numbers, for each of 20 values of `a`: the
    # listing's walks of the (once computed) subsets add up past the step budget.
    body = (
        "  action pick(a: 1..20, chosen: subset of [i for i in 1..12]\n"
        "    where size([x for x in 1..40 where x > a]) > size(chosen)) { }\n"
    )
    flow = "  flow { choose by seat(1) { pick } }\n"
    error = run_error(tmp_path, body, "chosen: subset of", flow=flow, act=None, at="chosen:")
    assert "step budget" in str(error)
    listing = generate_python(str(tmp_path)).split("def A_pick_legal(")[1].split("\ndef ")[0]
    assert "S._iters += len(_d1) * " in listing  # charged inline, as `_l.each` would


# ------------------------------------------------------------------ constants, nesting, final


def test_a_constant_over_a_huge_range_is_refused_without_listing_it(tmp_path):
    body = "  const S = sum(i for i in 0..1000000000000)\n  action go() { n = S }\n"
    message = compile_error(tmp_path, body, "const S", "too-large")
    assert "budget" in message


def test_constants_over_small_ranges_still_compute(tmp_path):
    write(
        tmp_path,
        "  const S = sum(i for i in 1..100)\n  const T = [i for i in 1..3]\n"
        "  action go() { n = S + size(T) }\n",
    )
    game = load_game(str(tmp_path), use_cache=False)
    state = game.new_game(1, 1)
    state.apply(0, "go")
    assert state.g_n == 5053


def _nested_whiles(count: int) -> str:
    return (
        "  action go() {\n"
        + "".join("  " * i + "    while n < 0 {\n" for i in range(count))
        + "".join("  " * i + "    }\n" for i in reversed(range(count)))
        + "  }\n"
    )


def test_loops_nested_beyond_the_limit_are_refused_at_the_first_too_deep(tmp_path):
    body = _nested_whiles(21)
    path = write(tmp_path, body)
    with pytest.raises(CompileError) as info:
        load_game(str(tmp_path), use_cache=False)
    (diag,) = info.value.diagnostics
    assert diag.code.code == "too-deep" and f"limit of {MAX_LOOP_NESTING}" in diag.message
    assert diag.span.line == line_of(path, "while") + MAX_LOOP_NESTING


def test_loops_nested_to_the_limit_compile(tmp_path):
    write(tmp_path, _nested_whiles(MAX_LOOP_NESTING))
    load_game(str(tmp_path), use_cache=False).new_game(1, 1).apply(0, "go")


def test_blocks_nested_beyond_the_limit_are_refused(tmp_path):
    depth = MAX_BLOCK_NESTING + 1
    body = "  action go() {" + " if n < 0 {" * depth + "}" * depth + " }\n"
    message = compile_error(tmp_path, body, "action go", "too-deep")
    assert f"limit of {MAX_BLOCK_NESTING}" in message


def test_too_many_action_parameters_are_refused(tmp_path):
    params = ", ".join(f"p{i}: bool" for i in range(MAX_LOOP_NESTING + 1))
    compile_error(tmp_path, f"  action go({params}) {{ n = 1 }}\n", "action go", "too-deep")


def test_end_game_written_in_final_is_refused(tmp_path):
    flow = "  flow { choose by seat(1) { go } }\n  final {\n    end game\n  }\n  action go() { end game }\n"
    compile_error(tmp_path, "", "    end game", "structure", flow=flow)


def test_end_game_reached_from_final_is_a_rule_error(tmp_path):
    flow = (
        "  flow { choose by seat(1) { go } }\n  final { finish() }\n  procedure finish() {\n    end game\n  }\n"
        "  action go() { end game }\n"
    )
    error = run_error(tmp_path, "", "    end game", flow=flow)
    assert "final" in str(error)


def test_python_refusing_generated_code_is_reported_at_the_construct(tmp_path):
    """Whatever CPython still refuses (here: more than 200 nested parentheses) names the .metro line."""
    body = (
        "  function f(x: int) -> int =\n    "
        + "ceil_to(" * 80
        + "x"
        + ", 2)" * 80
        + "\n  action go() { n = f(1) }\n"
    )
    path = write(tmp_path, body)
    try:
        load_game(str(tmp_path), use_cache=False)
    except CompileError as error:
        (diag,) = error.diagnostics
        assert diag.code.code == "too-deep" and diag.span.line == line_of(path, "ceil_to("), str(
            error
        )
