"""Pass `emit_python`: the IR module as Python text (jinja2 skeleton) and the line map back to .metro.

Input: an `ir.Module` (and the program's metadata). Output: the module text, in which each
statement that comes from a .metro statement starts with a `# file:line` comment, and the
map from generated line numbers to .metro positions (also written as `METRO_LINES`, each file
as its index in the module's table of rule files, `SOURCES`: the module names no absolute path).
Dispatch is `visit_<IRClass>` by name (the compiler-wide visitor scheme is not in yet).
"""

from __future__ import annotations

from dataclasses import fields
from functools import lru_cache

import jinja2

from compiler import ir
from compiler.blocks import reachable
from compiler.builtins import RUNTIME_ALIASES
from compiler.checked import CheckedProgram
from compiler.emit_procs import ProcWriter
from compiler.entries import Entry, in_entry
from compiler.expr import lists_unless_valued
from compiler.linebreak import broken
from compiler.literals import ident, lit
from compiler.names import names_of
from compiler.printer import ir_expr
from compiler.pyexpr import PyExpr
from compiler.pywriter import PyWriter
from compiler.sources import SourceTable, location_name, location_of, ref
from compiler.version import COMPILER_VERSION
from compiler.visit import StrictVisitor

__all__ = ["COMPILER_VERSION", "emit_module", "emit_scenarios", "environment"]


class Py(str):
    """Text that is already Python code (the only strings a template may print raw)."""


def _pyrepr(value) -> Py:
    return Py(lit(value))


def _ident(value) -> Py:
    return Py(ident(str(value)))


def _py(value) -> Py:
    if not isinstance(value, Py):
        raise TypeError("only generated code may be printed raw")
    return value


def _table(value, depth: int = 0) -> Py:
    """A literal written at indentation `depth`, wrapped as tables are (see `wrapped`)."""
    return Py(
        _joined(
            [
                (level + depth if i else 0, text)
                for i, (level, text) in enumerate(wrapped(value, depth))
            ]
        )
    )


def _finalize(value):
    if not isinstance(value, Py):
        raise TypeError(f"unescaped value reached the template: {value!r:.60}")
    return value


