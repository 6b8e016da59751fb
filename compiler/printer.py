"""The one printer of expression nodes (compiler/expr.py): Python text, as emit writes it."""

from __future__ import annotations

from compiler import expr as e
from compiler.literals import lit
from compiler.pyexpr import PyExpr, shaped, tidy
from compiler.sources import location_name

_OPEN = {"list": "[", "tuple": "(", "set": "{", "dict": "{", "gen": "", "bare": ""}
_CLOSE = {"list": "]", "tuple": ")", "set": "}", "dict": "}", "gen": "", "bare": ""}


def py(node: e.Expr) -> str:
    """The Python text of an expression node."""
    return _PRINT[type(node)](node)


def ir_expr(node: e.Expr) -> PyExpr:
    """An IR expression: the node with its tidied text."""
    return PyExpr(node, *shaped(py(node)))


def py_expanded(node: e.Expr, values: dict[e.Expr, e.Expr]) -> str:
    """The tidied text of `node` with each of its subtrees that is a key of `values` written as
    that value's own tidied text in parentheses (as a value put in for its alias reads)."""
    holes = {sub: e.Name(f"\x00{number}\x00") for number, sub in enumerate(values)}
    text = tidy(py(e.substitute(node, holes)))
    for sub, hole in holes.items():
        if hole.id in text:
            text = text.replace(hole.id, f"({py_expanded(values[sub], values)})")
    return text


def _display(node: e.Display) -> str:
    if node.kind == "tuple":  # a trailing comma after each item: `(a, )` is a tuple of one
        return "(" + "".join(py(item) + ", " for item in node.items) + ")"
    if node.kind == "bare" and len(node.items) == 1:  # `a,`: a tuple of one, as Python writes it
        return py(node.items[0]) + ","
    return _OPEN[node.kind] + ", ".join(py(item) for item in node.items) + _CLOSE[node.kind]


def _comp(node: e.Comp) -> str:
    inner = py(node.elem) + "".join(" " + py(clause) for clause in node.clauses)
    return _OPEN[node.kind] + inner + _CLOSE[node.kind]


def _lambda(node: e.Lambda) -> str:
    params = " " + ", ".join(node.params) if node.params else ""
    return f"lambda{params}: {py(node.body)}"


def _format(node: e.Format) -> str:
    parts = (_format_text(p) if isinstance(p, str) else f"{{{py(p)}!r}}" for p in node.parts)
    return "f'" + "".join(parts) + "'"


def _format_text(text: str) -> str:
    """`text` as it is written between an f-string's single quotes."""
    body = repr(text)[1:-1]
    if repr(text)[0] == '"':  # repr chose double quotes for a text holding a single one
        body = body.replace("'", "\\'")
    return body.replace("{", "{{").replace("}", "}}")


_PRINT = {
    e.Name: lambda n: n.id,
    e.Local: lambda n: n.id,
    e.FrameLocal: lambda n: f"L[{n.name!r}]",
    e.Hoisted: lambda n: f"_h{n.number}",
    e.Listing: lambda n: f"A_{n.action}_legal",
    e.Helper: lambda n: f"{n.module}.{n.name}",
    e.StateField: lambda n: f"S.{n.name}",
    e.Table: lambda n: f"K_{n.kind}__{n.field}",
    e.Const: lambda n: lit(n.value),
    e.Loc: lambda n: location_name(n.source, n.line, n.col),
    e.Attr: lambda n: f"{py(n.obj)}.{n.name}",
    e.Index: lambda n: f"{py(n.obj)}[{py(n.index)}]",
    e.Call: lambda n: f"{py(n.func)}({', '.join(py(a) for a in n.args)})",
    e.BinOp: lambda n: f"{py(n.left)} {n.op} {py(n.right)}",
    e.Unary: lambda n: f"not {py(n.operand)}" if n.op == "not" else f"{n.op}{py(n.operand)}",
    e.Paren: lambda n: f"({py(n.inner)})",
    e.Operand: lambda n: ir_expr(n.inner).operand(),
    e.Cond: lambda n: f"{py(n.then)} if {py(n.cond)} else {py(n.orelse)}",
    e.Display: _display,
    e.Pair: lambda n: f"{py(n.key)}: {py(n.value)}",
    e.Starred: lambda n: f"*{py(n.value)}",
    e.For: lambda n: f"for {py(n.target)} in {py(n.iterable)}",
    e.If: lambda n: f"if {py(n.cond)}",
    e.Comp: _comp,
    e.Slice: lambda n: ":".join("" if p is None else py(p) for p in (n.start, n.stop)),
    e.Lambda: _lambda,
    e.Format: _format,
    e.Code: lambda n: "".join(p if isinstance(p, str) else py(p) for p in n.parts),
}
