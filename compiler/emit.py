"""Pass `emit_python`: assemble the module text with jinja2 and the line map back to .metro."""

from __future__ import annotations

from functools import lru_cache

import jinja2

from compiler.checked import CheckedProgram
from compiler.codegen import Env, Generator, ident, lit
from compiler.consteval import EvalBudgetError, EvalError, Evaluator, MapData
from compiler.lower import FrameLowerer, action_functions
from compiler.pywriter import PyWriter
from compiler.types import (
    INT,
    BoolT,
    CollT,
    ElemT,
    EnumT,
    GeoT,
    IntT,
    MapT,
    OptT,
    PlayerT,
    StrT,
    TupleT,
    Type,
    is_finite,
)
from dsl import ast
from dsl.diagnostics import TOO_LARGE, TYPE, Diagnostics

COMPILER_VERSION = "metro-0.1.0/codegen-1"


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
    return env


def emit_module(
    cp: CheckedProgram,
    data: MapData,
    evaluator: Evaluator,
    diags: Diagnostics,
    inputs: list[str],
    variants: tuple[str, ...],
) -> tuple[str, dict[int, tuple[str, int]]]:
    """The generated Python module text and its line map."""
    gen = Generator(cp, data, evaluator)
    p = cp.program
    code = PyWriter()
    consts = []
    for name, versions in p.consts.items():
        try:
            consts.append((name, evaluator.const(name, versions.active)))
        except EvalError as error:
            kind = TOO_LARGE if isinstance(error, EvalBudgetError) else (error.code or TYPE)
            diags.error(
                kind, f"const '{name}' cannot be computed before the game: {error}", error.node.span
            )
    _fields(gen, code)
    _callables(gen, code)
    _scoring(gen, code)
    _tests(gen, code)
    _bots(gen, code)
    _registry(gen, code)
    for message, span in dict.fromkeys(gen.errors):
        diags.error(TOO_LARGE, message, span)
    slots = tuple(f"g_{ident(n)}" for n in p.state) + tuple(f"p_{ident(n)}" for n in p.per_player)
    kinds = [
        (kind, tuple(data.ids[kind]), [(f, tuple(v)) for f, v in data.fields[kind].items()])
        for kind in p.kinds
    ]
    context = dict(
        source_file=p.game_file,
        version=COMPILER_VERSION,
        inputs=inputs,
        game_name=p.game_name,
        players=(p.players.lo, p.players.hi) if p.players else (1, 1),
        max_decisions=p.max_decisions,
        default_bot=p.default_bot,
        variants=list(variants),
        enums=[(n, tuple(v)) for n, v in cp.enum_values.items()],
        kinds=kinds,
        consts=consts,
        desc_lines=[Py(line) for line in gen.desc_lines],
        slots=slots,
        state_visibility={n: f.visibility for n, f in p.state.items()},
        player_visibility={n: f.visibility for n, f in p.per_player.items()},
    )
    marker = "# <<code>>"
    template = environment().get_template("module.py.jinja")
    skeleton = template.render(code=Py(marker), **context)
    before, after = skeleton.split(marker)
    first_line = before.count("\n") + 1
    line_map: dict[int, tuple[str, int]] = {}
    body = code.render(first_line, line_map)
    table = "\n".join(f"    {k!r}: {v!r}," for k, v in sorted(line_map.items()))
    return before + body + after + f"\nMETRO_LINES = {{\n{table}\n}}\n", line_map


# ------------------------------------------------------------------ state fields


