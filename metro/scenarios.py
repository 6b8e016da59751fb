"""Running the scenarios and invariants that rule files carry."""

from __future__ import annotations

from dataclasses import dataclass

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
    state = game.new_game(scenario.players, scenario.seed)
    scenario.run(state)
    return state


def broken_invariants(state: State) -> list[str]:
    """Names (with file:line) of the game's invariants that do not hold in a state."""
    broken = []
    for name, check, file, line in state.game.invariants:
        if not check(state):
            broken.append(f"{file}:{line}: invariant '{name}'")
    return broken
