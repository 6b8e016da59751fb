"""`metro lsp`: the language server (pygls on lsprotocol, over standard input and output).

As a file changes, the server compiles the game it belongs to with the editor's texts
(`analysis.py`, `contexts.py`) and publishes the compiler's diagnostics — the same codes,
places and notes as `metro check` — for every file of that game. It first runs the stages
up to `check` and shows their errors at once; a text without errors there goes on through
the map checks, lowering and code generation. When a file is opened or saved, the game is
also compiled with each of its expansions and variants, and what only they find is shown
with a note saying which. Navigation (definition, references, hover, completion, outline,
rename) reads a `SymbolIndex` of the latest compilations; formatting is `metro fmt`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import PackageNotFoundError, version

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from compiler.builtins import TABLE
from compiler.check.names import valid_identifier
from dsl.diagnostics import CompileError, Diagnostic
from dsl.formatter import format_text, formatting_off
from dsl.keywords import RESERVED_WORDS
from dsl.source import Span
from metro.lsp.analysis import Analysis, Compilation, EditorFiles
from metro.lsp.contexts import Context, contexts_for, findings_alone, game_contexts, header
from metro.lsp.frames import FramedInput, message_id_in
from metro.lsp.index import (
    KINDS,
    NAMED_BY_STRING,
    RENAMEABLE,
    Definition,
    Outline,
    Reference,
    SymbolIndex,
)
from metro.lsp.log import log_to_stderr
from metro.lsp.protocol import PARSE_ERROR, MetroProtocol
from metro.syntax import WORD_CLASSES

DEBOUNCE_SECONDS = 0.1  # a burst of keystrokes is compiled once
BUILTINS = {builtin.name: builtin for builtin in TABLE}
KEYWORDS = sorted({word for word_class in WORD_CLASSES for word in word_class.words})
# The text before the cursor inside the string that names what a patch overrides or removes.
NAMING_STRING = re.compile(
    r"\b(?:remove|override)\s+(" + "|".join(sorted(NAMED_BY_STRING)) + r')\s+"([^"]*)$'
)

SYMBOL_KINDS = {
    "const": types.SymbolKind.Constant,
    "function": types.SymbolKind.Function,
    "procedure": types.SymbolKind.Function,
    "action": types.SymbolKind.Method,
    "group": types.SymbolKind.Array,
    "enum": types.SymbolKind.Enum,
    "value": types.SymbolKind.EnumMember,
    "schema": types.SymbolKind.Namespace,
    "kind": types.SymbolKind.Struct,
    "kind field": types.SymbolKind.Field,
    "state": types.SymbolKind.Field,
    "player field": types.SymbolKind.Field,
    "check": types.SymbolKind.Boolean,
    "flow": types.SymbolKind.Function,
    "score": types.SymbolKind.Function,
    "rank": types.SymbolKind.Function,
    "invariant": types.SymbolKind.Boolean,
    "scenario": types.SymbolKind.Event,
    "bot": types.SymbolKind.Object,
    "element": types.SymbolKind.Object,
    "draw": types.SymbolKind.Event,
    "metric": types.SymbolKind.Number,
    "estimate": types.SymbolKind.Function,
    "breakdown": types.SymbolKind.Function,
    "breakdown entry": types.SymbolKind.Field,
    "display": types.SymbolKind.Function,
    "display entry": types.SymbolKind.Field,
}
COMPLETION_KINDS = {
    "const": types.CompletionItemKind.Constant,
    "function": types.CompletionItemKind.Function,
    "procedure": types.CompletionItemKind.Function,
    "action": types.CompletionItemKind.Method,
    "group": types.CompletionItemKind.Method,
    "enum": types.CompletionItemKind.Enum,
    "value": types.CompletionItemKind.EnumMember,
    "kind": types.CompletionItemKind.Struct,
    "state": types.CompletionItemKind.Variable,
    "local": types.CompletionItemKind.Variable,
    "kind field": types.CompletionItemKind.Field,
    "player field": types.CompletionItemKind.Field,
}


def _version() -> str:
    try:
        return version("metro-games")
    except PackageNotFoundError:
        return "0"


class MetroServer(LanguageServer):
    """The language server's state: the editor's texts, compilations and their indexes."""

    def __init__(self):
        super().__init__("metro", _version(), protocol_cls=MetroProtocol)
        self.files = EditorFiles()
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="metro-compile")
        self.results: dict[Context, Analysis] = {}
        self.indexes: dict[Context, SymbolIndex] = {}
        self.fresh: set[Context] = set()  # results computed from the current texts
        self.tasks: dict[Context, asyncio.Task] = {}
        self.revision = 0  # counts text changes: a compilation of an older text is stale
        self.published: dict[str, set[str]] = {}  # game -> files given diagnostics
        self.sent: dict[str, list[types.Diagnostic]] = {}  # file -> what the editor shows

    def report_server_error(self, error: Exception, source) -> None:
        """Answer a message body that is not JSON with a parse error; report other errors."""
        if isinstance(error, json.JSONDecodeError):
            body = error.doc.encode("utf-8", "replace")
        elif isinstance(error, UnicodeDecodeError):
            body = error.object
        else:
            super().report_server_error(error, source)
            return
        self.protocol.refuse(message_id_in(body), f"not JSON: {error}", PARSE_ERROR)

    # ------------------------------------------------------------ compiling

    def text_changed(self, uri: str, text: str | None) -> list[Context]:
        """Record a document's text; the compilations it takes part in.

        A file that takes part in none is given the findings that can be made of it alone:
        its syntax errors, or that the game it names is nowhere to be found. So is a file that
        does not parse: it cannot say which game it is for, so the game found for it may not
        read it, and its syntax errors are its own whatever game checks it.
        """
        path = to_fs_path(uri)
        self.files.set_text(path, text)
        self.revision += 1
        self.fresh.clear()
        contexts = contexts_for(path, self.files)
        if not contexts or header(self.files, path) is None:
            file = os.path.abspath(path)
            found = findings_alone(path, self.files)
            self.send(file, [self.lsp_diagnostic(diag, file, ()) for diag in found])
        return contexts

    def schedule(self, contexts: list[Context], delay: float = DEBOUNCE_SECONDS) -> None:
        """Compile these contexts soon (a newer request replaces an older one)."""
        for context in contexts:
            running = self.tasks.get(context)
            if running is not None and not running.done():
                running.cancel()
            self.tasks[context] = asyncio.ensure_future(self._compile(context, delay))

    async def _compile(self, context: Context, delay: float) -> None:
        await asyncio.sleep(delay)
        revision = self.revision
        compilation = Compilation(context, self.files)
        loop = asyncio.get_running_loop()
        stale = lambda: self.revision != revision  # noqa: E731 - read in the worker thread
        while True:
            stop = None if context in self.fresh else "check"  # `check` first, if not shown yet
            result = await loop.run_in_executor(self.pool, compilation.run, stop, stale)
            if not result.finished or self.revision != revision:
                return
            self.results[context] = result
            self.indexes.pop(context, None)
            self.fresh.add(context)
            self.publish(context.game)  # `check`'s findings at once; the other stages' later
            if compilation.done:
                return

    async def settle(self, contexts: list[Context]) -> None:
        """Wait until these contexts have results for the current texts."""
        missing = [c for c in contexts if c not in self.fresh]
        if missing:
            self.schedule([c for c in missing if c not in self.tasks or self.tasks[c].done()], 0)
            await asyncio.gather(
                *(self.tasks[c] for c in missing if c in self.tasks), return_exceptions=True
            )

    # ------------------------------------------------------------ diagnostics

    def publish(self, game: str) -> None:
        """Publish the diagnostics of every compilation of a game, for each of its files."""
        found: dict[str, dict[tuple, types.Diagnostic]] = {}
        contexts = sorted(
            (c for c in self.results if c.game == game and c in self.fresh),
            key=lambda c: (len(c.expansions) + len(c.variants) + bool(c.map_path), repr(c)),
        )
        plain = contexts[0] if contexts else None
        for context in contexts:
            result = self.results[context]
            for diag in result.diagnostics:
                file = diag.span.file or context.game
                if diag.span.file and not os.path.isabs(file):
                    file = os.path.abspath(file)
                key = (diag.span.line, diag.span.col, diag.code.code, diag.message)
                bucket = found.setdefault(file, {})
                if key not in bucket:
                    extra = () if context == plain else (f"found {context.describe()}",)
                    bucket[key] = self.lsp_diagnostic(diag, file, extra)
        opened = {
            os.path.abspath(path)
            for context in contexts
            for path in self.results[context].sources
            if self.files.is_open(path)
        }
        files = set(found) | self.published.get(game, set()) | opened
        for file in sorted(files):
            self.send(file, list(found.get(file, {}).values()))
        self.published[game] = set(found)

    def send(self, file: str, diagnostics: list[types.Diagnostic]) -> None:
        """Publish a file's diagnostics, unless the editor already shows just these."""
        if self.sent.get(file) == diagnostics:
            return  # each compilation of a game publishes all of its files
        self.sent[file] = diagnostics
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=from_fs_path(file), diagnostics=diagnostics)
        )

    def lsp_diagnostic(
        self, diag: Diagnostic, file: str, extra: tuple[str, ...]
    ) -> types.Diagnostic:
        """A compiler diagnostic as LSP shows it: the message, then its notes.

        The places it is about (the first declaration of a name declared twice) are its
        related information, or notes for a client that does not show related information.
        """
        linked = self.shows_related_information()
        notes = [*diag.notes, *extra] if linked else [*diag.all_notes, *extra]
        message = diag.message + "".join(f"\nnote: {note}" for note in notes)
        related = [
            types.DiagnosticRelatedInformation(location=self.location(r.span), message=r.message)
            for r in diag.related
        ]
        return types.Diagnostic(
            range=self.range(diag.span, file),
            message=message,
            severity=(
                types.DiagnosticSeverity.Error
                if diag.severity == "error"
                else types.DiagnosticSeverity.Warning
            ),
            code=diag.code.code,
            source="metro",
            related_information=related if linked and related else None,
        )

    def shows_related_information(self) -> bool:
        """Whether the client said it shows a diagnostic's related information."""
        document = self.client_capabilities.text_document
        published = document.publish_diagnostics if document else None
        return bool(published and published.related_information)

    # ------------------------------------------------------------ positions

    def lines(self, file: str) -> list[str]:
        """A file's lines as the editor has them."""
        try:
            return self.files.text(file).split("\n")
        except CompileError:
            return [""]

    def range(self, span: Span, file: str | None = None) -> types.Range:
        """A 1-based, end-exclusive span as an LSP range in the client's units."""
        lines = self.lines(file or span.file)
        if span.line < 1:
            return types.Range(types.Position(0, 0), types.Position(0, 0))
        codec = self.workspace.position_codec
        start = types.Position(span.line - 1, max(span.col - 1, 0))
        end = types.Position(max(span.end_line - 1, span.line - 1), max(span.end_col - 1, 0))
        return types.Range(
            codec.position_to_client_units(lines, start), codec.position_to_client_units(lines, end)
        )

    def location(self, span: Span) -> types.Location:
        """A span as an LSP location."""
        return types.Location(uri=from_fs_path(os.path.abspath(span.file)), range=self.range(span))

    def place(self, uri: str, position: types.Position) -> tuple[str, int, int]:
        """The file and 1-based line and column (in characters) of an LSP position."""
        path = to_fs_path(uri)
        lines = self.lines(path)
        server = self.workspace.position_codec.position_from_client_units(lines, position)
        return path, server.line + 1, server.character + 1

    # ------------------------------------------------------------ indexes

    def index_for(self, path: str, everything: bool = False) -> SymbolIndex:
        """The symbols of the compilations that read a file (`everything`: all of its game's)."""
        contexts = [c for c, r in self.results.items() if _reads(r, path)]
        if everything and contexts:
            games = {c.game for c in contexts}
            contexts = [c for c in self.results if c.game in games]
        merged = SymbolIndex()
        for context in contexts:
            index = self.indexes.get(context)
            if index is None:
                result = self.results[context]
                index = SymbolIndex.build(
                    result.trees(self.files),
                    result.sources,
                    result.program,
                    result.checked,
                    result.constants,
                )
                self.indexes[context] = index
            merged.merge(index)
        return merged

    async def lookup(self, uri: str, position: types.Position, everything: bool = False):
        """The index and the key and item under the cursor (None if there is no name there)."""
        path, line, col = self.place(uri, position)
        contexts = contexts_for(path, self.files)
        if everything and contexts:
            contexts = game_contexts(contexts[0].game)
        await self.settle(contexts)
        index = self.index_for(path, everything)
        return index, index.at(os.path.abspath(path), line, col) or index.at(path, line, col)


