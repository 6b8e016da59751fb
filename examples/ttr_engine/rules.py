"""Ticket to Ride (USA base game), written from the rulebook: positions and the rules that move them.

Nothing here comes from metro: this is an engine of its own, with its own data structures, that
speaks the conformance protocol (serve.py). Where the rulebook leaves a choice open it follows
the readings the project documents for its rules (docs/readings.md):

- the face-up cards are redealt at most 5 times in a row (a deck rich in locomotives could loop);
- when a draw meets an empty deck, the discards are shuffled into a new deck;
- a player with nothing possible passes; a full round of passes ends the game;
- nobody gets the longest-trail bonus when nobody has a route;
- the ticket choice at the start is made by everyone at once, in secret; the choices are then
  applied in seat order, each player's returned tickets going under the ticket deck in the order
  they were dealt (so the last one returned is the bottom card).

Randomness comes from a `Chance` object: seeded (the engine's own generator) or given outcomes
(the protocol's explicit chance). A shuffle whose result is certain (fewer than two distinct
cards) draws nothing and is not a chance event.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import combinations

from board import Board

COLOURS = ("purple", "white", "blue", "yellow", "orange", "black", "red", "green")
LOCOMOTIVE = "locomotive"
CARDS = (*COLOURS, LOCOMOTIVE)  # the rulebook's card kinds, in the order a bag lists them
CARDS_PER_COLOUR, LOCOMOTIVES = 12, 14
TRAINS, HAND_SIZE, FACE_UP = 45, 4, 5
LOCOMOTIVE_LIMIT, MAX_REDEALS = 3, 5
FIRST_TICKETS, FIRST_KEEP, DRAW_TICKETS, KEEP_TICKETS = 3, 2, 3, 1
LAST_ROUND_TRAINS = 2
ROUTE_POINTS = {1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15}
LONGEST_BONUS = 10
BOTH_TRACKS_FROM = 4
GAME_NAME = "Ticket to Ride"

# Bugs that can be planted on purpose (serve.py --bug NAME), to show the vectors catch them.
BUGS = {
    "second-locomotive": "a face-up locomotive may be taken as the second card",
    "ticket-top": "returned tickets go on top of the ticket deck instead of under it",
    "no-redeal": "three face-up locomotives are never redealt",
    "one-bonus": "only the first of several players tied for the longest trail gets the bonus",
}

# Readings of what the rule text leaves open, other than metro's (serve.py --convention NAME):
# an engine that differs from metro only here fails optional vectors alone.
CONVENTIONS = {
    "returned-first-deepest": "returned tickets go under the ticket deck as one block in the order "
    "they were offered (the first returned deepest)",
    "redeal-limit-3": "at most 3 face-up redeals in a row instead of 5",
    "discards-reversed": "a redeal discards the face-up cards in the reverse of the card order",
}


class Refused(Exception):
    """An action the rules do not allow now (the position is unchanged)."""


class NeedChance(Exception):
    """A shuffle needs an outcome that has not been given yet."""

    def __init__(self, cards: list[str]):
        super().__init__("a shuffle outcome is needed")
        self.cards = cards


class Chance:
    """Where shuffles come from: given orders (explicit chance), or a generator when seeded."""

    def __init__(self, orders: list[list[str]] | None = None, seed=None):
        self.orders = list(orders or [])
        self.used = 0
        self.rng = None if seed is None else random.Random(seed)

    def shuffle(self, cards: list[str]) -> list[str]:
        """The cards in their shuffled order (bottom first)."""
        if len(set(cards)) < 2:
            return cards
        if self.rng is not None:
            order = list(cards)
            self.rng.shuffle(order)
            return order
        if self.used == len(self.orders):
            raise NeedChance(list(cards))
        order = self.orders[self.used]
        self.used += 1
        return list(order)


class NoChance(Chance):
    """Counting positions (perft): a shuffle inside the count is an error."""

    def shuffle(self, cards: list[str]) -> list[str]:
        if len(set(cards)) < 2:
            return cards
        raise Refused("a shuffle happens within the perft depth")


@dataclass
class Position:
    """Everything about a game in progress: the table, the players and whose decision it is."""

    n: int
    deck: list[str] = field(default_factory=list)  # bottom first; the top is the last card
    face_up: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CARDS, 0))
    discard: list[str] = field(default_factory=list)
    ticket_deck: list[str] = field(default_factory=list)
    owner: dict[str, int | None] = field(default_factory=dict)
    current: int = 0
    last_round_from: int | None = None
    idle_turns: int = 0
    hand: list[dict[str, int]] = field(default_factory=list)
    tickets: list[list[str]] = field(default_factory=list)
    offered: list[list[str]] = field(default_factory=list)
    trains: list[int] = field(default_factory=list)
    score: list[int] = field(default_factory=list)
    completed: list[int] = field(default_factory=list)
    longest: list[int] = field(default_factory=list)
    bonus: list[bool] = field(default_factory=list)
    ticket_gains: list[int] = field(default_factory=list)  # points of completed tickets
    ticket_losses: list[int] = field(default_factory=list)  # points of failed tickets
    phase: str = "keep"  # keep (everyone at once), turn, second (card), kept (tickets), over
    submitted: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def copy(self) -> Position:
        """An independent copy."""
        return Position(
            self.n,
            list(self.deck),
            dict(self.face_up),
            list(self.discard),
            list(self.ticket_deck),
            dict(self.owner),
            self.current,
            self.last_round_from,
            self.idle_turns,
            [dict(h) for h in self.hand],
            [list(t) for t in self.tickets],
            [list(o) for o in self.offered],
            list(self.trains),
            list(self.score),
            list(self.completed),
            list(self.longest),
            list(self.bonus),
            list(self.ticket_gains),
            list(self.ticket_losses),
            self.phase,
            dict(self.submitted),
        )


class Rules:
    """The rules of the game on one board (with optional planted bugs)."""

    def __init__(
        self,
        board: Board,
        bugs: frozenset[str] = frozenset(),
        conventions: frozenset[str] = frozenset(),
    ):
        self.board = board
        self.bugs = bugs
        self.conventions = conventions

    # ------------------------------------------------------------ setup

    def blank(self, players: int) -> Position:
        """The table before setup: nothing dealt, every player with 45 trains."""
        if not 2 <= players <= 5:
            raise Refused(f"{GAME_NAME} takes 2-5 players, not {players}")
        pos = Position(players)
        pos.owner = dict.fromkeys(self.board.routes)
        pos.hand = [dict.fromkeys(CARDS, 0) for _ in range(players)]
        pos.tickets = [[] for _ in range(players)]
        pos.offered = [[] for _ in range(players)]
        pos.trains = [TRAINS] * players
        pos.score, pos.completed, pos.longest = [0] * players, [0] * players, [0] * players
        pos.bonus = [False] * players
        pos.ticket_gains, pos.ticket_losses = [0] * players, [0] * players
        return pos

    def setup(self, pos: Position, chance: Chance) -> None:
        """Shuffle, deal and lay out; then everyone chooses tickets at once."""
        players = pos.n
        cards = [c for c in COLOURS for _ in range(CARDS_PER_COLOUR)] + [LOCOMOTIVE] * LOCOMOTIVES
        pos.deck = chance.shuffle(cards)
        pos.ticket_deck = chance.shuffle(list(self.board.tickets))
        for p in range(players):
            for _ in range(HAND_SIZE):
                pos.hand[p][pos.deck.pop()] += 1
        self._refill(pos, chance)
        for p in range(players):
            pos.offered[p].extend(_draw(pos.ticket_deck, FIRST_TICKETS))

    # ------------------------------------------------------------ who decides, and what

    def to_move(self, pos: Position) -> list[int]:
        """Players who must decide now."""
        if pos.phase == "over":
            return []
        if pos.phase == "keep":
            return [p for p in range(pos.n) if p not in pos.submitted]
        return [pos.current]

    def legal(self, pos: Position, player: int) -> dict[str, tuple]:
        """The legal actions of `player`: id -> (name, arguments)."""
        if player not in self.to_move(pos):
            return {}
        if pos.phase == "keep":
            return _subsets("keep", pos.offered[player], FIRST_KEEP, FIRST_TICKETS)
        if pos.phase == "kept":
            return _subsets("kept", pos.offered[player], KEEP_TICKETS, DRAW_TICKETS)
        if pos.phase == "second":
            return self._second_actions(pos)
        return self._turn_actions(pos, player)

    def _turn_actions(self, pos: Position, p: int) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        for card in CARDS:
            if pos.face_up[card]:
                out[f"draw_face_up({card})"] = ("draw_face_up", card)
        if pos.deck or pos.discard:
            out["draw_blind"] = ("draw_blind",)
        hand = pos.hand[p]
        most = hand[LOCOMOTIVE] + max(hand[c] for c in COLOURS)
        for route in self.board.routes.values():
            if not self._can_claim(pos, p, route.id):
                continue
            length = route.length
            if most >= length:
                for colour in COLOURS:
                    if route.colour not in ("gray", colour):
                        continue
                    if hand[colour] + hand[LOCOMOTIVE] < length:
                        continue
                    low = max(0, length - hand[colour])
                    high = min(hand[LOCOMOTIVE], length - 1)
                    for locos in range(low, high + 1):
                        out[f"claim_route({route.id},{colour},{locos})"] = (
                            "claim_route",
                            route.id,
                            colour,
                            locos,
                        )
            if hand[LOCOMOTIVE] >= length:
                out[f"claim_with_locomotives({route.id})"] = ("claim_with_locomotives", route.id)
        if pos.ticket_deck:
            out["draw_tickets"] = ("draw_tickets",)
        return out

    def _second_actions(self, pos: Position) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        for card in CARDS:
            allowed = card != LOCOMOTIVE or "second-locomotive" in self.bugs
            if pos.face_up[card] and allowed:
                out[f"second_face_up({card})"] = ("second_face_up", card)
        if pos.deck or pos.discard:
            out["second_blind"] = ("second_blind",)
        return out

    def _can_claim(self, pos: Position, p: int, route_id: str) -> bool:
        route = self.board.routes[route_id]
        if pos.owner[route_id] is not None or pos.trains[p] < route.length:
            return False
        if route.twin is None or pos.owner[route.twin] is None:
            return True
        # Double routes: with 2-3 players one claimed track closes both; with 4-5 the other
        # track stays open, but never to the player who holds the first.
        return pos.n >= BOTH_TRACKS_FROM and pos.owner[route.twin] != p

    # ------------------------------------------------------------ taking an action

    def apply(self, pos: Position, player: int, action: str, chance: Chance) -> None:
        """Take an action by id (Refused, with `pos` unchanged, if it is not legal)."""
        legal = self.legal(pos, player)
        if action not in legal:
            if player not in self.to_move(pos):
                raise Refused(f"it is not P{player + 1}'s decision now")
            raise Refused(f"{action!r} is not one of the {len(legal)} legal actions")
        name, *args = legal[action]
        if pos.phase == "keep":
            pos.submitted[player] = tuple(args)
            if len(pos.submitted) == pos.n:
                for p in range(pos.n):
                    self._keep(pos, p, pos.submitted[p])
                pos.submitted = {}
                pos.current = 0
                self._start_turn(pos)
            return
        getattr(self, f"_do_{name}")(pos, player, *args, chance=chance)

    def _do_draw_face_up(self, pos: Position, p: int, card: str, chance: Chance) -> None:
        self._take_face_up(pos, p, card, chance)
        if card == LOCOMOTIVE:  # a face-up locomotive is the whole draw
            self._end_turn(pos, acted=True)
        else:
            self._second_draw(pos)

    def _do_draw_blind(self, pos: Position, p: int, chance: Chance) -> None:
        pos.hand[p][self._deal(pos, chance)] += 1
        self._second_draw(pos)

    def _do_second_face_up(self, pos: Position, p: int, card: str, chance: Chance) -> None:
        self._take_face_up(pos, p, card, chance)
        self._end_turn(pos, acted=True)

    def _do_second_blind(self, pos: Position, p: int, chance: Chance) -> None:
        pos.hand[p][self._deal(pos, chance)] += 1
        self._end_turn(pos, acted=True)

    def _do_claim_route(
        self, pos: Position, p: int, route_id: str, colour: str, locos: int, chance: Chance
    ) -> None:
        length = self.board.routes[route_id].length
        pos.hand[p][colour] -= length - locos
        pos.hand[p][LOCOMOTIVE] -= locos
        pos.discard.extend([colour] * (length - locos) + [LOCOMOTIVE] * locos)
        self._take_route(pos, p, route_id)
        self._end_turn(pos, acted=True)

    def _do_claim_with_locomotives(
        self, pos: Position, p: int, route_id: str, chance: Chance
    ) -> None:
        length = self.board.routes[route_id].length
        pos.hand[p][LOCOMOTIVE] -= length
        pos.discard.extend([LOCOMOTIVE] * length)
        self._take_route(pos, p, route_id)
        self._end_turn(pos, acted=True)

    def _do_draw_tickets(self, pos: Position, p: int, chance: Chance) -> None:
        pos.offered[p].extend(_draw(pos.ticket_deck, min(DRAW_TICKETS, len(pos.ticket_deck))))
        pos.phase = "kept"

    def _do_kept(self, pos: Position, p: int, *kept: str, chance: Chance) -> None:
        self._keep(pos, p, kept)
        self._end_turn(pos, acted=True)

    def _take_route(self, pos: Position, p: int, route_id: str) -> None:
        length = self.board.routes[route_id].length
        pos.owner[route_id] = p
        pos.trains[p] -= length
        pos.score[p] += ROUTE_POINTS[length]

    def _keep(self, pos: Position, p: int, kept) -> None:
        if "returned-first-deepest" in self.conventions:
            pos.tickets[p] += [t for t in pos.offered[p] if t in kept]
            pos.ticket_deck[:0] = [t for t in pos.offered[p] if t not in kept]
            pos.offered[p] = []
            return
        for ticket in pos.offered[p]:
            if ticket in kept:
                pos.tickets[p].append(ticket)
            elif "ticket-top" in self.bugs:
                pos.ticket_deck.append(ticket)
            else:
                pos.ticket_deck.insert(0, ticket)
        pos.offered[p] = []

    # ------------------------------------------------------------ train cards

    def _deal(self, pos: Position, chance: Chance) -> str:
        """The top card; an empty deck is first rebuilt from the shuffled discards."""
        if not pos.deck:
            pos.deck, pos.discard = chance.shuffle(pos.discard), []
        return pos.deck.pop()

    def _take_face_up(self, pos: Position, p: int, card: str, chance: Chance) -> None:
        pos.face_up[card] -= 1
        pos.hand[p][card] += 1
        self._refill(pos, chance)

    def _refill(self, pos: Position, chance: Chance) -> None:
        """Fill the row to five; three locomotives showing: discard all five and deal again."""
        redeals = 0
        while True:
            while sum(pos.face_up.values()) < FACE_UP and (pos.deck or pos.discard):
                pos.face_up[self._deal(pos, chance)] += 1
            if "no-redeal" in self.bugs:
                return
            limit = 3 if "redeal-limit-3" in self.conventions else MAX_REDEALS
            if pos.face_up[LOCOMOTIVE] < LOCOMOTIVE_LIMIT or redeals >= limit:
                return
            order = CARDS[::-1] if "discards-reversed" in self.conventions else CARDS
            for card in order:
                pos.discard.extend([card] * pos.face_up[card])
                pos.face_up[card] = 0
            redeals += 1

    # ------------------------------------------------------------ turns and the end

    def _second_draw(self, pos: Position) -> None:
        if self._second_actions(pos):
            pos.phase = "second"
        else:  # nothing left to draw: the draw ends with one card
            self._end_turn(pos, acted=True)

    def _start_turn(self, pos: Position) -> None:
        if self._turn_actions(pos, pos.current):
            pos.phase = "turn"
        else:
            self._end_turn(pos, acted=False)

    def _end_turn(self, pos: Position, acted: bool) -> None:
        """After a turn (or a pass): the last round, the end, or the next player's turn."""
        while True:
            pos.idle_turns = 0 if acted else pos.idle_turns + 1
            if pos.last_round_from == pos.current or pos.idle_turns >= pos.n:
                self._final_scoring(pos)
                pos.phase = "over"
                return
            if pos.last_round_from is None and pos.trains[pos.current] <= LAST_ROUND_TRAINS:
                pos.last_round_from = pos.current
            pos.current = (pos.current + 1) % pos.n
            if self._turn_actions(pos, pos.current):
                pos.phase = "turn"
                return
            acted = False  # nothing is possible: the player passes

    def _final_scoring(self, pos: Position) -> None:
        for p in range(pos.n):
            mine = [self.board.routes[r] for r, who in pos.owner.items() if who == p]
            reach = _components([(r.a, r.b) for r in mine])
            for ticket_id in pos.tickets[p]:
                ticket = self.board.tickets[ticket_id]
                if ticket.a in reach and reach.get(ticket.a) == reach.get(ticket.b):
                    pos.score[p] += ticket.points
                    pos.completed[p] += 1
                    pos.ticket_gains[p] += ticket.points
                else:
                    pos.score[p] -= ticket.points
                    pos.ticket_losses[p] += ticket.points
            pos.longest[p] = longest_trail([(r.a, r.b, r.length) for r in mine])
        best = max(pos.longest)
        for p in range(pos.n):
            if best > 0 and pos.longest[p] == best:
                pos.score[p] += LONGEST_BONUS
                pos.bonus[p] = True
                if "one-bonus" in self.bugs:
                    break

    def ranking(self, pos: Position) -> list[int]:
        """Places by score, then completed tickets, then the bonus; full ties share a place."""
        keys = [(-pos.score[p], -pos.completed[p], not pos.bonus[p]) for p in range(pos.n)]
        return [1 + sum(other < keys[p] for other in keys) for p in range(pos.n)]

    # ------------------------------------------------------------ counting

    def perft(self, pos: Position, depth: int) -> int:
        """Action sequences of length `depth` (each step: the first player to move acts)."""
        if depth == 0:
            return 1
        to_move = self.to_move(pos)
        if not to_move:
            return 0
        actions = self.legal(pos, to_move[0])
        if depth == 1:
            return len(actions)
        total = 0
        for action in actions:
            child = pos.copy()
            self.apply(child, to_move[0], action, NoChance())
            total += self.perft(child, depth - 1)
        return total