def _init_code(gen: Generator, t: Type, init) -> str:
    if init is not None:
        value = gen.expr(init, Env(frame=False))
        return gen.convert(value, gen.t(init), t) if isinstance(t, CollT | MapT) else value
    if isinstance(t, IntT):
        return "0"
    if isinstance(t, BoolT):
        return "False"
    if isinstance(t, StrT):
        return "''"
    if isinstance(t, OptT):
        return "None"
    if isinstance(t, CollT):
        if t.kind == "bag":
            return f"[0] * {gen.size_of(t.item)}"
        return "set()" if t.kind == "set" else "[]"
    if isinstance(t, MapT):
        if not is_finite(t.key):
            return "{}"
        return f"[{_init_code(gen, t.value, None)} for _k in range({gen.size_of(t.key)})]"
    if isinstance(t, TupleT):
        return "(" + "".join(_init_code(gen, i, None) + ", " for i in t.items) + ")"
    if isinstance(t, GeoT):
        return {"building": "_shapes.Building.empty()", "frame": "_shapes.Frame(())"}.get(
            t.kind, "None"
        )
    return "0"


def _copy_code(t: Type, code: str, depth: int = 0) -> str:
    if isinstance(t, CollT):
        if t.kind == "set":
            return f"set({code})"
        if _immutable(t.item):
            return f"{code}[:]"
        return f"[{_copy_code(t.item, f'_c{depth}', depth + 1)} for _c{depth} in {code}]"
    if isinstance(t, MapT):
        if not is_finite(t.key):
            return f"{{_k: {_copy_code(t.value, '_w', depth + 1)} for _k, _w in {code}.items()}}"
        if _immutable(t.value):
            return f"{code}[:]"
        return f"[{_copy_code(t.value, f'_c{depth}', depth + 1)} for _c{depth} in {code}]"
    if isinstance(t, OptT) and not _immutable(t.inner):
        return f"(None if {code} is None else {_copy_code(t.inner, code, depth)})"
    return code


def _immutable(t: Type) -> bool:
    if isinstance(t, OptT):
        return _immutable(t.inner)
    if isinstance(t, TupleT):
        return all(_immutable(i) for i in t.items)
    return isinstance(t, IntT | BoolT | StrT | EnumT | ElemT | PlayerT | GeoT)


def _save_desc(gen: Generator, t: Type, node: ast.TypeExpr) -> str:
    """The descriptor a save's field is decoded with: the field's own, plus its declared int ranges."""
    if isinstance(node, ast.RangeType) and isinstance(t, IntT):
        bounds = [_const_int(gen, b) for b in (node.lo, node.hi)]
        step = 1 if node.step is None else _const_int(gen, node.step)
        if None in bounds or step is None or step < 1:
            return gen.desc(t)
        return _extra_desc(gen, f"_v.RangeD({bounds[0]!r}, {bounds[1]!r}, {step!r})")
    if isinstance(node, ast.OptionalType) and isinstance(t, OptT):
        inner = _save_desc(gen, t.inner, node.inner)
        return gen.desc(t) if inner == gen.desc(t.inner) else _extra_desc(gen, f"_v.OptD({inner})")
    if isinstance(node, ast.CollectionType) and isinstance(t, CollT) and t.kind in ("list", "pile"):
        item = _save_desc(gen, t.item, node.item)
        return gen.desc(t) if item == gen.desc(t.item) else _extra_desc(gen, f"_v.ListD({item})")
    if isinstance(node, ast.MapType) and isinstance(t, MapT):
        value = _save_desc(gen, t.value, node.value)
        if value == gen.desc(t.value):
            return gen.desc(t)
        size = gen.size_of(t.key) if is_finite(t.key) else "None"
        return _extra_desc(
            gen, f"_v.MapD({gen.desc(t.key)}, {value}, {0 if size == 'S.n' else size})"
        )
    return gen.desc(t)


def _const_int(gen: Generator, node: ast.Expr) -> int | None:
    try:
        value = gen.evaluator.eval(node, {})
    except EvalError:
        return None
    return value if type(value) is int else None


def _extra_desc(gen: Generator, code: str) -> str:
    key = f"save:{code}"
    if key not in gen.descs:
        gen.descs[key] = f"D{len(gen.descs)}"
        gen.desc_lines.append(f"{gen.descs[key]} = {code}")
    return gen.descs[key]


