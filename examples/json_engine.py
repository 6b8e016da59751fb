"""A stand-alone engine serving one compiled game over the JSON-lines protocol (see README.md).

    python examples/json_engine.py games/ticket_to_ride [--variant NAME] [--with EXPANSION]

It reads one request per line on stdin and writes one answer per line on stdout. It uses
our runtime to play, but the protocol is the point: an engine written in any language that
answers these requests the same way passes the generated tests (METRO_ENGINE="...").
"""

from __future__ import annotations

import argparse
import json
import sys

from compiler import load_game
from dsl.diagnostics import CompileError
from runtime.errors import IllegalAction, MetroRuntimeError


class Engine:
    """One game at a time; each method answers one request with a dict."""

    def __init__(self, game):
        self.game = game
        self.state = None

    def op_info(self, request):
        """The game's name and player range."""
        return {"game": self.game.name, "min_players": self.game.min_players,
                "max_players": self.game.max_players}

    def op_new_game(self, request):
        """Start a game: {"players": n, "seed": int or str}."""
        players, seed = request.get("players"), request.get("seed", 0)
        if not isinstance(players, int) or not isinstance(seed, int | str):
            return {"ok": False, "error": "new_game needs integer players and an integer or string seed"}
        try:
            self.state = self.game.new_game(players, seed)
        except ValueError as error:
            return {"ok": False, "error": str(error)}
        return {"to_move": self.state.to_move}

    def op_to_move(self, request):
        """Players who must decide now."""
        return {"to_move": self.current().to_move}

    def op_legal_actions(self, request):
        """Ids of the actions a player may take now."""
        return {"actions": [a.id for a in self.current().legal_actions(request.get("player"))]}

    def op_apply(self, request):
        """Take an action by id; a refusal leaves the state unchanged."""
        state = self.current()
        player, action = request.get("player"), request.get("action")
        if not isinstance(action, str):
            return {"ok": False, "error": "apply needs an action id (a string)"}
        try:
            state.apply(player, action)
        except IllegalAction as error:
            return {"ok": False, "error": str(error)}
        return {"to_move": state.to_move, "over": state.is_over}

    def op_view(self, request):
        """What one player may see."""
        player = request.get("player")
        if not isinstance(player, int) or not 0 <= player < self.current().n:
            return {"ok": False, "error": f"there is no player {player!r}"}
        return {"view": self.current().view(player)}

    def op_scores(self, request):
        """Each player's score."""
        return {"scores": self.current().scores()}

    def op_is_over(self, request):
        """Whether the game has ended."""
        return {"over": self.current().is_over}

    def current(self):
        """The running game (a request before new_game is an error)."""
        if self.state is None:
            raise LookupError("no game has been started (send new_game first)")
        return self.state

    def answer(self, line: str) -> dict | None:
        """The answer to one request line (None for `quit`)."""
        try:
            request = json.loads(line)
        except ValueError:
            return {"ok": False, "error": "the request is not JSON"}
        op = request.get("op") if isinstance(request, dict) else None
        if op == "quit":
            return None
        handler = getattr(self, f"op_{op}", None) if isinstance(op, str) and op.isidentifier() else None
        if handler is None:
            return {"ok": False, "error": f"unknown request {line.strip()[:80]!r}"}
        try:
            result = handler(request)
        except (LookupError, MetroRuntimeError) as error:
            return {"ok": False, "error": str(error)}
        return result if result.get("ok") is False else {"ok": True, **result}


def main(argv: list[str] | None = None) -> int:
    """Serve requests until `quit` or the end of stdin."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--with", dest="expansions", action="append", default=[])
    options = parser.parse_args(argv)
    try:
        engine = Engine(load_game(options.game, expansions=options.expansions, variants=options.variant))
    except CompileError as error:
        print(error.render(), file=sys.stderr)
        return 1
    for line in sys.stdin:
        if not line.strip():
            continue
        answer = engine.answer(line)
        if answer is None:
            break
        print(json.dumps(answer, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
