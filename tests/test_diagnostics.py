"""Golden diagnostics: every kind of bad input gives our messages (never a traceback)."""

from __future__ import annotations

import os

import pytest

from compiler import compile_game
from dsl.diagnostics import COMMAND_LINE, RESOLVE, CompileError, Diagnostic, whole_file
from dsl.parser import MAX_FILE_BYTES, MAX_NESTING, parse

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.join(HERE, "data", "bad")
REGENERATE = os.environ.get("METRO_REGEN") == "1"

# (path, variants[, map]) — each case's expected output is <path>[.variant][.map].expected
CASES = [
    ("syntax_missing_comma.metro", ()),
    ("syntax_unexpected.metro", ()),
    ("syntax_truncated.metro", ()),
    ("garbage.metro", ()),
    ("undefined_name.metro", ()),
    ("type_error.metro", ()),
    ("not_finite.metro", ()),
    ("visibility.metro", ()),
    ("recursion.metro", ()),
    ("enum_cycle.metro", ()),
    ("map_game", ()),
    ("map_game", (), "map_game/disconnected.metro"),
    ("patch_game", ("wrong",)),
    ("patch_game", ("retype",)),
]


def _render(path: str, variants, map_file=None) -> str:
    cwd = os.getcwd()
    os.chdir(
        BAD
    )  # paths in messages are relative, so the golden files do not depend on the checkout
    try:
        compile_game(path, variants=variants, map=map_file)
    except CompileError as error:
        return error.render() + "\n"
    finally:
        os.chdir(cwd)
    return "no errors\n"


def _golden_name(case, variants, map_file=None) -> str:
    suffix = "".join("." + v for v in variants) + (
        f".{os.path.basename(map_file)[:-6]}" if map_file else ""
    )
    return os.path.join(BAD, f"{case.removesuffix('.metro')}{suffix}.expected")


@pytest.mark.parametrize(
    "case", CASES, ids=[os.path.basename(_golden_name(*c))[:-9] for c in CASES]
)
def test_golden_diagnostics(case):
    got = _render(*case)
    golden = _golden_name(*case)
    if REGENERATE or not os.path.exists(golden):
        with open(golden, "w", encoding="utf-8") as handle:
            handle.write(got)
    with open(golden, encoding="utf-8") as handle:
        assert got == handle.read()
    assert got != "no errors\n"


def _codes(text: str, filename: str = "t.metro") -> list[str]:
    with pytest.raises(CompileError) as info:
        parse(text, filename)
    return [d.code.code for d in info.value.diagnostics]


def test_deep_nesting_is_refused():
    text = 'game "G" { const X = ' + "not " * 10_000 + "true }"
    assert _codes(text) == ["too-deep"]
    assert MAX_NESTING < 10_000


def test_deep_parentheses_are_fine_or_refused_cleanly():
    text = 'game "G" { const X = ' + "(" * 10_000 + "1" + ")" * 10_000 + " }"
    try:
        parse(text, "t.metro")
    except CompileError as error:
        assert {d.code.code for d in error.diagnostics} <= {"too-deep", "syntax"}


def test_huge_file_is_refused():
    text = 'game "G" {\n' + "  # padding\n" * (MAX_FILE_BYTES // 10) + "}\n"
    assert len(text) > MAX_FILE_BYTES
    assert _codes(text) == ["input"]


def test_every_diagnostic_names_file_line_and_column():
    for case in CASES:
        text = _render(*case)
        first = text.splitlines()[0]
        location = first.split(": ")[0]
        assert location.count(":") >= 2, first
        assert "error[" in first


def test_missing_file_is_one_clear_diagnostic(tmp_path):
    with pytest.raises(CompileError) as info:
        compile_game(str(tmp_path / "nothing.metro"))
    rendered = info.value.render()
    assert "cannot read file" in rendered and "Traceback" not in rendered


def test_a_finding_without_a_line_renders_no_line_or_column():
    about_directory = Diagnostic(RESOLVE, "no rules.metro here", whole_file("games/x"))
    about_argument = Diagnostic(RESOLVE, "no variant named 'v'", COMMAND_LINE, notes=("see",))
    assert about_directory.render() == "games/x: error[resolve]: no rules.metro here"
    assert about_argument.render() == "error[resolve]: no variant named 'v'\n  note: see"
    assert about_argument.to_dict()["file"] == "" and about_argument.to_dict()["line"] == 0


def test_a_file_that_cannot_be_read_is_named_without_a_line(tmp_path):
    from compiler import compile_game

    missing = str(tmp_path / "none" / "rules.metro")
    with pytest.raises(CompileError) as info:
        compile_game(missing)
    assert (
        info.value.render()
        == f"{missing}: error[input]: cannot read file: No such file or directory"
    )
