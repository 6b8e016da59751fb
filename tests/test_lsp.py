"""`metro lsp`, driven by an LSP client over standard input and output, as an editor drives it."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from click.testing import CliRunner
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from compiler import compile_game
from dsl.diagnostics import CompileError
from dsl.formatter import format_text
from metro.cli import main

TIMEOUT = 120  # seconds for one answer (the machine may be busy)

RULES = """\
game "Editor test" {
  players 2..3
  use "part.metro"
  enum Color { red blue }
  const LIMIT = 3
  state { pool: bag of Color public }
  per player {
    score: int public "Points"
    hand: bag of Color owner
  }
  # Twice a number.
  function double(x: int) -> int = x * 2
  procedure gain(p: player, n: int) {
    let total = double(n) + half(n)
    p.score += total
  }
  action take(c: Color where c == red) label "take {c}" { gain(me, LIMIT) }
  flow {
    loop {
      choose by seat(1) { take }
      if seat(1).score > 10 { end game }
    }
  }
  score(p) = p.score
  estimate(p) = p.score + size(p.hand)
  metric "points"(p) = p.score
  breakdown(p) {
    "Points": p.score,
  }
  display(p) {
    "Hand": size(p.hand),
  }
  draw "scores" for p in players: text (p, ": ", p.score) at (10, 20 * seat_number(p))
}
"""
PART = 'part "helpers" for "Editor test" {\n  function half(x: int) -> int = x / 2\n}\n'
VARIANT = (
    'variant "Twice" for "Editor test" {\n'
    "  override function double(x: int) -> int = super(x) * 2 + half(x)\n"
    '  remove metric "points"\n'
    '  override draw "scores" for p in players: text (p, " has ", p.score) at (10, 10)\n}\n'
)


def where(text: str, needle: str, occurrence: int = 0, offset: int = 0) -> types.Position:
    """The LSP position (0-based) of the `occurrence`-th `needle` in `text`, plus `offset`."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    index += offset
    line = text.count("\n", 0, index)
    return types.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1))


