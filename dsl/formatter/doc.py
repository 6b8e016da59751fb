"""A document algebra and its printer: groups that fit on one line or break as a whole.

A layout is built from text, `Line`s (a space or nothing when their group is flat, a new
line when it breaks), `Nest` (indent the lines inside), `Group` (flat if it fits in the
width, else broken), `Fill` (as many items on a line as fit), trailing comments
(`LineSuffix`, printed at the end of the line) and own-line comments (`Comments`). The
printer is Wadler's "prettier printer" as Prettier runs it: a group is flat when it and
whatever follows it up to the next possible line break fit in the width. A group that
holds a forced break (a hard line, a comment) always breaks. The printer is a loop, not a
recursion, so deep layouts print as well as shallow ones.
"""

from __future__ import annotations

from dataclasses import dataclass

INDENT = 2  # spaces per level


class Doc:
    """Base of layout nodes; `forced` is True when the node must print on several lines."""

    __slots__ = ("forced",)


class Concat(Doc):
    """Parts printed one after the other."""

    __slots__ = ("parts",)

    def __init__(self, *parts: Doc | str | None):
        self.parts = [part for part in parts if part is not None and part != ""]
        self.forced = any(type(part) is not str and part.forced for part in self.parts)


class Nest(Doc):
    """Its lines indented by `width` more spaces."""

    __slots__ = ("doc", "width")

    def __init__(self, doc: Doc | str, width: int = INDENT):
        self.doc = doc
        self.width = width
        self.forced = type(doc) is not str and doc.forced


class Group(Doc):
    """Flat when it fits, else broken; always broken if it holds a forced break."""

    __slots__ = ("doc",)

    def __init__(self, *parts: Doc | str | None):
        self.doc = Concat(*parts)
        self.forced = self.doc.forced


class Fill(Doc):
    """Items separated by a space where the next one fits on the line, else by a new line."""

    __slots__ = ("items",)

    def __init__(self, items: list[Doc | str]):
        self.items = items
        self.forced = any(type(item) is not str and item.forced for item in items)


class Line(Doc):
    """A possible line break: `flat` is what it prints in a flat group (' ' or '')."""

    __slots__ = ("blank", "flat", "hard")

    def __init__(self, flat: str, hard: bool = False, blank: bool = False):
        self.flat = flat
        self.hard = hard
        self.blank = blank  # a hard line that leaves one empty line
        self.forced = hard


class Assign(Doc):
    """`head` then a value: on one line if it fits; else the value alone on the next line,
    indented, if it fits there; else, when `hug`, broken inside its own opening bracket
    (`x = f(` ...); else on the next line, broken."""

    __slots__ = ("head", "hug", "value")

    def __init__(self, head: Doc | str, value: Doc | str, hug: bool):
        self.head = head
        self.value = value
        self.hug = hug
        self.forced = any(type(part) is not str and part.forced for part in (head, value))


class IfFits(Doc):
    """`then` where `test` fits flat on the rest of the line, else `otherwise` (both lay out
    the same parts; a flat enclosing group takes `then`)."""

    __slots__ = ("otherwise", "test", "then")

    def __init__(self, test: Doc, then: Doc, otherwise: Doc):
        self.test = test
        self.then = then
        self.otherwise = otherwise
        self.forced = then.forced or otherwise.forced


LINE = Line(" ")
SOFTLINE = Line("")
HARDLINE = Line("", hard=True)
BLANKLINE = Line("", hard=True, blank=True)


