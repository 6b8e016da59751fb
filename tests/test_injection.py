"""Injection corpus: hostile text in every place a rule file carries text stays inert data.

Each case compiles (or is refused with our diagnostics); the generated module imports only the
runtime, calls only an allowlist, and every string from the rules round-trips exactly.
"""

from __future__ import annotations

import ast
import builtins
import os

import pytest

from compiler import compile_game
from dsl.diagnostics import CompileError
from runtime.machine import Game, compile_module, load_module, run_module

RULES = """\
game @GAME {
  players 1..2
  max decisions 30
  default map "m.metro"
  enum @ENUM { @VALUE, plain }
  map schema {
    kind @KIND(x: int)
    check @CHECK for c in @KIND: c.x @COMPARE 0
  }
  const @CONST = @TEXT
  state { @FIELD: int public  label: text public = @CONST }
  per player { points: int public }
  function @FUNC(n: int) -> int = n + 1
  procedure @PROC(p: player) { p.points += @FUNC(0) }
  action @ACTION(c: @ENUM @HEADING) { @PROC(me) }
  action stop() { end game }
  flow { loop { choose by seat(1) { @ACTION, stop } } }
  score(p) = p.points
  invariant @INVARIANT { @FIELD >= 0 }
  scenario @SCENARIO players 1 seed 1 { play seat(1): @ACTION(@VALUE)  expect label == @TEXT }
}
"""
MAP = 'map "M" for @GAME { @KIND @ELEMENT(x: 1) @KIND plain(x: 2) }\n'
VARIANT = "variant @VARIANT for @GAME { override const @CONST = @TEXT }\n"

STRING_SLOTS = ("GAME", "TEXT", "CHECK", "INVARIANT", "SCENARIO", "ELEMENT", "VARIANT", "HEADING")
NAME_SLOTS = ("ENUM", "VALUE", "KIND", "CONST", "FIELD", "FUNC", "PROC", "ACTION")
DEFAULTS = {
    "GAME": "Base",
    "TEXT": "some text",
    "CHECK": "a check",
    "INVARIANT": "an invariant",
    "SCENARIO": "a scenario",
    "ELEMENT": "elem",
    "VARIANT": "a variant",
    "HEADING": "a colour",
    "ENUM": "Colour",
    "VALUE": "red",
    "KIND": "city",
    "CONST": "TEXT",
    "FIELD": "counter",
    "FUNC": "inc",
    "PROC": "bump",
    "ACTION": "take",
}

# Hostile strings, as the program means them (written into the rules with .metro escapes).
STRINGS = [
    'say "hi"',
    "it's",
    'a"""b',
    "a'''b",
    "back\\slash",
    "ends with \\",
    "{x} {{y}} {%z%}",
    "%s %d {0!r} ${HOME} `id`",
    "line one\nline two",
    "a\rb",
    "a\tb",
    "a\u2028b\u2029c",
    "nul\0byte",
    "Тiсkеt tо Ridе",
    "\u202eevil\u202c",
    "zero\u200dwidth\ufeff",
    "\U0001f682 train",
    "\u001b[31mred",
    'x"); __import__("os").system("echo pwned"); ("',
    "\n__import__('os').system('echo pwned')\n#",
    '"""+str(__import__("builtins").print("INJECTED"))+"""',
    "'''+str(__import__('builtins').print('INJECTED'))+'''",
    "{{ ''.__class__.__mro__ }}",
    "None",
    "del \x7f c1 \x85 csi \x9b[2J",
    "",
    "x" * 10_000,
]
# Hostile names (NAME tokens); some are refused by the grammar, which is fine.
NAMES = [
    "class",
    "None",
    "True",
    "lambda",
    "import",
    "def",
    "yield",
    "await",
    "nonlocal",
    "__import__",
    "eval",
    "exec",
    "open",
    "print",
    "len",
    "range",
    "S",
    "F",
    "L",
    "p",
    "_l",
    "_g",
    "_v",
    "_A",
    "_Frame",
    "State",
    "GAME_NAME",
    "SITES",
    "init_fields",
    "score",
    "self",
    "__class__",
    "__builtins__",
    "a" * 10_000,
    "Tісket",
    "me",
    "none",
]

BUILTIN_CALLS = {
    "len",
    "sum",
    "min",
    "max",
    "range",
    "list",
    "set",
    "sorted",
    "any",
    "all",
    "abs",
    "tuple",
    "dict",
    "int",
    "str",
    "reversed",
    "enumerate",
    "isinstance",
    "bool",
    "zip",
    "slice",
    "AssertionError",
    "frozenset",
}
METHOD_CALLS = {
    "append",
    "extend",
    "insert",
    "pop",
    "clear",
    "add",
    "remove",
    "discard",
    "update",
    "get",
    "items",
    "keys",
    "values",
    "index",
    "count",
    "copy",
    "sort",
    "setdefault",
    "encode",
    "decode",
    "size",
    "label",
    "parse",
    "act",  # the frameless driver's, at a driven decision (runtime/driver.py)
    "decide",
    "settle",
    "pick",
    "pick_action",
    "__setitem__",
    "cache_legal",
}
FORBIDDEN_NAMES = {
    "eval",
    "exec",
    "compile",
    "open",
    "__import__",
    "getattr",
    "setattr",
    "delattr",
    "globals",
    "locals",
    "vars",
    "breakpoint",
    "input",
    "__builtins__",
    "type",
    "object",
}


