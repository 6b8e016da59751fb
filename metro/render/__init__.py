"""Pictures of games: maps and positions drawn as the rules' `draw` declarations say (SVG, PNG)."""

from metro.render.files import write_picture
from metro.render.pictures import Pictures, map_scene, open_pictures, position_scene

__all__ = ["Pictures", "map_scene", "open_pictures", "position_scene", "write_picture"]
