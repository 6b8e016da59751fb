"""Bad input: grammar-generated programs, garbage and mutated files, and size limits.

Every input either compiles to Python that `compile()` accepts or is refused with our
diagnostics (a CompileError whose positions are real `line:col`s) -- never an internal
exception, a RecursionError or a hang. Deterministic (derandomized); METRO_NIGHTLY=1 runs
ten times more examples and mutates every shipped file, not only the small ones.
"""

from __future__ import annotations

import ast
import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

from bench.bench_compile import large_game
from compiler import compile_game
from dsl.diagnostics import CompileError
from dsl.parser import MAX_FILE_BYTES, MAX_NESTING, MAX_NODES_PER_DECL, metro_parser, parse
from runtime.machine import load_module
from tests.timeouts import time_limit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NIGHTLY = os.environ.get("METRO_NIGHTLY") == "1"
SCALE = 10 if NIGHTLY else 1
EXAMPLE_SECONDS = 20  # one input taking longer than this counts as a hang


def fuzz_settings(examples: int) -> settings:
    """Deterministic settings for one fuzz test (the explain phase is skipped: it is slow)."""
    return settings(
        max_examples=examples * SCALE,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )


def check_diagnostics(error: CompileError, texts: dict[str, str]) -> None:
    """Every diagnostic is one of ours, at a real position of the file it names (or the whole
    file, line 0); rendering works."""
    assert error.diagnostics
    for diagnostic in error.diagnostics:
        if diagnostic.span.line == 0:  # about the whole file: rendered as `path: error[...]`
            assert diagnostic.span.col == 0 and diagnostic.span.file, diagnostic.render()
            assert diagnostic.render().startswith(f"{diagnostic.span.file}: "), diagnostic.render()
            continue
        text = texts.get(diagnostic.span.file)
        if text is None:
            text = (
                error.sources[diagnostic.span.file].text
                if diagnostic.span.file in error.sources
                else ""
            )
        lines = text.count("\n") + 1
        assert 1 <= diagnostic.span.line <= lines + 1, (diagnostic.render(), lines)
        assert diagnostic.span.col >= 1, diagnostic.render()
    assert error.render()


def compile_or_refuse(folder: str, texts: dict[str, str]) -> str:
    """Compile a game directory: "compiled" (the Python is valid and loads) or "refused" (our diagnostics)."""
    try:
        with time_limit(EXAMPLE_SECONDS):
            ctx = compile_game(folder)
    except CompileError as error:
        check_diagnostics(error, texts)
        return "refused"
    ast.parse(ctx.python)
    code = compile(ctx.python, "<fuzz>", "exec")
    assert code is not None
    load_module(ctx.python, f"<metro:{ctx.program.game_file}>", "metro_fuzz_case")
    return "compiled"


def parse_or_refuse(text: str, filename: str = "fuzz.metro") -> str:
    """Parse text: "parsed" or "refused" with well-placed diagnostics."""
    try:
        with time_limit(EXAMPLE_SECONDS):
            parse(text, filename)
    except CompileError as error:
        check_diagnostics(error, {filename: text})
        return "refused"
    return "parsed"


# ------------------------------------------------------------------ programs from the grammar

# Names that the skeleton declares (so some references resolve) and a few soft keywords.
NAMES = [
    "n",
    "deck",
    "points",
    "f",
    "red",
    "blue",
    "Color",
    "p",
    "x",
    "go",
    "seat",
    "size",
    "sum",
    "score",
    "kind",
    "state",
    "city",
    "route",
    "player_count",
]
SKELETON = """\
game "G" {
  players 1..3
  max decisions 50
  enum Color { red, blue }
  state { n: int public  deck: pile of Color hidden }
  per player { points: int public }
  function f(x: int) -> int = x + 1
  action go() { n += 1 }
%s
  flow {
%s
    loop { choose by seat(1) { go } }
  }
}
"""
SUPPORT_FILES = {  # what generated `use`/`default map` strings may name
    "m.metro": 'map "M" for "G" { }\n',
    "a": 'part "a" for "G" { }\n',
}


def _spaced(strategy):
    # Tokens are drawn with a trailing space (`ignore`d whitespace is drawn only now and then),
    # so that keywords and names never run together into one token.
    return strategy.map(lambda token: token + " ")


def _explicit(start: str) -> dict:
    terminals, _, _ = metro_parser().grammar.compile([start], ())
    printable = st.characters(codec="ascii", min_codepoint=32, max_codepoint=126)
    explicit = {}
    for terminal in terminals:
        if terminal.pattern.type == "str":
            explicit[terminal.name] = st.just(terminal.pattern.value + " ")
        else:
            explicit[terminal.name] = _spaced(
                st.from_regex(terminal.pattern.to_regexp(), fullmatch=True, alphabet=printable)
            )
    special = {
        "NAME": _spaced(st.sampled_from(NAMES)),
        "INT": _spaced(
            st.sampled_from(["0", "1", "2", "3", "10", "123456789012345678901234567890"])
        ),
        "STRING": _spaced(st.sampled_from(['"a"', '"m.metro"', '"x y"', '"\\n"', '""', '"G"'])),
        "COMMENT": st.just("# c\n"),
        "WS": st.just(" "),
    }
    explicit.update({name: strategy for name, strategy in special.items() if name in explicit})
    return explicit


