"""Errors that name the .metro rule and line they come from."""

from __future__ import annotations

import json


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

    def __init__(self, message: str, file: str = "", line: int = 0, column: int = 0):
        self.file = file
        self.line = line
        self.column = column  # 0 where only the line is known
        where = (
            f"{file}:{line}:{column}: " if file and column else f"{file}:{line}: " if file else ""
        )
        super().__init__(f"{where}{message}")


class ScenarioFailure(AssertionError):
    """A scenario's expectation did not hold."""

    def __init__(self, message: str, file: str = "", line: int = 0):
        self.file = file
        self.line = line
        super().__init__(f"{file}:{line}: {message}" if file else message)


class EndGame(Exception):
    """Raised by `end game` to unwind every procedure at once."""


class InvalidSave(ValueError):
    """A saved state that does not fit its compiled game; `path` names the bad part, e.g. `$.state.deck[3]`."""

    def __init__(self, message: str, parts: tuple = ()):
        self.message = message
        self.parts = parts
        super().__init__(message)

    @property
    def path(self) -> str:
        """JSONPath of the offending value: `$`, then `.name` or `["any text"]` per key, `[i]` per index."""
        out = ["$"]
        for part in self.parts:
            if isinstance(part, int):
                out.append(f"[{part}]")
            elif part.isidentifier() and part.isascii():
                out.append(f".{part}")
            else:
                out.append("[" + json.dumps(part, ensure_ascii=True) + "]")
        return "".join(out)

    def within(self, part: str | int) -> InvalidSave:
        """The same error seen from the container holding the bad value under key or index `part`."""
        self.parts = (part, *self.parts)
        return self

    def __str__(self) -> str:
        return f"invalid save at {self.path}: {self.message}"
