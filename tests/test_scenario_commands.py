"""`metro check --scenarios` and `metro test`: scenarios are run before anyone is told they pass."""

from __future__ import annotations

import json
import os

from click.testing import CliRunner
from jsonschema import Draft202012Validator

from metro.cli import main
from tests.conftest import ROOT
from tests.test_vectors import registry

TTR = os.path.join(ROOT, "games", "ticket_to_ride")

BROKEN_SCENARIO = """game "Counter" {
  players 2..2
  state { count: int public }
  action tick() { count += 1 }
  flow { repeat 2 times { choose by seat(1) { tick } } }
  score(p) = count
  scenario "one tick counts one" players 2 {
    play seat(1): tick()
    expect count == 1
  }
  scenario "two ticks count three" players 2 {
    play seat(1): tick()
    play seat(1): tick()
    expect count == 3
  }
}
"""


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def schema(name: str) -> Draft202012Validator:
    with open(os.path.join(ROOT, "schemas", name), encoding="utf-8") as handle:
        return Draft202012Validator(json.load(handle), registry=registry())


def test_check_says_scenarios_were_not_run_unless_asked(tmp_path):
    (tmp_path / "rules.metro").write_text(BROKEN_SCENARIO)
    plain = run("check", str(tmp_path))
    assert plain.exit_code == 0
    assert "ok: Counter (2 scenarios declared, not run; 0 invariants)" in plain.output
    ran = run("check", str(tmp_path), "--scenarios")
    assert ran.exit_code == 1
    assert "FAIL: Counter (1 of 2 scenarios pass; 0 invariants)" in ran.output
    assert "scenario two ticks count three fails:" in ran.output
    assert "expected count == 3" in ran.output


def test_check_scenarios_json_follows_its_schema(tmp_path):
    (tmp_path / "rules.metro").write_text(BROKEN_SCENARIO)
    result = run("check", str(tmp_path), TTR, "--scenarios", "--json")
    assert result.exit_code == 1
    report = json.loads(result.output)
    schema("check.schema.json").validate(report)
    counter, ttr = report["games"]
    assert (counter["ok"], counter["scenarios_passed"]) == (False, 1)
    assert [f["name"] for f in counter["scenario_failures"]] == ["two ticks count three"]
    assert ttr["ok"] and ttr["scenarios_passed"] == ttr["scenarios"] > 50
    plain = json.loads(run("check", TTR, "--json").output)["games"][0]
    assert plain["scenarios_passed"] is None and plain["scenario_failures"] == []


def test_metro_test_runs_the_scenarios(tmp_path):
    (tmp_path / "rules.metro").write_text(BROKEN_SCENARIO)
    result = run("test", str(tmp_path))
    assert result.exit_code == 1
    assert "pass one tick counts one" in result.output
    assert "FAIL two ticks count three" in result.output
    assert result.output.strip().endswith("1 passed, 1 failed")
    only = run("test", str(tmp_path), "-k", "one tick")
    assert only.exit_code == 0 and only.output.strip().endswith("1 passed, 0 failed")


def test_metro_test_under_a_variant_reports_the_base_scenarios_it_changes():
    result = run("test", "ticket_to_ride", "--variant", "open_doubles", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    schema("test.schema.json").validate(report)
    changed = [r for r in report["results"] if not r["passed"]]
    assert report["changed"] == len(changed) == 3 and report["failed"] == 0
    assert not any(r["own"] for r in changed)
    # open twins: a claimed track no longer closes its twin, so the base scenarios about closed
    # twins break, and so does the estimate's about a city cut off (its twin stays open)
    assert sorted(r["name"] for r in changed) == [
        "double route, 2 players: once one track is claimed the twin is closed",
        "double route, 3 players: once one track is claimed the twin is closed",
        "estimate: a ticket whose city is cut off counts its penalty",
    ]
    assert [r["name"] for r in report["results"] if r["own"]] == [
        "open doubles: with 2 players the other player may claim the twin"
    ]


def test_base_scenarios_for_other_player_counts_are_changed_by_a_solo_variant():
    result = run("test", "tokyo_metro", "--variant", "solo", "-k", "setup", "--json")
    assert result.exit_code == 0, result.output  # not an internal error: the seats do not fit
    report = json.loads(result.output)
    changed = [r for r in report["results"] if not r["passed"]]
    assert changed and report["failed"] == 0 and not any(r["own"] for r in changed)
    assert all("takes 1-1 players here" in r["error"] for r in changed)


def test_a_base_scenario_that_breaks_inside_an_expression_is_reported_at_its_line():
    # Under corner-chips a 2-3 player game has only four chip places: the base scenarios that
    # take the first free edge place run out of places (an index out of range in the step)
    result = run("test", "izakaya", "--variant", "corner-chips", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    out_of_range = [r for r in report["results"] if "index is out of range" in r["error"]]
    assert out_of_range and not any(r["own"] for r in out_of_range)
    assert all(
        r["error"].startswith(os.path.join(ROOT, "games", "izakaya", "scenarios.metro") + ":")
        for r in out_of_range
    )
    assert report["failed"] == 0 and report["passed"] >= 4  # the variant's own pass


def test_with_two_expansions_each_ones_scenarios_are_base_scenarios():
    # Metro Drinks' scenarios are written for the Tokyo board; on the Osaka board they are
    # changed by the other expansion, not failures of the combination
    result = run("test", "tokyo_metro", "--with", "osaka", "--with", "drinks", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["failed"] == 0 and report["changed"] > 0 and report["passed"] > 0
    assert not any(r["own"] for r in report["results"])
    drinks = [r for r in report["results"] if r["name"].startswith("drinks ")]
    assert any(r["passed"] for r in drinks) and any(not r["passed"] for r in drinks)
