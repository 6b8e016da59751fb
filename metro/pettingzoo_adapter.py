"""Deprecated: moved to `metro.rl.pettingzoo_adapter`; this path stays for old imports."""

from metro.deprecated import moved_module
from metro.rl import pettingzoo_adapter

moved_module(__name__, pettingzoo_adapter)