def _fields(gen: Generator, w: PyWriter) -> None:
    p, cp = gen.p, gen.cp
    w.line("def init_fields(S):")
    with w.indented():
        for name, spec in p.state.items():
            w.line(
                f"S.g_{ident(name)} = {_init_code(gen, cp.state_types[name], spec.init)}", spec.span
            )
        for name, spec in p.per_player.items():
            w.line(
                f"S.p_{ident(name)} = [{_init_code(gen, cp.player_types[name], spec.init)} "
                "for _p in range(S.n)]",
                spec.span,
            )
        w.line("return None")
    w.line("")
    w.line("")
    w.line("def copy_fields(S, T):")
    with w.indented():
        for name in p.state:
            w.line(f"T.g_{ident(name)} = {_copy_code(cp.state_types[name], f'S.g_{ident(name)}')}")
        for name in p.per_player:
            t = cp.player_types[name]
            inner = _copy_code(t, "_x")
            copy = (
                f"S.p_{ident(name)}[:]"
                if inner == "_x"
                else f"[{inner} for _x in S.p_{ident(name)}]"
            )
            w.line(f"T.p_{ident(name)} = {copy}")
        w.line("return None")
    w.line("")
    w.line("")
    w.line("def encode_fields(S):")
    with w.indented():
        entries = ", ".join(
            f"{n!r}: {gen.desc(cp.state_types[n])}.encode(S.g_{ident(n)})" for n in p.state
        )
        w.line(f"return {{{entries}}}")
    w.line("")
    w.line("")
    w.line("def encode_player(S, p):")
    with w.indented():
        entries = ", ".join(
            f"{n!r}: {gen.desc(cp.player_types[n])}.encode(S.p_{ident(n)}[p])" for n in p.per_player
        )
        w.line(f"return {{{entries}}}")
    w.line("")
    w.line("")
    # How a save is read back: (name, slot, descriptor) per field, declared ranges checked.
    w.line("SAVE_FIELDS = (")
    with w.indented():
        for n, spec in p.state.items():
            w.line(f"({n!r}, 'g_{ident(n)}', {_save_desc(gen, cp.state_types[n], spec.type)}),")
    w.line(")")
    w.line("SAVE_PLAYER_FIELDS = (")
    with w.indented():
        for n, spec in p.per_player.items():
            w.line(f"({n!r}, 'p_{ident(n)}', {_save_desc(gen, cp.player_types[n], spec.type)}),")
    w.line(")")
    w.line("")
    w.line("")
    w.line("def view_fields(S):")
    with w.indented():
        w.line("out = {}")
        for n, spec in p.state.items():
            d = gen.desc(cp.state_types[n])
            if spec.visibility == "public":
                w.line(f"out[{n!r}] = {d}.encode(S.g_{ident(n)})")
            else:
                w.line(f"out[{n!r}] = {{'hidden': True, 'size': {d}.size(S.g_{ident(n)})}}")
        w.line("return out")
    w.line("")
    w.line("")
    w.line("def view_player(S, p, own):")
    with w.indented():
        w.line("out = {}")
        for n, spec in p.per_player.items():
            d = gen.desc(cp.player_types[n])
            value = f"S.p_{ident(n)}[p]"
            hidden = f"{{'hidden': True, 'size': {d}.size({value})}}"
            if spec.visibility == "public":
                w.line(f"out[{n!r}] = {d}.encode({value})")
            elif spec.visibility == "owner":
                w.line(f"out[{n!r}] = {d}.encode({value}) if own else {hidden}")
            else:
                w.line(f"out[{n!r}] = {hidden}")
        w.line("return out")
    w.line("")
    w.line("")


# ------------------------------------------------------------------ functions, procedures, actions


