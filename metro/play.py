"""`metro play`: a game in the terminal for people, against bots or each other at one terminal.

Every word on the screen comes from the rules: fields under their declared headings, values
and moves by their labels (runtime/display.py, metro/moves.py). A person answers with the
number of a choice, its id, or part of its label to list the matching ones; `help`, `undo`,
`save FILE` and `q` are commands. Several people at one terminal (hot seat) each get a clear
screen, so nobody sees another's secrets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from rich import box
from rich.columns import Columns
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from dsl.terminal import printable
from metro.bots import make_bot
from metro.moves import MoveLog, replayed
from metro.saved_games import Setup, write_save
from runtime.display import Grid, Line, Screen
from runtime.errors import IllegalAction, RuleError
from runtime.machine import Action, Game, State
from runtime.values import PLAYER, plain_words

MENU_LIMIT = 30  # longer menus are shown as groups, one line per action name
FILTER_LIMIT = 40  # matches listed for a typed filter before asking for more letters
RECENT_MOVES = 12  # the others' moves shown before a decision
PLACES = {1: "1st", 2: "2nd", 3: "3rd"}

HELP = """\
Answer with:
  a number            take that choice (numbers stay the same while you filter)
  an action id        e.g. {example}
  part of a label     list the matching choices (several words: all must match)
  help                this text
  undo                take back your last decision (only when the others are bots)
  save FILE           save the game; continue it with `metro play --load FILE`
  q                   leave the game"""


class Reply(Enum):
    """What a person's answer asks of the session when it is not an action to take."""

    QUIT = "leave the game"
    UNDONE = "the position was taken back: ask whoever is to move now"
    ASK_AGAIN = "nothing taken: ask the same question again"


QUIT, UNDONE, ASK_AGAIN = Reply.QUIT, Reply.UNDONE, Reply.ASK_AGAIN


