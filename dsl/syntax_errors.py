"""Syntax errors in words: terminal names as prose, and the expected set summarised."""

from __future__ import annotations

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


def describe_expected(names: set[str], literal_of) -> str:
    """Summarise the expected terminals as prose, e.g. "an expression or ')'"."""
    words: list[str] = []
    rest = set(names)
    if EXPRESSION_STARTS <= rest:
        words.append("an expression")
        rest -= EXPRESSION_STARTS | {
            "LPAR",
            "LSQB",
            "LBRACE",
            "MINUS",
            "NOT",
            "TRUE",
            "FALSE",
            "NONE",
            "PLAYERS",
            "ME",
            "SUPER",
        }
    for name in sorted(rest):
        if name in TERMINAL_WORDS:
            words.append(TERMINAL_WORDS[name])
        else:
            literal = literal_of(name)
            words.append(f"'{literal}'" if literal is not None else name.lower())
    if not words:
        return "nothing more"
    if len(words) > 8:
        words = words[:8] + ["…"]
    return ", ".join(words[:-1]) + (" or " if len(words) > 1 else "") + words[-1]
