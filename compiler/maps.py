"""Pass `validate_maps`: map data against the game's schema, then the game's checks."""

from __future__ import annotations

import networkx as nx

from compiler.checked import CheckedProgram
from compiler.consteval import (
    BrokenElementRead,
    EvalBudgetError,
    EvalError,
    Evaluator,
    MapData,
)
from compiler.refs import BuiltinRef
from compiler.types import BoolT, CollT, ElemT, EnumT, GeoT, IntT, OptT, StrT, Type
from dsl import ast
from dsl.diagnostics import MAP_CHECK, MAP_DATA, Diagnostics, Related, did_you_mean
from runtime.geometry import Frame, Shape


def build_map_data(cp: CheckedProgram, diags: Diagnostics) -> MapData:
    """Element tables for every kind, checked against the schema."""
    program = cp.program
    data = MapData(
        {k: [] for k in program.kinds},
        {k: {} for k in program.kinds},
        {k: [] for k in program.kinds},
    )
    items = [item for map_file in program.map_files for item in map_file.items]
    for item in items:
        if item.kind not in program.kinds:
            known = ", ".join(program.kinds) or "none"
            diags.error(
                MAP_DATA,
                f"unknown map kind '{item.kind}' (the schema declares: {known})",
                item.span,
                *did_you_mean(item.kind, program.kinds),
            )
            continue
        # Action ids quote any text exactly (runtime/action_ids.py); these names would only confuse.
        if not item.ident.isprintable() or item.ident != item.ident.strip() or not item.ident:
            diags.error(
                MAP_DATA,
                f"'{item.ident}' cannot name an element (empty, surrounding spaces "
                "or unprintable characters)",
                item.span,
            )
            continue
        if item.ident in data.ids[item.kind]:
            first = data.items[item.kind][data.ids[item.kind].index(item.ident)]
            diags.error(
                MAP_DATA,
                f"{item.kind} '{item.ident}' is declared twice",
                item.span,
                related=(Related("first declared", first.span),),
            )
            continue
        data.ids[item.kind].append(item.ident)
        data.items[item.kind].append(item)
    index = {kind: {ident: i for i, ident in enumerate(ids)} for kind, ids in data.ids.items()}
    for kind, decl in program.kinds.items():
        fields = cp.kind_fields.get(kind, [])
        columns: dict[str, list] = {name: [] for name, _ in fields}
        for i, item in enumerate(data.items[kind]):
            found_before = len(diags.items)
            values = _bind_args(item, decl, fields, diags)
            for (name, t), fdecl in zip(fields, decl.fields, strict=True):
                expr = values.get(name)
                columns[name].append(_value(cp, expr, t, fdecl, item, index, diags))
            if len(diags.items) > found_before:  # the checks do not read this element's fields
                data.broken.setdefault(kind, set()).add(i)
        data.fields[kind] = columns
    return data


def _bind_args(item: ast.MapItem, decl: ast.KindDecl, fields, diags: Diagnostics) -> dict:
    names = [name for name, _ in fields]
    bound: dict[str, ast.Expr] = {}
    positional = True
    for i, arg in enumerate(item.args):
        if arg.name is None:
            if not positional:
                diags.error(MAP_DATA, "a value without a field name after named ones", arg.span)
                continue
            if i >= len(names):
                diags.error(MAP_DATA, f"{item.kind} takes {len(names)} values", arg.span)
                continue
            bound[names[i]] = arg.value
        else:
            positional = False
            if arg.name not in names:
                diags.error(
                    MAP_DATA,
                    f"{item.kind} has no field '{arg.name}'",
                    arg.span,
                    *did_you_mean(arg.name, names),
                )
            elif arg.name in bound:
                diags.error(MAP_DATA, f"field '{arg.name}' given twice", arg.span)
            else:
                bound[arg.name] = arg.value
    return bound


