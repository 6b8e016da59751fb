// The lobby: the server's games, a form for a new match, and the links of its seats.
// Every text from the server is set with textContent, never as markup.
"use strict";

let games = [];
const INVITED = "@invited"; // a seat's value for a person coming by the invitation (no bot's name)

function element(tag, text) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}

function chosenGame() {
  return games.find((g) => g.name === document.getElementById("game").value);
}

function seatRow(game, index) {
  const label = element("label", `P${index + 1} `);
  const select = element("select");
  select.className = "seat";
  select.name = `seat-${index}`;
  const human = element("option", "a person");
  human.value = "";
  const invited = element("option", "someone invited (one link for all)");
  invited.value = INVITED;
  select.append(human, invited);
  // The levels of play first ("easy (random)"), then every bot by its own name.
  const levelNames = game.levels.map((level) => level.name);
  for (const level of game.levels) {
    const option = element("option", `bot: ${level.name} (${level.bot})`);
    option.value = level.name;
    select.append(option);
  }
  for (const bot of game.bots.filter((name) => !levelNames.includes(name))) {
    const option = element("option", `bot: ${bot}`);
    option.value = bot;
    select.append(option);
  }
  if (index > 0 && game.bots.length) select.value = levelNames.includes("easy") ? "easy" : game.bots[0];
  // A bot's budget: a bounded number in one of the units the server lists for that bot.
  const budget = element("input");
  budget.className = "budget";
  budget.type = "number";
  budget.min = 1;
  budget.placeholder = "budget";
  budget.title = "optional: the bot's budget per decision";
  const unit = element("select");
  unit.className = "budget-unit";
  const offerBudgets = () => {
    const budgets = game.budgets.filter((b) => b.bot === select.value);
    unit.replaceChildren(...budgets.map((b) => {
      const option = element("option", b.unit);
      option.value = b.suffix;
      option.dataset.max = b.max;
      return option;
    }));
    budget.hidden = unit.hidden = budgets.length === 0;
    if (budgets.length === 0) budget.value = "";
    budget.max = budgets.length ? unit.selectedOptions[0].dataset.max : "";
  };
  select.addEventListener("change", offerBudgets);
  unit.addEventListener("change", () => { budget.max = unit.selectedOptions[0].dataset.max; });
  offerBudgets();
  label.append(select, budget, unit);
  return label;
}

function showSeats() {
  const game = chosenGame();
  const players = document.getElementById("players");
  players.min = game.players[0];
  players.max = game.players[1];
  const count = Math.min(Math.max(Number(players.value) || game.players[0], game.players[0]), game.players[1]);
  players.value = count;
  const seats = document.getElementById("seats");
  seats.replaceChildren(element("legend", "Seats"));
  for (let i = 0; i < count; i++) seats.append(seatRow(game, i));
}

function showPatches() {
  const game = chosenGame();
  const patches = document.getElementById("patches");
  patches.replaceChildren(element("legend", "Variants and expansions"));
  for (const [kind, names] of [["variant", game.variants], ["expansion", game.expansions]]) {
    for (const name of names) {
      const label = element("label", ` ${kind}: ${name}`);
      const box = element("input");
      box.type = "checkbox";
      box.dataset.kind = kind;
      box.value = name;
      label.prepend(box);
      patches.append(label);
    }
  }
  patches.hidden = !(game.variants.length || game.expansions.length);
}

