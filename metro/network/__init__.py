"""City networks: stations, lines and transfers as a transit agency publishes them, read from
GTFS feeds (`gtfs`), written back as feeds (`feed_writer`), independent of any game. How a
network becomes a game's board is the game's own business (`games/<game>/tools/city_import.py`,
run by `metro import gtfs`)."""

from metro.network.model import FeedError, Line, LineStop, Network, Origin, Station, Transfer

__all__ = ["FeedError", "Line", "LineStop", "Network", "Origin", "Station", "Transfer"]
