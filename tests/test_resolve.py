"""The resolve pass alone: uses, parts, maps, expansions and variants merged into one Program.
(Path confinement is tested in test_paths.py.)"""

from __future__ import annotations

import os

import pytest

from compiler import compile_game
from dsl.diagnostics import CompileError

BASE = """game "G" {
  players 2..4
  enum Color { red green }
  const BONUS = 1
  state { total: int public }
  function gain(n: int) -> int = n + BONUS
  action a() { total = gain(1) }
  action b() { total = 2 }
  actions turn { a, b }
  flow { choose by seat(1) { turn } }
}
"""


def write(folder, files: dict[str, str]) -> str:
    """Write `files` (relative path -> text) under `folder`; returns the folder."""
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(folder)


def resolved(folder, files: dict[str, str], **options):
    """The Program the resolve stage builds (no later stage runs)."""
    ctx = compile_game(write(folder, files), stop_after="resolve", **options)
    assert ctx.checked is None and ctx.python is None
    return ctx.program


def refused(folder, files: dict[str, str], **options) -> list[tuple[str, str, int, int, str]]:
    """(code, file relative to the game or '' for none, line, column, message) of each finding."""
    with pytest.raises(CompileError) as info:
        compile_game(write(folder, files), stop_after="resolve", **options)
    return [
        (
            d.code.code,
            os.path.relpath(d.span.file, folder) if d.span.file else "",
            d.span.line,
            d.span.col,
            d.message,
        )
        for d in info.value.diagnostics
    ]


def test_resolve_stops_before_the_checker(tmp_path):
    broken = BASE.replace("total = 2", 'total = "not a number"')
    program = resolved(tmp_path, {"rules.metro": broken})
    assert program.game_name == "G" and set(program.actions) == {"a", "b"}
    with pytest.raises(CompileError, match=r"error\[type\]"):
        compile_game(str(tmp_path), stop_after="check")


def test_a_directory_finds_game_metro_when_there_is_no_rules_metro(tmp_path):
    program = resolved(tmp_path, {"game.metro": BASE})
    assert program.game_file == os.path.join(str(tmp_path), "game.metro")


def test_parts_are_merged_with_their_own_uses_relative_to_themselves(tmp_path):
    files = {
        "rules.metro": BASE.replace("  const BONUS", '  use "parts/cards.metro"\n  const BONUS'),
        "parts/cards.metro": 'part "Cards" for "G" {\n  use "more.metro"\n  const CARDS = 3\n'
        "  per player { hand: int public }\n  procedure deal() { total = CARDS }\n}\n",
        "parts/more.metro": 'part "More" for "G" {\n  function twice(n: int) -> int = 2 * n\n}\n',
    }
    program = resolved(tmp_path, files)
    assert {"BONUS", "CARDS"} <= set(program.consts)
    assert set(program.per_player) == {"hand"}
    assert set(program.procedures) == {"deal"} and {"gain", "twice"} == set(program.functions)
    assert os.path.relpath(program.functions["twice"].active.span.file, tmp_path) == (
        "parts/more.metro"
    )
    assert sorted(os.path.relpath(f, tmp_path) for f in program.sources) == [
        "parts/cards.metro",
        "parts/more.metro",
        "rules.metro",
    ]
    assert program.patches == []  # the base game's own parts are not patches


def test_a_part_for_another_game_is_refused_at_its_header(tmp_path):
    files = {
        "rules.metro": BASE.replace("  const BONUS", '  use "part.metro"\n  const BONUS'),
        "part.metro": 'part "P" for "H" {\n  const X = 1\n}\n',
    }
    assert refused(tmp_path, files) == [("resolve", "part.metro", 1, 1, "part 'P' is for 'H'")]


def test_a_used_file_that_is_not_a_part_is_refused_at_its_path(tmp_path):
    files = {
        "rules.metro": BASE.replace("  const BONUS", '  use "board.metro"\n  const BONUS'),
        "board.metro": 'map "B" for "G" {\n}\n',
    }
    [(code, where, line, col, message)] = refused(tmp_path, files)
    assert (code, where, line, col) == ("resolve", "rules.metro", 4, 7)
    assert "'board.metro' is not a part file" in message


def test_a_part_that_uses_itself_is_refused(tmp_path):
    files = {
        "rules.metro": BASE.replace("  const BONUS", '  use "loop.metro"\n  const BONUS'),
        "loop.metro": 'part "Loop" for "G" {\n  use "loop.metro"\n}\n',
    }
    assert refused(tmp_path, files) == [
        ("resolve", "loop.metro", 2, 7, "'loop.metro' is used twice (or uses itself)")
    ]


def test_a_declaration_in_a_part_that_repeats_the_game_is_a_duplicate(tmp_path):
    files = {
        "rules.metro": BASE.replace("  const BONUS", '  use "part.metro"\n  const BONUS'),
        "part.metro": 'part "P" for "G" {\n  action a() { }\n}\n',
    }
    # The part is merged at its `use`, before the game's own `action a`: the game's is the repeat.
    assert refused(tmp_path, files) == [
        ("duplicate", "rules.metro", 8, 3, "action 'a' is already declared")
    ]