@lru_cache(maxsize=2)
def environment(package: str = "compiler") -> jinja2.Environment:
    """The jinja2 environment for `package`'s templates: strict, filters for identifiers and literals only."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalize,
    )
    env.filters["pyrepr"] = _pyrepr
    env.filters["ident"] = _ident
    env.filters["py"] = _py
    env.filters["table"] = _table
    return env


# Runtime imports a module may need: (alias, import line); only those the code uses are written.
# The library modules builtins call come from their table, under the aliases it writes.
IMPORTS = [
    *(
        (alias, f"from {module.rpartition('.')[0]} import {module.rpartition('.')[2]} as {alias}")
        for module, alias in RUNTIME_ALIASES.items()
    ),
    ("_v", "from runtime import values as _v"),
    ("_UNSET", "from runtime.lib import UNSET as _UNSET"),
    ("_EndGame", "from runtime.errors import EndGame as _EndGame"),
    ("_RuleError", "from runtime.errors import RuleError as _RuleError"),
    ("_CALL", "from runtime.machine import CALL as _CALL"),
    ("_RETURN", "from runtime.machine import RETURN as _RETURN"),
    ("_SUSPEND", "from runtime.machine import SUSPEND as _SUSPEND"),
    ("_A", "from runtime.machine import Action as _A"),
    ("_Frame", "from runtime.machine import Frame as _Frame"),
    ("_Waiting", "from runtime.machine import Waiting as _Waiting"),
    ("_Site", "from runtime.machine import Site as _Site"),
    ("_State", "from runtime.machine import State as _State"),
]
# The runtime names each template writes itself (tests/test_emit.py checks them against the templates).
TEMPLATE_NAMES = {"module.py.jinja": ("_State", "_l"), "scenarios.py.jinja": ()}


def emit_module(
    module: ir.Module, cp: CheckedProgram, inputs: list[str], variants: tuple[str, ...]
) -> tuple[str, dict[int, tuple[str, int]]]:
    """The generated Python module text and its line map."""
    p = cp.program
    code = CodeGenerator(p.source_table)
    tables = code.tables_written  # filled in the order the template writes them, then the code's
    enums = [(name, tables.value(f"E_{ident(name)}", values)) for name, values in module.enums]
    enum_words = {
        name: tables.value(f"E_{ident(name)}__words", words)
        for name, words in module.enum_words.items()
    }
    kinds = [
        (
            kind,
            tables.value(f"K_{ident(kind)}", ids),
            [(f, tables.value(f"K_{ident(kind)}__{ident(f)}", v)) for f, v in columns],
        )
        for kind, ids, columns in module.tables
    ]
    element_labels = {
        kind: tables.value(f"K_{ident(kind)}__label", texts)
        for kind, texts in module.element_labels.items()
    }
    consts = [(name, tables.value(f"C_{ident(name)}", value)) for name, value in module.consts]
    code.module(module, p)
    if module.descriptors or module.arg_descs:  # `D3 = _v.ListD(D1)`, `AD_x = _v.ArgDescs(…)`
        code.uses("_v")
    sources = p.source_table
    context = {
        "source_file": sources.name(p.game_file),
        "game_source": Py(sources.ref(p.game_file)),
        "sources": tuple(sources.names),
        "source_refs": [Py(ref(i)) for i in range(len(sources.names))],
        "version": COMPILER_VERSION,
        "inputs": inputs,
        "game_name": p.game_name,
        "players": (p.players.lo, p.players.hi) if p.players else (1, 1),
        "max_decisions": p.max_decisions,
        "default_bot": p.default_bot,
        "levels": {name: decl.bot for name, decl in p.levels.items()},
        "variants": list(variants),
        "enums": enums,
        "named_values": module.named_values,
        "kinds": kinds,
        "consts": consts,
        "desc_lines": [Py(f"{d.target.code} = {d.value.code}") for d in module.descriptors],
        "slots": tuple(f.slot for f in module.fields)
        + tuple(i.slot for i in module.indexes)
        + tuple(v.slot for v in module.views),
        "enum_words": enum_words,
        "element_labels": element_labels,
        "state_visibility": {f.name: f.visibility for f in module.fields if not f.per_player},
        "player_visibility": {f.name: f.visibility for f in module.fields if f.per_player},
    }
    return _assemble("module.py.jinja", code, context)


def emit_scenarios(module: ir.Module, cp: CheckedProgram) -> tuple[str, dict[int, tuple[str, int]]]:
    """The scenarios module: the scenarios and invariants, run over the game module's names
    (`runtime.machine.run_module(..., over=game_module)`), and its own line map."""
    sources = cp.program.source_table
    written = len(sources.names)  # it names the files through the game module's table
    code = CodeGenerator(sources)
    code.indexes = module.indexes  # a scenario's `set` moves the indexes as the game does
    code.views = {views.index.field: views for views in module.views}  # and their views
    for function in module.scenario_functions:
        code.function(function)
    for function, _ in module.scenarios + module.invariants:
        code.function(function)
    code.scenario_tables(module)
    context = {"source_file": sources.name(cp.program.game_file), "version": COMPILER_VERSION}
    assembled = _assemble("scenarios.py.jinja", code, context)
    assert len(sources.names) == written, "the scenarios name a rule file the game module does not"
    return assembled


def _assemble(
    template_name: str, code: CodeGenerator, context: dict
) -> tuple[str, dict[int, tuple[str, int]]]:
    """A template filled with the generated code, the imports it uses and its line map."""
    marker, imports_marker = "# <<code>>", "# <<imports>>"
    template = environment().get_template(template_name)
    locations = sorted(filter(None, map(location_of, code.runtime)))
    bound = [Py(f"{location_name(*at)} = ({ref(at[0])}, {at[1]!r}, {at[2]!r})") for at in locations]
    skeleton = template.render(
        code=Py(marker), imports=Py(imports_marker), locations=bound, **context
    )
    names = code.runtime | set(TEMPLATE_NAMES[template_name]) | {"_l"}  # _l: METRO_LINES below
    used = [line for alias, line in IMPORTS if alias in names]
    skeleton = skeleton.replace(imports_marker, "\n".join(used))
    before, after = skeleton.split(marker)
    first_line = before.count("\n") + 1
    line_map: dict[int, tuple[str, int]] = {}
    body = code.w.render(first_line, line_map)
    # Each run of lines from one .metro line (a statement broken over lines) is one row, its
    # rule file as its index in the module's table (SOURCES), so no path is written.
    rows: list[list[int]] = []
    for number, (file, line) in sorted(line_map.items()):
        at = [code.sources.index(file), line]
        if rows and rows[-1][1] == number - 1 and rows[-1][2:] == at:
            rows[-1][1] = number
        else:
            rows.append([number, number, *at])
    table = "\n".join(f"    ({first!r}, {last!r}, {f!r}, {n!r})," for first, last, f, n in rows)
    lines = (
        f"\n# generated lines -> (rule file, line)\nMETRO_LINES = _l.line_table((\n{table}\n))\n"
    )
    return before + body + after + lines, line_map


WIDTH = 100  # a table's literal longer than this is written over several lines


def wrapped(value, depth: int = 0) -> list[tuple[int, str]]:
    """`lit(value)` as (indentation, text) lines: a tuple, list or dict longer than WIDTH has its
    entries filled into lines of at most WIDTH characters (an entry too long itself is wrapped
    the same way, on lines of its own), so no table is one line of thousands of characters."""
    text = lit(value)
    if len(text) + 4 * depth <= WIDTH or not isinstance(value, tuple | list | dict) or not value:
        return [(0, text)]
    if isinstance(value, dict):
        entries = [(f"{lit(key)}: ", item) for key, item in value.items()]
    else:
        entries = [("", item) for item in value]
    opening, closing = (
        "{}" if isinstance(value, dict) else "[]" if isinstance(value, list) else "()"
    )
    lines: list[tuple[int, str]] = [(0, opening)]
    filled = ""
    for prefix, item in entries:
        inner = wrapped(item, depth + 1)
        if len(inner) > 1:  # on lines of its own
            if filled:
                lines.append((1, filled))
                filled = ""
            lines.append((1, prefix + inner[0][1]))
            lines += [(level + 1, text) for level, text in inner[1:-1]]
            lines.append((inner[-1][0] + 1, inner[-1][1] + ","))
            continue
        piece = prefix + inner[0][1] + ","
        if filled and 4 * (depth + 1) + len(filled) + 1 + len(piece) > WIDTH:
            lines.append((1, filled))
            filled = ""
        filled = f"{filled} {piece}" if filled else piece
    if filled:
        lines.append((1, filled))
    lines.append((0, closing))
    return lines


def _joined(lines: list[tuple[int, str]]) -> str:
    return "\n".join(piece for level, text in lines for piece in broken("    " * level + text))


class Tables:
    """The module's tables, each written once: a table equal to one written before names it."""

    def __init__(self):
        self.first: dict[str, str] = {}  # a table's literal -> the name it was first written as

    def earlier(self, name: str, value) -> str | None:
        """The name an equal table was written as before `name`, if any (tables of two or more
        items only: tuples, never mutable values)."""
        if not (isinstance(value, tuple) and len(value) > 1):
            return None
        first = self.first.setdefault(lit(value), name)
        return None if first == name else first

    def value(self, name: str, value) -> Py:
        """What `name = …` is written with: the literal, or the name of an equal earlier table."""
        first = self.earlier(name, value)
        return Py(_joined(wrapped(value)) if first is None else first)


