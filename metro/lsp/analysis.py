"""Compiling a game as an editor sees it: unsaved texts, trees reused, stopped when stale.

`EditorFiles` gives `resolve` the editor's texts of open files and reuses the syntax tree of
every text it parsed before, so a keystroke re-parses only the file that changed.
`analyse` runs the compiler's stages (the same as `metro check`) and keeps what each
reached — the merged program and the checker's findings stay usable for navigation even
when a later stage reports errors.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from compiler.checked import CheckedProgram
from compiler.driver import STAGES, CompileContext
from compiler.program import Program
from compiler.resolve import SourceFiles
from dsl import ast
from dsl.diagnostics import CompileError, Diagnostic
from dsl.memory import paused_gc
from dsl.parser import read_source
from dsl.source import SourceFile
from metro.lsp.contexts import Context

# Syntax trees kept for reuse, bounded by the size of the texts they were parsed from: a
# tree takes about 24 bytes of memory per byte of its text (46 MiB for a 1.9 MB file), so
# 4 MiB of text is about 100 MiB of trees, and every shipped game (at most 0.3 MB of rule
# files) fits many times over. The newest tree is kept whatever its size.
MAX_CACHED_TEXT_BYTES = 4 * 1024 * 1024


class EditorFiles(SourceFiles):
    """Rule files as the editor has them: open documents' texts first, then the disk."""

    def __init__(self):
        self._open: dict[str, str] = {}
        self._trees: OrderedDict[tuple[str, str], ast.File] = OrderedDict()
        self._cached_bytes = 0  # the size of the texts of the cached trees
        self._lock = threading.Lock()

    def set_text(self, path: str, text: str | None) -> None:
        """The editor's text of a file (None: closed, read it from the disk again)."""
        with self._lock:
            if text is None:
                self._open.pop(os.path.realpath(path), None)
            else:
                self._open[os.path.realpath(path)] = text

    def is_open(self, path: str) -> bool:
        """Whether the editor holds this file's text."""
        return os.path.realpath(path) in self._open

    def text(self, path: str) -> str:
        """The editor's text of a file, else the file on disk (CompileError if unreadable)."""
        with self._lock:
            found = self._open.get(os.path.realpath(path))
        return found if found is not None else read_source(path)

    def parse(self, text: str, path: str) -> ast.File:
        """The syntax tree of a text, parsed once for each text it has had."""
        key = (path, text)
        with self._lock:
            tree = self._trees.get(key)
            if tree is not None:
                self._trees.move_to_end(key)
                return tree
        tree = super().parse(text, path)
        with self._lock:
            if key not in self._trees:
                self._cached_bytes += len(text.encode("utf-8"))
            self._trees[key] = tree
            while self._cached_bytes > MAX_CACHED_TEXT_BYTES and len(self._trees) > 1:
                (_, dropped), _ = self._trees.popitem(last=False)
                self._cached_bytes -= len(dropped.encode("utf-8"))
        return tree

    def cached_text_bytes(self) -> int:
        """The size of the texts whose trees are kept."""
        with self._lock:
            return self._cached_bytes


@dataclass
class Analysis:
    """What one compilation found: diagnostics, and what the stages built before stopping."""

    context: Context
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: dict[str, SourceFile] = field(default_factory=dict)
    program: Program | None = None
    checked: CheckedProgram | None = None
    constants: dict[str, object] = field(default_factory=dict)  # the values computed so far
    finished: bool = True  # False when it stopped because a newer text came

    def trees(self, files: EditorFiles) -> dict[str, ast.File]:
        """The syntax tree of every file the compilation read (from the parse cache)."""
        out = {}
        for path, source in self.sources.items():
            try:
                out[path] = files.parse(source.text, path)
            except CompileError:
                continue
        return out


class Compilation:
    """One compilation run stage by stage, so that its first findings can be shown early."""

    def __init__(self, context: Context, files: EditorFiles):
        self.ctx = CompileContext(
            context.game, context.expansions, context.variants, context.map_path, files=files
        )
        self.result = Analysis(context)
        self.next_stage = 0
        self.done = False
        self.raised: CompileError | None = None  # a stage that stopped by raising (resolve)

    def run(self, stop_after: str | None = None, stale: Callable[[], bool] = lambda: False):
        """Run the stages still to run, through `stop_after` (all if None); give up once `stale()`."""
        ctx, result = self.ctx, self.result
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 10_000))  # as compiler.driver.run_stages
        try:
            with paused_gc():
                while not self.done and self.next_stage < len(STAGES):
                    if stale():
                        result.finished = False
                        return result
                    name, stage = STAGES[self.next_stage]
                    self.next_stage += 1
                    try:
                        stage(ctx)
                    except CompileError as error:
                        self.raised = error
                        self.done = True
                        break
                    if ctx.diags.has_errors:
                        self.done = True
                    if self.done or name == stop_after:
                        break
        finally:
            sys.setrecursionlimit(old_limit)
        self.done = self.done or self.next_stage == len(STAGES)
        result.program, result.checked = ctx.program, ctx.checked
        result.constants = dict(ctx.evaluator.consts) if ctx.evaluator else {}
        raised = self.raised
        result.diagnostics = list(raised.diagnostics if raised else ctx.diags.items)
        result.sources = {**(raised.sources if raised else {}), **ctx.sources}
        return result


def analyse(context: Context, files: EditorFiles) -> Analysis:
    """Compile `context` as `metro check` does, with the editor's texts."""
    return Compilation(context, files).run()
