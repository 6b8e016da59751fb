"""Deprecated: moved to `metro.testing.battery`; this path stays for old imports."""

from metro.deprecated import moved_module
from metro.testing import battery

moved_module(__name__, battery)
