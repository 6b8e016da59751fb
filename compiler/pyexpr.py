"""Python expression fragments: an IR expression's node with its printed code, tidied of
redundant parentheses."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.expr import Expr

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# Characters that, found outside brackets and strings, make a fragment more than one operand.
_OPERATOR_CHARS = frozenset(" +-*/%<>=!&|^~,:@")


@dataclass(frozen=True, slots=True)
class PyExpr:
    """One Python expression of the IR: its node (compiler/expr.py) and the tidied code the
    printer (compiler/printer.py) wrote for it, with whether that is a single operand."""

    node: Expr
    code: str
    atomic: bool
    enclosed: bool = False  # one pair of parentheses encloses the whole code

    def bare(self) -> str:
        """The code where it stands alone (a statement, an assignment's value): outer parentheses dropped."""
        return strip_outer(self.code) if self.enclosed else self.code

    def operand(self) -> str:
        """The code where it is an operand of an operator: parenthesised unless atomic."""
        return self.code if self.atomic or self.enclosed else f"({self.code})"


def shaped(code: str) -> tuple[str, bool, bool]:
    """Generated expression text tidied, whether it is a single operand and whether one pair
    of parentheses encloses it."""
    code, pairs, strings = _tidy(code)
    enclosed = code.startswith("(") and pairs.get(0) == len(code) - 1
    return code, _atom_between(code, 0, len(code), pairs, strings), enclosed


def _string_end(code: str, i: int) -> int:
    """The index just past the string literal whose opening quote is at `i`."""
    quote = code[i]
    if code.startswith(quote * 3, i):
        end = code.find(quote * 3, i + 3)
        return len(code) if end < 0 else end + 3
    j = i + 1
    while j < len(code) and code[j] != quote:
        j += 2 if code[j] == "\\" else 1
    return j + 1


def _matching(code: str) -> tuple[dict[int, int], dict[int, int]]:
    """Opening bracket -> closing bracket indexes, and string start -> end, outside strings."""
    pairs: dict[int, int] = {}
    strings: dict[int, int] = {}
    stack: list[int] = []
    i = 0
    while i < len(code):
        char = code[i]
        if char in "'\"":
            strings[i] = _string_end(code, i)
            i = strings[i]
            continue
        if char in "([{":
            stack.append(i)
        elif char in ")]}" and stack:
            pairs[stack.pop()] = i
        i += 1
    return pairs, strings


def _atom_between(code: str, start: int, end: int, pairs, strings) -> bool:
    """True if code[start:end] is one operand: no operator outside its brackets and strings."""
    if start >= end:
        return False
    i = start
    while i < end:
        if i in strings:
            i = strings[i]
        elif i in pairs:
            i = pairs[i] + 1
        elif code[i] in _OPERATOR_CHARS:
            return False
        else:
            i += 1
    return True


def _top_level(code: str) -> str:
    """`code` with bracketed parts and string literals blanked out (what stays is top level)."""
    out = []
    depth = 0
    i = 0
    while i < len(code):
        char = code[i]
        if char in "'\"":
            end = _string_end(code, i)
            out.append("s" if depth == 0 else "")
            i = end
            continue
        if char in "([{":
            if depth == 0:
                out.append("(")
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                out.append(")")
        elif depth == 0:
            out.append(char)
        i += 1
    return "".join(out)


def _enclosed(code: str) -> bool:
    """True if one pair of parentheses encloses the whole of `code`."""
    return code.startswith("(") and _matching(code)[0].get(0) == len(code) - 1


def strip_outer(code: str) -> str:
    """`code` without enclosing parentheses that group nothing (kept for tuples and generators)."""
    while _enclosed(code):
        inner = code[1:-1]
        top = _top_level(inner)
        if not inner or "," in top or " for " in f" {top} " or "yield" in top:
            break
        code = inner
    return code


def tidy(code: str) -> str:
    """`code` without stacked parentheses `((x))` and without parentheses around a single operand."""
    return _tidy(code)[0]


def _tidy(code: str) -> tuple[str, dict[int, int], dict[int, int]]:
    """The tidied code with its bracket pairs and string spans."""
    pairs, strings = _matching(code)
    if "(" not in code:
        return code, pairs, strings
    drop: set[int] = set()
    for open_, close in pairs.items():
        if code[open_] != "(" or _is_call(code, open_):
            continue
        inner_open = open_ + 1
        stacked = (
            code[inner_open] == "("
            and pairs.get(inner_open) == close - 1
            and not _is_call(code, inner_open)
        )
        if stacked or (
            _atom_between(code, inner_open, close, pairs, strings)
            and not (
                code[inner_open:close].replace("_", "").isdigit()
                and code[close + 1 : close + 2] == "."
            )
        ):
            drop.update((open_, close))
    if not drop:
        return code, pairs, strings
    code = "".join(c for i, c in enumerate(code) if i not in drop)
    return (code, *_matching(code))


def _is_call(code: str, open_: int) -> bool:
    """True if the parenthesis at `open_` opens a call's arguments (or a tuple right after a name)."""
    preceding = code[:open_].rstrip()
    if not preceding:
        return False
    last = preceding[-1]
    if last in _NAME_CHARS:
        # A keyword before the parenthesis (`not (x)`, `in (a, b)`, `if (x)`) makes it a grouping.
        word = preceding.split()[-1] if preceding.split() else ""
        word = "".join(c for c in word if c in _NAME_CHARS)
        return word not in _KEYWORDS
    return last in ")]'\""


_KEYWORDS = frozenset({"not", "in", "is", "and", "or", "if", "else", "for", "return", "lambda"})
