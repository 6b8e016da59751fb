"""The documentation: it builds strictly, its examples are valid canonical .metro covering the
whole grammar, and every tutorial works as written (its files written, its commands run)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click
import pytest

from dsl.diagnostics import CompileError
from dsl.formatter import format_text
from dsl.formatter.cst import parse_cst
from metro.cli import main
from tests.test_formatter import grammar_node_names, node_names

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TUTORIALS = sorted((DOCS / "tutorials").glob("*.md"))
# pages whose files are written and whose `console` commands are run, as the tutorials' are
RUN_PAGES = [DOCS / "getting-started.md", *TUTORIALS]
FENCE = re.compile(r"^```(\w*)\s*$")
FILE_LINE = re.compile(r"^File `([^`]+)`:\s*$")
NEEDS = re.compile(r"<!-- tutorial needs: ([\w ]+) -->")  # the modules of an extra it runs
COMMAND_SECONDS = 300


@dataclass
class Block:
    """A fenced code block of a page: its language, text, and the file it is (if it says)."""

    language: str
    text: str
    file: str | None = None
    line: int = 0


@dataclass
class Page:
    """A Markdown page's code blocks in order."""

    path: Path
    blocks: list[Block] = field(default_factory=list)

    @classmethod
    def read(cls, path: Path) -> Page:
        page = cls(path)
        lines = path.read_text(encoding="utf-8").split("\n")
        index, named = 0, None
        while index < len(lines):
            line = lines[index]
            opening = FENCE.match(line)
            if opening is None:
                found = FILE_LINE.match(line)
                if found is not None:
                    named = found.group(1)
                elif line.strip():
                    named = None
                index += 1
                continue
            end = lines.index("```", index + 1)
            text = "\n".join(lines[index + 1 : end]) + "\n"
            page.blocks.append(Block(opening.group(1), text, named, index + 1))
            named = None
            index = end + 1
        return page


def reference_examples() -> list[tuple[str, Block]]:
    """Every .metro block of the language reference and the home page."""
    pages = [DOCS / "index.md", *sorted((DOCS / "language").glob("*.md"))]
    return [
        (f"{page.name}:{block.line}", block)
        for page in pages
        for block in Page.read(page).blocks
        if block.language == "metro"
    ]


def as_file(text: str) -> str | None:
    """A reference example as a whole file: as it is, or placed where such code stands."""
    indented = lambda body, by: "".join(  # noqa: E731
        " " * by + line if line.strip() else line for line in body.splitlines(keepends=True)
    )
    tries = [
        text,
        'game "g" {\n' + indented(text, 2) + "}\n",
        'game "g" {\n  procedure p() {\n' + indented(text, 4) + "  }\n}\n",
        'map "m" for "g" {\n' + indented(text, 2) + "}\n",
    ]
    for attempt in tries:
        try:
            format_text(attempt)
        except CompileError:
            continue
        return attempt
    return None


@pytest.mark.parametrize(
    ("where", "block"), reference_examples(), ids=lambda x: x if isinstance(x, str) else ""
)
def test_reference_examples_are_valid_and_canonical(where, block):
    whole = as_file(block.text)
    assert whole is not None, (
        f"{where}: the example does not parse as a file, declarations, statements or map data"
    )
    assert format_text(whole) == whole, f"{where}: not in the layout of `metro fmt`"


def test_the_reference_shows_every_construct_of_the_grammar():
    used: set[str] = set()
    for _, block in reference_examples():
        whole = as_file(block.text)
        if whole is not None:
            used |= node_names(parse_cst(whole))
    used |= {"stmt"}  # the optional `;` after a statement: the canonical layout leaves it out
    missing = grammar_node_names() - used
    assert missing == set(), f"constructs without an example in docs/language/: {sorted(missing)}"


# ---------------------------------------------------------------- the site


def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    pytest.importorskip("mkdocs_click")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    limits = (tmp_path / "site" / "limits" / "index.html").read_text(encoding="utf-8")
    assert "MAX_FILE_BYTES" in limits or "2 MiB" in limits
    assert "readme:" not in limits
    # .metro examples are highlighted by metro's own Pygments lexer, with its colours
    page = (tmp_path / "site" / "language" / "files" / "index.html").read_text(encoding="utf-8")
    assert '<span class="kd">game</span>' in page
    assert (tmp_path / "site" / "pygments.css").is_file()
    # the command line page lists every command, with no internal value of click in it
    cli = (tmp_path / "site" / "cli" / "index.html").read_text(encoding="utf-8")
    for command in main.list_commands(click.Context(main)):
        assert f"metro {command} [OPTIONS]" in cli, command
    assert "Sentinel" not in cli


def test_every_command_has_a_line_among_the_commands_at_a_glance():
    glance = (DOCS / "cli.md").read_text(encoding="utf-8").split("## Every command")[0]
    missing = [
        name
        for name in main.list_commands(click.Context(main))
        if not re.search(rf"\| `metro {name}[ `]", glance)
    ]
    assert missing == []


def test_the_builtin_reference_is_the_generated_one():
    from compiler.builtin_docs import builtin_reference

    assert (DOCS / "builtins.md").read_text(encoding="utf-8") == builtin_reference()