def _reads(result: Analysis, path: str) -> bool:
    real = os.path.realpath(path)
    return any(os.path.realpath(source) == real for source in result.sources)


SERVER = MetroServer()


@SERVER.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: MetroServer, params: types.DidOpenTextDocumentParams) -> None:
    """Compile the opened file's game, then its expansions and variants."""
    ls.sent.pop(os.path.abspath(to_fs_path(params.text_document.uri)), None)  # shown once opened
    contexts = ls.text_changed(params.text_document.uri, params.text_document.text)
    ls.schedule(contexts, 0)
    if contexts:
        ls.schedule([c for c in game_contexts(contexts[0].game) if c not in contexts], 0.5)


@SERVER.feature(types.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: MetroServer, params: types.DidChangeTextDocumentParams) -> None:
    """Compile the changed file's game again (after a short pause in typing)."""
    document = ls.workspace.get_text_document(params.text_document.uri)
    ls.schedule(ls.text_changed(params.text_document.uri, document.source))


@SERVER.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: MetroServer, params: types.DidSaveTextDocumentParams) -> None:
    """Compile the saved file's game with each expansion and variant too."""
    contexts = contexts_for(to_fs_path(params.text_document.uri), ls.files)
    if contexts:
        ls.schedule(game_contexts(contexts[0].game), 0)


