"""`metro testgen GAME --format vectors -o DIR`: test vectors recorded from the reference runtime.

Every vector is recorded with chance in `recorded` mode (the seeded game, each random event's
outcome logged), so it replays without metro's generator. A game's set holds: the initial
position for each player count, every scenario as data, a random playout per player count
and perft counts from positions on those playouts. A set for variants or expansions also holds
every base vector (the base of variants is the game with its expansions), replayed under the
patches with its expectations recomputed: marked `unchanged`, `changed` (with the steps that
differ), or listed as not applicable (with the step that no longer works); the patches' own
scenarios, and new positions and playouts where the base ones no longer apply, are the set's
`own` vectors.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from dataclasses import dataclass

from compiler.resolve import find_game_file
from loader import load_game
from metro.conformance.perft import ChanceInPerft, PerftBudget, initial_seed, perft
from metro.conformance.state_schema import state_schemas
from metro.conformance.suite import (
    MANIFEST,
    MANIFEST_FORMAT,
    OPTIONAL,
    PROTOCOL_VERSION,
    REQUIRED,
    probes,
    rules_digest,
    suite_digest,
    unordered_fields,
)
from metro.conformance.vectors import (
    VERSION,
    Skipped,
    Vector,
    VectorSet,
    dumps,
    expectation,
    fields_of,
    same_keys_expectation,
    unordered_views,
    write_set,
)
from metro.testing.scenarios import Scenario, own_scenarios, run_steps, scenarios
from runtime import saves
from runtime.chance import EXPLICIT, RECORDED
from runtime.errors import IllegalAction, InvalidSave, MetroRuntimeError, ScenarioFailure
from runtime.machine import Action, Game, State


@dataclass(frozen=True)
class VectorOptions:
    """How many vectors to record."""

    playouts: int = 1  # random playouts per player count
    playout_steps: int | None = None  # decisions per playout at most (None: to the end)
    playout_bytes: int = 400_000  # a playout ends once its steps hold this much JSON
    perft_at: tuple[int, ...] = (0, 12, 40)  # playout decisions after which perft is counted
    perft_depth: int = 3  # the deepest count published
    perft_budget: int = 2_000  # positions one count may visit (deeper counts are left out)


class VectorError(ValueError):
    """Vectors cannot be made: a scenario of the game fails on the reference runtime."""


def generate_vectors(
    game_path: str,
    out_dir: str,
    variants=(),
    expansions=(),
    map_path: str | None = None,
    options: VectorOptions = VectorOptions(),
) -> list[str]:
    """Record the vectors of a game configuration into `out_dir`; return the paths written."""
    vector_set, game = build_vectors(game_path, variants, expansions, map_path, options)
    texts = {name: dumps(doc) for name, doc in vector_set.files().items()}
    manifest = suite_manifest(vector_set, game_path, variants, expansions, map_path, texts)
    return write_set(vector_set, out_dir, {**state_schemas(game), MANIFEST: manifest})


def suite_manifest(
    vector_set: VectorSet, game_path: str, variants, expansions, map_path, texts: dict[str, str]
) -> dict:
    """The manifest of a vector set whose files are `texts` (name -> text)."""
    required = sum(v.requirement == REQUIRED for v in vector_set.vectors)
    return {
        "format": MANIFEST_FORMAT,
        "version": VERSION,
        "suite": suite_digest(texts),
        "game": vector_set.game,
        "configuration": vector_set.header("")["configuration"],
        "rules": rules_digest(game_path, variants, expansions, map_path),
        "unordered": vector_set.unordered,
        "protocol": PROTOCOL_VERSION,
        "files": sorted(texts),
        "cases": {REQUIRED: required, OPTIONAL: len(vector_set.vectors) - required},
        "conventions": [
            {
                "name": probe.name,
                "title": probe.title,
                "note": probe.note,
                "vectors": [v.id for v in vector_set.vectors if probe.name in v.conventions],
            }
            for probe in vector_set.probes
        ],
    }


def build_vectors(
    game_path: str,
    variants=(),
    expansions=(),
    map_path: str | None = None,
    options: VectorOptions = VectorOptions(),
) -> tuple[VectorSet, Game]:
    """The vector set of a game configuration, each vector marked required or optional, and the
    compiled game it was recorded on."""
    vector_set, game = _recorded(game_path, variants, expansions, map_path, options)
    game_dir = os.path.dirname(find_game_file(game_path))
    module = game.module
    names = [f[0] for f in (*module.SAVE_FIELDS, *module.SAVE_PLAYER_FIELDS)]
    try:
        found = probes(game_dir)
        unordered = unordered_fields(game_dir, names)
    except ValueError as error:
        raise VectorError(str(error)) from None
    vector_set.unordered = unordered
    vector_set.probes = found
    for vector in vector_set.vectors:
        vector.unordered = unordered
        vector.steps = [
            {"expect": unordered_views(step["expect"], unordered)} if "expect" in step else step
            for step in vector.steps
        ]
    for probe in found:
        probed = load_game(
            game_path, expansions=expansions, variants=[*variants, probe.path], map=map_path
        )
        for vector in vector_set.vectors:
            result = recompute(probed, vector, unordered)
            if isinstance(result, Skipped) or result.status == "changed":
                vector.requirement = OPTIONAL
                vector.conventions.append(probe.name)
    return vector_set, game


def _recorded(
    game_path: str,
    variants=(),
    expansions=(),
    map_path: str | None = None,
    options: VectorOptions = VectorOptions(),
) -> tuple[VectorSet, Game]:
    """The vector set of a game configuration, and the compiled game it was recorded on."""
    game = load_game(game_path, expansions=expansions, variants=variants, map=map_path)
    names = [_stem(v) for v in variants]
    added = [_stem(e) for e in expansions]
    game_dir = os.path.dirname(find_game_file(game_path))
    if not variants and not expansions:
        return VectorSet(
            game.name, names, added, map_path, _own_vectors(game, game_dir, options)
        ), game
    # The base of variants is the game with its expansions; of one expansion, the game; of
    # several expansions, the game with each of them alone (whose scenarios assume it alone).
    if variants or len(expansions) == 1:
        bases = [(expansions if variants else ())]
    else:
        bases = [(e,) for e in expansions]
    prefix = "variant-" if variants else "expansion-"
    vector_set = VectorSet(game.name, names, added, map_path, [])
    seen: set[str] = set()
    for base_expansions in bases:
        base, _ = _recorded(game_path, (), base_expansions, map_path, options)
        for vector in base.vectors:
            if vector.id in seen:  # the game's own vectors come with each expansion's set
                continue
            seen.add(vector.id)
            result = recompute(game, vector)
            if isinstance(result, Skipped):
                vector_set.not_applicable.append(result)
            else:
                vector_set.vectors.append(result)
    covered = Counter((v.kind, v.players) for v in vector_set.vectors)
    own = set(own_scenarios(game, game_path, variants, expansions))
    for index, scenario in enumerate(scenarios(game)):
        if scenario.name in own:
            vector_set.vectors.append(scenario_vector(game, scenario, index, game_dir, prefix))
    for players in _player_counts(game):  # new ones where the base ones do not apply
        if not covered["initial", players]:
            vector_set.vectors.append(initial_vector(game, players, prefix))
        for index in range(covered["playout", players], options.playouts):
            playout = playout_vector(game, players, index, options, prefix)
            vector_set.vectors.append(playout)
            vector_set.vectors.extend(perft_vectors(game, playout, options))
    return vector_set, game


def _own_vectors(game: Game, game_dir: str, options: VectorOptions) -> list[Vector]:
    out = [initial_vector(game, players) for players in _player_counts(game)]
    out += [scenario_vector(game, s, i, game_dir) for i, s in enumerate(scenarios(game))]
    for players in _player_counts(game):
        for index in range(options.playouts):
            playout = playout_vector(game, players, index, options)
            out.append(playout)
            out.extend(perft_vectors(game, playout, options))
    return out


def _player_counts(game: Game) -> range:
    return range(game.min_players, game.max_players + 1)


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60].rstrip("-")


def _playout_id(players: int, index: int, prefix: str = "") -> str:
    return f"playout-{prefix}{players}p-{index + 1}"


# ---------------------------------------------------------------- recording


class _Recorder:
    """Turns what happens to a recorded-chance state into vector steps.

    Every view is recorded at the start, after each arrangement and at the end; after an
    action or a refusal, who is to move, the legal actions, scores and ranking.
    """

    def __init__(self, state: State):
        self.steps: list[dict] = []
        self.size = 0  # characters of JSON recorded so far
        for record in state.chance.log:
            self.add({"chance": record.outcome})
        self.checkpoint(state, views=True)
        self.fields = fields_of(state)

    def add(self, step: dict) -> None:
        """Record one step."""
        self.steps.append(step)
        self.size += len(json.dumps(step, ensure_ascii=False))

    def arranged(self, state: State) -> None:
        """If the fields changed outside any action (a scenario arranged them), say so."""
        fields = fields_of(state)
        if fields != self.fields:
            state.forget_legal()  # lists cached before the arrangement are stale now
            self.add({"set_state": fields})
            self.checkpoint(state, views=True)
            self.fields = fields

    def apply(self, state: State, player: int, action, apply) -> None:
        """Apply through `apply` and record it: accepted with its chance outcomes, or refused."""
        self.arranged(state)
        mark = len(state.chance.log)
        try:
            apply(state, player, action)
        except IllegalAction:
            self.add({"refuse": {"player": player, "action": _id_of(state, action)}})
            self.checkpoint(state, views=False)
            raise
        self.add({"apply": {"player": player, "action": state.history[-1][1].id}})
        for record in state.chance.log[mark:]:
            self.add({"chance": record.outcome})
        self.fields = fields_of(state)

    def checkpoint(self, state: State, views: bool) -> None:
        """An expect step for the position now."""
        self.add({"expect": expectation(state, views)})

    def finish(self, state: State) -> None:
        """The last step shows every view (the step before, if it is an expect, is replaced)."""
        self.arranged(state)
        last = self.steps[-1].get("expect")
        if last is not None and "views" not in last:
            self.steps.pop()
        if last is None or "views" not in last:
            self.checkpoint(state, views=True)


def _id_of(state: State, action) -> str:
    """The id of an action a scenario tried, also when it is not among the legal ones."""
    if isinstance(action, str):
        return action
    if action[3] or not action.args:
        return action.id
    descs = state.game.module.ACTION_DESCS[action.name][0]
    return Action((0, action.name, action.args, descs)).id


def _recording(state: State, recorder: _Recorder) -> None:
    """Make `state` report its actions to `recorder` (a subclass with the same layout)."""
    base = type(state)

    def apply(self, player, action):
        recorder.apply(self, player, action, base.apply)
        recorder.checkpoint(self, views=False)

    state.__class__ = type(base.__name__, (base,), {"__slots__": (), "apply": apply})


def initial_vector(game: Game, players: int, prefix: str = "") -> Vector:
    """The position after the game's first random events: every observation, every view."""
    state = game.new_game(players, initial_seed(players), chance=RECORDED)
    steps = _Recorder(state).steps
    return Vector(
        f"initial-{prefix}{players}p",
        "initial",
        f"initial position, {players} players",
        players,
        steps,
    )


