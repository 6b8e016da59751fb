"""Rule coverage: executed generated lines map back to .metro lines; untested rules are listed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from jsonschema import validate

from loader import load_game
from metro.cli import main
from metro.testing.coverage import (
    code_lines,
    exercise,
    format_coverage,
    game_coverage,
    rule_coverage,
    trace_lines,
)
from metro.testing.scenarios import run_scenario, scenarios
from tests.conftest import ROOT

LINES_GAME = """\
game "Lines" {
  players 1..2
  max decisions 40
  state { total: int public }
  per player { points: int public }
  function double(n: int) -> int = n * 2
  procedure bump(p: player, n: int) {
    p.points += n
    total += n
  }
  action add() { bump(me, 1) }
  action big() {
    bump(me, double(5))
  }
  action stop() {
    end game
  }
  flow {
    repeat 10 times { choose by seat(1) { add, big, stop } }
  }
  score(p) = p.points
  invariant "total" { total == sum(p.points for p in players) }
  scenario "add" players 1 seed 1 { play seat(1): add  expect total == 1 }
}
"""


@pytest.fixture(scope="module")
def lines_game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lines")
    (folder / "rules.metro").write_text(LINES_GAME)
    return load_game(str(folder), use_cache=False)


def _scenarios_only(game):
    for scenario in scenarios(game):
        run_scenario(game, scenario)


def test_scenarios_alone_leave_the_untested_rules(lines_game):
    report = rule_coverage(lines_game, _scenarios_only)
    ((path, cov),) = report.files.items()
    assert path.endswith("rules.metro")
    assert {8, 9, 11, 23} <= cov.executed
    assert cov.missed == [13, 16, 21, 22]
    assert [text for _, _, text in report.missed()] == [
        "bump(me, double(5))",
        "end game",
        "score(p) = p.points",
        'invariant "total" { total == sum(p.points for p in players) }',
    ]
    assert cov.inlined == {6}  # `double` is copied into its caller, never called itself


def test_random_games_cover_the_rest(lines_game):
    report = rule_coverage(lines_game, lambda game: exercise(game, random_games=10))
    (cov,) = report.files.values()
    assert cov.missed == [] and cov.percent == 100.0 and report.percent == 100.0


def test_report_text_names_files_and_never_run_lines(lines_game):
    text = format_coverage(rule_coverage(lines_game, _scenarios_only))
    assert text.startswith("rule coverage: 71.4%")
    assert "rules.metro     10/14" in text
    assert "rules.metro:16: end game" in text
    assert "inlined" in text
    assert "never run" not in format_coverage(
        rule_coverage(lines_game, _scenarios_only), show_missed=False
    )


def test_only_lines_inside_functions_carry_code(lines_game):
    live, inlined = code_lines(lines_game)
    assert set(live).isdisjoint(inlined)
    # The scenarios module's lines are kept negated beside the game module's.
    scenarios = {-n for n in lines_game.scenarios_module.METRO_LINES}
    assert set(live) | set(inlined) <= set(lines_game.module.METRO_LINES) | scenarios
    assert {line for _, line in live.values()} == {
        4,
        5,
        7,
        8,
        9,
        11,
        12,
        13,
        15,
        16,
        19,
        21,
        22,
        23,
    }


def test_tracing_restores_the_previous_trace_function(lines_game):
    def outer(frame, event, arg):
        return None

    sys.settrace(outer)
    try:
        hit = trace_lines(lines_game.module.__file__, lambda: lines_game.new_game(1, 1))
        assert sys.gettrace() is outer
    finally:
        sys.settrace(None)
    assert hit


def test_failures_while_measuring_are_reported(lines_game, tmp_path):
    (tmp_path / "rules.metro").write_text(
        LINES_GAME.replace("total == sum", "total == 1 + sum").replace(
            "expect total == 1", "expect total == 2"
        )
    )
    broken = load_game(str(tmp_path), use_cache=False)
    report = game_coverage(broken, random_games=2)
    text = format_coverage(report)
    assert "scenario 'add'" in text and "invariant 'total'" in text
    assert report.percent > 0


def test_ticket_to_ride_coverage(ttr):
    report = game_coverage(ttr, random_games=3)
    rules = [
        cov for path, cov in report.files.items() if path.endswith("ticket_to_ride/rules.metro")
    ]
    assert rules and rules[0].percent > 80
    assert report.failures == []
    for path, line, _ in report.missed():
        assert line in report.files[path].code_lines


def test_testgen_coverage_json_follows_its_schema(tmp_path):
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "rules.metro").write_text(LINES_GAME)
    result = CliRunner().invoke(
        main,
        [
            "testgen",
            str(tmp_path / "game"),
            "-o",
            str(tmp_path / "out"),
            "--coverage",
            "--games",
            "0",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    with open(os.path.join(ROOT, "schemas", "testgen.schema.json"), encoding="utf-8") as handle:
        validate(report, json.load(handle))
    assert [os.path.basename(path) for path in report["written"]] == ["test_metro_game.py"]
    (cov,) = report["coverage"]["files"].values()
    assert [missed["line"] for missed in cov["missed"]] == [13, 16, 21, 22]
    assert cov["missed"][1]["text"] == "end game" and cov["inlined"] == [6]
    assert report["coverage"]["percent"] == 71.43


def _pytest_coverage(folder, *options: str) -> str:
    """The rule-coverage section of `pytest --metro-coverage` run on a game directory."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--metro-coverage",
            *options,
            str(folder),
        ],
        cwd=folder.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result.stdout[result.stdout.index("metro rule coverage") :].split("=====")[0]


def test_pytest_option_reports_coverage_serially_and_across_workers(tmp_path):
    (tmp_path / "lines").mkdir()
    (tmp_path / "lines" / "rules.metro").write_text(LINES_GAME)
    serial = _pytest_coverage(tmp_path / "lines", "-n", "0")
    assert "rule coverage: 71.4%" in serial
    assert "rules.metro:13: bump(me, double(5))" in serial and "rules.metro:16: end game" in serial
    assert _pytest_coverage(tmp_path / "lines", "-n", "2") == serial
