"""What `metro play` prints for one decision, fitted to the terminal so nobody scrolls back.

The screen holds the header, the others' recent moves and the menu; then the viewer's secrets,
the players and the table, each whole, as far as they fit in the terminal's height. A section
left out is named on the screen, and a person types its name to page through it.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich import box
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from dsl.terminal import printable
from metro.play.menus import Menu
from runtime.display import Grid, Line, Screen

# Lines kept free below the screen: the prompt, and the line the answer leaves.
PROMPT_LINES = 2
# The smallest height a screen is fitted to (a terminal that reports less is taken as this).
MIN_HEIGHT = 24
# The height taken for output that is not a terminal: everything is shown, nothing paged.
UNFITTED_LINES = 10**6
# The sections a person may ask for by name, in the order they are offered room on the screen.
ROOM_ORDER = ("yours", "players", "table")


@dataclass
class Section:
    """A part of the screen a person may ask for by name."""

    name: str
    renderable: RenderableType


def sections(screen: Screen) -> list[Section]:
    """The table, the players and the viewer's secrets, in the order they are shown."""
    out = []
    table = _table_section(screen)
    if table.renderables:
        out.append(Section("table", table))
    out.append(Section("players", _players(screen.players, screen.viewer)))
    if screen.private:
        title = f"Yours ({screen.viewer}, hidden from the others)"
        out.append(Section("yours", _lines(screen.private, title)))
    return out


def height_of(console: Console, renderable: RenderableType) -> int:
    """How many lines `renderable` takes at the console's width."""
    return len(console.render_lines(renderable, console.options, pad=False))


def screen_height(console: Console) -> int:
    """The lines a screen may take (output to a file or a pipe is never cut to fit)."""
    return max(console.size.height, MIN_HEIGHT) if console.is_terminal else UNFITTED_LINES


