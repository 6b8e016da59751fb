"""Deprecated: moved to `metro.testing.pytest_plugin`; this path stays for old imports."""

from metro.deprecated import moved_module
from metro.testing import pytest_plugin

moved_module(__name__, pytest_plugin)
