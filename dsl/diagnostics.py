"""Error codes, diagnostics and their rendering (file:line:col, source line, carets).

Most findings have a place in a file. The others are about a whole file or directory
(`whole_file(path)`: rendered `path: error[…]`) or about a command-line argument
(`COMMAND_LINE`: rendered `error[…]` with no place); both have line 0.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from dsl.source import SourceFile, Span
from dsl.terminal import printable


@dataclass(frozen=True, slots=True)
class ErrorCode:
    """A registered diagnostic code with a one-line description."""

    code: str
    description: str


REGISTRY: dict[str, ErrorCode] = {}


def _code(code: str, description: str) -> ErrorCode:
    entry = ErrorCode(code, description)
    REGISTRY[code] = entry
    return entry


SYNTAX = _code("syntax", "The text does not follow the grammar")
INPUT = _code("input", "The file cannot be read, is not UTF-8 text, or exceeds a size limit")
TOO_DEEP = _code("too-deep", "Nesting or expression size beyond the documented limits")
TOO_LARGE = _code(
    "too-large", "A choice domain or a constant's computation beyond the documented limits"
)
UNDEFINED_NAME = _code("undefined-name", "A name is used that no declaration defines")
DUPLICATE = _code("duplicate", "A name is declared twice in one scope")
BAD_NAME = _code("bad-name", "An identifier is reserved or not a plain ASCII identifier")
TYPE = _code("type", "An expression has the wrong type for where it is used")
ARGUMENTS = _code("arguments", "A call has the wrong number or kind of arguments")
NOT_FINITE = _code("not-finite", "A choice domain is not a finite collection")
ASSIGN = _code("assign", "Assignment to something that cannot be assigned")
PURITY = _code("purity", "A function or guard changes the state or waits for a decision")
VISIBILITY = _code("visibility", "Private or hidden data would reach a public place")
PATCH = _code("patch", "A variant or expansion patch names nothing, or breaks the base")
RESOLVE = _code("resolve", "A used file, map, variant or base game cannot be found")
PATH = _code(
    "path", "A path in a rule file is absolute, leaves the game's directory or names no .metro file"
)
MAP_DATA = _code("map-data", "Map data does not satisfy the game's map schema")
MAP_CHECK = _code("map-check", "A map fails one of the game's declared checks")
STRUCTURE = _code("structure", "A declaration is missing, misplaced or malformed")
SCENARIO = _code("scenario", "A scenario or invariant is malformed")
INT_RANGE = _code("int-range", "An integer is outside the 64-bit range -2**63 .. 2**63 - 1")
LABEL = _code(
    "label", "A label, heading or score breakdown reads what it may not, or cannot be shown"
)


COMMAND_LINE = Span("", 0, 0, 0, 0)  # a finding about a command-line argument, not a file


def whole_file(path: str) -> Span:
    """The place of a finding about a whole file or directory rather than one of its lines."""
    return Span(path, 0, 0, 0, 0)


def did_you_mean(name: str, candidates) -> tuple[str, ...]:
    """A note naming the known name closest to a misspelt one (none if none is close).

    Close means a few edits away (a letter added, dropped, changed, or two swapped: one
    edit for names of up to 4 letters, two up to 8, three beyond), or a different case.
    """
    allowed = 0 if len(name) <= 1 else 1 if len(name) <= 4 else 2 if len(name) <= 8 else 3
    best = None
    for candidate in sorted(set(candidates)):
        if candidate == name:
            continue
        distance = 0 if candidate.lower() == name.lower() else _edits(name, candidate, allowed)
        if distance <= allowed:
            rank = (distance, -difflib.SequenceMatcher(None, name, candidate).ratio())
            if best is None or rank < best[0]:
                best = (rank, candidate)
    return (f"did you mean '{best[1]}'?",) if best else ()


def _edits(a: str, b: str, limit: int) -> int:
    """Edits from `a` to `b` (insert, delete, substitute, swap two neighbours); limit + 1 if more."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(current[j - 1] + 1, row[j] + 1, row[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        before, row = row, current
    return row[len(b)]


def place(span: Span) -> str:
    """Where a finding is, as rendered: `file:line:col`, `file` for a whole file, '' for none."""
    if span.line >= 1:
        return str(span)
    return span.file