def _draw(pile: list[str], count: int) -> list[str]:
    """Take `count` cards from the top of a pile, the first drawn first."""
    drawn = [pile.pop() for _ in range(count)]
    return drawn


def _subsets(name: str, offered: list[str], low: int, high: int) -> dict[str, tuple]:
    out = {}
    items = sorted(offered)
    for size in range(low, min(high, len(items)) + 1):
        for chosen in combinations(items, size):
            out[f"{name}([{' '.join(chosen)}])"] = (name, *chosen)
    return out


def _components(edges: list[tuple[str, str]]) -> dict[str, int]:
    """City -> the number of its connected group (cities without a route are absent)."""
    group: dict[str, int] = {}
    neighbours: dict[str, list[str]] = {}
    for a, b in edges:
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    for number, city in enumerate(neighbours):
        if city in group:
            continue
        stack = [city]
        group[city] = number
        while stack:
            for other in neighbours[stack.pop()]:
                if other not in group:
                    group[other] = number
                    stack.append(other)
    return group


def longest_trail(edges: list[tuple[str, str, int]]) -> int:
    """The longest continuous path, in trains: cities may repeat, routes may not."""
    touching: dict[str, list[int]] = {}
    for index, (a, b, _) in enumerate(edges):
        touching.setdefault(a, []).append(index)
        touching.setdefault(b, []).append(index)
    used = [False] * len(edges)

    def walk(city: str) -> int:
        best = 0
        for index in touching[city]:
            if not used[index]:
                used[index] = True
                a, b, length = edges[index]
                best = max(best, length + walk(b if city == a else a))
                used[index] = False
        return best

    return max((walk(city) for city in touching), default=0)
