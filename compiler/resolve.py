"""Pass `resolve`: read the game, its parts, map, expansions and variants into one Program."""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass, replace

from compiler.game_files import (
    GAME_FILE_NAMES,
    available_patches,
    find_game_file,
    find_patch_file,
)
from compiler.libraries import LIBRARY_FILE, LIBRARY_ROOT, available_libraries, valid_library_name
from compiler.program import PatchRecord, Program, Versions
from dsl import ast
from dsl.diagnostics import (
    DUPLICATE,
    PATCH,
    PATH,
    RESOLVE,
    STRUCTURE,
    CompileError,
    Diagnostics,
    Related,
    did_you_mean,
)
from dsl.parser import RULE_SUFFIX, parse, read_source
from dsl.source import SourceFile, Span

# Declarations a game has at most one of (a patch replaces them with `override`): their attribute.
WHOLE_GAME_DECLS = {
    ast.FlowDecl: "flow",
    ast.ScoreDecl: "score",
    ast.RankDecl: "rank",
    ast.BreakdownDecl: "breakdown",
    ast.DisplayDecl: "display",
    ast.EstimateDecl: "estimate",
}


def patch_title(path: str) -> tuple[str, list[str]] | None:
    """(name, names it requires) of a variant/expansion file, or None if it is not one."""
    try:
        tree, _ = load_file(path)
    except CompileError:
        return None
    if not isinstance(tree, ast.PatchFile):
        return None
    required = [d.other for d in tree.decls if isinstance(d, ast.CombinationDecl) and d.required]
    return tree.name, required


def expansion_named(game_dir: str, title: str) -> str | None:
    """The expansion file of a game whose declared name is `title`."""
    for name in available_patches(game_dir, "expansions"):
        path = find_patch_file(game_dir, name, "expansions")
        found = patch_title(path)
        if found is not None and found[0] == title:
            return path
    return None


def _fail(message: str, span: Span, *notes: str, sources=None) -> None:
    diags = Diagnostics()
    diags.error(RESOLVE, message, span, *notes)
    diags.raise_if_errors(sources or {})


class SourceFiles:
    """Where `resolve` reads rule files: from disk. An editor passes a subclass that gives
    its unsaved texts instead, and reuses the trees of texts it parsed before."""

    def text(self, path: str) -> str:
        """The text of a rule file (CompileError if it cannot be read)."""
        return read_source(path)

    def parse(self, text: str, path: str) -> ast.File:
        """The syntax tree of a rule file's text (CompileError on a syntax error)."""
        return parse(text, path)


DISK = SourceFiles()


def load_file(
    path: str, program: Program | None = None, files: SourceFiles = DISK
) -> tuple[ast.File, SourceFile]:
    """Read and parse one file (CompileError on failure)."""
    text = files.text(path)
    source = SourceFile(path, text)
    if program is not None:
        program.sources[path] = source
    try:
        tree = files.parse(text, path)
    except CompileError as error:
        error.sources.setdefault(path, source)
        raise
    return tree, source


