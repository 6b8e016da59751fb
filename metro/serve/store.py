"""The database: each match's setup and its changes, one row each, written before they count.

SQLAlchemy Core over any URL: a SQLite file by default, PostgreSQL by `postgresql://…`. A
match's changes are an append-only list of rows keyed by (match, number): a decision, or the
taking back of one (an undo, `takes_back` naming the decision's number). The number of a new
row is the count of rows before it (the match's version), so each number is written once: a
second writer of the same number fails with `MatchChanged`, whichever process it runs in, and
a process catching up only reads rows past the last it saw.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError

DATABASE_FILE = "serve.sqlite3"

metadata = MetaData()
matches = Table(
    "matches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(200), nullable=False),
    Column("players", Integer, nullable=False),
    Column("seed", Text, nullable=False),  # JSON: a number or a text
    Column("variants", Text, nullable=False),  # JSON list of names
    Column("expansions", Text, nullable=False),  # JSON list of names
    Column("seats", Text, nullable=False),  # JSON list of SeatRecord fields
    Column("over", Integer, nullable=False, default=0),
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),  # the time of its last decision (or creation)
    Column("next_match", String(32), nullable=True),  # the match its seats played next, if any
    Column("invite_hash", String(64), nullable=True),  # its invitation's hash, if it has one
)
decisions = Table(
    "decisions",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("number", Integer, primary_key=True),  # 0 for the first row of the match
    Column("seat", Integer, nullable=False),
    Column("action", Text, nullable=False),  # the action id (an undo: the one taken back)
    Column("takes_back", Integer, nullable=True),  # an undo: the number of the decision
    # a decision a stand-in bot made for an absent person (which the person may not undo)
    Column("stand_in", Integer, nullable=False, server_default="0"),
)
messages = Table(
    "messages",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("number", Integer, primary_key=True),  # 0 for the first message of the match
    Column("seat", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("at", Float, nullable=False),  # when it was said
)
ADDED_COLUMNS = {  # columns a database from an earlier server lacks, and how they are added
    "decisions": {
        "takes_back": "takes_back INTEGER",  # before undo: its rows are decisions
        "stand_in": "stand_in INTEGER NOT NULL DEFAULT 0",  # before: no decision was a stand-in's
    },
    "matches": {  # before: no match was played again, nobody was invited
        "next_match": "next_match VARCHAR(32)",
        "invite_hash": "invite_hash VARCHAR(64)",
    },
}


class MatchChanged(Exception):
    """Another writer already recorded a row with this number for this match."""


class _AlreadyNext(Exception):
    """Another writer already recorded the match played after this one."""


@dataclass(frozen=True)
class SeatRecord:
    """A seat as stored: a bot's spec, or the hash of a person's token (neither: a seat the
    match's invitation still offers)."""

    bot: str | None = None
    token_hash: str | None = None

    @property
    def open(self) -> bool:
        """Whether the seat waits for someone invited to take it."""
        return self.bot is None and self.token_hash is None


@dataclass(frozen=True)
class MatchRecord:
    """A match as stored: everything needed to set it up again."""

    id: str
    game: str
    players: int
    seed: int | str
    variants: tuple[str, ...]
    expansions: tuple[str, ...]
    seats: tuple[SeatRecord, ...]
    next_match: str | None = None  # the match its seats began once it was over ("play again")
    invite_hash: str | None = None  # the hash of the invitation that takes its open seats


@dataclass(frozen=True)
class MessageRecord:
    """What a seat said in the match's chat, numbered from 0 in the order it was said."""

    number: int
    seat: int
    text: str


@dataclass(frozen=True)
class DecisionRecord:
    """One row as stored: a decision, or with `takes_back` the undo of decision `takes_back`."""

    number: int
    seat: int
    action: str
    takes_back: int | None = None
    stand_in: bool = False  # a decision a stand-in bot made for the seat's absent person


def live_decisions(rows: list[DecisionRecord]) -> list[DecisionRecord]:
    """The decisions that stand, in order: every row folded, undos taking theirs back."""
    standing: list[DecisionRecord] = []
    for row in rows:
        if row.takes_back is None:
            standing.append(row)
        elif standing and standing[-1].number == row.takes_back:
            standing.pop()
        else:
            raise ValueError(f"row {row.number} takes back {row.takes_back}, not the last decision")
    return standing


def _seats_json(seats) -> str:
    """Seats as the `seats` column holds them."""
    return json.dumps([{"bot": s.bot, "token_hash": s.token_hash} for s in seats])


def _new_match(record: MatchRecord):
    """The statement writing a new match."""
    return insert(matches).values(
        id=record.id,
        game=record.game,
        players=record.players,
        seed=json.dumps(record.seed),
        variants=json.dumps(list(record.variants)),
        expansions=json.dumps(list(record.expansions)),
        seats=_seats_json(record.seats),
        over=0,
        created=time.time(),
        updated=time.time(),
        invite_hash=record.invite_hash,
    )


def default_url() -> str:
    """A SQLite file in the user's data directory (created if missing)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
    folder = os.path.join(base, "metro")
    os.makedirs(folder, exist_ok=True)
    return "sqlite:///" + os.path.join(folder, DATABASE_FILE)


def _write_ahead(connection, _record) -> None:
    """SQLite: a write-ahead log, flushed to disk at checkpoints rather than at each commit.

    A commit is then in the operating system's hands when it returns, so a killed server
    loses nothing it acknowledged (only a power cut could lose the last few); it lets readers
    run beside the writer, and it made a decision's commit several times cheaper.
    """
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


class Store:
    """Matches and decisions in one database."""

    def __init__(self, url: str):
        self.engine = create_engine(url)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _write_ahead)
        metadata.create_all(self.engine)
        for table, added in ADDED_COLUMNS.items():
            columns = {c["name"] for c in inspect(self.engine).get_columns(table)}
            for name, column in added.items():
                if name not in columns:
                    with self.engine.begin() as db:
                        db.execute(text(f"ALTER TABLE {table} ADD COLUMN {column}"))

    def add_match(self, record: MatchRecord) -> None:
        """Write a new match."""
        with self.engine.begin() as db:
            db.execute(_new_match(record))

    def add_next_match(self, before: str, record: MatchRecord) -> str:
        """Write `record` as the match played after match `before`, unless one already is; the
        id of the match that is (written in one transaction: two asking at once make one)."""
        try:
            with self.engine.begin() as db:
                db.execute(_new_match(record))
                taken = db.execute(
                    update(matches)
                    .where(matches.c.id == before, matches.c.next_match.is_(None))
                    .values(next_match=record.id)
                )
                if taken.rowcount != 1:
                    raise _AlreadyNext  # leaving the block rolls the new match back
            return record.id
        except _AlreadyNext:
            pass
        known = self.match(before)
        if known is None or known.next_match is None:
            raise LookupError(f"no match {before} to play again")
        return known.next_match

    def add_row(self, match_id: str, row: DecisionRecord, over: bool) -> None:
        """Write a decision or an undo (committed when this returns); MatchChanged if its
        number is taken."""
        self._write_numbered(
            f"row {row.number} of {match_id}",
            insert(decisions).values(
                match_id=match_id,
                number=row.number,
                seat=row.seat,
                action=row.action,
                takes_back=row.takes_back,
                stand_in=int(row.stand_in),
            ),
            update(matches)
            .where(matches.c.id == match_id)
            .values(over=int(over), updated=time.time()),
        )

    def _write_numbered(self, what: str, *statements) -> None:
        """Run `statements` in one transaction, the first writing a numbered row; MatchChanged
        (naming `what`) if another writer took its number first."""
        try:
            with self.engine.begin() as db:
                for statement in statements:
                    db.execute(statement)
        except IntegrityError as error:
            raise MatchChanged(f"{what} is taken") from error

    def match(self, match_id: str) -> MatchRecord | None:
        """A stored match, or None."""
        with self.engine.connect() as db:
            row = db.execute(select(matches).where(matches.c.id == match_id)).first()
        if row is None:
            return None
        return MatchRecord(
            id=row.id,
            game=row.game,
            players=row.players,
            seed=json.loads(row.seed),
            variants=tuple(json.loads(row.variants)),
            expansions=tuple(json.loads(row.expansions)),
            seats=tuple(SeatRecord(**seat) for seat in json.loads(row.seats)),
            next_match=row.next_match,
            invite_hash=row.invite_hash,
        )

    def rows(self, match_id: str, start: int = 0) -> list[DecisionRecord]:
        """A match's rows (decisions and undos) from number `start` on, in order."""
        return [
            DecisionRecord(r.number, r.seat, r.action, r.takes_back, bool(r.stand_in))
            for r in self._numbered(decisions, match_id, start)
        ]

    def _numbered(self, table: Table, match_id: str, start: int) -> list:
        """The rows of a table numbered per match (decisions, messages) from `start` on."""
        query = (
            select(table)
            .where(table.c.match_id == match_id, table.c.number >= start)
            .order_by(table.c.number)
        )
        with self.engine.connect() as db:
            return list(db.execute(query))

    def take_seat(self, match_id: str, seat: int, token_hash: str) -> tuple[SeatRecord, ...] | None:
        """Give an open seat of a match to the person whose token hashes to `token_hash`; the
        match's seats then, or None if the seat was no longer open (two asking at once: one
        gets it; the seats are written only if they are still as they were read)."""
        with self.engine.begin() as db:
            before = db.execute(select(matches.c.seats).where(matches.c.id == match_id)).scalar()
            if before is None:
                return None
            seats = [SeatRecord(**entry) for entry in json.loads(before)]
            if not 0 <= seat < len(seats) or not seats[seat].open:
                return None
            seats[seat] = SeatRecord(token_hash=token_hash)
            after = _seats_json(seats)
            taken = db.execute(
                update(matches)
                .where(matches.c.id == match_id, matches.c.seats == before)
                .values(seats=after)
            )
            return tuple(seats) if taken.rowcount == 1 else None

    def add_message(self, match_id: str, message: MessageRecord) -> None:
        """Write a message of a match's chat; MatchChanged if its number is taken."""
        self._write_numbered(
            f"message {message.number} of {match_id}",
            insert(messages).values(
                match_id=match_id,
                number=message.number,
                seat=message.seat,
                text=message.text,
                at=time.time(),
            ),
        )

    def messages(self, match_id: str, start: int = 0) -> list[MessageRecord]:
        """A match's chat from message number `start` on, in order."""
        return [
            MessageRecord(r.number, r.seat, r.text)
            for r in self._numbered(messages, match_id, start)
        ]

    def open_matches(self, since: float) -> int:
        """How many stored matches are not over and had a decision (or began) after `since`."""
        query = select(func.count()).where(matches.c.over == 0, matches.c.updated > since)
        with self.engine.connect() as db:
            return db.execute(query).scalar_one()
