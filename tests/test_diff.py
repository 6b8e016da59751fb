"""`metro diff`: what a variant or expansion adds, removes and replaces, with old → new values."""

from __future__ import annotations

from click.testing import CliRunner

from metro.analysis.diff import Change, describe_patches
from metro.cli import main

BASE = """\
game "G" {
  players 2..3
  const BONUS = 10
  per player { points: int public = 1 }
  function double(n: int) -> int = 2 * n
  procedure give(p: player) {
    p.points += BONUS
  }
  action pass() { }
  flow { for p in players { give(p) } }
  score(p) = double(p.points)
  rank p by p.points desc
  metric "points"(p) = p.points
  invariant "points grow" { all(p.points >= 0 for p in players) }
}
"""

VARIANT = """\
variant "House" for "G" {
  override const BONUS = 20 + 5
  override per player { points: int public = 3 }
  override function double(n: int) -> int = 3 * n
  override procedure give(p: player) {
    p.points += BONUS + 1
  }
  override metric "points"(p) = 100 * p.points
  remove invariant "points grow"
  metric "bonus"(p) = BONUS
}
"""


def _game(tmp_path) -> str:
    (tmp_path / "rules.metro").write_text(BASE, encoding="utf-8")
    (tmp_path / "variants").mkdir()
    (tmp_path / "variants" / "house.metro").write_text(VARIANT, encoding="utf-8")
    return str(tmp_path)


def test_replaced_values_are_shown_old_to_new(tmp_path):
    changes = describe_patches(_game(tmp_path), variants=["house"])
    shown = [(c.verb, c.what, c.name, c.old, c.new) for c in changes]
    assert shown == [
        ("replaces", "const", "BONUS", "10", "20 + 5"),
        ("replaces", "state field", "points", "points: int public = 1", "points: int public = 3"),
        ("replaces", "function", "double", "2 * n", "3 * n"),
        ("replaces", "procedure", "give", "", ""),  # a block: only where it changed
        ("replaces", "metric", "points", "p.points", "100 * p.points"),
        ("removes", "invariant", "points grow", "", ""),
        ("adds", "metric", "bonus", "", ""),
    ]
    assert all(
        c.where.endswith(f"house.metro:{n}")
        for c, n in zip(changes, [2, 3, 4, 5, 8, 9, 10], strict=True)
    )


def test_a_change_reads_as_one_line():
    change = Change("replaces", "const", "BONUS", "variants/house.metro:2", "10", "25")
    assert str(change) == "replaces const 'BONUS': 10 → 25  (variants/house.metro:2)"
    assert str(Change("adds", "metric", "bonus", "v.metro:3")) == "adds metric 'bonus'  (v.metro:3)"


def test_long_values_are_cut(tmp_path):
    folder = _game(tmp_path)
    long_sum = " + ".join(["BONUS"] * 30)
    (tmp_path / "variants" / "house.metro").write_text(
        f'variant "House" for "G" {{\n  override const BONUS = {long_sum}\n}}\n', encoding="utf-8"
    )
    (change,) = describe_patches(folder, variants=["house"])
    assert change.new.endswith("…") and len(change.new) == 60


def test_the_command_prints_the_changes(tmp_path):
    result = CliRunner().invoke(main, ["diff", _game(tmp_path), "--variant", "house"])
    assert result.exit_code == 0, result.output
    assert "replaces const 'BONUS': 10 → 20 + 5" in result.output
    assert "removes invariant 'points grow'" in result.output