def test_a_variant_replaces_extends_and_removes_by_name(tmp_path):
    variant = (
        'variant "Rich" for "G" {\n'
        "  override const BONUS = 5\n"
        "  override function gain(n: int) -> int = super(n) * 2\n"
        "  extend enum Color { blue }\n"
        "  action c() { total = 3 }\n"
        "  extend actions turn { c }\n"
        "  remove action b\n"
        "  override players 2..2\n"
        "}\n"
    )
    program = resolved(
        tmp_path, {"rules.metro": BASE, "variants/rich.metro": variant}, variants=["rich"]
    )
    assert program.applied == ["Rich"]
    assert program.enum_values("Color") == ["red", "green", "blue"]
    assert program.groups["turn"] == ["a", "b", "c"]  # the group keeps its name; b is gone below
    assert set(program.actions) == {"a", "c"}
    assert (program.players.lo, program.players.hi) == (2, 2)
    assert [(r.verb, r.what, r.name, r.line) for r in program.patches] == [
        ("replaces", "const", "BONUS", 2),
        ("replaces", "function", "gain", 3),
        ("extends", "enum", "Color", 4),
        ("adds", "action", "c", 5),
        ("extends", "action group", "turn", 6),
        ("removes", "action", "b", 7),
        ("replaces", "player count", "2..2", 8),
    ]
    assert {r.source for r in program.patches} == {
        os.path.join(str(tmp_path), "variants/rich.metro")
    }


def test_each_override_keeps_the_versions_it_replaced_for_super(tmp_path):
    def override(name: str, factor: int) -> str:
        return (
            f'variant "{name}" for "G" {{\n'
            f"  override function gain(n: int) -> int = super(n) * {factor}\n}}\n"
        )

    files = {
        "rules.metro": BASE,
        "variants/double.metro": override("Double", 2),
        "variants/triple.metro": override("Triple", 3),
    }
    program = resolved(tmp_path, files, variants=["double", "triple"])
    versions = program.functions["gain"].versions
    assert [os.path.relpath(v.span.file, tmp_path) for v in versions] == [
        "rules.metro",
        "variants/double.metro",
        "variants/triple.metro",
    ]
    assert program.functions["gain"].active is versions[-1]
    assert program.applied == ["Double", "Triple"]
    assert len(program.consts["BONUS"].versions) == 1  # untouched declarations keep one version


def test_an_expansion_is_found_by_name_in_each_layout(tmp_path):
    def expansion(title: str, const: str) -> str:
        return f'expansion "{title}" for "G" {{\n  const {const} = 1\n}}\n'

    files = {
        "rules.metro": BASE,
        "expansions/harbor.metro": expansion("Harbor", "HARBOR"),
        "mountains/expansion.metro": expansion("Mountains", "MOUNTAINS"),
        "rivers/rivers.metro": expansion("Rivers", "RIVERS"),
    }
    program = resolved(tmp_path, files, expansions=["harbor", "mountains", "rivers"])
    assert program.applied == ["Harbor", "Mountains", "Rivers"]
    assert {"HARBOR", "MOUNTAINS", "RIVERS"} <= set(program.consts)


def test_a_missing_expansion_is_named_with_the_known_ones(tmp_path):
    files = {
        "rules.metro": BASE,
        "harbor/expansion.metro": 'expansion "Harbor" for "G" {\n}\n',
    }
    [(code, where, line, col, message)] = refused(tmp_path, files, expansions=["harbour"])
    assert (code, where, line, col) == ("resolve", "", 0, 0)  # the --with argument, no file
    assert message == "no expansion named 'harbour' for this game (known: harbor)"


def test_a_missing_variant_is_named_even_when_the_game_has_none(tmp_path):
    [(code, _, _, _, message)] = refused(tmp_path, {"rules.metro": BASE}, variants=["fast"])
    assert code == "resolve" and message == "no variant named 'fast' for this game"


def test_a_variant_for_another_game_is_refused_at_its_header(tmp_path):
    files = {"rules.metro": BASE, "variants/v.metro": 'variant "V" for "H" {\n}\n'}
    assert refused(tmp_path, files, variants=["v"]) == [
        ("resolve", "variants/v.metro", 1, 1, "variant 'V' is for 'H', not 'G'")
    ]


def test_a_game_file_given_as_a_variant_is_refused(tmp_path):
    files = {"rules.metro": BASE, "variants/v.metro": BASE}
    [(code, where, line, col, message)] = refused(tmp_path, files, variants=["v"])
    assert (code, where, line, col) == ("resolve", "variants/v.metro", 1, 1)
    assert "is not a variant or expansion file" in message


def test_a_patch_adding_an_existing_name_is_told_to_override(tmp_path):
    files = {
        "rules.metro": BASE,
        "variants/v.metro": 'variant "V" for "G" {\n  const BONUS = 2\n}\n',
    }
    assert refused(tmp_path, files, variants=["v"]) == [
        (
            "duplicate",
            "variants/v.metro",
            2,
            3,
            "const 'BONUS' is already declared (use `override` to replace it)",
        )
    ]


