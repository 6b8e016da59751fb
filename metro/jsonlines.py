"""Deprecated: moved to `metro.conformance.jsonlines`; this path stays for old imports."""

from metro.conformance import jsonlines
from metro.deprecated import moved_module

moved_module(__name__, jsonlines)