def _value(cp, expr, t: Type, fdecl: ast.FieldDecl, item, index, diags: Diagnostics):
    where = expr.span if expr is not None else item.span
    if expr is None:
        if fdecl.default is not None:
            expr = fdecl.default
        elif isinstance(t, OptT):
            return None
        else:
            diags.error(
                MAP_DATA, f"{item.kind} '{item.ident}' needs a value for '{fdecl.name}'", item.span
            )
            return None
    if isinstance(expr, ast.NoneLit):
        if not isinstance(t, OptT):
            diags.error(MAP_DATA, f"'{fdecl.name}' cannot be none", where)
        return None
    base = t.inner if isinstance(t, OptT) else t
    if isinstance(base, CollT) and base.kind == "list":
        if not isinstance(expr, ast.ListLit):
            diags.error(MAP_DATA, f"'{fdecl.name}' is a list: [a, b, …]", where)
            return ()
        item_decl = ast.FieldDecl(
            fdecl.name,
            fdecl.type.item if isinstance(fdecl.type, ast.CollectionType) else fdecl.type,
            None,
            fdecl.span,
        )
        return tuple(_value(cp, e, base.item, item_decl, item, index, diags) for e in expr.items)
    if isinstance(base, ElemT):
        name = _ident(expr)
        if name is None:
            diags.error(MAP_DATA, f"'{fdecl.name}' names a {base.kind}", where)
            return None
        found = index.get(base.kind, {}).get(name)
        if found is None:
            diags.error(
                MAP_DATA,
                f"no {base.kind} '{name}' in the map",
                where,
                *did_you_mean(name, index.get(base.kind, {})),
            )
        return found
    if isinstance(base, EnumT):
        name = _ident(expr)
        values = cp.enum_values.get(base.name, [])
        if name not in values:
            diags.error(
                MAP_DATA, f"'{name}' is not a value of {base.name} ({' '.join(values)})", where
            )
            return None
        return values.index(name)
    if isinstance(base, IntT):
        number = _int(expr)
        if number is None:
            diags.error(MAP_DATA, f"'{fdecl.name}' is a number", where)
            return None
        if isinstance(fdecl.type, ast.RangeType):
            lo, hi = _int(fdecl.type.lo), _int(fdecl.type.hi)
            if lo is not None and hi is not None and not lo <= number <= hi:
                diags.error(MAP_DATA, f"'{fdecl.name}' must be in {lo}..{hi}, not {number}", where)
        return number
    if isinstance(base, BoolT):
        if isinstance(expr, ast.BoolLit):
            return expr.value
        diags.error(MAP_DATA, f"'{fdecl.name}' is true or false", where)
        return None
    if isinstance(base, GeoT) and base.kind in ("shape", "frame"):
        if not isinstance(expr, ast.StrLit):
            diags.error(MAP_DATA, f"'{fdecl.name}' is drawn as text, e.g. \"##/#.\"", where)
            return None
        try:
            if base.kind == "shape":
                return Shape.parse(expr.value.split("|"))
            frame = Frame.parse(expr.value)
            if not frame.cells:
                diags.error(MAP_DATA, f"'{fdecl.name}' is an empty frame", where)
            return frame
        except ValueError as error:
            diags.error(MAP_DATA, f"cannot read the drawing of '{fdecl.name}': {error}", where)
            return None
    if isinstance(base, StrT):
        if isinstance(expr, ast.StrLit):
            return expr.value
        diags.error(MAP_DATA, f"'{fdecl.name}' is text", where)
        return None
    diags.error(MAP_DATA, f"map fields of type {t} are not supported", fdecl.span)
    return None


