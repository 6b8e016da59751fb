"""The compiler's version: written into every generated module and part of every cache key."""

COMPILER_VERSION = "metro-0.1.0/codegen-21"