class Editor:
    """An LSP client talking to `python -m metro lsp`, with the answers it needs."""

    def __init__(self, root: Path):
        self.root = root
        self.loop = asyncio.new_event_loop()
        self.client = LanguageClient("metro-tests", "1")
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.arrived = asyncio.Event()
        self.versions: dict[str, int] = {}
        self.repeats = 0  # diagnostics published for a file just as they were last published

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            self.repeats += self.diagnostics.get(params.uri) == list(params.diagnostics)
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.arrived.set()

    def run(self, coroutine):
        return self.loop.run_until_complete(asyncio.wait_for(coroutine, TIMEOUT))

    def start(self, capabilities: types.ClientCapabilities | None = None) -> None:
        self.run(self.client.start_io(sys.executable, "-m", "metro", "lsp"))
        self.run(
            self.client.initialize_async(
                types.InitializeParams(
                    capabilities=capabilities or types.ClientCapabilities(),
                    root_uri=from_fs_path(str(self.root)),
                )
            )
        )
        self.client.initialized(types.InitializedParams())

    def stop(self) -> None:
        self.run(self.client.shutdown_async(None))
        self.client.exit(None)
        self.run(self.client.stop())
        self.loop.close()

    def uri(self, name: str) -> str:
        return from_fs_path(str(self.root / name))

    def open(self, name: str) -> None:
        text = (self.root / name).read_text(encoding="utf-8")
        self.versions[name] = 1
        item = types.TextDocumentItem(uri=self.uri(name), language_id="metro", version=1, text=text)
        self.arrived.clear()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))

    def change(self, name: str, text: str) -> None:
        self.versions[name] += 1
        document = types.VersionedTextDocumentIdentifier(
            uri=self.uri(name), version=self.versions[name]
        )
        self.arrived.clear()
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=document,
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def save(self, name: str) -> None:
        self.client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri(name))
            )
        )

    def wait(self, name: str, test) -> list[types.Diagnostic]:
        """Wait until the diagnostics of a file pass `test`; return them."""

        async def waiting():
            while not (
                self.uri(name) in self.diagnostics and test(self.diagnostics[self.uri(name)])
            ):
                self.arrived.clear()
                await self.arrived.wait()
            return self.diagnostics[self.uri(name)]

        return self.run(waiting())

    def at(self, name: str):
        return types.TextDocumentIdentifier(uri=self.uri(name))

    def definition(self, name: str, position: types.Position):
        params = types.DefinitionParams(text_document=self.at(name), position=position)
        return self.run(self.client.text_document_definition_async(params))

    def references(self, name: str, position: types.Position):
        params = types.ReferenceParams(
            text_document=self.at(name),
            position=position,
            context=types.ReferenceContext(include_declaration=True),
        )
        return self.run(self.client.text_document_references_async(params))

    def hover(self, name: str, position: types.Position) -> str:
        params = types.HoverParams(text_document=self.at(name), position=position)
        found = self.run(self.client.text_document_hover_async(params))
        return found.contents.value if found else ""

    def complete(self, name: str, position: types.Position) -> dict[str, types.CompletionItem]:
        params = types.CompletionParams(text_document=self.at(name), position=position)
        found = self.run(self.client.text_document_completion_async(params))
        return {item.label: item for item in found.items}

    def symbols(self, name: str):
        params = types.DocumentSymbolParams(text_document=self.at(name))
        return self.run(self.client.text_document_document_symbol_async(params))

    def prepare_rename(self, name: str, position: types.Position):
        params = types.PrepareRenameParams(text_document=self.at(name), position=position)
        return self.run(self.client.text_document_prepare_rename_async(params))

    def rename(self, name: str, position: types.Position, new_name: str):
        params = types.RenameParams(
            text_document=self.at(name), position=position, new_name=new_name
        )
        return self.run(self.client.text_document_rename_async(params))

    def formatting(self, name: str):
        params = types.DocumentFormattingParams(
            text_document=self.at(name),
            options=types.FormattingOptions(tab_size=2, insert_spaces=True),
        )
        return self.run(self.client.text_document_formatting_async(params))


@pytest.fixture(scope="module")
def editor(tmp_path_factory):
    """A language server and a client, on a small game with a part and a variant."""
    root = tmp_path_factory.mktemp("editor")
    (root / "rules.metro").write_text(RULES, encoding="utf-8")
    (root / "part.metro").write_text(PART, encoding="utf-8")
    (root / "variants").mkdir()
    (root / "variants" / "twice.metro").write_text(VARIANT, encoding="utf-8")
    session = Editor(root)
    session.start()
    session.open("rules.metro")
    session.wait("rules.metro", lambda found: found == [])
    yield session
    session.stop()


def uris(locations) -> list[tuple[str, int, int]]:
    return sorted(
        (os.path.basename(loc.uri), loc.range.start.line, loc.range.start.character)
        for loc in locations
    )


# ---------------------------------------------------------------- diagnostics


def check_diagnostics(root: Path) -> list[tuple]:
    """What `metro check` reports for the game, as (code, 0-based start, end, message, notes)."""
    try:
        compile_game(str(root / "rules.metro"))
    except CompileError as error:
        return [
            (
                d.code.code,
                (d.span.line - 1, d.span.col - 1),
                (d.span.end_line - 1, d.span.end_col - 1),
                d.message + "".join(f"\nnote: {note}" for note in d.all_notes),
            )
            for d in error.diagnostics
        ]
    return []


