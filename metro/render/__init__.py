"""Pictures of games: maps and positions drawn as the rules' `draw` declarations say (SVG, PNG)."""

import importlib

__all__ = ["Pictures", "map_scene", "open_pictures", "position_scene", "write_picture"]

_HOMES = {"write_picture": "files"}  # the others live in `pictures`, which needs the compiler


def __getattr__(name: str):
    # Imported when first asked for, so that `metro` commands that draw nothing stay light.
    if name not in __all__:
        raise AttributeError(f"module 'metro.render' has no attribute {name!r}")
    module = importlib.import_module(f"metro.render.{_HOMES.get(name, 'pictures')}")
    return getattr(module, name)
