"""Engines behind one small interface: the reference runtime, or any program speaking JSON lines.

The JSON-lines protocol (docs/protocol.md; one object per line each way, players numbered from
0, actions by id): `{"op": "new_game", "players": 3, "seed": 1}` (or `"chance": "explicit"`),
`{"op": "chance", "outcome": {...}}`, `{"op": "set_state", "state": {...}}`, `{"op": "to_move"}`,
`{"op": "legal_actions", "player": 0}`, `{"op": "apply", "player": 0, "action": "pass"}`,
`{"op": "view", "player": 0}`, `{"op": "scores"}`, `{"op": "ranking"}`, `{"op": "is_over"}`,
`{"op": "perft", "depth": 2}`, `{"op": "info"}` and `{"op": "quit"}`. Every answer is
`{"ok": true, ...}` or `{"ok": false, "error": "..."}`; schemas/protocol/ holds their schemas.
Answers are read one per request through metro/conformance/engine_pipe.py and checked by metro/conformance/jsonlines.py:
output nobody asked for, a line over 1 MiB, nesting over 100 levels, text that is not UTF-8 or a
field of the wrong type is an `EngineError`, never another exception; an engine that uses up what
the run allows (`RunLimits`: its bytes, its deadline) is an `EngineStopped`. Each engine runs in
a session of its own, ended whole by `close()`.
`Lockstep` plays the reference and an engine under test side by side and compares them;
metro/conformance/conform.py runs test vectors against any adapter.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import threading
from collections import deque
from typing import Protocol, runtime_checkable

from metro.conformance import jsonlines
from metro.conformance.engine_pipe import AnswerPipe, AnswerTimeout, OutOfRun, RunLimits, send
from metro.conformance.jsonlines import LineTooLong
from metro.conformance.perft import perft
from metro.testing.battery import BatteryReport, check_step
from metro.testing.scenarios import broken_invariants
from runtime import saves
from runtime.chance import CHANCE
from runtime.errors import IllegalAction, InvalidSave, MetroRuntimeError
from runtime.machine import Action, Game, State

ENGINE_VARIABLE = "METRO_ENGINE"
BOGUS_ACTION = "no_such_action(0)"
STDERR_SHOWN = 2000  # characters of an engine's last words on stderr quoted in an error


class EngineError(MetroRuntimeError):
    """The engine failed: it crashed, hung, broke the protocol or rejected a request."""


class EngineStopped(EngineError):
    """The engine used up what the whole run allows (its deadline or its output): the run ends."""


class Disagreement(AssertionError):
    """The engine under test and the reference runtime disagree."""


@runtime_checkable
class Adapter(Protocol):
    """What tests need from an engine; players are 0-based, actions are ids."""

    def new_game(self, players: int, seed: int | str = 0, chance: str = "seeded") -> None:
        """Start a new game, run to its first decision (or chance node, with explicit chance)."""

    def chance(self, outcome: dict) -> str | None:
        """Give the waiting chance event's outcome: None when accepted, else why it was refused."""

    def set_state(self, fields: dict) -> str | None:
        """Replace the declared fields (the state JSON): None when accepted, else why not."""

    def to_move(self) -> list[int]:
        """Players who must decide now (empty once the game is over or at a chance node)."""

    def awaits_chance(self) -> bool:
        """True while a chance outcome is awaited (explicit chance only)."""

    def legal_actions(self, player: int) -> list[str]:
        """Ids of the actions `player` may take now."""

    def apply(self, player: int, action: str) -> str | None:
        """Take an action: None when accepted, else why it was refused (state unchanged)."""

    def view(self, player: int) -> dict:
        """What `player` may see, as JSON data."""

    def scores(self) -> list[int]:
        """Each player's score."""

    def ranking(self) -> list[int]:
        """Each player's place, 1 = best (tied players share a place)."""

    def is_over(self) -> bool:
        """True once the game has ended."""

    def perft(self, depth: int) -> int:
        """The number of action sequences of length `depth` from here (metro/conformance/perft.py)."""

    def close(self) -> None:
        """Release the engine."""


def _jsonable(value):
    return json.loads(json.dumps(value, ensure_ascii=False))


