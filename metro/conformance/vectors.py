"""Test vectors: language-neutral JSON files of steps and expected observations (docs/protocol.md).

A vector starts a game with explicit chance (`new_game` with `"chance": "explicit"`) for its
number of players and then runs its steps in order, each an object with one key:

- `{"chance": outcome}`: give the waiting chance event's outcome (runtime/chance.py forms);
- `{"apply": {"player": p, "action": id}}`: the engine must accept the action;
- `{"refuse": {"player": p, "action": id}}`: the engine must refuse it and change nothing;
- `{"set_state": {"state": {...}, "player_state": [...]}}`: replace the declared fields (a
  scenario arranged the position); the pending decision stays as it is;
- `{"expect": {...}}`: what the engine must report now (any of `to_move`, `chance`,
  `legal_actions` per player as sorted ids, `views` per player, `scores`, `ranking`, `over`);
- `{"perft": {"depth": d, "count": n}}`: the engine's own count of action sequences of length d.

Files hold one kind of vector each (`initial.json`, `scenarios.json`, `playouts.json`,
`perft.json`), described by schemas/vectors.schema.json. Each vector is a `required` or an
`optional` case (metro/conformance/suite.py); each file names its `unordered` fields, which views
compare as multisets.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from metro.output_files import write_output
from runtime.chance import CHANCE
from runtime.machine import State

FORMAT = "metro-vectors"
VERSION = 2  # 2: every vector says whether it is a required or an optional case
KINDS = ("initial", "scenario", "playout", "perft")
FILES = {
    "initial": "initial.json",
    "scenario": "scenarios.json",
    "playout": "playouts.json",
    "perft": "perft.json",
}
# In a set made for variants or expansions: a base vector replayed with the same expectations,
# a base vector whose expectations the patches change (recomputed), or the set's own vector.
STATUSES = ("unchanged", "changed", "own")
REQUIREMENTS = ("required", "optional")
STEP_KINDS = ("chance", "apply", "refuse", "set_state", "expect", "perft")


@dataclass
class Vector:
    """One test vector: a game of `players` driven by `steps` (see the module docstring)."""

    id: str
    kind: str
    name: str
    players: int
    steps: list[dict]
    source: str = ""  # where a scenario is declared, `file:line` relative to the game's folder
    status: str = "own"
    changed_steps: list[int] = field(default_factory=list)  # status "changed": which expect/perft
    requirement: str = "required"  # or "optional": it depends on a convention (suite.py)
    conventions: list[str] = field(default_factory=list)  # optional: the probes that change it
    unordered: list[str] = field(default_factory=list)  # its file's fields compared as multisets

    def to_doc(self) -> dict:
        """JSON form."""
        doc = {
            "id": self.id,
            "kind": self.kind,
            "name": self.name,
            "players": self.players,
            "status": self.status,
            "requirement": self.requirement,
        }
        if self.conventions:
            doc["conventions"] = self.conventions
        if self.source:
            doc["source"] = self.source
        if self.status == "changed":
            doc["changed_steps"] = self.changed_steps
        doc["steps"] = self.steps
        return doc

    @staticmethod
    def from_doc(doc) -> Vector:
        """Inverse of to_doc; VectorFileError if `doc` is not a vector (files are untrusted)."""
        if not isinstance(doc, dict):
            raise VectorFileError("a vector is an object")
        name = doc.get("id")
        if not isinstance(name, str) or not isinstance(doc.get("name", ""), str):
            raise VectorFileError("a vector's id and name are strings")
        players = doc.get("players")
        if type(players) is not int or not 1 <= players <= MAX_PLAYERS:
            raise VectorFileError(f"{name}: players is 1..{MAX_PLAYERS}")
        steps = doc.get("steps")
        if not isinstance(steps, list):
            raise VectorFileError(f"{name}: steps is a list")
        for index, step in enumerate(steps):
            problem = _step_problem(step)
            if problem:
                raise VectorFileError(f"{name}: step {index}: {problem}")
        requirement = doc.get("requirement", "required")
        if requirement not in REQUIREMENTS:
            raise VectorFileError(f"{name}: requirement is one of {', '.join(REQUIREMENTS)}")
        conventions = doc.get("conventions", [])
        if not isinstance(conventions, list) or not all(isinstance(c, str) for c in conventions):
            raise VectorFileError(f"{name}: conventions is a list of names")
        return Vector(
            name,
            str(doc.get("kind", "")),
            doc.get("name", ""),
            players,
            steps,
            str(doc.get("source", "")),
            str(doc.get("status", "own")),
            requirement=requirement,
            conventions=list(conventions),
        )


class VectorFileError(ValueError):
    """A vector file that does not hold vectors (schemas/vectors.schema.json)."""


MAX_PLAYERS = 1000
EXPECT_KEYS = frozenset(
    ("to_move", "chance", "legal_actions", "views", "scores", "ranking", "over")
)


def _step_problem(step) -> str:
    """Why `step` is not a vector step ("" if it is one)."""
    if not isinstance(step, dict) or len(step) != 1:
        return "a step is an object with one key"
    ((kind, value),) = step.items()
    if kind not in STEP_KINDS:
        return f"unknown step {kind!r}"
    if kind in ("apply", "refuse"):
        if not isinstance(value, dict) or type(value.get("player")) is not int:
            return f"{kind} needs an integer player"
        if not isinstance(value.get("action"), str):
            return f"{kind} needs an action id"
    elif kind == "perft":
        if not isinstance(value, dict) or any(
            type(value.get(key)) is not int or value[key] < 0 for key in ("depth", "count")
        ):
            return "perft needs depth and count as whole numbers"
    elif kind == "expect":
        if not isinstance(value, dict) or not set(value) <= EXPECT_KEYS:
            return f"expect holds some of {', '.join(sorted(EXPECT_KEYS))}"
    elif not isinstance(value, dict):
        return f"{kind} needs an object"
    return ""


@dataclass
class Skipped:
    """A base vector that cannot be replayed in this configuration, and why."""

    id: str
    reason: str


@dataclass
class VectorSet:
    """Every vector of one game configuration, and the base vectors that do not apply to it."""

    game: str
    variants: list[str]
    expansions: list[str]
    map: str | None
    vectors: list[Vector]
    not_applicable: list[Skipped] = field(default_factory=list)
    unordered: list[str] = field(default_factory=list)  # fields views show as multisets
    # the convention probes it was checked against (suite.Probe)
    probes: list = field(default_factory=list)

    def header(self, kind: str) -> dict:
        """The part of a file's JSON shared by every kind."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "configuration": {
                "variants": self.variants,
                "expansions": self.expansions,
                "map": self.map,
            },
            "kind": kind,
            "unordered": self.unordered,
        }

    def files(self) -> dict[str, dict]:
        """File name -> JSON document, one file per kind that has vectors or skipped ones."""
        out: dict[str, dict] = {}
        for kind in KINDS:
            vectors = [v for v in self.vectors if v.kind == kind]
            skipped = [s for s in self.not_applicable if s.id.startswith(kind)]
            if not vectors and not skipped:
                continue
            doc = self.header(kind)
            doc["vectors"] = [v.to_doc() for v in vectors]
            if skipped:
                doc["not_applicable"] = [{"id": s.id, "reason": s.reason} for s in skipped]
            out[FILES[kind]] = doc
        return out


