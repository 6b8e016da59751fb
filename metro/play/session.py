"""`metro play`: a game in the terminal for people, against bots or each other at one terminal.

Every word on the screen comes from the rules: fields under their declared headings, values
and moves by their labels (runtime/display.py, metro/play/moves.py). A person answers with the
number of a choice, its id, or part of its label to list the matching ones; `help`, `undo`,
`save FILE` and `q` are commands. Several people at one terminal (hot seat) each get a clear
screen, so nobody sees another's secrets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from rich import box
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from dsl.terminal import printable
from metro.bots import make_bot
from metro.play.menus import Choice, Kind, Menu, numbered
from metro.play.moves import MoveLog, replayed
from metro.play.saved_games import Setup, write_save
from metro.play.screen import PROMPT_LINES, Section, fitted, paged, screen_height, sections
from runtime.display import Screen
from runtime.errors import IllegalAction, RuleError
from runtime.machine import Action, Game, State
from runtime.values import PLAYER

MOST_LISTED = 40  # choices listed at once (fewer if the screen is smaller)
RECENT_MOVES = 8  # the others' moves shown before a decision (the screen must fit)
NUMBER = re.compile(r"\d+(?:\.\d+)?")  # `3`, or `3.2`: the second choice of kind 3
PLACES = {1: "1st", 2: "2nd", 3: "3rd"}

HELP = """\
Answer with:
  a number            take that choice: `3`, or `3.2` for the second of kind 3
                      (a kind of choice keeps its number; its number alone lists its choices)
  an action id        e.g. {example}
  part of a label     list the matching choices (several words: all must match)
  table, players, yours   show that part of the screen, a page at a time
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
    sections: dict[str, Section] = field(default_factory=dict)  # by name, as last shown

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
        if lowered in self.sections:
            self.show_section(lowered)
            return ASK_AGAIN
        menu = self.menu(actions)
        if NUMBER.fullmatch(answer):
            found = menu.find(answer)
            if isinstance(found, Choice):
                return found.action
            if isinstance(found, Kind):
                self.list_choices(list(found.choices))
                return ASK_AGAIN
            self.say(f"There is no choice {answer}: the choices are {menu.numbers()}.")
            return ASK_AGAIN
        for choice in menu.choices:
            if answer == choice.action.id:
                return choice.action
        if answer:
            matches = [c for c in menu.choices if _matches(c.action, answer)]
            if matches:
                self.list_choices(matches)
                return ASK_AGAIN
        self.say(
            f"'{answer}' is not one of the choices: type a number ({menu.numbers()}), "
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
        """One screen that fits the terminal: the header, the table, the players and the
        viewer's secrets as far as they fit, the others' recent moves, the menu."""
        screen = self.state.display(player)
        recent = self.recent_moves(player)
        moves = None
        if recent:
            lines = Text("\n".join(recent), no_wrap=True, overflow="ellipsis")
            moves = Panel(lines, title="Moves since your last turn", box=box.ASCII, expand=False)
        self.sections = {part.name: part for part in sections(screen)}
        menu = self.menu(actions)
        for part in fitted(
            self.console, self.header(screen), moves, menu, list(self.sections.values())
        ):
            self.console.print(part)

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

    def menu(self, actions: list[Action]) -> Menu:
        """The numbered menu of these actions at the current decision."""
        return numbered(actions, self.state.game.sites[self.state.site].kind)

    def list_choices(self, choices: list[Choice]) -> None:
        """Choices (a typed filter's matches, or a kind's), with their numbers."""
        room = min(screen_height(self.console) - PROMPT_LINES - 1, MOST_LISTED)
        shown = choices[:room]
        for choice in shown:
            self.say(f"{choice.number:>6}. {choice.action.label}")
        if len(choices) > len(shown):
            self.say(
                f"... and {len(choices) - len(shown)} more: type words of the one you want to narrow the list."
            )

    def show_section(self, name: str) -> None:
        """A part of the screen left out to fit, a page at a time."""
        paged(self.console, self.sections[name].renderable, self.more)

    def more(self) -> bool:
        """Between two pages: Enter for the next one, anything else to stop."""
        try:
            return self.console.input("-- more: press Enter (or q to stop) --").strip() == ""
        except EOFError:
            return False

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
