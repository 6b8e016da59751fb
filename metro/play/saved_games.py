"""Games saved by `metro play`: the setup and the position, written and read back as untrusted input.

A save names its game so that it loads on another machine or checkout: a shipped game by its
name, any other game (and a variant, expansion or map given as a file) by a path relative to
the save's folder. Reading one checks every part and names the bad one by its JSON path
(`$.bots["2"]`, `$.state.player_state[0].chips_left`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import resources

from dsl.files import UnreadableFile, read_regular
from loader import load_game
from loader.games import GAME_FILE_NAMES, GAME_NAME, names_a_file, shipped_games, shipped_name
from metro.bots import make_bot
from metro.play.moves import MoveLog, replayed
from runtime import saves
from runtime.errors import IllegalAction, InvalidSave
from runtime.machine import Game, State
from runtime.saves import MAX_SAVE_CHARS

SAVE_FORMAT = "metro-play/2"
# Saves before names and relative paths: the game and files as typed where it was saved.
PATHS_AS_TYPED_FORMAT = "metro-play/1"
# A character of UTF-8 takes at most four bytes.
MAX_SAVE_BYTES = MAX_SAVE_CHARS * 4


class SaveError(Exception):
    """A save that cannot be continued; the message names the file's part that is wrong."""


@dataclass
class Setup:
    """How the game was set up: what a save records to continue it."""

    game: str  # where the game is: a path (a shipped game's folder, or the user's file or folder)
    variants: tuple[str, ...]  # names, or paths of .metro files
    expansions: tuple[str, ...]
    map: str | None  # a path
    humans: tuple[int, ...]  # 0-based seats played by people
    bots: dict[int, str]  # seat -> bot spec, for every other seat
    seed: str

    def to_doc(self, save_folder: str) -> dict:
        """The JSON of a save's header, with its files named from `save_folder`."""
        return {
            "game": game_reference(self.game, save_folder),
            "variants": [_file_reference(v, save_folder) for v in self.variants],
            "expansions": [_file_reference(e, save_folder) for e in self.expansions],
            "map": None if self.map is None else _relative(self.map, save_folder),
            "humans": [h + 1 for h in self.humans],
            "bots": {str(seat + 1): spec for seat, spec in sorted(self.bots.items())},
            "seed": self.seed,
        }


@dataclass
class SavedGame:
    """A save read back: its setup, the compiled game, the position and the log of its moves."""

    setup: Setup
    game: Game
    state: State
    log: MoveLog


def write_save(path: str, setup: Setup, state: State) -> None:
    """Write the game to `path` (JSON: the setup and the state); OSError if it cannot be written."""
    doc = {
        "format": SAVE_FORMAT,
        **setup.to_doc(os.path.dirname(os.path.abspath(path))),
        "state": state.to_doc(),
    }
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(doc, handle, ensure_ascii=False)


def game_reference(path: str, save_folder: str) -> str:
    """A shipped game's name, or the game's path relative to the save's folder."""
    name = shipped_name(path)
    return name if name is not None else _relative(path, save_folder)


def load_saved_game(path: str, game_path: str | None = None) -> SavedGame:
    """The game saved at `path`, every part checked (SaveError naming the part that is wrong);
    `game_path`, if given, is the game to continue instead of the one the save names."""
    doc = read_save(path)
    setup = setup_from_save(doc, os.path.dirname(os.path.abspath(path)), game_path)
    game = load_game(
        setup.game, expansions=setup.expansions, variants=setup.variants, map=setup.map
    )
    for seat, spec in sorted(setup.bots.items()):
        try:
            make_bot(spec, 0, game)
        except ValueError as error:
            raise SaveError(f"at $.bots[{json.dumps(str(seat + 1))}]: {error}") from None
    state, log = resume(game, setup, doc)
    return SavedGame(setup, game, state, log)


def read_save(path: str) -> dict:
    """The JSON of a save, its header checked (SaveError saying why not); the state is checked later."""
    text = read_save_text(path)
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        raise SaveError(f"{path} is not a saved game (not JSON: {error})") from None
    if not isinstance(doc, dict) or doc.get("format") not in (SAVE_FORMAT, PATHS_AS_TYPED_FORMAT):
        raise SaveError(f"{path} is not a game saved by `metro play` (no format {SAVE_FORMAT!r})")
    _check(doc, "game", str)
    _check(doc, "seed", str)
    _check(doc, "variants", list, str)
    _check(doc, "expansions", list, str)
    _check(doc, "humans", list, int)
    if doc.get("map") is not None:
        _check(doc, "map", str)
    bots = doc.get("bots")
    if not isinstance(bots, dict) or not all(
        isinstance(k, str) and k.isdigit() and isinstance(v, str) for k, v in bots.items()
    ):
        raise SaveError("at $.bots: not a table of seat numbers to bot names")
    if not isinstance(doc.get("state"), dict):
        raise SaveError("at $.state: the save has no state")
    return doc