def write_set(vector_set: VectorSet, out_dir: str, extra: dict[str, dict] | None = None) -> list:
    """Write the set's files (and `extra` name -> document) into `out_dir`; the paths written."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for name, doc in {**vector_set.files(), **(extra or {})}.items():
        path = os.path.join(out_dir, name)
        write_output(path, dumps(doc))
        written.append(path)
    return written


def dumps(doc: dict) -> str:
    """JSON text with one vector step per line (compact inside), so files diff by step."""
    if "vectors" not in doc:
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
    compact = {"ensure_ascii": False, "separators": (",", ":")}
    head = {k: v for k, v in doc.items() if k not in ("vectors", "not_applicable")}
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v, **compact)}," for k, v in head.items()]
    lines.append(' "vectors": [')
    for i, vector in enumerate(doc["vectors"]):
        fields = {k: v for k, v in vector.items() if k != "steps"}
        lines.append("  " + json.dumps(fields, **compact)[:-1] + ',"steps":[')
        steps = vector["steps"]
        lines += [
            "   " + json.dumps(s, **compact) + ("," if j < len(steps) - 1 else "")
            for j, s in enumerate(steps)
        ]
        lines.append("  ]}" + ("," if i < len(doc["vectors"]) - 1 else ""))
    skipped = doc.get("not_applicable")
    lines.append(" ]" + ("," if skipped else ""))
    if skipped:
        lines.append(f' "not_applicable": {json.dumps(skipped, ensure_ascii=False, indent=1)}')
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- observing a position


def jsonable(value):
    """`value` exactly as it travels as JSON (tuples become lists)."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def fields_of(state: State) -> dict:
    """The declared fields of a position, all of them, in the state JSON (`set_state`'s form)."""
    module = state.game.module
    return jsonable(
        {
            "state": module.encode_fields(state),
            "player_state": [module.encode_player(state, p) for p in range(state.n)],
        }
    )


def expectation(state: State, views: bool) -> dict:
    """What an engine must report at this position (views of every player when `views`)."""
    to_move = state.to_move
    chance = to_move == [CHANCE]
    doc: dict = {
        "to_move": [] if chance else list(to_move),
        "chance": chance,
        "legal_actions": [sorted(a.id for a in state.legal_actions(p)) for p in range(state.n)],
    }
    if views:
        doc["views"] = [jsonable(state.view(p)) for p in range(state.n)]
    doc["scores"] = list(state.scores())
    doc["ranking"] = list(state.ranking())
    doc["over"] = state.is_over
    return doc


def same_keys_expectation(state: State, expected: dict, unordered=()) -> dict:
    """This position's expectation with the same keys as `expected` (recomputing a vector)."""
    full = expectation(state, "views" in expected)
    return unordered_views({key: full[key] for key in expected}, unordered)


def unordered_views(expected: dict, unordered) -> dict:
    """`expected` with the `unordered` fields of its views sorted (by their items' JSON text), so
    their order is not compared; the other keys as they are."""
    if not unordered or "views" not in expected:
        return expected
    return {**expected, "views": [_sorted_fields(view, unordered) for view in expected["views"]]}


def _sorted_fields(view, unordered):
    if not isinstance(view, dict):
        return view
    out = dict(view)
    if isinstance(view.get("state"), dict):
        out["state"] = _sorted_values(view["state"], unordered)
    if isinstance(view.get("player_state"), list):
        out["player_state"] = [_sorted_values(one, unordered) for one in view["player_state"]]
    return out


def _sorted_values(fields, unordered):
    if not isinstance(fields, dict):
        return fields
    key = lambda item: json.dumps(item, sort_keys=True, ensure_ascii=False)  # noqa: E731
    return {
        name: sorted(value, key=key) if name in unordered and isinstance(value, list) else value
        for name, value in fields.items()
    }


def read_vector_files(folder: str) -> list[tuple[str, dict]]:
    """(path, document) of every vector file in `folder` (files of another format are skipped)."""
    found = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json") or name.endswith(".schema.json"):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
        if isinstance(doc, dict) and doc.get("format") == FORMAT:
            found.append((path, doc))
    return found