@SERVER.feature(types.TEXT_DOCUMENT_DID_CLOSE)
async def did_close(ls: MetroServer, params: types.DidCloseTextDocumentParams) -> None:
    """Read the closed file from the disk again."""
    ls.schedule(ls.text_changed(params.text_document.uri, None))


@SERVER.feature(types.TEXT_DOCUMENT_DEFINITION)
async def definition(ls: MetroServer, params: types.DefinitionParams):
    """Where the name under the cursor is declared (every version of an overridden one)."""
    index, found = await ls.lookup(params.text_document.uri, params.position)
    if found is None:
        return None
    return [ls.location(d.span) for d in index.definitions_of(found[0])] or None


@SERVER.feature(types.TEXT_DOCUMENT_REFERENCES)
async def references(ls: MetroServer, params: types.ReferenceParams):
    """Every place that names the thing under the cursor, in every file of its game."""
    index, found = await ls.lookup(params.text_document.uri, params.position, everything=True)
    if found is None:
        return None
    places = [r.span for r in index.references_to(found[0])]
    if params.context.include_declaration:
        places += [d.span for d in index.definitions_of(found[0])]
    return [ls.location(span) for span in _unique(places)]


def _unique(spans: list[Span]) -> list[Span]:
    seen: set[tuple] = set()
    out = []
    for span in sorted(spans, key=lambda s: (s.file, s.line, s.col)):
        key = (os.path.realpath(span.file), span.line, span.col)
        if key not in seen:
            seen.add(key)
            out.append(span)
    return out


