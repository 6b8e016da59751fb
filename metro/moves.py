"""How the moves of a game read to each player: in words, and only once they may know them.

A move of a menu (`choose by p { … }`) is seen by everyone as it is made. A simultaneous
(secret) choice is seen by the others only once everyone has chosen: until then it reads
`has chosen (in secret)`. A choice among private things (its domain reads a
field only its owner sees) is never seen by the others beyond its name.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.builtins import BUILTINS
from compiler.checked import CheckedProgram
from compiler.refs import GlobalRef, PlayerFieldRef
from dsl import ast
from dsl.visitor import walk
from runtime.machine import Action, Game
from runtime.values import PLAYER


@dataclass(frozen=True)
class Move:
    """One decision of a game: who took which action, and when the others learn it."""

    step: int  # its place in the history (0: the first decision)
    player: int
    action: Action
    secret: bool  # taken at a simultaneous choice
    revealed: int  # the first step after which the others may see it (its own step + 1 if open)
    private: bool  # its arguments are private to its player (others only ever see its name)

    def text(self, viewer: int | None, after: int) -> str:
        """The move as `viewer` (None: anyone) reads it once `after` decisions were taken."""
        who = PLAYER.label(self.player)
        if viewer == self.player:
            return f"{who}: {self.action.label}"
        if self.secret and after < self.revealed:
            return f"{who} has chosen (in secret)"
        if self.private:
            return f"{who} chose {self.action.name.replace('_', ' ')}"
        return f"{who}: {self.action.label}"


def private_choices(cp: CheckedProgram) -> frozenset[str]:
    """Names of the choices and actions whose options depend on what only their chooser sees."""
    p = cp.program
    private = set()
    for name, versions in p.actions.items():
        decl = versions.active
        parts = [decl.when, *(param.where for param in decl.params)]
        parts += [_domain(param.domain) for param in decl.params]
        if any(_reads_private(cp, part) for part in parts if part is not None):
            private.add(name)
    bodies = [v for t in (p.procedures, p.actions) for vs in t.values() for v in vs.versions]
    if p.flow is not None:
        bodies += p.flow.versions
    for body in bodies:
        for node in walk(body):
            if isinstance(node, ast.Choose | ast.EachChoose):
                parts = (node.where, _domain(node.domain))
                if any(_reads_private(cp, part) for part in parts if part is not None):
                    private.add(node.name)
    return frozenset(private)


def game_moves(game: Game, players: int, seed, history, private: frozenset[str]) -> list[Move]:
    """The moves of a recorded game, replayed to learn when each secret one was revealed."""
    state = game.new_game(players, seed)
    moves: list[Move] = []
    waiting: list[int] = []  # the steps of a simultaneous choice not everyone has made yet
    for step, (player, action) in enumerate(history):
        site = game.sites[state.site]
        secret = site.secret
        last = state.to_move == [player]  # the last one to choose: all are revealed after it
        state.apply(player, action)
        action = state.history[-1][1]
        # A move of a menu is made in the open (what it spends is shown as it is played).
        hidden = site.kind != "actions" and action.name in private
        moves.append(Move(step, player, action, secret, step + 1, hidden))
        if secret:
            waiting.append(step)
            if last:
                for earlier in waiting:
                    moves[earlier] = _revealed(moves[earlier], step + 1)
                waiting = []
    for earlier in waiting:  # the game stopped before everyone chose: never revealed
        moves[earlier] = _revealed(moves[earlier], len(history) + 1)
    return moves


def _revealed(move: Move, after: int) -> Move:
    return Move(move.step, move.player, move.action, move.secret, after, move.private)


def _domain(domain) -> ast.Expr | None:
    if isinstance(domain, ast.InDomain | ast.SubsetDomain):
        return domain.collection
    return None


def _reads_private(cp: CheckedProgram, expr: ast.Node) -> bool:
    """True if an expression reads a field some players may not see (not just its size)."""
    p = cp.program
    counted: set[int] = set()
    for node in walk(expr):
        builtin = BUILTINS.get(node.func) if isinstance(node, ast.Call) else None
        if builtin is not None and builtin.counts_only:
            counted.update(id(n) for n in walk(node) if n is not node)
    for node in walk(expr):
        if id(node) in counted:
            continue
        ref = cp.ref(node)
        if isinstance(ref, GlobalRef) and p.state[ref.name].visibility != "public":
            return True
        if isinstance(ref, PlayerFieldRef) and p.per_player[ref.field].visibility != "public":
            return True
        if isinstance(node, ast.Call) and node.func in p.functions:
            decl = p.functions[node.func].active
            if _reads_private(cp, decl.expr if decl.expr is not None else decl.body):
                return True
    return False
