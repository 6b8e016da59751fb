"""pytest plugin: `pytest games/` collects every scenario written beside the rules.

A game's rules.metro yields the scenarios of the game (its parts included); a variant or
expansion file yields the scenarios it declares itself, run with it applied.
`--metro-variant FILE` collects a variant file wherever it is (a user's house rules), for the
game `--metro-game GAME` names, else the shipped game whose name its `for "…"` gives.
`--metro-coverage` reports which .metro lines the scenarios ran (also across xdist workers).
"""

from __future__ import annotations

import json
import os

import pytest

from compiler.resolve import expansion_named, find_game_file, load_file, patch_title
from dsl.diagnostics import CompileError
from loader import load_game
from loader.games import UnknownGame, game_path, shipped_games
from metro.testing.coverage import coverage_of, format_coverage, trace_lines, traced_files
from metro.testing.scenarios import run_scenario, scenarios
from runtime.errors import MetroRuntimeError, ScenarioFailure

COVERAGE_KEY = "metro_coverage"  # in config.workeroutput: what an xdist worker's scenarios ran


def pytest_addoption(parser):
    """`--metro-coverage`, `--metro-variant FILE` and `--metro-game GAME`."""
    group = parser.getgroup("metro")
    group.addoption(
        "--metro-coverage",
        action="store_true",
        help="after the run, report which .metro lines the collected scenarios ran",
    )
    group.addoption(
        "--metro-variant",
        action="append",
        default=[],
        metavar="FILE",
        help="also collect the scenarios of this variant file, wherever it is (repeatable)",
    )
    group.addoption(
        "--metro-game",
        default=None,
        metavar="GAME",
        help="the game --metro-variant files are for (default: the shipped game they name)",
    )


def pytest_configure(config):
    """Executed lines per game configuration (a JSON key), filled as scenarios run; the named
    variant files are added to what is collected."""
    config.metro_executed = {}
    named = []
    for path in config.getoption("metro_variant", default=[]) or []:
        if not os.path.isfile(path):
            raise pytest.UsageError(f"--metro-variant: no file {path!r}")
        named.append(os.path.abspath(path))
        if os.path.abspath(path) not in map(os.path.abspath, config.args):
            config.args.append(path)
    config.metro_variants = frozenset(named)


def _record(config, key: str, lines: set[int]) -> None:
    config.metro_executed.setdefault(key, set()).update(lines)


def pytest_sessionfinish(session):
    """On an xdist worker, hand the executed lines to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None and session.config.metro_executed:
        workeroutput[COVERAGE_KEY] = {
            key: sorted(lines) for key, lines in session.config.metro_executed.items()
        }


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """On the xdist controller, merge a finished worker's executed lines."""
    for key, lines in getattr(node, "workeroutput", {}).get(COVERAGE_KEY, {}).items():
        _record(node.config, key, set(lines))


def pytest_terminal_summary(terminalreporter, config):
    """The rule coverage of every game configuration whose scenarios ran."""
    if not config.getoption("metro_coverage") or getattr(config, "workeroutput", None) is not None:
        return
    for key, lines in sorted(config.metro_executed.items()):
        game_dir, expansions, variants = json.loads(key)
        game = load_game(game_dir, expansions=expansions, variants=variants)
        terminalreporter.write_sep(
            "-", f"metro rule coverage: {game_dir} {' '.join(expansions + variants)}".rstrip()
        )
        terminalreporter.write_line(format_coverage(coverage_of(game, lines)))


def pytest_collect_file(parent, file_path):
    """Collect .metro files that declare a game, a variant or an expansion."""
    if file_path.suffix != ".metro":
        return None
    if str(file_path) in parent.config.metro_variants:
        return MetroFile.from_parent(parent, path=file_path)
    if file_path.name == "rules.metro":
        return MetroFile.from_parent(parent, path=file_path)
    if file_path.parent.name == "variants" or file_path.name == "expansion.metro":
        return MetroFile.from_parent(parent, path=file_path)
    return None


