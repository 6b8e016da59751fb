"""Shared component libraries: `use library "name"`, confined to games/components/<name>/.

A library is named, never given by path; it reads only its own folder (symbolic links
resolved); unknown names, bad names and misplaced files are clear errors; the module cache's
key covers library files; `metro diff` and rule coverage see them.
"""

from __future__ import annotations

import os

import pytest

from compiler import compile_game
from compiler.libraries import available_libraries, valid_library_name
from dsl.diagnostics import CompileError
from loader import game_from_source
from loader.cache import cache_key, input_files
from metro.analysis.diff import describe_patches

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIPPED = os.path.join(ROOT, "games", "components")

GAME = """game "G" {
  players 2..2
  use library "cans"
  state { total: int public }
  action a() { total += sum(c.size for c in can) + BIG }
  flow { choose by seat(1) { a } }
}
"""

CANS = """library "cans" {
  use "more.metro"
  use "data.metro"
  map schema {
    kind can(size: int)
    check "cans have a size": all(c.size > 0 for c in can)
  }
}
"""
MORE = 'library "cans" {\n  const BIG = 10\n  function double(n: int) -> int = 2 * n\n}\n'
DATA = 'map "Cans" for library "cans" {\n  can tall(size: 3)\n  can short(size: 1)\n}\n'
LIBRARY = {"cans/library.metro": CANS, "cans/more.metro": MORE, "cans/data.metro": DATA}


def write(folder, files: dict[str, str]) -> str:
    """Write `files` (relative path -> text) under `folder`; returns the folder."""
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(folder)


def setup(tmp_path, game: dict[str, str], library: dict[str, str] = LIBRARY):
    """(game folder, library root) under tmp_path."""
    return write(tmp_path / "game", game), write(tmp_path / "lib", library)


def refused(tmp_path, game: dict[str, str], library: dict[str, str] = LIBRARY, **options):
    """The diagnostics of a compile that must fail."""
    folder, root = setup(tmp_path, game, library)
    with pytest.raises(CompileError) as info:
        compile_game(folder, library_root=root, **options)
    return info.value.diagnostics


def only(diagnostics, code: str):
    found = [d for d in diagnostics if d.code.code == code]
    assert len(found) == 1, [str(d) for d in diagnostics]
    return found[0]


def test_a_library_brings_its_declarations_and_its_data(tmp_path):
    folder, root = setup(tmp_path, {"rules.metro": GAME})
    ctx = compile_game(folder, library_root=root)
    program = ctx.program
    assert program.libraries == {"cans": os.path.join(root, "cans", "library.metro")}
    assert program.library_data == [os.path.join(root, "cans", "data.metro")]
    assert program.map_paths == []  # a library's data is not the game's map: --map keeps it
    assert {"BIG"} <= set(program.consts) and "double" in program.functions
    assert ctx.data.ids["can"] == ["tall", "short"]
    assert "cans have a size" in program.checks


def test_library_data_stays_when_the_map_is_replaced(tmp_path):
    folder, root = setup(
        tmp_path,
        {
            "rules.metro": GAME.replace(
                'use library "cans"', 'use library "cans"\n  default map "m.metro"'
            ).replace("state {", "map schema { kind town() }\n  state {"),
            "m.metro": 'map "M" for "G" {\n  town a\n}\n',
            "other.metro": 'map "O" for "G" {\n  town b\n}\n',
        },
    )
    ctx = compile_game(folder, map=os.path.join(folder, "other.metro"), library_root=root)
    assert ctx.data.ids["town"] == ["b"] and ctx.data.ids["can"] == ["tall", "short"]


def test_a_library_used_by_the_game_and_an_expansion_is_read_once(tmp_path):
    folder, root = setup(
        tmp_path,
        {
            "rules.metro": GAME,
            "more/expansion.metro": 'expansion "More" for "G" {\n  use library "cans"\n}\n',
        },
    )
    program = compile_game(folder, expansions=["more"], library_root=root).program
    assert list(program.libraries) == ["cans"] and len(program.library_data) == 1


