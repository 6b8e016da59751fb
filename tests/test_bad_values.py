"""Bad values in rule files: huge integers, unhashable table keys, lone surrogates, control
characters and terminal escapes are located diagnostics or located RuleErrors, never tracebacks,
and nothing a rule file says reaches a terminal as an escape sequence."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from compiler import compile_game
from dsl.diagnostics import CompileError
from dsl.parser import parse
from dsl.terminal import printable
from loader import load_game
from metro.cli import main
from runtime.errors import RuleError
from runtime.values import INT_LIMIT

# A two-player game; @DECLS go inside the game block, @FLOW is the flow's body.
GAME = """game @NAME {
  players 2..2
  state { total: int public = 1  items: list of int public  table: map player -> int public }
  per player { points: int public }
@DECLS
  flow { @FLOW }
  score(p) = @SCORE
}
"""


def write(tmp_path, text: str, name: str = "g") -> str:
    """A game directory holding `text` as its rules.metro (bytes are written as they are)."""
    folder = tmp_path / name
    folder.mkdir(parents=True)
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    (folder / "rules.metro").write_bytes(data)
    return str(folder)


def game(name='"G"', decls="", flow="end game", score="p.points") -> str:
    """The text of a small game."""
    return (
        GAME.replace("@NAME", name)
        .replace("@DECLS", decls)
        .replace("@FLOW", flow)
        .replace("@SCORE", score)
    )


def refused(tmp_path, text: str) -> list[tuple[str, int, int, str]]:
    """(code, line, column, message) of every diagnostic of a game that must not compile."""
    folder = write(tmp_path, text)
    with pytest.raises(CompileError) as info:
        compile_game(folder)
    found = []
    for d in info.value.diagnostics:
        assert d.span.file == os.path.join(folder, "rules.metro")
        found.append((d.code.code, d.span.line, d.span.col, d.message))
    assert info.value.render()
    return found


def rule_error(tmp_path, text: str, action=lambda state: state.scores()) -> RuleError:
    """The RuleError a compiled game raises when it starts (or in `action`), checked to be located."""
    game_ = load_game(write(tmp_path, text))
    with pytest.raises(RuleError) as info:
        action(game_.new_game(2, 1))
    assert info.value.file.endswith("rules.metro") and info.value.line >= 1, str(info.value)
    return info.value


# ---------------------------------------------------------------- integers at compile time


@pytest.mark.parametrize("digits", [20, 4301, 5000, 100_000])
def test_an_integer_literal_beyond_the_limit_is_refused_at_the_literal(tmp_path, digits):
    found = refused(tmp_path, game(decls="  const X = " + "9" * digits))
    assert found == [("int-range", 5, 13, found[0][3])]
    assert "larger than the limit of 9223372036854775807" in found[0][3]


@pytest.mark.parametrize(
    ("where", "text", "line", "col"),
    [
        ("players", GAME.replace("players 2..2", "players 2..99999999999999999999"), 2, 14),
        (
            "max decisions",
            GAME.replace("players 2..2", "players 2..2 max decisions 1" + "0" * 5000),
            2,
            30,
        ),
        (
            "seed",
            GAME.replace("@DECLS", '  scenario "s" players 2 seed 1' + "0" * 30 + " { }"),
            5,
            31,
        ),
    ],
)
def test_every_integer_token_is_bounded(tmp_path, where, text, line, col):
    text = text.replace("@NAME", '"G"').replace("@DECLS", "").replace("@FLOW", "end game")
    found = refused(tmp_path, text.replace("@SCORE", "0"))
    assert [f[:3] for f in found] == [("int-range", line, col)], where


def test_the_largest_integer_is_accepted(tmp_path):
    ctx = compile_game(
        write(tmp_path, game(decls=f"  const X = {INT_LIMIT - 1}\n  const Y = -X - 1"))
    )
    assert "9223372036854775807" in ctx.python
    found = refused(tmp_path / "over", game(decls=f"  const X = {INT_LIMIT}"))
    assert [f[:3] for f in found] == [("int-range", 5, 13)]


@pytest.mark.parametrize(
    ("expr", "col"),
    [
        ("9223372036854775807 + 1", 13),
        ("-9223372036854775807 - 2", 13),
        ("3037000500 * 3037000500", 13),
        ("sum([9223372036854775807, 1])", 13),
        ("abs(-9223372036854775807 - 1)", 13),
        ("(1 + 9223372036854775807) - 5", 14),
    ],
)
def test_constant_arithmetic_beyond_the_limit_is_refused(tmp_path, expr, col):
    found = refused(tmp_path, game(decls=f"  const X = {expr}"))
    assert [f[:3] for f in found] == [("int-range", 5, col)], found
    assert "outside the integer range" in found[0][3]


def test_constant_growth_stops_at_the_first_step_past_the_limit(tmp_path):
    # Each step is checked, so a tower of products fails fast instead of computing 2**(2**k).
    tower = "X" + " * X" * 60
    found = refused(tmp_path, game(decls=f"  const X = 4294967296\n  const Y = {tower}"))
    assert [f[:2] for f in found] == [("int-range", 6)]


# ---------------------------------------------------------------- integers at run time


@pytest.mark.parametrize(
    ("flow", "line"),
    [
        ("repeat 70 times { total = total * 10 }", 6),
        ("repeat 70 times { total += total }", 6),
        ("repeat 70 times { total *= 3 }", 6),
        ("total = 0 - 9223372036854775807  total -= 2", 6),
        ("let x = 1\n  repeat 70 times { x = x * 10 }", 7),
        ("repeat 70 times { seat(1).points += total  total = seat(1).points }", 6),
        ("repeat 70 times { table[seat(2)] = total * 4  total = table[seat(2)] }", 6),
        ("repeat 70 times { add(items, total * 8)  total = items[size(items) - 1] }", 6),
    ],
)
def test_stored_integers_beyond_the_limit_are_located_rule_errors(tmp_path, flow, line):
    game_ = load_game(write(tmp_path, game(flow=flow + "  end game")))
    with pytest.raises(RuleError) as info:
        game_.new_game(2, 1)
    error = info.value
    assert (error.file.endswith("rules.metro"), error.line) == (True, line), str(error)
    assert "outside the range -2**63 .. 2**63 - 1" in str(error)


def test_a_value_computed_in_a_function_is_checked_where_it_is_stored(tmp_path):
    decls = "  function grow(n: int) -> int = n * n * n * n"
    game_ = load_game(
        write(tmp_path, game(decls=decls, flow="total = 100000  total = grow(total)  end game"))
    )
    with pytest.raises(RuleError) as info:
        game_.new_game(2, 1)
    assert info.value.line == 6


def test_a_score_beyond_the_limit_is_a_located_rule_error(tmp_path):
    # 10**400 as a score: each factor is in range, the product is not.
    error = rule_error(
        tmp_path,
        game(flow="total = 1000000000000000000  end game", score="total" + " * total" * 22),
    )
    assert error.line == 7 and "outside the range" in str(error)


def test_an_error_in_the_score_or_rank_is_located(tmp_path):
    error = rule_error(tmp_path, game(score="total / (total - total)"))
    assert error.line == 7 and "division by zero" in str(error)
    text = game().replace(
        "score(p) = p.points", "score(p) = 0\n  rank p by total * total * total * total desc"
    )
    game_ = load_game(
        write(tmp_path, text.replace("end game", "total = 100000000  end game"), "rank")
    )
    with pytest.raises(RuleError) as info:
        game_.new_game(2, 1).ranking()
    assert info.value.line == 8


def test_values_in_range_still_play(tmp_path):
    flow = (
        "repeat 62 times { total = total * 2 }  total = total - 1 + total  seat(1).points += total  "
        "add(items, total)  end game"
    )
    state = load_game(write(tmp_path, game(flow=flow))).new_game(2, 1)
    assert state.scores() == [INT_LIMIT - 1, 0]
    assert state.game.state_from_json(state.to_json()).to_json() == state.to_json()


def test_adding_a_waiting_procedures_result_adds_it(tmp_path):
    decls = "  procedure ask() -> int { choose k: 1..9 by seat(1)  return k }"
    state = load_game(
        write(
            tmp_path,
            game(decls=decls, flow="total += ask()  total *= ask()  end game", score="total"),
        )
    ).new_game(2, 1)
    state.apply(0, "k(4)")
    state.apply(0, "k(3)")
    assert state.scores() == [15, 15]  # (1 + 4) * 3


def test_simulate_reports_a_huge_score_as_a_rule_error(tmp_path):
    folder = write(
        tmp_path,
        game(flow="total = 1000000000000000000  end game", score="total" + " * total" * 22),
    )
    result = CliRunner().invoke(main, ["simulate", folder, "--games", "3"])
    assert result.exit_code == 1, result.output
    assert "rules.metro:7: an integer result" in result.output
    assert "internal error" not in result.output and "Traceback" not in result.output


# ---------------------------------------------------------------- table keys


@pytest.mark.parametrize(
    ("value", "col", "message"),
    [
        ("{1: 0, [1]: 2}", 20, "table keys must be numbers"),
        ("{[1]: 2}", 14, "table keys must be numbers"),
        ("{x: 1 for x in [[1], [2]]}", 14, "table keys must be numbers"),
        ("{(1, 2): 3}", 14, "table keys must be numbers"),
        ("{1: 0, seat(1): 1}", 20, "table keys of different types"),
    ],
)
def test_a_table_key_that_cannot_be_one_is_a_type_error_at_the_key(tmp_path, value, col, message):
    found = refused(tmp_path, game(decls=f"  const X = {value}"))
    assert [f[:3] for f in found] == [("type", 5, col)], found
    assert message in found[0][3]


# ---------------------------------------------------------------- text


@pytest.mark.parametrize(
    ("literal", "col"),
    [
        (r'"\ud800"', 2),
        (r'"ab\udfff"', 4),
        (r'"\ud83dx"', 2),
        (r'"\ud83d\u0041"', 2),
        (r'"\ude82\ud83d"', 2),
    ],
)
def test_a_lone_surrogate_escape_is_refused_at_the_escape(tmp_path, literal, col):
    for index, text in enumerate([game(name=literal), game(decls=f"  const T = {literal}")]):
        folder = write(tmp_path, text, f"g{index}")
        with pytest.raises(CompileError) as info:
            compile_game(folder)
        (d,) = info.value.diagnostics
        line, start = (1, 6) if index == 0 else (5, 13)
        assert (d.code.code, d.span.line, d.span.col) == ("syntax", line, start + col - 1), (
            d.render()
        )
        assert "half of a surrogate pair" in d.message


def test_a_surrogate_pair_written_as_two_escapes_is_one_character(tmp_path):
    state = load_game(write(tmp_path, game(name=r'"train \ud83d\ude82"'))).new_game(2, 1)
    assert state.game.name == "train \U0001f682"
    assert "\U0001f682" in state.to_json()


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"\x7f", 0x7F),
        (b"\xc2\x80", 0x80),
        (b"\xc2\x85", 0x85),
        (b"\xc2\x9b", 0x9B),
        (b"\xc2\x9f", 0x9F),
        (b"\x1b", 0x1B),
    ],
)
def test_raw_del_and_c1_controls_are_refused_at_the_character(tmp_path, raw, code):
    text = game(decls='  const T = "abc@"').encode("utf-8").replace(b"@", raw)
    found = refused(tmp_path, text)
    assert found == [
        ("input", 5, 17, f"the file contains a control character, U+{code:04X} (binary data?)")
    ]


def test_printable_characters_next_to_the_controls_are_accepted(tmp_path):
    # U+00A0 (no-break space) is the first character after the C1 block.
    compile_game(write(tmp_path, game(decls='  const T = "a\u00a0b\u2028c"')))


def test_a_lone_surrogate_in_text_given_to_parse_is_refused():
    with pytest.raises(CompileError) as info:
        parse('game "x\ud800" { }', "api.metro")
    (d,) = info.value.diagnostics
    assert (d.code.code, d.span.line, d.span.col) == ("input", 1, 8)


# ---------------------------------------------------------------- terminals

HOSTILE = r"""game "E\u001b]0;pwned\u0007 \u009b2J [bold red]x[/bold red]\nnext" {
  players 2..2
  state { label: text public = "t\u001b[31mred\u0085" }
  action say(s in ["a\u001b[2Jb\u200f", "plain"]) { label = s }
  flow { choose by seat(1) { say }  end game }
  score(p) = 1
}
"""

UNSAFE = ("\x1b", "\x07", "\x9b", "\x85", "\u200f")


def _no_escapes(output: str) -> None:
    assert not any(c in output for c in UNSAFE), repr(output[:400])
    assert "Traceback" not in output and "internal error" not in output


@pytest.mark.parametrize(
    "command", [["check"], ["simulate", "--games", "2"], ["playthrough"], ["play", "--seed", "1"]]
)
def test_rule_file_text_never_reaches_the_terminal_as_escapes(tmp_path, command):
    folder = write(tmp_path, HOSTILE)
    result = CliRunner().invoke(main, [command[0], folder, *command[1:]], input="1\n", color=True)
    assert result.exit_code == 0, result.output
    _no_escapes(result.output)
    if command[0] != "playthrough":
        assert "E\\x1b]0;pwned\\x07" in result.output
    if command[0] == "simulate":
        assert (
            "[bold red]x[/bold" in result.output
        )  # rich markup shown as written (the title wraps)
    if command[0] == "play":
        # the action's text argument reads as people read text: its controls shown as escapes
        assert "say a\\x1b[2Jb\\u200f" in result.output and "t\\x1b[31mred\\x85" in result.output


def test_diagnostics_quote_rule_text_without_escapes(tmp_path):
    text = game(decls='  const X = "\\u001b[2J"\n  const Y = X + 1')
    result = CliRunner().invoke(main, ["check", write(tmp_path, text)], color=True)
    assert result.exit_code == 1
    _no_escapes(result.output)


def test_printable_escapes_every_unprintable_character():
    assert printable("plain é \U0001f682") == "plain é \U0001f682"
    assert printable("a\x1bb\x7f\x85\u202e\n") == "a\\x1bb\\x7f\\x85\\u202e\\x0a"
    assert printable("two\nlines\tok", keep="\n\t") == "two\nlines\tok"
    assert all(printable(chr(c)).isprintable() for c in range(0x3000))


@pytest.mark.parametrize("seed", ["9" * 5000, "bad\udcffbytes", "esc\x1b[2J"])
def test_a_seed_that_cannot_be_used_is_a_usage_error(tmp_path, seed):
    folder = write(tmp_path, game())
    for command in (
        ["simulate", folder, "--games", "1"],
        ["playthrough", folder],
        ["play", folder],
    ):
        result = CliRunner().invoke(main, [*command, "--seed", seed], input="q\n", color=True)
        assert (
            result.exit_code == 2 and "a seed is at most 1000 printable characters" in result.output
        )
        _no_escapes(result.output)
