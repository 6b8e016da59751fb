"""Deprecated: moved to `metro.analysis.compare`; this path stays for old imports."""

from metro.analysis import compare
from metro.deprecated import moved_module

moved_module(__name__, compare)