def grammar(start: str):
    """Strings of the `start` rule of grammar/metro.lark."""
    return from_lark(metro_parser(), start=start, explicit=_explicit(start))


WHOLE_FILES = grammar("start")
DECLS = grammar("plain_decl")
STMTS = grammar("stmt")


@st.composite
def skeleton_programs(draw):
    """A small valid game with generated declarations and flow statements spliced in."""
    decls = draw(st.lists(DECLS, max_size=4))
    stmts = draw(st.lists(STMTS, max_size=4))
    return SKELETON % ("\n".join("  " + d for d in decls), "\n".join("    " + s for s in stmts))


PROGRAMS = st.one_of(WHOLE_FILES, skeleton_programs(), skeleton_programs())


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    for name, text in SUPPORT_FILES.items():
        (folder / name).write_text(text)
    return folder


def _compile_text(folder, text: str) -> str:
    path = folder / "rules.metro"
    path.write_text(text, encoding="utf-8")
    return compile_or_refuse(str(folder), {str(path): text})


def test_programs_from_the_grammar_parse_then_compile_or_are_refused(workdir):
    outcomes = {"compiled": 0, "refused": 0, "known bug": 0}

    @fuzz_settings(500)
    @given(PROGRAMS)
    def check(text):
        if parse_or_refuse(text) == "refused":
            # The grammar's INT has any length; the language refuses literals past 2**63 - 1.
            with pytest.raises(CompileError) as info:
                parse(text, "fuzz.metro")
            assert {d.code.code for d in info.value.diagnostics} == {"int-range"}, (
                info.value.render()
            )
            return
        outcomes[_compile_text(workdir, text)] += 1

    check()
    assert outcomes["compiled"] > 0 and outcomes["refused"] > 0, outcomes


# Found by the grammar fuzz: any statement in a function with a block body crashes the checker
# (now compiler/check/control.py: `ast.Draw | ... | CHOOSE_NODES` mixed a union with a tuple).
FUNCTION_BLOCK = """\
game "G" {
  players 1..1
  function f() -> int { return 1 }
  action go() { end game }
  flow { choose by seat(1) { go } }
}
"""


def test_a_function_with_a_block_body(tmp_path):
    (tmp_path / "rules.metro").write_text(FUNCTION_BLOCK)
    compile(
        compile_game(str(tmp_path)).python, "<generated>", "exec"
    )  # a valid program: it must compile


# Found by mutating games/tokyo_jutaku/rules.metro: a list of map elements plus a list of players
# type-checks, then code generation stops at the element field with an internal AssertionError.
MIXED_LIST = """\
game "G" {
  players 1..2
  map schema { kind spot(row: int) }
  default map "m.metro"
  function f() -> int = sum(t.row for t in spot + [seat(1)])
  action go() { end game }
  flow { choose by seat(1) { go } }
}
"""


def test_adding_lists_of_different_kinds(tmp_path):
    (tmp_path / "rules.metro").write_text(MIXED_LIST)
    (tmp_path / "m.metro").write_text('map "M" for "G" { spot a(row: 1) }\n')
    compile_or_refuse(str(tmp_path), {})


# ------------------------------------------------------------------ garbage and mutations


def _shipped(max_bytes: int | None) -> list[tuple[str, bytes]]:
    found = []
    for folder, _, names in os.walk(os.path.join(ROOT, "games")):
        for name in sorted(names):
            if name.endswith(".metro"):
                path = os.path.join(folder, name)
                if max_bytes is None or os.path.getsize(path) <= max_bytes:
                    with open(path, "rb") as handle:
                        found.append((os.path.relpath(path, ROOT), handle.read()))
    return sorted(found)


# Per-PR runs mutate the small files (parsing a 50 kB file costs ~0.5 s); nightly runs all of them.
SHIPPED = _shipped(None if NIGHTLY else 12_000)
SAMPLE_GAME = SKELETON % (
    '  const LIMIT = 3\n  invariant "n is small" { n >= 0 }\n'
    '  scenario "go" players 1 seed 1 { play seat(1): go  expect n == 1 }',
    "    draw 0 from deck to deck\n    if n > LIMIT { end game }",
)


@st.composite
def mutated(draw, sources: list[tuple[str, bytes]]):
    """A source with up to five bytes runs spliced in, deleted or duplicated."""
    name, data = draw(st.sampled_from(sources))
    for _ in range(draw(st.integers(1, 5))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["splice", "delete", "duplicate"]))
        if kind == "splice":
            data = data[:at] + draw(st.binary(min_size=1, max_size=5)) + data[at:]
        elif kind == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 20)) :]
        else:
            start = draw(st.integers(0, len(data)))
            data = data[:at] + data[start : start + draw(st.integers(1, 40))] + data[at:]
    return name, data