def _callables(gen: Generator, w: PyWriter) -> None:
    p, cp = gen.p, gen.cp
    for name, versions in p.functions.items():
        for version, decl in enumerate(versions.versions):
            gen.current_versions = (name, version)
            params = "".join(f", v_{ident(x.name)}" for x in decl.params)
            w.line(f"def {gen.version_name('f', name, version)}(S{params}):", decl.span)
            with w.indented():
                env = Env(frame=False)
                if decl.expr is not None:
                    w.line(f"return {gen.expr(decl.expr, env)}", decl.expr.span)
                else:
                    gen.stmts(decl.body.stmts, w, env, decl.body.returns)
            w.line("")
            w.line("")
    frame_procs: list[str] = []
    for name, versions in p.procedures.items():
        for version, decl in enumerate(versions.versions):
            gen.current_versions = (name, version)
            if name in cp.suspends:
                pyname = gen.version_name("s", name, version)
                lowered = FrameLowerer(gen, pyname, name).lower(decl.body)
                for level, text, span in lowered.lines:
                    w.lines.append((level + w.level, text, span))
                frame_procs.append(pyname)
            else:
                params = "".join(f", v_{ident(x.name)}" for x in decl.params)
                w.line(f"def {gen.version_name('p', name, version)}(S{params}):", decl.span)
                with w.indented():
                    gen.stmts(decl.body.stmts, w, Env(frame=False), decl.body.returns)
            w.line("")
            w.line("")
    for name, versions in p.actions.items():
        version = len(versions.versions) - 1
        gen.current_versions = (name, version)
        for part in action_functions(gen, name, versions.active, version):
            for level, text, span in part.lines:
                w.lines.append((level + w.level, text, span))
            w.line("")
            w.line("")
        frame_procs.append(f"a_{name}__{version}")
    if p.flow is not None:
        flow = p.flow.active
        gen.current_versions = ("flow", 0)
        for pyname, block in (("s__flow", flow.body), ("s__final", flow.final)):
            if block is None:
                continue
            lowered = FrameLowerer(gen, pyname, "flow").lower(block)
            for level, text, span in lowered.lines:
                w.lines.append((level + w.level, text, span))
            frame_procs.append(pyname)
            w.line("")
            w.line("")
    gen.frame_proc_names = frame_procs


def _scoring(gen: Generator, w: PyWriter) -> None:
    p = gen.p
    w.line("def score(S, p):")
    with w.indented():
        if p.score is not None:
            decl = p.score.active
            env = Env(frame=False).bind(decl.var)
            w.line(f"{env.local(decl.var)} = p")
            w.line(
                f"return {gen.checked(gen.expr(decl.expr, env), decl.expr, INT)}", decl.expr.span
            )
        else:
            w.line("return 0")
    w.line("")
    w.line("")
    w.line("def rank_key(S, p):")
    with w.indented():
        if p.rank is not None:
            decl = p.rank.active
            env = Env(frame=False).bind(decl.var)
            w.line(f"{env.local(decl.var)} = p")
            keys = []
            for key in decl.keys:
                code = f"_l.int_ok(int({gen.expr(key.expr, env)}))"
                keys.append(f"-{code}" if key.descending else code)
            w.line("return (" + "".join(k + ", " for k in keys) + ")", decl.span)
        else:
            w.line("return (-score(S, p),)")
    w.line("")
    w.line("")


def _tests(gen: Generator, w: PyWriter) -> None:
    p = gen.p
    for index, decl in enumerate(p.scenarios.values()):
        gen.current_versions = ("scenario", 0)
        w.line(f"def scenario_{index}(S):", decl.span)
        with w.indented():
            gen.stmts(decl.steps, w, Env(frame=False))
        w.line("")
        w.line("")
    for index, decl in enumerate(p.invariants.values()):
        w.line(f"def invariant_{index}(S):", decl.span)
        with w.indented():
            w.line(f"return {gen.expr(decl.expr, Env(frame=False))}", decl.expr.span)
        w.line("")
        w.line("")


