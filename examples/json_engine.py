"""A stand-alone engine serving one compiled game over the JSON-lines protocol (see docs/protocol.md).

    python examples/json_engine.py games/ticket_to_ride [--variant NAME] [--with EXPANSION]

It reads one request per line on stdin and writes one answer per line on stdout. It uses
our runtime to play, but the protocol is the point: an engine written in any language that
answers these requests the same way passes the generated tests (METRO_ENGINE="...").
Every malformed request (not UTF-8 JSON, longer than 1 MiB, nested deeper than 100 levels,
a field of the wrong type) gets an error answer, and the engine serves the next line.
"""

from __future__ import annotations

import argparse
import sys

from dsl.diagnostics import CompileError
from loader import load_game
from metro.conformance import jsonlines
from metro.conformance.perft import perft
from runtime.chance import CHANCE, MODES
from runtime.errors import IllegalAction, InvalidSave, MetroRuntimeError
from runtime.saves import set_fields


class BadRequest(ValueError):
    """A request that is not well formed: its answer says why."""


def _int(request: dict, key: str) -> int:
    value = request.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadRequest(f'{request["op"]} needs "{key}" as an integer, not {_shown(value)}')
    return value


def _shown(value) -> str:
    text = "missing" if value is None else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Engine:
    """One game at a time; each method answers one request with a dict."""

    def __init__(self, game):
        self.game = game
        self.state = None

    def op_info(self, request):
        """The game's name and player range."""
        return {
            "game": self.game.name,
            "min_players": self.game.min_players,
            "max_players": self.game.max_players,
        }

    def op_new_game(self, request):
        """Start a game: {"players": n, "seed": int or str, "chance": "seeded" or "explicit"}."""
        players, seed = _int(request, "players"), request.get("seed", 0)
        if not isinstance(seed, int | str) or isinstance(seed, bool):
            raise BadRequest(f'new_game needs "seed" as an integer or a string, not {_shown(seed)}')
        chance = request.get("chance", "seeded")
        if chance not in MODES:
            raise BadRequest(
                f'new_game needs "chance" as "seeded" or "explicit", not {_shown(chance)}'
            )
        try:
            self.state = self.game.new_game(players, seed, chance=chance)
        except ValueError as error:
            return {"ok": False, "error": str(error)}
        return self.op_to_move(request)

    def op_chance(self, request):
        """Give the waiting chance event's outcome: {"outcome": {"kind": ..., ...}}."""
        state = self.current()
        if state.chance is None:
            return {"ok": False, "error": "this game was not started with explicit chance"}
        outcome = request.get("outcome")
        if not isinstance(outcome, dict):
            raise BadRequest(f'chance needs "outcome" as an object, not {_shown(outcome)}')
        try:
            state.apply_outcome(outcome)
        except IllegalAction as error:
            return {"ok": False, "error": str(error)}
        return {}

    def op_set_state(self, request):
        """Replace the declared fields: {"state": {"state": {...}, "player_state": [...]}}."""
        try:
            set_fields(self.current(), request.get("state"))
        except InvalidSave as error:
            return {"ok": False, "error": str(error)}
        return {}

    def op_to_move(self, request):
        """Players who must decide now, and whether a chance outcome is awaited."""
        to_move = self.current().to_move
        if to_move == [CHANCE]:
            return {"to_move": [], "chance": True}
        return {"to_move": to_move, "chance": False}

    def op_legal_actions(self, request):
        """Ids of the actions a player may take now."""
        return {"actions": [a.id for a in self.current().legal_actions(_int(request, "player"))]}

    def op_apply(self, request):
        """Take an action by id; a refusal leaves the state unchanged."""
        state = self.current()
        player, action = _int(request, "player"), request.get("action")
        if not isinstance(action, str):
            raise BadRequest(
                f'apply needs "action" as an action id (a string), not {_shown(action)}'
            )
        try:
            state.apply(player, action)
        except IllegalAction as error:
            return {"ok": False, "error": str(error)}
        return {}

    def op_view(self, request):
        """What one player may see."""
        player = _int(request, "player")
        if not 0 <= player < self.current().n:
            return {"ok": False, "error": f"there is no player {player!r}"}
        return {"view": self.current().view(player)}

    def op_scores(self, request):
        """Each player's score."""
        return {"scores": self.current().scores()}

    def op_ranking(self, request):
        """Each player's place (1 = best)."""
        return {"ranking": self.current().ranking()}

    def op_is_over(self, request):
        """Whether the game has ended."""
        return {"over": self.current().is_over}

    def op_perft(self, request):
        """How many action sequences of a length start here: {"depth": d}."""
        depth = _int(request, "depth")
        try:
            return {"count": perft(self.current(), depth)}
        except ValueError as error:
            return {"ok": False, "error": str(error)}

    def current(self):
        """The running game (a request before new_game is an error)."""
        if self.state is None:
            raise LookupError("no game has been started (send new_game first)")
        return self.state

    def answer(self, line: bytes | str) -> dict | None:
        """The answer to one request line (None for `quit`)."""
        try:
            request = jsonlines.loads(line)
        except ValueError as error:
            return {"ok": False, "error": f"the request is not valid: {error}"}
        op = request.get("op") if isinstance(request, dict) else None
        if op == "quit":
            return None
        handler = (
            getattr(self, f"op_{op}", None) if isinstance(op, str) and op.isidentifier() else None
        )
        if handler is None:
            return {"ok": False, "error": f"unknown request {_shown(request)}"}
        try:
            result = handler(request)
        except (BadRequest, LookupError, MetroRuntimeError) as error:
            return {"ok": False, "error": str(error)}
        except Exception as error:  # noqa: BLE001 - a last resort: one failed request must not stop the engine
            return {"ok": False, "error": f"internal error: {type(error).__name__}: {error}"}
        return result if result.get("ok") is False else {"ok": True, **result}


def main(argv: list[str] | None = None) -> int:
    """Serve requests until `quit` or the end of stdin."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--with", dest="expansions", action="append", default=[])
    options = parser.parse_args(argv)
    try:
        engine = Engine(
            load_game(options.game, expansions=options.expansions, variants=options.variant)
        )
    except CompileError as error:
        print(error.render(), file=sys.stderr)
        return 1
    return serve(engine, sys.stdin.buffer, sys.stdout.buffer)


def serve(engine: Engine, requests, answers) -> int:
    """Answer request lines from a binary stream until `quit` or its end."""
    while True:
        try:
            line = jsonlines.read_line(requests)
        except jsonlines.LineTooLong as error:
            jsonlines.skip_line(requests)
            answer = {"ok": False, "error": f"the request is not valid: {error}"}
        else:
            if line is None:
                return 0
            if not line.strip():
                continue
            answer = engine.answer(line)
            if answer is None:
                return 0
        try:
            answers.write(jsonlines.dumps(answer))
            answers.flush()
        except (BrokenPipeError, ValueError):  # the tester has gone
            return 0


if __name__ == "__main__":
    sys.exit(main())
