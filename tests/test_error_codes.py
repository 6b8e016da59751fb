"""Every registered error code has a targeted test: a minimal game that gets exactly that code,
at the line and column a user would look at, with a message that says what is wrong."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from compiler import compile_game
from dsl.diagnostics import REGISTRY, CompileError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def game(body: str = "", flow: str = "end game") -> str:
    """A two-player game: line 1 `game`, 2 `players`, 3 `state`, 4.. `body`, then the flow."""
    return (
        f'game "G" {{\n  players 2..2\n  state {{ total: int public }}\n'
        f"{body}  flow {{ {flow} }}\n}}\n"
    )


def mapped(schema: str, board: str) -> dict[str, str]:
    """A game whose schema (lines 6.. of rules.metro) is `schema`, with board.metro holding `board`."""
    rules = game(f'  default map "board.metro"\n  map schema {{\n{schema}  }}\n')
    return {"rules.metro": rules, "board.metro": f'map "B" for "G" {{\n{board}}}\n'}


@dataclass(frozen=True)
class Case:
    """A game that must be refused with one diagnostic of `code` at file:line:col."""

    name: str
    code: str
    files: dict[str, str | bytes]
    line: int
    col: int
    fragment: str
    file: str = "rules.metro"  # relative to the game directory ("" for a command-line argument)
    variants: tuple[str, ...] = ()
    expansions: tuple[str, ...] = ()
    note: str = ""


CASES = [
    # ------------------------------------------------------------- reading and parsing
    Case(
        "syntax-unexpected-token",
        "syntax",
        {"rules.metro": game("  const X = = 1\n")},
        4,
        13,
        "unexpected '='; expected an expression",
    ),
    Case(
        "syntax-unclosed-brace",
        "syntax",
        {"rules.metro": 'game "G" {\n  players 2..2\n  flow {\n'},
        4,
        1,
        "the file ends before a '{' is closed",
        note="the unclosed '{' is at",
    ),
    Case(
        "input-not-utf8",
        "input",
        {"rules.metro": game('  const X = "\xff"\n').encode("latin-1")},
        4,
        14,
        "not valid UTF-8",
    ),
    Case(
        "input-control-character",
        "input",
        {"rules.metro": game("  const X = 1\x00\n")},
        4,
        14,
        "control character, U+0000",
    ),
    Case(
        "too-deep-expression",
        "too-deep",
        {"rules.metro": game("  const X = " + "not " * 300 + "true\n")},
        4,
        13 + 4 * 100,  # the 101st `not`: the first whose subtree is more than 200 levels high
        "nesting is deeper than the limit of 200 levels",
    ),
    Case(
        "too-deep-loops",
        "too-deep",
        {"rules.metro": game(flow="repeat 2 times { " * 17 + "total += 1" + " }" * 17)},
        4,
        10 + 17 * 16,  # the 17th `repeat`
        "loops are nested deeper than the limit of 16",
    ),
    Case(
        "int-range-literal",
        "int-range",
        {"rules.metro": game("  const X = 99999999999999999999\n")},
        4,
        13,
        "larger than the limit of 9223372036854775807",
    ),
    Case(
        "int-range-computed-const",
        "int-range",
        {"rules.metro": game("  const X = 9223372036854775807 + 1\n", "total = X")},
        4,
        13,
        "the value 9223372036854775808 is outside the integer range",
    ),
    # ------------------------------------------------------------- resolve
    Case(
        "duplicate-const",
        "duplicate",
        {"rules.metro": game("  const X = 1\n  const X = 2\n")},
        5,
        3,
        "const 'X' is already declared",
    ),
    Case(
        "duplicate-let-hides-state",
        "duplicate",
        {"rules.metro": game(flow="let total = 1")},
        4,
        10,
        "'total' hides a declaration of the same name",
    ),
    Case(
        "structure-requires-in-game",
        "structure",
        {"rules.metro": game('  requires "Other"\n')},
        4,
        3,
        "`requires`/`excludes` belong in a variant or expansion",
    ),
    Case(
        "structure-no-flow",
        "structure",
        {"rules.metro": 'game "G" {\n  players 2..2\n}\n'},
        0,  # a missing declaration has no line: the finding is about the whole file
        0,
        "the game has no `flow`",
    ),
    Case(
        "patch-override-names-nothing",
        "patch",
        {
            "rules.metro": game("  const BONUS = 1\n"),
            "variants/v.metro": 'variant "V" for "G" {\n  override const BONSU = 2\n}\n',
        },
        2,
        3,
        "`override` names no existing const 'BONSU'",
        file="variants/v.metro",
        variants=("v",),
    ),
    Case(
        "patch-requires-missing",
        "patch",
        {
            "rules.metro": game(),
            "variants/v.metro": 'variant "V" for "G" {\n  requires "W"\n}\n',
        },
        2,
        3,
        "variant 'V' needs 'W'",
        file="variants/v.metro",
        variants=("v",),
    ),
    Case(
        "patch-extend-unknown-enum",
        "patch",
        {
            "rules.metro": game(),
            "exp/expansion.metro": 'expansion "E" for "G" {\n  extend enum Color { blue }\n}\n',
        },
        2,
        3,
        "there is no enum 'Color' to extend",
        file="exp/expansion.metro",
        expansions=("exp",),
    ),
    Case(
        "resolve-missing-use",
        "resolve",
        {"rules.metro": game('  use "gone.metro"\n')},
        4,
        7,
        "cannot find used file 'gone.metro'",
    ),
    Case(
        "resolve-unknown-variant",
        "resolve",
        {"rules.metro": game(), "variants/fast.metro": 'variant "Fast" for "G" {\n}\n'},
        0,  # the --variant argument is wrong, not a line of a file
        0,
        "no variant named 'slow' for this game (known: fast)",
        file="",
        variants=("slow",),
        note="the game's directory is",
    ),
    Case(
        "resolve-map-for-another-game",
        "resolve",
        {
            "rules.metro": game('  default map "board.metro"\n'),
            "board.metro": 'map "B" for "H" {\n}\n',
        },
        1,
        1,
        "map 'B' is for 'H', not 'G'",
        file="board.metro",
    ),
    Case(
        "path-absolute-use",
        "path",
        {"rules.metro": game('  use "/etc/passwd.metro"\n')},
        4,
        7,
        "'/etc/passwd.metro' is an absolute path",
    ),
    # ------------------------------------------------------------- check
    Case(
        "undefined-name",
        "undefined-name",
        {"rules.metro": game(flow="total = missing")},
        4,
        18,
        "unknown name 'missing'",
    ),
    Case(
        "undefined-action-in-choose",
        "undefined-name",
        {"rules.metro": game("  action go() { end game }\n", "choose by seat(1) { go, nowhere }")},
        5,
        34,
        "unknown action or action group 'nowhere'",
    ),
    Case(
        "undefined-action-in-group",
        "undefined-name",
        {
            "rules.metro": game(
                "  action go() { end game }\n  actions turn { go, nowhere }\n",
                "choose by seat(1) { turn }",
            )
        },
        5,
        3,
        "action group 'turn' offers unknown action 'nowhere'",
    ),
    Case(
        "undefined-type",
        "undefined-name",
        {"rules.metro": game("  per player { hand: Nope public }\n")},
        4,
        22,
        "unknown type 'Nope'",
    ),
    Case(
        "undefined-action-in-bot",
        "undefined-name",
        {
            "rules.metro": game(
                '  action go() { end game }\n  bot "b" { nowhere: 1 }\n', "choose by seat(1) { go }"
            )
        },
        5,
        13,
        "bot 'b' scores unknown action or choice 'nowhere'",
    ),
    Case(
        "bad-name-state-field",
        "bad-name",
        {"rules.metro": game("  per player { super: int public }\n")},
        4,
        16,
        "'super' cannot be used as a name",
    ),
    Case(
        "bad-name-let",
        "bad-name",
        {"rules.metro": game(flow="let super = 1")},
        4,
        10,
        "'super' cannot be used as a name",
    ),
    Case(
        "type-assignment",
        "type",
        {"rules.metro": game(flow='total = "text"')},
        4,
        18,
        "the value has type text, but int is expected",
    ),
    Case(
        "type-variant-retypes-const",
        "type",
        {
            "rules.metro": game("  const BONUS = 1\n", "total = BONUS"),
            "variants/v.metro": 'variant "V" for "G" {\n  override const BONUS = true\n}\n',
        },
        2,
        12,
        "override of const 'BONUS' has type bool, but the base declares int",
        file="variants/v.metro",
        variants=("v",),
    ),
    Case(
        "arguments-user-function",
        "arguments",
        {"rules.metro": game("  function f(a: int) -> int = a\n", "total = f(1, 2)")},
        5,
        18,
        "expected 1 argument(s), got 2",
    ),
    Case(
        "arguments-builtin",
        "arguments",
        {"rules.metro": game(flow="total = size([1], [2])")},
        4,
        18,
        "size() takes 1 argument, not 2",
    ),
    Case(
        "not-finite-parameter",
        "not-finite",
        {"rules.metro": game("  action go(k: int) { total = k }\n", "choose by seat(1) { go }")},
        4,
        14,
        "cannot choose among all values of int",
    ),
    Case(
        "assign-const",
        "assign",
        {"rules.metro": game("  const X = 1\n", "X = 2")},
        5,
        10,
        "cannot assign to const 'X'",
    ),
    Case(
        "assign-parameter",
        "assign",
        {"rules.metro": game("  action go(k: 1..2) { k = 3 }\n", "choose by seat(1) { go }")},
        4,
        24,
        "'k' is a parameter or choice and cannot be assigned",
    ),
    Case(
        "purity-function-assigns",
        "purity",
        {
            "rules.metro": game(
                "  function f() -> int {\n    total = 2\n    return 1\n  }\n", "total = f()"
            )
        },
        5,
        5,
        "a function or guard may not change the game state",
    ),
    Case(
        "purity-function-calls-procedure",
        "purity",
        {
            "rules.metro": game(
                "  procedure p() { total = 1 }\n"
                "  function f() -> int {\n    p()\n    return 1\n  }\n",
                "total = f()",
            )
        },
        6,
        5,
        "a function or guard may not call procedure 'p'",
    ),
    Case(
        "visibility-hidden-field-in-guard",
        "visibility",
        {
            "rules.metro": 'game "G" {\n  players 2..2\n  state { deck: list of int hidden }\n'
            "  action peek(c: 1..3 where c in deck) { }\n"
            "  flow { choose by seat(1) { peek } }\n}\n"
        },
        4,
        34,
        "would reveal the hidden field 'deck'",
    ),
    Case(
        "label-reads-state",
        "label",
        {
            "rules.metro": game(
                '  action add(n: 1..3) label "add {n} to {total}" { total += n }\n',
                "choose by seat(1) { add }",
            )
        },
        4,
        42,
        "an action's label cannot read the state field 'total'",
    ),
    Case(
        "scenario-player-count",
        "scenario",
        {"rules.metro": game('  scenario "s" players 5 { }\n')},
        4,
        3,
        "scenario uses 5 players; the game allows 2..2",
    ),
    Case(
        "scenario-step-outside-scenario",
        "scenario",
        {"rules.metro": game(flow="expect true")},
        4,
        10,
        "`play`, `refuse`, `expect` and `chance` belong in scenarios",
    ),
    # ------------------------------------------------------------- maps
    Case(
        "map-data-out-of-range",
        "map-data",
        mapped("    kind city(size: 1..3)\n", "  city A(7)\n"),
        2,
        10,
        "'size' must be in 1..3, not 7",
        file="board.metro",
    ),
    Case(
        "map-data-unknown-element",
        "map-data",
        mapped(
            "    kind city\n    kind road(a: city, b: city)\n", "  city A\n  road R(A, Nowhere)\n"
        ),
        3,
        13,
        "no city 'Nowhere' in the map",
        file="board.metro",
    ),
    Case(
        "map-check-whole-map",
        "map-check",
        mapped('    kind city\n    check "two cities": size(city) == 2\n', "  city A\n"),
        7,  # the check itself: a condition over the whole map blames no one element
        5,
        "map check failed: two cities",
        note="the map is in",
    ),
    Case(
        "map-check-connectivity",
        "map-check",
        mapped(
            "    kind city\n    kind road(a: city, b: city)\n"
            '    check "one network": graph_connected([(r.a, r.b) for r in road], city)\n',
            "  city A\n  city B\n  city C\n  city D\n  road R(A, B)\n",
        ),
        4,  # the first city that the roads leave cut off; the others follow in notes
        3,
        "map check failed: one network",
        file="board.metro",
        note="also cut off: city 'D' at",
    ),
    Case(
        "map-check-each-element",
        "map-check",
        mapped(
            '    kind city(size: 1..3)\n    check "small" for c in city: c.size < 3\n',
            "  city A(1)\n  city B(3)\n",
        ),
        3,
        3,
        "city 'B': small",
        file="board.metro",
        note="check declared at",
    ),
    # ------------------------------------------------------------- emit (constants, domains)
    Case(
        "too-large-action-domain",
        "too-large",
        {
            "rules.metro": game(
                "  action go(k: 0..1000000000) { total = k }\n", "choose by seat(1) { go }"
            )
        },
        4,
        13,
        "this domain has 1,000,000,001 values, more than the limit of 100,000",
    ),
    Case(
        "too-large-const-budget",
        "too-large",
        {"rules.metro": game("  const S = sum(i for i in 0..1000000000000)\n", "total = S")},
        4,
        28,
        "the constant evaluation budget",
    ),
]


def _write(folder, files: dict[str, str | bytes]) -> None:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_code_is_reported_where_the_user_looks(tmp_path, case):
    folder = tmp_path / "game"
    _write(folder, case.files)
    with pytest.raises(CompileError) as info:
        compile_game(str(folder), expansions=case.expansions, variants=case.variants)
    error = info.value
    assert [d.code.code for d in error.diagnostics] == [case.code], error.render()
    found = error.diagnostics[0]
    assert (os.path.relpath(found.span.file, folder) if found.span.file else "") == case.file
    assert (found.span.line, found.span.col) == (case.line, case.col), error.render()
    assert case.fragment in found.message
    if case.note:
        assert any(case.note in note for note in found.notes), found.notes
    rendered = error.render()
    if case.line:
        assert f":{case.line}:{case.col}: error[{case.code}]: " in rendered.splitlines()[0]
    elif case.file:  # a whole file: its name, no made-up line and column
        assert rendered.startswith(f"{found.span.file}: error[{case.code}]: {found.message}")
    else:  # no place in a file: no made-up line and column either
        assert rendered.startswith(f"error[{case.code}]: {found.message}"), rendered
    assert "Traceback" not in rendered


def test_every_registered_code_has_a_case():
    # A new code without a case fails here; so does a case for a code no longer registered.
    assert {case.code for case in CASES} == set(REGISTRY)
