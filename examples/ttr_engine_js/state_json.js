"use strict";
// The state JSON (set_state) and the views of docs/protocol.md section 4. rules.js keeps the
// fields in their JSON form already, so this file checks what set_state is given and hides what
// a player may not see.

const rules = require("./rules.js");

// Visibility of the fields: hidden from everybody, or seen only by their owner.
const HIDDEN = new Set(["deck", "ticket_deck"]);
const OWNER_ONLY = new Set(["hand", "tickets", "offered"]);

const STATE_FIELDS = ["deck", "face_up", "discard", "ticket_deck", "owner", "current", "last_round_from", "idle_turns"];
const PLAYER_FIELDS = [
  "hand",
  "tickets",
  "offered",
  "trains",
  "score",
  "completed",
  "longest",
  "bonus",
  "ticket_gains",
  "ticket_losses",
];

// A bag's items in the declared order, so bags are always written the same way.
function orderedBag(bag) {
  const out = {};
  for (const c of rules.CARDS) if (bag[c]) out[c] = bag[c];
  return out;
}

function hidden(value) {
  const size = Array.isArray(value) ? value.length : value !== null && typeof value === "object" ? rules.bagSize(value) : null;
  return { hidden: true, size };
}

function view(g, p, chanceWaits) {
  const state = {};
  for (const f of STATE_FIELDS) state[f] = HIDDEN.has(f) ? hidden(g.state[f]) : structuredClone(g.state[f]);
  state.face_up = orderedBag(g.state.face_up);
  const playerState = g.player_state.map((ps, i) => {
    const out = {};
    for (const f of PLAYER_FIELDS) {
      out[f] = OWNER_ONLY.has(f) && i !== p ? hidden(ps[f]) : structuredClone(ps[f]);
    }
    if (i === p) out.hand = orderedBag(ps.hand);
    return out;
  });
  return {
    game: "Ticket to Ride",
    players: g.n,
    you: rules.pname(p),
    over: g.phase === "over",
    to_move: chanceWaits ? [] : rules.toMove(g).map(rules.pname),
    state,
    player_state: playerState,
  };
}

// ---- set_state: check every field, then replace them all ----

function refuse(why) {
  throw new rules.Refused(`set_state: ${why}`);
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function checkPlayer(name, n, nullable) {
  if (nullable && name === null) return;
  if (typeof name !== "string" || !/^P[1-9][0-9]*$/.test(name) || rules.pindex(name) >= n) refuse(`bad player ${name}`);
}

function checkPile(value, allowed, what) {
  if (!Array.isArray(value) || !value.every((x) => allowed.includes(x))) refuse(`bad ${what}`);
}

function checkBag(value, what) {
  if (!isObject(value)) refuse(`bad ${what}`);
  for (const [k, v] of Object.entries(value)) {
    if (!rules.CARDS.includes(k) || !Number.isInteger(v) || v < 0) refuse(`bad ${what}`);
  }
}

function checkInt(value, what) {
  if (!Number.isInteger(value)) refuse(`bad ${what}`);
}

function checkState(g, given) {
  if (!isObject(given) || !isObject(given.state) || !Array.isArray(given.player_state)) refuse("needs state and player_state");
  const s = given.state;
  for (const f of STATE_FIELDS) if (!(f in s)) refuse(`missing ${f}`);
  checkPile(s.deck, rules.CARDS, "deck");
  checkBag(s.face_up, "face_up");
  checkPile(s.discard, rules.CARDS, "discard");
  checkPile(s.ticket_deck, rules.TICKET_IDS, "ticket_deck");
  if (!isObject(s.owner)) refuse("bad owner");
  for (const id of rules.ROUTE.keys()) {
    if (!(id in s.owner)) refuse(`owner misses ${id}`);
    checkPlayer(s.owner[id], g.n, true);
  }
  checkPlayer(s.current, g.n, false);
  checkPlayer(s.last_round_from, g.n, true);
  checkInt(s.idle_turns, "idle_turns");
  if (given.player_state.length !== g.n) refuse("player_state needs one entry per player");
  for (const ps of given.player_state) {
    if (!isObject(ps)) refuse("bad player_state entry");
    for (const f of PLAYER_FIELDS) if (!(f in ps)) refuse(`missing ${f}`);
    checkBag(ps.hand, "hand");
    checkPile(ps.tickets, rules.TICKET_IDS, "tickets");
    checkPile(ps.offered, rules.TICKET_IDS, "offered");
    for (const f of ["trains", "score", "completed", "longest", "ticket_gains", "ticket_losses"]) checkInt(ps[f], f);
    if (typeof ps.bonus !== "boolean") refuse("bad bonus");
  }
}

// Drop zero counts: a bag holds only the items it has at least once.
function cleanBag(bag) {
  const out = {};
  for (const [k, v] of Object.entries(bag)) if (v > 0) out[k] = v;
  return out;
}

function setState(g, given) {
  checkState(g, given);
  const s = given.state;
  g.state = {
    deck: s.deck.slice(),
    face_up: cleanBag(s.face_up),
    discard: s.discard.slice(),
    ticket_deck: s.ticket_deck.slice(),
    owner: {},
    current: s.current,
    last_round_from: s.last_round_from,
    idle_turns: s.idle_turns,
  };
  for (const id of rules.ROUTE.keys()) g.state.owner[id] = s.owner[id];
  g.player_state = given.player_state.map((ps) => ({
    hand: cleanBag(ps.hand),
    tickets: ps.tickets.slice(),
    offered: ps.offered.slice(),
    trains: ps.trains,
    score: ps.score,
    completed: ps.completed,
    longest: ps.longest,
    bonus: ps.bonus,
    ticket_gains: ps.ticket_gains,
    ticket_losses: ps.ticket_losses,
  }));
}

module.exports = { setState, view };