def scenario_vector(
    game: Game, scenario: Scenario, index: int, game_dir: str, prefix: str = ""
) -> Vector:
    """A scenario as data: its random events, arrangements, actions and what is seen after each."""
    state = game.new_game(scenario.players, scenario.seed, chance=RECORDED)
    recorder = _Recorder(state)
    _recording(state, recorder)
    try:
        run_steps(game, scenario, state)
    except (ScenarioFailure, MetroRuntimeError) as error:
        raise VectorError(
            f"{scenario.where}: scenario {scenario.name!r} fails on the reference runtime, so it "
            f"cannot become a vector: {error}"
        ) from None
    recorder.finish(state)
    source = os.path.relpath(os.path.abspath(scenario.file), os.path.abspath(game_dir))
    return Vector(
        f"scenario-{prefix}{index + 1:03d}-{_slug(scenario.name)}",
        "scenario",
        scenario.name,
        scenario.players,
        recorder.steps,
        f"{source.replace(os.sep, '/')}:{scenario.line}",
    )


def playout_vector(
    game: Game, players: int, index: int, options: VectorOptions, prefix: str = ""
) -> Vector:
    """A seeded random game: after every decision who is to move, the legal actions, scores and
    ranking; every view after decisions 1, 2, 4, 8, ... and at the end. A playout whose steps
    reach `options.playout_bytes` of JSON ends there."""
    seed = f"vectors/playout/{players}/{index + 1}"
    rng = random.Random(seed)
    state = game.new_game(players, seed, chance=RECORDED)
    recorder = _Recorder(state)
    limit = game.max_decisions if options.playout_steps is None else options.playout_steps
    decisions = 0
    while state.to_move and decisions < limit and recorder.size < options.playout_bytes:
        player = rng.choice(state.to_move)
        recorder.apply(state, player, rng.choice(state.legal_actions(player)), type(state).apply)
        decisions += 1
        recorder.checkpoint(state, views=decisions & (decisions - 1) == 0)
    recorder.finish(state)
    return Vector(
        _playout_id(players, index, prefix),
        "playout",
        f"random playout {index + 1}, {players} players"
        + (f", first {decisions} decisions" if state.to_move else ""),
        players,
        recorder.steps,
    )


