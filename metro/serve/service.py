"""The authority: runs every match, checks every decision, records it, then applies it.

A decision counts once it is in the database: it is checked against the legal list at the
stated decision number, tried on a copy of the position, written (the (match, number) key lets
only one writer have each number), and only then becomes the match's position and answered.
An undo (metro/serve/undo.py says when a seat may) is a row too, written the same way; every
row raises the match's version, which bots and careful clients state so that a position
reached again after an undo is not mistaken for the one they chose at. Database calls run in
worker threads, so a slow database never holds up the event loop.
Bots decide on a copy in a worker thread, so the server keeps answering while they think.
Matches not in memory are set up again from the database by replaying their decisions.
Several server processes may share one database: before answering, a match catches up with
the decisions others wrote, and a followed match looks for them every `CATCH_UP_SECONDS`.
A person whose seat has had no open websocket for a while gets a stand-in bot (Board Game
Arena's "zombie" mode) until one opens again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field, replace

import anyio.to_thread

from dsl.diagnostics import CompileError
from metro.bots import Bot, RandomBot, bot_names, make_bot, spec_of
from metro.play.moves import MoveLog
from metro.render.pictures import Pictures
from metro.render.replay import replay_page
from metro.serve.board import board_svg
from metro.serve.catalog import Catalog
from metro.serve.documents import SeatInfo, match_document
from metro.serve.limits import (
    CATCH_UP_SECONDS,
    IDLE_SECONDS,
    MAX_LIVE_MATCHES,
    MAX_MESSAGES,
    MAX_OPEN_MATCHES,
    MESSAGES_PER_MINUTE,
    MESSAGES_SHOWN,
    STAND_IN_BOT,
)
from metro.serve.requests import (
    ActionRequest,
    BadRequest,
    MatchRequest,
    MessageRequest,
    UndoRequest,
    check_bot_budget,
)
from metro.serve.store import (
    DecisionRecord,
    MatchChanged,
    MatchRecord,
    MessageRecord,
    SeatRecord,
    Store,
    live_decisions,
)
from metro.serve.tokens import new_match_id, new_token, token_hash
from metro.serve.undo import undo_refusal
from runtime.errors import MetroRuntimeError
from runtime.machine import Action, State

SEED_BITS = 31  # a seed the server draws when the request names none
FALLBACK_BOT = "random"  # takes the seat of a bot that failed: it runs no rules of its own

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeatToken:
    """A person's seat in a new match and the token that takes it."""

    seat: int
    token: str


@dataclass
class Match:
    """A match in memory: its record, position, log, bots, and who waits for its changes."""

    record: MatchRecord
    state: State
    log: MoveLog
    bots: dict[int, Bot]
    pictures: Pictures
    version: int  # rows written for it (decisions and undos): the number of the next row
    numbers: list[int]  # the row number of each standing decision, in order
    previous: State | None  # the position before the last decision (None: replay to know)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    connections: int = 0
    bot_task: asyncio.Task | None = None
    present: dict[int, int] = field(default_factory=dict)  # open websockets per person's seat
    absent: dict[int, Bot] = field(default_factory=dict)  # stand-in bots of absent people
    leaving: dict[int, asyncio.TimerHandle] = field(default_factory=dict)
    checked: float = 0.0  # when it last looked for other processes' decisions (monotonic)
    refusals: dict[tuple[int, int], str | None] = field(default_factory=dict)  # undo verdicts
    stand_ins: set[int] = field(default_factory=set)  # rows of decisions stand-ins made
    failures: dict[int, str] = field(default_factory=dict)  # seat -> why its bot was replaced
    # the newest messages of its chat, in order (a document shows no more), and how many it has
    messages: deque = field(default_factory=lambda: deque(maxlen=MESSAGES_SHOWN))
    said: int = 0
    heard: float = 0.0  # when it last looked for other processes' messages (monotonic)
    spoke: dict[int, deque] = field(default_factory=dict)  # seat -> when it said its last ones

    def bot_of(self, seat: int) -> Bot | None:
        """Who decides for a seat on the server: its bot, a stand-in, or None (a person)."""
        return self.bots.get(seat) or self.absent.get(seat)

    def seat_of(self, token: str) -> int | None:
        """The seat a token takes, or None."""
        digest = token_hash(token)
        for seat, record in enumerate(self.record.seats):
            if record.token_hash is not None and secrets.compare_digest(record.token_hash, digest):
                return seat
        return None

    def seat_infos(self) -> list[SeatInfo]:
        """Who sits where, as everyone may know it."""
        return [
            SeatInfo(seat, r.bot, seat in self.absent, self.failures.get(seat), r.open)
            for seat, r in enumerate(self.record.seats)
        ]

    def hear(self, messages: list[MessageRecord]) -> None:
        """Add the next messages of its chat (numbered from `said` on)."""
        self.messages.extend(messages)
        self.said += len(messages)

    def notify(self) -> None:
        """Wake everyone waiting for this match to change."""
        waiting, self.changed = self.changed, asyncio.Event()
        waiting.set()

    def took(self, after: State, seat: int, action: Action, stand_in: bool) -> None:
        """Make `after`, the position once `seat` (or its stand-in) took `action`, the match's
        (its row written)."""
        self.log.record(self.state, seat, action)
        self.previous, self.state = self.state, after
        if stand_in:
            self.stand_ins.add(self.version)
        self.numbers.append(self.version)
        self.version += 1
        self.refusals.clear()
        self.notify()

    def before_last(self) -> State:
        """The position before the last decision (replayed once if not known)."""
        if self.previous is None:
            state = self.state
            self.previous = state.game.replay(state.n, self.record.seed, state.history[:-1])
        return self.previous

    def took_back(self) -> None:
        """Make the position before the last decision the match's (its undo written)."""
        # An undo never follows a move that revealed earlier secret ones (undo.py, rule 4),
        # so the log loses its last move and nothing else.
        self.log.moves.pop()
        self.state, self.previous = self.before_last(), None
        self.numbers.pop()
        self.version += 1
        self.refusals.clear()
        self.notify()