@dataclass(frozen=True, slots=True)
class Related:
    """Another place a finding is about, such as the first declaration of a name declared twice."""

    message: str
    span: Span

    def note(self) -> str:
        """As a note: `first declared at rules.metro:12:3`."""
        return f"{self.message} at {place(self.span)}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding: code, severity, message, where, optional notes and related places."""

    code: ErrorCode
    message: str
    span: Span
    severity: str = "error"
    notes: tuple[str, ...] = ()
    related: tuple[Related, ...] = ()

    @property
    def all_notes(self) -> tuple[str, ...]:
        """The notes, then each related place as a note."""
        return (*self.notes, *(r.note() for r in self.related))

    def to_dict(self) -> dict:
        """JSON-able form (schemas/check.schema.json)."""
        span = self.span
        return {
            "severity": self.severity,
            "code": self.code.code,
            "message": self.message,
            "file": span.file,
            "line": span.line,
            "column": span.col,
            "end_line": span.end_line,
            "end_column": span.end_col,
            "notes": list(self.all_notes),
        }

    def render(self, sources: dict[str, SourceFile] | None = None) -> str:
        """`file:line:col: error[code]: message`, the source line and a caret underline (see place)."""
        where = place(self.span)
        prefix = f"{where}: " if where else ""
        head = printable(f"{prefix}{self.severity}[{self.code.code}]: {self.message}")
        lines = [head]
        source = (sources or {}).get(self.span.file)
        if source is not None and self.span.line >= 1:
            text = source.line(self.span.line)
            if text or self.span.line <= len(source.lines):
                shown = text.expandtabs(1)
                start = max(self.span.col, 1)
                if self.span.end_line == self.span.line:
                    width = max(self.span.end_col - start, 1)
                else:
                    width = max(len(shown) - start + 1, 1)
                width = min(width, max(len(shown) - start + 1, 1))
                gutter = f"{self.span.line:>5} | "
                lines.append(gutter + _printable(shown))
                lines.append(" " * (len(gutter) + start - 1) + "^" + "~" * (width - 1))
        lines.extend(f"  note: {printable(note)}" for note in self.all_notes)
        return "\n".join(lines)


def _printable(text: str) -> str:
    # The quoted source line: one '?' per unprintable character keeps the carets aligned.
    return "".join(c if c.isprintable() or c == " " else "?" for c in text)


@dataclass(slots=True)
class Diagnostics:
    """A collector: passes add findings; a stage raises CompileError once at its end."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(
        self,
        code: ErrorCode,
        message: str,
        span: Span,
        *notes: str,
        related: tuple[Related, ...] = (),
    ) -> None:
        """Record an error (`related`: the other places it is about, as `Related`)."""
        self.items.append(Diagnostic(code, message, span, "error", tuple(notes), tuple(related)))

    def warning(self, code: ErrorCode, message: str, span: Span, *notes: str) -> None:
        """Record a warning."""
        self.items.append(Diagnostic(code, message, span, "warning", tuple(notes)))

    @property
    def has_errors(self) -> bool:
        """True if any error (not warning) was recorded."""
        return any(d.severity == "error" for d in self.items)

    def raise_if_errors(self, sources: dict[str, SourceFile]) -> None:
        """Raise CompileError carrying every finding, if any is an error."""
        if self.has_errors:
            raise CompileError(sorted_diagnostics(self.items), sources)


def sorted_diagnostics(items: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics in file/line/column order, duplicates removed."""
    seen: set[tuple] = set()
    out = []
    for d in sorted(items, key=lambda d: (d.span.file, d.span.line, d.span.col, d.message)):
        key = (d.span.file, d.span.line, d.span.col, d.code.code, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


class CompileError(Exception):
    """Raised at the end of a stage that found errors; carries all diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, SourceFile]):
        self.diagnostics = diagnostics
        self.sources = sources
        super().__init__(self.render())

    def __reduce__(self):
        return (CompileError, (self.diagnostics, self.sources))

    def render(self) -> str:
        """All diagnostics rendered, separated by blank lines."""
        return "\n\n".join(d.render(self.sources) for d in self.diagnostics)
