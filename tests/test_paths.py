"""Rule files read only their own game's files, and only regular `.metro` files of bounded size."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from compiler import compile_game
from dsl.diagnostics import CompileError
from dsl.parser import MAX_FILE_BYTES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET = "TOP-SECRET-VALUE"


def _game(folder, lines: list[str]) -> str:
    """A small game in `folder` whose body holds `lines`; returns its rules.metro path."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "board.metro").write_text('map "B" for "G" {\n}\n')
    (folder / "part.metro").write_text('part "P" for "G" {\n  const A = 1\n}\n')
    body = "".join(f"  {line}\n" for line in lines)
    path = folder / "rules.metro"
    path.write_text(f'game "G" {{\n  players 2..2\n{body}  flow {{\n  }}\n}}\n')
    return str(path)


def _refusal(*args, **kwargs) -> CompileError:
    with pytest.raises(CompileError) as info:
        compile_game(*args, **kwargs)
    return info.value


def _only(error: CompileError, code: str):
    assert [d.code.code for d in error.diagnostics] == [code], error.render()
    return error.diagnostics[0]


@pytest.fixture
def secret(tmp_path):
    """A file outside the game's directory that must never be read (a valid part file, even)."""
    path = tmp_path / "secret.metro"
    path.write_text(f'part "P" for "G" {{\n  const LEAK = "{SECRET}"\n}}\n')
    return path


def test_an_absolute_use_is_refused_at_the_use_string(tmp_path, secret):
    rules = _game(tmp_path / "game", [f'use "{secret}"'])
    error = _refusal(rules)
    found = _only(error, "path")
    assert (found.span.file, found.span.line, found.span.col) == (rules, 3, 7)
    assert found.span.end_col == 7 + len(str(secret)) + 2  # the whole string, quotes included
    assert "absolute path" in found.message
    assert SECRET not in error.render()


def test_use_of_etc_passwd_quotes_nothing_of_it(tmp_path):
    error = _refusal(_game(tmp_path / "game", ['use "/etc/passwd"']))
    _only(error, "path")
    assert "root:" not in error.render()


@pytest.mark.parametrize(
    "written", ["../secret.metro", "sub/../../secret.metro", "./../game/../secret.metro"]
)
def test_a_use_that_leaves_the_tree_is_refused(tmp_path, secret, written):
    error = _refusal(_game(tmp_path / "game", [f'use "{written}"']))
    assert "leads outside the game's directory" in _only(error, "path").message
    assert SECRET not in error.render()


def test_a_default_map_that_leaves_the_tree_is_refused_at_its_string(tmp_path, secret):
    rules = _game(tmp_path / "game", ['default map "board.metro", "../secret.metro"'])
    found = _only(_refusal(rules), "path")
    assert (found.span.line, found.span.col) == (3, 30)


def test_proc_environ_is_never_printed(tmp_path, monkeypatch):
    monkeypatch.setenv("METRO_TEST_SECRET", SECRET)
    depth = "../" * (len(str(tmp_path).split(os.sep)) + 2)
    error = _refusal(_game(tmp_path / "game", [f'default map "{depth}proc/self/environ"']))
    _only(error, "path")
    assert SECRET not in error.render()


def test_a_symbolic_link_out_of_the_tree_is_refused(tmp_path, secret):
    rules = _game(tmp_path / "game", ['use "link.metro"'])
    (tmp_path / "game" / "link.metro").symlink_to(secret)
    error = _refusal(rules)
    assert "leads outside" in _only(error, "path").message
    assert SECRET not in error.render()


def test_a_symbolic_link_inside_the_tree_is_followed(tmp_path):
    rules = _game(tmp_path / "game", ['use "alias.metro"'])
    (tmp_path / "game" / "alias.metro").symlink_to(tmp_path / "game" / "part.metro")
    assert "A" in compile_game(rules).program.consts


def test_only_metro_files_are_named_in_rule_files(tmp_path):
    rules = _game(tmp_path / "game", ['use "notes.txt"'])
    (tmp_path / "game" / "notes.txt").write_text(SECRET)
    error = _refusal(rules)
    assert "not a .metro file" in _only(error, "path").message
    assert SECRET not in error.render()


def test_a_user_given_file_not_named_metro_is_refused_unread(tmp_path):
    path = tmp_path / "rules.txt"
    path.write_text(f"{SECRET}\n")
    error = _refusal(str(path))
    assert "must end in `.metro`" in _only(error, "input").message
    assert SECRET not in error.render()


def test_a_directory_named_metro_is_not_read(tmp_path):
    rules = _game(tmp_path / "game", ['use "folder.metro"'])
    (tmp_path / "game" / "folder.metro").mkdir()
    assert "not a regular file" in _only(_refusal(rules), "path").message


