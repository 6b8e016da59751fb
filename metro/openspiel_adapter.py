"""Deprecated: moved to `metro.rl.openspiel_adapter`; this path stays for old imports."""

from metro.deprecated import moved_module
from metro.rl import openspiel_adapter

moved_module(__name__, openspiel_adapter)