def test_an_unknown_library_is_named_with_the_known_ones(tmp_path):
    found = only(refused(tmp_path, {"rules.metro": GAME.replace('"cans"', '"canz"')}), "resolve")
    assert found.message == "unknown library 'canz' (did you mean 'cans'?)"
    assert (found.span.line, found.span.col) == (3, 15)  # at the name
    assert "known libraries: cans" in found.notes


@pytest.mark.parametrize(
    "name", ["../cans", "cans/../cans", "/etc", "Cans", "cans.metro", "", "a b", "x" * 65]
)
def test_a_library_is_named_by_one_word_never_by_a_path(tmp_path, name):
    found = only(refused(tmp_path, {"rules.metro": GAME.replace('"cans"', f'"{name}"')}), "path")
    assert found.message.startswith(f"'{name}' is not a library name")
    assert not valid_library_name(name)


def test_a_library_reads_only_its_own_folder(tmp_path):
    (tmp_path / "secret.metro").write_text('library "cans" {\n  const SECRET = 1\n}\n')
    for written in ("../../secret.metro", str(tmp_path / "secret.metro")):
        library = {**LIBRARY, "cans/library.metro": CANS.replace("more.metro", written)}
        found = only(refused(tmp_path, {"rules.metro": GAME}, library), "path")
        assert found.span.file.endswith("library.metro") and found.span.line == 2
        assert "outside the library's folder" in found.message or "absolute" in found.message


def test_a_library_may_not_reach_another_library_by_path(tmp_path):
    library = {
        **LIBRARY,
        "cans/library.metro": CANS.replace("more.metro", "../other/library.metro"),
        "other/library.metro": 'library "other" {\n}\n',
    }
    found = only(refused(tmp_path, {"rules.metro": GAME}, library), "path")
    assert found.message == "'../other/library.metro' leads outside the library's folder"


def test_symbolic_links_out_of_a_library_are_refused(tmp_path):
    folder, root = setup(tmp_path, {"rules.metro": GAME})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "library.metro").write_text(CANS)
    # a library folder that is a link out of the root
    os.symlink(outside, os.path.join(root, "linked"))
    with pytest.raises(CompileError) as info:
        compile_game(
            write(tmp_path / "g2", {"rules.metro": GAME.replace('"cans"', '"linked"')}),
            library_root=root,
        )
    assert "leads outside the library folder" in only(info.value.diagnostics, "path").message
    # a file inside the library that is a link out of its folder
    os.unlink(os.path.join(root, "cans", "more.metro"))
    os.symlink(outside / "library.metro", os.path.join(root, "cans", "more.metro"))
    with pytest.raises(CompileError) as info:
        compile_game(folder, library_root=root)
    assert "outside the library's folder" in only(info.value.diagnostics, "path").message


def test_a_library_declares_components_not_rules(tmp_path):
    library = {
        **LIBRARY,
        "cans/more.metro": MORE.replace("const BIG", "state { x: int public }\n  const BIG"),
    }
    found = only(refused(tmp_path, {"rules.metro": GAME}, library), "structure")
    assert found.message.startswith("a library declares components")
    assert found.span.file.endswith("more.metro") and found.span.line == 2


def test_a_library_file_must_carry_the_librarys_name(tmp_path):
    library = {**LIBRARY, "cans/library.metro": CANS.replace('library "cans"', 'library "tins"')}
    found = only(refused(tmp_path, {"rules.metro": GAME}, library), "resolve")
    assert 'should start with `library "cans" {`' in found.message


def test_a_library_uses_only_its_own_files_and_data(tmp_path):
    for text in (
        'part "P" for "G" {\n}\n',
        'map "M" for "G" {\n}\n',
        'map "D" for library "tins" {\n}\n',
    ):
        library = {**LIBRARY, "cans/more.metro": text}
        found = only(refused(tmp_path, {"rules.metro": GAME}, library), "resolve")
        assert "is neither a file of library 'cans'" in found.message


def test_a_game_names_a_library_never_its_files(tmp_path):
    game = GAME.replace('use library "cans"', 'use "lib/library.metro"')
    files = {"rules.metro": game, "lib/library.metro": CANS}
    found = only(refused(tmp_path, files), "resolve")
    assert found.message == (
        "'lib/library.metro' is a library file; use the library by name: `use library \"cans\"`"
    )
    data_as_map = GAME.replace('use library "cans"', 'default map "d.metro"')
    found = only(refused(tmp_path, {"rules.metro": data_as_map, "d.metro": DATA}), "resolve")
    assert "is data of library 'cans'" in found.message


