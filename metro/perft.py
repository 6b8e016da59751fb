"""Deprecated: moved to `metro.conformance.perft`; this path stays for old imports."""

from metro.conformance import perft
from metro.deprecated import moved_module

moved_module(__name__, perft)