def _bots(gen: Generator, w: PyWriter) -> None:
    p = gen.p
    for bot_index, decl in enumerate(p.bots.values()):
        for rule in decl.rules:
            if rule.action not in p.actions:
                continue
            params = p.actions[rule.action].active.params
            env = Env(frame=False).bind("me", "me")
            w.line(f"def bot{bot_index}_{ident(rule.action)}(S, me, args):", rule.span)
            with w.indented():
                for i, param in enumerate(params):
                    env = env.bind(param.name)
                    w.line(f"{env.local(param.name)} = args[{i}]")
                w.line(f"return {gen.expr(rule.score, env)}", rule.score.span)
            w.line("")
            w.line("")


def _registry(gen: Generator, w: PyWriter) -> None:
    p = gen.p
    for site in gen.sites:
        for part in (site["legal"], site["resume"], site["why"]):
            for level, text, span in part.lines:
                w.lines.append((level + w.level, text, span))
            w.line("")
            w.line("")
    w.line("SITES = [")
    with w.indented():
        for site in gen.sites:
            i = site["index"]
            w.line(
                f"_Site({i}, {site['kind']!r}, {site['players']}, site{i}_legal, site{i}_why, "
                f"site{i}_resume, {site['file']!r}, {site['line']!r}, {site['rule']!r}),"
            )
    w.line("]")
    w.line("PROCS = {" + ", ".join(f"{n!r}: {n}" for n in gen.frame_proc_names) + "}")
    # For checking saves: how many program counters each frame procedure has, and the
    # (procedure, program counter) a frame waits at when each site is the pending decision.
    w.line(
        "PROC_PCS = {"
        + ", ".join(f"{n!r}: {gen.frame_pcs[n]!r}" for n in gen.frame_proc_names)
        + "}"
    )
    w.line("SITE_FRAMES = [" + ", ".join(repr(site["frame"]) for site in gen.sites) + "]")
    w.line(
        "SITE_SECRETS = {"
        + ", ".join(
            f"{site['index']!r}: {site['secret']!r}" for site in gen.sites if site["secret"]
        )
        + "}"
    )
    w.line("FLOW_PROC = 's__flow'")
    final = p.flow is not None and p.flow.active.final is not None
    w.line(f"FINAL_PROC = {'s__final' if final else None!r}")
    w.line("ACTION_FRAMES = {")
    with w.indented():
        for name, versions in p.actions.items():
            decl = versions.active
            version = len(versions.versions) - 1
            params = "".join(f", {x.name!r}: a[{i}]" for i, x in enumerate(decl.params))
            w.line(
                f"{name!r}: lambda p, a: _Frame('a_{ident(name)}__{version}', {{'me': p{params}}}),"
            )
    w.line("}")
    w.line("ACTION_WHY = {" + ", ".join(f"{n!r}: A_{ident(n)}_why" for n in p.actions) + "}")
    w.line("ACTION_DESCS = {")
    with w.indented():
        for name, (descs, rank) in gen.action_descs.items():
            w.line(f"{name!r}: ({descs}, {rank!r}),")
    w.line("}")
    w.line("BOTS = {")
    with w.indented():
        for bot_index, decl in enumerate(p.bots.values()):
            entries = ", ".join(
                f"{r.action!r}: bot{bot_index}_{ident(r.action)}"
                for r in decl.rules
                if r.action in p.actions
            )
            w.line(f"{decl.name!r}: {{{entries}}},")
    w.line("}")
    w.line("SCENARIOS = [")
    with w.indented():
        for index, decl in enumerate(p.scenarios.values()):
            w.line(
                f"({decl.name!r}, {decl.players!r}, {decl.seed!r}, scenario_{index}, "
                f"{decl.span.file!r}, {decl.span.line!r}),"
            )
    w.line("]")
    w.line("INVARIANTS = [")
    with w.indented():
        for index, decl in enumerate(p.invariants.values()):
            w.line(f"({decl.name!r}, invariant_{index}, {decl.span.file!r}, {decl.span.line!r}),")
    w.line("]")