def perft_vectors(game: Game, playout: Vector, options: VectorOptions) -> list[Vector]:
    """Perft checks from positions on a playout (depths until a count would need too much)."""
    out = []
    for after in options.perft_at:
        prefix = _prefix(playout.steps, after)
        if prefix is None:
            break
        state = _replay(game, playout.players, prefix)
        checks = [{"expect": expectation(state, True)}]
        for depth in range(1, options.perft_depth + 1):
            try:
                checks.append(
                    {"perft": {"depth": depth, "count": perft(state, depth, options.perft_budget)}}
                )
            except (ChanceInPerft, PerftBudget):
                break
        if len(checks) > 1:
            out.append(
                Vector(
                    playout.id.replace("playout-", "perft-", 1) + f"-at{after}",
                    "perft",
                    f"perft from {playout.name}, after {after} decisions",
                    playout.players,
                    prefix + checks,
                )
            )
    return out


def _prefix(steps: list[dict], decisions: int) -> list[dict] | None:
    """The chance and apply steps up to `decisions` decisions, with the outcomes they lead to."""
    out: list[dict] = []
    made = 0
    for step in steps:
        if "apply" in step:
            if made == decisions:
                return out
            made += 1
        if "apply" in step or "chance" in step:
            out.append(step)
    return out if made == decisions else None


