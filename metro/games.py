"""Deprecated: moved to `loader.games`; this path stays for old imports."""

from loader import games
from metro.deprecated import moved_module

moved_module(__name__, games)