def _drive_args(drive) -> list[str]:
    """The arguments of a driven version from its frame's locals `L` (an action's packed)."""
    values = [f"L[{name!r}]" for name in drive.params]
    if drive.packed:
        rest = values[1:]
        return [values[0], f"({', '.join(rest)}{',' if len(rest) == 1 else ''})"]
    return values


def _views_name(views: ir.IndexViews) -> str:
    """The stem of the module constants of an index's views (`__cells`, `__of`)."""
    return f"V_{ident(views.index.field)}"


def _own_expressions(stmt: ir.Stmt):
    """The expressions a statement writes itself (not those of the statements nested in it)."""
    for f in fields(stmt):
        value = getattr(stmt, f.name)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, PyExpr):
                yield item
            elif isinstance(item, ir.Branch):
                yield item.cond
            elif isinstance(item, tuple):  # a call's (name, value) arguments
                yield from (part for part in item if isinstance(part, PyExpr))


class CodeGenerator(ProcWriter, StrictVisitor):
    """Writes an IR module as indented Python, each statement's .metro line as a comment."""

    def __init__(self, sources: SourceTable | None = None):
        self.w = PyWriter()
        self.sources = sources or SourceTable()  # the rule files locations name, by index
        self.origin: tuple[str, int] | None = None
        self.proc: ir.FrameProc | None = None  # the frame procedure being written
        self.single: set[int] = set()  # its blocks written at their one jump
        self.inlining: list[int] = []  # the blocks being written, outermost first
        self.dispatched: set[int] = set()  # blocks reached through the dispatch loop
        self.indexes: list = []  # the maintained indexes some walk uses
        self.views: dict[str, ir.IndexViews] = {}  # per indexed table, the cells walked as views
        self.entries: dict[str, Entry] = {}  # called procedures with a frameless entry
        self.entry: Entry | None = None  # set while writing one (compiler/entries.py)
        self.framed = False  # in an entry, past a NeedsFrame: written as the frame version
        self.tables_written = Tables()  # the module's tables, each written once
        self.runtime: set[str] = set()  # the names the module's code reads (its imports)
        self.here: set[str] = set()  # those the callable being written reads
        self.entry_locals: set[str] = set()  # in an entry: the frame locals its variables hold
        self.entry_base = False  # … whether it puts its frame under a waiting callee's
        self.entry_ret = False  # … whether it reads the last call's result
        self.driving = False  # writing a driven version: decisions are asked of the driver `D`
        self.picking = False  # in it, a menu's branch for a bare driver (no frame)
        self.framed_writes: list[str] = []  # … the frame locals its decision's frame sets
        self.site_kinds: dict[int, str] = {}  # each site's kind (menus are driven apart)

    def uses(self, *names: str) -> None:
        """Note names the code being written reads (fixed text: `_Frame`, `_l`, …)."""
        self.runtime.update(names)
        self.here.update(names)

    def bare(self, x: PyExpr) -> str:
        """An expression's code where it stands alone, as the entry being written has it."""
        return (in_entry(x) if self.entry is not None and not self.framed else x).bare()

    def code(self, x: PyExpr) -> str:
        """An expression's code, as the entry being written has it."""
        return (in_entry(x) if self.entry is not None and not self.framed else x).code

    def reads(self, x) -> None:
        """Note what an expression being written reads (compiler/names.py)."""
        found = names_of(x)
        self.uses(*found.names)
        if self.entry is not None and not self.framed:  # written with the locals as variables
            self.entry_locals.update(found.frame_locals)
            self.entry_ret |= found.reads_ret

    # ------------------------------------------------------------ module parts

    def module(self, module: ir.Module, p) -> None:
        """Every function of the module, then the tables the runtime reads."""
        self.indexes = module.indexes
        self.views = {views.index.field: views for views in module.views}
        self.site_kinds = {site.index: site.kind for site in module.sites}
        for part in module.functions:  # planned by the frameless_entries stage
            if isinstance(part, ir.FrameProc) and part.entry is not None:
                self.entries[part.name] = part.entry
        self.fields(module.fields, module.indexes)
        self.guard_tables(module.guard_tables)
        self.index_views(module.views)
        for part in module.functions:
            self.callable(part)
        for action in module.actions:
            for part in (action.legal_plain, action.legal, action.why, action.body):
                self.callable(part)
        for proc in module.flow_procs:
            self.callable(proc)
        self.function(module.score)
        self.function(module.rank_key)
        if module.estimate is not None:
            self.function(module.estimate)
        for _, function in module.metrics:
            self.function(function)
        for _, rules in module.bots:
            for _, function in rules:
                self.function(function)
        for _, function in module.draws:
            self.function(function)
        for site in module.sites:
            for function in (site.legal_plain, site.legal, site.resume, site.why):
                if function is not None:
                    self.function(function)
        for function in module.labels:
            self.function(function)
        for function in (module.breakdown, module.display):
            if function is not None:
                self.function(function)
        self.stmts(module.arg_descs)  # before the tables, which name them
        if module.action_tables:  # after the label functions and descriptors they name
            self.gap()
            self.w.line("# actions built once: those whose arguments have few values, and memos")
            self.w.line("# of the others by their arguments, filled as listings meet them")
            self.stmts(module.action_tables)
            self.gap()
        self.tables(module, p)
        self.display_tables(module)

    def display_tables(self, module: ir.Module) -> None:
        """What people's screens read: private sites, fields' headings, the breakdown, the display."""
        w = self.w
        private = ", ".join(repr(s.index) for s in module.sites if s.private)
        w.line(f"PRIVATE_SITES = {{{private}}}" if private else "PRIVATE_SITES = set()")
        shown = {name: rest for name, *rest in module.field_display}
        w.line("FIELD_DISPLAY = (")
        with w.indented():
            for f in module.fields:
                heading, internal, key = shown[f.name]
                w.line(
                    f"({f.name!r}, {f.slot!r}, {f.desc}, {f.visibility!r}, {f.per_player!r}, "
                    f"{heading!r}, {internal!r}, {key!r}),"
                )
        w.line(")")
        w.line(f"BREAKDOWN = {'breakdown' if module.breakdown is not None else None}")
        w.line(f"DISPLAY = {'display' if module.display is not None else None}")

    def registry(self, head: str, entries: list[str], closing: str) -> None:
        """`head` entries `closing` on one line, or an entry a line when longer than WIDTH."""
        one = head + ", ".join(entries) + closing
        if len(one) + 4 * self.w.level <= WIDTH:
            self.w.line(one)
            return
        self.w.line(head)
        with self.w.indented():
            for entry in entries:
                self.w.line(entry + ",")
        self.w.line(closing)

    def callable(self, part: ir.Function | ir.FrameProc) -> None:
        """A plain function or a frame procedure."""
        if isinstance(part, ir.FrameProc):
            self.frame_proc(part)
        else:
            self.function(part)

    def gap(self) -> None:
        """Two blank lines between top-level definitions."""
        self.w.line("")
        self.w.line("")

    def function(self, fn: ir.Function) -> None:
        """`def name(params): body`, reading frame locals through `L` when the body does."""
        self.origin = None
        self.w.line(f"def {fn.name}({', '.join(fn.params)}):", fn.span)
        self.here = set()
        with self.w.indented():
            at = len(self.w.lines)
            self.stmts(fn.body)
            if "F" in fn.params:
                self._bind_frame_locals(at)
            if fn.label_scope and "S" in self.here:  # its walks and calls charge a scope
                self.uses("_l")
                self.w.lines.insert(at, (self.w.level, "S = _l.LabelScope()", None))
        self.gap()

    def _bind_frame_locals(self, at: int) -> None:
        """Insert `L = F.L` at line `at` if the lines after it read frame locals through `L`."""
        if "L" in self.here:
            self.w.lines.insert(at, (self.w.level, "L = F.L", None))

    def fields(self, fields: list[ir.Field], indexes: list) -> None:
        """init/copy/encode/view functions and the save tables of the state layout."""
        w = self.w
        w.line("def init_fields(S):")
        with w.indented():
            for f in fields:
                self.reads(f.init)
                w.line(f"S.{f.slot} = {f.init.bare()}", f.span)
            if indexes:
                w.line("refresh_indexes(S)")
            w.line("return None")
        self.gap()
        w.line("def copy_fields(S, T):")
        with w.indented():
            for f in fields:
                self.reads(f.copy)
                w.line(f"T.{f.slot} = {f.copy.bare()}")
            for index in indexes:  # an index and its views are lists of lists (runtime/lib.py)
                w.line(f"T.{index.slot} = list(map(list.copy, S.{index.slot}))")
                if index.field in self.views:
                    slot = self.views[index.field].slot
                    w.line(f"T.{slot} = list(map(list.copy, S.{slot}))")
            w.line("return None")
        self.gap()
        # The maintained indexes, made again from the tables (after a save is read back).
        w.line("def refresh_indexes(S):")
        with w.indented():
            for index in indexes:
                self.uses("_l")
                self._group(index)
            w.line("return None")
        self.gap()
        for fn, per_player, value in (
            ("encode_fields(S)", False, "S.{}"),
            ("encode_player(S, p)", True, "S.{}[p]"),
        ):
            entries = [
                f"{f.name!r}: {f.desc}.encode({value.format(f.slot)})"
                for f in fields
                if f.per_player == per_player
            ]
            w.line(f"def {fn}:")
            with w.indented():
                self.registry("return {", entries, "}")
            self.gap()
        # How a save is read back: (name, slot, descriptor) per field, declared ranges checked.
        for table, per_player in (("SAVE_FIELDS", False), ("SAVE_PLAYER_FIELDS", True)):
            w.line(f"{table} = (")
            with w.indented():
                for f in fields:
                    if f.per_player == per_player:
                        w.line(f"({f.name!r}, {f.slot!r}, {f.save_desc}),")
            w.line(")")
        self.gap()
        w.line("def view_fields(S):")
        with w.indented():
            w.line("out = {}")
            for f in fields:
                if not f.per_player:
                    value = f"S.{f.slot}"
                    shown = f"{f.desc}.encode({value})"
                    if f.visibility != "public":
                        shown = f"{{'hidden': True, 'size': {f.desc}.size({value})}}"
                    w.line(f"out[{f.name!r}] = {shown}")
            w.line("return out")
        self.gap()
        w.line("def view_player(S, p, own):")
        with w.indented():
            w.line("out = {}")
            for f in fields:
                if f.per_player:
                    value = f"S.{f.slot}[p]"
                    hidden = f"{{'hidden': True, 'size': {f.desc}.size({value})}}"
                    shown = f"{f.desc}.encode({value})"
                    if f.visibility == "owner":
                        shown = f"{shown} if own else {hidden}"
                    elif f.visibility != "public":
                        shown = hidden
                    w.line(f"out[{f.name!r}] = {shown}")
            w.line("return out")
        self.gap()

    def guard_tables(self, tables: list[ir.GuardTable]) -> None:
        """The tables of values guards let through (compiler/guards.py), a row per line."""
        w = self.w
        for table in tables:
            w.line("# " + " ".join(table.comment.splitlines()))  # one line, whatever the rule text
            first = self.tables_written.earlier(ident(table.name), table.value)
            if first is not None:
                w.line(f"{ident(table.name)} = {first}")
            else:
                self._constant(ident(table.name), table.value)
        if tables:
            self.gap()

    def tables(self, module: ir.Module, p) -> None:
        """The registries the runtime reads: sites, frame procedures, actions, bots, tests."""
        w = self.w
        w.line("SITES = [")
        with w.indented():
            for site in module.sites:
                i = site.index
                self.uses("_Site")
                self.reads(site.players)
                w.line(
                    f"_Site({i}, {site.kind!r}, {site.players.code}, site{i}_legal, site{i}_why, "
                    f"site{i}_resume, {self.sources.ref(site.file)}, {site.line!r}, {site.rule!r}),"
                )
        w.line("]")
        procs = module.frame_procs()
        self.registry("PROCS = {", [f"{f.name!r}: {f.name}" for f in procs], "}")
        # For checking saves: how many program counters each frame procedure has, and the
        # (procedure, program counter) a frame waits at when each site is the pending decision.
        drives = [
            f"{f.name!r}: lambda S, D, L: {f.name}_drive({', '.join(['S', 'D', *_drive_args(f.drive)])})"
            for f in procs
            if f.drive is not None
        ]
        if drives:  # the driven versions (compiler/drives.py), by frame procedure and action
            self.registry("DRIVES = {", drives, "}")
            self.registry(
                "DRIVES_FROM = {",
                [f"{f.name!r}: {f.name}_drive_from" for f in procs if f.drive is not None],
                "}",
            )
            self.registry(
                "ACTION_DRIVES = {",
                [f"{a.name!r}: {a.frame_name}_drive" for a in module.actions],
                "}",
            )
        else:
            w.line("DRIVES = DRIVES_FROM = ACTION_DRIVES = None")
        self.registry("PROC_PCS = {", [f"{f.name!r}: {len(f.blocks)!r}" for f in procs], "}")
        self.registry("SITE_FRAMES = [", [repr(site.frame) for site in module.sites], "]")
        secrets = ", ".join(f"{s.index!r}: {s.secret!r}" for s in module.sites if s.secret)
        w.line(f"SITE_SECRETS = {{{secrets}}}")
        w.line("FLOW_PROC = 's__flow'")
        w.line(f"FINAL_PROC = {'s__final' if module.has_final else None!r}")
        w.line("ACTION_FRAMES = {")
        with w.indented():
            for action in module.actions:
                params = "".join(f", {x!r}: a[{i}]" for i, x in enumerate(action.params))
                self.uses("_Frame")
                w.line(
                    f"{action.name!r}: lambda p, a: _Frame({action.frame_name!r}, {{'me': p{params}}}),"
                )
        w.line("}")
        self.registry("ACTION_WHY = {", [f"{a.name!r}: {a.why.name}" for a in module.actions], "}")
        self.registry(
            "ACTION_HEADINGS = {",
            [f"{name!r}: {words!r}" for name, words in module.argument_headings.items()],
            "}",
        )
        w.line("ACTION_DESCS = {")
        with w.indented():
            for name, (descs, rank) in module.action_descs.items():
                w.line(f"{name!r}: ({descs}, {rank!r}),")
        w.line("}")
        w.line("BOTS = {")
        with w.indented():
            for name, rules in module.bots:
                entries = [f"{action!r}: {fn.name}" for action, fn in rules]
                self.registry(f"{name!r}: {{", entries, "},")
        w.line("}")
        w.line("DRAWS = {")
        with w.indented():
            for name, fn in module.draws:
                w.line(f"{name!r}: {fn.name},")
        w.line("}")
        w.line(f"ESTIMATE = {'estimate' if module.estimate is not None else None}")
        self.registry("METRICS = [", [f"({name!r}, {fn.name})" for name, fn in module.metrics], "]")
        w.line(f"CHANCE_BOUND = {module.chance_bound!r}")

    def scenario_tables(self, module: ir.Module) -> None:
        """The registries of the scenarios module: scenarios and invariants with their places."""
        w = self.w
        w.line("SCENARIOS = [")
        with w.indented():
            for fn, (name, players, seed, file, line) in module.scenarios:
                w.line(
                    f"({name!r}, {players!r}, {seed!r}, {fn.name}, {self.sources.ref(file)}, {line!r}),"
                )
        w.line("]")
        w.line("INVARIANTS = [")
        with w.indented():
            for fn, (name, file, line) in module.invariants:
                w.line(f"({name!r}, {fn.name}, {self.sources.ref(file)}, {line!r}),")
        w.line("]")

    # ------------------------------------------------------------ statements

    def stmts(self, stmts: list[ir.Stmt]) -> None:
        """A block of statements (`pass` when empty), without those that can never run."""
        if not stmts:
            self.w.line("pass")
        framed = self.framed
        run = reachable(stmts)
        for at, stmt in enumerate(run):
            if self.driving and not self.framed and isinstance(stmt, ir.NeedsFrame):
                self.decision(run[at + 1 :])  # the rest of the block (emit_procs.py)
                break
            self.statement(stmt)
        self.framed = framed  # a decision's frame lasts to the end of its block

    def statement(self, stmt: ir.Stmt) -> None:
        """Write one statement, after its .metro line comment."""
        span = getattr(stmt, "span", None)
        if span is not None and span.line > 0 and (span.file, span.line) != self.origin:
            self.origin = (span.file, span.line)
            self.w.line(f"# {self.sources.name(span.file)}:{span.line}")
        for x in _own_expressions(stmt):
            self.reads(x)
        self.visit(stmt)

    def visit_Assign(self, node: ir.Assign) -> None:
        if self.driving and self.framed:  # a local its decision's frame sets (emit_procs.py)
            self.framed_writes += names_of(node.target).frame_locals
        value = node.value
        if self.driving and lists_unless_valued(value.node):  # the driver never plays to value
            value = ir_expr(value.node.orelse)
        self.w.line(f"{self.bare(node.target)} {node.op} {self.bare(value)}", node.span)

    def visit_IndexedStore(self, node: ir.IndexedStore) -> None:
        index = node.index
        if index not in self.indexes:  # no walk uses it: a plain assignment
            self.w.line(f"{self.bare(node.target)} = {self.bare(node.value)}", node.span)
        elif node.key is None:
            self.w.line(f"{self.bare(node.target)} = {self.bare(node.value)}", node.span)
            self.uses("_l")
            self._group(index)
        else:
            self.uses("_l")
            key, target = self.bare(node.key), self.bare(node.target)
            old_new = f"{key}, {target}, {self.bare(node.value)}"
            if index.field in self.views:  # the key moves in the cells' views holding it too
                views = self.views[index.field]
                lists = f"S.{index.slot}, S.{views.slot}, {_views_name(views)}__of"
                moved = f"_l.regroup_viewed({lists}, {old_new})"
            else:
                moved = f"_l.regroup(S.{index.slot}, {old_new})"
            self.w.line(f"{target} = {moved}", node.span)

    def _group(self, index) -> None:
        """A maintained index (and its views) made again from its whole table."""
        self.w.line(f"S.{index.slot} = _l.group_by({index.table}, {index.values})")
        if index.field in self.views:
            views = self.views[index.field]
            cells = f"{_views_name(views)}__cells"
            self.w.line(f"S.{views.slot} = _l.none_views({index.table}, {cells})")

    def index_views(self, all_views: list[ir.IndexViews]) -> None:
        """Per index walked by views: the keys of each cell, and the cells holding each key."""
        w = self.w
        for views in all_views:
            name = _views_name(views)
            w.line(f"# the cells of guard tables walked as views of {views.index.slot}")
            self._constant(f"{name}__cells", tuple(views.cells))
            holding = tuple(
                tuple(n for n, cell in enumerate(views.cells) if key in cell)
                for key in range(views.keys)
            )
            w.line(f"# the views holding each key of {views.index.table}")
            self._constant(f"{name}__of", holding)
        if all_views:
            self.gap()

    def _constant(self, name: str, value) -> None:
        """`name = value`, a table of literals filled into lines (`wrapped`)."""
        lines = wrapped(value)
        self.w.line(f"{name} = {lines[0][1]}")
        for level, text in lines[1:]:
            self.w.line("    " * level + text)

    def visit_Eval(self, node: ir.Eval) -> None:
        self.w.line(self.bare(node.expr), node.span)

    def visit_Delete(self, node: ir.Delete) -> None:
        self.w.line(f"del {self.bare(node.target)}", node.span)

    def visit_If(self, node: ir.If) -> None:
        for i, branch in enumerate(node.branches):
            self.w.line(f"{'if' if i == 0 else 'elif'} {self.bare(branch.cond)}:", branch.span)
            with self.w.indented():
                self.stmts(branch.body)
        if node.orelse is not None:
            self.w.line("else:")
            with self.w.indented():
                self.stmts(node.orelse)

    def visit_For(self, node: ir.For) -> None:
        self.w.line(f"for {self.bare(node.target)} in {self.bare(node.iterable)}:", node.span)
        with self.w.indented():
            self.stmts(node.body)

    def visit_While(self, node: ir.While) -> None:
        self.w.line(f"while {self.bare(node.cond)}:", node.span)
        with self.w.indented():
            self.stmts(node.body)

    def visit_Break(self, node: ir.Break) -> None:
        self.w.line("break", node.span)

    def visit_Continue(self, node: ir.Continue) -> None:
        self.w.line("continue", node.span)

    def visit_Return(self, node: ir.Return) -> None:
        value = "" if node.value is None else " " + self.bare(node.value)
        self.w.line(f"return{value}", node.span)

    def visit_Try(self, node: ir.Try) -> None:
        self.w.line("try:")
        with self.w.indented():
            self.stmts(node.body)
        self.w.line("except Exception:")
        with self.w.indented():
            self.stmts(node.handler)

    def visit_RaiseEndGame(self, node: ir.RaiseEndGame) -> None:
        self.uses("_EndGame")
        self.w.line("raise _EndGame()", node.span)

    def visit_RaiseRuleError(self, node: ir.RaiseRuleError) -> None:
        self.uses("_RuleError")
        self.w.line(
            f"raise _RuleError({node.message!r}, {self.sources.ref(node.file)}, {node.line!r})",
            node.span,
        )
