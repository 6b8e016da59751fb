"""Indented Python text with a record of which .metro line each generated line came from."""

from __future__ import annotations

from contextlib import contextmanager

from compiler.linebreak import broken
from dsl.source import Span


class PyWriter:
    """Collects lines of Python; `line(text, span)` remembers the .metro position."""

    def __init__(self, indent: int = 0):
        self.lines: list[tuple[int, str, Span | None]] = []
        self.level = indent

    def line(self, text: str, span: Span | None = None) -> None:
        """Append one line at the current indentation."""
        self.lines.append((self.level, text, span))

    @contextmanager
    def indented(self):
        """Indent the lines written inside the block."""
        self.level += 1
        try:
            yield
        finally:
            self.level -= 1

    def extend(self, other: PyWriter, extra: int = 0) -> None:
        """Append another writer's lines, indented `extra` more levels."""
        for level, text, span in other.lines:
            self.lines.append((level + extra + self.level - other.base_level(), text, span))

    def base_level(self) -> int:
        """Indentation of the first line (0 when empty)."""
        return self.lines[0][0] if self.lines else self.level

    def render(self, first_line: int, line_map: dict[int, tuple[str, int]]) -> str:
        """The text, filling `line_map` from generated line numbers to .metro positions."""
        out: list[str] = []
        for level, text, span in self.lines:
            # A long line is broken inside its brackets; each of its lines maps to its position
            # (a traceback names the line of the part that failed).
            for piece in broken("    " * level + text):
                if span is not None and span.line > 0:
                    line_map[first_line + len(out)] = (span.file, span.line)
                out.append(piece)
        return "\n".join(out)
