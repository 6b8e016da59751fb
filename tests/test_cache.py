"""The module cache cannot be fooled: entries bound to their key, a complete key, safe reads, a private directory."""

from __future__ import annotations

import ast
import os
import shutil
import stat
import subprocess
import sys

import pytest

from dsl.diagnostics import CompileError
from loader import cache, load_game, loading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _game(folder, name: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "rules.metro").write_text(f'game "{name}" {{\n  players 2..2\n  flow {{\n  }}\n}}\n')
    return str(folder)


def _entries(folder, suffix: str = ".py") -> list:
    """The entries of game modules (not of their scenarios modules) with that suffix."""
    return sorted(
        p
        for p in folder.iterdir()
        if p.suffix == suffix and not p.stem.endswith(loading.SCENARIOS_PART)
    )


SCENARIO_GAME = """game "{name}" {{
  players 1..1
  flow {{
  }}
  invariant "holds" {{ true }}
  scenario "starts" players 1 {{
    expect true
  }}
}}
"""


def test_a_games_scenarios_come_from_their_own_entry_loaded_on_demand(tmp_path, cache_dir):
    folder = tmp_path / "game"
    folder.mkdir()
    (folder / "rules.metro").write_text(SCENARIO_GAME.format(name="G"))
    game = load_game(str(folder))
    key = _key(str(folder))
    assert (cache_dir / f"{key}.scenarios.py").exists()
    assert not (cache_dir / f"{key}.scenarios.code").exists()  # playing never loads it
    game.new_game(1)
    assert not (cache_dir / f"{key}.scenarios.code").exists()
    assert [s[0] for s in game.scenarios] == ["starts"]
    assert [i[0] for i in game.invariants] == ["holds"]
    assert (cache_dir / f"{key}.scenarios.code").exists()
    # Lost entries are made again; entries for rule files changed since the load are never taken.
    again = load_game(str(folder))
    for entry in cache_dir.glob(f"{key}.scenarios.*"):
        entry.unlink()
    assert [s[0] for s in again.scenarios] == ["starts"]
    changed = load_game(str(folder))
    for entry in cache_dir.glob(f"{key}.scenarios.*"):
        entry.unlink()
    (folder / "rules.metro").write_text(SCENARIO_GAME.format(name="H"))
    with pytest.raises(RuntimeError, match="changed since the game was loaded"):
        len(changed.scenarios)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("METRO_CACHE_DIR", str(folder))
    return folder


def _key(game: str) -> str:
    return loading.game_key(game)[1]


def test_another_games_valid_entry_does_not_load(tmp_path, cache_dir):
    first = _game(tmp_path / "first", "First")
    second = _game(tmp_path / "second", "Second")
    load_game(first)
    (entry,) = _entries(cache_dir)
    # The other game's entry, copied whole (checksum line included) under this game's name.
    shutil.copy(entry, cache_dir / f"{_key(second)}.py")
    assert cache.load(_key(second)) is None
    assert load_game(second).name == "Second"


def test_an_entry_stored_under_its_own_key_loads(cache_dir):
    cache.store("k1", "X = 1\n")
    assert cache.load("k1") == "X = 1\n"
    assert cache.load("k2") is None


def test_a_retouched_checksum_does_not_load(cache_dir):
    cache.store("k1", "X = 1\n")
    path = cache_dir / "k1.py"
    path.write_text(path.read_text().replace("X = 1", "X = 2"))
    assert cache.load("k1") is None