def shown(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    return [
        (
            d.code,
            (d.range.start.line, d.range.start.character),
            (d.range.end.line, d.range.end.character),
            d.message,
        )
        for d in diagnostics
    ]


def test_diagnostics_as_you_type_are_the_compilers_and_go_away_when_fixed(editor, tmp_path):
    broken = RULES.replace("p.score += total", "p.score += totl")
    editor.change("rules.metro", broken)
    found = editor.wait("rules.metro", lambda found: found != [])
    (tmp_path / "rules.metro").write_text(broken, encoding="utf-8")
    (tmp_path / "part.metro").write_text(PART, encoding="utf-8")
    assert shown(found) == check_diagnostics(tmp_path)
    assert found[0].code == "undefined-name" and "did you mean 'total'?" in found[0].message
    assert found[0].severity == types.DiagnosticSeverity.Error and found[0].source == "metro"
    editor.change("rules.metro", RULES)
    assert editor.wait("rules.metro", lambda found: found == []) == []


def test_a_syntax_error_and_an_error_in_another_file_of_the_game(editor, tmp_path):
    broken = RULES.replace("const LIMIT = 3", "const LIMIT =")
    editor.change("rules.metro", broken)
    found = editor.wait("rules.metro", lambda found: found != [])
    (tmp_path / "rules.metro").write_text(broken, encoding="utf-8")
    assert [d.code for d in found] == ["syntax"]
    assert shown(found) == check_diagnostics(tmp_path)
    editor.change("rules.metro", RULES)
    editor.wait("rules.metro", lambda found: found == [])
    editor.open("part.metro")
    editor.change("part.metro", PART.replace("x / 2", "x / true"))
    (wrong,) = editor.wait("part.metro", lambda found: found != [])
    assert wrong.code == "type"
    editor.change("part.metro", PART)
    editor.wait("part.metro", lambda found: found == [])


def test_a_name_declared_twice_links_to_its_first_declaration(tmp_path):
    twice = RULES.replace("  const LIMIT = 3\n", "  const LIMIT = 3\n  const LIMIT = 4\n")
    (tmp_path / "rules.metro").write_text(twice, encoding="utf-8")
    (tmp_path / "part.metro").write_text(PART, encoding="utf-8")
    shows = types.PublishDiagnosticsClientCapabilities(related_information=True)
    session = Editor(tmp_path)
    session.start(
        types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(publish_diagnostics=shows)
        )
    )
    try:
        session.open("rules.metro")
        (found,) = session.wait("rules.metro", lambda found: found != [])
    finally:
        session.stop()
    assert found.code == "duplicate" and found.range.start == where(twice, "const LIMIT", 1)
    (first,) = found.related_information
    assert first.message == "first declared" and first.location.uri == session.uri("rules.metro")
    assert first.location.range.start == where(twice, "const LIMIT")
    assert "note:" not in found.message  # a client that shows related information has it there


def test_positions_count_utf16_units_as_the_editor_does(editor):
    line = '  const TRAINS = ["\U0001f682", nope]'
    text = RULES.replace("  const LIMIT = 3", "  const LIMIT = 3\n" + line)
    editor.change("rules.metro", text)
    (found,) = editor.wait("rules.metro", lambda found: found != [])
    assert found.range.start.line == 5
    assert found.range.start.character == line.index("nope") + 1  # the train is 2 UTF-16 units
    editor.change("rules.metro", RULES)
    editor.wait("rules.metro", lambda found: found == [])


def test_a_change_that_breaks_a_variant_is_reported_there_with_the_variant_named(editor):
    editor.open("variants/twice.metro")
    editor.wait("variants/twice.metro", lambda found: found == [])
    editor.change(
        "rules.metro",
        RULES.replace("function double(x: int) -> int", "function double(x: int) -> bool"),
    )
    editor.save("rules.metro")
    found = editor.wait("variants/twice.metro", lambda found: found != [])
    assert found[0].code == "type" and "override of 'double'" in found[0].message
    editor.change("rules.metro", RULES)
    editor.save("rules.metro")
    editor.wait("variants/twice.metro", lambda found: found == [])