class LineSuffix(Doc):
    """A trailing comment: printed at the end of the line it is on; its group breaks."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text
        self.forced = True


@dataclass(frozen=True, slots=True)
class Comment:
    """One comment of the source: its text and whether an empty line came before it."""

    text: str
    blank_before: bool = False


class Comments(Doc):
    """Comments on lines of their own, then a new line; `blank_after` leaves an empty line."""

    __slots__ = ("blank_after", "items")

    def __init__(self, items: list[Comment], blank_after: bool = False):
        self.items = items
        self.blank_after = blank_after
        self.forced = True


@dataclass(slots=True)
class Row:
    """One printed line: indentation, code, and the trailing comment (aligned later)."""

    indent: int
    code: str
    comment: str | None = None


def render(doc: Doc, width: int) -> str:
    """The text of a layout: lines of at most `width` columns where the layout allows."""
    return _join(_Printer(width).run(doc))


# ---------------------------------------------------------------- the printer

_BREAK, _FLAT = True, False


class _AssignValue:
    """The value of an `Assign` whose head is printed: where it goes is decided here."""

    __slots__ = ("assign",)

    def __init__(self, assign: Assign):
        self.assign = assign


class _FillRest:
    """The items of a broken Fill still to print, from `index` on."""

    __slots__ = ("index", "items")

    def __init__(self, items: list, index: int):
        self.items = items
        self.index = index


class _Printer:
    def __init__(self, width: int):
        self.width = width
        self.rows: list[Row] = []
        self.parts: list[str] = []
        self.indent = 0
        self.pos = 0
        self.suffixes: list[str] = []

    def run(self, doc: Doc) -> list[Row]:
        stack: list[tuple[int, bool, object]] = [(0, _BREAK, doc)]
        while stack:
            indent, mode, d = stack.pop()
            kind = type(d)
            if kind is str:
                self.parts.append(d)
                self.pos += len(d)
            elif kind is Concat:
                stack.extend((indent, mode, part) for part in reversed(d.parts))
            elif kind is Nest:
                stack.append((indent + d.width, mode, d.doc))
            elif kind is Group:
                flat = mode is _FLAT or (
                    not d.forced and self._fits(d.doc, self.width - self.pos, stack)
                )
                stack.append((indent, _FLAT if flat else _BREAK, d.doc))
            elif kind is Line:
                if mode is _FLAT and not d.hard:
                    self.parts.append(d.flat)
                    self.pos += len(d.flat)
                else:
                    self._newline(indent, d.blank)
            elif kind is Assign:
                whole = Concat(d.head, " ", d.value)
                if mode is _FLAT or (
                    not d.forced and self._fits(whole, self.width - self.pos, stack)
                ):
                    stack.append((indent, _FLAT, whole))
                else:
                    stack.append((indent, _BREAK, _AssignValue(d)))
                    stack.append((indent, _BREAK, d.head))
            elif kind is _AssignValue:
                self._assign_value(d.assign, indent, stack)
            elif kind is IfFits:
                fits = mode is _FLAT or self._fits(d.test, self.width - self.pos, [])
                stack.append((indent, mode, d.then if fits else d.otherwise))
            elif kind is Fill:
                self._fill(d, indent, mode, stack)
            elif kind is _FillRest:
                self._fill_rest(d, indent, stack)
            elif kind is LineSuffix:
                if "".join(self.parts).strip():
                    self.suffixes.append(d.text)
                else:  # nothing on this line to trail (its token printed nothing): a line of its own
                    self.rows.append(Row(indent, d.text))
            elif kind is Comments:
                self._comments(d, indent)
            else:
                raise TypeError(f"not a layout: {d!r}")
        self._newline(0, False)
        while self.rows and not self.rows[-1].code:
            self.rows.pop()
        return self.rows

    def _at_line_start(self) -> bool:
        return not any(self.parts)  # nothing printed on this line yet (empty texts aside)

    def _newline(self, indent: int, blank: bool) -> None:
        code = "".join(self.parts).rstrip()
        comment = " ".join(self.suffixes) or None
        if code:
            self.rows.append(Row(self.indent, code, comment))
        if blank and self.rows and self.rows[-1].code:
            self.rows.append(Row(0, ""))
        self.parts = []
        self.suffixes = []
        self.indent = indent
        self.pos = indent

    def _comments(self, d: Comments, indent: int) -> None:
        if not self._at_line_start() or self.suffixes:
            self._newline(indent, False)
        for comment in d.items:
            if comment.blank_before and self.rows and self.rows[-1].code:
                self.rows.append(Row(0, ""))
            self.rows.append(Row(indent, comment.text))
        self._newline(indent, d.blank_after)

    def _assign_value(self, d: Assign, indent: int, stack: list) -> None:
        value = d.value
        inner = indent + INDENT
        forced = type(value) is not str and value.forced
        if not forced and self._fits(value, self.width - inner, stack):
            self._newline(inner, False)
            stack.append((inner, _FLAT, value))
        elif d.hug:
            self.parts.append(" ")
            self.pos += 1
            stack.append((indent, _BREAK, value))
        else:
            self._newline(inner, False)
            stack.append((inner, _BREAK, value))

    def _fill(self, d: Fill, indent: int, mode: bool, stack: list) -> None:
        if not d.items:
            return
        if mode is _FLAT:
            parts: list = []
            for item in d.items:
                parts += [" ", item] if parts else [item]
            stack.append((indent, _FLAT, Concat(*parts)))
            return
        if len(d.items) > 1:
            stack.append((indent, _BREAK, _FillRest(d.items, 1)))
        first = d.items[0]
        stack.append((indent, self._mode_of(first, stack if len(d.items) == 1 else []), first))

    def _fill_rest(self, d: _FillRest, indent: int, stack: list) -> None:
        item = d.items[d.index]
        last = d.index + 1 == len(d.items)
        if not last:
            stack.append((indent, _BREAK, _FillRest(d.items, d.index + 1)))
        rest = stack if last else []
        forced = type(item) is not str and item.forced
        if self._at_line_start():  # the item before ended its line (a trailing comment)
            self.indent = self.pos = indent
            stack.append((indent, self._mode_of(item, rest), item))
        elif not self.suffixes and not forced and self._fits(item, self.width - self.pos - 1, rest):
            self.parts.append(" ")
            self.pos += 1
            stack.append((indent, _FLAT, item))
        else:
            self._newline(indent, False)
            stack.append((indent, self._mode_of(item, rest), item))

    def _mode_of(self, item, rest: list) -> bool:
        forced = type(item) is not str and item.forced
        return _FLAT if not forced and self._fits(item, self.width - self.pos, rest) else _BREAK

    def _fits(self, doc, room: int, rest: list) -> bool:
        """Whether `doc` flat, then `rest` up to its next line break, fits in `room` columns."""
        todo: list[tuple[bool, object]] = [(_FLAT, doc)]
        next_rest = len(rest)
        while room >= 0:
            if not todo:
                if next_rest == 0:
                    return True
                next_rest -= 1
                _, mode, d = rest[next_rest]
                todo.append((mode, d))
                continue
            mode, d = todo.pop()
            kind = type(d)
            if kind is str:
                room -= len(d)
            elif kind is Concat:
                todo.extend((mode, part) for part in reversed(d.parts))
            elif kind is Nest:
                todo.append((mode, d.doc))
            elif kind is Group:
                todo.append((_BREAK if d.forced and mode is _BREAK else mode, d.doc))
            elif kind is Line:
                if mode is _BREAK or d.hard:
                    return True
                room -= len(d.flat)
            elif kind is Assign:
                todo.append((mode, Concat(d.head, " ", d.value)))
            elif kind is IfFits:
                todo.append((mode, d.then))
            elif kind is Fill:
                for index, item in enumerate(reversed(d.items)):
                    todo.append((mode, item))
                    if index < len(d.items) - 1:
                        todo.append((mode, LINE))
            elif kind is _FillRest or kind is _AssignValue or kind is Comments:
                return True
        return False


def _join(rows: list[Row]) -> str:
    """The rows as text, trailing comments aligned in runs (see `_runs`)."""
    out: list[str] = []
    for run in _runs(rows):
        commented = [row.indent + len(row.code) for row in run if row.comment is not None]
        column = max(commented, default=0)
        for row in run:
            line = " " * row.indent + row.code
            if row.comment is not None:
                line = line.ljust(column) + "  " + row.comment
            out.append(line)
    return "\n".join(out) + "\n" if out else ""


def _runs(rows: list[Row]) -> list[list[Row]]:
    """Rows grouped for aligning comments: adjacent rows of one indentation; a blank row alone."""
    runs: list[list[Row]] = []
    for row in rows:
        previous = runs[-1][-1] if runs else None
        if previous is not None and row.code and previous.code and row.indent == previous.indent:
            runs[-1].append(row)
        else:
            runs.append([row])
    return runs