def test_checking_a_library_file_says_what_it_is(tmp_path):
    _, root = setup(tmp_path, {"rules.metro": GAME})
    with pytest.raises(CompileError) as info:
        compile_game(os.path.join(root, "cans", "library.metro"), library_root=root)
    assert "a library: games use it by name" in info.value.diagnostics[0].message


def test_library_names_collide_like_any_other(tmp_path):
    game = GAME.replace("state {", "const BIG = 1\n  state {")
    found = only(refused(tmp_path, {"rules.metro": game}), "duplicate")
    assert found.message == "const 'BIG' is already declared"
    assert found.span.file.endswith("rules.metro") and found.span.line == 4


def test_the_cache_key_covers_every_library_file(tmp_path):
    folder, root = setup(tmp_path, {"rules.metro": GAME})
    rules = os.path.join(folder, "rules.metro")
    files = input_files(rules, [], root)
    assert os.path.join(root, "cans", "data.metro") in files
    assert os.path.join(root, "cans", "more.metro") in files
    # the shipped games: their key moves when a shipped library file changes
    jutaku = os.path.join(ROOT, "games", "tokyo_jutaku", "rules.metro")
    assert os.path.join(SHIPPED, "jutaku", "plots.metro") in input_files(jutaku, [])
    assert cache_key(jutaku, [], "x") == cache_key(jutaku, [], "x")


def test_the_cache_key_changes_with_a_library_file(tmp_path, monkeypatch):
    from loader import cache

    folder, root = setup(tmp_path, {"rules.metro": GAME})
    rules = os.path.join(folder, "rules.metro")
    monkeypatch.setattr(cache, "LIBRARY_ROOT", root)
    before = cache_key(rules, [], "o")
    (tmp_path / "lib" / "cans" / "data.metro").write_text(DATA.replace("size: 3", "size: 4"))
    assert cache_key(rules, [], "o") != before


def test_metro_diff_names_the_libraries_a_patch_uses(tmp_path, monkeypatch):
    from compiler import resolve

    game = GAME.replace('use library "cans"', "").replace("+ BIG", "")
    game = game.replace("sum(c.size for c in can)", "1")
    folder, root = setup(
        tmp_path,
        {
            "rules.metro": game,
            "more/expansion.metro": 'expansion "More" for "G" {\n  use library "cans"\n}\n',
        },
    )
    monkeypatch.setattr(resolve, "LIBRARY_ROOT", root)
    changes = describe_patches(folder, ["more"])
    uses = [c for c in changes if c.verb == "uses"]
    assert [(c.what, c.name, c.where) for c in uses] == [
        ("library", "cans", os.path.join(folder, "more", "expansion.metro") + ":2")
    ]
    added = [(c.verb, c.what, c.name) for c in changes if c.where.startswith(root)]
    assert ("adds", "check", "cans have a size") in added and ("adds", "const", "BIG") in added
    assert ("adds", "map kind", "can") in added


def test_the_shipped_libraries():
    assert {"jidohanbaiki", "jutaku", "metro"} <= set(available_libraries())
    program = compile_game(
        os.path.join(ROOT, "games", "tokyo_jutaku"), stop_after="resolve"
    ).program
    assert list(program.libraries) == ["jutaku"]
    assert program.library_data == [os.path.join(SHIPPED, "jutaku", "plots.metro")]


# ------------------------------------------------------------------------------------ the shipped data

USES_ALL = """game "All" {
  players 2..2
  use library "jidohanbaiki"
  use library "jutaku"
  use library "metro"
  state { x: int public }
  flow { x = 1 }
}
"""


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """A game that uses every shipped library, compiled through the map checks."""
    folder = write(tmp_path_factory.mktemp("all"), {"rules.metro": USES_ALL})
    return compile_game(folder, stop_after="validate_maps")


