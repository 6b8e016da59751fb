"""What generated games import: the state machine runner, values, graphs, geometry, bots."""

from runtime.errors import IllegalAction, InvalidSave, RuleError, ScenarioFailure
from runtime.machine import Action, Game, State

__all__ = [
    "Action",
    "Game",
    "IllegalAction",
    "InvalidSave",
    "RuleError",
    "ScenarioFailure",
    "State",
]
