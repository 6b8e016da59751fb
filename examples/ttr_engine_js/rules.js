"use strict";
// Ticket to Ride (USA), written from the rulebook and docs/protocol.md. The game's fields are
// kept exactly in their JSON form (docs/protocol.md section 4): piles are arrays bottom first,
// bags are {name: count} objects, players are "P1", "P2", ... so set_state and views are copies.
// Everything that is not a field (the phase, who has chosen at the setup) lives beside them.

const { ROUTES, TICKETS } = require("./board.js");

const COLOURS = ["purple", "white", "blue", "yellow", "orange", "black", "red", "green"];
const CARDS = [...COLOURS, "locomotive"]; // the declared order: bags are written and piled in it
const LOCO = "locomotive";
const ROUTE_POINTS = { 1: 1, 2: 2, 3: 4, 4: 7, 5: 10, 6: 15 };
const TRAINS = 45;
const HAND_START = 4;
const FACE_UP = 5;
const LAST_ROUND_TRAINS = 2;
const LONGEST_BONUS = 10;
const MAX_REDEALS = 5; // docs/readings.md: the face-up row is redealt at most 5 times in a row

const ROUTE = new Map(ROUTES.map(([id, a, b, length, colour, twin]) => [id, { id, a, b, length, colour, twin }]));
const TICKET = new Map(TICKETS.map(([id, a, b, points]) => [id, { id, a, b, points }]));
const TICKET_IDS = TICKETS.map((t) => t[0]);

// Planted bugs (serve.js --bug NAME), each one a rule broken on purpose for the test suite.
const BUGS = {
  "pay-short": "a claimed route costs one card fewer than its length",
  "bonus-next": "the longest-trail bonus goes to the next player after each holder",
  "late-last-round": "the last round starts only at 1 train or fewer, not at 2",
  "second-locomotive": "a face-up locomotive may be taken as the second card",
};

class NeedChance extends Error {
  // Thrown when a step meets a random event no outcome was given for (explicit chance).
  constructor(items) {
    super("a chance outcome is needed");
    this.items = items;
  }
}

class Refused extends Error {}

const pname = (i) => `P${i + 1}`;
const pindex = (name) => Number(name.slice(1)) - 1;

// ---- bags ({name: count}, no zero counts) ----

function bagAdd(bag, item, n = 1) {
  bag[item] = (bag[item] || 0) + n;
}

function bagTake(bag, item, n = 1) {
  const left = (bag[item] || 0) - n;
  if (left < 0) throw new Error(`bag has too few ${item}`);
  if (left === 0) delete bag[item];
  else bag[item] = left;
}

const bagSize = (bag) => Object.values(bag).reduce((a, b) => a + b, 0);

// The bag's items in the declared order, each as often as it is held.
function bagItems(bag, order) {
  const out = [];
  for (const item of order) for (let i = 0; i < (bag[item] || 0); i++) out.push(item);
  return out;
}

// ---- chance ----

// A chance context: the outcomes given so far for this step (explicit chance) or a generator.
function chanceContext(outcomes, rng) {
  return { outcomes, used: 0, rng };
}