def elements(ctx, kind: str) -> dict[str, dict]:
    """Each element of a kind by name: its fields (references as names)."""
    data = ctx.data
    kinds = dict(ctx.checked.kind_fields[kind])
    out = {}
    for i, ident in enumerate(data.ids[kind]):
        row = {}
        for name, column in data.fields[kind].items():
            value = column[i]
            target = getattr(kinds[name], "kind", None)
            if target is None and hasattr(kinds[name], "inner"):
                target = getattr(kinds[name].inner, "kind", None)
            row[name] = (
                data.ids[target][value] if target in data.ids and value is not None else value
            )
        out[ident] = row
    return out


def test_jidohanbaiki_has_the_texts_numbers(shipped):
    colours = elements(shipped, "drink_color")
    shapes = elements(shipped, "drink_shape")
    drinks = elements(shipped, "drink")
    assert len(colours) == 6 and len(shapes) == 6 and len(drinks) == 36
    assert {c["name"] for c in colours.values()} == {
        "black",
        "white",
        "mint green",
        "blue",
        "red",
        "purple",
    }
    assert {"longest bottle", "chubby can", "short can"} <= {s["name"] for s in shapes.values()}
    assert {(d["color"], d["shape"]) for d in drinks.values()} == {
        (c, s) for c in colours for s in shapes
    }
    assert len(shipped.data.ids["crate"]) == 6
    cards = elements(shipped, "stock_card")
    assert len(cards) == 12
    assert sorted(c["color"] for c in cards.values() if c["color"]) == sorted(colours)
    assert sorted(c["shape"] for c in cards.values() if c["shape"]) == sorted(shapes)


def test_jidohanbaiki_places_follow_the_texts_examples(shipped):
    colours = {c["name"]: c["position"] for c in elements(shipped, "drink_color").values()}
    shapes = {s["name"]: s["position"] for s in elements(shipped, "drink_shape").values()}
    # dice 3 and 6: a black short can; none left: the next shape to the right (round to 1)
    assert colours["black"] == 3 and shapes["short can"] == 6 and shapes["longest bottle"] == 1
    # Izakaya: ¥100 on places 1-2, ¥200 on 3-4, ¥300 on 5-6; white is worth 200, blue 300
    assert colours["white"] in (3, 4) and colours["blue"] in (5, 6)


def test_metro_pieces_per_colour(shipped):
    program = shipped.program
    consts = {
        name: shipped.evaluator.const(name, program.consts[name].active)
        for name in ("METRO_PYRAMIDS", "METRO_CHIPS")
    }
    assert consts == {"METRO_PYRAMIDS": 6, "METRO_CHIPS": 9}


def read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def test_broken_library_data_fails_the_librarys_checks(tmp_path):
    data = read(os.path.join(SHIPPED, "jidohanbaiki", "components.metro"))
    library = {
        "jidohanbaiki/library.metro": read(os.path.join(SHIPPED, "jidohanbaiki", "library.metro")),
        "jidohanbaiki/components.metro": data.replace(
            "  drink red_short_can(color: red, shape: short_can)\n", ""
        ),
    }
    game = USES_ALL.replace('use library "jutaku"\n', "").replace('use library "metro"\n', "")
    found = refused(tmp_path, {"rules.metro": game}, library)
    messages = {d.message for d in found}
    assert "map check failed: 36 drinks, one of each colour and shape" in messages
    assert "drink_color 'red': a colour's six drinks fill one crate" in messages


def test_a_games_action_named_like_a_builtin_leaves_the_librarys_calls_alone(tmp_path):
    # Tokyo Metro's Station action is called `build`, as is the builtin the jutaku library's
    # witness check calls: an action is never called, so the call stays the builtin's.
    game = """game "G" {
  players 2..2
  use library "jutaku"
  state { x: int public }
  action build(n: 1..2) { x += n }
  flow { choose by seat(1) { build } }
}
"""
    ctx = compile_game(write(tmp_path, {"rules.metro": game}), stop_after="validate_maps")
    assert "meets" in ctx.program.functions and "build" in ctx.program.actions
    assert "meets" not in ctx.checked.suspends  # not mistaken for the waiting action