def test_diagnostics_are_published_once_per_change(editor):
    editor.open("variants/twice.metro")
    editor.wait("variants/twice.metro", lambda found: found == [])
    editor.references("rules.metro", where(RULES, "double(x", 0, 1))
    editor.repeats = 0
    editor.change("rules.metro", RULES.replace("p.score += total", "p.score += totl"))
    editor.save("rules.metro")
    editor.wait("rules.metro", lambda found: found != [])
    editor.references("rules.metro", where(RULES, "double(x", 0, 1))  # every compilation done
    assert editor.repeats == 0
    editor.change("rules.metro", RULES)
    editor.save("rules.metro")
    editor.wait("rules.metro", lambda found: found == [])
    editor.references("rules.metro", where(RULES, "double(x", 0, 1))
    assert editor.repeats == 0


# ---------------------------------------------------------------- navigation


def test_go_to_definition_of_functions_fields_locals_actions_and_across_files(editor):
    definition = lambda needle, n=0, file="rules.metro": uris(  # noqa: E731
        editor.definition(file, where(RULES if file == "rules.metro" else VARIANT, needle, n, 1))
    )
    assert definition("double(n)") == [("rules.metro", 11, 11), ("twice.metro", 1, 20)]
    assert definition("half(n)") == [("part.metro", 1, 11)]
    assert definition("total", 1) == [("rules.metro", 13, 8)]  # the `let`
    assert definition("score +=") == [("rules.metro", 7, 4)]  # the player field
    assert definition("LIMIT)") == [("rules.metro", 4, 8)]
    assert definition("take }") == [("rules.metro", 16, 9)]
    assert definition("red", 1) == [("rules.metro", 3, 15)]  # an enum value
    assert definition("Color where") == [("rules.metro", 3, 7)]
    assert definition("half(x)", file="variants/twice.metro") == [("part.metro", 1, 11)]


def test_find_references_covers_every_file_of_the_game(editor):
    found = uris(editor.references("rules.metro", where(RULES, "double(x", 0, 1)))
    assert found == [
        ("rules.metro", 11, 11),
        ("rules.metro", 13, 16),
        ("twice.metro", 1, 20),
    ]
    assert len(uris(editor.references("rules.metro", where(RULES, "half(n)", 0, 1)))) == 3


def test_hover_shows_the_declaration_its_type_and_comment_and_builtin_docs(editor):
    text = editor.hover("rules.metro", where(RULES, "double(n)", 0, 1))
    assert "function double(x: int) -> int" in text and "Twice a number." in text
    assert "1 override" in text
    assert "`int`" in editor.hover("rules.metro", where(RULES, "total", 1, 1))
    assert "player field" in editor.hover("rules.metro", where(RULES, "score +=", 0, 1))
    seat = editor.hover("rules.metro", where(RULES, "seat(1)", 0, 1))
    assert "seat(" in seat and "builtin" in seat


def test_hover_on_a_constant_shows_its_value(editor):
    text = RULES.replace(
        "  const LIMIT = 3\n", "  const LIMIT = 3\n  const STAKE = LIMIT * 2 + 1\n"
    )
    editor.change("rules.metro", text)
    editor.wait("rules.metro", lambda found: found == [])
    assert "const LIMIT = 3" in editor.hover("rules.metro", where(text, "LIMIT)", 0, 1))
    computed = editor.hover("rules.metro", where(text, "STAKE", 0, 1))
    assert "const STAKE = LIMIT * 2 + 1" in computed and "= `7`" in computed
    editor.change("rules.metro", RULES)
    editor.wait("rules.metro", lambda found: found == [])


def test_completion_offers_fields_after_a_dot_and_names_builtins_keywords_elsewhere(editor):
    text = RULES.replace("p.score += total", "p.score += total + p.")
    editor.change("rules.metro", text)
    fields = editor.complete("rules.metro", where(text, "+ p.", 0, 4))
    assert {"score", "hand"} <= set(fields) and "double" not in fields
    editor.change("rules.metro", RULES)
    editor.wait("rules.metro", lambda found: found == [])
    names = editor.complete("rules.metro", where(RULES, "p.score +=", 0, 0))
    assert {"double", "half", "LIMIT", "red", "Color", "total", "n", "seat", "size", "if"} <= set(
        names
    )
    assert names["double"].kind == types.CompletionItemKind.Function
    assert names["seat"].documentation


