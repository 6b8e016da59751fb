"""The language server for .metro files (`metro lsp`; needs the `lsp` extra: pygls)."""