def resolve(
    game_path: str,
    expansions: list[str] = (),
    variants: list[str] = (),
    map_path: str | None = None,
    files: SourceFiles = DISK,
    library_root: str | None = None,
) -> Program:
    """Build the merged Program, raising CompileError with every resolution finding."""
    game_file = find_game_file(game_path)
    tree, source = _load(game_file, None, files)
    if not isinstance(tree, ast.GameFile):
        hint = (
            f' (a library: games use it by name, `use library "{tree.name}"`)'
            if isinstance(tree, ast.LibraryFile)
            else ' (it should start with `game "Name" {`)'
        )
        _fail(f"this is not a game file{hint}", tree.span, sources={game_file: source})
    program = Program(tree.name, game_file)
    program.sources[game_file] = source
    diags = Diagnostics()
    game_dir = os.path.dirname(game_file)
    merger = _Merger(
        program, diags, os.path.realpath(game_dir or "."), files, library_root or LIBRARY_ROOT
    )
    merger.add_all(tree.decls, game_file, patching=False, seen={os.path.realpath(game_file)})
    diags.raise_if_errors(program.sources)
    for name in expansions:
        merger.apply_patch(find_patch_file(game_dir, name, "expansions"), "expansion")
    for name in variants:
        merger.apply_patch(find_patch_file(game_dir, name, "variants"), "variant")
    merger.check_combinations()
    diags.raise_if_errors(program.sources)
    chosen: list[str] = []
    if program.default_map is not None:
        decl = program.default_map
        spans = decl.path_spans or (decl.span,) * len(decl.paths)
        found = [
            merger.rule_path(path, decl.span.file, span, "map file")
            for path, span in zip(decl.paths, spans, strict=True)
        ]
        diags.raise_if_errors(program.sources)
        chosen = [path for path in found if path is not None]
    trees = {path: _load(path, program, files)[0] for path in chosen}
    if map_path is not None:  # the user's own path: it may be anywhere
        trees[map_path] = _load(map_path, program, files)[0]
        chosen = _with_map(chosen, map_path, trees)
    for path in chosen:
        map_tree = trees[path]
        if not isinstance(map_tree, ast.MapFile):
            _fail(
                'this is not a map file (`map "Name" for "Game" {`)',
                map_tree.span,
                sources=program.sources,
            )
        if map_tree.for_library:
            diags.error(
                RESOLVE,
                f"map '{map_tree.name}' is data of library '{map_tree.game}'; "
                f'a game gets it with `use library "{map_tree.game}"`',
                map_tree.span,
            )
        elif map_tree.game != program.game_name:
            diags.error(
                RESOLVE,
                f"map '{map_tree.name}' is for '{map_tree.game}', not '{program.game_name}'",
                map_tree.span,
            )
        program.map_files.append(map_tree)
        program.map_paths.append(path)
    diags.raise_if_errors(program.sources)
    return program


def _with_map(defaults: list[str], map_path: str, trees: dict) -> list[str]:
    """The map files to read when the user names one: it takes the place of the default map
    files holding elements of its kinds (a city's board replaces the board); default files of
    other kinds only (the game's cards) stay."""
    kinds = _kinds(trees[map_path])
    chosen: list[str] = []
    for path in defaults:
        own = _kinds(trees[path])
        if kinds and own and kinds.isdisjoint(own):
            chosen.append(path)
        elif map_path not in chosen:
            chosen.append(map_path)
    return chosen if map_path in chosen else [*chosen, map_path]


def _kinds(tree) -> set[str]:
    """The kinds of element a parsed file holds (none unless it is a map file)."""
    return {item.kind for item in tree.items} if isinstance(tree, ast.MapFile) else set()


def _load(path: str, program: Program | None, files: SourceFiles):
    if program is not None and path in program.sources:
        return files.parse(program.sources[path].text, path), program.sources[path]
    return load_file(path, program, files)


@dataclass(frozen=True)
class _Scope:
    """Where the declarations being added come from: the folder their paths are confined to,
    and the library they belong to (None for the game, its parts and its patches)."""

    root: str
    library: str | None = None

    @property
    def folder_words(self) -> str:
        """How a diagnostic names the folder."""
        return "the game's directory" if self.library is None else "the library's folder"


# What a library may declare: components and what reads them, never rules of play.
LIBRARY_DECLS = (
    ast.EnumDecl,
    ast.ConstDecl,
    ast.SchemaDecl,
    ast.CheckDecl,
    ast.FunctionDecl,
    ast.UseDecl,
    ast.UseLibraryDecl,
)