@SERVER.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: MetroServer, params: types.HoverParams):
    """What the name under the cursor is: its declaration, type and comment (builtins: signature and doc)."""
    index, found = await ls.lookup(params.text_document.uri, params.position)
    if found is None:
        return None
    key, item = found
    text = _hover_text(index, key, item)
    if not text:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
        range=ls.range(item.span),
    )


def _hover_text(index: SymbolIndex, key: tuple, item: Definition | Reference) -> str:
    if key[0] == "builtin":
        builtin = BUILTINS.get(key[1])
        if builtin is None:
            return ""
        forms = "\n".join(f"{builtin.name}({form})" for form in builtin.args.split(" | "))
        return f"```metro\n{forms}\n```\n{builtin.doc} (builtin)"
    definitions = index.definitions_of(key)
    shown = definitions[-1] if definitions else None
    what = KINDS.get(key[0], key[0])
    lines = []
    if shown is not None:
        lines.append(f"```metro\n{shown.detail}\n```")
    value = index.values.get(key)
    # A computed constant's value, when not written so; an overridden one has one per patch.
    if value is not None and len(definitions) == 1 and not shown.detail.endswith(f"= {value}"):
        lines.append(f"= `{value}`")
    declared_type = index.types.get(key)
    if (
        isinstance(item, Reference)
        and item.type
        and key[0] in ("local", "state", "player field", "kind field", "const")
    ):
        lines.append(f"`{item.type}`")
    elif declared_type and key[0] != "value":
        lines.append(f"`{declared_type}`")
    lines.append(
        f"*{what}*" + (f" of `{declared_type}`" if key[0] == "value" and declared_type else "")
    )
    if len(definitions) > 1:
        lines.append(f"{len(definitions) - 1} override(s)")
    documented = [d.doc for d in definitions if d.doc]
    if documented:  # the newest version's comment, else the base's
        lines.append(documented[-1])
    return "\n\n".join(lines)


