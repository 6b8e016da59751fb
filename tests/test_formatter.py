"""`metro fmt`: one canonical layout for every construct, idempotent, keeping the AST and every comment."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given

from dsl.diagnostics import CompileError
from dsl.formatter import WIDTH, format_text, formatting_off
from dsl.formatter.cst import cst_parser, parse_cst
from dsl.formatter.layout import Layout
from dsl.parser import MAX_NESTING, parse
from metro.cli import main
from tests.test_fuzz import PROGRAMS, fuzz_settings

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "fmt"
COMMENT_OR_STRING = re.compile(r'"(?:[^"\\\n]|\\[^\n])*"|#[^\n]*')


def grammar_node_names() -> set[str]:
    """Every node name the grammar can build: rule aliases, and rules that are not inlined."""
    names = set()
    for rule in cst_parser().rules:
        if rule.alias:
            names.add(str(rule.alias))
        elif not rule.origin.name.startswith("_") and not (
            rule.options.expand1 and len(rule.expansion) == 1
        ):
            names.add(str(rule.origin.name))
    return names


def node_names(tree) -> set[str]:
    """The node names in a concrete syntax tree."""
    return {str(sub.data) for sub in tree.iter_subtrees()}


def comments(text: str) -> list[str]:
    """The comments of a rule file, as a sorted list."""
    return sorted(
        m.group().rstrip() for m in COMMENT_OR_STRING.finditer(text) if m.group().startswith("#")
    )


def shipped_files() -> list[str]:
    """Every .metro file the repository ships that parses (the broken test inputs excluded)."""
    found = []
    for folder in ("games", "tests/data"):
        for path in sorted((ROOT / folder).rglob("*.metro")):
            try:
                parse(path.read_text(encoding="utf-8"), str(path))
            except (CompileError, UnicodeDecodeError):
                continue
            found.append(str(path.relative_to(ROOT)))
    return found


# ---------------------------------------------------------------- every construct


def test_every_grammar_rule_has_a_layout():
    rules = {name.removeprefix("rule_") for name in dir(Layout) if name.startswith("rule_")}
    grammar = grammar_node_names()
    assert grammar - rules == set(), "grammar rules without a layout in dsl/formatter/layout.py"
    assert rules - grammar == set(), "layouts of rules the grammar no longer has"


def test_the_corpus_uses_every_grammar_rule():
    used: set[str] = set()
    for path in CORPUS.glob("*.in"):
        used |= node_names(parse_cst(path.read_text(encoding="utf-8")))
    missing = grammar_node_names() - used
    assert missing == set(), f"add these constructs to tests/data/fmt/*.in: {sorted(missing)}"


@pytest.mark.parametrize("name", ["game", "part", "patch", "map", "library", "library_map"])
def test_careless_layout_becomes_the_canonical_one(name):
    careless = (CORPUS / f"{name}.in").read_text(encoding="utf-8")
    canonical = (CORPUS / f"{name}.metro").read_text(encoding="utf-8")
    assert format_text(careless) == canonical
    assert format_text(canonical) == canonical
    assert parse(careless, "x.metro") == parse(canonical, "x.metro")
    assert comments(careless) == comments(canonical)
    assert max(len(line) for line in canonical.splitlines()) <= WIDTH


# The shipped rule files CI keeps in the canonical layout. Files a build script writes say
# `# metro fmt: off` (the script checks them byte for byte); tests/data/bad and tests/data/mini
# are test inputs whose exact lines the tests name.
FORMATTED = ["games", "tests/data/fmt"]


def test_every_shipped_rule_file_is_in_the_canonical_layout():
    result = CliRunner().invoke(main, ["fmt", "--check", *(str(ROOT / p) for p in FORMATTED)])
    assert result.exit_code == 0, result.output + "\nrun: metro fmt " + " ".join(FORMATTED)
    assert "0 files would be reformatted" in result.output


def test_generated_files_keep_their_layout_and_say_so(tmp_path):
    generated = [p for p in (ROOT / "games").rglob("*.metro") if formatting_off(p.read_text())]
    assert {p.name for p in generated} == {
        "tokyo.metro",
        "cards.metro",
        "osaka.metro",
        "plots.metro",
        "table.metro",
        "edge_chips.metro",
        "corner_chips.metro",
    }
    odd = tmp_path / "odd.metro"
    odd.write_text('# metro fmt: off\ngame "g" { players 1..2 }\n', encoding="utf-8")
    assert CliRunner().invoke(main, ["fmt", str(odd)]).exit_code == 0
    assert odd.read_text(encoding="utf-8") == '# metro fmt: off\ngame "g" { players 1..2 }\n'
    assert not formatting_off('game "g" {\n  # metro fmt: off\n}\n')  # only before the code


@pytest.mark.parametrize("path", shipped_files())
def test_shipped_files_keep_their_meaning_and_comments(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    once = format_text(text, path)
    assert format_text(once, path) == once, "formatting twice changes the text"
    assert parse(once, path) == parse(text, path), "formatting changed the AST"
    assert comments(once) == comments(text), "formatting lost or changed a comment"


@fuzz_settings(100)
@given(PROGRAMS)
def test_generated_programs_keep_their_meaning_and_comments(text):
    try:
        before = parse(text, "x.metro")
    except CompileError:
        return
    once = format_text(text)
    assert parse(once, "x.metro") == before
    assert format_text(once) == once
    assert comments(once) == comments(text)


# ---------------------------------------------------------------- layout decisions


def fmt(body: str) -> str:
    """The canonical layout of declarations inside a game."""
    return format_text('game "g" {\n' + body + "\n}\n")


def inner(body: str) -> str:
    """`fmt` without the game's first and last line, dedented by one level."""
    lines = fmt(body).splitlines()[1:-1]
    return "\n".join(line[2:] for line in lines)


