"""`metro conform DIR --engine CMD`: run test vectors against any engine speaking the protocol.

Each vector starts a game with explicit chance and runs its steps (metro/conformance/vectors.py); the first
step where the engine answers differently fails the vector with the smallest difference found
(the JSON path of the first differing value, or the ids one list of legal actions lacks).
An engine that crashes or breaks the protocol fails the vector it was running and is started
again for the next one; one that uses up what the whole run allows (its deadline, its bytes of
output: metro/conformance/engine_pipe.py) fails the vector it was running and ends the run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from metro.conformance.adapter import Adapter, EngineError, EngineStopped
from metro.conformance.suite import MANIFEST, MANIFEST_FORMAT
from metro.conformance.vectors import (
    Vector,
    VectorFileError,
    read_vector_files,
    unordered_views,
)

SHOWN = 120  # characters of a value shown in a difference


@dataclass
class VectorResult:
    """How one vector went: passed, or the step where it failed and the difference."""

    file: str
    id: str
    name: str
    passed: bool
    step: int | None = None
    difference: str = ""
    stopped: bool = False  # the engine used up the run's limits: no vector runs after this one
    requirement: str = "required"  # the vector's: required (the rules) or optional (a convention)

    def to_doc(self) -> dict:
        """JSON form (schemas/conform.schema.json)."""
        return {
            "file": self.file,
            "id": self.id,
            "name": self.name,
            "passed": self.passed,
            "step": self.step,
            "difference": self.difference,
            "requirement": self.requirement,
        }


@dataclass(frozen=True)
class Tally:
    """How many vectors of one requirement passed and failed."""

    passed: int
    failed: int

    @staticmethod
    def of(results: list[VectorResult], requirement: str) -> Tally:
        """The tally of the results of that requirement."""
        mine = [r for r in results if r.requirement == requirement]
        failed = sum(not r.passed for r in mine)
        return Tally(len(mine) - failed, failed)


class Mismatch(AssertionError):
    """The engine's answer differs from the vector's expectation at one step."""

    def __init__(self, step: int, message: str):
        super().__init__(message)
        self.step = step


def load_vectors(folder: str, only: str = "") -> tuple[str, list[tuple[str, Vector]]]:
    """The game named by the vector files in `folder` and its (file, vector) pairs."""
    files = read_vector_files(folder)
    if not files:
        raise ValueError(f"{folder}: no vector files (metro testgen GAME --format vectors -o DIR)")
    games = {str(doc.get("game")) for _, doc in files}
    if len(games) != 1:
        raise ValueError(f"{folder}: vector files of several games: {', '.join(sorted(games))}")
    pairs = []
    for path, doc in files:
        items = doc.get("vectors")
        if not isinstance(items, list):
            raise ValueError(f"{path}: no list of vectors")
        for index, item in enumerate(items):
            try:
                vector = Vector.from_doc(item)
            except VectorFileError as error:
                raise ValueError(f"{path}: vector {index}: {error}") from None
            vector.unordered = _names(doc.get("unordered", []), path)
            if only in vector.id:
                pairs.append((path, vector))
    return games.pop(), pairs


def _names(value, path: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ValueError(f"{path}: unordered is a list of field names")
    return value


def read_manifest(folder: str) -> dict | None:
    """The suite's manifest in `folder` (None for vectors made before there was one)."""
    path = os.path.join(folder, MANIFEST)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as handle:
        doc = json.load(handle)
    if not isinstance(doc, dict) or doc.get("format") != MANIFEST_FORMAT:
        raise ValueError(f"{path}: not a manifest of vectors (format {MANIFEST_FORMAT})")
    return doc


def run_vectors(
    start_engine: Callable[[], Adapter],
    vectors: Iterable[tuple[str, Vector]],
    report: Callable[[VectorResult], None] = lambda result: None,
    fail_fast: bool = False,
) -> list[VectorResult]:
    """Run the vectors on an engine from `start_engine` (restarted after an engine failure);
    with `fail_fast`, stop at the first failure."""
    results = []
    engine = None
    try:
        for path, vector in vectors:
            try:
                if engine is None:
                    engine = start_engine()
                result = run_vector(engine, vector, path)
            except EngineError as error:  # while starting (info): run_vector reports its own
                # The vector fails on it and the next one starts the engine again, as after a
                # failure inside a vector (an engine used up, EngineStopped, ends the run).
                failed = VectorResult(path, vector.id, vector.name, False)
                failed.requirement = vector.requirement
                result = _engine_failed(failed, 0, error)
            if engine is not None and result.difference.startswith("engine error"):
                engine.close()
                engine = None
            results.append(result)
            report(result)
            if result.stopped or (fail_fast and not result.passed):
                break
    finally:
        if engine is not None:
            engine.close()
    return results