class _Merger:
    """Adds declarations to the program with base or patch semantics."""

    def __init__(
        self, program: Program, diags: Diagnostics, root: str, files: SourceFiles, library_root: str
    ):
        self.program = program
        self.diags = diags
        self.files = files
        self.root = root  # real path of the base game's directory: rule files read only below it
        self.library_root = library_root
        self.patching = False
        self.combinations: list = []

    def apply_patch(self, path: str, expected: str) -> None:
        tree, _ = _load(path, self.program, self.files)
        if not isinstance(tree, ast.PatchFile):
            self.diags.error(RESOLVE, "this is not a variant or expansion file", tree.span)
            return
        if tree.game != self.program.game_name:
            self.diags.error(
                RESOLVE,
                f"{tree.kind} '{tree.name}' is for '{tree.game}', not '{self.program.game_name}'",
                tree.span,
            )
            return
        self.program.applied.append(tree.name)
        self.combinations.extend(
            (tree, d) for d in tree.decls if isinstance(d, ast.CombinationDecl)
        )
        self.add_all(tree.decls, path, patching=True, seen={os.path.realpath(path)})

    def check_combinations(self) -> None:
        """Every `requires` is applied and no `excludes` is, whatever the order given."""
        applied = set(self.program.applied)
        for tree, decl in self.combinations:
            if decl.required and decl.other not in applied:
                self.diags.error(
                    PATCH,
                    f"{tree.kind} '{tree.name}' needs '{decl.other}' "
                    f"(add it with --with or --variant)",
                    decl.span,
                )
            if not decl.required and decl.other in applied:
                self.diags.error(
                    PATCH,
                    f"{tree.kind} '{tree.name}' cannot be combined with '{decl.other}'",
                    decl.span,
                )

    def add_all(
        self, decls, path: str, patching: bool, seen: set[str], scope: _Scope | None = None
    ) -> None:
        scope = scope or _Scope(self.root)
        for decl in decls:
            self.patching = patching  # a library used on the way added its declarations alike
            if scope.library is not None and not isinstance(decl, LIBRARY_DECLS):
                self.diags.error(
                    STRUCTURE,
                    "a library declares components (enums, constants, a map schema, checks, "
                    "functions and the files it uses); this belongs in a game",
                    decl.span,
                )
            elif isinstance(decl, ast.UseDecl):
                self._use(decl, path, patching, seen, scope)
            elif isinstance(decl, ast.UseLibraryDecl):
                self._use_library(decl, patching)
            elif isinstance(decl, ast.CombinationDecl):
                if not patching:
                    self.diags.error(
                        STRUCTURE,
                        "`requires`/`excludes` belong in a variant or expansion",
                        decl.span,
                    )
            elif isinstance(decl, ast.OverrideDecl):
                self._override(decl, path)
            elif isinstance(decl, ast.RemoveDecl):
                self._remove(decl, path)
            elif isinstance(decl, ast.RelabelKindDecl):
                self._relabel(decl)
            else:
                self._add(decl, path, patching)

    def rule_path(
        self, written: str, base_file: str, span: Span, what: str, scope: _Scope | None = None
    ) -> str | None:
        """The file a path written in a rule file names, or None (reported at `span`) if unreadable."""
        scope = scope or _Scope(self.root)
        if os.path.isabs(written):
            self.diags.error(
                PATH,
                f"'{written}' is an absolute path; a rule file names files of its "
                f"own {'game' if scope.library is None else 'library'}, relative to itself",
                span,
            )
            return None
        target = os.path.join(os.path.dirname(base_file), written)
        real = os.path.realpath(target)
        # Real paths: a `..` or a symbolic link out of the folder is refused alike.
        if os.path.commonpath([scope.root, real]) != scope.root:
            self.diags.error(PATH, f"'{written}' leads outside {scope.folder_words}", span)
            return None
        if not written.endswith(RULE_SUFFIX):
            self.diags.error(PATH, f"'{written}' is not a {RULE_SUFFIX} file", span)
            return None
        try:
            mode = os.stat(real).st_mode
        except (OSError, ValueError):
            self.diags.error(RESOLVE, f"cannot find {what} '{written}'", span)
            return None
        if not stat.S_ISREG(mode):
            self.diags.error(PATH, f"'{written}' is not a regular file", span)
            return None
        return target

    def _use(
        self, decl: ast.UseDecl, path: str, patching: bool, seen: set[str], scope: _Scope
    ) -> None:
        where = decl.path_span or decl.span  # the path string: the thing that is wrong
        target = self.rule_path(decl.path, path, where, "used file", scope)
        if target is None:
            return
        key = os.path.realpath(target)
        if key in seen:
            self.diags.error(RESOLVE, f"'{decl.path}' is used twice (or uses itself)", where)
            return
        seen.add(key)
        tree, _ = _load(target, self.program, self.files)
        if scope.library is not None:
            self._use_in_library(tree, decl.path, target, where, patching, seen, scope)
            return
        if isinstance(tree, ast.LibraryFile):
            self.diags.error(
                RESOLVE,
                f"'{decl.path}' is a library file; use the library by name: "
                f'`use library "{tree.name}"`',
                where,
            )
            return
        if not isinstance(tree, ast.PartFile):
            self.diags.error(
                RESOLVE,
                f'\'{decl.path}\' is not a part file (`part "Name" for "Game" {{`)',
                where,
            )
            return
        if tree.game != self.program.game_name:
            self.diags.error(RESOLVE, f"part '{tree.name}' is for '{tree.game}'", tree.span)
            return
        self.add_all(tree.decls, target, patching, seen)

    def _use_in_library(
        self, tree, written: str, target: str, where: Span, patching, seen, scope: _Scope
    ) -> None:
        """A library uses more of its own declarations, or its data (always loaded)."""
        if isinstance(tree, ast.LibraryFile) and tree.name == scope.library:
            self.add_all(tree.decls, target, patching, seen, scope)
        elif isinstance(tree, ast.MapFile) and tree.for_library and tree.game == scope.library:
            self.program.map_files.append(tree)
            self.program.library_data.append(target)
        else:
            self.diags.error(
                RESOLVE,
                f"'{written}' is neither a file of library '{scope.library}' "
                f'(`library "{scope.library}" {{`) nor its data '
                f'(`map "Name" for library "{scope.library}" {{`)',
                where,
            )

    def _use_library(self, decl: ast.UseLibraryDecl, patching: bool) -> None:
        """`use library "name"`: the library's declarations and data, once per program."""
        name = decl.name
        where = decl.name_span or decl.span
        if not valid_library_name(name):
            self.diags.error(
                PATH,
                f"'{name}' is not a library name: a library is named by one lower-case word "
                "(letters, digits and _), never by a path",
                where,
            )
            return
        self._record("uses", "library", name, decl.span)
        if name in self.program.libraries:
            return  # the game, a part or another patch uses it already
        root = os.path.realpath(self.library_root)
        folder = os.path.join(root, name)
        entry = os.path.join(folder, LIBRARY_FILE)
        if not os.path.isfile(entry):
            known = available_libraries(self.library_root)
            close = difflib.get_close_matches(name, known, n=1)
            self.diags.error(
                RESOLVE,
                f"unknown library '{name}'" + (f" (did you mean '{close[0]}'?)" if close else ""),
                where,
                f"known libraries: {', '.join(known) or 'none'}",
                f"a library is a folder of {self.library_root} holding {LIBRARY_FILE}",
            )
            return
        # The library's folder itself must not lead out of the library root (a symbolic link).
        scope = _Scope(os.path.realpath(folder), name)
        if os.path.commonpath([root, scope.root]) != root:
            self.diags.error(PATH, f"library '{name}' leads outside the library folder", where)
            return
        target = self.rule_path(LIBRARY_FILE, entry, where, "library", scope)
        if target is None:
            return
        tree, _ = _load(target, self.program, self.files)
        if not isinstance(tree, ast.LibraryFile) or tree.name != name:
            self.diags.error(
                RESOLVE,
                f'{target} should start with `library "{name}" {{`',
                tree.span,
            )
            return
        self.program.libraries[name] = target
        self.add_all(tree.decls, target, patching, {os.path.realpath(target)}, scope)

    def _record(self, verb: str, what: str, name: str, span: Span) -> None:
        if self.patching:
            self.program.patches.append(PatchRecord(span.file, verb, what, name, span.line))

    def _table(self, decl: ast.Decl):
        p = self.program
        if isinstance(decl, ast.ConstDecl):
            return p.consts, "const"
        if isinstance(decl, ast.FunctionDecl):
            return p.functions, "function"
        if isinstance(decl, ast.ProcedureDecl):
            return p.procedures, "procedure"
        if isinstance(decl, ast.ActionDecl):
            return p.actions, "action"
        return None, None

    def _add(self, decl: ast.Decl, path: str, patching: bool) -> None:
        p = self.program
        table, what = self._table(decl)
        if table is not None:
            if decl.name in table:
                hint = " (use `override` to replace it)" if patching else ""
                self._twice(
                    f"{what} '{decl.name}' is already declared{hint}",
                    decl.span,
                    table[decl.name].versions[0].span,
                )
                return
            table[decl.name] = Versions([decl])
            self._record("adds", what, decl.name, decl.span)
            return
        if isinstance(decl, ast.PlayersDecl):
            self._single("players", decl, patching)
        elif isinstance(decl, ast.DefaultMapDecl):
            self._single("default_map", decl, patching)
        elif isinstance(decl, ast.DefaultBotDecl):
            p.default_bot = decl.bot
        elif isinstance(decl, ast.LevelDecl):
            self._add_named(p.levels, "level", decl)
        elif isinstance(decl, ast.MaxDecisionsDecl):
            p.max_decisions = decl.count
        elif isinstance(decl, ast.EnumDecl):
            if decl.name in p.enums:
                self._twice(
                    f"enum '{decl.name}' is already declared", decl.span, p.enums[decl.name].span
                )
            else:
                p.enums[decl.name] = decl
                self._words(decl)
                self._record("adds", "enum", decl.name, decl.span)
        elif isinstance(decl, ast.GroupDecl):
            if decl.name in p.groups:
                self._twice(
                    f"action group '{decl.name}' is already declared",
                    decl.span,
                    p.group_decls[decl.name].span,
                )
            else:
                p.groups[decl.name] = list(decl.actions)
                p.group_decls[decl.name] = decl
                self._record("adds", "action group", decl.name, decl.span)
        elif isinstance(decl, ast.ExtendGroupDecl):
            if decl.name not in p.groups:
                self.diags.error(
                    PATCH,
                    f"there is no action group '{decl.name}' to extend",
                    decl.span,
                    *did_you_mean(decl.name, p.groups),
                )
            else:
                p.groups[decl.name].extend(a for a in decl.actions if a not in p.groups[decl.name])
                self._record("extends", "action group", decl.name, decl.span)
        elif isinstance(decl, ast.ExtendEnumDecl):
            if decl.name not in p.enums:
                self.diags.error(
                    PATCH,
                    f"there is no enum '{decl.name}' to extend",
                    decl.span,
                    *did_you_mean(decl.name, p.enums),
                )
            else:
                p.enum_extra.setdefault(decl.name, []).extend(decl.values)
                self._words(decl)
                self._record("extends", "enum", decl.name, decl.span)
        elif isinstance(decl, ast.SchemaDecl):
            for kind in decl.kinds:
                if kind.name in p.kinds:
                    self._twice(
                        f"map kind '{kind.name}' is already declared",
                        kind.span,
                        p.kinds[kind.name].span,
                    )
                else:
                    p.kinds[kind.name] = kind
                    self._record("adds", "map kind", kind.name, kind.span)
            for check in decl.checks:
                self._add_named(p.checks, "check", check)
            for draw in decl.draws:
                self._add_named(p.draws, "draw", draw)
                p.schema_draws.add(draw.name)
        elif isinstance(decl, ast.CheckDecl):
            self._add_named(p.checks, "check", decl)
        elif isinstance(decl, ast.DrawDecl):
            self._add_named(p.draws, "draw", decl)
        elif isinstance(decl, ast.StateDecl):
            fields = p.per_player if decl.per_player else p.state
            for spec in decl.fields:
                if spec.name in fields:
                    self._twice(
                        f"state field '{spec.name}' is already declared",
                        spec.span,
                        fields[spec.name].span,
                    )
                else:
                    fields[spec.name] = spec
                    self._record(
                        "adds",
                        "player field" if decl.per_player else "state field",
                        spec.name,
                        spec.span,
                    )
        elif type(decl) in WHOLE_GAME_DECLS:
            attr = WHOLE_GAME_DECLS[type(decl)]
            if getattr(p, attr) is not None:
                self._twice(
                    f"the {attr} is already declared (use `override {attr}`)",
                    decl.span,
                    getattr(p, attr).versions[0].span,
                )
            else:
                setattr(p, attr, Versions([decl]))
                self._record("adds", attr, attr, decl.span)
        elif isinstance(decl, ast.InvariantDecl):
            self._add_named(p.invariants, "invariant", decl)
        elif isinstance(decl, ast.BotDecl):
            self._add_named(p.bots, "bot", decl)
        elif isinstance(decl, ast.MetricDecl):
            self._add_named(p.metrics, "metric", decl)
        elif isinstance(decl, ast.ScenarioDecl):
            self._add_named(p.scenarios, "scenario", decl)
        else:
            self.diags.error(STRUCTURE, "this declaration is not allowed here", decl.span)

    def _twice(self, message: str, span: Span, first: Span) -> None:
        """A name declared again: the error at the second declaration, naming the first."""
        self.diags.error(DUPLICATE, message, span, related=(Related("first declared", first),))

    def _words(self, decl: ast.EnumDecl | ast.ExtendEnumDecl) -> None:
        """Record how the enum's values read where the declaration says (`red "bright red"`)."""
        words = self.program.enum_words.setdefault(decl.name, {})
        for value, word in zip(decl.values, decl.words, strict=False):
            if word is not None:
                words[value] = word

    def _add_named(self, table: dict, what: str, decl) -> None:
        if decl.name in table:
            self._twice(
                f"{what} '{decl.name}' is already declared", decl.span, table[decl.name].span
            )
        else:
            table[decl.name] = decl
            self._record("adds", what, decl.name, decl.span)

    def _single(self, attr: str, decl: ast.Decl, patching: bool) -> None:
        if getattr(self.program, attr) is not None:
            self._twice(
                f"'{attr.replace('_', ' ')}' is declared twice (use `override` in a variant)",
                decl.span,
                getattr(self.program, attr).span,
            )
        else:
            setattr(self.program, attr, decl)

    def _override(self, wrapper: ast.OverrideDecl, path: str) -> None:
        decl = wrapper.decl
        p = self.program
        table, what = self._table(decl)
        if table is not None:
            if decl.name not in table:
                self.diags.error(
                    PATCH,
                    f"`override` names no existing {what} '{decl.name}'",
                    wrapper.span,
                    *did_you_mean(decl.name, table),
                )
                return
            table[decl.name].versions.append(decl)
            self._record("replaces", what, decl.name, wrapper.span)
            return
        if type(decl) in WHOLE_GAME_DECLS:
            attr = WHOLE_GAME_DECLS[type(decl)]
            current = getattr(p, attr)
            if current is None:
                self.diags.error(PATCH, f"`override` names no existing {attr}", wrapper.span)
            else:
                current.versions.append(decl)
                self._record("replaces", attr, attr, wrapper.span)
        elif isinstance(decl, ast.PlayersDecl):
            p.players = decl
            self._record("replaces", "player count", f"{decl.lo}..{decl.hi}", wrapper.span)
        elif isinstance(decl, ast.DefaultMapDecl):
            p.default_map = decl
            self._record("replaces", "data files with", ", ".join(decl.paths), wrapper.span)
        elif isinstance(decl, ast.DefaultBotDecl):
            p.default_bot = decl.bot
        elif isinstance(decl, ast.LevelDecl):
            if decl.name not in p.levels:
                self.diags.error(
                    PATCH,
                    f"`override` names no existing level '{decl.name}'",
                    wrapper.span,
                    *did_you_mean(decl.name, p.levels),
                )
            else:
                p.levels[decl.name] = decl
                self._record("replaces", "level", decl.name, wrapper.span)
        elif isinstance(decl, ast.MaxDecisionsDecl):
            p.max_decisions = decl.count
        elif isinstance(decl, ast.StateDecl):
            fields = p.per_player if decl.per_player else p.state
            for spec in decl.fields:
                if spec.name not in fields:
                    self.diags.error(
                        PATCH,
                        f"`override` names no existing state field '{spec.name}'",
                        spec.span,
                        *did_you_mean(spec.name, fields),
                    )
                else:
                    fields[spec.name] = spec
                    self._record("replaces", "state field", spec.name, spec.span)
        elif isinstance(
            decl,
            ast.InvariantDecl
            | ast.ScenarioDecl
            | ast.CheckDecl
            | ast.BotDecl
            | ast.DrawDecl
            | ast.MetricDecl,
        ):
            table = {
                ast.InvariantDecl: p.invariants,
                ast.ScenarioDecl: p.scenarios,
                ast.CheckDecl: p.checks,
                ast.BotDecl: p.bots,
                ast.DrawDecl: p.draws,
                ast.MetricDecl: p.metrics,
            }[type(decl)]
            if decl.name not in table:
                self.diags.error(
                    PATCH,
                    f"`override` names nothing called '{decl.name}'",
                    wrapper.span,
                    *did_you_mean(decl.name, table),
                )
            else:
                table[decl.name] = decl
                self._record(
                    "replaces",
                    type(decl).__name__.removesuffix("Decl").lower(),
                    decl.name,
                    wrapper.span,
                )
        else:
            self.diags.error(PATCH, "this declaration cannot be overridden", wrapper.span)

    def _relabel(self, decl: ast.RelabelKindDecl) -> None:
        """`override kind k label "…"`: how a kind declared elsewhere (a library's) reads here."""
        kind = self.program.kinds.get(decl.name)
        if kind is None:
            self.diags.error(
                PATCH, f"`override` names no existing map kind '{decl.name}'", decl.span
            )
            return
        self.program.kinds[decl.name] = replace(kind, label=decl.label)
        self._record("replaces", "label of map kind", decl.name, decl.span)

    def _remove(self, decl: ast.RemoveDecl, path: str) -> None:
        p = self.program
        table = {
            "action": p.actions,
            "function": p.functions,
            "procedure": p.procedures,
            "const": p.consts,
            "scenario": p.scenarios,
            "invariant": p.invariants,
            "check": p.checks,
            "draw": p.draws,
            "metric": p.metrics,
        }[decl.what]
        if decl.name not in table:
            self.diags.error(
                PATCH,
                f"`remove` names no existing {decl.what} '{decl.name}'",
                decl.span,
                *did_you_mean(decl.name, table),
            )
            return
        del table[decl.name]
        self._record("removes", decl.what, decl.name, decl.span)


# GAME_FILE_NAMES and find_game_file live in compiler/game_files.py (light to import).
__all__ = [
    "DISK",
    "GAME_FILE_NAMES",
    "PatchRecord",
    "SourceFiles",
    "available_patches",
    "find_game_file",
    "resolve",
]