def _replay(game: Game, players: int, steps: list[dict]) -> State:
    state = game.new_game(players, chance=EXPLICIT)
    for step in steps:
        if "chance" in step:
            state.apply_outcome(step["chance"])
        else:
            state.apply(step["apply"]["player"], step["apply"]["action"])
    return state


# ---------------------------------------------------------------- base vectors under patches


def recompute(game: Game, vector: Vector, unordered=()) -> Vector | Skipped:
    """A base vector replayed on `game` with its expectations recomputed (Skipped if it cannot be);
    the `unordered` fields of views are compared as multisets."""
    if not game.min_players <= vector.players <= game.max_players:
        return Skipped(
            vector.id,
            f"the patches allow {game.min_players}-{game.max_players} players, not {vector.players}",
        )
    state = game.new_game(vector.players, chance=EXPLICIT)
    steps: list[dict] = []
    changed: list[int] = []
    for index, step in enumerate(vector.steps):
        ((kind, value),) = step.items()
        try:
            new = _recompute_step(state, kind, value, unordered)
        except (IllegalAction, InvalidSave, ChanceInPerft, PerftBudget, MetroRuntimeError) as error:
            return Skipped(vector.id, f"step {index} ({kind}) no longer works: {_short(error)}")
        if kind == "expect":
            value = unordered_views(value, unordered)
        if new != value:
            changed.append(index)
        steps.append({kind: new})
    status = "changed" if changed else "unchanged"
    return Vector(
        vector.id, vector.kind, vector.name, vector.players, steps, vector.source, status, changed
    )


def _short(error: Exception) -> str:
    """An error's message with the rule file named by its file name alone (vectors travel)."""
    file = getattr(error, "file", "")
    text = str(error)
    return text.replace(file, os.path.basename(file), 1) if file else text


def _recompute_step(state: State, kind: str, value, unordered):
    if kind == "chance":
        state.apply_outcome(value)
    elif kind == "apply":
        state.apply(value["player"], value["action"])
    elif kind == "refuse":
        try:
            state.apply(value["player"], value["action"])
        except IllegalAction:
            return value
        raise IllegalAction(f"{value['action']} is now accepted from player {value['player']}")
    elif kind == "set_state":
        saves.set_fields(state, value)
    elif kind == "expect":
        return same_keys_expectation(state, value, unordered)
    elif kind == "perft":
        return {"depth": value["depth"], "count": perft(state, value["depth"])}
    return value