class LocalAdapter:
    """The reference adapter: our runtime, in process."""

    def __init__(self, game: Game):
        self.game = game
        self._state: State | None = None

    @property
    def state(self) -> State:
        """The current position (EngineError before `new_game`)."""
        if self._state is None:
            raise EngineError("no game has been started (send new_game first)")
        return self._state

    def new_game(self, players: int, seed: int | str = 0, chance: str = "seeded") -> None:
        """Start a new game."""
        try:
            self._state = self.game.new_game(players, seed, chance=chance)
        except ValueError as error:
            raise EngineError(str(error)) from error

    def chance(self, outcome: dict) -> str | None:
        """Give the waiting chance event's whole outcome; a refusal is returned."""
        if self.state.chance is None:
            return "this game was not started with explicit chance"
        try:
            self.state.apply_outcome(outcome)
        except IllegalAction as error:
            return str(error)
        return None

    def set_state(self, fields: dict) -> str | None:
        """Replace the declared fields; a refusal (fields that do not fit) is returned."""
        try:
            saves.set_fields(self.state, fields)
        except InvalidSave as error:
            return str(error)
        return None

    def to_move(self) -> list[int]:
        """Players who must decide now (none at a chance node)."""
        return [p for p in self.state.to_move if p != CHANCE]

    def awaits_chance(self) -> bool:
        """True while a chance outcome is awaited."""
        return self.state.to_move == [CHANCE]

    def legal_actions(self, player: int) -> list[str]:
        """Ids of the legal actions, in the runtime's order."""
        return [action.id for action in self.state.legal_actions(player)]

    def apply(self, player: int, action: str) -> str | None:
        """Take an action by id; a refusal is returned, rule failures raise."""
        try:
            self.state.apply(player, action)
        except IllegalAction as error:
            return str(error)
        return None

    def view(self, player: int) -> dict:
        """The player's view, exactly as it would travel as JSON."""
        return _jsonable(self.state.view(player))

    def scores(self) -> list[int]:
        """Each player's score."""
        return list(self.state.scores())

    def ranking(self) -> list[int]:
        """Each player's place."""
        return list(self.state.ranking())

    def is_over(self) -> bool:
        """True once the game has ended."""
        return self.state.is_over

    def perft(self, depth: int) -> int:
        """The number of action sequences of length `depth` from here."""
        try:
            return perft(self.state, depth)
        except ValueError as error:
            raise EngineError(str(error)) from error

    def info(self) -> dict:
        """The game's name and player range."""
        return {
            "game": self.game.name,
            "min_players": self.game.min_players,
            "max_players": self.game.max_players,
        }

    def close(self) -> None:
        """Nothing to release."""


