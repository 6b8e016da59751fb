"""What generated games import: the state machine runner, values, graphs, geometry, bots."""

from runtime.errors import IllegalAction, RuleError, ScenarioFailure
from runtime.machine import Action, Game, State

__all__ = ["Action", "Game", "IllegalAction", "RuleError", "ScenarioFailure", "State"]