async function create(event) {
  event.preventDefault();
  const error = document.getElementById("error");
  error.textContent = "";
  const seed = document.getElementById("seed").value.trim();
  const checked = [...document.querySelectorAll("#patches input:checked")];
  const request = {
    game: chosenGame().name,
    seats: [...document.querySelectorAll("select.seat")].map((s) => {
      const budget = s.parentNode.querySelector("input.budget").value.trim();
      const suffix = s.parentNode.querySelector("select.budget-unit").value;
      if (!s.value) return { human: true };
      if (s.value === INVITED) return { invited: true };
      return { bot: budget ? `${s.value}:${budget}${suffix}` : s.value };
    }),
    variants: checked.filter((b) => b.dataset.kind === "variant").map((b) => b.value),
    expansions: checked.filter((b) => b.dataset.kind === "expansion").map((b) => b.value),
  };
  if (seed) request.seed = /^-?\d+$/.test(seed) ? Number(seed) : seed;
  const answer = await fetch("/api/matches", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(request),
  });
  const doc = await answer.json();
  if (!answer.ok) {
    error.textContent = doc.error;
    return;
  }
  const links = document.getElementById("links");
  links.replaceChildren();
  for (const seat of doc.seats) {
    const item = element("li", `P${seat.seat + 1}: `);
    const link = element("a", new URL(seat.url, location.href).href);
    link.href = seat.url;
    link.className = "seat-link";
    item.append(link);
    links.append(item);
  }
  if (doc.invite) {
    const invite = element("li", "Invitation (each person who opens it takes the next invited seat): ");
    const link = element("a", new URL(doc.invite, location.href).href);
    link.href = doc.invite;
    link.className = "invite-link";
    invite.append(link);
    links.append(invite);
  }
  const item = element("li", "Spectators: ");
  const link = element("a", new URL(doc.spectate, location.href).href);
  link.href = doc.spectate;
  item.append(link);
  links.append(item);
  document.getElementById("created").hidden = false;
  const seats = doc.seats.map((seat) => ({ seat: seat.seat, url: seat.url }));
  keepMatch(doc.match, chosenGame().title, [...seats, { seat: null, url: doc.spectate }], doc.invite);
  showKept();
}

function placesText(doc) {
  const order = doc.places.map((place, seat) => [place, seat]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return order.map(([place, seat]) => `${place}. P${seat + 1} (${doc.scores[seat]})`).join(", ");
}

async function keptStatus(entry, into) {
  // Where the match stands, as everyone may see it (the spectators' document: no secret).
  let answer, doc;
  try {
    answer = await fetch(`/api/matches/${encodeURIComponent(entry.match)}`);
    doc = await answer.json();
  } catch {
    into.textContent = "the server did not answer"; // or the page moved on meanwhile
    return;
  }
  if (answer.status === 404) {
    into.textContent = "no longer on this server";
    return;
  }
  if (!answer.ok) return;
  into.textContent = doc.over
    ? `game over: ${placesText(doc)}`
    : `decision ${doc.decisions + 1}, to move: ${doc.to_move.map((seat) => `P${seat + 1}`).join(", ")}`;
  into.dataset.decisions = doc.decisions;
}

function showKept() {
  const kept = keptMatches();
  const list = document.getElementById("kept-matches");
  list.replaceChildren();
  for (const entry of kept) {
    const item = element("li");
    item.className = "kept-match";
    item.dataset.match = entry.match;
    const state = element("span", "…");
    state.className = "kept-status";
    item.append(element("strong", entry.title), " (", element("span", entry.kept.slice(0, 10)), "): ", state, " ");
    for (const link of entry.links) {
      const anchor = element("a", link.seat === null ? "watch" : `P${link.seat + 1}`);
      anchor.href = link.url;
      anchor.className = "kept-link";
      item.append(anchor, " ");
    }
    if (entry.invite) {
      const anchor = element("a", "invitation");
      anchor.href = entry.invite;
      anchor.className = "kept-invite";
      item.append(anchor, " ");
    }
    const forget = element("button", "forget");
    forget.type = "button";
    forget.className = "forget";
    forget.addEventListener("click", () => {
      forgetMatch(entry.match);
      showKept();
    });
    item.append(forget);
    list.append(item);
    keptStatus(entry, state);
  }
  document.getElementById("kept").hidden = kept.length === 0;
}

async function start() {
  games = await (await fetch("/api/games")).json();
  const select = document.getElementById("game");
  for (const game of games) {
    const option = element("option", game.title);
    option.value = game.name;
    select.append(option);
  }
  select.addEventListener("change", () => { showSeats(); showPatches(); });
  document.getElementById("players").addEventListener("change", showSeats);
  document.getElementById("create").addEventListener("submit", create);
  showSeats();
  showPatches();
  showKept();
  document.body.dataset.ready = "yes";
}

start();
