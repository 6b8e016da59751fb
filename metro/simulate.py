"""Deprecated: moved to `metro.analysis.simulate`; this path stays for old imports."""

from metro.analysis import simulate
from metro.deprecated import moved_module

moved_module(__name__, simulate)
