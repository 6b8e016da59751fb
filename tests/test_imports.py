"""Imports run one way: dsl and runtime at the bottom, compiler above them, the loader above
the compiler, the tools on top; inside the tools, each subpackage imports only those below it;
and no files import each other in a circle."""

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
    "dsl": {"runtime", "compiler", "loader", "metro", "games"},
    "runtime": {"dsl", "compiler", "loader", "metro", "games"},
    "compiler": {"loader", "metro", "games"},
    "loader": {"metro", "games"},
}
# The one exception: `compiler.load_game`, deprecated, imports the loader when it is asked for.
LAZY_EXCEPTIONS = {"compiler/__init__.py": {"loader"}}
# What the loader may import of the compiler before a game must be compiled: light leaves.
LIGHT_COMPILER = {"compiler.version", "compiler.game_files", "compiler.libraries"}


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
    return imported_packages(source) & FORBIDDEN[path.split("/")[0]] - LAZY_EXCEPTIONS.get(
        path, set()
    )


def test_the_exceptions_import_only_inside_functions():
    for path, packages in LAZY_EXCEPTIONS.items():
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            eager = {m.split(".")[0] for m in module_level_imports(handle.read())}
        assert not eager & packages, f"{path} imports {sorted(eager & packages)} at module level"


def test_the_loader_imports_the_compiler_only_to_compile():
    for path in modules():
        if not path.startswith(("loader/", *(m.replace(".", "/") for m in LIGHT_COMPILER))):
            continue
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            eager = {
                m for m in module_level_imports(handle.read()) if m.split(".")[0] == "compiler"
            }
        assert eager <= LIGHT_COMPILER, f"{path} imports {sorted(eager - LIGHT_COMPILER)} eagerly"


def test_loading_a_cached_game_imports_no_front_end():
    import subprocess
    import sys

    code = (
        "import sys, loader, compiler, metro\n"
        "print(sorted(m for m in ('lark', 'jinja2', 'networkx', 'compiler.driver') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"


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
    from loader.games import shipped_games

    words = set(shipped_games()) | {"ticket", "tokyo", "izakaya", "osaka"}
    for folder, _, files in os.walk(os.path.join(ROOT, "metro", "serve")):
        for name in files:
            if name.endswith((".py", ".js", ".css", ".jinja")):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    text = handle.read().lower()
                assert not [w for w in words if w in text], name


# Inside the tools: what each subpackage (or module) of metro/ may import of the others. The
# command line (metro/cli/) and the package's API (metro/__init__.py) sit on top of them all.
TOOL_IMPORTS = {
    "bots": set(),
    "rl": set(),
    "testing": {"output_files"},
    "conformance": {"testing", "output_files"},
    "analysis": {"bots"},
    "play": {"bots"},
    "render": {"play"},
    "serve": {"bots", "play", "render"},
    "lsp": {"syntax"},
}


def tool_imports(source: str) -> set[str]:
    """The parts of metro/ (subpackage or top module) that `source` imports."""
    parts = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            part = name.split(".")
            if (
                part[0] == "metro"
                and len(part) > 1
                and (
                    os.path.isdir(os.path.join(ROOT, "metro", part[1]))
                    or os.path.isfile(os.path.join(ROOT, "metro", part[1] + ".py"))
                )
            ):
                parts.add(part[1])
    return parts


@pytest.mark.parametrize("part", sorted(TOOL_IMPORTS))
def test_each_part_of_the_tools_imports_only_those_below_it(part):
    for path in tool_modules():
        if path.startswith(f"metro/{part}/"):
            with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
                wrong = tool_imports(handle.read()) - TOOL_IMPORTS[part] - {part}
            assert not wrong, f"{path} imports metro's {sorted(wrong)}"


def test_no_module_imports_an_old_path():
    # The thin modules left at old paths (metro/deprecated.py) are for users, not for metro.
    shims = set()
    for path in tool_modules():
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            if "moved_module(__name__" in handle.read():
                shims.add(path[len("metro/") : -len(".py")])
    assert {"simulate", "pytest_plugin", "games"} <= shims
    for path in tool_modules() + modules():
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            used = tool_imports(handle.read()) & shims
        assert not used, f"{path} imports the old path(s) {sorted(used)}"


# No circle between files: in every package, the graph of which file imports which (at module
# level or inside a function) has no strongly connected component of more than one file.
PACKAGES = ("dsl", "runtime", "compiler", "loader", "metro")
KNOWN_CIRCLES: dict[str, str] = {}  # package -> why its circle is still there


def package_files(package: str) -> dict[str, str]:
    """Every module of `package`, by its dotted name, with its path from the repository root."""
    found = {}
    for folder, dirs, files in os.walk(os.path.join(ROOT, package)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.relpath(os.path.join(folder, name), ROOT).replace(os.sep, "/")
                dotted = path[: -len(".py")].replace("/", ".")
                found[dotted.removesuffix(".__init__")] = path
    return found


def run_time_nodes(tree: ast.AST):
    """Every node of `tree` but those under `if TYPE_CHECKING:` (imports that never run)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            yield from (n for child in node.orelse for n in [child, *run_time_nodes(child)])
            continue
        yield node
        yield from run_time_nodes(node)


def imported_files(source: str, files: dict[str, str]) -> set[str]:
    """The files of `files` (by dotted name) that `source` imports when it runs: `from a import b`
    imports the file a/b.py when there is one, else a's."""
    found = set()
    for node in run_time_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(files[alias.name] for alias in node.names if alias.name in files)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                if name in files:
                    found.add(files[name])
                elif node.module in files:
                    found.add(files[node.module])
    return found


def import_graph(package: str) -> dict[str, set[str]]:
    """Each file of `package` and the files of the same package it imports."""
    files = package_files(package)
    graph = {}
    for path in files.values():
        with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
            graph[path] = imported_files(handle.read(), files) - {path}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one file (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize(
    "package",
    [
        pytest.param(p, marks=pytest.mark.xfail(reason=KNOWN_CIRCLES[p], strict=False))
        if p in KNOWN_CIRCLES
        else p
        for p in PACKAGES
    ],
)
def test_no_circle_between_files(package):
    found = circles(import_graph(package))
    assert not found, f"files that import each other in a circle: {found}"


def test_the_circle_check_finds_a_circle():
    graph = {"a.py": {"b.py"}, "b.py": {"c.py"}, "c.py": {"a.py"}, "d.py": {"a.py"}}
    assert circles(graph) == [["a.py", "b.py", "c.py"]]


# Modules that check rule files' own text (colours, library names): no generated code.
RULE_TEXT_CHECKS = {"compiler/draw_rules.py", "compiler/libraries.py"}
# No compiler module reads generated code with a regular expression (issue 33): the imports a
# module needs follow from its nodes (compiler/names.py). Nothing may join this set.
GENERATED_TEXT_READERS: set[str] = set()


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