def metro_string(text: str) -> str:
    """A .metro string literal meaning `text` (escapes for quote, backslash and control characters)."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif char == "\0":
            out.append("\\0")
        elif ord(char) < 32 or 0x7F <= ord(char) <= 0x9F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _fill(template: str, values: dict[str, str]) -> str:
    for slot in sorted(values, key=len, reverse=True):
        value = values[slot]
        template = template.replace(
            "@" + slot, metro_string(value) if slot in STRING_SLOTS else value
        )
    return template


def _write(folder, values: dict[str, str], compare: str = ">=") -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "variants").mkdir(exist_ok=True)
    (folder / "rules.metro").write_text(
        _fill(RULES.replace("@COMPARE", compare), values), encoding="utf-8"
    )
    (folder / "m.metro").write_text(_fill(MAP, values), encoding="utf-8")
    (folder / "variants" / "v.metro").write_text(_fill(VARIANT, values), encoding="utf-8")
    return str(folder)


def _compile(folder: str):
    """The compile context, or None when refused with well-formed diagnostics."""
    try:
        return compile_game(folder, variants=["v"])
    except CompileError as error:
        assert error.diagnostics
        for diagnostic in error.diagnostics:
            assert diagnostic.span.line >= 1 and diagnostic.span.col >= 1, diagnostic.render()
        return None


def audit(python: str) -> list[str]:
    """Everything in generated code outside the allowlist: imports, calls, names, dunder attributes."""
    tree = ast.parse(python)
    defined, runtime_aliases = set(), set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.ImportFrom):
            names = {alias.asname or alias.name for alias in node.names}
            defined |= names
            if node.module == "runtime":
                runtime_aliases |= names
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            problems.append(f"line {node.lineno}: import {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] != "runtime":
            problems.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Call) and not _allowed_call(node.func, defined, runtime_aliases):
            problems.append(f"line {node.lineno}: call {ast.unparse(node.func)[:80]}")
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            problems.append(f"line {node.lineno}: name {node.id}")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("__")
            and node.attr != "__setitem__"
        ):
            problems.append(f"line {node.lineno}: attribute {node.attr}")
    return problems


def _allowed_call(func: ast.expr, defined: set[str], runtime_aliases: set[str]) -> bool:
    if isinstance(func, ast.Name):
        return func.id in defined or func.id in BUILTIN_CALLS
    if isinstance(func, ast.Subscript):
        return isinstance(func.value, ast.Name) and func.value.id in defined
    if isinstance(func, ast.Attribute):
        root = func.value
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if (
            isinstance(root, ast.Name)
            and root.id in runtime_aliases
            and isinstance(func.value, ast.Name)
        ):
            return True
        return func.attr in METHOD_CALLS
    return False


def _strings(python: str) -> set[str]:
    return {
        n.value
        for n in ast.walk(ast.parse(python))
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def _load(ctx) -> Game:
    module = load_module(ctx.python, f"<metro:{ctx.program.game_file}>", "metro_injection_case")

    def scenarios(game_module):
        filename = f"<metro-scenarios:{ctx.program.game_file}>"
        code = compile_module(ctx.scenarios_python, filename)
        return run_module(code, filename, "metro_injection_case_scenarios", game_module)

    return Game(module, ("v",), scenarios)


def check_module(ctx, values: dict[str, str]) -> Game:
    """Audit the generated modules (the game's, and its scenarios' over its names), then load
    them and check the rule text round-trips."""
    compile(ctx.python, "<generated>", "exec")
    both = ctx.python + "\n" + ctx.scenarios_python
    problems = audit(both)
    assert problems == [], "\n".join(problems)
    literals = _strings(both)
    for slot in ("GAME", "TEXT", "INVARIANT", "SCENARIO", "ELEMENT", "HEADING"):
        assert values[slot] in literals, (
            f"{slot} {values[slot]!r:.80} is not a literal of the module"
        )
    game = _load(ctx)
    module = game.module
    assert game.name == values["GAME"]
    assert getattr(module, f"C_{values['CONST']}") == values["TEXT"]
    assert [s[0] for s in game.scenarios] == [values["SCENARIO"]]
    assert [i[0] for i in game.invariants] == [values["INVARIANT"]]
    assert getattr(module, f"K_{values['KIND']}") == (values["ELEMENT"], "plain")
    assert getattr(module, f"E_{values['ENUM']}") == (values["VALUE"], "plain")
    assert values["FIELD"] in module.STATE_VISIBILITY and values["ACTION"] in module.ACTION_DESCS
    assert game.argument_headings[values["ACTION"]] == (values["HEADING"],)
    assert any(values["VARIANT"] in entry for entry in ctx.program.applied)
    state = game.new_game(1, 1)
    action = f"{values['ACTION']}({values['VALUE']})"
    assert action in [a.id for a in state.legal_actions(0)]
    state.apply(0, action)
    assert state.view(0)["state"]["label"] == values["TEXT"]
    assert game.state_from_json(state.to_json()).to_json() == state.to_json()
    return game


def _game_name_params():
    for index, text in enumerate(STRINGS):
        yield pytest.param(text, id=f"s{index}")


def _element_id_ok(text: str) -> bool:
    # Action ids quote any element id exactly, but the compiler refuses these (compiler/maps.py).
    return bool(text) and text == text.strip() and text.isprintable()


def _check_strings(folder, values: dict[str, str], text: str) -> None:
    if not _element_id_ok(text):
        assert _compile(_write(folder / "refused", values)) is None
        values["ELEMENT"] = DEFAULTS["ELEMENT"]
    ctx = _compile(_write(folder / "game", values))
    assert ctx is not None, f"{text!r:.80} was refused"
    check_module(ctx, values)


@pytest.mark.parametrize("text", STRINGS, ids=[f"s{i}" for i in range(len(STRINGS))])
def test_hostile_strings_in_every_text_place(tmp_path, text):
    _check_strings(
        tmp_path, {**DEFAULTS, **{slot: text for slot in STRING_SLOTS if slot != "GAME"}}, text
    )


@pytest.mark.parametrize("text", list(_game_name_params()))
def test_hostile_game_names(tmp_path, text):
    _check_strings(tmp_path, {**DEFAULTS, "GAME": text, "ELEMENT": text}, text)


@pytest.mark.parametrize(
    "text", [s for s in STRINGS if s], ids=[f"s{i}" for i, s in enumerate(STRINGS) if s]
)
def test_check_messages_round_trip_into_diagnostics(tmp_path, text):
    values = {**DEFAULTS, "CHECK": text}
    with pytest.raises(CompileError) as info:
        compile_game(_write(tmp_path / "game", values, compare="<"), variants=["v"])
    assert any(text in d.message for d in info.value.diagnostics), info.value.render()[:500]


def _name_params():
    for name in NAMES:
        for slot in NAME_SLOTS:
            yield pytest.param(name, slot, id=f"{name if len(name) < 20 else 'long'}-{slot}")


@pytest.mark.parametrize(("name", "slot"), list(_name_params()))
def test_hostile_names_in_every_name_place(tmp_path, name, slot):
    values = {**DEFAULTS, slot: name}
    ctx = _compile(_write(tmp_path / "game", values))
    if ctx is None:
        return
    assert name.isascii() and name not in ("me", "none"), f"{name!r} should have been refused"
    check_module(ctx, values)


def test_hard_keywords_and_look_alike_names_are_refused(tmp_path):
    for index, name in enumerate(["me", "none", "Tісket"]):
        values = {**DEFAULTS, "ACTION": name}
        assert _compile(_write(tmp_path / str(index), values)) is None


def test_diagnostics_never_print_raw_control_characters(tmp_path):
    values = {
        **DEFAULTS,
        "ELEMENT": "\u001b]0;pwned\u0007[x]",
    }  # an element id the map check refuses
    with pytest.raises(CompileError) as info:
        compile_game(_write(tmp_path / "game", values))
    rendered = info.value.render()
    assert "cannot name an element" in rendered
    assert not any(ord(c) < 32 and c != "\n" for c in rendered), repr(rendered[:200])


def test_a_raw_nul_in_a_file_is_refused(tmp_path):
    folder = _write(tmp_path / "game", DEFAULTS)
    path = os.path.join(folder, "rules.metro")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace("some text", "some\0text", 1))
    with pytest.raises(CompileError) as info:
        compile_game(folder)
    assert "control character" in info.value.render()


@pytest.mark.parametrize(
    "folder", ["it's", 'say "hi"', "new\nline", "a\u2028b", "{x}", "x') + __import__('os') + ('"]
)
def test_hostile_file_names(tmp_path, folder):
    game_dir = _write(tmp_path / folder, DEFAULTS)
    ctx = compile_game(game_dir, variants=["v"])
    assert audit(ctx.python) == []
    game = check_module(ctx, DEFAULTS)
    assert os.path.join(game_dir, "rules.metro") == game.module.SOURCE_FILE
    paths = game.module.SOURCE_PATHS  # a line's file is its index in the module's table
    assert {paths[source] for source, _ in game.module.METRO_LINES.values()} >= {
        os.path.join(game_dir, "rules.metro")
    }


def test_the_corpus_is_large_enough():
    assert len(STRINGS) + len(NAMES) >= 30


def test_the_audit_catches_what_it_should():
    bad = (
        "import os\nfrom os import path\nx = eval('1')\ny = ().__class__\n"
        "def f(S):\n    return S.g.system('x')\n"
    )
    found = "\n".join(audit(bad))
    for expected in (
        "import os",
        "from os import path",
        "call eval",
        "name eval",
        "attribute __class__",
        "call S.g.system",
    ):
        assert expected in found
    assert builtins.len is len  # the allowlisted builtins are the real ones here
