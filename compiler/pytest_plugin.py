"""pytest plugin: `pytest games/` collects every scenario written beside the rules.

A game's rules.metro yields the scenarios of the game (its parts included); a variant or
expansion file yields the scenarios it declares itself, run with it applied.
"""

from __future__ import annotations

import os

import pytest

from compiler import load_game
from compiler.resolve import expansion_named, patch_title
from dsl.diagnostics import CompileError
from runtime.errors import MetroRuntimeError, ScenarioFailure
from runtime.scenarios import run_scenario, scenarios


def pytest_collect_file(parent, file_path):
    """Collect .metro files that declare a game, a variant or an expansion."""
    if file_path.suffix != ".metro":
        return None
    if file_path.name == "rules.metro":
        return MetroFile.from_parent(parent, path=file_path)
    if file_path.parent.name == "variants" or file_path.name == "expansion.metro":
        return MetroFile.from_parent(parent, path=file_path)
    return None


def _game_dir(path: str) -> tuple[str, list[str], list[str]]:
    """(game directory, expansions, variants) needed to run the scenarios of a file.

    A variant that `requires` an expansion is run with that expansion applied.
    """
    folder = os.path.dirname(path)
    if os.path.basename(path) == "rules.metro":
        return folder, [], []
    game_dir = os.path.dirname(folder)
    if os.path.basename(folder) != "variants":
        return game_dir, [path], []
    found = patch_title(path)
    expansions = [e for e in (expansion_named(game_dir, t) for t in (found[1] if found else [])) if e]
    return game_dir, expansions, [path]


class MetroFile(pytest.File):
    """A rule file; its items are its scenarios."""

    def collect(self):
        """One item per scenario declared in this file."""
        path = str(self.path)
        game_dir, expansions, variants = _game_dir(path)
        try:
            game = load_game(game_dir, expansions=expansions, variants=variants)
        except CompileError as error:
            yield CompileFailure.from_parent(self, name="compile", error=error)
            return
        # An expansion's scenarios may live in the parts beside it (its own directory).
        own = os.path.dirname(os.path.abspath(path)) if self.path.name == "expansion.metro" else None
        for scenario in scenarios(game):
            where = os.path.abspath(scenario.file)
            if (where == os.path.abspath(path) or path.endswith("rules.metro")
                    or (own is not None and where.startswith(own + os.sep))):
                yield ScenarioItem.from_parent(self, name=f"scenario {scenario.name}", game=game,
                                               scenario=scenario)


class CompileFailure(pytest.Item):
    """The file does not compile: one failing item carrying the diagnostics."""

    def __init__(self, *, error: CompileError, **kwargs):
        super().__init__(**kwargs)
        self.error = error

    def runtest(self):
        """Always fails with the rendered diagnostics."""
        raise self.error

    def repr_failure(self, excinfo, style=None):
        """The diagnostics, as `metro check` prints them."""
        return self.error.render()


class ScenarioItem(pytest.Item):
    """One scenario of one game."""

    def __init__(self, *, game, scenario, **kwargs):
        super().__init__(**kwargs)
        self.game = game
        self.scenario = scenario

    def runtest(self):
        """Play the scenario."""
        run_scenario(self.game, self.scenario)

    def repr_failure(self, excinfo, style=None):
        """`FILE.metro:LINE: scenario NAME`, then what was expected and what happened."""
        head = f"{self.scenario.where}: scenario {self.scenario.name}"
        error = excinfo.value
        if isinstance(error, ScenarioFailure | MetroRuntimeError):
            return f"{head}\n  {error}"
        return f"{head}\n  {type(error).__name__}: {error}"

    def reportinfo(self):
        """Where the scenario is declared."""
        return self.scenario.file, self.scenario.line - 1, f"scenario {self.scenario.name}"
