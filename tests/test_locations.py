"""A generated module names no path of the machine: the same game compiled from two copies of
the games folder gives the same modules, and its messages still name the rule file and line."""

from __future__ import annotations

import os
import shutil

import pytest

from compiler.driver import compile_game
from compiler.sources import location_of
from loader import load_game
from runtime.errors import RuleError
from runtime.machine import load_module

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = os.path.join(ROOT, "games")


def two_copies(tmp_path, *folders: str) -> list[str]:
    """Two copies of the named folders of games/, at different absolute paths."""
    roots = []
    for copy in ("first", "second/deeper"):
        root = tmp_path / copy / "games"
        for folder in folders:
            shutil.copytree(os.path.join(GAMES, folder), root / folder)
        roots.append(str(root))
    return roots


@pytest.mark.parametrize(
    ("game", "libraries"),
    [("ticket_to_ride", ()), ("jidohanbaiki", ("jidohanbaiki", "jutaku"))],
)
def test_the_same_game_from_two_places_compiles_to_the_same_modules(tmp_path, game, libraries):
    folders = (game, *(os.path.join("components", name) for name in libraries))
    texts = []
    for root in two_copies(tmp_path, *folders):
        library_root = os.path.join(root, "components") if libraries else None
        ctx = compile_game(os.path.join(root, game), library_root=library_root)
        for text in (ctx.python, ctx.scenarios_python):
            assert str(tmp_path) not in text and ROOT not in text
        texts.append((ctx.python, ctx.scenarios_python))
    assert texts[0] == texts[1]
    assert "SOURCES = (" in texts[0][0]


BROKEN = """game "Located" {
  players 1..1
  state { n: int public = 0  big: int public = 1000000000000 }
  flow { loop { choose by seat(1) { go, stop } } }
  action go() {
    repeat big times { n += 1 }
  }
  action stop() { end game }
}
"""


def test_a_budget_message_names_the_rule_file_and_line(tmp_path):
    (tmp_path / "rules.metro").write_text(BROKEN)
    game = load_game(str(tmp_path), use_cache=False)
    state = game.new_game(1, 1)
    with pytest.raises(RuleError) as info:
        state.apply(0, "go")
    path = os.path.join(str(tmp_path), "rules.metro")
    assert info.value.file == path and info.value.line == 6
    assert f"{path}:6:" in str(info.value) and "step budget" in str(info.value)


def test_a_module_run_without_the_loader_names_its_recorded_files(tmp_path):
    (tmp_path / "rules.metro").write_text(BROKEN)
    text = compile_game(str(tmp_path)).python
    module = load_module(text, "<a file>", "located_from_a_file")
    assert module.SOURCES == ("rules.metro",) and module.SOURCE_FILE == "rules.metro"


def _global_names(code) -> set[str]:
    """Every name a code object and the code objects in it read or bind as globals."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _global_names(const)
    return names


@pytest.mark.parametrize("game", ["ticket_to_ride", "izakaya", "tokyo_metro"])
def test_every_location_a_module_reads_is_bound_once_at_its_top(game):
    ctx = compile_game(os.path.join(GAMES, game))
    for text in (ctx.python, ctx.scenarios_python):
        read = {n for n in _global_names(compile(text, game, "exec")) if location_of(n)}
        bound = {
            line.split(" = ")[0] for line in text.splitlines() if location_of(line.split(" = ")[0])
        }
        assert read and read == bound
        # Bound before any function is defined, so module-level code may charge at them too.
        first_def = text.index("\ndef ")
        assert all(text.index(f"\n{name} = ") < first_def for name in bound)
    # A charge passes its location as one global read: no tuple is built where it is made.
    assert "(_F0, " not in ctx.python.split("\ndef ", 1)[1]