def _game_dir(path: str, config) -> tuple[str, list[str], list[str]]:
    """(game directory, expansions, variants) needed to run the scenarios of a file.

    A variant that `requires` an expansion is run with that expansion applied.
    """
    folder = os.path.dirname(path)
    if os.path.basename(path) == "rules.metro":
        return folder, [], []
    game_dir = os.path.dirname(folder)
    if path in config.metro_variants:
        game_dir = _named_variants_game(path, config.getoption("metro_game"))
    elif os.path.basename(folder) != "variants":
        return game_dir, [path], []
    found = patch_title(path)
    expansions = [
        e for e in (expansion_named(game_dir, t) for t in (found[1] if found else [])) if e
    ]
    return game_dir, expansions, [path]


def _named_variants_game(path: str, game: str | None) -> str:
    """The folder of the game a variant named on the command line patches."""
    if game is not None:
        try:
            return os.path.dirname(find_game_file(game_path(game)))
        except (UnknownGame, CompileError) as error:
            raise pytest.UsageError(f"--metro-game: {error}") from None
    try:
        tree, _ = load_file(path)
    except CompileError:
        tree = None
    title = getattr(tree, "game", None)
    for name in shipped_games():
        rules = find_game_file(game_path(name))
        game_tree, _ = load_file(rules)
        if title is not None and getattr(game_tree, "name", None) == title:
            return os.path.dirname(rules)
    raise UnknownGame(
        f"{path}: no shipped game is named {title!r}; name its game with --metro-game GAME"
        if title is not None
        else f"{path}: not a variant file"
    )


class MetroFile(pytest.File):
    """A rule file; its items are its scenarios."""

    def collect(self):
        """One item per scenario declared in this file."""
        path = str(self.path)
        try:
            game_dir, expansions, variants = _game_dir(path, self.config)
            game = load_game(game_dir, expansions=expansions, variants=variants)
        except UnknownGame as error:
            yield CompileFailure.from_parent(self, name="compile", error=error)
            return
        except CompileError as error:
            yield CompileFailure.from_parent(self, name="compile", error=error)
            return
        # An expansion's scenarios may live in the parts beside it (its own directory).
        own = (
            os.path.dirname(os.path.abspath(path)) if self.path.name == "expansion.metro" else None
        )
        for scenario in scenarios(game):
            where = os.path.abspath(scenario.file)
            if (
                where == os.path.abspath(path)
                or path.endswith("rules.metro")
                or (own is not None and where.startswith(own + os.sep))
            ):
                yield ScenarioItem.from_parent(
                    self,
                    name=f"scenario {scenario.name}",
                    game=game,
                    scenario=scenario,
                    setup=json.dumps([game_dir, expansions, variants]),
                )


class CompileFailure(pytest.Item):
    """The file does not compile: one failing item carrying the diagnostics."""

    def __init__(self, *, error: CompileError | UnknownGame, **kwargs):
        super().__init__(**kwargs)
        self.error = error

    def runtest(self):
        """Always fails with the rendered diagnostics."""
        raise self.error

    def repr_failure(self, excinfo, style=None):
        """The diagnostics, as `metro check` prints them (or why the game is unknown)."""
        return self.error.render() if isinstance(self.error, CompileError) else str(self.error)


class ScenarioItem(pytest.Item):
    """One scenario of one game."""

    def __init__(self, *, game, scenario, setup: str, **kwargs):
        super().__init__(**kwargs)
        self.game = game
        self.scenario = scenario
        self.setup_key = setup  # the game configuration, for the coverage report

    def runtest(self):
        """Play the scenario (traced with --metro-coverage)."""
        if not self.config.getoption("metro_coverage"):
            run_scenario(self.game, self.scenario)
            return
        failure: list[BaseException] = []

        def play() -> None:
            try:
                run_scenario(self.game, self.scenario)
            except BaseException as error:  # noqa: BLE001 - a failing scenario's lines count too; re-raised below
                failure.append(error)

        _record(self.config, self.setup_key, trace_lines(traced_files(self.game), play))
        if failure:
            raise failure[0]

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
