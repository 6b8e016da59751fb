"""Source files and spans: where every AST node and diagnostic points."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A named source text, split into lines on demand."""

    path: str
    text: str
    lines: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lines", tuple(self.text.split("\n")))

    def line(self, number: int) -> str:
        """The text of 1-based line `number` ('' past the end)."""
        if 1 <= number <= len(self.lines):
            return self.lines[number - 1].rstrip("\r")
        return ""


@dataclass(frozen=True, slots=True)
class Span:
    """A 1-based, end-exclusive region of one source file."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    @staticmethod
    def point(file: str, line: int, col: int) -> Span:
        """A one-character span."""
        return Span(file, line, col, line, col + 1)


NO_SPAN = Span("<builtin>", 0, 0, 0, 0)
