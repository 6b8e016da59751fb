"""Running the scenarios and invariants that rule files carry."""

from __future__ import annotations

import os
from dataclasses import dataclass

from loader.games import find_game_file, find_patch_file
from runtime.chance import RECORDED
from runtime.errors import MetroRuntimeError, ScenarioFailure
from runtime.lib import unused_chance
from runtime.machine import Game, State


@dataclass(frozen=True)
class Scenario:
    """One `scenario` declaration of a compiled game."""

    name: str
    players: int
    seed: int
    run: object
    file: str
    line: int

    @property
    def where(self) -> str:
        """`file:line` of the declaration."""
        return f"{self.file}:{self.line}"


def scenarios(game: Game) -> list[Scenario]:
    """The game's scenarios in declaration order."""
    return [Scenario(*entry) for entry in game.scenarios]


def run_scenario(game: Game, scenario: Scenario) -> State:
    """Start a game as the scenario says and run its steps (ScenarioFailure on a broken expectation)."""
    state = game.new_game(scenario.players, scenario.seed, chance=RECORDED)
    run_steps(game, scenario, state)
    return state


def run_steps(game: Game, scenario: Scenario, state: State) -> None:
    """Run a scenario's steps on `state`; a failure inside them is a RuleError at its .metro line."""
    try:
        scenario.run(state)
        unused_chance(state, scenario.file, scenario.line)
    except (ScenarioFailure, MetroRuntimeError):
        raise
    except Exception as error:  # e.g. an index out of range (a base scenario under a variant)
        raise game.rule_error(error) from error


def broken_invariants(state: State) -> list[str]:
    """Names (with file:line) of the game's invariants that do not hold in a state."""
    broken = []
    for name, check, file, line in state.game.invariants:
        if not check(state):
            broken.append(f"{file}:{line}: invariant '{name}'")
    return broken


@dataclass(frozen=True)
class ScenarioResult:
    """How one scenario went, and whether the game's own rules (or patches) declare it."""

    scenario: Scenario
    own: bool  # False: a base scenario run under variants or expansions
    error: str = ""  # empty when it passed

    @property
    def passed(self) -> bool:
        """True when every step and expectation held."""
        return not self.error

    def to_doc(self) -> dict:
        """JSON form (schemas/test.schema.json)."""
        return {
            "name": self.scenario.name,
            "where": self.scenario.where,
            "own": self.own,
            "passed": self.passed,
            "error": self.error,
        }


def run_scenarios(game: Game, own: set[str] | None = None, only: str = "") -> list[ScenarioResult]:
    """Every scenario (those whose name contains `only`); `own` names the configuration's own."""
    results = []
    for scenario in scenarios(game):
        if only not in scenario.name:
            continue
        if not game.min_players <= scenario.players <= game.max_players:
            # a base scenario under a variant that changes the player count (solo)
            message = f"{game.name} takes {game.min_players}-{game.max_players} players here"
        else:
            try:
                run_scenario(game, scenario)
            except (ScenarioFailure, MetroRuntimeError) as error:
                message = str(error) or type(error).__name__
            else:
                message = ""
        results.append(ScenarioResult(scenario, own is None or scenario.name in own, message))
    return results


def own_scenarios(game: Game, game_path: str, variants=(), expansions=()) -> list[str]:
    """The configuration's own scenarios: all of a plain game's; with variants, those the
    variants declare (the game with its expansions is their base); with one expansion, the
    expansion's (and those in its folder). Several expansions together have none of their own:
    each expansion's scenarios were written for the game with it alone, so under the others
    they are base scenarios (one that fails is changed by the others)."""
    if not variants and not expansions:
        return [entry[0] for entry in game.scenarios]
    if not variants and len(expansions) > 1:
        return []
    game_dir = os.path.dirname(find_game_file(game_path))
    if variants:
        patches = {os.path.abspath(find_patch_file(game_dir, v, "variants")) for v in variants}
    else:
        patches = {os.path.abspath(find_patch_file(game_dir, e, "expansions")) for e in expansions}
    folders = {os.path.dirname(p) for p in patches} - {os.path.abspath(game_dir)}
    return [
        entry[0]
        for entry in game.scenarios
        if os.path.abspath(entry[4]) in patches
        or os.path.dirname(os.path.abspath(entry[4])) in folders
    ]