def test_rule_coverage_counts_the_lines_of_the_libraries_a_game_runs():
    from loader import load_game
    from metro.testing.coverage import exercise, rule_coverage

    game = load_game(os.path.join(ROOT, "games", "izakaya"))
    report = rule_coverage(game, lambda g: exercise(g, random_games=2))
    library = os.path.join(SHIPPED, "jidohanbaiki", "library.metro")
    assert library in report.files
    ran = report.files[library]
    assert ran.executed & ran.code_lines  # crate_of() ran in the setup


def test_library_files_are_read_bounded_and_only_when_regular(tmp_path):
    folder, root = setup(tmp_path, {"rules.metro": GAME})
    more = os.path.join(root, "cans", "more.metro")
    os.unlink(more)
    with open(more, "wb") as handle:
        handle.truncate(3 * 1024 * 1024)  # larger than a rule file may be
    with pytest.raises(CompileError) as info:
        compile_game(folder, library_root=root)
    assert "larger than the limit of 2 MiB" in info.value.diagnostics[0].message
    os.unlink(more)
    os.mkfifo(more)  # opening a FIFO would block: it is refused before it is opened
    with pytest.raises(CompileError) as info:
        compile_game(folder, library_root=root)
    assert "is not a regular file" in info.value.diagnostics[0].message


def test_a_library_may_use_another_library_by_name(tmp_path):
    library = {
        **LIBRARY,
        "cans/library.metro": CANS.replace(
            'use "data.metro"', 'use "data.metro"\n  use library "tins"'
        ),
        "tins/library.metro": 'library "tins" {\n  const TIN = 2\n}\n',
    }
    folder, root = setup(tmp_path, {"rules.metro": GAME.replace("+ BIG", "+ BIG + TIN")}, library)
    program = compile_game(folder, library_root=root).program
    assert list(program.libraries) == ["cans", "tins"] and "TIN" in program.consts


# ------------------------------------------------------------------------------------ labels and drawings

LABELLED = CANS.replace("kind can(size: int)", 'kind can(size: int) label "a can of {size}"')


def can_labels(ctx) -> tuple[str, ...]:
    """How the cans read in the compiled game."""
    return game_from_source(ctx.python, "cans.py").module.K_can__label


def test_a_library_kind_reads_as_its_label_and_a_game_draws_it(tmp_path):
    game = GAME.replace(
        "  flow {", '  draw "cans" for c in can: point at (10 * c.size, 0) label c\n  flow {'
    )
    library = {**LIBRARY, "cans/library.metro": LABELLED}
    folder, root = setup(tmp_path, {"rules.metro": game}, library)
    ctx = compile_game(folder, library_root=root)
    assert can_labels(ctx) == ("a can of 3", "a can of 1")
    assert [d.name for d in ctx.checked.draws] == ["cans"]


def test_a_game_relabels_a_library_kind(tmp_path):
    game = GAME.replace("  flow {", '  override kind can label "{size}-litre can"\n  flow {')
    library = {**LIBRARY, "cans/library.metro": LABELLED}
    folder, root = setup(tmp_path, {"rules.metro": game}, library)
    ctx = compile_game(folder, library_root=root)
    assert can_labels(ctx) == ("3-litre can", "1-litre can")
    # a variant may relabel it again; metro diff says so
    (tmp_path / "game" / "variants").mkdir()
    (tmp_path / "game" / "variants" / "tins.metro").write_text(
        'variant "Tins" for "G" {\n  override kind can label "tin {size}"\n}\n', encoding="utf-8"
    )
    ctx = compile_game(folder, library_root=root, variants=["tins"])
    assert can_labels(ctx) == ("tin 3", "tin 1")
    replaced = [r for r in ctx.program.patches if r.verb == "replaces"]
    assert [(r.what, r.name, r.line) for r in replaced] == [("label of map kind", "can", 2)]


def test_a_new_label_is_checked_where_it_is_written(tmp_path):
    game = GAME.replace("  flow {", '  override kind can label "{total} cans"\n  flow {')
    found = only(refused(tmp_path, {"rules.metro": game}), "label")
    assert found.span.file.endswith("rules.metro") and found.span.line == 6
    game = GAME.replace("  flow {", '  override kind tin label "a tin"\n  flow {')
    found = only(refused(tmp_path, {"rules.metro": game}), "patch")
    assert found.message == "`override` names no existing map kind 'tin'"
