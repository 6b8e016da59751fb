"""Imports run one way: dsl and runtime at the bottom, compiler above them, the tools on top."""

from __future__ import annotations

import ast
import os

import pytest

from dsl.literals import INT_BITS
from dsl.literals import INT_LIMIT as LITERAL_LIMIT
from runtime.values import INT_LIMIT as RUNTIME_LIMIT

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The top-level packages each layer must not import (wherever the import statement is).
FORBIDDEN = {
    "dsl": {"runtime", "compiler", "metro", "games"},
    "runtime": {"dsl", "compiler", "metro", "games"},
    "compiler": {"metro", "games"},
}


def modules() -> list[str]:
    """Every Python module of the layered packages, as a path from the repository root."""
    found = []
    for package in sorted(FORBIDDEN):
        for folder, dirs, files in os.walk(os.path.join(ROOT, package)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            found.extend(
                os.path.relpath(os.path.join(folder, name), ROOT)
                for name in sorted(files)
                if name.endswith(".py")
            )
    return [path.replace(os.sep, "/") for path in found]


def imported_packages(source: str) -> set[str]:
    """The top-level packages `source` imports absolutely, at module level or inside a function."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def layering_breaks(path: str) -> set[str]:
    """The packages `path` imports that its layer must not."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        source = handle.read()
    return imported_packages(source) & FORBIDDEN[path.split("/")[0]]


@pytest.mark.parametrize("path", modules())
def test_module_imports_only_its_own_layer_and_below(path):
    assert not layering_breaks(path), f"{path} imports {sorted(layering_breaks(path))}"


def test_generated_modules_import_only_the_runtime():
    from compiler import generate_python

    source = generate_python(os.path.join(ROOT, "games", "ticket_to_ride"))
    assert imported_packages(source) <= {"runtime", "__future__"}


def test_the_check_sees_imports_inside_functions():
    source = (
        "from . import sibling\n"
        "def f():\n"
        "    from runtime.values import INT_LIMIT\n"
        "    import compiler.cache, json\n"
    )
    assert imported_packages(source) == {"runtime", "compiler", "json"}


def test_the_integer_limit_is_the_same_in_the_language_and_the_runtime():
    # Each bottom layer keeps its own copy (neither may import the other): literals are
    # checked against dsl's, computed values against runtime's.
    assert LITERAL_LIMIT == RUNTIME_LIMIT == 2 ** (INT_BITS - 1)


# The server's libraries (the serve extra) are imported by metro/serve alone; the command line
# reaches metro/serve only inside its command, so every other command runs without them.
SERVER_LIBRARIES = {"starlette", "uvicorn", "sqlalchemy", "websockets", "anyio"}


def tool_modules() -> list[str]:
    """Every Python module of the tools (metro/), as a path from the repository root."""
    found = []
    for folder, dirs, files in os.walk(os.path.join(ROOT, "metro")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        found.extend(
            os.path.relpath(os.path.join(folder, name), ROOT).replace(os.sep, "/")
            for name in sorted(files)
            if name.endswith(".py")
        )
    return found


def module_level_imports(source: str) -> set[str]:
    """The modules `source` imports at its top level (not inside a function)."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_only_the_server_imports_its_libraries_and_the_cli_only_lazily():
    for path in tool_modules():
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            source = handle.read()
        if path.startswith("metro/serve/"):
            continue
        libraries = imported_packages(source) & SERVER_LIBRARIES
        assert not libraries, f"{path} imports {sorted(libraries)} (only metro/serve may)"
        eager = {m for m in module_level_imports(source) if m.startswith("metro.serve")}
        assert not eager, f"{path} imports {sorted(eager)} at module level"


def test_the_server_names_no_game():
    # No per-game code in the toolkit: what the server does comes from the rule files.
    from metro.games import shipped_games

    words = set(shipped_games()) | {"ticket", "tokyo", "izakaya", "osaka"}
    for folder, _, files in os.walk(os.path.join(ROOT, "metro", "serve")):
        for name in files:
            if name.endswith((".py", ".js", ".css", ".jinja")):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    text = handle.read().lower()
                assert not [w for w in words if w in text], name


# The light loader still sits in compiler/ and calls the compiler back on a cache miss; it is
# moving out of compiler/ (issue 33), and with it the last circle these files close.
LOADER = {
    "compiler/loading.py",
    "compiler/cache.py",
    "compiler/game_files.py",
    "compiler/version.py",
}


def compiler_imports() -> dict[str, set[str]]:
    """Each file of compiler/ -> the files of compiler/ it imports (anywhere in it, type-only too)."""
    files = {m for m in modules() if m.startswith("compiler/")}

    def file_of(module: str) -> str | None:
        path = module.replace(".", "/")
        return next((f for f in (f"{path}.py", f"{path}/__init__.py") if f in files), None)

    graph = {}
    for path in sorted(files - LOADER):
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        named = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                named.add(node.module)
                named.update(f"{node.module}.{alias.name}" for alias in node.names)
        found = {file_of(name) for name in named if name.startswith("compiler")}
        graph[path] = found - {None, path, "compiler/__init__.py"} - LOADER
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more files that import each other in a circle (Tarjan's components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_circle_between_files_of_the_compiler():
    assert circles(compiler_imports()) == []


def test_the_circle_check_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# Modules that check rule files' own text (colours, library names): no generated code.
RULE_TEXT_CHECKS = {"compiler/draw_rules.py", "compiler/libraries.py"}
# Still reading generated text (issue 33): which runtime modules a module imports, and the
# frameless entries' rewriting of frame locals. Nothing may join this set.
GENERATED_TEXT_READERS = {"compiler/emit.py"}


def test_no_regular_expression_reads_generated_code():
    # Between lowering and printing, code is a tree of nodes (compiler/expr.py): an analysis
    # visits them, it never searches the printed text.
    readers = set()
    for path in modules():
        if path.startswith("compiler/"):
            with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
                if "re" in imported_packages(handle.read()):
                    readers.add(path)
    assert readers - RULE_TEXT_CHECKS == GENERATED_TEXT_READERS
