"""Messages that help an author: "did you mean" for misspelt names, and what a failed `expect` saw."""

from __future__ import annotations

import pytest

from compiler import compile_game
from dsl.diagnostics import CompileError, did_you_mean
from loader import load_game
from metro.testing.scenarios import run_scenario, scenarios
from runtime.errors import ScenarioFailure

RULES = """\
game "Spelling" {
  players 2..2
  default map "m.metro"
  map schema {
    kind city(x: int)
    kind road(a: city, b: city)
  }
  enum Colour { red blue }
  actions turn { go }
  state { total: int public }
  function double(x: int) -> int = x * 2
  action go() { total += double(1) }
  flow { choose by seat(1) { turn } }
  score(p) = total
  %s
}
"""
MAP = 'map "M" for "Spelling" {\n  city Paris(x: 1)\n  city Lyon(x: 2)\n  road r1(a: %s, b: Lyon)\n}\n'


def notes(
    tmp_path, extra: str = "", city: str = "Paris", variant: str | None = None
) -> list[tuple]:
    """(code, message, notes) of what `metro check` finds in the game as written."""
    (tmp_path / "rules.metro").write_text(RULES % extra, encoding="utf-8")
    (tmp_path / "m.metro").write_text(MAP % city, encoding="utf-8")
    variants = []
    if variant is not None:
        (tmp_path / "variants").mkdir(exist_ok=True)
        (tmp_path / "variants" / "v.metro").write_text(
            f'variant "V" for "Spelling" {{\n{variant}\n}}\n', encoding="utf-8"
        )
        variants = ["v"]
    with pytest.raises(CompileError) as caught:
        compile_game(str(tmp_path), variants=variants)
    return [(d.code.code, d.message, d.notes) for d in caught.value.diagnostics]


@pytest.mark.parametrize(
    ("extra", "variant", "city", "wanted"),
    [
        ("const A = totl", None, "Paris", "did you mean 'total'?"),
        ("const A = doubel(1)", None, "Paris", "did you mean 'double'?"),
        ("const A = Colour.rde", None, "Paris", "did you mean 'red'?"),
        ("function f(c: Colur) -> int = 1", None, "Paris", "did you mean 'Colour'?"),
        ("enum Shade extends Colur { gray }", None, "Paris", "did you mean 'Colour'?"),
        ('bot "b" { og: 1 }', None, "Paris", "did you mean 'go'?"),
        ('check "c" for r in raod: true', None, "Paris", "did you mean 'road'?"),
        ("", None, "Pari", "did you mean 'Paris'?"),
        ("", "  override function doubel(x: int) -> int = x", "Paris", "did you mean 'double'?"),
        ("", "  override const LIMTI = 2", "Paris", None),
        ("", "  override state { totl: int public }", "Paris", "did you mean 'total'?"),
        ("", "  remove action og", "Paris", "did you mean 'go'?"),
        ("", "  extend enum Colur { green }", "Paris", "did you mean 'Colour'?"),
        ("", "  extend actions trun { go }", "Paris", "did you mean 'turn'?"),
    ],
)
def test_a_misspelt_name_gets_the_nearest_one_suggested(tmp_path, extra, variant, city, wanted):
    found = notes(tmp_path, extra, city, variant)
    suggested = [note for _, _, these in found for note in these if note.startswith("did you")]
    assert suggested == ([wanted] if wanted else []), found


def test_a_name_far_from_every_other_gets_no_suggestion():
    assert did_you_mean("locomotive", ["red", "blue"]) == ()
    assert did_you_mean("blu", ["red", "blue", "blue"]) == ("did you mean 'blue'?",)


def test_a_map_field_misspelt(tmp_path):
    (tmp_path / "rules.metro").write_text(RULES % "", encoding="utf-8")
    (tmp_path / "m.metro").write_text(
        'map "M" for "Spelling" {\n  city Paris(xx: 1)\n  city Lyon(x: 2)\n  road r1(a: Paris, b: Lyon)\n}\n',
        encoding="utf-8",
    )
    with pytest.raises(CompileError) as caught:
        compile_game(str(tmp_path))
    assert ("did you mean 'x'?",) in [d.notes for d in caught.value.diagnostics]


# ---------------------------------------------------------------- what a failed expect saw


def failure(tmp_path, steps: str) -> str:
    """The message of the failing scenario `steps`."""
    scenario = f'scenario "s" players 2 seed 1 {{\n{steps}\n  }}'
    (tmp_path / "rules.metro").write_text(RULES % scenario, encoding="utf-8")
    (tmp_path / "m.metro").write_text(MAP % "Paris", encoding="utf-8")
    game = load_game(str(tmp_path), use_cache=False)
    (case,) = scenarios(game)
    with pytest.raises(ScenarioFailure) as caught:
        run_scenario(game, case)
    return str(caught.value)


def test_a_failed_comparison_shows_both_sides(tmp_path):
    message = failure(tmp_path, "    play seat(1): go\n    expect total == double(3)")
    assert "expected total == double(3); saw total = 2, double(3) = 6" in message


def test_every_operand_of_a_failed_condition_is_shown_but_not_literals(tmp_path):
    message = failure(
        tmp_path,
        "    play seat(1): go\n    expect total > 1 and (size(Colour) == 3 or not (total == 2))",
    )
    assert "saw total = 2, size(Colour) = 2" in message
    assert "3 =" not in message


def test_a_failed_call_shows_its_value(tmp_path):
    message = failure(tmp_path, "    expect all(c == red for c in Colour)")
    assert message.endswith(
        "expected all(c == red for c in Colour); saw all(c == red for c in Colour) = false"
    )


def test_values_are_shown_as_json_and_cut_when_long():
    from runtime.lib import SHOWN_CHARS, show
    from runtime.values import INT

    assert show(7, INT) == "7"
    long = show(list(range(1000)), type("Desc", (), {"encode": staticmethod(lambda v: v)})())
    assert len(long) == SHOWN_CHARS + 1 and long.endswith("…")