@SERVER.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["."]))
async def completion(ls: MetroServer, params: types.CompletionParams):
    """Names that fit here: after `x.` the fields of x's type, else every name in scope,
    the builtins and the keywords."""
    path, line, col = ls.place(params.text_document.uri, params.position)
    before = ls.lines(path)[line - 1][: col - 1] if line - 1 < len(ls.lines(path)) else ""
    index = ls.index_for(path)
    dot = _receiver(before)
    if dot is not None:
        return types.CompletionList(is_incomplete=False, items=_field_items(index, path, line, dot))
    named = NAMING_STRING.search(before)
    if named is not None:  # `remove draw "…`: the names of the game's drawings
        start = types.Position(params.position.line, params.position.character - len(named[2]))
        return types.CompletionList(
            is_incomplete=False, items=_string_names(index, named[1], start, params.position)
        )
    items: dict[str, types.CompletionItem] = {}
    for key, defs in index.definitions.items():
        if key[0] not in COMPLETION_KINDS or key[0] in ("kind field", "player field"):
            continue
        if key[0] == "local":
            continue
        definition = defs[-1]
        items.setdefault(
            definition.name, _item(definition.name, key[0], definition.detail, definition.doc)
        )
    for definition in index.locals_in(os.path.abspath(path), line):
        items[definition.name] = _item(definition.name, "local", definition.detail, "")
    for name, builtin in BUILTINS.items():
        items.setdefault(
            name,
            types.CompletionItem(
                label=name,
                kind=types.CompletionItemKind.Function,
                detail=f"{name}({builtin.args.split(' | ')[0]})",
                documentation=builtin.doc,
            ),
        )
    for word in KEYWORDS:
        items.setdefault(
            word, types.CompletionItem(label=word, kind=types.CompletionItemKind.Keyword)
        )
    return types.CompletionList(
        is_incomplete=False, items=sorted(items.values(), key=lambda i: i.label)
    )


def _string_names(
    index: SymbolIndex, what: str, start: types.Position, end: types.Position
) -> list[types.CompletionItem]:
    """The names of the game's declarations of one sort that are named by a string."""
    items = []
    for key, defs in index.definitions.items():
        if key[0] == what:
            item = _item(defs[-1].name, what, defs[-1].detail, defs[-1].doc)
            item.kind = types.CompletionItemKind.Value
            item.text_edit = types.TextEdit(types.Range(start, end), defs[-1].name)
            items.append(item)
    return sorted(items, key=lambda i: i.label)


def _item(name: str, what: str, detail: str, doc: str) -> types.CompletionItem:
    return types.CompletionItem(
        label=name,
        kind=COMPLETION_KINDS.get(what, types.CompletionItemKind.Text),
        detail=detail or KINDS.get(what, what),
        documentation=doc or None,
    )


def _receiver(before: str) -> str | None:
    """The name before a `.` being completed (`p.` or `p.mo`), if the cursor is after one."""
    stripped = before.rstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
    if not stripped.endswith("."):
        return None
    word = ""
    for char in reversed(stripped[:-1]):
        if not (char.isalnum() or char in "_]["):
            break
        word = char + word
    return word or None


