"""An independent Ticket to Ride engine speaking metro's JSON-lines protocol (docs/protocol.md).

    python examples/ttr_engine/serve.py [--data FILE] [--bug NAME] [--convention NAME]

Standard library only; it imports nothing of metro. It reads one request per line on stdin
and writes one answer per line on stdout. `--bug NAME` plants a known bug (rules.BUGS), to
show that the conformance vectors catch it.

Explicit chance: a step (the start of a game, or one action) that meets a shuffle with no
outcome given stops, and the position goes back to where the step began; once the outcome is
given (`{"op": "chance", ...}`) the step is taken again from there with it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from board import DEFAULT_DATA, read_board
from rules import BUGS, CONVENTIONS, GAME_NAME, Chance, NeedChance, Position, Refused, Rules
from state_json import fields, set_fields, view

MAX_LINE = 1 << 20  # bytes in one request line
MAX_DEPTH = 100  # nesting of arrays and objects in one request
START = ("start",)  # the step that sets the game up


class BadRequest(ValueError):
    """A request that is not well formed."""


class Session:
    """One game at a time, with the chance event it may be waiting for."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.pos: Position | None = None
        self.seed = None  # a seeded game draws from its own generator; None: explicit chance
        self.step = None  # the step waiting for an outcome: START, or (player, action id)
        self.given: list[list[str]] = []  # outcomes given to that step so far
        self.waiting: list[str] | None = None  # the cards of the shuffle that waits

    def current(self) -> Position:
        if self.pos is None:
            raise BadRequest("no game has been started (send new_game first)")
        return self.pos

    def _chance(self) -> Chance:
        return Chance(seed=self.seed) if self.seed is not None else Chance(self.given)

    def _run(self, step) -> None:
        """Take a step on a copy with the outcomes given so far; keep it unless it was refused
        or stopped at a missing outcome."""
        work = self.pos.copy()
        try:
            if step is START:
                self.rules.setup(work, self._chance())
            else:
                self.rules.apply(work, step[0], step[1], self._chance())
        except NeedChance as need:  # the position stays where the step began
            self.step, self.waiting = step, need.cards
            return
        self.pos, self.step, self.given, self.waiting = work, None, [], None

    # ------------------------------------------------------------ requests

    def op_info(self, request):
        return {"game": GAME_NAME, "min_players": 2, "max_players": 5}

    def op_new_game(self, request):
        players = _int(request, "players")
        chance = request.get("chance", "seeded")
        if chance not in ("seeded", "explicit"):
            raise BadRequest('"chance" is "seeded" or "explicit"')
        seed = request.get("seed", 0)
        if not isinstance(seed, int | str) or isinstance(seed, bool):
            raise BadRequest('"seed" is an integer or a string')
        self.pos = self.rules.blank(players)
        self.step, self.given, self.waiting = None, [], None
        self.seed = f"ttr-engine/{seed}" if chance == "seeded" else None
        self._run(START)
        return self.op_to_move(request)

    def op_chance(self, request):
        self.current()
        outcome = request.get("outcome")
        if self.waiting is None:
            return {"ok": False, "error": "no chance event is waiting for an outcome"}
        if not isinstance(outcome, dict) or outcome.get("kind") != "shuffle":
            return {"ok": False, "error": "the waiting chance event is a shuffle"}
        order = outcome.get("order")
        if set(outcome) != {"kind", "order"} or not isinstance(order, list):
            return {
                "ok": False,
                "error": 'a shuffle outcome is {"kind": "shuffle", "order": [...]}',
            }
        if not all(isinstance(card, str) for card in order) or Counter(order) != Counter(
            self.waiting
        ):
            return {"ok": False, "error": "the order is not a reordering of the shuffled cards"}
        self.given.append(order)
        self._run(self.step)
        return {}

    def op_set_state(self, request):
        pos = self.current()
        routes, tickets = self.rules.board.routes, self.rules.board.tickets
        self.pos = set_fields(pos, request.get("state"), routes, tickets)
        return {}

    def op_to_move(self, request):
        pos = self.current()
        if self.waiting is not None:
            return {"to_move": [], "chance": True}
        return {"to_move": self.rules.to_move(pos), "chance": False}

    def op_legal_actions(self, request):
        player = _int(request, "player")
        if self.waiting is not None:
            return {"actions": []}
        return {"actions": sorted(self.rules.legal(self.current(), player))}

    def op_apply(self, request):
        pos, player, action = self.current(), _int(request, "player"), request.get("action")
        if not isinstance(action, str):
            raise BadRequest('"action" is an action id (a string)')
        if self.waiting is not None:
            raise Refused("a chance outcome is awaited, not an action")
        if pos.phase == "over":
            raise Refused("the game is over")
        self._run((player, action))  # an illegal action is Refused, and nothing changes
        return {}

    def op_view(self, request):
        pos, player = self.current(), _int(request, "player")
        if not 0 <= player < pos.n:
            return {"ok": False, "error": f"there is no player {player}"}
        to_move = [] if self.waiting is not None else self.rules.to_move(pos)
        return {"view": view(pos, player, to_move)}

    def op_scores(self, request):
        return {"scores": list(self.current().score)}

    def op_ranking(self, request):
        return {"ranking": self.rules.ranking(self.current())}

    def op_is_over(self, request):
        return {"over": self.current().phase == "over"}

    def op_perft(self, request):
        depth = _int(request, "depth")
        if depth < 0 or self.waiting is not None:
            return {"ok": False, "error": "perft needs a depth of 0 or more, at a decision"}
        return {"count": self.rules.perft(self.current(), depth)}

    def op_state(self, request):
        """Every field (not part of the protocol's required requests; handy when debugging)."""
        return {"state": fields(self.current())}

    def answer(self, line: bytes) -> dict | None:
        """The answer to one request line (None for quit)."""
        try:
            request = _parse(line)
        except BadRequest as error:
            return {"ok": False, "error": f"the request is not valid: {error}"}
        op = request.get("op") if isinstance(request, dict) else None
        if op == "quit":
            return None
        handler = (
            getattr(self, f"op_{op}", None) if isinstance(op, str) and op.isidentifier() else None
        )
        if handler is None:
            return {"ok": False, "error": f"unknown request {str(request)[:60]}"}
        try:
            result = handler(request)
        except (BadRequest, Refused) as error:
            return {"ok": False, "error": str(error)}
        return result if result.get("ok") is False else {"ok": True, **result}