def test_requires_is_met_whatever_the_order_the_patches_are_given(tmp_path):
    files = {
        "rules.metro": BASE,
        "variants/long.metro": 'variant "Long" for "G" {\n  requires "Big"\n}\n',
        "variants/big.metro": 'variant "Big" for "G" {\n}\n',
    }
    program = resolved(tmp_path, files, variants=["long", "big"])
    assert program.applied == ["Long", "Big"]


def test_excludes_refuses_the_pair_at_the_excludes_line(tmp_path):
    files = {
        "rules.metro": BASE,
        "variants/short.metro": 'variant "Short" for "G" {\n  const S = 1\n  excludes "Long"\n}\n',
        "variants/long.metro": 'variant "Long" for "G" {\n}\n',
    }
    assert refused(tmp_path, files, variants=["long", "short"]) == [
        ("patch", "variants/short.metro", 3, 3, "variant 'Short' cannot be combined with 'Long'")
    ]
    assert resolved(tmp_path, {}, variants=["short"]).applied == ["Short"]


def test_removing_or_extending_what_does_not_exist_names_it(tmp_path):
    variant = (
        'variant "V" for "G" {\n'
        "  remove function nothing\n"
        "  extend actions moves { a }\n"
        "  override flow { }\n"
        "}\n"
    )
    found = refused(tmp_path, {"rules.metro": BASE, "variants/v.metro": variant}, variants=["v"])
    assert found == [
        ("patch", "variants/v.metro", 2, 3, "`remove` names no existing function 'nothing'"),
        ("patch", "variants/v.metro", 3, 3, "there is no action group 'moves' to extend"),
    ]


def test_the_default_map_is_read_and_a_given_map_replaces_it(tmp_path):
    files = {
        "rules.metro": BASE.replace("  const BONUS", '  default map "maps/a.metro"\n  const BONUS'),
        "maps/a.metro": 'map "A" for "G" {\n}\n',
        "maps/b.metro": 'map "B" for "G" {\n}\n',
    }
    program = resolved(tmp_path, files)
    assert [m.name for m in program.map_files] == ["A"]
    chosen = resolved(tmp_path, {}, map=str(tmp_path / "maps" / "b.metro"))
    assert [m.name for m in chosen.map_files] == ["B"]
    assert chosen.map_paths == [str(tmp_path / "maps" / "b.metro")]


def test_a_given_map_replaces_the_default_files_of_its_kinds_only(tmp_path):
    files = {
        "rules.metro": BASE.replace(
            "  const BONUS", '  default map "board.metro", "cards.metro"\n  const BONUS'
        ),
        "board.metro": 'map "Board" for "G" {\n  city a(x: 1)\n}\n',
        "cards.metro": 'map "Cards" for "G" {\n  card c1(x: 1)\n}\n',
        "other.metro": 'map "Other" for "G" {\n  city b(x: 2)\n}\n',
    }
    resolved(tmp_path, files)
    chosen = resolved(tmp_path, {}, map=str(tmp_path / "other.metro"))
    assert [m.name for m in chosen.map_files] == ["Other", "Cards"]


def test_a_missing_default_map_is_named_at_its_string(tmp_path):
    files = {
        "rules.metro": BASE.replace("  const BONUS", '  default map "gone.metro"\n  const BONUS')
    }
    assert refused(tmp_path, files) == [
        ("resolve", "rules.metro", 4, 15, "cannot find map file 'gone.metro'")
    ]


def test_a_variant_replaces_the_default_map(tmp_path):
    files = {
        "rules.metro": BASE.replace("  const BONUS", '  default map "a.metro"\n  const BONUS'),
        "a.metro": 'map "A" for "G" {\n}\n',
        "b.metro": 'map "B" for "G" {\n}\n',
        "variants/v.metro": 'variant "V" for "G" {\n  override default map "../b.metro"\n}\n',
    }
    program = resolved(tmp_path, files, variants=["v"])
    assert [m.name for m in program.map_files] == ["B"]
    assert program.patches[0].verb == "replaces" and program.patches[0].name == "../b.metro"


def test_a_map_file_given_as_the_game_is_refused(tmp_path):
    files = {"rules.metro": 'map "A" for "G" {\n}\n'}
    [(code, where, line, col, message)] = refused(tmp_path, files)
    assert (code, where, line, col) == ("resolve", "rules.metro", 1, 1)
    assert "is not a game file" in message


def test_a_name_declared_twice_says_where_it_was_first_declared(tmp_path):
    twice = BASE.replace("  const BONUS = 1\n", "  const BONUS = 1\n  const BONUS = 2\n")
    with pytest.raises(CompileError) as info:
        compile_game(write(tmp_path, {"rules.metro": twice}), stop_after="resolve")
    (found,) = info.value.diagnostics
    first = f"first declared at {tmp_path / 'rules.metro'}:4:3"
    assert found.message == "const 'BONUS' is already declared" and found.span.line == 5
    assert found.all_notes == (first,) and found.to_dict()["notes"] == [first]
    assert found.render().endswith(f"note: {first}")