def test_short_constructs_stay_on_one_line():
    assert inner("function f(x:int)->int=x*2") == "function f(x: int) -> int = x * 2"
    assert inner("procedure p(){if a{b()}else{c()}}") == (
        "procedure p() {\n  if a { b() } else { c() }\n}"
    )


def test_a_block_of_several_statements_or_a_compound_one_is_broken():
    assert inner("procedure p(){ for x in xs { a() b() } }") == (
        "procedure p() {\n  for x in xs {\n    a()\n    b()\n  }\n}"
    )
    assert inner("procedure p(){ for x in xs { if x { a() } } }") == (
        "procedure p() {\n  for x in xs {\n    if x { a() }\n  }\n}"
    )


def test_a_long_value_moves_to_the_next_line_before_breaking_inside():
    name = "a_rather_long_function_name"
    text = inner(
        f"function {name}(first: int, second: int) -> int = max(first, second) + first * second"
    )
    assert text == (
        f"function {name}(first: int, second: int) -> int =\n  max(first, second) + first * second"
    )


def test_a_long_call_breaks_inside_its_brackets_all_arguments_on_one_line_if_they_fit():
    args = ", ".join(f"argument_{i}" for i in range(8))
    text = inner(f"procedure p() {{ do_something_with_all_of_these({args}) }}")
    assert text.splitlines()[1:4] == [
        "  do_something_with_all_of_these(",
        f"    {args}",
        "  )",
    ]
    many = ", ".join(f"argument_number_{i}" for i in range(6))
    lines = inner(f"procedure p() {{ f({many}) }}").splitlines()
    assert lines[2:8] == [f"    argument_number_{i}," for i in range(5)] + ["    argument_number_5"]


def test_operator_chains_break_before_operators_and_nested_chains_go_deeper():
    terms = " and ".join(f"condition_{i} > {i}" for i in range(6))
    text = inner(f'invariant "i" {{ {terms} or fallback_value == 0 }}')
    assert text.splitlines() == [
        'invariant "i" {',
        "  condition_0 > 0",
        "      and condition_1 > 1",
        "      and condition_2 > 2",
        "      and condition_3 > 3",
        "      and condition_4 > 4",
        "      and condition_5 > 5",
        "    or fallback_value == 0",
        "}",
    ]


def test_a_broken_condition_is_indented_past_the_body():
    cond = " and ".join(f"some_condition_{i}" for i in range(6))
    lines = inner(f"procedure p() {{ if {cond} {{ go() }} }}").splitlines()
    assert lines[1] == "  if some_condition_0"
    assert lines[2] == "      and some_condition_1"
    assert lines[-3:] == ["    go()", "  }", "}"]


def test_action_parameters_break_before_the_when_clause():
    text = inner(
        "action take(first_choice: Color where first_choice != red, "
        "second_choice in market where second_choice != first_choice) when size(market) > 2 { go() }"
    )
    assert text.splitlines() == [
        "action take(",
        "  first_choice: Color where first_choice != red,",
        "  second_choice in market where second_choice != first_choice",
        ") when size(market) > 2 {",
        "  go()",
        "}",
    ]


def test_semicolons_optional_commas_and_empty_brackets_are_left_out():
    text = inner(
        "enum E { a, b, c, }\nactions g { x y }\nprocedure p() { a(); b() ; play seat(1): x() }"
    )
    assert text.splitlines() == [
        "enum E { a b c }",
        "actions g { x, y }",
        "procedure p() {",
        "  a()",
        "  b()",
        "  play seat(1): x",
        "}",
    ]


