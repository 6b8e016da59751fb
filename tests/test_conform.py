"""metro conform: vectors against engines; the independent Ticket to Ride engine passes, planted bugs fail."""

from __future__ import annotations

import ast
import json
import os
import sys

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from metro.cli import main
from metro.conformance.adapter import SubprocessAdapter
from metro.conformance.conform import first_difference, load_vectors, run_vector, run_vectors
from metro.conformance.vectorgen import generate_vectors
from tests.conftest import ROOT
from tests.test_vectors import registry

TTR = os.path.join(ROOT, "games", "ticket_to_ride")
ENGINE_DIR = os.path.join(ROOT, "examples", "ttr_engine")
INDEPENDENT = [sys.executable, os.path.join(ENGINE_DIR, "serve.py")]
WRAPPER = [sys.executable, os.path.join(ROOT, "examples", "json_engine.py"), TTR]


@pytest.fixture(scope="module")
def ttr_vectors(tmp_path_factory):
    folder = tmp_path_factory.mktemp("vectors")
    generate_vectors(TTR, str(folder))
    return str(folder)


def conform(*args: str):
    return CliRunner().invoke(main, ["conform", *args])


def test_the_independent_engine_imports_nothing_but_the_standard_library():
    own = {name[:-3] for name in os.listdir(ENGINE_DIR) if name.endswith(".py")}
    for name in sorted(own):
        with open(os.path.join(ENGINE_DIR, f"{name}.py"), encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                assert top in sys.stdlib_module_names or top in own, f"{name}.py imports {module}"


def test_the_independent_engine_passes_every_ticket_to_ride_vector(ttr_vectors):
    result = conform(ttr_vectors, "--engine", " ".join(INDEPENDENT))
    assert result.exit_code == 0, result.output[-2000:]
    last = result.output.strip().splitlines()[-1]
    passed = int(last.split()[0])
    assert last == f"{passed} passed, 0 failed" and passed > 100
    with open(os.path.join(ROOT, "examples", "README.md"), encoding="utf-8") as handle:
        assert f"# ... {last}\n" in handle.read(), "examples/README.md quotes another count"


@pytest.mark.parametrize(
    ("bug", "difference"),
    [
        ("second-locomotive", "perft("),
        ("ticket-top", "missing kept([T08 T16 T30])"),
        ("no-redeal", "the engine refused second_face_up("),
        ("one-bonus", "player_state[3].score: expected -51, got -61"),
    ],
)
def test_a_planted_bug_is_caught_with_a_minimal_difference(ttr_vectors, bug, difference):
    result = conform(ttr_vectors, "--engine", " ".join([*INDEPENDENT, "--bug", bug]), "-x")
    assert result.exit_code == 1
    failure = [line for line in result.output.splitlines() if line.startswith("FAIL")]
    assert len(failure) == 1
    detail = result.output.split(failure[0], 1)[1].strip().splitlines()[0]
    assert detail.startswith("step ") and difference in detail, detail
    assert result.output.strip().endswith("1 failed")


def test_the_metro_wrapping_example_engine_passes_too(ttr_vectors):
    result = conform(ttr_vectors, "--engine", " ".join(WRAPPER), "--only", "scenario-02")
    assert result.exit_code == 0, result.output[-2000:]
    assert result.output.strip().endswith("10 passed, 0 failed")


def test_conform_json_follows_its_schema(ttr_vectors):
    result = conform(ttr_vectors, "--reference", TTR, "--only", "initial", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    Draft202012Validator(_schema("conform.schema.json")).validate(report)
    assert (report["passed"], report["failed"]) == (4, 0)


def test_conform_needs_one_engine(ttr_vectors, tmp_path):
    assert conform(ttr_vectors).exit_code == 2
    assert conform(ttr_vectors, "--engine", "x", "--reference", TTR).exit_code == 2
    empty = conform(str(tmp_path), "--reference", TTR)
    assert empty.exit_code == 1 and "no vector files" in empty.output


def test_an_engine_of_another_game_is_refused(ttr_vectors, tmp_path):
    script = tmp_path / "other.py"
    script.write_text(
        "import sys\nfor line in sys.stdin:\n"
        '    print(\'{"ok": true, "game": "Chess", "min_players": 2, "max_players": 2}\', flush=True)\n'
    )
    result = conform(ttr_vectors, "--engine", f"{sys.executable} {script}")
    assert result.exit_code == 1 and "the engine serves 'Chess'" in result.output


def test_an_engine_that_dies_fails_one_vector_and_is_started_again(ttr_vectors, tmp_path):
    script = tmp_path / "dies.py"  # accepts three requests, then exits
    script.write_text(
        "import sys\n"
        "for count, line in enumerate(sys.stdin):\n"
        "    if count == 3:\n"
        "        print('out of steam', file=sys.stderr)\n"
        "        sys.exit(3)\n"
        "    print('{\"ok\": true}', flush=True)\n"
    )
    _, vectors = load_vectors(ttr_vectors, "initial")
    starts = []

    def start():
        starts.append(1)
        return SubprocessAdapter([sys.executable, str(script)], timeout=20)

    results = run_vectors(start, vectors)
    assert len(results) == 4 and not any(r.passed for r in results)
    assert all(r.difference.startswith("engine error at step 2") for r in results)
    assert all(
        "closed its output" in r.difference and "out of steam" in r.difference for r in results
    )
    assert len(starts) == 4


def test_first_difference_names_the_path_of_the_first_change():
    assert (
        first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "a[1].b: expected 2, got 3"
    )
    assert first_difference({"a": 1}, {"a": 1}) == ""
    assert first_difference({"a": 1}, {}) == "a: missing (expected 1)"
    assert first_difference({}, {"z": 1}) == "z: unexpected (got 1)"
    assert first_difference([1, 2], [1, 2, 3]) == ": expected 2 items, got 3: [1, 2, 3]"
    assert first_difference(True, 1) == "the answer: expected true, got 1"
    legal = first_difference(
        {"legal_actions": [[], ["a", "b", "c", "d", "e"]]},
        {"legal_actions": [[], ["b", "x"]]},
    )
    assert legal == (
        "legal_actions[1] (legal actions of player 1): missing a, c, d (and 1 more); unexpected x"
    )


def test_every_request_and_answer_of_a_vector_follows_the_protocol_schemas(ttr_vectors):
    """Both example engines, one scenario vector each: every line each way is checked."""
    requests = Draft202012Validator(_schema("protocol/request.schema.json"), registry=registry())
    answers = _schema("protocol/answer.schema.json")
    _, vectors = load_vectors(ttr_vectors, "scenario-007")
    for argv in (INDEPENDENT, WRAPPER):
        checked = []
        with SubprocessAdapter(argv, timeout=60) as engine:
            send = engine.request

            def checking(op, _send=send, _checked=checked, **fields):
                request = {"op": op, **fields}
                requests.validate(request)
                answer = _send(op, **fields)
                definition = answers["$defs"]["refusal" if not answer["ok"] else op]
                Draft202012Validator(
                    definition | {"$id": answers["$id"]}, registry=registry()
                ).validate(answer)
                _checked.append(op)
                return answer

            engine.request = checking
            result = run_vector(engine, vectors[0][1])
        assert result.passed, result.difference
        assert {"new_game", "chance", "legal_actions", "view", "apply"} <= set(checked)


def _schema(name: str) -> dict:
    with open(os.path.join(ROOT, "schemas", name), encoding="utf-8") as handle:
        return json.load(handle)


@pytest.mark.parametrize(
    ("vector", "message"),
    [
        ("[]", "a vector is an object"),
        ('{"id": "x", "players": 0, "steps": []}', "x: players is 1..1000"),
        ('{"id": "x", "players": 2, "steps": [{"apply": {}, "chance": {}}]}', "one key"),
        ('{"id": "x", "players": 2, "steps": [{"teleport": {}}]}', "unknown step 'teleport'"),
        ('{"id": "x", "players": 2, "steps": [{"apply": {"player": "P1"}}]}', "integer player"),
        ('{"id": "x", "players": 2, "steps": [{"perft": {"depth": 1}}]}', "perft needs"),
        ('{"id": "x", "players": 2, "steps": [{"expect": {"mood": 1}}]}', "expect holds"),
    ],
)
def test_a_malformed_vector_file_is_reported_not_run(tmp_path, vector, message):
    (tmp_path / "bad.json").write_text(
        '{"format": "metro-vectors", "game": "Ticket to Ride", "vectors": [' + vector + "]}"
    )
    result = conform(str(tmp_path), "--reference", TTR)
    assert result.exit_code == 1
    assert "cannot read the vectors" in result.output and message in result.output
    assert "Traceback" not in result.output
