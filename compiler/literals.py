"""Safe identifiers and literals: the only ways a rule file's names and values reach generated code."""

from __future__ import annotations

from runtime.geometry import Building, Frame, Shape


def ident(name: str) -> str:
    """A validated identifier fragment (the checker already refused anything else)."""
    if not (name.isascii() and name.replace("_", "a").isalnum()):
        raise ValueError(f"unsafe identifier {name!r}")
    return name


def lit(value) -> str:
    """A Python literal for a safe value (ints, bools, None, str, geometry, and containers of them)."""
    if value is None or isinstance(value, bool | int | str):
        return repr(value)
    if isinstance(value, Shape):
        return f"_shapes.Shape({lit(value.cells)})"
    if isinstance(value, Frame):
        return f"_shapes.Frame({lit(value.cells)})"
    if isinstance(value, Building):
        return f"_shapes.Building({lit(value.pieces)})"
    if isinstance(value, list):
        return "[" + ", ".join(lit(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + "".join(lit(v) + ", " for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot emit a literal of type {type(value).__name__}")
