"""Write a network as a small GTFS feed: a parent station per station, a platform per line and
station, one trip each way per branch, transfers with the routes they name. The same network
always gives the same bytes (a zip's members carry a fixed time)."""

from __future__ import annotations

import csv
import io
import os
import zipfile

from metro.network.model import Network
from metro.output_files import write_output

FIXED_TIME = (2020, 1, 1, 0, 0, 0)  # zip members' time: the same feed, the same bytes


def feed_files(network: Network, agency: str = "metro") -> dict[str, str]:
    """The feed's files: name -> text."""
    platform: dict[tuple[str, str], str] = {}  # (line id, station id) -> platform stop id
    codes: dict[tuple[str, str], str] = {}
    for line in network.lines:
        for branch in line.branches:
            for stop in branch:
                key = (line.id, stop.station)
                platform.setdefault(key, f"{line.id}:{stop.station}")
                codes.setdefault(key, stop.code)
    stops = [["stop_id", "stop_code", "stop_name", "stop_lat", "stop_lon", "location_type",
              "parent_station"]]  # fmt: skip
    stops += [
        [station.id, "", station.name, repr(station.lat), repr(station.lon), "1", ""]
        for station in network.stations
    ]
    for (line, station), ident in platform.items():
        where = network.station(station)
        stops.append(
            [
                ident,
                codes[line, station],
                where.name,
                repr(where.lat),
                repr(where.lon),
                "0",
                station,
            ]
        )
    routes = [["route_id", "agency_id", "route_short_name", "route_long_name", "route_type",
               "route_color"]]  # fmt: skip
    trips = [["route_id", "service_id", "trip_id", "direction_id"]]
    times = [["trip_id", "arrival_time", "departure_time", "stop_id", "stop_sequence"]]
    for line in network.lines:
        colour = (line.colour or "").removeprefix("#").upper()
        routes.append([line.id, "A", line.short_name, line.long_name, str(line.route_type), colour])
        for number, branch in enumerate(line.branches, start=1):
            for direction, path in ((0, branch), (1, branch[::-1])):
                trip = f"{line.id}-{number}-{direction}"
                trips.append([line.id, "daily", trip, str(direction)])
                for order, stop in enumerate(path, start=1):
                    clock = _clock(6 * 3600 + 120 * (order - 1))
                    times.append([trip, clock, clock, platform[line.id, stop.station], str(order)])
    transfers = [["from_stop_id", "to_stop_id", "transfer_type", "from_route_id", "to_route_id"]]
    transfers += [
        [t.from_station, t.to_station, "0", t.from_line or "", t.to_line or ""]
        for t in network.transfers
    ]
    tables = {
        "agency.txt": [
            ["agency_id", "agency_name", "agency_url", "agency_timezone"],
            ["A", agency, "https://example.org/", "UTC"],
        ],
        "calendar.txt": [
            [
                "service_id",
                "monday",
                "tuesday",
                "wednesday",
                "thursday",
                "friday",
                "saturday",
                "sunday",
                "start_date",
                "end_date",
            ],
            ["daily", "1", "1", "1", "1", "1", "1", "1", "20200101", "20301231"],
        ],
        "stops.txt": stops,
        "routes.txt": routes,
        "trips.txt": trips,
        "stop_times.txt": times,
        "transfers.txt": transfers,
    }
    return {name: _csv(rows) for name, rows in tables.items()}


def write_feed(network: Network, path: str) -> None:
    """Write the feed to `path`: a zip file when it ends in .zip, else a folder."""
    files = feed_files(network)
    if not path.endswith(".zip"):
        os.makedirs(path, exist_ok=True)
        for name, text in files.items():
            write_output(os.path.join(path, name), text)
        return
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(zipfile.ZipInfo(name, FIXED_TIME), text.encode("utf-8"))
    temporary = f"{path}.tmp"
    with open(temporary, "wb") as out:
        out.write(buffer.getvalue())
    os.replace(temporary, path)


def _clock(seconds: int) -> str:
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()