@dataclass
class Session:
    """One game at the terminal: the position, the bots, the log of moves, the console."""

    game: Game
    setup: Setup
    state: State
    console: Console
    log: MoveLog = field(default_factory=MoveLog)
    bots: dict = field(default_factory=dict)
    seen_up_to: dict[int, int] = field(default_factory=dict)  # person -> moves already shown
    seen_hidden: dict[int, set[int]] = field(default_factory=dict)  # person -> moves shown secret
    last_person: int | None = None

    def __post_init__(self) -> None:
        self.bots = {
            seat: make_bot(spec, f"{self.setup.seed}/{seat}", self.game)
            for seat, spec in self.setup.bots.items()
        }

    # ------------------------------------------------------------ the loop

    def run(self) -> bool:
        """Play until the end (True) or until a person leaves (False)."""
        while self.state.to_move:
            player = self.state.to_move[0]
            if player in self.bots:
                self.take(player, self.bots[player].choose(self.state, player))
                continue
            action = self.ask(player)
            if action is QUIT:
                self.say("You left the game.")
                return False
            if action is not UNDONE:  # after an undo, whoever is to move now is asked afresh
                self.take(player, action)
        self.end_screen()
        return True

    def take(self, player: int, action: Action) -> None:
        """Apply a decision, noting it in the log first."""
        self.log.record(self.state, player, action)
        self.state.apply(player, action)

    def say(self, text: str = "", style: str | None = None) -> None:
        """Print text that may quote rule files (never read as markup)."""
        self.console.print(Text(printable(text, keep="\n"), style=style))

    # ------------------------------------------------------------ a person's decision

    def ask(self, player: int) -> Action | Reply:
        """Show `player` their screen and menu; their answer's action, QUIT, or UNDONE."""
        if len(self.setup.humans) > 1 and self.last_person not in (None, player):
            self.hand_over(player)
        self.last_person = player
        actions = self.state.legal_actions(player)
        self.show(player, actions)
        while True:
            try:
                answer = self.console.input(f"{PLAYER.label(player)}, your choice> ").strip()
            except EOFError:
                return QUIT
            result = self.answer(player, actions, answer)
            if result is not ASK_AGAIN:
                return result

    def hand_over(self, player: int) -> None:
        """Hot seat: a clear screen, and the next person confirms they are at the terminal."""
        self.console.clear()
        self.say(f"{PLAYER.label(player)}'s turn. Pass the terminal to {PLAYER.label(player)}.")
        try:
            self.console.input("Press Enter when you are ready. ")
        except EOFError:
            return
        self.console.clear()

    def answer(self, player: int, actions: list[Action], answer: str) -> Action | Reply:
        """Act on one answer: an Action to take, QUIT, UNDONE, or ASK_AGAIN."""
        lowered = answer.lower()
        if lowered in ("q", "quit", "exit"):
            return QUIT
        if lowered in ("help", "?", "h"):
            self.say(HELP.format(example=actions[-1].id))
            return ASK_AGAIN
        if lowered == "undo":
            return UNDONE if self.undo(player) else ASK_AGAIN
        if lowered.startswith("save"):
            self.save(answer[4:].strip())
            return ASK_AGAIN
        if answer.isdigit():
            number = int(answer)
            if 1 <= number <= len(actions):
                return actions[number - 1]
            self.say(f"There is no choice {number}: the choices are numbered 1 to {len(actions)}.")
            return ASK_AGAIN
        for action in actions:
            if answer == action.id:
                return action
        if answer:
            matches = [(n, a) for n, a in enumerate(actions, 1) if _matches(a, answer)]
            if matches:
                self.list_choices(matches)
                return ASK_AGAIN
        self.say(
            f"'{answer}' is not one of the choices: type a number from 1 to {len(actions)}, "
            "part of a choice's words to list the matching ones, or help."
        )
        return ASK_AGAIN

    def undo(self, player: int) -> bool:
        """Back to `player`'s previous decision, replaying the game without the moves since;
        False (having said why) when there is none to go back to."""
        if len(self.setup.humans) > 1:
            self.say("Undo is only for games against bots (the others would lose their moves).")
            return False
        mine = [i for i, (p, _) in enumerate(self.state.history) if p == player]
        if not mine:
            self.say("There is no earlier decision of yours to go back to.")
            return False
        history = self.state.history[: mine[-1]]
        try:
            self.state, self.log = replayed(self.game, self.state.n, self.state.seed, history)
        except (
            IllegalAction,
            RuleError,
            ValueError,
        ):  # a loaded save whose history does not replay
            self.say("This game's history cannot be replayed, so it cannot be undone.")
            return False
        self.seen_up_to[player] = 0
        self.seen_hidden[player] = set()
        self.say("Back to your previous decision.", style="bold")
        return True

    def save(self, path: str) -> None:
        """Write the game to `path` (JSON: the setup and the validated state)."""
        if not path:
            self.say("Name the file: save FILE")
            return
        try:
            write_save(path, self.setup, self.state)
        except OSError as error:
            self.say(f"Cannot write {path}: {error.strerror or error}")
            return
        self.say(f"Saved to {path}. Continue with: metro play --load {path}")

    # ------------------------------------------------------------ the screen

    def show(self, player: int, actions: list[Action]) -> None:
        """The table, the players, the viewer's secrets, the others' recent moves, the menu."""
        screen = self.state.display(player)
        self.console.print(self.header(screen))
        self.console.print(_table_section(screen))
        self.console.print(_players(screen.players, screen.viewer))
        if screen.private:
            self.console.print(
                _lines(screen.private, f"Yours ({screen.viewer}, hidden from the others)")
            )
        recent = self.recent_moves(player)
        if recent:
            self.console.print(
                Panel(
                    Text("\n".join(recent)),
                    title="Moves since your last turn",
                    box=box.ASCII,
                    expand=False,
                )
            )
        self.menu(actions)

    def header(self, screen: Screen) -> Text:
        """`<game name> — you are P1; to move: P1`."""
        to_move = ", ".join(screen.to_move) or "nobody"
        text = f"{screen.game}: you are {screen.viewer}; to move: {to_move}"
        return Text(printable(text), style="bold")

    def recent_moves(self, player: int) -> list[str]:
        """The moves since `player` last saw the screen (at most RECENT_MOVES), as they may read them."""
        start = self.seen_up_to.get(player, 0)
        hidden = self.seen_hidden.setdefault(player, set())
        revealed = [i for i in sorted(hidden) if i < start and not self.log.moves[i].hidden]
        hidden.difference_update(revealed)
        indices = revealed + list(range(start, len(self.log.moves)))
        self.seen_up_to[player] = len(self.log.moves)
        lines = []
        for i in indices:
            move = self.log.moves[i]
            if move.player == player:
                continue
            if move.hidden:
                hidden.add(i)
            prefix = "revealed: " if i < start else ""
            lines.append(prefix + printable(move.line(player)))
        if len(lines) > RECENT_MOVES:
            lines = [f"({len(lines) - RECENT_MOVES} earlier moves)"] + lines[-RECENT_MOVES:]
        return lines

    def menu(self, actions: list[Action]) -> None:
        """The numbered choices, grouped by action; long menus summarised by group."""
        groups = _groups(actions)
        if len(actions) <= MENU_LIMIT:
            table = Table(box=None, show_header=False, padding=(0, 1))
            table.add_column(justify="right")
            table.add_column()
            for name, first, last in groups:
                if len(groups) > 1 and last > first:
                    table.add_row("", Text(plain_words(name), style="bold"))
                for number in range(first, last + 1):
                    table.add_row(f"{number}.", Text(printable(actions[number - 1].label)))
            self.console.print(Panel(table, title="Your choices", box=box.ASCII, expand=False))
            return
        table = Table(box=None, show_header=False, padding=(0, 1))
        table.add_column(justify="right")
        table.add_column()
        for first, last, text in _summary(actions, groups):
            numbers = f"{first}." if first == last else f"{first}-{last}."
            table.add_row(numbers, Text(printable(text)))
        self.console.print(
            Panel(table, title=f"Your choices ({len(actions)})", box=box.ASCII, expand=False)
        )
        self.say(
            "Type part of a choice (e.g. a name in it) to list the matching ones with their numbers."
        )

    def list_choices(self, matches: list[tuple[int, Action]]) -> None:
        """The choices a typed filter matched, with their numbers."""
        shown = matches[:FILTER_LIMIT]
        for number, action in shown:
            self.say(f"{number:>5}. {action.label}")
        if len(matches) > len(shown):
            self.say(
                f"... and {len(matches) - len(shown)} more: type more words to narrow the list."
            )

    # ------------------------------------------------------------ the end

    def end_screen(self) -> None:
        """Every player's score, its breakdown from the rules, and the places."""
        state = self.state
        self.say("")
        self.say(
            "Game over." if state.is_over else "The game stopped: nobody can move.", style="bold"
        )
        scores, places = state.scores(), state.ranking()
        order = sorted(range(state.n), key=lambda p: (places[p], p))
        table = Table(box=box.ASCII, title="Final scores")
        table.add_column("")
        for p in order:
            you = " (you)" if p in self.setup.humans else ""
            table.add_column(
                f"{PLACES.get(places[p], f'{places[p]}th')}: {PLAYER.label(p)}{you}",
                justify="right",
            )
        breakdowns = [state.breakdown(p) for p in order]
        for index, (heading, _) in enumerate(breakdowns[0] if breakdowns else []):
            if all(b[index][1] == "0" for b in breakdowns):
                continue  # a source nobody used (no loans taken, no cards bought)
            table.add_row(
                Text(printable(heading)), *(Text(printable(b[index][1])) for b in breakdowns)
            )
        table.add_row(
            Text("Score", style="bold"), *(Text(str(scores[p]), style="bold") for p in order)
        )
        self.console.print(table)
        winners = [PLAYER.label(p) for p in state.winners()]
        self.say(
            f"Winner: {', '.join(winners)}"
            if len(winners) == 1
            else f"Winners: {', '.join(winners)}"
        )