def fitted(
    console: Console, header: Text, recent: RenderableType | None, menu: Menu, parts: list[Section]
) -> list[RenderableType]:
    """The screen for a decision: header, the sections that fit, recent moves, the menu.

    The menu gets up to a third of the room first (every kind on a line at least), then the
    sections that fit whole, then the menu whatever room is left."""
    room = screen_height(console) - PROMPT_LINES - height_of(console, header) - 1  # the hint
    if recent is not None:
        room -= height_of(console, recent)
    menu_room = _lines_of(console, menu_lines(console, menu, room // 3))
    heights = {part.name: height_of(console, part.renderable) for part in parts}
    kept = set()
    for name in ROOM_ORDER:
        if name in heights and heights[name] <= room - menu_room:
            kept.add(name)
            room -= heights[name]
    shown_menu = menu_lines(console, menu, room)
    left_out = [part.name for part in parts if part.name not in kept]
    out: list[RenderableType] = [header]
    out += [part.renderable for part in parts if part.name in kept]
    if recent is not None:
        out.append(recent)
    out += shown_menu
    if left_out:
        names = ", ".join(left_out)
        out.append(Text(f"To fit the screen, not shown: {names} (type its name to see it)."))
    return out


def menu_lines(console: Console, menu: Menu, room: int) -> list[RenderableType]:
    """The menu in at most `room` lines where it can be: kinds with several choices listed in
    full, smallest first, while they fit; the others on one line each."""
    title = Text("Your choices", style="bold")
    expanded: set[str] = set()
    lines = _menu(menu, expanded)
    by_size = sorted((k for k in menu.kinds if len(k.choices) > 1), key=lambda k: len(k.choices))
    for kind in by_size:
        if len(kind.choices) >= room:  # a line each at least: it cannot fit
            break
        trial = _menu(menu, expanded | {kind.number})
        if _lines_of(console, [title, *trial]) <= room:
            expanded.add(kind.number)
            lines = trial
    return [title, *lines]


def _lines_of(console: Console, lines: list[RenderableType]) -> int:
    return sum(height_of(console, line) for line in lines)


def _menu(menu: Menu, expanded: set[str]) -> list[RenderableType]:
    lines = []
    for kind in menu.kinds:
        count = len(kind.choices)
        if count == 1:
            lines.append(_choice_line(kind.choices[0].number, kind.choices[0].action.label))
            continue
        if kind.number in expanded:
            if kind.number:  # a kind among others: its heading (a choice's values need none)
                heading = f"{kind.heading} … ({count} choices)"
                lines.append(_choice_line(kind.number, heading, bold=True))
            lines += [_choice_line(c.number, c.action.label) for c in kind.choices]
        elif kind.number:
            heading = f"{kind.heading} … ({count} choices: type {kind.number} to list them)"
            lines.append(_choice_line(kind.number, heading, bold=True, one_line=True))
        else:
            first, last = kind.choices[0].number, kind.choices[-1].number
            heading = f"{kind.heading} … ({count} choices: type part of one to list them)"
            lines.append(_choice_line(f"{first}-{last}", heading, bold=True, one_line=True))
    return lines


def _choice_line(number: str, label: str, bold: bool = False, one_line: bool = False) -> Table:
    # A grid keeps a wrapped label's lines to the right of its number.
    line = Table.grid(padding=(0, 1))
    line.add_column(justify="right", min_width=6, no_wrap=True)
    line.add_column(overflow="ellipsis" if one_line else "fold", no_wrap=one_line)
    style = "bold" if bold else None
    line.add_row(Text(f"{number}.", style=style), Text(printable(label), style=style))
    return line


def paged(console: Console, renderable: RenderableType, ask_more) -> None:
    """Print `renderable` a screen at a time; `ask_more()` is False to stop early."""
    lines = console.render_lines(renderable, console.options, pad=False, new_lines=True)
    page = screen_height(console) - PROMPT_LINES
    for start in range(0, len(lines), page):
        if start and not ask_more():
            return
        for line in lines[start : start + page]:
            console.print(Text.assemble(*((s.text, s.style) for s in line)), end="")


def _lines(lines, title: str) -> Panel:
    table = Table(box=None, show_header=False, padding=(0, 1))
    table.add_column(style="bold")
    table.add_column()
    for line in lines:
        table.add_row(Text(printable(line.heading)), Text(printable(line.text)))
    return Panel(table, title=title, box=box.ASCII, expand=False)


def _grid(grid: Grid, title: str, highlight: str | None = None) -> Table:
    table = Table(box=box.ASCII, title=printable(title), title_justify="left")
    table.add_column(Text(printable(grid.heading)))
    for column in grid.columns:
        label = f"{column} (you)" if column == highlight else column
        table.add_column(Text(printable(label)))
    for row in grid.rows:
        # A multi-line cell is a picture (a floor plan): cropped, never wrapped.
        table.add_row(*(Text(printable(cell, keep="\n"), no_wrap="\n" in cell) for cell in row))
    return table


def _players(grid: Grid, viewer: str | None) -> Group:
    """Every player's values side by side; pictures (a floor plan) below, a panel per player,
    wrapped to the terminal's width rather than squeezed into a column."""
    pictures = [row for row in grid.rows if any("\n" in cell for cell in row[1:])]
    plain = Grid(grid.heading, grid.columns, tuple(r for r in grid.rows if r not in pictures))
    parts: list = [_grid(plain, "Players", highlight=viewer)]
    for heading, *cells in pictures:
        panels = [
            Panel(
                Text(printable(cell, keep="\n"), no_wrap=True),
                title=printable(f"{column}{' (you)' if column == viewer else ''}: {heading}"),
                box=box.ASCII,
                expand=False,
            )
            for column, cell in zip(grid.columns, cells, strict=True)
        ]
        parts.append(Columns(panels))
    return Group(*parts)


def _table_section(screen: Screen) -> Group:
    """The shared table: plain values together, then each table of values keyed by a kind."""
    lines = [item for item in screen.table if isinstance(item, Line)]
    grids = [item for item in screen.table if isinstance(item, Grid)]
    parts = [_lines(lines, "Table")] if lines else []
    parts += [_grid(g, "" if len(g.columns) == 1 else f"By {g.heading}") for g in grids]
    return Group(*parts)