def test_one_empty_line_is_kept_where_there_were_several_and_none_after_an_opening_brace():
    text = fmt("\n\n  const A = 1\n\n\n\n  const B = 2\n  const C = 3\n\n")
    assert text == 'game "g" {\n  const A = 1\n\n  const B = 2\n  const C = 3\n}\n'


def test_a_label_moves_to_the_next_line_before_the_rest_breaks():
    assert inner(
        "procedure p() { choose optional destination in reachable_squares(p) where destination"
        ' != home by p label ("stay where you are" if destination is none else "walk to {destination}") }'
    ).splitlines() == [
        "procedure p() {",
        "  choose optional destination in reachable_squares(p) where destination != home by p",
        '    label ("stay where you are" if destination is none else "walk to {destination}")',
        "}",
    ]
    assert inner(
        'map schema { kind route(a: city, b: city, length: 1..6, color: Color, twin: route?) label "{a}–{b} ({length})" }'
    ).splitlines()[1:3] == [
        "  kind route(a: city, b: city, length: 1..6, color: Color, twin: route?)",
        '    label "{a}–{b} ({length})"',
    ]
    assert inner(
        'action take(c in market where c != gray)  # why\n label "take {c}" when size(market) > 0 { go() }'
    ).splitlines() == [
        "action take(c in market where c != gray)  # why",
        '  label "take {c}" when size(market) > 0 {',
        "  go()",
        "}",
    ]


def test_a_labelled_action_whose_parameters_break_has_its_label_after_the_bracket():
    params = ", ".join(f"choice_{i}: 1..{i + 2}" for i in range(6))
    assert inner(
        f'action pick({params}) label "pick {{choice_0}} and the rest of them, one by one, in order"'
        " when size(market) > 0 and size(market) < 10 { go() }"
    ).splitlines() == [
        "action pick(",
        f"  {params}",
        ') label "pick {choice_0} and the rest of them, one by one, in order"',
        "  when size(market) > 0 and size(market) < 10 {",
        "  go()",
        "}",
    ]


def test_a_drawing_starts_a_line_with_its_shape_and_fills_deeper_lines_with_properties():
    assert inner(
        'draw "cards" for c in Card where face_up[c] > 0: rect at (1790, 130 + 90 * index_of(Card, c))'
        ' size (110, 70) colour CARD_COLOURS[c] outline "#333" width 3 label face_up[c] title c'
    ).splitlines() == [
        'draw "cards" for c in Card where face_up[c] > 0:',
        "  rect at (1790, 130 + 90 * index_of(Card, c)) size (110, 70) colour CARD_COLOURS[c]",
        '    outline "#333" width 3 label face_up[c] title c',
    ]
    assert (
        inner('draw "x" : point at (1, 2)   colour "red"')
        == 'draw "x": point at (1, 2) colour "red"'
    )


def test_a_breakdown_is_one_entry_a_line_each_with_its_comma():
    assert inner(
        'breakdown(p){"Routes": p.routes, "Bonus": p.bonus # the bonus\n}'
    ).splitlines() == [
        "breakdown(p) {",
        '  "Routes": p.routes,',
        '  "Bonus": p.bonus,  # the bonus',
        "}",
    ]


# ---------------------------------------------------------------- comments


def test_after_a_trailing_comment_a_list_goes_on_at_its_own_indentation():
    assert inner("actions turn { a  # first\n b }") == "actions turn {\n  a,  # first\n  b\n}"
    assert inner('draw "x": point at (1, 2) # here\n colour "red" width 2') == (
        'draw "x":\n  point at (1, 2)  # here\n    colour "red" width 2'
    )


def test_trailing_comments_are_aligned_in_runs_of_one_indentation():
    text = inner("const A = 1 # one\nconst LONGER = 22 # two\n\nconst C = 3   # three")
    assert text.splitlines() == [
        "const A = 1        # one",
        "const LONGER = 22  # two",
        "",
        "const C = 3  # three",
    ]


def test_comments_inside_expressions_stay_beside_their_code():
    text = inner("const T = {1: 0,   # none\n  2: 300 # some\n}\nconst U = f(a, # first\n b)")
    assert text.splitlines() == [
        "const T = {",
        "  1: 0,   # none",
        "  2: 300  # some",
        "}",
        "const U = f(",
        "  a,  # first",
        "  b",
        ")",
    ]


