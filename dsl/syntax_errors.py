"""Syntax errors in words: what Lark found and expected, as a diagnostic pointing at the slip."""

from __future__ import annotations

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from dsl.diagnostics import SYNTAX, Diagnostic
from dsl.keywords import RESERVED_TERMINALS
from dsl.lark_hooks import metro_parser
from dsl.source import Span

# Terminals whose pattern is not what a person would type.
TERMINAL_WORDS = {
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a string",
    "$END": "the end of the file",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*', '/' or '%'",
    "COMP_OP": "a comparison",
    "ASSIGN_OP": "'='",
}

# Tokens that separate items: when one of them is expected right after a line break,
# the author most likely forgot it at the end of the previous line.
SEPARATORS = {",": "a comma", ")": "')'", "]": "']'", "}": "'}'", ":": "':'"}

# When every one of these is acceptable the parser wants an expression.
EXPRESSION_STARTS = {"NAME", "INT", "STRING"}


def describe_expected(names: set[str]) -> str:
    """Summarise the expected terminals as prose, e.g. "an expression or ')'"."""
    words: list[str] = []
    rest = set(names)
    if rest >= EXPRESSION_STARTS:
        words.append("an expression")
        rest -= EXPRESSION_STARTS | RESERVED_TERMINALS | {"LPAR", "LSQB", "LBRACE", "MINUS", "NOT"}
    for name in sorted(rest):
        if name in TERMINAL_WORDS:
            words.append(TERMINAL_WORDS[name])
        else:
            literal = _literal_of(name)
            words.append(f"'{literal}'" if literal is not None else name.lower())
    if not words:
        return "nothing more"
    if len(words) > 8:
        words = words[:8] + ["…"]
    return ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1]


def _literal_of(name: str) -> str | None:
    """The text of a terminal that matches one literal string (a keyword, a symbol), else None."""
    try:
        pattern = metro_parser().get_terminal(name).pattern
    except KeyError:
        return None
    return pattern.value if pattern.type == "str" else None


def syntax_diagnostic(error: UnexpectedInput, text: str, filename: str) -> Diagnostic:
    """The diagnostic for a syntax error Lark raised: what was found, what was expected, where."""
    if isinstance(error, UnexpectedCharacters):
        char = text[error.pos_in_stream] if error.pos_in_stream < len(text) else ""
        shown = char if char.isprintable() else f"U+{ord(char):04X}"
        message = f"unexpected character '{shown}'"
        if char and not char.isascii():
            message += " (names and keywords use ASCII letters, digits and '_')"
        return Diagnostic(SYNTAX, message, Span.point(filename, error.line, error.column))
    expected = set(error.expected) if getattr(error, "expected", None) else set()
    token = getattr(error, "token", None)
    if isinstance(error, UnexpectedEOF) or (token is not None and token.type == "$END"):
        lines = text.split("\n")
        span = Span.point(filename, len(lines), len(lines[-1]) + 1)
        opener = _unclosed_brace(text)
        if opener is not None:
            return Diagnostic(
                SYNTAX,
                "the file ends before a '{' is closed",
                span,
                notes=(f"the unclosed '{{' is at {filename}:{opener[0]}:{opener[1]}",),
            )
        return Diagnostic(
            SYNTAX,
            "the file ends too early; expected " + describe_expected(expected),
            span,
        )
    assert isinstance(error, UnexpectedToken)
    literals = {_literal_of(name) for name in expected}
    missing = [SEPARATORS[lit] for lit in SEPARATORS if lit in literals]
    previous = _previous_token_end(text, token.start_pos)
    if previous is not None and missing and token.line != previous[0]:
        # Lark reports the next line's first token; the slip is at the end of the previous one.
        line, col, word = previous
        span = Span.point(filename, line, col)
        return Diagnostic(
            SYNTAX,
            f"missing {missing[0]} after '{word}'",
            span,
            notes=(f"expected {describe_expected(expected)}",),
        )
    found = f"'{token.value}'" if token.value else token.type
    end_col = (
        token.end_column if token.end_line == token.line and token.end_column else token.column + 1
    )
    span = Span(filename, token.line, token.column, token.line, end_col)
    return Diagnostic(SYNTAX, f"unexpected {found}; expected " + describe_expected(expected), span)


def _previous_token_end(text: str, pos: int) -> tuple[int, int, str] | None:
    """Line and column just after the last code character before `pos`, and its word."""
    lines = text[:pos].split("\n")
    for back in range(len(lines) - 1, -1, -1):
        code = _strip_comment(lines[back]).rstrip()
        if back == len(lines) - 1 and code == lines[back].rstrip():
            code = lines[back].rstrip()
        if code:
            word = code.split()[-1][-20:]
            return back + 1, len(code) + 1, word
    return None


def _unclosed_brace(text: str) -> tuple[int, int] | None:
    """Line and column of the innermost '{' that is never closed."""
    stack: list[tuple[int, int]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        in_string = False
        for col, char in enumerate(_strip_comment(line), start=1):
            if char == '"' and (col == 1 or line[col - 2] != "\\"):
                in_string = not in_string
            elif not in_string and char == "{":
                stack.append((number, col))
            elif not in_string and char == "}" and stack:
                stack.pop()
    return stack[-1] if stack else None


def _strip_comment(line: str) -> str:
    """The line without its `#` comment (a `#` inside a string is kept)."""
    in_string = False
    for index, char in enumerate(line):
        if char == '"' and (index == 0 or line[index - 1] != "\\"):
            in_string = not in_string
        elif char == "#" and not in_string:
            return line[:index]
    return line