def test_document_symbols_outline_the_file(editor):
    symbols = {s.name: s for s in editor.symbols("rules.metro")}
    assert {
        "Color",
        "LIMIT",
        "double",
        "gain",
        "take",
        "flow",
        "score",
        "state",
        "per player",
    } <= set(symbols)
    assert [c.name for c in symbols["Color"].children] == ["red", "blue"]
    assert [c.name for c in symbols["per player"].children] == ["score", "hand"]
    assert symbols["double"].kind == types.SymbolKind.Function


def test_rename_changes_every_use_in_every_file_and_refuses_what_cannot_be_renamed(editor):
    position = where(RULES, "double(n)", 0, 1)
    assert editor.prepare_rename("rules.metro", position) is not None
    assert editor.prepare_rename("rules.metro", where(RULES, "seat(1)", 0, 1)) is None
    edit = editor.rename("rules.metro", position, "twice")
    changed = {
        os.path.basename(uri): sorted((e.range.start.line, e.range.start.character) for e in edits)
        for uri, edits in edit.changes.items()
    }
    assert changed == {"rules.metro": [(11, 11), (13, 16)], "twice.metro": [(1, 20)]}
    assert all(e.new_text == "twice" for edits in edit.changes.values() for e in edits)
    local = editor.rename("rules.metro", where(RULES, "total", 1, 1), "sum_of")
    assert sorted(
        (e.range.start.line, e.range.start.character)
        for e in local.changes[editor.uri("rules.metro")]
    ) == [(13, 8), (14, 15)]
    with pytest.raises(Exception, match="cannot be a name"):
        editor.rename("rules.metro", position, "not a name")


def test_labels_metrics_drawings_estimate_and_breakdown_are_navigable(editor):
    at = lambda text, needle, n=0, offset=0, file="rules.metro": (  # noqa: E731
        file.split("/")[-1],
        where(text, needle, n, offset).line,
        where(text, needle, n, offset).character,
    )
    symbols = {s.name: s for s in editor.symbols("rules.metro")}
    assert {"estimate", "breakdown", "points", "scores"} <= set(symbols)
    assert symbols["scores"].kind == types.SymbolKind.Event
    assert [c.name for c in symbols["breakdown"].children] == ["Points"]
    assert [c.name for c in symbols["display"].children] == ["Hand"]
    # a placeholder of an action's label is its parameter: found, and renamed with it
    param = at(RULES, "c: Color")
    assert uris(editor.definition("rules.metro", where(RULES, "{c}", 0, 1))) == [param]
    edit = editor.rename("rules.metro", where(RULES, "c: Color"), "shade")
    assert sorted(
        ("rules.metro", e.range.start.line, e.range.start.character)
        for e in edit.changes[editor.uri("rules.metro")]
    ) == [param, at(RULES, "c == red"), at(RULES, "{c}", 0, 1)]
    # the variant removes the metric and replaces the drawing the rules declare
    editor.open("variants/twice.metro")
    editor.wait("variants/twice.metro", lambda found: found == [])
    removed = where(VARIANT, '"points"', 0, 1)
    assert uris(editor.definition("variants/twice.metro", removed)) == [at(RULES, '"points"')]
    replaced = where(VARIANT, '"scores"', 0, 1)
    assert uris(editor.definition("variants/twice.metro", replaced)) == [
        at(RULES, '"scores"'),
        at(VARIANT, '"scores"', file="twice.metro"),
    ]
    hover = editor.hover("rules.metro", where(RULES, '"scores"', 0, 1))
    assert 'draw "scores" for p in players:' in hover and "1 override" in hover
    assert 'metric "points"(p)' in editor.hover("rules.metro", where(RULES, '"points"', 0, 1))
    # the locals of the new declarations
    estimate = where(RULES, "p.hand")
    assert uris(editor.definition("rules.metro", estimate)) == [at(RULES, "p) = p.score +")]
    drawn = where(RULES, 'p, ": "')
    assert uris(editor.definition("rules.metro", drawn)) == [at(RULES, "p in players: text")]