class SubprocessAdapter:
    """An engine in another process speaking the JSON-lines protocol on stdin/stdout."""

    def __init__(
        self,
        argv: list[str] | str,
        timeout: float = 30.0,
        cwd: str | None = None,
        limits: RunLimits | None = None,
    ):
        argv = shlex.split(argv) if isinstance(argv, str) else list(argv)
        if not argv:
            raise EngineError("no engine command given")
        if argv[0] in ("python", "python3"):
            argv[0] = sys.executable  # the interpreter running the tests, with its packages
        self.argv = argv
        self.timeout = timeout
        self.limits = limits or RunLimits()
        self._faulty = False
        self._stderr: deque[str] = deque(maxlen=20)
        try:
            # A session of its own: close() ends every process the command started, and none
            # left in the background keeps the engine's pipes open.
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                start_new_session=True,
            )
        except OSError as error:
            raise EngineError(f"cannot start the engine {shlex.join(argv)}: {error}") from error
        self._answers = AnswerPipe(self.process.stdout.fileno(), self.limits)
        self._stderr_reader = threading.Thread(
            target=_pump_text, args=(self.process.stderr, self._stderr.append), daemon=True
        )
        self._stderr_reader.start()

    def __enter__(self) -> SubprocessAdapter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def request(self, op: str, **fields) -> dict:
        """Send one request and return the engine's answer (EngineError on any breach)."""
        return self.exchange(jsonlines.dumps({"op": op, **fields}), op)

    def exchange(self, line: bytes, op: str = "a raw request") -> dict:
        """Send one request line as given (tests send malformed ones) and return the checked answer."""
        try:
            return self._checked_answer(line, op)
        except EngineError:
            self._faulty = True  # no polite quit for this engine: close() ends it at once
            raise

    def _checked_answer(self, line: bytes, op: str) -> dict:
        try:
            answer = self._answer(line, op)
        except OutOfRun as error:
            self._faulty = True
            self.close()
            raise EngineStopped(f"{error} (during '{op}')") from None
        except AnswerTimeout:
            self._faulty = True
            self.close()
            raise EngineError(
                f"the engine did not answer '{op}' within {self.timeout:g} s"
            ) from None
        except LineTooLong as error:  # the rest of that line is dropped when the next is read
            raise EngineError(f"the engine answered '{op}' with {error}") from None
        if answer is None:
            raise self._gone(op)
        try:
            doc = jsonlines.loads(answer)
        except ValueError as error:
            raise EngineError(
                f"the engine's answer to '{op}' is not valid: {error}: {_excerpt(answer)}"
            ) from None
        if not isinstance(doc, dict) or not isinstance(doc.get("ok"), bool):
            raise EngineError(
                f"the engine's answer to '{op}' has no \"ok\": true/false: {_excerpt(answer)}"
            )
        if not doc["ok"] and not isinstance(doc.get("error", ""), str):
            raise EngineError(
                f"the engine's refusal of '{op}' needs \"error\" as a string: {_excerpt(answer)}"
            )
        return doc

    def _answer(self, line: bytes, op: str) -> bytes | None:
        """The one answer line to one request (None if the engine is gone); unasked output is a breach."""
        if self.process.stdout.closed:  # closed after a timeout or by the run's limits
            return None
        unasked = self._answers.unasked()
        if unasked:
            raise EngineError(
                f"the engine wrote before '{op}' was sent (one answer per request, nothing "
                f"unasked): {_excerpt(unasked)}"
            )
        try:
            send(self.process.stdin.fileno(), line, self.timeout, self.limits)
        except (OSError, ValueError):
            return None
        return self._answers.read_line(self.timeout)

    def _ok(self, op: str, key: str, kind: type, **fields):
        doc = self.request(op, **fields)
        if not doc["ok"]:
            raise EngineError(f"the engine refused '{op}': {doc.get('error', '(no reason given)')}")
        value = doc.get(key)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise EngineError(
                f"the engine's answer to '{op}' needs \"{key}\" as {kind.__name__}: {doc!r:.200}"
            )
        return value

    def _gone(self, op: str) -> EngineError:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=1)
        self._stderr_reader.join(timeout=1)  # let the last words on stderr arrive
        status = self.process.poll()
        tail = "".join(line for line in self._stderr if line).strip()
        if len(tail) > STDERR_SHOWN:
            tail = "…" + tail[-STDERR_SHOWN:]
        where = f" (exit status {status})" if status is not None else ""
        return EngineError(
            f"the engine closed its output during '{op}'{where}"
            + (f"; its stderr ends with:\n{tail}" if tail else "")
        )

    def new_game(self, players: int, seed: int | str = 0, chance: str = "seeded") -> None:
        """Start a new game."""
        fields = {} if chance == "seeded" else {"chance": chance}
        doc = self.request("new_game", players=players, seed=seed, **fields)
        if not doc["ok"]:
            raise EngineError(
                f"the engine refused new_game: {doc.get('error', '(no reason given)')}"
            )

    def chance(self, outcome: dict) -> str | None:
        """Give the waiting chance event's outcome: None when accepted, else the engine's reason."""
        doc = self.request("chance", outcome=outcome)
        return None if doc["ok"] else str(doc.get("error", "(no reason given)"))

    def set_state(self, fields: dict) -> str | None:
        """Replace the declared fields: None when accepted, else the engine's reason."""
        doc = self.request("set_state", state=fields)
        return None if doc["ok"] else str(doc.get("error", "(no reason given)"))

    def to_move(self) -> list[int]:
        """Players who must decide now."""
        return _ints(self._ok("to_move", "to_move", list), "to_move")

    def awaits_chance(self) -> bool:
        """The `chance` flag of the engine's `to_move` answer (false when absent)."""
        doc = self.request("to_move")
        if not doc["ok"]:
            raise EngineError(f"the engine refused 'to_move': {doc.get('error', '(no reason)')}")
        flag = doc.get("chance", False)
        if not isinstance(flag, bool):
            raise EngineError(
                f"the engine's answer to 'to_move' needs \"chance\" as bool: {doc!r:.200}"
            )
        return flag

    def legal_actions(self, player: int) -> list[str]:
        """Ids of the legal actions."""
        actions = self._ok("legal_actions", "actions", list, player=player)
        if not all(isinstance(a, str) for a in actions):
            raise EngineError(f"legal_actions must be a list of strings: {actions!r:.200}")
        return actions

    def apply(self, player: int, action: str) -> str | None:
        """Take an action: None when accepted, else the engine's reason."""
        doc = self.request("apply", player=player, action=action)
        return None if doc["ok"] else str(doc.get("error", "(no reason given)"))

    def view(self, player: int) -> dict:
        """The player's view."""
        return self._ok("view", "view", dict, player=player)

    def scores(self) -> list[int]:
        """Each player's score."""
        return _ints(self._ok("scores", "scores", list), "scores")

    def ranking(self) -> list[int]:
        """Each player's place."""
        return _ints(self._ok("ranking", "ranking", list), "ranking")

    def is_over(self) -> bool:
        """True once the game has ended."""
        return self._ok("is_over", "over", bool)

    def perft(self, depth: int) -> int:
        """The engine's own count of action sequences of length `depth`."""
        return self._ok("perft", "count", int, depth=depth)

    def info(self) -> dict:
        """The engine's `info` answer: game name and player range."""
        doc = self.request("info")
        if not doc["ok"]:
            raise EngineError(f"the engine refused info: {doc.get('error', '(no reason given)')}")
        for key, kind in (("game", str), ("min_players", int), ("max_players", int)):
            value = doc.get(key)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise EngineError(
                    f"the engine's answer to 'info' needs \"{key}\" as {kind.__name__}: "
                    f"{doc!r:.200}"
                )
        return doc

    def close(self) -> None:
        """Ask the engine to quit, then end every process it started (never waits long)."""
        process = self.process
        if process.poll() is None and not self._faulty:
            with contextlib.suppress(OSError, ValueError, AnswerTimeout, OutOfRun):
                send(process.stdin.fileno(), b'{"op": "quit"}\n', 1.0, RunLimits())
        with contextlib.suppress(OSError):
            process.stdin.close()
        if not self._faulty:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=2)
        # The whole session, the engine too if it did not quit: a process left behind would
        # hold the engine's output open.
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        self._stderr_reader.join(timeout=2)
        process.stdout.close()
        if not self._stderr_reader.is_alive():  # closing under a blocked reader would block too
            process.stderr.close()