// The pile's items after shuffling, bottom first. A shuffle with fewer than two distinct items
// is certain and takes no outcome (docs/protocol.md section 3).
function shuffle(ctx, items) {
  if (new Set(items).size < 2) return items.slice();
  if (ctx.rng) {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(ctx.rng() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
  if (ctx.used >= ctx.outcomes.length) throw new NeedChance(items);
  const outcome = ctx.outcomes[ctx.used++];
  if (!outcome || outcome.kind !== "shuffle" || !Array.isArray(outcome.order)) {
    throw new Refused("a shuffle is waiting: the outcome must be {kind: shuffle, order: [...]}");
  }
  if (!sameMultiset(outcome.order, items)) throw new Refused("the order does not hold exactly the pile's items");
  return outcome.order.slice();
}

function sameMultiset(a, b) {
  if (a.length !== b.length) return false;
  const count = new Map();
  for (const x of b) count.set(x, (count.get(x) || 0) + 1);
  for (const x of a) {
    if (typeof x !== "string" || !count.get(x)) return false;
    count.set(x, count.get(x) - 1);
  }
  return true;
}

// mulberry32: the engine's own generator for seeded play (metro's is not reproduced).
function seededRng(seed) {
  let s = 0;
  for (const ch of String(seed)) s = (Math.imul(s, 31) + ch.charCodeAt(0)) | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- the game ----

function newGame(players) {
  const playerState = [];
  for (let i = 0; i < players; i++) {
    playerState.push({
      hand: {},
      tickets: [],
      offered: [],
      trains: TRAINS,
      score: 0,
      completed: 0,
      longest: 0,
      bonus: false,
      ticket_gains: 0,
      ticket_losses: 0,
    });
  }
  const owner = {};
  for (const id of ROUTE.keys()) owner[id] = null;
  return {
    n: players,
    bugs: new Set(),
    phase: "setup", // setup (the simultaneous ticket choice), turn, over
    stage: "start", // within a turn: start, second (the second card), tickets (choosing)
    chosen: new Array(players).fill(false),
    state: {
      deck: [],
      face_up: {},
      discard: [],
      ticket_deck: [],
      owner,
      current: "P1",
      last_round_from: null,
      idle_turns: 0,
    },
    player_state: playerState,
  };
}

function clone(g) {
  const bugs = g.bugs;
  const copy = structuredClone({ ...g, bugs: null });
  copy.bugs = bugs;
  return copy;
}

// The setup, as the rulebook orders it: shuffle the train cards, deal 4 to each player, lay 5
// face up, shuffle the tickets, offer 3 to each player.
function setup(g, ctx) {
  const all = [];
  for (const c of COLOURS) for (let i = 0; i < 12; i++) all.push(c);
  for (let i = 0; i < 14; i++) all.push(LOCO);
  g.state.deck = shuffle(ctx, all);
  for (const p of g.player_state) {
    for (let i = 0; i < HAND_START; i++) bagAdd(p.hand, g.state.deck.pop());
  }
  refillFaceUp(g, ctx);
  g.state.ticket_deck = shuffle(ctx, TICKET_IDS);
  for (const p of g.player_state) p.offered = drawTickets(g, 3);
}

// The top card of the deck; an empty deck is first rebuilt by shuffling the discards.
// null when both are empty.
function drawCard(g, ctx) {
  const s = g.state;
  if (s.deck.length === 0) {
    if (s.discard.length === 0) return null;
    s.deck = shuffle(ctx, s.discard);
    s.discard = [];
  }
  return s.deck.pop();
}

const cardsLeft = (g) => g.state.deck.length + g.state.discard.length;

// Refill the face-up row to 5 cards, then redeal it while it shows 3 or more locomotives.
function refillFaceUp(g, ctx) {
  dealFaceUp(g, ctx);
  for (let redeals = 0; redeals < MAX_REDEALS && (g.state.face_up[LOCO] || 0) >= 3; redeals++) {
    for (const c of bagItems(g.state.face_up, CARDS)) g.state.discard.push(c);
    g.state.face_up = {};
    dealFaceUp(g, ctx);
  }
}

function dealFaceUp(g, ctx) {
  while (bagSize(g.state.face_up) < FACE_UP) {
    const c = drawCard(g, ctx);
    if (c === null) break;
    bagAdd(g.state.face_up, c);
  }
}

function drawTickets(g, n) {
  const out = [];
  while (out.length < n && g.state.ticket_deck.length > 0) out.push(g.state.ticket_deck.pop());
  return out;
}

// ---- who moves, what is legal ----

function toMove(g) {
  if (g.phase === "over") return [];
  if (g.phase === "setup") return g.chosen.map((c, i) => (c ? -1 : i)).filter((i) => i >= 0);
  return [pindex(g.state.current)];
}

// The legal actions of player p: a list of {id, run(g, ctx)}.
function legalActions(g, p) {
  if (!toMove(g).includes(p)) return [];
  if (g.phase === "setup") return ticketChoices(g, p, 2, "keep");
  if (g.stage === "tickets") return ticketChoices(g, p, 1, "kept");
  if (g.stage === "second") return secondCards(g, p);
  return [...cardDraws(g, p), ...claims(g, p), ...ticketDraw(g, p)];
}

// Every subset of the offered tickets with at least `least` of them, written sorted.
function ticketChoices(g, p, least, name) {
  const offered = g.player_state[p].offered;
  const out = [];
  for (let mask = 1; mask < 1 << offered.length; mask++) {
    const kept = offered.filter((_, i) => mask & (1 << i));
    if (kept.length < Math.min(least, offered.length)) continue;
    const sorted = kept.slice().sort((a, b) => TICKET_IDS.indexOf(a) - TICKET_IDS.indexOf(b));
    out.push({ id: `${name}([${sorted.join(" ")}])`, run: (g2, ctx) => keepTickets(g2, ctx, p, kept) });
  }
  return out;
}

function cardDraws(g, p) {
  const out = [];
  if (cardsLeft(g) > 0) out.push({ id: "draw_blind", run: (g2, ctx) => firstCard(g2, ctx, p, null) });
  for (const c of CARDS) {
    if (g.state.face_up[c]) out.push({ id: `draw_face_up(${c})`, run: (g2, ctx) => firstCard(g2, ctx, p, c) });
  }
  return out;
}

function secondCards(g, p) {
  const out = [];
  if (cardsLeft(g) > 0) out.push({ id: "second_blind", run: (g2, ctx) => secondCard(g2, ctx, p, null) });
  for (const c of CARDS) {
    if (!g.state.face_up[c]) continue;
    // A face-up locomotive may never be the second card (unless the bug is planted).
    if (c === LOCO && !g.bugs.has("second-locomotive")) continue;
    out.push({ id: `second_face_up(${c})`, run: (g2, ctx) => secondCard(g2, ctx, p, c) });
  }
  return out;
}

function ticketDraw(g, p) {
  if (g.state.ticket_deck.length === 0) return [];
  return [{ id: "draw_tickets", run: (g2) => startTickets(g2, p) }];
}

// May player p take route r at all (free, enough trains, the double-route rule)?
function claimable(g, p, r) {
  const s = g.state;
  if (s.owner[r.id] !== null) return false;
  if (g.player_state[p].trains < r.length) return false;
  if (r.twin) {
    const twinOwner = s.owner[r.twin];
    // 2-3 players: a claimed track closes its twin; 4-5: only to the player who holds it.
    if (twinOwner !== null && (g.n <= 3 || twinOwner === pname(p))) return false;
  }
  return true;
}

// claim_route(R, colour, k): length - k cards of one colour and k locomotives (at least one
// coloured card); claim_with_locomotives(R): locomotives only.
function claims(g, p) {
  const hand = g.player_state[p].hand;
  const locos = hand[LOCO] || 0;
  const out = [];
  for (const r of ROUTE.values()) {
    if (!claimable(g, p, r)) continue;
    const colours = r.colour === "gray" ? COLOURS : [r.colour];
    for (const c of colours) {
      const have = hand[c] || 0;
      for (let k = 0; k <= Math.min(locos, r.length - 1); k++) {
        if (have >= r.length - k) {
          out.push({ id: `claim_route(${r.id},${c},${k})`, run: (g2, ctx) => claim(g2, ctx, p, r, c, k) });
        }
      }
    }
    if (locos >= r.length) {
      out.push({ id: `claim_with_locomotives(${r.id})`, run: (g2, ctx) => claim(g2, ctx, p, r, null, r.length) });
    }
  }
  return out;
}

// ---- actions ----

function keepTickets(g, ctx, p, kept) {
  if (g.phase === "setup") {
    // The setup choice is simultaneous: a choice is recorded and shows nowhere (not even in
    // the chooser's own view) until every player has chosen; then all take effect in seat
    // order (learnt from the vectors, see NOTES.md).
    g.chosen[p] = kept;
    if (g.chosen.every(Boolean)) {
      g.chosen.forEach((k, i) => resolveTickets(g, i, k));
      g.phase = "turn";
      g.stage = "start";
    }
    return;
  }
  resolveTickets(g, p, kept);
  endTurn(g, ctx, true);
}

function resolveTickets(g, p, kept) {
  const ps = g.player_state[p];
  for (const t of ps.offered) {
    if (kept.includes(t)) ps.tickets.push(t);
    // Returned tickets go under the deck one by one, in the order they were offered, so the
    // last one returned lies deepest (issue 37's text; no document says it, see NOTES.md).
    else g.state.ticket_deck.unshift(t);
  }
  ps.offered = [];
}

function startTickets(g, p) {
  g.player_state[p].offered = drawTickets(g, 3);
  g.stage = "tickets";
}

// The first card of a draw: blind (colour null) or face up. A face-up locomotive is the whole
// draw; otherwise a second card follows when one is left to take.
function firstCard(g, ctx, p, colour) {
  takeCard(g, ctx, p, colour);
  if (colour === LOCO || secondCards(g, p).length === 0) {
    endTurn(g, ctx, true);
    return;
  }
  g.stage = "second";
}

function secondCard(g, ctx, p, colour) {
  takeCard(g, ctx, p, colour);
  endTurn(g, ctx, true);
}

function takeCard(g, ctx, p, colour) {
  const hand = g.player_state[p].hand;
  if (colour === null) {
    bagAdd(hand, drawCard(g, ctx));
    return;
  }
  bagTake(g.state.face_up, colour);
  bagAdd(hand, colour);
  refillFaceUp(g, ctx);
}

function claim(g, ctx, p, r, colour, locos) {
  const ps = g.player_state[p];
  let coloured = r.length - locos;
  if (g.bugs.has("pay-short") && coloured > 0) coloured -= 1;
  // The payment goes on the discard pile: the coloured cards, then the locomotives.
  if (coloured > 0) {
    bagTake(ps.hand, colour, coloured);
    for (let i = 0; i < coloured; i++) g.state.discard.push(colour);
  }
  if (locos > 0) {
    bagTake(ps.hand, LOCO, locos);
    for (let i = 0; i < locos; i++) g.state.discard.push(LOCO);
  }
  g.state.owner[r.id] = pname(p);
  ps.trains -= r.length;
  ps.score += ROUTE_POINTS[r.length];
  endTurn(g, ctx, true);
}

// The end of a turn (acted) or of a pass: the last round, the end of the game, then the next
// player. A player with nothing possible passes; a full round of passes ends the game.
function endTurn(g, ctx, acted) {
  for (;;) {
    const s = g.state;
    const p = pindex(s.current);
    s.idle_turns = acted ? 0 : s.idle_turns + 1;
    g.stage = "start";
    if (s.last_round_from === s.current) return finish(g);
    const trigger = g.bugs.has("late-last-round") ? LAST_ROUND_TRAINS - 1 : LAST_ROUND_TRAINS;
    if (s.last_round_from === null && g.player_state[p].trains <= trigger) s.last_round_from = s.current;
    if (s.idle_turns >= g.n) return finish(g);
    s.current = pname((p + 1) % g.n);
    if (legalActions(g, pindex(s.current)).length > 0) return;
    acted = false;
  }
}

// ---- final scoring ----

function finish(g) {
  g.phase = "over";
  const longest = [];
  for (let p = 0; p < g.n; p++) {
    const ps = g.player_state[p];
    const routes = ROUTES.map((r) => ROUTE.get(r[0])).filter((r) => g.state.owner[r.id] === pname(p));
    const joined = components(routes);
    for (const t of ps.tickets.map((id) => TICKET.get(id))) {
      if (joined(t.a, t.b)) {
        ps.completed += 1;
        ps.ticket_gains += t.points;
      } else {
        ps.ticket_losses += t.points;
      }
    }
    ps.longest = longestTrail(routes);
    longest.push(ps.longest);
  }
  const best = Math.max(...longest);
  for (let p = 0; p < g.n; p++) {
    // Every player tied for the longest gets the bonus; nobody when nobody has a route.
    let holder = best > 0 && longest[p] === best;
    if (g.bugs.has("bonus-next")) holder = best > 0 && longest[(p + g.n - 1) % g.n] === best;
    const ps = g.player_state[p];
    ps.bonus = holder;
    ps.score += ps.ticket_gains - ps.ticket_losses + (holder ? LONGEST_BONUS : 0);
  }
}

// A function telling whether two cities are joined by the given routes (union-find).
function components(routes) {
  const parent = new Map();
  const find = (x) => {
    while (parent.has(x) && parent.get(x) !== x) x = parent.get(x);
    return x;
  };
  for (const r of routes) {
    for (const c of [r.a, r.b]) if (!parent.has(c)) parent.set(c, c);
    parent.set(find(r.a), find(r.b));
  }
  return (a, b) => parent.has(a) && parent.has(b) && find(a) === find(b);
}

// The longest trail in trains: a walk using each route at most once (cities may repeat).
function longestTrail(routes) {
  const edges = new Map();
  for (const [i, r] of routes.entries()) {
    for (const [from, to] of [[r.a, r.b], [r.b, r.a]]) {
      if (!edges.has(from)) edges.set(from, []);
      edges.get(from).push({ i, to, length: r.length });
    }
  }
  const used = new Array(routes.length).fill(false);
  const walk = (city) => {
    let best = 0;
    for (const e of edges.get(city) || []) {
      if (used[e.i]) continue;
      used[e.i] = true;
      best = Math.max(best, e.length + walk(e.to));
      used[e.i] = false;
    }
    return best;
  };
  let best = 0;
  for (const city of edges.keys()) best = Math.max(best, walk(city));
  return best;
}

// ---- scores and ranking ----

const scores = (g) => g.player_state.map((p) => p.score);

// Places by score, then completed tickets, then the longest-trail bonus; full ties share.
function ranking(g) {
  const key = (p) => [p.score, p.completed, p.bonus ? 1 : 0];
  const better = (a, b) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] > b[i];
    return false;
  };
  const keys = g.player_state.map(key);
  return keys.map((k) => 1 + keys.filter((other) => better(other, k)).length);
}

module.exports = {
  BUGS,
  CARDS,
  COLOURS,
  NeedChance,
  Refused,
  ROUTE,
  TICKET_IDS,
  bagSize,
  chanceContext,
  clone,
  legalActions,
  newGame,
  pindex,
  pname,
  ranking,
  scores,
  seededRng,
  setup,
  toMove,
};
