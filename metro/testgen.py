"""Deprecated: moved to `metro.testing.testgen`; this path stays for old imports."""

from metro.deprecated import moved_module
from metro.testing import testgen

moved_module(__name__, testgen)
