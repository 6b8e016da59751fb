"""Errors that name the .metro rule and line they come from."""

from __future__ import annotations


class MetroRuntimeError(Exception):
    """Base of errors raised while playing a compiled game."""


class IllegalAction(MetroRuntimeError):
    """An action that the rules do not allow now; the state is unchanged."""

    def __init__(self, reason: str, rule: str = "", file: str = "", line: int = 0):
        self.reason = reason
        self.rule = rule
        self.file = file
        self.line = line
        where = f"{file}:{line}: " if file else ""
        super().__init__(f"{where}illegal action: {reason}" + (f" (rule: {rule})" if rule else ""))


class RuleError(MetroRuntimeError):
    """The rules themselves failed while running (e.g. drawing from an empty pile)."""

    def __init__(self, message: str, file: str = "", line: int = 0):
        self.file = file
        self.line = line
        where = f"{file}:{line}: " if file else ""
        super().__init__(f"{where}{message}")


class ScenarioFailure(AssertionError):
    """A scenario's expectation did not hold."""

    def __init__(self, message: str, file: str = "", line: int = 0):
        self.file = file
        self.line = line
        super().__init__(f"{file}:{line}: {message}" if file else message)


class EndGame(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised by `end game` to unwind every procedure at once."""