def _read_and_parse(folder, name: str, data: bytes) -> str:
    from dsl.parser import read_source

    path = folder / os.path.basename(name)
    path.write_bytes(data)
    try:
        text = read_source(str(path))
    except CompileError as error:  # not UTF-8: the position must still be real
        check_diagnostics(error, {str(path): data.decode("utf-8", "replace")})
        return "refused"
    return parse_or_refuse(text, str(path))


@fuzz_settings(250)
@given(st.text())
def test_garbage_text_gets_only_our_diagnostics(text):
    parse_or_refuse(text)


def test_garbage_bytes_get_only_our_diagnostics(workdir):
    @fuzz_settings(150)
    @given(st.binary())
    def check(data):
        _read_and_parse(workdir, "garbage.metro", data)

    check()


def test_mutated_shipped_files_get_only_our_diagnostics(workdir):
    assert len(SHIPPED) >= 5

    @fuzz_settings(350)
    @given(mutated(SHIPPED))
    def check(case):
        _read_and_parse(workdir, *case)

    check()


def test_mutated_games_compile_or_get_only_our_diagnostics(workdir):
    assert _compile_text(workdir, SAMPLE_GAME) == "compiled"

    @fuzz_settings(250)
    @given(mutated([("rules.metro", SAMPLE_GAME.encode())]))
    def check(case):
        data = case[1]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is None:
            assert _read_and_parse(workdir, "rules.metro", data) == "refused"
        else:
            _compile_text(workdir, text)

    check()


# ------------------------------------------------------------------ documented limits

GAME_HEAD = 'game "Limits" {\n  players 1..1\n  action go() { end game }\n  flow { choose by seat(1) { go } }\n'


def _limit_codes(folder, body: str) -> list[str]:
    path = folder / "rules.metro"
    path.write_text(GAME_HEAD + body + "}\n")
    with pytest.raises(CompileError) as info:
        with time_limit(EXAMPLE_SECONDS):
            compile_game(str(folder))
    check_diagnostics(info.value, {str(path): path.read_text()})
    return [(d.code.code, d.message) for d in info.value.diagnostics]


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("unary minus", "  const X = " + "- " * (MAX_NESTING + 1) + "1\n"),
        ("lists", "  const X = " + "[" * (MAX_NESTING + 1) + "1" + "]" * (MAX_NESTING + 1) + "\n"),
        (
            "calls",
            "  function f(x: int) -> int = x\n  const X = "
            + "f(" * (MAX_NESTING + 1)
            + "1"
            + ")" * (MAX_NESTING + 1)
            + "\n",
        ),
        (
            "blocks",
            "  procedure p() {"
            + " if true {" * (MAX_NESTING + 1)
            + "}" * (MAX_NESTING + 1)
            + " }\n",
        ),
        ("a long sum", "  const X = " + " + ".join(["1"] * 10_000) + "\n"),
        ("10,000 nots", "  const X = " + "not " * 10_000 + "true\n"),
    ],
    ids=["unary-minus", "lists", "calls", "blocks", "long-sum", "nots"],
)
def test_nesting_beyond_the_limit_is_refused_clearly(tmp_path, kind, body):
    codes = _limit_codes(tmp_path, body)
    assert codes == [("too-deep", f"nesting is deeper than the limit of {MAX_NESTING} levels")], (
        kind
    )


def test_nesting_within_the_limit_compiles(tmp_path):
    (tmp_path / "rules.metro").write_text(
        GAME_HEAD
        + "  const X = "
        + "- " * 50
        + "1\n"
        + "  const Y = "
        + "(" * 1_000
        + "1"
        + ")" * 1_000
        + "\n}\n"
    )
    assert compile_or_refuse(str(tmp_path), {}) == "compiled"


def test_a_file_beyond_the_size_limit_is_refused(tmp_path):
    padding = "  # padding padding padding padding padding padding padding padding\n"
    (tmp_path / "rules.metro").write_text(
        GAME_HEAD + padding * (MAX_FILE_BYTES // len(padding) + 1) + "}\n"
    )
    with pytest.raises(CompileError) as info:
        compile_game(str(tmp_path))
    assert [(d.code.code, d.span.line) for d in info.value.diagnostics] == [("input", 0)]
    assert f"larger than the limit of {MAX_FILE_BYTES // 1024 // 1024} MiB" in info.value.render()


def test_an_expression_beyond_the_node_limit_is_refused():
    text = GAME_HEAD + "  const X = [" + ", ".join(["1"] * (MAX_NODES_PER_DECL + 1)) + "]\n}\n"
    assert parse_or_refuse(text) == "refused"


def test_one_megabyte_of_rules_parses_and_checks(tmp_path):
    """Size alone breaks nothing (no recursion, no limit hit); its speed is bench/bench_compile.py."""
    text = large_game(1024 * 1024)
    assert 1024 * 1024 <= len(text.encode()) < MAX_FILE_BYTES
    (tmp_path / "rules.metro").write_text(text)
    program = compile_game(str(tmp_path), stop_after="check").program
    assert len(program.functions) > 9_000
