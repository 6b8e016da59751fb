#!/usr/bin/env node
"use strict";
// The JSON-lines protocol of docs/protocol.md for the Ticket to Ride engine in rules.js:
// one request per line on standard input, one answer line per request on standard output.
//
//   node serve.js [--bug NAME]
//
// --bug NAME plants a known bug (rules.js BUGS) so the test suite can check the vectors catch it.

const fs = require("node:fs");
const rules = require("./rules.js");
const { setState, view } = require("./state_json.js");

const MAX_LINE = 1048576; // bytes, without the newline
const MAX_DEPTH = 100;

class Engine {
  constructor(bugs) {
    this.bugs = bugs;
    this.game = null;
    // A step waiting for a chance outcome: the position it began in, what it runs, and the
    // outcomes given so far. The step is run again from there once the next outcome comes.
    this.pending = null;
    this.rng = null;
  }

  info() {
    return { game: "Ticket to Ride", min_players: 2, max_players: 5 };
  }

  newGame(req) {
    const n = req.players;
    if (!Number.isInteger(n) || n < 2 || n > 5) throw new rules.Refused("Ticket to Ride takes 2 to 5 players");
    const mode = req.chance === undefined ? "seeded" : req.chance;
    if (mode !== "seeded" && mode !== "explicit") throw new rules.Refused("chance is seeded or explicit");
    this.rng = mode === "seeded" ? rules.seededRng(req.seed === undefined ? 0 : req.seed) : null;
    const fresh = rules.newGame(n);
    fresh.bugs = this.bugs;
    this.game = fresh;
    this.pending = null;
    this.runStep(fresh, (g, ctx) => rules.setup(g, ctx), []);
    return {};
  }

  // Run a step on a copy of `base`; keep the result, or wait for a chance outcome.
  runStep(base, run, outcomes) {
    const g = rules.clone(base);
    const ctx = rules.chanceContext(outcomes, this.rng);
    try {
      run(g, ctx);
    } catch (e) {
      if (e instanceof rules.NeedChance) {
        this.game = base;
        this.pending = { base, run, outcomes };
        return;
      }
      throw e;
    }
    this.game = g;
    this.pending = null;
  }

  chance(req) {
    this.needGame();
    if (!this.pending) throw new rules.Refused("no random event is waiting");
    const o = req.outcome;
    if (o === null || typeof o !== "object" || Array.isArray(o)) throw new rules.Refused("outcome must be an object");
    const { base, run, outcomes } = this.pending;
    // A refused outcome (rules.Refused from the shuffle) leaves the step waiting as it was.
    this.runStep(base, run, [...outcomes, o]);
    return {};
  }

  toMove() {
    this.needGame();
    if (this.pending) return { to_move: [], chance: true };
    return { to_move: rules.toMove(this.game), chance: false };
  }

  legalActions(req) {
    const p = this.player(req);
    if (this.pending) return { actions: [] };
    return { actions: rules.legalActions(this.game, p).map((a) => a.id) };
  }

  apply(req) {
    const p = this.player(req);
    if (typeof req.action !== "string") throw new rules.Refused("action must be a string");
    if (this.pending) throw new rules.Refused("a random event is waiting");
    const action = rules.legalActions(this.game, p).find((a) => a.id === req.action);
    if (!action) throw new rules.Refused(`${req.action} is not legal for player ${p}`);
    this.runStep(this.game, action.run, []);
    return {};
  }

  setState(req) {
    this.needGame();
    if (this.pending) throw new rules.Refused("a random event is waiting");
    const g = rules.clone(this.game);
    setState(g, req.state);
    this.game = g;
    return {};
  }

  view(req) {
    const p = this.player(req);
    return { view: view(this.game, p, this.pending !== null) };
  }

  scores() {
    this.needGame();
    return { scores: rules.scores(this.game) };
  }

  ranking() {
    this.needGame();
    return { ranking: rules.ranking(this.game) };
  }

  isOver() {
    this.needGame();
    return { over: this.game.phase === "over" };
  }

  perft(req) {
    this.needGame();
    const d = req.depth;
    if (!Number.isInteger(d) || d < 0) throw new rules.Refused("depth must be a whole number >= 0");
    if (this.pending) throw new rules.Refused("a random event is waiting");
    return { count: perft(this.game, d) };
  }

  needGame() {
    if (!this.game) throw new rules.Refused("no game: send new_game first");
  }

