"""The London network of tests/data/london as a city network (for a GTFS feed): each line's
trips run between every two ends of its track (stations with one neighbour on the line) along
the fewest stations, and a line without ends (a loop) runs once round from its first station."""

from __future__ import annotations

import csv
import itertools
import os

import networkx as nx

from metro.network import Line, LineStop, Network, Station

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "london")


def rows(name: str) -> list[dict[str, str]]:
    with open(os.path.join(DATA, name), encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def london_network() -> Network:
    """The London network, one branch per trip (the importer finds the main line itself)."""
    stations = tuple(
        Station(r["id"], r["name"], float(r["lat"]), float(r["lon"])) for r in rows("stations.tsv")
    )
    links = rows("links.tsv")
    lines = []
    for line in rows("lines.tsv"):
        track = nx.Graph()
        track.add_edges_from((r["a"], r["b"]) for r in links if r["line"] == line["line"])
        ends = sorted((n for n in track if track.degree(n) == 1), key=int)
        if ends:
            paths = [nx.shortest_path(track, a, b) for a, b in itertools.combinations(ends, 2)]
        else:  # a loop: once round, back to where it started
            start = min(track, key=int)
            cycle = [a for a, _ in nx.find_cycle(track, start)]
            paths = [[*cycle, start]]
        branches = tuple(tuple(LineStop(s, s) for s in path) for path in paths)
        lines.append(
            Line(line["line"], "", line["name"], "#" + line["colour"].lower(), 1, branches)
        )
    served = {s.station for line in lines for b in line.branches for s in b}
    return Network(
        "London", tuple(s for s in stations if s.id in served), tuple(lines), transfers=()
    )