def read_save_text(path: str) -> str:
    """The text of a save file: a regular file (never a FIFO or device) of bounded size."""
    try:
        data = read_regular(path, MAX_SAVE_BYTES)
    except UnreadableFile as error:
        raise SaveError(str(error)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SaveError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    if len(text) > MAX_SAVE_CHARS:
        raise SaveError(f"{path} is larger than a save can be ({MAX_SAVE_CHARS} characters)")
    return text


def _check(doc: dict, key: str, kind: type, item: type | None = None) -> None:
    value = doc.get(key)
    ok = isinstance(value, kind) and not isinstance(value, bool)
    if ok and item is not None:
        ok = all(isinstance(v, item) and not isinstance(v, bool) for v in value)
    if ok and kind is str:
        ok = len(value) <= 1000 and value.isprintable()
    if not ok:
        raise SaveError(f"at $.{key}: missing or not a {kind.__name__}")


def setup_from_save(doc: dict, save_folder: str, game_path: str | None = None) -> Setup:
    """The setup a save records, its files found from `save_folder` (seats checked later)."""
    as_typed = doc["format"] == PATHS_AS_TYPED_FORMAT
    game = game_path if game_path is not None else _game_path(doc["game"], save_folder, as_typed)
    return Setup(
        game,
        tuple(_file_path(v, save_folder, as_typed) for v in doc["variants"]),
        tuple(_file_path(e, save_folder, as_typed) for e in doc["expansions"]),
        None if doc.get("map") is None else _local(doc["map"], save_folder, as_typed),
        tuple(sorted({h - 1 for h in doc["humans"]})),
        {int(seat) - 1: spec for seat, spec in doc["bots"].items()},
        doc["seed"],
    )


def resume(game: Game, setup: Setup, doc: dict) -> tuple[State, MoveLog]:
    """The saved position (checked as untrusted input) and the log of its moves."""
    try:
        with saves.at("state"):
            state = game.state_from_json(doc["state"])
    except InvalidSave as error:
        raise SaveError(str(error)) from None
    seats = set(range(state.n))
    if not setup.humans or set(setup.humans) | set(setup.bots) != seats:
        raise SaveError("at $.humans: `humans` and `bots` do not name every seat of its game once")
    if set(setup.humans) & set(setup.bots):
        raise SaveError("at $.humans: a seat is named both as a person's and as a bot's")
    try:
        again, log = replayed(game, state.n, state.seed, state.history)
    except (IllegalAction, ValueError):
        again, log = None, MoveLog()
    if again is None or again.to_json() != state.to_json():
        log = MoveLog()  # the history does not lead to this position: no moves to show
    return state, log


def _game_path(reference: str, save_folder: str, as_typed: bool) -> str:
    if GAME_NAME.fullmatch(reference) and reference in shipped_games():
        return str(resources.files("games").joinpath(reference))
    if as_typed and not os.path.exists(reference):
        # An older save names a shipped game by its folder in another checkout.
        parts = os.path.normpath(reference).split(os.sep)
        if parts[-1] in GAME_FILE_NAMES:
            parts.pop()
        if len(parts) >= 2 and parts[-2] == "games" and parts[-1] in shipped_games():
            return str(resources.files("games").joinpath(parts[-1]))
    path = _local(reference, save_folder, as_typed)
    if not os.path.exists(path):
        raise SaveError(
            f"at $.game: no shipped game named {reference!r} and no game at {path} "
            f"(shipped: {', '.join(shipped_games())})"
        )
    return path


def _file_reference(patch: str, save_folder: str) -> str:
    return _relative(patch, save_folder) if names_a_file(patch) else patch


def _file_path(patch: str, save_folder: str, as_typed: bool) -> str:
    return _local(patch, save_folder, as_typed) if names_a_file(patch) else patch


def _relative(path: str, save_folder: str) -> str:
    relative = os.path.relpath(os.path.abspath(path), save_folder)
    # `./` keeps a game beside the save from reading as a shipped game's name.
    return relative if relative.startswith(os.pardir) else os.path.join(os.curdir, relative)


def _local(reference: str, save_folder: str, as_typed: bool) -> str:
    if as_typed or os.path.isabs(reference):
        return reference
    return os.path.normpath(os.path.join(save_folder, reference))
