"""Text to AST: the public entry points, which check the input, parse it and report errors."""

from __future__ import annotations

from dataclasses import replace

from lark.exceptions import UnexpectedInput

from dsl import ast
from dsl.diagnostics import Diagnostics
from dsl.input_checks import MAX_FILE_BYTES, RULE_SUFFIX, check_text, read_source
from dsl.lark_hooks import (
    MAX_NESTING,
    MAX_NODES_PER_DECL,
    PlaceholderSyntax,
    build_ast,
    metro_parser,
)
from dsl.literals import Refused
from dsl.source import SourceFile, Span
from dsl.syntax_errors import syntax_diagnostic

# What the compiler, the tools and the tests import from here (each is defined beside its job).
__all__ = [
    "MAX_FILE_BYTES",
    "MAX_NESTING",
    "MAX_NODES_PER_DECL",
    "RULE_SUFFIX",
    "metro_parser",
    "parse",
    "read_source",
]


def parse(text: str, filename: str) -> ast.File:
    """Parse one file; raise CompileError with diagnostics on any problem."""
    source = SourceFile(filename, text)
    check_text(source)
    diags = Diagnostics()
    try:
        return build_ast(text, filename)
    except UnexpectedInput as error:
        diags.items.append(syntax_diagnostic(error, text, filename))
    except PlaceholderSyntax as error:  # inside a label: located like any other syntax error
        found = syntax_diagnostic(error.error, error.text, filename)
        message = found.message.replace("the file ends", "the label's placeholder ends")
        diags.items.append(replace(found, message=message))
    except Refused as error:
        diags.error(error.code, str(error), Span.point(filename, *error.where))
    diags.raise_if_errors({filename: source})
    raise AssertionError("unreachable: a parse failure is always an error")