def run_vector(engine: Adapter, vector: Vector, path: str = "") -> VectorResult:
    """Run one vector; the result says where and how the engine first differed."""
    result = VectorResult(path, vector.id, vector.name, True, requirement=vector.requirement)
    step = -1
    try:
        engine.new_game(vector.players, 0, chance="explicit")
        for step, item in enumerate(vector.steps):
            _run_step(engine, vector, step, item)
    except Mismatch as mismatch:
        result.passed, result.step, result.difference = False, mismatch.step, str(mismatch)
    except EngineError as error:
        _engine_failed(result, max(step, 0), error)
    return result


def _engine_failed(result: VectorResult, step: int, error: EngineError) -> VectorResult:
    """`result` failed by an engine error at `step` (which ends the run if the engine used it up)."""
    result.passed, result.step = False, step
    result.difference = f"engine error at step {step}: {error}"
    result.stopped = isinstance(error, EngineStopped)
    return result


def _run_step(engine: Adapter, vector: Vector, step: int, item: dict) -> None:
    ((kind, value),) = item.items()
    where = f"step {step}{_after(vector.steps, step)}"
    if kind == "chance":
        refusal = engine.chance(value)
        if refusal is not None:
            raise Mismatch(step, f"{where}: the engine refused the chance outcome: {refusal}")
    elif kind == "apply":
        refusal = engine.apply(value["player"], value["action"])
        if refusal is not None:
            raise Mismatch(
                step,
                f"{where}: the engine refused {value['action']} from player {value['player']}, "
                f"which the rules allow: {refusal}",
            )
    elif kind == "refuse":
        if engine.apply(value["player"], value["action"]) is None:
            raise Mismatch(
                step,
                f"{where}: the engine accepted {value['action']} from player {value['player']}, "
                "which the rules refuse",
            )
    elif kind == "set_state":
        refusal = engine.set_state(value)
        if refusal is not None:
            raise Mismatch(step, f"{where}: the engine refused set_state: {refusal}")
    elif kind == "expect":
        got = unordered_views(observe(engine, vector.players, value), vector.unordered)
        difference = first_difference(value, got)
        if difference:
            raise Mismatch(step, f"{where}: {difference}")
    elif kind == "perft":
        count = engine.perft(value["depth"])
        if count != value["count"]:
            raise Mismatch(
                step,
                f"{where}: perft({value['depth']}) is {value['count']}, the engine says {count}",
            )


def _after(steps: list[dict], index: int) -> str:
    """`, after P2 draw_blind` — the last action before step `index`, for messages."""
    for item in reversed(steps[:index]):
        if "apply" in item:
            return f", after P{item['apply']['player'] + 1} {item['apply']['action']}"
        if "set_state" in item:
            return ", after set_state"
    return ", at the start"


def observe(engine: Adapter, players: int, expected: dict) -> dict:
    """The engine's answers for the keys an expect step holds."""
    got: dict = {}
    for key in expected:
        if key == "to_move":
            got[key] = engine.to_move()
        elif key == "chance":
            got[key] = engine.awaits_chance()
        elif key == "legal_actions":
            got[key] = [sorted(engine.legal_actions(p)) for p in range(players)]
        elif key == "views":
            got[key] = [engine.view(p) for p in range(players)]
        elif key == "scores":
            got[key] = engine.scores()
        elif key == "ranking":
            got[key] = engine.ranking()
        elif key == "over":
            got[key] = engine.is_over()
    return got


def first_difference(expected, got, path: str = "") -> str:
    """The first place where `got` differs from `expected`, as `path: expected X, got Y` ("" if none)."""
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in expected:
            if key not in got:
                return f"{_path(path, key)}: missing (expected {_show(expected[key])})"
        for key in got:
            if key not in expected:
                return f"{_path(path, key)}: unexpected (got {_show(got[key])})"
        for key in expected:
            found = first_difference(expected[key], got[key], _path(path, key))
            if found:
                return found
        return ""
    if isinstance(expected, list) and isinstance(got, list):
        if path.startswith("legal_actions[") and expected != got:
            return _set_difference(path, expected, got)
        for index, (a, b) in enumerate(zip(expected, got, strict=False)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        if len(expected) != len(got):
            return f"{path}: expected {len(expected)} items, got {len(got)}: {_show(got)}"
        return ""
    if expected != got or type(expected) is not type(got):
        return f"{path or 'the answer'}: expected {_show(expected)}, got {_show(got)}"
    return ""


def _set_difference(path: str, expected: list, got: list) -> str:
    missing = [a for a in expected if a not in set(got)]
    extra = [a for a in got if a not in set(expected)]
    parts = []
    if missing:
        parts.append(f"missing {_few(missing)}")
    if extra:
        parts.append(f"unexpected {_few(extra)}")
    if not parts:
        parts.append("the same ids, some listed twice")
    return f"{path} (legal actions of player {path[14:-1]}): " + "; ".join(parts)


def _few(ids: list[str]) -> str:
    shown = ", ".join(ids[:3])
    return shown + (f" (and {len(ids) - 3} more)" if len(ids) > 3 else "")


def _path(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)


def _show(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"
