"""Front end of the .metro language: source text to a typed AST with diagnostics."""
