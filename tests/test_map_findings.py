"""A map's findings all at once: its data errors, and every check that does not read the broken data."""

from __future__ import annotations

import pytest

from compiler import compile_game
from dsl.diagnostics import CompileError
from metro.render.pictures import open_pictures

RULES = """game "G" {
  players 2..2
  state { total: int public }
  default map "board.metro"
  map schema {
    kind city(size: 1..3)
    kind road(a: city, b: city)
    check "small" for c in city: c.size < 3
    check "a road joins two cities" for r in road: r.a != r.b
    check "every city is on a road": all(any(r.a == c or r.b == c for r in road) for c in city)
    draw "cities" for c in city: point at (c.size * 10, 10) size 5 colour "#000"
  }
  flow { end game }
}
"""
BOARD = """map "B" for "G" {
  city A(1)
  city B(3)
  city C(7)
  road R(A, A)
  road S(A, Nowhere)
  road T(A, B)
  road T(B, C)
}
"""


def findings(tmp_path) -> list[tuple[int, str, tuple[str, ...]]]:
    write(tmp_path)
    with pytest.raises(CompileError) as caught:
        compile_game(str(tmp_path / "rules.metro"))
    return [(d.span.line, d.message, d.all_notes) for d in caught.value.diagnostics]


def write(tmp_path) -> None:
    (tmp_path / "rules.metro").write_text(RULES, encoding="utf-8")
    (tmp_path / "board.metro").write_text(BOARD, encoding="utf-8")


def test_the_checks_run_past_data_errors_on_the_elements_whose_data_is_sound(tmp_path):
    found = findings(tmp_path)
    messages = [(line, message) for line, message, _ in found]
    assert messages == [
        (3, "city 'B': small"),
        (4, "'size' must be in 1..3, not 7"),
        (5, "road 'R': a road joins two cities"),
        (6, "no city 'Nowhere' in the map"),
        (8, "road 'T' is declared twice"),
    ]  # road S and city C are not checked; "every city is on a road" reads road S: unknown


def test_an_element_declared_twice_names_the_first(tmp_path):
    (twice,) = [notes for _, message, notes in findings(tmp_path) if "twice" in message]
    assert twice == (f"first declared at {tmp_path / 'board.metro'}:7:3",)


def test_a_picture_of_the_map_marks_the_same_findings(tmp_path):
    write(tmp_path)
    pictures = open_pictures(str(tmp_path / "rules.metro"))
    assert [finding.message for finding in pictures.findings] == [
        "city 'B': small",
        "'size' must be in 1..3, not 7",
        "road 'R': a road joins two cities",
        "no city 'Nowhere' in the map",
        "road 'T' is declared twice",
        "drawing 'cities': city 'C': cannot be drawn: a value it needs is missing from the map",
    ]


def test_a_check_that_cannot_be_evaluated_for_one_element_goes_on_to_the_others(tmp_path):
    ratio = '    check "ratio" for c in city: 6 / (c.size - 1) < 4\n'
    rules = RULES.replace('    check "small" for c in city: c.size < 3\n', ratio)
    (tmp_path / "rules.metro").write_text(rules, encoding="utf-8")
    board = 'map "B" for "G" {\n  city A(1)\n  city B(2)\n  road R(A, B)\n}\n'
    (tmp_path / "board.metro").write_text(board, encoding="utf-8")
    with pytest.raises(CompileError) as caught:
        compile_game(str(tmp_path / "rules.metro"))
    assert [d.message for d in caught.value.diagnostics] == [
        "city 'B': ratio",
        "cannot evaluate check 'ratio' for city 'A': division by zero",
    ]