def _pump_text(stream, sink) -> None:
    """The engine's stderr to `sink`, line by line, each cut to a readable length."""
    try:
        while True:
            try:
                line = jsonlines.read_line(stream, 4096)
            except jsonlines.LineTooLong:
                line = b"(a line longer than 4096 bytes)\n"
                jsonlines.skip_line(stream)
            if line is None:
                break
            sink(line.decode("utf-8", "replace"))
    except (OSError, ValueError):
        pass
    sink(None)


def _excerpt(line: bytes) -> str:
    return repr(line[:200].decode("utf-8", "replace"))


def _ints(values: list, what: str) -> list[int]:
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise EngineError(f"{what} must be a list of integers: {values!r:.200}")
    return values


def engine_from_env(
    variable: str = ENGINE_VARIABLE, timeout: float = 30.0
) -> SubprocessAdapter | None:
    """The engine named by $METRO_ENGINE (a command line), or None to test the reference alone."""
    command = os.environ.get(variable, "").strip()
    return SubprocessAdapter(command, timeout=timeout) if command else None


def _checked_step(step: int) -> bool:
    return step < 10 or (step & (step - 1)) == 0


class Lockstep:
    """The reference runtime and, optionally, an engine under test, moved together and compared."""

    def __init__(self, game: Game, engine: Adapter | None = None):
        self.game = game
        self.reference = LocalAdapter(game)
        self.engine = engine
        self.players = 0
        self.seed: int | str = 0
        self.actions: list[tuple[int, str]] = []

    @property
    def state(self) -> State:
        """The reference position."""
        return self.reference.state

    def start(self, players: int, seed: int | str) -> None:
        """Start the same game in both engines."""
        self.players, self.seed, self.actions = players, seed, []
        self.reference.new_game(players, seed)
        if self.engine is not None:
            self.engine.new_game(players, seed)

    def apply(self, player: int, action: Action) -> None:
        """Take a reference action in both engines (the engine must accept it too)."""
        self.actions.append((player, action.id))
        self.state.apply(player, action)
        if self.engine is not None:
            refusal = self.engine.apply(player, action.id)
            if refusal is not None:
                raise Disagreement(
                    f"the engine refused {action.id!r} from player {player}, "
                    f"which the reference accepts: {refusal}"
                )

    def check(self, step: int, every: int = 7) -> None:
        """Invariants at every step, the whole battery check now and then, then the engine's agreement."""
        report = BatteryReport()
        if _checked_step(step) or step % every == 0 or self.state.is_over:
            check_step(self.game, self.state, step, report, f"step {step}")
        else:
            report.problems.extend(
                f"step {step}: {m} does not hold" for m in broken_invariants(self.state)
            )
        if report.problems:
            raise AssertionError("\n".join(report.problems))
        if self.engine is not None:
            self._compare(step)

    def finish(self) -> None:
        """End-of-game checks: well-formed scores, a faithful replay, and the engine's agreement."""
        state = self.state
        scores = state.scores()
        if len(scores) != self.players or not all(isinstance(s, int) for s in scores):
            raise AssertionError(f"malformed scores: {scores!r}")
        replayed = self.game.replay(self.players, self.seed, self.actions)
        if replayed.to_json() != state.to_json():
            raise AssertionError("replaying the actions does not reproduce the final state")
        if self.engine is not None:
            self._agree("is_over", self.engine.is_over(), state.is_over)
            self._agree("scores", self.engine.scores(), scores)
            for p in range(self.players):
                self._agree(f"view of player {p}", self.engine.view(p), self.reference.view(p))

    def _compare(self, step: int) -> None:
        engine, state = self.engine, self.state
        to_move = list(state.to_move)
        self._agree(f"step {step}: to_move", engine.to_move(), to_move)
        for p in range(self.players):
            self._agree(
                f"step {step}: legal actions of player {p}",
                sorted(engine.legal_actions(p)),
                sorted(a.id for a in state.legal_actions(p)),
            )
        if not _checked_step(step):
            return
        for p in range(self.players):
            self._agree(f"step {step}: view of player {p}", engine.view(p), self.reference.view(p))
        if to_move and engine.apply(to_move[0], BOGUS_ACTION) is None:
            raise Disagreement(
                f"step {step}: the engine accepted the made-up action {BOGUS_ACTION!r}"
            )
        waiting = [p for p in range(self.players) if p not in to_move]
        if to_move and waiting:
            first = state.legal_actions(to_move[0])
            if first and engine.apply(waiting[0], first[0].id) is None:
                raise Disagreement(
                    f"step {step}: the engine let player {waiting[0]} act out of turn"
                )
        self._agree(f"step {step}: to_move after refused actions", engine.to_move(), to_move)

    @staticmethod
    def _agree(what: str, got, expected) -> None:
        if got != expected:
            raise Disagreement(
                f"{what}: the engine says {got!r:.300}, the reference {expected!r:.300}"
            )

    def record(self) -> dict:
        """The replay record: players, seed and every action attempted so far."""
        return {
            "game": self.game.name,
            "players": self.players,
            "seed": self.seed,
            "actions": [list(pair) for pair in self.actions],
        }

    def record_text(self) -> str:
        """The replay record as one JSON line, with how to replay it."""
        return (
            "replay record: "
            + json.dumps(self.record(), ensure_ascii=False)
            + "\n(replay with game.replay(players, seed, actions))"
        )


def play_random(
    lockstep: Lockstep, players: int, seed: int | str, max_steps: int | None = None
) -> State:
    """One seeded random game in lockstep, checked after every step; returns the reference state."""
    rng = random.Random(f"{seed}")
    lockstep.start(players, seed)
    lockstep.check(0)
    limit = lockstep.game.max_decisions if max_steps is None else max_steps
    step = 0
    while not lockstep.state.is_over and step < limit:
        player = rng.choice(lockstep.state.to_move)
        action = rng.choice(lockstep.state.legal_actions(player))
        lockstep.apply(player, action)
        step += 1
        lockstep.check(step)
    if lockstep.state.is_over:
        lockstep.finish()
    return lockstep.state