def _ident(expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.name
    if isinstance(expr, ast.StrLit):
        return expr.value
    return None


def _int(expr) -> int | None:
    if isinstance(expr, ast.IntLit):
        return expr.value
    if isinstance(expr, ast.Neg) and isinstance(expr.operand, ast.IntLit):
        return -expr.operand.value
    return None


def run_checks(cp: CheckedProgram, data: MapData, evaluator: Evaluator, diags: Diagnostics) -> None:
    """Evaluate every `check` of the schema; a failure points at the offending map element.

    A whole-map check is one condition over all the map: when it is false no element is to
    blame, so the finding is placed at the check (the rule the map breaks) and names the map;
    a connectivity check is the exception, placed at the first element it finds cut off.
    The checks run even when some elements' data has errors (reported before), so that
    every independent finding shows at once; a check that reads such an element's fields,
    for one element or for the whole map, says nothing, since its answer is unknown. A check
    that cannot be evaluated for one element is still evaluated for the others.
    """
    paths = cp.program.map_paths + cp.program.library_data
    in_map = f"the map is in {', '.join(paths)}" if paths else "the game has no map file"
    for check in cp.program.checks.values():
        try:
            if check.var is None:
                failed = not evaluator.eval(check.cond, {})
                if failed and not _report_cut_off(cp, check, data, evaluator, diags):
                    message = f"map check failed: {check.message}"
                    diags.error(MAP_CHECK, message, check.span, in_map)
                continue
            for i, item in enumerate(data.items.get(check.kind, [])):
                try:
                    _check_element(check, i, item, evaluator, diags)
                except BrokenElementRead:
                    continue
                except EvalBudgetError:
                    raise  # the budget is spent for every check alike
                except EvalError as error:
                    _not_evaluated(check, error, f" for {check.kind} '{item.ident}'", diags)
        except BrokenElementRead:
            continue
        except EvalBudgetError as error:
            _not_evaluated(check, error, "", diags)
            return
        except EvalError as error:
            _not_evaluated(check, error, "", diags)


def _not_evaluated(check, error: EvalError, element: str, diags: Diagnostics) -> None:
    """Report a check that could not be evaluated (for one element, if `element` names it)."""
    diags.error(
        error.code or MAP_CHECK,
        f"cannot evaluate check '{check.message}'{element}: {error}",
        error.node.span,
    )


def _check_element(check, i: int, item, evaluator: Evaluator, diags: Diagnostics) -> None:
    """Report element `i` (`item`) if it passes the check's `where` and fails its condition."""
    env = {check.var: i}
    if check.where is not None and not evaluator.eval(check.where, env):
        return
    if not evaluator.eval(check.cond, env):
        diags.error(
            MAP_CHECK,
            f"{check.kind} '{item.ident}': {check.message}",
            item.span,
            f"check declared at {check.span}",
        )


SHOWN_CUT_OFF = 5  # further cut-off elements named in notes; the rest are counted


def _report_cut_off(cp, check, data: MapData, evaluator: Evaluator, diags: Diagnostics) -> bool:
    """Report a failed `graph_connected(edges, kind)` check at the elements it leaves apart."""
    cond = check.cond
    if not (
        isinstance(cond, ast.Call)
        and cond.func == "graph_connected"
        and isinstance(cp.ref(cond), BuiltinRef)
        and isinstance(cond.args[1], ast.Name)
        and cond.args[1].name in data.items
    ):
        return False
    edges_expr, kind_expr = cond.args
    kind, items = kind_expr.name, data.items[kind_expr.name]
    vertices = list(evaluator.concrete(evaluator.eval(kind_expr, {}), kind_expr))
    edges = evaluator.concrete(evaluator.eval(edges_expr, {}), edges_expr)
    graph = nx.MultiGraph()
    graph.add_nodes_from(vertices)
    graph.add_edges_from((a, b) for a, b, *_ in edges)
    reached = nx.node_connected_component(graph, vertices[0])
    apart = [items[v] for v in vertices if v not in reached]
    if not apart:  # disconnected only through vertices that are not elements of the kind
        return False
    first, *others = apart
    notes = [f"{kind} '{first.ident}' cannot be reached from {kind} '{items[vertices[0]].ident}'"]
    notes += [f"also cut off: {kind} '{o.ident}' at {o.span}" for o in others[:SHOWN_CUT_OFF]]
    if len(others) > SHOWN_CUT_OFF:
        notes.append(f"and {len(others) - SHOWN_CUT_OFF} more")
    notes.append(f"check declared at {check.span}")
    diags.error(MAP_CHECK, f"map check failed: {check.message}", first.span, *notes)
    return True
