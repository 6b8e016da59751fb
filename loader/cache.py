"""Generated modules cached on disk, each entry bound to a key over every input and the compiler.

An entry is the module's text (`KEY.py`, for people and tracebacks) and its compiled code
(`KEY.code`, what a load runs: compiling the text is most of a load's time). Both carry a
checksum over the key and their content; anything that does not verify is compiled again.
Loading an entry runs it, so entries are only read from a directory no one else can write to.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import stat
import tempfile
from functools import cache
from importlib.util import MAGIC_NUMBER
from types import CodeType

from compiler.libraries import LIBRARY_ROOT, library_files
from compiler.version import COMPILER_VERSION
from dsl.files import UnreadableFile, read_regular
from dsl.input_checks import MAX_FILE_BYTES, RULE_SUFFIX

CHECK_PREFIX = "# metro-checksum: "
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # a larger module is compiled each time, never cached
# Every package whose source shapes a generated module (runtime too: constant evaluation uses it),
# each walked with all its subfolders: a pass in compiler/check/ changes modules as much as codegen.
CODE_FOLDERS = ("compiler", "dsl", "grammar", "runtime")
CODE_SUFFIXES = (".py", ".jinja", ".lark")
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cache_dir() -> str:
    """Where generated modules are kept ($METRO_CACHE_DIR or ~/.cache/metro)."""
    base = os.environ.get("METRO_CACHE_DIR")
    if not base:
        base = os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "metro"
        )
    return base


@cache
def code_digest(root: str = _ROOT) -> str:
    """sha256 of the compiler version and the source of every code folder (computed once a process)."""
    digest = hashlib.sha256(COMPILER_VERSION.encode() + b"\0")
    for name in code_files(root):
        with open(os.path.join(root, name), "rb") as handle:
            _frame(digest, name, handle.read())
    return digest.hexdigest()


def code_files(root: str = _ROOT) -> list[str]:
    """Every source file under the code folders, with all their subfolders, as sorted relative paths."""
    found = []
    for folder in CODE_FOLDERS:
        for base, subfolders, names in os.walk(os.path.join(root, folder)):
            subfolders[:] = [name for name in subfolders if name != "__pycache__"]
            relative = os.path.relpath(base, root).replace(os.sep, "/")
            found.extend(f"{relative}/{name}" for name in names if name.endswith(CODE_SUFFIXES))
    return sorted(found)


def input_files(game_file: str, extra: list[str], library_root: str | None = None) -> list[str]:
    """Every .metro file that can influence a compile: the game's directory tree, the shared
    component libraries (any of them may be used by name) and the files named."""
    root = os.path.dirname(os.path.abspath(game_file))
    files = {os.path.abspath(path) for path in library_files(library_root or LIBRARY_ROOT)}
    for folder, _, names in os.walk(root):
        for name in names:
            if name.endswith(RULE_SUFFIX):
                files.add(os.path.join(folder, name))
    for path in extra:
        if path and os.path.lexists(path):
            files.add(os.path.abspath(path))
    return sorted(files)


def cache_key(game_file: str, extra: list[str], options: str) -> str:
    """sha256 of the code digest, the options, the game's path and every input file."""
    digest = hashlib.sha256(code_digest().encode())
    _frame(digest, "options", options.encode())
    # The game file itself is part of the key: two games may share a directory.
    _frame(digest, "game", os.path.abspath(game_file).encode())
    for path in input_files(game_file, extra):
        _frame(digest, path, _fingerprint(path))
    return digest.hexdigest()


def _fingerprint(path: str) -> bytes:
    # The real path counts: a link retargeted in or out of the game's tree changes the compile.
    real = os.path.realpath(path).encode()
    try:
        return real + b"\0" + read_regular(path, MAX_FILE_BYTES)
    except UnreadableFile as error:
        return real + b"\0unreadable: " + error.reason.encode()


def _frame(digest, name: str, data: bytes) -> None:
    # Lengths delimit each part, so no two different inputs hash the same bytes.
    head = name.encode("utf-8", "surrogateescape")
    digest.update(b"%d:%s%d:" % (len(head), head, len(data)) + data)


def _checksum(key: str, body: str) -> str:
    # The key is inside the checksum: an entry copied to another key's name does not verify.
    return hashlib.sha256(key.encode() + b"\0" + body.encode("utf-8", "surrogatepass")).hexdigest()


def _usable_dir(folder: str) -> bool:
    # Loading a module runs it: a directory someone else can write to is not trusted.
    try:
        info = os.stat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()


def load(key: str) -> str | None:
    """The cached module text, or None if absent, corrupt, stale or not this key's (never trusted blindly)."""
    folder = cache_dir()
    if not _usable_dir(folder):
        return None
    try:
        text = read_regular(os.path.join(folder, f"{key}.py"), MAX_ENTRY_BYTES, follow_links=False)
        text = text.decode("utf-8")
    except (UnreadableFile, UnicodeDecodeError):
        return None
    body, _, last = text.rstrip("\n").rpartition("\n")
    if not last.startswith(CHECK_PREFIX) or _checksum(key, body) != last[len(CHECK_PREFIX) :]:
        return None
    return body + "\n"


def store(key: str, source: str) -> None:
    """Write a module atomically with its key-bound checksum (failures only cost a recompile)."""
    body = source.rstrip("\n")
    text = body + "\n" + CHECK_PREFIX + _checksum(key, body) + "\n"
    with contextlib.suppress(UnicodeEncodeError):  # text that cannot be read back is not kept
        _write(f"{key}.py", text.encode("utf-8"))


def load_code(key: str) -> CodeType | None:
    """The cached compiled module, or None if absent, corrupt, stale, not this key's or not this Python's."""
    folder = cache_dir()
    if not _usable_dir(folder):
        return None
    try:
        data = read_regular(
            os.path.join(folder, f"{key}{CODE_SUFFIX}"), MAX_ENTRY_BYTES, follow_links=False
        )
    except UnreadableFile:
        return None
    head, payload = data[:_CODE_HEAD], data[_CODE_HEAD:]
    if head != MAGIC_NUMBER + _code_checksum(key, payload):
        return None
    try:
        code = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    return code if isinstance(code, CodeType) else None


def store_code(key: str, code: CodeType) -> None:
    """Write a compiled module with the interpreter's bytecode magic and a key-bound checksum."""
    payload = marshal.dumps(code)
    _write(f"{key}{CODE_SUFFIX}", MAGIC_NUMBER + _code_checksum(key, payload) + payload)


CODE_SUFFIX = ".code"
_CODE_HEAD = len(MAGIC_NUMBER) + hashlib.sha256().digest_size


def _code_checksum(key: str, payload: bytes) -> bytes:
    # The interpreter's magic is inside too: code compiled by another Python never loads.
    return hashlib.sha256(key.encode() + b"\0" + MAGIC_NUMBER + payload).digest()


def _write(name: str, data: bytes) -> None:
    """Write one entry atomically into a private cache directory (failures only cost a recompile)."""
    folder = cache_dir()
    if len(data) > MAX_ENTRY_BYTES:
        return
    try:
        if not os.path.isdir(folder):
            os.makedirs(folder, mode=0o700, exist_ok=True)
            os.chmod(folder, 0o700)  # the mode given to makedirs is narrowed by the umask only
        if not _usable_dir(folder):
            return
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")  # created 0o600
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, os.path.join(folder, name))
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
