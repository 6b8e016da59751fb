"""Deprecated: moved to `metro.testing.scenarios`; this path stays for old imports."""

from metro.deprecated import moved_module
from metro.testing import scenarios

moved_module(__name__, scenarios)