def test_own_line_comments_keep_their_place_including_before_a_closing_brace_and_at_the_end():
    source = (
        '# head\n\ngame "g" {\n  # before a\n\n  const A = 1\n  procedure p() {\n    a()\n\n'
        "    # after the last statement\n  }\n  # last in the game\n}\n\n# after everything\n"
    )
    assert format_text(source) == (
        '# head\n\ngame "g" {\n  # before a\n\n  const A = 1\n  procedure p() {\n    a()\n\n'
        "    # after the last statement\n  }\n  # last in the game\n}\n\n# after everything\n"
    )


def test_a_comment_in_an_empty_block_and_after_an_opening_brace():
    assert inner("procedure p() { # nothing yet\n}") == "procedure p() {  # nothing yet\n}"
    assert inner("procedure p() {\n  # nothing yet\n}") == "procedure p() {\n  # nothing yet\n}"


def test_a_hash_inside_a_string_is_not_a_comment():
    assert inner('const S = "a # b"   # real') == 'const S = "a # b"  # real'


# ---------------------------------------------------------------- input it refuses or survives


def test_a_file_that_does_not_parse_gets_the_compilers_diagnostic():
    with pytest.raises(CompileError) as caught:
        format_text('game "g" {\n  const = 1\n}\n', "bad.metro")
    assert caught.value.diagnostics[0].code.code == "syntax"
    assert str(caught.value.diagnostics[0].span).startswith("bad.metro:2:")


def test_nesting_up_to_the_limit_formats_without_running_out_of_stack():
    depth = MAX_NESTING - 10
    text = "(" * depth + "1" + ")" * depth
    out = format_text(f'game "g" {{\n  const X = {text}\n}}\n')
    assert format_text(out) == out
    assert parse(out, "x.metro") == parse(f'game "g" {{ const X = {text} }}', "x.metro")


def test_windows_line_endings_and_tabs_become_canonical():
    assert format_text('game "g" {\r\n\tconst A = 1\t# one\r\n}\r\n') == (
        'game "g" {\n  const A = 1  # one\n}\n'
    )


# ---------------------------------------------------------------- the command


@pytest.fixture
def messy(tmp_path):
    """A folder with one file to format and one already formatted."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.metro").write_text('game "a" { players 1..2 }', encoding="utf-8")
    (tmp_path / "sub" / "b.metro").write_text('game "b" {\n  players 1..2\n}\n', encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not a rule file", encoding="utf-8")
    return tmp_path


def test_fmt_check_lists_what_would_change_and_changes_nothing(messy):
    result = CliRunner().invoke(main, ["fmt", "--check", str(messy)])
    assert result.exit_code == 1
    assert f"would reformat {messy / 'a.metro'}" in result.output
    assert "1 file would be reformatted, 1 unchanged" in result.output
    assert (messy / "a.metro").read_text(encoding="utf-8") == 'game "a" { players 1..2 }'


def test_fmt_rewrites_files_in_place_then_check_passes(messy):
    os.chmod(messy / "a.metro", 0o640)
    result = CliRunner().invoke(main, ["fmt", str(messy)])
    assert result.exit_code == 0, result.output
    assert (messy / "a.metro").read_text(encoding="utf-8") == 'game "a" {\n  players 1..2\n}\n'
    assert os.stat(messy / "a.metro").st_mode & 0o777 == 0o640
    assert sorted(p.name for p in messy.iterdir()) == ["a.metro", "notes.txt", "sub"]
    again = CliRunner().invoke(main, ["fmt", "--check", str(messy)])
    assert again.exit_code == 0 and "0 files would be reformatted, 2 unchanged" in again.output


def test_fmt_diff_prints_the_change(messy):
    result = CliRunner().invoke(main, ["fmt", "--diff", str(messy / "a.metro")])
    assert result.exit_code == 0
    assert '-game "a" { players 1..2 }' in result.output and "+  players 1..2" in result.output


def test_fmt_reads_standard_input():
    result = CliRunner().invoke(main, ["fmt", "-"], input='game "a" { players 1..2 }')
    assert result.exit_code == 0 and result.output == 'game "a" {\n  players 1..2\n}\n'


def test_fmt_reports_errors_with_their_place_and_goes_on(messy):
    (messy / "broken.metro").write_text('game "x" {\n  players 1..\n}\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["fmt", str(messy)])
    assert result.exit_code == 1
    assert "broken.metro:3:1: error[syntax]" in result.output
    assert "1 file reformatted, 1 unchanged, 1 with errors" in result.output
    assert "Traceback" not in result.output


def test_fmt_refuses_a_file_that_is_not_a_rule_file(messy):
    result = CliRunner().invoke(main, ["fmt", str(messy / "notes.txt")])
    assert result.exit_code == 1 and "must end in `.metro`" in result.output