def _matches(action: Action, typed: str) -> bool:
    """True if every word typed is part of the action's label or id (ignoring case)."""
    text = f"{action.label} {action.id}".lower()
    return all(word in text for word in typed.lower().split())


def _groups(actions: list[Action]) -> list[tuple[str, int, int]]:
    """Runs of one action name: (name, first number, last number), numbers 1-based."""
    out: list[tuple[str, int, int]] = []
    for number, action in enumerate(actions, 1):
        if out and out[-1][0] == action.name and out[-1][2] == number - 1:
            out[-1] = (action.name, out[-1][1], number)
        else:
            out.append((action.name, number, number))
    return out


def _summary(actions: list[Action], groups) -> list[tuple[int, int, str]]:
    """A long menu in lines: (first, last, text) per action name, or per name and first
    argument when that still fits (`place a cube at … (6 choices)`)."""
    finer: list[tuple[str, int, int]] = []
    for name, first, last in groups:
        for number in range(first, last + 1):
            key = (name, actions[number - 1].args[:1])
            if finer and finer[-1][0] == key:
                finer[-1] = (key, finer[-1][1], number)
            else:
                finer.append((key, number, number))
    chosen = finer if len(finer) <= MENU_LIMIT else groups
    out = []
    for key, first, last in chosen:
        if first == last:
            out.append((first, last, actions[first - 1].label))
            continue
        prefix = _common_words([actions[n - 1].label for n in range(first, last + 1)])
        words = plain_words(key[0] if isinstance(key, tuple) else key)
        shown = f"{prefix} …" if len(prefix) > len(words) else words
        out.append((first, last, f"{shown} ({last - first + 1} choices)"))
    return out


def _common_words(labels: list[str]) -> str:
    """The words every label starts with (`place cube at`), up to a colon that begins details
    (`claim Atlanta–Nashville (1, gray)`, not `…: 1`)."""
    common = labels[0].split(" ")
    for label in labels[1:]:
        words = label.split(" ")
        size = 0
        while size < min(len(common), len(words)) and common[size] == words[size]:
            size += 1
        common = common[:size]
    colons = [i for i, word in enumerate(common) if word.endswith(":")]
    if colons:
        common = common[: colons[-1] + 1]
    return " ".join(common).rstrip(":,;")


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