def _int(request: dict, key: str) -> int:
    value = request.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadRequest(f'"{key}" is an integer')
    return value


def _parse(line: bytes):
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest("the line is not UTF-8") from None
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        raise BadRequest("the line is not JSON") from None
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise BadRequest("a string holds a lone surrogate") from None
        elif isinstance(value, list | dict):
            if depth > MAX_DEPTH:
                raise BadRequest(f"nested deeper than {MAX_DEPTH} levels")
            items = list(value) + list(value.values()) if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
    return doc


def serve(session: Session, requests, answers) -> int:
    """Answer request lines until quit or the end of input."""
    while True:
        line = requests.readline(MAX_LINE + 1)
        if not line:
            return 0
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # drop the rest of the long line
                line = requests.readline(1 << 16)
            answer = {"ok": False, "error": f"the request is longer than {MAX_LINE} bytes"}
        elif not line.strip():
            continue
        else:
            answer = session.answer(line)
            if answer is None:
                return 0
        try:
            answers.write((json.dumps(answer, ensure_ascii=False) + "\n").encode("utf-8"))
            answers.flush()
        except (BrokenPipeError, ValueError):
            return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=DEFAULT_DATA, help="the board's data file (TSV)")
    parser.add_argument("--bug", action="append", default=[], choices=sorted(BUGS))
    parser.add_argument("--convention", action="append", default=[], choices=sorted(CONVENTIONS))
    options = parser.parse_args(argv)
    rules = Rules(read_board(options.data), frozenset(options.bug), frozenset(options.convention))
    return serve(Session(rules), sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main())