def test_completion_names_the_drawings_and_metrics_a_patch_may_change(editor):
    text = VARIANT.replace("}\n", '  remove draw "s\n}\n')
    editor.change("variants/twice.metro", text)
    names = editor.complete("variants/twice.metro", where(text, '"s\n', 0, 2))
    assert list(names) == ["scores"]
    assert names["scores"].text_edit.range.start == where(text, '"s\n', 0, 1)
    metrics = text.replace('remove draw "s', 'remove metric "')
    editor.change("variants/twice.metro", metrics)
    assert list(editor.complete("variants/twice.metro", where(metrics, 'metric "\n', 0, 8))) == [
        "points"
    ]
    editor.change("variants/twice.metro", VARIANT)
    editor.wait("variants/twice.metro", lambda found: found == [])


def test_formatting_gives_the_canonical_layout(editor):
    messy = RULES.replace("  const LIMIT = 3", "const   LIMIT=3")
    editor.change("rules.metro", messy)
    (edit,) = editor.formatting("rules.metro")
    assert edit.new_text == format_text(RULES)
    editor.change("rules.metro", edit.new_text)
    assert list(editor.formatting("rules.metro")) == []
    editor.change("rules.metro", RULES)
    editor.wait("rules.metro", lambda found: found == [])


def test_without_pygls_metro_lsp_says_which_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygls", None)
    monkeypatch.delitem(sys.modules, "metro.lsp.server", raising=False)
    result = CliRunner().invoke(main, ["lsp"])
    assert result.exit_code == 1 and "pip install 'metro-games[lsp]'" in result.output


def test_navigation_across_a_shipped_game_its_map_and_a_variant():
    root = Path(__file__).resolve().parent.parent / "games" / "ticket_to_ride"
    variant = (root / "variants" / "open_doubles.metro").read_text(encoding="utf-8")
    usa = (root / "usa.metro").read_text(encoding="utf-8")
    session = Editor(root)
    session.start()
    try:
        session.open("variants/open_doubles.metro")
        session.wait("variants/open_doubles.metro", lambda found: found == [])
        # an element named by its id in a scenario of the variant: defined in the map
        (found,) = session.definition("variants/open_doubles.metro", where(variant, '"R010"', 0, 2))
        assert found.uri.endswith("/usa.metro")
        assert found.range.start == where(usa, "R010(", 0, 0)
        # a map element's kind: declared in the rules' map schema
        session.open("usa.metro")
        (kind,) = session.definition("usa.metro", where(usa, "route R010", 0, 1))
        assert kind.uri.endswith("/rules.metro")
        # a placeholder of a kind's label is the kind's field
        rules = (root / "rules.metro").read_text(encoding="utf-8")
        session.open("rules.metro")
        (field,) = session.definition("rules.metro", where(rules, "{length}", 0, 1))
        assert field.range.start == where(rules, "length: 1..6", 0, 0)
        uses = session.references("rules.metro", where(rules, "length: 1..6", 0, 0))
        assert where(rules, "{length}", 0, 1) in [loc.range.start for loc in uses]
        # a city: every route that names it (positionally) and its own line in the map
        places = session.references("usa.metro", where(usa, "Boston(", 0, 1))
        in_map = [loc for loc in places if loc.uri.endswith("/usa.metro")]
        lines = [line for line in usa.split("\n") if re.search(r"\bBoston\b", line)]
        assert len(in_map) == len(lines)
    finally:
        session.stop()


# ---------------------------------------------------------------- files outside a game's folder

