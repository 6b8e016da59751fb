"""The moves of a game in words, as each player may read them.

A move reads as its label (from the rules) to everyone who may know it: its player always;
the others unless it is secret. A simultaneous choice (`each … choose`) stays secret until
everyone has chosen, then all of them are revealed together (the bids); a choice among the
chooser's own secrets (which cards of a private hand to keep) is private: the others learn only that it was
made. The log is rebuilt from a game's seed and history by replaying it (`replayed`), and a
replay asks how a move read at any earlier point (`Move.text(viewer, after)`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.machine import Action, Game, State
from runtime.values import PLAYER, plain_words

MAX_LAST = 12  # the most moves marked on a board as the last ones


@dataclass
class Move:
    """One decision: who, what, and how much of it the others may know, and from when."""

    step: int  # its place in the history (0: the first decision)
    player: int
    action: Action
    private: bool  # only its player may know what was chosen
    secret: bool  # taken at a simultaneous choice
    revealed: int | None  # decisions taken when the others learn it; None: not yet

    @property
    def hidden(self) -> bool:
        """A simultaneous choice not yet revealed (not everyone has chosen yet)."""
        return self.revealed is None

    def known_to(self, viewer: int | None, after: int | None = None) -> bool:
        """Whether `viewer` (None: a spectator) may know what was chosen once `after` decisions
        were taken (None: now)."""
        if viewer == self.player:
            return True
        if self.revealed is None or (after is not None and after < self.revealed):
            return False
        return not self.private

    def text(self, viewer: int | None, after: int | None = None) -> str:
        """The move as `viewer` reads it (None: a spectator) once `after` decisions were taken
        (None: now)."""
        if self.known_to(viewer, after):
            return self.action.label
        if self.revealed is None or (after is not None and after < self.revealed):
            return "has chosen (in secret)"
        return f"made a private choice ({plain_words(self.action.name)})"

    def line(self, viewer: int | None, after: int | None = None) -> str:
        """`P2: take the face-up red`."""
        return f"{PLAYER.label(self.player)}: {self.text(viewer, after)}"


@dataclass
class MoveLog:
    """Every move of a game so far; secret ones revealed once their simultaneous choice ends."""

    moves: list[Move] = field(default_factory=list)

    def record(self, before: State, player: int, action: Action) -> None:
        """Note `player`'s `action`, taken at position `before` (call it before applying)."""
        site = before.game.sites[before.site]
        step = len(before.history)
        # A move of a menu is made in the open (what it spends shows as it is played).
        private = site.private and site.kind != "actions"
        move = Move(step, player, action, private, site.secret, None if site.secret else step + 1)
        self.moves.append(move)
        if site.secret and before.to_move == [player]:  # the last to choose: all are revealed
            for earlier in reversed(self.moves):
                if not earlier.hidden:
                    break
                earlier.revealed = step + 1

    def since(self, step: int) -> list[Move]:
        """The moves made at or after decision number `step`."""
        return [m for m in self.moves if m.step >= step]


def last_moves(moves: list[Move], viewer: int | None) -> list[Move]:
    """The moves to mark on a viewer's board: their own last one and every one since (a
    spectator, or a player yet to move: the last one), at most MAX_LAST, those it may know."""
    start = max(len(moves) - 1, 0)
    for index in range(len(moves) - 1, -1, -1):
        if moves[index].player == viewer:
            start = index
            break
    recent = moves[max(start, len(moves) - MAX_LAST) :]
    return [move for move in recent if move.known_to(viewer, len(moves))]


def replayed(
    game: Game, players: int, seed, history: list[tuple[int, Action | str]]
) -> tuple[State, MoveLog]:
    """A game replayed from its seed and history, with the log of its moves."""
    state = game.new_game(players, seed)
    log = MoveLog()
    for player, action in history:
        if isinstance(action, str):
            action = state.game.parse_action(action)
        log.record(state, player, action)
        state.apply(player, action)
    return state, log