def _field_items(
    index: SymbolIndex, path: str, line: int, receiver: str
) -> list[types.CompletionItem]:
    """The fields of the receiver's type: a player's fields, a map element's, or both if unknown."""
    base = receiver.split("[")[0]
    type_words = ""
    for reference in index.references:
        if (
            reference.span.file == os.path.abspath(path)
            and reference.type
            and _named(reference, index) == base
        ):
            type_words = reference.type
    if base == "me":
        type_words = "player"
    items = []
    for key, defs in index.definitions.items():
        if key[0] == "player field" and type_words in ("", "player", "player?"):
            items.append(_item(key[1], "player field", defs[-1].detail, defs[-1].doc))
        elif key[0] == "kind field" and type_words in ("", key[1], f"{key[1]}?"):
            items.append(_item(key[2], "kind field", defs[-1].detail, defs[-1].doc))
    return sorted(items, key=lambda i: i.label)


def _named(reference: Reference, index: SymbolIndex) -> str:
    definitions = index.definitions_of(reference.key)
    return definitions[-1].name if definitions else ""


@SERVER.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(ls: MetroServer, params: types.DocumentSymbolParams):
    """The outline of a file: its declarations and what they declare inside."""
    path = to_fs_path(params.text_document.uri)
    await ls.settle(contexts_for(path, ls.files))
    index = ls.index_for(path)
    outline = index.outlines.get(os.path.abspath(path)) or index.outlines.get(path) or []
    return [_symbol(ls, entry) for entry in outline]


def _symbol(ls: MetroServer, entry: Outline) -> types.DocumentSymbol:
    return types.DocumentSymbol(
        name=entry.name or "?",
        kind=SYMBOL_KINDS.get(entry.kind, types.SymbolKind.Variable),
        detail=entry.detail,
        range=ls.range(entry.whole),
        selection_range=ls.range(entry.span),
        children=[_symbol(ls, child) for child in entry.children],
    )


@SERVER.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
async def prepare_rename(ls: MetroServer, params: types.PrepareRenameParams):
    """The name under the cursor, if it is a declaration's name that can be renamed."""
    _, found = await ls.lookup(params.text_document.uri, params.position)
    if found is None or found[0][0] not in RENAMEABLE:
        return None
    return ls.range(found[1].span)


@SERVER.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
async def rename(ls: MetroServer, params: types.RenameParams):
    """Rename a declaration and every use of it in every file of its game."""
    new = params.new_name
    if not valid_identifier(new) or new in RESERVED_WORDS or new in KEYWORDS:
        raise ValueError(
            f"'{new}' cannot be a name (a name is letters, digits and _, not a keyword)"
        )
    index, found = await ls.lookup(params.text_document.uri, params.position, everything=True)
    if found is None or found[0][0] not in RENAMEABLE:
        return None
    key = found[0]
    spans = [r.span for r in index.references_to(key)] + [d.span for d in index.definitions_of(key)]
    changes: dict[str, list[types.TextEdit]] = {}
    for span in _unique(spans):
        lines = ls.lines(span.file)
        written = (
            lines[span.line - 1][span.col - 1 : span.end_col - 1] if span.line <= len(lines) else ""
        )
        text = f'"{new}"' if written.startswith('"') else new
        uri = from_fs_path(os.path.abspath(span.file))
        changes.setdefault(uri, []).append(types.TextEdit(range=ls.range(span), new_text=text))
    return types.WorkspaceEdit(changes=changes)


@SERVER.feature(types.TEXT_DOCUMENT_FORMATTING)
async def formatting(ls: MetroServer, params: types.DocumentFormattingParams):
    """The document in the canonical layout of `metro fmt` (nothing if it does not parse)."""
    document = ls.workspace.get_text_document(params.text_document.uri)
    if formatting_off(document.source):
        return []
    try:
        formatted = format_text(document.source, to_fs_path(params.text_document.uri))
    except CompileError:
        return None
    if formatted == document.source:
        return []
    lines = document.lines
    end = types.Position(line=len(lines), character=0)
    return [types.TextEdit(range=types.Range(types.Position(0, 0), end), new_text=formatted)]


def serve() -> None:
    """Run the language server over standard input and output until the client exits."""
    log_to_stderr()
    SERVER.start_io(stdin=FramedInput(sys.stdin.buffer))