def _code_copy(tmp_path) -> str:
    for name in sorted({folder.partition("/")[0] for folder in cache.CODE_FOLDERS}):
        shutil.copytree(
            os.path.join(ROOT, name), tmp_path / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    return str(tmp_path)


def _source_folders(root: str) -> list[str]:
    """Every folder under the code folders that holds a source file, relative to `root`."""
    folders = set()
    for name in cache.CODE_FOLDERS:
        for base, subfolders, names in os.walk(os.path.join(root, name)):
            subfolders[:] = [s for s in subfolders if s != "__pycache__"]
            if any(n.endswith(cache.CODE_SUFFIXES) for n in names):
                folders.add(os.path.relpath(base, root).replace(os.sep, "/"))
    return sorted(folders)


@pytest.mark.parametrize("folder", _source_folders(ROOT))
def test_an_edit_in_any_code_folder_changes_the_key(tmp_path, folder):
    root = _code_copy(tmp_path)
    before = cache.code_digest(root)
    victim = next(
        p for p in sorted((tmp_path / folder).iterdir()) if p.name.endswith(cache.CODE_SUFFIXES)
    )
    victim.write_bytes(victim.read_bytes() + b"\n")
    cache.code_digest.cache_clear()
    assert cache.code_digest(root) != before


def test_a_new_file_in_a_nested_folder_changes_the_key(tmp_path):
    root = _code_copy(tmp_path)
    before = cache.code_digest(root)
    (tmp_path / "compiler" / "check" / "deeper").mkdir()
    (tmp_path / "compiler" / "check" / "deeper" / "rule.py").write_text("X = 1\n")
    cache.code_digest.cache_clear()
    assert cache.code_digest(root) != before


def test_the_checker_and_every_package_folder_are_in_the_key():
    covered = {name.rpartition("/")[0] for name in cache.code_files(ROOT)}
    assert {"compiler/check", "compiler/templates", "dsl/formatter"} <= covered
    assert covered == set(_source_folders(ROOT))


def test_every_repository_package_the_compiler_imports_is_a_code_folder():
    # A top-level package of this repository imported by compiler/ shapes generated modules.
    imported = set()
    for name in cache.code_files(ROOT):
        if name.startswith("compiler/") and name.endswith(".py"):
            with open(os.path.join(ROOT, name), encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    imported.add(node.module.partition(".")[0])
                elif isinstance(node, ast.Import):
                    imported.update(alias.name.partition(".")[0] for alias in node.names)
    local = {name for name in imported if os.path.isdir(os.path.join(ROOT, name))}
    # Less the loader, which the deprecated `compiler.load_game` reaches for: it shapes no module.
    assert local - {"loader"} <= set(cache.CODE_FOLDERS)


def test_the_key_changes_with_the_code_digest(tmp_path, monkeypatch):
    game = _game(tmp_path / "game", "G")
    before = _key(game)
    monkeypatch.setattr(cache, "code_digest", lambda: "an edit in dsl/")
    assert _key(game) != before


def test_the_code_digest_is_computed_once(monkeypatch):
    cache.code_digest()
    monkeypatch.setattr(cache.os, "walk", lambda path: pytest.fail("code digest recomputed"))
    cache.code_digest()


def _in_child(code: str, env: dict) -> subprocess.CompletedProcess:
    # In a child with a timeout: before the fix these reads block forever.
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": ROOT, **env},
    )


@pytest.mark.parametrize("suffix", [".py", ".code"])
@pytest.mark.parametrize("kind", ["fifo", "zero", "huge"])
def test_an_entry_that_is_no_regular_file_is_not_read(tmp_path, cache_dir, kind, suffix):
    game = _game(tmp_path / "game", "G")
    cache_dir.mkdir(mode=0o700)
    entry = cache_dir / f"{_key(game)}{suffix}"
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "zero":
        entry.symlink_to("/dev/zero")
    else:
        with open(entry, "wb") as handle:
            handle.truncate(16 * 1024 * 1024 * 1024)  # 16 GiB of holes
    code = f"from loader import load_game; print(load_game({game!r}).name)"
    result = _in_child(code, {"METRO_CACHE_DIR": str(cache_dir)})
    assert result.stdout.strip() == "G", result.stderr


def test_a_fifo_in_the_games_tree_does_not_hang_the_key(tmp_path, cache_dir):
    game = _game(tmp_path / "game", "G")
    os.mkfifo(tmp_path / "game" / "notes.metro")
    (tmp_path / "game" / "zero.metro").symlink_to("/dev/zero")
    code = f"from loader import load_game; print(load_game({game!r}).name)"
    result = _in_child(code, {"METRO_CACHE_DIR": str(cache_dir)})
    assert result.stdout.strip() == "G", result.stderr


def test_the_cache_directory_is_created_private(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setenv("METRO_CACHE_DIR", str(cache_dir / "nested"))
    old = os.umask(0o022)
    try:
        load_game(_game(tmp_path / "game", "G"))
    finally:
        os.umask(old)
    folder = cache_dir / "nested"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for entry in _entries(folder) + _entries(folder, ".code"):
        assert stat.S_IMODE(entry.stat().st_mode) == 0o600


def test_a_directory_others_can_write_is_not_used(tmp_path, cache_dir):
    cache_dir.mkdir()
    cache.store("k1", "X = 1\n")
    os.chmod(cache_dir, 0o777)
    assert cache.load("k1") is None  # someone else may have put it there
    cache.store("k2", "X = 2\n")
    assert not (cache_dir / "k2.py").exists()


def test_a_game_named_by_a_relative_path_is_not_served_to_its_absolute_path(
    tmp_path, cache_dir, monkeypatch
):
    # The paths as given are written into the module: a relative compile's entry must not
    # answer for the absolute path (its messages would name files from another directory).
    game = _game(tmp_path / "games" / "g", "G")
    monkeypatch.chdir(tmp_path)
    relative = load_game(os.path.join("games", "g"))
    absolute = load_game(game)
    assert relative.source_file == os.path.join("games", "g", "rules.metro")
    assert absolute.source_file == os.path.join(game, "rules.metro")
    assert len(_entries(cache_dir)) == 2
    monkeypatch.chdir(tmp_path / "games")  # the same relative path from elsewhere names other files
    with pytest.raises(CompileError):
        load_game(os.path.join("games", "g"))


def test_a_cached_game_loads_its_compiled_code_without_compiling(tmp_path, cache_dir, monkeypatch):
    game = _game(tmp_path / "game", "G")
    load_game(game)
    (text,) = _entries(cache_dir)
    text.unlink()  # the code alone is enough
    monkeypatch.setattr(loading, "compile_module", lambda *a: pytest.fail("compiled again"))
    assert load_game(game).name == "G"


def test_another_games_code_entry_does_not_load(tmp_path, cache_dir):
    first = _game(tmp_path / "first", "First")
    second = _game(tmp_path / "second", "Second")
    load_game(first)
    (entry,) = _entries(cache_dir, ".code")
    shutil.copy(entry, cache_dir / f"{_key(second)}.code")
    assert cache.load_code(_key(second)) is None
    assert load_game(second).name == "Second"


@pytest.mark.parametrize("damage", ["magic", "checksum", "payload", "truncated"])
def test_a_damaged_code_entry_is_compiled_again(tmp_path, cache_dir, damage):
    game = _game(tmp_path / "game", "G")
    load_game(game)
    (entry,) = _entries(cache_dir, ".code")
    data = bytearray(entry.read_bytes())
    at = {"magic": 0, "checksum": 10, "payload": len(data) - 5, "truncated": None}[damage]
    if at is None:
        del data[len(data) // 2 :]
    else:
        data[at] ^= 0xFF  # another Python's bytecode, a retouched checksum, a flipped bit
    entry.write_bytes(bytes(data))
    assert cache.load_code(_key(game)) is None
    assert load_game(game).name == "G"
    assert cache.load_code(_key(game)) is not None  # written again


def test_simulating_a_cached_game_needs_no_front_end_and_one_job_no_process_pool(
    tmp_path, cache_dir
):
    # A cached game runs without the compiler's libraries; and one job needs no process pool:
    # multiprocessing (its sockets, pickle) is imported when a pool is made, about 1 MiB
    # resident a run does not need.
    game = _game(tmp_path / "game", "G")
    load_game(game)
    code = (
        "import sys\n"
        "from metro.cli import main\n"
        f"main(args=['simulate', {game!r}, '--players', '2', '--games', '2'], standalone_mode=False)\n"
        "print(sorted(m for m in ('lark', 'jinja2', 'networkx') if m in sys.modules))\n"
        "print(sorted(m for m in ('multiprocessing',) if m in sys.modules))\n"
    )
    result = _in_child(code, {"METRO_CACHE_DIR": str(cache_dir)})
    front_end, pool = result.stdout.strip().splitlines()[-2:]
    assert front_end == "[]", result.stdout + result.stderr
    assert pool == "[]", result.stdout + result.stderr