  player(req) {
    this.needGame();
    const p = req.player;
    if (!Number.isInteger(p) || p < 0 || p >= this.game.n) throw new rules.Refused("no such player");
    return p;
  }
}

// Action sequences of length d, the first player to move acting at each step. Chance is fixed
// for the vectors' counts, so a step meeting a random event would be a misuse: it counts 0.
function perft(g, d) {
  if (d === 0) return 1;
  const movers = rules.toMove(g);
  if (movers.length === 0) return 0;
  const actions = rules.legalActions(g, movers[0]);
  if (d === 1) return actions.length;
  let total = 0;
  for (const a of actions) {
    const next = rules.clone(g);
    try {
      a.run(next, rules.chanceContext([], null));
    } catch (e) {
      if (e instanceof rules.NeedChance) continue;
      throw e;
    }
    total += perft(next, d - 1);
  }
  return total;
}

// ---- lines ----

// Whether a value nests deeper than `limit` levels; it stops looking there, so a very deep line
// cannot exhaust the stack.
function tooDeep(value, limit) {
  if (value === null || typeof value !== "object") return false;
  if (limit === 0) return true;
  return Object.values(value).some((v) => tooDeep(v, limit - 1));
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function hasLoneSurrogate(value) {
  if (typeof value === "string") return LONE_SURROGATE.test(value);
  if (value === null || typeof value !== "object") return false;
  for (const [k, v] of Object.entries(value)) if (hasLoneSurrogate(k) || hasLoneSurrogate(v)) return true;
  return false;
}

// One request line (a Buffer) to its answer object, or null for quit.
function answer(engine, line) {
  if (line.length > MAX_LINE) return refusal("the line is longer than 1 MiB");
  let req;
  try {
    req = JSON.parse(line.toString("utf8"));
  } catch (e) {
    return refusal(e instanceof RangeError ? "the line is nested too deeply" : "the line is not JSON");
  }
  if (req === null || typeof req !== "object" || Array.isArray(req)) return refusal("a request is a JSON object");
  if (tooDeep(req, MAX_DEPTH)) return refusal("the line is nested more than 100 levels");
  if (hasLoneSurrogate(req)) return refusal("the line holds a lone surrogate");
  const handlers = {
    info: () => engine.info(),
    new_game: () => engine.newGame(req),
    chance: () => engine.chance(req),
    set_state: () => engine.setState(req),
    to_move: () => engine.toMove(),
    legal_actions: () => engine.legalActions(req),
    apply: () => engine.apply(req),
    view: () => engine.view(req),
    scores: () => engine.scores(),
    ranking: () => engine.ranking(),
    is_over: () => engine.isOver(),
    perft: () => engine.perft(req),
  };
  if (req.op === "quit") return null;
  const handler = handlers[req.op];
  if (!handler) return refusal(`unknown op ${JSON.stringify(req.op)}`);
  try {
    return { ok: true, ...handler() };
  } catch (e) {
    if (e instanceof rules.Refused) return refusal(e.message);
    process.stderr.write(`${e.stack}\n`);
    return refusal(`internal error: ${e.message}`);
  }
}

const refusal = (why) => ({ ok: false, error: why });

function parseBugs(argv) {
  const bugs = new Set();
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] !== "--bug") continue;
    const name = argv[++i];
    if (!(name in rules.BUGS)) {
      process.stderr.write(`unknown bug ${name}; known: ${Object.keys(rules.BUGS).join(", ")}\n`);
      process.exit(2);
    }
    bugs.add(name);
  }
  return bugs;
}

function main() {
  const engine = new Engine(parseBugs(process.argv.slice(2)));
  let pending = Buffer.alloc(0);
  let tooLong = false; // the current line already passed the limit: drop it, refuse at its end
  const onLine = (line) => {
    const reply = tooLong ? refusal("the line is longer than 1 MiB") : answer(engine, line);
    tooLong = false;
    if (reply === null) process.exit(0);
    fs.writeSync(1, `${JSON.stringify(reply)}\n`);
  };
  process.stdin.on("data", (chunk) => {
    let buf = Buffer.concat([pending, chunk]);
    let nl;
    while ((nl = buf.indexOf(10)) >= 0) {
      onLine(buf.subarray(0, nl));
      buf = buf.subarray(nl + 1);
    }
    if (buf.length > MAX_LINE) {
      tooLong = true;
      buf = Buffer.alloc(0);
    }
    pending = buf;
  });
  process.stdin.on("end", () => process.exit(0));
}

main();