# ---------------------------------------------------------------- tutorials


def expected_lines(text: str) -> list[tuple[str, list[str]]]:
    """A console block as (command, lines its output must contain) pairs."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif line.strip() and steps:
            steps[-1][1].append(line.strip())
    return steps


def run(command: str, cwd: Path) -> str:
    """Run a tutorial's command as a shell would, with this environment's `metro` and `python`."""
    env = dict(os.environ)
    bin_dir = os.path.dirname(sys.executable)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["COLUMNS"] = "120"
    env.pop("METRO_ENGINE", None)
    done = subprocess.run(
        command,
        shell=True,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
    )
    return done.stdout + done.stderr


@pytest.mark.parametrize("path", RUN_PAGES, ids=lambda p: p.stem)
def test_tutorial_works_as_written(path, tmp_path):
    if shutil.which("bash") is None:
        pytest.skip("the tutorials' commands are shell commands")
    for needs in NEEDS.finditer(path.read_text(encoding="utf-8")):
        for module in needs.group(1).split():
            pytest.importorskip(module)
    for name in ("games", "examples"):  # the tutorials work in a clone of the repository
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    page = Page.read(path)
    ran = 0
    for block in page.blocks:
        if block.file is not None:
            target = tmp_path / block.file
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
            if target.suffix == ".metro" and block.language == "metro":
                assert format_text(block.text) == block.text, f"{block.file} is not formatted"
        elif block.language == "console":
            for command, wanted in expected_lines(block.text):
                output = run(command, tmp_path)
                ran += 1
                for line in wanted:
                    pattern = ".*".join(re.escape(part) for part in line.split("…"))
                    assert re.search(pattern, output), (
                        f"{path.name}: `{command}` printed no line like {line!r}:\n{output}"
                    )
    assert ran > 0, "a tutorial runs at least one command"


def test_tutorial_commands_name_only_metro_python_and_cp():
    for path in RUN_PAGES:
        for block in Page.read(path).blocks:
            if block.language != "console":
                continue
            for command, _ in expected_lines(block.text):
                words = [w for w in shlex.split(command) if "=" not in w]
                assert words[0] in ("metro", "python", "cp"), f"{path.name}: {command}"


# ---------------------------------------------------------------- the home page and the README

GAMES = ROOT / "games"
GAME_LINE = re.compile(r'^game "([^"]+)"', re.M)


def shipped() -> list[tuple[str, str, list[str], list[str]]]:
    """Each shipped game as (name, folder, its expansions' folders, its variants' file stems)."""
    found = []
    for rules in sorted(GAMES.glob("*/rules.metro")):
        folder = rules.parent
        title = GAME_LINE.search(rules.read_text(encoding="utf-8"))
        assert title is not None, rules
        expansions = sorted(p.parent.name for p in folder.glob("*/expansion.metro"))
        variants = sorted(p.stem for p in folder.glob("**/variants/*.metro"))
        found.append((title.group(1), folder.name, expansions, variants))
    return found


def test_the_home_page_lists_every_shipped_game_expansion_and_variant():
    home = (DOCS / "index.md").read_text(encoding="utf-8")
    table = home[home.index("## The shipped games") :]
    rows = {
        line.split("|")[2].strip(): line for line in table.splitlines() if line.startswith("| ")
    }
    games = shipped()
    assert len(games) >= 6
    for title, folder, expansions, variants in games:
        row = rows.get(f"`{folder}`")
        assert row is not None, f"docs/index.md: no row for the game `{folder}` ({title})"
        assert title in row, f"docs/index.md: the row of `{folder}` does not name {title!r}"
        for name in (*expansions, *variants):
            assert f"`{name}`" in row, f"docs/index.md: `{name}` is missing from `{folder}`'s row"
    assert len(rows) == len(games) + 1, "docs/index.md lists a game that games/ does not hold"


README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_opens_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    first = Page.read(README).blocks[0]
    assert first.language == "sh"
    setup, tests = first.text.splitlines()
    assert setup.startswith("python -m pip install -e . && metro ")
    assert tests == "python -m pip install -e '.[test]' && python -m pytest"
    assert "python -m pytest" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert text.index(first.text) < text.index("\n## "), "the commands come before any section"
    assert "metro play " in text[: text.index("## What is in the repository")]


def test_the_readme_links_to_files_that_exist():
    for target in LINK.findall(README.read_text(encoding="utf-8")):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README.md links to {target}, which does not exist"


def test_the_readme_states_the_bounds_and_links_the_full_text():
    text = README.read_text(encoding="utf-8")
    section = re.search(r"^## Limits and bad input\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section is not None, "README.md keeps a '## Limits and bad input' section"
    assert "(docs/limits.md)" in section.group(1)
    bounds = [line for line in section.group(1).splitlines() if line.startswith("- ")]
    assert len(bounds) >= 10, "one line per bound"
    full = (DOCS / "limits.md").read_text(encoding="utf-8")
    for value in ("2 MiB", "200", "16", "50,000", "2,000,000", "100,000", "64 Mi", "1 MiB"):
        assert value in section.group(1) and value in full, value