def _compile_in_child(*args: str) -> subprocess.CompletedProcess:
    # In a child with a timeout: before the fix, opening a FIFO blocks forever.
    code = "import sys; from metro.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": ROOT}
    return subprocess.run(
        [sys.executable, "-c", code, "check", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_a_fifo_in_the_tree_is_refused_without_blocking(tmp_path):
    rules = _game(tmp_path / "game", ['use "pipe.metro"'])
    os.mkfifo(tmp_path / "game" / "pipe.metro")
    result = _compile_in_child(rules)
    assert result.returncode == 1
    assert (
        "rules.metro:3:7: error[path]: 'pipe.metro' is not a regular file"
        in result.stdout + result.stderr
    )


def test_a_fifo_given_by_the_user_is_refused_without_blocking(tmp_path):
    rules = _game(tmp_path / "game", [])
    os.mkfifo(tmp_path / "pipe.metro")
    for args in ([str(tmp_path / "pipe.metro")], [rules, "--map", str(tmp_path / "pipe.metro")]):
        result = _compile_in_child(*args)
        assert result.returncode == 1
        assert "error[input]: cannot read file: not a regular file" in result.stdout + result.stderr


def test_a_huge_sparse_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.metro"
    with open(path, "wb") as handle:
        handle.truncate(64 * 1024 * 1024 * 1024)  # 64 GiB of holes: reading it would take minutes
    error = _refusal(str(path))
    assert "larger than the limit of 2 MiB" in _only(error, "input").message


def test_reads_are_bounded_even_when_the_size_lies(tmp_path):
    # /proc files report a size of 0; the read itself must stop at the limit.
    from dsl.files import UnreadableFile, read_regular

    with pytest.raises(UnreadableFile, match="larger than the limit"):
        read_regular("/proc/self/environ", 8)
    assert len(read_regular("/proc/self/environ", MAX_FILE_BYTES)) > 0


def test_variants_and_expansions_read_within_the_base_games_tree(tmp_path):
    game = tmp_path / "game"
    rules = _game(game, [])
    (game / "variants").mkdir()
    (game / "exp").mkdir()
    (game / "exp" / "more.metro").write_text('part "More" for "G" {\n  const B = 2\n}\n')
    (game / "variants" / "v.metro").write_text(
        'variant "v" for "G" {\n  use "../exp/more.metro"\n  override default map "../board.metro"\n}\n'
    )
    program = compile_game(rules, variants=["v"]).program
    assert "B" in program.consts and program.map_paths == [
        os.path.join(str(game), "variants", "../board.metro")
    ]


def test_an_expansion_cannot_climb_out_of_the_base_games_tree(tmp_path, secret):
    game = tmp_path / "game"
    rules = _game(game, [])
    (game / "exp").mkdir()
    (game / "exp" / "expansion.metro").write_text(
        'expansion "E" for "G" {\n  use "../../secret.metro"\n}\n'
    )
    error = _refusal(rules, expansions=["exp"])
    found = _only(error, "path")
    assert found.span.file.endswith("expansion.metro") and found.span.line == 2
    assert SECRET not in error.render()


def test_user_given_paths_may_be_anywhere(tmp_path):
    rules = _game(tmp_path / "game", [])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "map.metro").write_text('map "Other" for "G" {\n}\n')
    (elsewhere / "v.metro").write_text('variant "v" for "G" {\n  const C = 3\n}\n')
    program = compile_game(
        rules, variants=[str(elsewhere / "v.metro")], map=str(elsewhere / "map.metro")
    ).program
    assert "C" in program.consts and program.map_paths == [str(elsewhere / "map.metro")]


def test_a_user_given_variants_own_paths_stay_in_the_games_tree(tmp_path, secret):
    rules = _game(tmp_path / "game", [])
    (tmp_path / "v.metro").write_text('variant "v" for "G" {\n  use "secret.metro"\n}\n')
    error = _refusal(rules, variants=[str(tmp_path / "v.metro")])
    assert "leads outside" in _only(error, "path").message


def test_the_shipped_games_use_only_their_own_files():
    for game in ("ticket_to_ride", "tokyo_metro", "tokyo_jutaku", "izakaya", "shopping_centre"):
        compile_game(os.path.join(ROOT, "games", game), stop_after="resolve")
    tokyo = os.path.join(ROOT, "games", "tokyo_metro")
    compile_game(tokyo, expansions=["osaka"], stop_after="resolve")
    compile_game(tokyo, variants=["cards-osaka"], stop_after="resolve")
    compile_game(tokyo, expansions=["osaka", "drinks"], stop_after="resolve")  # and a library