LOOSE_VARIANT = (
    "# A house rule, written in a folder of its own.\n"
    'variant "Long routes" for "Ticket to Ride" {\n'
    "  override const ROUTE_POINT = {1: 1, 2: 2, 3: 4, 4: 8, 5: 12, 6: 18}\n"
    "}\n"
)
LOOSE_MAP = (
    'map "Alps with a typo" for "Ticket to Ride" {\n'
    "  city Bern(x: 360, y: 380)\n"
    "  city Zurich(x: 620, y: 160)\n"
    "  route r11(Bern, Zurich, 3, gray)\n"
    "  ticket t10(Bern, Zurrich, 4)\n"
    "}\n"
)

LOOSE_PART = 'part "helpers" for "Ticket to Ride" {\n  function twice(x: int) -> int = 2 * x\n}\n'


def test_a_file_that_does_not_parse_shows_its_syntax_errors_below_any_game(tmp_path):
    # A game in the folder above: the broken file cannot say it is not that game's.
    mini = Path(__file__).parent / "data" / "mini" / "rules.metro"
    (tmp_path / "rules.metro").write_text(mini.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "loose").mkdir()
    broken = LOOSE_VARIANT.replace("= {", "= {{")
    (tmp_path / "loose" / "long_routes.metro").write_text(broken, encoding="utf-8")
    session = Editor(tmp_path)
    session.start()
    try:
        session.open("loose/long_routes.metro")
        (syntax,) = session.wait("loose/long_routes.metro", lambda found: found != [])
        assert syntax.code == "syntax" and syntax.range.start.line == 2
    finally:
        session.stop()


def test_a_variant_or_map_in_a_folder_of_its_own_is_checked_against_the_installed_game(tmp_path):
    # deeper than the server looks up for a game, so no rules file above the test's folder counts
    tmp_path = tmp_path / "a" / "b" / "c" / "d"
    tmp_path.mkdir(parents=True)
    (tmp_path / "long_routes.metro").write_text(LOOSE_VARIANT, encoding="utf-8")
    (tmp_path / "alps.metro").write_text(LOOSE_MAP, encoding="utf-8")
    (tmp_path / "helpers.metro").write_text(LOOSE_PART, encoding="utf-8")
    session = Editor(tmp_path)
    session.start()
    try:
        session.open("long_routes.metro")
        (found,) = session.wait("long_routes.metro", lambda found: found != [])
        assert found.code == "patch" and "did you mean 'ROUTE_POINTS'?" in found.message
        assert found.range.start == where(LOOSE_VARIANT, "override")
        unknown = LOOSE_VARIANT.replace("Ticket to Ride", "Ticket to Rid")
        session.change("long_routes.metro", unknown)
        (missing,) = session.wait(
            "long_routes.metro", lambda found: found != [] and found[0].code == "resolve"
        )
        assert "variant 'Long routes' is for 'Ticket to Rid', but no game" in missing.message
        assert "did you mean 'Ticket to Ride'?" in missing.message
        assert missing.range.start == where(unknown, '"Ticket to Rid"')
        assert missing.range.end == where(unknown, '"Ticket to Rid"', 0, len('"Ticket to Rid"'))
        session.change("long_routes.metro", unknown.replace("= {", "= {{"))
        (syntax,) = session.wait(
            "long_routes.metro", lambda found: found != [] and found[0].code == "syntax"
        )
        assert syntax.range.start.line == 2
        session.open("alps.metro")
        found = session.wait("alps.metro", lambda found: found != [])
        assert [d.code for d in found][:1] == ["map-data"]
        assert "no city 'Zurrich'" in found[0].message
        session.open("helpers.metro")  # a part is checked only with a game that uses it
        (part,) = session.wait("helpers.metro", lambda found: found != [])
        assert part.code == "resolve" and part.range.start == where(LOOSE_PART, '"Ticket')
        assert "no game of that name is in this folder or the 4 above it" in part.message
    finally:
        session.stop()