class MatchService:
    """Every match the server runs, over one store and one catalog."""

    def __init__(self, store: Store, catalog: Catalog, absent_seconds: float):
        self.store = store
        self.catalog = catalog
        self.absent_seconds = absent_seconds  # 0: people are never replaced
        self.live: OrderedDict[str, Match] = OrderedDict()
        self.loading = asyncio.Lock()

    # ------------------------------------------------------------ matches

    async def create(self, request: MatchRequest) -> tuple[str, list[SeatToken], str | None]:
        """Start a new match; the tokens of its people's seats (but those left to the invited),
        and the invitation's code if it leaves any."""
        entry = self.catalog.entries.get(request.game)
        if entry is None:
            raise BadRequest(404, f"this server offers no game '{request.game}'")
        for name, offered in (("variant", entry.variants), ("expansion", entry.expansions)):
            chosen = request.variants if name == "variant" else request.expansions
            unknown = [n for n in chosen if n not in offered]
            if unknown:
                raise BadRequest(400, f"{request.game} has no {name} '{unknown[0]}'")
        game = await self.compiled(request.game, request.variants, request.expansions)
        if not game.min_players <= request.players <= game.max_players:
            raise BadRequest(
                400, f"{game.name} takes {game.min_players}-{game.max_players} players"
            )
        for spec in request.seats:
            if spec is not None:
                check_bot_budget(spec_of(spec, game))  # a level's bot within this server's bounds
                try:
                    make_bot(spec, 0, game)
                except ValueError as error:
                    raise BadRequest(400, str(error)) from None
        opened = await anyio.to_thread.run_sync(self.store.open_matches, time.time() - IDLE_SECONDS)
        if opened >= MAX_OPEN_MATCHES:
            raise BadRequest(503, f"this server runs at most {MAX_OPEN_MATCHES} open matches")
        seed = request.seed if request.seed is not None else secrets.randbits(SEED_BITS)
        tokens = [
            None if spec is not None or seat in request.invited else new_token()
            for seat, spec in enumerate(request.seats)
        ]
        invite = new_token() if request.invited else None
        record = MatchRecord(
            new_match_id(),
            request.game,
            request.players,
            seed,
            request.variants,
            request.expansions,
            tuple(
                SeatRecord(bot=spec, token_hash=None if token is None else token_hash(token))
                for spec, token in zip(request.seats, tokens, strict=True)
            ),
            invite_hash=None if invite is None else token_hash(invite),
        )
        await anyio.to_thread.run_sync(self.store.add_match, record)
        match = await self._set_up(record, [])
        self._keep(match)
        self._wake_bots(match)
        seats = [SeatToken(seat, token) for seat, token in enumerate(tokens) if token is not None]
        return record.id, seats, invite

    async def join(self, match_id: str, code: str) -> SeatToken:
        """Give the first seat a match leaves to the invited to whoever brings its invitation:
        a new token taking that seat (403 for another code, 409 once every seat is taken)."""
        match = await self.match(match_id)
        invite_hash = match.record.invite_hash
        if invite_hash is None or not secrets.compare_digest(invite_hash, token_hash(code)):
            raise BadRequest(403, "this is not an invitation to this match")
        for _ in range(5):  # someone may take the seat first, here or in another process
            stored = await anyio.to_thread.run_sync(self.store.match, match_id)
            open_seats = [seat for seat, record in enumerate(stored.seats) if record.open]
            if not open_seats:
                self._seated(match, stored.seats)
                raise BadRequest(409, "every seat of this match is taken")
            token = new_token()
            taken = await anyio.to_thread.run_sync(
                self.store.take_seat, match_id, open_seats[0], token_hash(token)
            )
            if taken is not None:
                self._seated(match, taken)
                return SeatToken(open_seats[0], token)
        raise BadRequest(409, "the seats were being taken meanwhile: try again")

    def _seated(self, match: Match, seats: tuple[SeatRecord, ...]) -> None:
        """Take the match's seats as the database now holds them (someone invited sat down)."""
        if seats != match.record.seats:
            match.record = replace(match.record, seats=seats)
            match.notify()

    async def play_again(self, match_id: str, token: str) -> str:
        """The match a finished match's seats play next (begun now, unless one already is):
        the same game, setup, bots and people, each person's token taking the same seat, a new
        seed; only a seat of the match may ask, once it is over."""
        match = await self.match(match_id)
        self.viewer(match, token)
        if not match.state.is_over:
            raise BadRequest(409, "a match is played again once it is over")
        if match.record.next_match is None:
            opened = await anyio.to_thread.run_sync(
                self.store.open_matches, time.time() - IDLE_SECONDS
            )
            if opened >= MAX_OPEN_MATCHES:
                raise BadRequest(503, f"this server runs at most {MAX_OPEN_MATCHES} open matches")
            old = match.record
            seed = secrets.randbits(SEED_BITS)
            record = replace(old, id=new_match_id(), seed=seed, next_match=None)
            next_id = await anyio.to_thread.run_sync(self.store.add_next_match, old.id, record)
            if next_id == record.id:
                begun = await self._set_up(record, [])
                self._keep(begun)
                self._wake_bots(begun)
            self._played_next(match, next_id)
        return match.record.next_match

    def _played_next(self, match: Match, next_id: str) -> None:
        """Tell everyone following `match` that its seats play `next_id` next."""
        if match.record.next_match is None:
            match.record = replace(match.record, next_match=next_id)
            match.notify()

    async def match(self, match_id: str) -> Match:
        """A match by id, caught up with the database (set up from it if not in memory); 404 if none."""
        found = self.live.get(match_id)
        if found is not None:
            self.live.move_to_end(match_id)
            await self.catch_up(found)
            return found
        async with self.loading:
            found = self.live.get(match_id)
            if found is None:
                record = await anyio.to_thread.run_sync(self.store.match, match_id)
                if record is None:
                    raise BadRequest(404, "no such match")
                rows = await anyio.to_thread.run_sync(self.store.rows, match_id)
                found = await self._set_up(record, rows)
                self._keep(found)
                self._wake_bots(found)
            return found

    def viewer(self, match: Match, token: str | None) -> int | None:
        """The seat a token takes (None without a token: a spectator); 403 for a wrong token."""
        if token is None:
            return None
        seat = match.seat_of(token)
        if seat is None:
            raise BadRequest(403, "this token takes no seat of this match")
        return seat

    def document(self, match: Match, viewer: int | None) -> dict:
        """The match as `viewer` may see it."""
        record = match.record
        seats = match.seat_infos()
        undo = viewer is not None and self.undo_refusal(match, viewer) is None
        return match_document(
            record.id,
            record.game,
            match.state,
            match.log,
            seats,
            match.pictures.action_names,
            viewer,
            match.version,
            undo,
            record.next_match,
            list(match.messages),
        )

    def undo_refusal(self, match: Match, seat: int) -> str | None:
        """Why `seat` may not take back the match's last decision now; None if it may."""
        state = match.state
        if not state.history:
            return "no decision has been taken yet"
        key = (match.version, seat)
        if key not in match.refusals:
            last, action = state.history[-1]
            if last != seat:
                refusal = "the last decision is another seat's"
            elif match.numbers[-1] in match.stand_ins:  # Board Game Arena's rule too
                refusal = "the last decision was the stand-in bot's, made while this seat was away"
            else:
                seed = f"{match.record.seed}/{match.version}"
                refusal = undo_refusal(match.before_last(), state, seat, action, seed)
            match.refusals[key] = refusal
        return match.refusals[key]

    async def board(self, match: Match, viewer: int | None) -> str:
        """The board as `viewer` sees it, as SVG (drawn in a worker thread)."""
        return await anyio.to_thread.run_sync(
            board_svg, match.pictures, match.state, viewer, match.log
        )

    async def replay(self, match: Match, viewer: int | None) -> str:
        """The finished match as `metro replay`'s page, in `viewer`'s view alone; 409 before the end."""
        state = match.state
        if not state.is_over:
            raise BadRequest(409, "a match opens as a replay once it is over")
        history = [(seat, action.id) for seat, action in state.history]
        return await anyio.to_thread.run_sync(
            replay_page, match.pictures, state.game, state.n, state.seed, history, [viewer]
        )

    # ------------------------------------------------------------ decisions

    async def act(self, match_id: str, request: ActionRequest) -> dict:
        """Take a person's decision; the match as their seat then sees it."""
        match = await self.match(match_id)
        seat = self.viewer(match, request.token)
        async with match.lock:
            state = match.state
            _check_position(match, request.decisions, request.version)
            if seat not in state.to_move:
                raise BadRequest(409, "it is not this seat's decision now")
            action = next((a for a in state.legal_actions(seat) if a.id == request.action), None)
            if action is None:
                raise BadRequest(422, "that is not one of this seat's legal choices now")
            await self._commit(match, seat, action, stand_in=False)
        self._wake_bots(match)
        return self.document(match, seat)

    async def undo(self, match_id: str, request: UndoRequest) -> dict:
        """Take back a person's last decision, if the undo rule allows; the match as they see it."""
        match = await self.match(match_id)
        seat = self.viewer(match, request.token)
        async with match.lock:
            _check_position(match, request.decisions, request.version)
            refusal = self.undo_refusal(match, seat)
            if refusal is not None:
                raise BadRequest(409, f"no undo: {refusal}")
            action = match.state.history[-1][1]
            row = DecisionRecord(match.version, seat, action.id, takes_back=match.numbers[-1])
            await self._write(match, row, over=False)
            match.took_back()
        self._wake_bots(match)
        return self.document(match, seat)

    async def say(self, match_id: str, request: MessageRequest) -> dict:
        """Add a seat's message to the match's chat; the match as the seat then sees it."""
        match = await self.match(match_id)
        seat = self.viewer(match, request.token)
        now = time.monotonic()
        said = match.spoke.setdefault(seat, deque())
        while said and now - said[0] > 60:
            said.popleft()
        if len(said) >= MESSAGES_PER_MINUTE:
            raise BadRequest(429, f"a seat says at most {MESSAGES_PER_MINUTE} messages a minute")
        async with match.lock:
            for _ in range(3):  # another server process may take the number first
                if match.said >= MAX_MESSAGES:
                    raise BadRequest(409, f"a match's chat holds at most {MAX_MESSAGES} messages")
                message = MessageRecord(match.said, seat, request.text)
                try:
                    await anyio.to_thread.run_sync(self.store.add_message, match.record.id, message)
                    break
                except MatchChanged:
                    await self._hear(match)
            else:
                raise BadRequest(409, "the chat changed meanwhile: say it again")
            match.hear([message])
            said.append(now)
            match.notify()
        return self.document(match, seat)

    async def _hear(self, match: Match) -> bool:
        """Take the messages other server processes wrote to the match's chat (the caller holds
        its lock); whether there were any."""
        newer = await anyio.to_thread.run_sync(self.store.messages, match.record.id, match.said)
        match.hear(newer)
        return bool(newer)

    async def catch_up(self, match: Match) -> None:
        """Take the decisions and messages other server processes wrote for this match since it
        last looked (and, once it is over, whether one of them began the match its seats play
        next)."""
        async with match.lock:
            match.checked = time.monotonic()
            # Messages are looked for at most every CATCH_UP_SECONDS, not at every request (a
            # decision's requests would pay a read each); one said here is numbered after them.
            if match.checked - match.heard >= CATCH_UP_SECONDS:
                match.heard = match.checked
                if await self._hear(match):
                    match.notify()
            # while seats wait for the invited, at every request: its token may be new here
            if any(seat.open for seat in match.record.seats):
                stored = await anyio.to_thread.run_sync(self.store.match, match.record.id)
                if stored is not None:
                    self._seated(match, stored.seats)
            newer = await anyio.to_thread.run_sync(self.store.rows, match.record.id, match.version)
            if not newer:
                if match.state.is_over and match.record.next_match is None:
                    stored = await anyio.to_thread.run_sync(self.store.match, match.record.id)
                    if stored is not None and stored.next_match is not None:
                        self._played_next(match, stored.next_match)
                return
            for row in newer:
                if row.takes_back is None:
                    action = match.state.game.parse_action(row.action)
                    after = match.state.clone()
                    after.apply(row.seat, action)
                    match.took(after, row.seat, action, row.stand_in)
                else:
                    match.took_back()
        self._wake_bots(match)

    async def follow(self, match: Match, changed: asyncio.Event) -> None:
        """Wait until `changed` (the match's event when it was last seen) is set, catching up
        with the database meanwhile."""
        while not changed.is_set():
            wait = match.checked + CATCH_UP_SECONDS - time.monotonic()
            if wait <= 0:
                await self.catch_up(match)
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), wait)

    async def _commit(self, match: Match, seat: int, action: Action, stand_in: bool) -> None:
        """Record a legal decision (`stand_in`: a stand-in bot's for an absent person), then make
        it the match's position (caller holds the lock)."""
        after = match.state.clone()
        try:
            after.apply(seat, action)
        except MetroRuntimeError as error:  # the rules failed on it: refuse, keep the position
            raise BadRequest(422, f"the rules could not take this decision: {error}") from None
        row = DecisionRecord(match.version, seat, action.id, stand_in=stand_in)
        await self._write(match, row, after.is_over)
        match.took(after, seat, action, stand_in)

    async def _write(self, match: Match, row: DecisionRecord, over: bool) -> None:
        """Write a row of the match (in a worker thread); 409 if another process wrote first."""
        try:
            await anyio.to_thread.run_sync(self.store.add_row, match.record.id, row, over)
        except MatchChanged:
            # Another server process took this number first: the next look at the match
            # (every request makes one) takes its row.
            match.checked = 0.0
            raise BadRequest(409, f"the match changed: row {row.number} was taken") from None

    # ------------------------------------------------------------ presence

    def arrive(self, match: Match, seat: int | None) -> None:
        """A websocket of `seat` opened: the person is here (and takes their seat back)."""
        if seat is None:
            return
        match.present[seat] = match.present.get(seat, 0) + 1
        timer = match.leaving.pop(seat, None)
        if timer is not None:
            timer.cancel()
        if match.absent.pop(seat, None) is not None:
            match.failures.pop(seat, None)  # what a failed stand-in left no longer holds
            match.notify()

    def leave(self, match: Match, seat: int | None) -> None:
        """A websocket of `seat` closed; with none left, a stand-in comes after a while."""
        if seat is None:
            return
        match.present[seat] -= 1
        if match.present[seat] == 0 and self.absent_seconds > 0:
            loop = asyncio.get_running_loop()
            match.leaving[seat] = loop.call_later(self.absent_seconds, self._stand_in, match, seat)

    def _stand_in(self, match: Match, seat: int) -> None:
        match.leaving.pop(seat, None)
        if match.present.get(seat) or match.state.is_over:
            return
        game = match.state.game
        name = game.default_bot if game.default_bot in bot_names(game) else STAND_IN_BOT
        match.absent[seat] = make_bot(name, f"{match.record.seed}/{seat}/stand-in", game)
        match.notify()
        self._wake_bots(match)

    # ------------------------------------------------------------ bots

    def _wake_bots(self, match: Match) -> None:
        """Let the match's bots decide, unless they are already at it."""
        if (match.bots or match.absent) and (match.bot_task is None or match.bot_task.done()):
            match.bot_task = asyncio.get_running_loop().create_task(self._run_bots(match))
            match.bot_task.add_done_callback(_report_failure)

    async def _run_bots(self, match: Match) -> None:
        """Decide for every bot that is to move, until none is."""
        while True:
            async with match.lock:
                state = match.state
                seats = [seat for seat in state.to_move if match.bot_of(seat) is not None]
                if not seats or self.live.get(match.record.id) is not match:
                    return
                seat, position, version = seats[0], state.clone(), match.version
                bot = match.bot_of(seat)
            try:
                action = await anyio.to_thread.run_sync(bot.choose, position, seat)
                async with match.lock:
                    # a person back meanwhile decides for themselves
                    if match.version == version and match.bot_of(seat) is bot:
                        await self._commit(match, seat, action, stand_in=seat not in match.bots)
            except BadRequest as refused:
                if refused.status == 409:
                    await self.catch_up(match)  # another process decided first: look again
                    continue
                if not self._replace_failed_bot(match, seat, bot, refused):
                    return
            except MetroRuntimeError as error:  # a bot whose rules raise must not stop the match
                if not self._replace_failed_bot(match, seat, bot, error):
                    return

    def _replace_failed_bot(self, match: Match, seat: int, bot: Bot, error: Exception) -> bool:
        """Put the fallback bot in the seat of `bot`, which failed; False if it was the fallback.

        The seat's document says so in general words: the error's own text could show values
        hidden from the players, so only the server's log has it.
        """
        log.error("the bot of seat %d in match %s failed", seat, match.record.id, exc_info=error)
        number = len(match.state.history)
        failed = (
            f"the bot '{match.record.seats[seat].bot}'" if seat in match.bots else "the stand-in"
        )
        if isinstance(bot, RandomBot):
            match.failures[seat] = (
                f"the {FALLBACK_BOT} bot failed too at decision {number}: the rules fail here, "
                "so this seat's bots stop (the server's log has the details)"
            )
            match.notify()
            return False
        fallback = make_bot(FALLBACK_BOT, f"{match.record.seed}/{seat}/fallback", match.state.game)
        (match.bots if seat in match.bots else match.absent)[seat] = fallback
        match.failures[seat] = (
            f"{failed} failed at decision {number} (its rules raised an error; the "
            f"server's log has the details): the {FALLBACK_BOT} bot plays this seat now"
        )
        match.notify()
        return True

    # ------------------------------------------------------------ setting up

    async def compiled(self, name: str, variants, expansions):
        """An offered game compiled with these patches (compiled in a worker thread)."""
        try:
            return await anyio.to_thread.run_sync(
                self.catalog.game, name, tuple(variants), tuple(expansions)
            )
        except CompileError as error:
            raise BadRequest(400, f"these rules do not compile: {error}") from None

    async def _set_up(self, record: MatchRecord, rows: list[DecisionRecord]) -> Match:
        """A match from its record, its standing decisions replayed by the engine."""
        game = await self.compiled(record.game, record.variants, record.expansions)
        state = game.new_game(record.players, record.seed)
        log = MoveLog()
        previous = None
        try:
            decisions = live_decisions(rows)
            for number, decision in enumerate(decisions, 1):
                action = game.parse_action(decision.action)
                log.record(state, decision.seat, action)
                if number == len(decisions):
                    previous = state.clone()
                state.apply(decision.seat, action)
        except (ValueError, MetroRuntimeError) as error:  # the rule files changed since
            raise BadRequest(
                500, f"the match's decisions no longer replay under its rules: {error}"
            ) from None
        bots = {
            seat: make_bot(r.bot, f"{record.seed}/{seat}", game)
            for seat, r in enumerate(record.seats)
            if r.bot is not None
        }
        pictures = await anyio.to_thread.run_sync(
            self.catalog.pictures, record.game, record.variants, record.expansions
        )
        numbers = [decision.number for decision in decisions]
        match = Match(record, state, log, bots, pictures, len(rows), numbers, previous)
        match.stand_ins = {decision.number for decision in decisions if decision.stand_in}
        match.hear(await anyio.to_thread.run_sync(self.store.messages, record.id))
        return match

    def _keep(self, match: Match) -> None:
        self.live[match.record.id] = match
        while len(self.live) > MAX_LIVE_MATCHES:
            self.live.popitem(last=False)


def _check_position(match: Match, decisions: int, version: int | None) -> None:
    """Refuse (409) a request stated at another position than the match's now."""
    number = len(match.state.history)
    if decisions != number:
        raise BadRequest(409, f"the match is at decision {number}, not {decisions}")
    if version is not None and version != match.version:
        raise BadRequest(409, f"the match is at version {match.version}, not {version}")


def _report_failure(task: asyncio.Task) -> None:
    """Log a bot run that failed (its match waits until the next request wakes the bots)."""
    if not task.cancelled() and task.exception() is not None:
        log.error("a bot failed", exc_info=task.exception())
