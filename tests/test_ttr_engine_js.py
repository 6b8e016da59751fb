"""The JavaScript Ticket to Ride engine (examples/ttr_engine_js/) passes every vector; planted bugs fail.

The engine was written from the documentation and the rulebook alone (its NOTES.md logs what they
did not say). It runs under Node with Node's standard library only: the test checks its requires,
and runs a copy of it from a folder outside the repository, so it can use no file of metro. All
the Ticket to Ride vectors are run (about 110; a few seconds with Node).
"""

from __future__ import annotations

import os
import re
import shutil

import pytest
from click.testing import CliRunner

from metro.cli import main
from tests.conftest import ROOT

ENGINE_DIR = os.path.join(ROOT, "examples", "ttr_engine_js")
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not on PATH")

# require("x"), import ... from "x", import("x"), export ... from "x"
MODULE_NAMES = re.compile(
    r"""\brequire\s*\(\s*(['"`])(?P<a>[^'"`]*)\1"""
    r"""|\bfrom\s*(['"])(?P<b>[^'"]*)\3"""
    r"""|\bimport\s*(?:\(\s*)?(['"])(?P<c>[^'"]*)\5"""
)


def engine_sources() -> dict[str, str]:
    sources = {}
    for name in sorted(os.listdir(ENGINE_DIR)):
        if name.endswith((".js", ".mjs", ".cjs")):
            with open(os.path.join(ENGINE_DIR, name), encoding="utf-8") as handle:
                sources[name] = handle.read()
    return sources


@pytest.fixture(scope="module")
def vectors(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ttr_vectors")
    result = CliRunner().invoke(
        main, ["testgen", "ticket_to_ride", "--format", "vectors", "-o", str(folder)]
    )
    assert result.exit_code == 0, result.output
    return str(folder)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    """The command running a copy of the engine, away from the repository."""
    folder = tmp_path_factory.mktemp("ttr_engine_js")
    for name in engine_sources():
        shutil.copy(os.path.join(ENGINE_DIR, name), folder)
    return f"{NODE} {os.path.join(str(folder), 'serve.js')}"


def conform(vectors: str, command: str):
    return CliRunner().invoke(main, ["conform", vectors, "--engine", command])


def test_the_engine_uses_nothing_but_nodes_standard_library():
    sources = engine_sources()
    assert "serve.js" in sources
    for name, text in sources.items():
        modules = [
            m.group("a") or m.group("b") or m.group("c") for m in MODULE_NAMES.finditer(text)
        ]
        for module in modules:
            local = module.startswith("./") and module[2:] in sources
            assert module.startswith("node:") or local, f"{name} loads {module!r}"
        # No file of metro: the map is copied into board.js, nothing is read from the repository.
        assert "../" not in text and ".metro" not in text.replace("metro conform", ""), name
        assert not re.search(
            r"\b(readFile|readFileSync|openSync|readdirSync|createReadStream)\b", text
        ), name
    assert "require(" in sources["serve.js"]


def test_the_engine_passes_every_ticket_to_ride_vector(vectors, engine):
    result = conform(vectors, engine)
    last = result.output.strip().splitlines()[-1]
    assert result.exit_code == 0, result.output[-3000:]
    passed = int(last.split()[0])
    assert last == f"{passed} passed, 0 failed" and passed > 100, last


@pytest.mark.parametrize(
    ("bug", "difference"),
    [
        ("pay-short", ".discard["),
        ("bonus-next", ".score: expected"),
        ("late-last-round", "to_move: expected"),
        ("second-locomotive", "second_face_up(locomotive)"),
    ],
)
def test_a_planted_bug_is_caught(vectors, engine, bug, difference):
    result = conform(vectors, f"{engine} --bug {bug}")
    assert result.exit_code == 1, result.output[-2000:]
    assert "FAIL " in result.output and difference in result.output, result.output[-2000:]
