"""The IR of a module as readable text: what `compile_game(..., stop_after=NAME)` holds after
a stage, for people comparing the stages (`metro compile --stop-after NAME`)."""

from __future__ import annotations

from dataclasses import fields, is_dataclass

from compiler import ir
from compiler.pyexpr import PyExpr

SKIPPED = {"span"}  # fields that locate rather than say what runs


def ir_text(module: ir.Module) -> str:
    """Every part of `module`, one field a line, statements indented under their owner."""
    lines: list[str] = []
    _write(module, 0, lines)
    return "\n".join(lines) + "\n"


def _write(value, depth: int, lines: list[str], label: str = "") -> None:
    """Append `value` (a node, a list of them or a plain value) as lines at `depth`."""
    pad = "  " * depth + (f"{label}: " if label else "")
    if isinstance(value, PyExpr):
        lines.append(pad + value.code)
    elif is_dataclass(value) and not isinstance(value, type):
        lines.append(pad + type(value).__name__)
        for f in fields(value):
            if f.name not in SKIPPED:
                _write(getattr(value, f.name), depth + 1, lines, f.name)
    elif isinstance(value, list | tuple) and any(is_dataclass(item) for item in value):
        lines.append(pad + f"[{len(value)}]")
        for item in value:
            _write(item, depth + 1, lines)
    else:
        lines.append(pad + repr(value))
