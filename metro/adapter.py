"""Deprecated: moved to `metro.conformance.adapter`; this path stays for old imports."""

from metro.conformance import adapter
from metro.deprecated import moved_module

moved_module(__name__, adapter)
