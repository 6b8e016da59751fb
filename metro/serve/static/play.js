// The play page: follows the match over its websocket and offers this seat's legal choices.
// Every text from the server (the rules' words) is set with textContent, never as markup;
// the board is the server's SVG picture, whose texts the server escaped.
"use strict";

const MENU_BUTTONS = 12; // a group with more choices than this is a drop-down list
const matchId = document.body.dataset.match;
const token = new URLSearchParams(location.search).get("token");
const query = token ? `?token=${encodeURIComponent(token)}` : "";
let current = null;
let boardShown = -1;
let choicesShown = null; // the seat and legal choices the menus show
let chatShown = null; // the chat's messages as shown

function element(tag, text) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}

function post(path, body) {
  return fetch(`/api/matches/${matchId}/${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token, ...body }),
  });
}

function send(action, at) {
  // The version too: a position reached again after an undo is not the one chosen at.
  return post("actions", { action, decisions: at.decisions, version: at.version });
}

async function undo() {
  const answer = await post("undo", { decisions: current.decisions, version: current.version });
  const doc = await answer.json();
  document.getElementById("error").textContent = answer.ok ? "" : doc.error;
  if (answer.ok) show(doc);
}

async function playAgain() {
  // The same seats play a new match (begun now, or the one another seat began): go to it.
  const answer = await post("again", {});
  const doc = await answer.json();
  if (answer.ok) location.assign(doc.url);
  else document.getElementById("error").textContent = doc.error;
}

function showAgain(doc) {
  // Once the match is over: a seat may begin a new one with the same seats; once one is begun,
  // every page of this match offers the way to it (the same token takes the same seat there).
  document.getElementById("again").hidden = !doc.over;
  document.getElementById("again-button").hidden = doc.seat === null || doc.next !== null;
  const link = document.getElementById("next-link");
  link.hidden = doc.next === null;
  if (doc.next !== null) {
    link.href = `/play/${encodeURIComponent(doc.next)}${query}`;
    link.textContent = doc.seat === null ? "Watch the next match of these seats" : "The same seats play again: go to the new match";
  }
}

async function say(event) {
  event.preventDefault();
  const input = document.getElementById("chat-text");
  const error = document.getElementById("chat-error");
  const answer = await post("chat", { text: input.value });
  const doc = await answer.json();
  error.textContent = answer.ok ? "" : doc.error;
  if (!answer.ok) return;
  input.value = "";
  show(doc);
}

function showChat(doc) {
  // Redrawn only when it changed, so a person reading older messages is not moved at each move.
  const said = JSON.stringify(doc.chat);
  if (said === chatShown) return;
  chatShown = said;
  const chat = document.getElementById("chat");
  const lines = doc.chat.map((message) => {
    const who = `P${message.seat + 1}${message.seat === doc.seat ? " (you)" : ""}: `;
    const line = element("li");
    line.append(element("strong", who), document.createTextNode(message.text));
    return line;
  });
  chat.replaceChildren(...lines);
  chat.scrollTop = chat.scrollHeight;
}

function sameSight(a, b) {
  // Nothing the person could see differs: their view (but whose turn it is) and their choices.
  const seen = (doc) => JSON.stringify([doc.view.state, doc.view.player_state, doc.legal]);
  return seen(a) === seen(b);
}

async function choose(action) {
  const error = document.getElementById("error");
  error.textContent = "";
  const chosenAt = current;
  let answer = await send(action, chosenAt);
  if (answer.status === 409) {
    // Someone decided meanwhile (another player's secret choice, say). Choose again for the
    // person only if nothing they could see has changed; else show the new position.
    const latest = await (await fetch(`/api/matches/${matchId}${query}`)).json();
    if (!sameSight(chosenAt, latest)) {
      show(latest);
      error.textContent = "The position changed before your choice arrived: please choose again.";
      return;
    }
    answer = await send(action, latest);
  }
  const doc = await answer.json();
  if (!answer.ok) error.textContent = doc.error;
  else show(doc);
}

function showChoices(doc) {
  const box = document.getElementById("choices");
  box.replaceChildren();
  const groups = new Map();
  for (const choice of doc.choices) {
    if (!groups.has(choice.group)) groups.set(choice.group, []);
    groups.get(choice.group).push(choice);
  }
  for (const [name, choices] of groups) {
    const group = element("div");
    group.className = "group";
    // a lone choice whose label is its heading needs no heading of its own
    if (choices.length > 1 || (groups.size > 1 && name !== choices[0].label)) {
      group.append(element("h3", name));
    }
    if (choices.length > 1 && choices.every((choice) => choice.items)) {
      group.append(subsetPicker(choices));
      box.append(group);
      continue;
    }
    // an action's long share of the group is picked argument by argument, the rest as before
    let rest = choices;
    for (const [name, own] of byAction(choices)) {
      if (own.length > MENU_BUTTONS && byArguments(own)) {
        const picker = argumentPicker(own, doc.headings[name]);
        picker.dataset.action = name;
        group.append(picker);
        rest = rest.filter((choice) => !own.includes(choice));
      }
    }
    if (rest.length) group.append(...menu(rest));
    box.append(group);
  }
  document.getElementById("choices-section").hidden = doc.seat === null;
}

function menu(choices) {
  // A button per choice, or a drop-down list and one button for a long group.
  if (choices.length <= MENU_BUTTONS) {
    return choices.map((choice) => {
      const button = element("button", choice.label);
      button.className = "choice";
      button.addEventListener("click", () => choose(choice.id));
      return button;
    });
  }
  const select = element("select");
  select.className = "choice-list";
  for (const choice of choices) {
    const option = element("option", choice.label);
    option.value = choice.id;
    select.append(option);
  }
  const button = element("button", "choose");
  button.className = "choice";
  button.addEventListener("click", () => choose(select.value));
  return [select, button];
}

function byAction(choices) {
  // The choices of each action, by its name (an id is `name(arguments)`), in their order.
  const actions = new Map();
  for (const choice of choices) {
    const name = choice.id.split("(")[0];
    if (!actions.has(name)) actions.set(name, []);
    actions.get(name).push(choice);
  }
  return actions;
}

function itemKeys(choice) {
  return choice.items.map((item) => item.key).sort().join(" ");
}

function subsetPicker(choices) {
  // A choice of several things at once (some of the cards offered): a check box per thing, and one
  // button making the choice whose things are those checked (the first choice's at first).
  const picker = element("div");
  picker.className = "subset";
  const most = new Map(); // each thing, as many times as one choice holds it
  const boxes = [];
  for (const choice of choices) {
    const counts = new Map();
    for (const item of choice.items) {
      const n = (counts.get(item.key) || 0) + 1;
      counts.set(item.key, n);
      if (n > (most.get(item.key) || 0)) {
        most.set(item.key, n);
        const box = element("input");
        box.type = "checkbox";
        box.className = "subset-item";
        box.dataset.key = item.key;
        const label = element("label");
        label.append(box, document.createTextNode(" " + item.label));
        picker.append(label);
        boxes.push(box);
      }
    }
  }
  const sizes = choices.map((choice) => choice.items.length);
  const low = Math.min(...sizes), high = Math.max(...sizes);
  const button = element("button");
  button.className = "choice subset-choice";
  const byKeys = new Map(choices.map((choice) => [itemKeys(choice), choice]));
  const selected = () => byKeys.get(boxes.filter((box) => box.checked).map((box) => box.dataset.key).sort().join(" "));
  const update = () => {
    const choice = selected();
    button.disabled = !choice;
    button.textContent = choice ? choice.label : (low === high ? `check ${low}` : `check ${low} to ${high}`);
  };
  const first = choices[0].items.map((item) => item.key);
  for (const box of boxes) {
    const at = first.indexOf(box.dataset.key);
    box.checked = at >= 0;
    if (at >= 0) first.splice(at, 1);
    box.addEventListener("change", update);
  }
  button.addEventListener("click", () => {
    const choice = selected();
    if (choice) choose(choice.id);
  });
  update();
  picker.append(element("br"), button);
  return picker;
}

function byArguments(choices) {
  // Whether a long group can be picked argument by argument: every choice has its arguments in
  // words, as many (two or more), and no two choices have the same words for all of them.
  if (!choices.every((choice) => choice.words)) return false; // a placement: its label says it
  const arity = choices[0].words.length;
  const seen = new Set(choices.map((choice) => JSON.stringify(choice.words)));
  return arity >= 2 && choices.every((choice) => choice.words.length === arity) && seen.size === choices.length;
}

function argumentPicker(choices, headings) {
  // A long group of one action's choices of several arguments (a place, a kind, a number): a
  // drop-down list per argument under its heading, each offering what the lists before it
  // leave, and one button making the choice they pick out, its label on the button. A list left
  // with one value is not shown (the button says it).
  const picker = element("div");
  picker.className = "arguments";
  const arity = choices[0].words.length;
  const lists = [];
  const button = element("button");
  button.className = "choice argument-choice";
  const matching = (upTo) =>
    choices.filter((choice) => lists.slice(0, upTo).every((list, at) => choice.words[at] === list.value));
  const refill = (from) => {
    for (let at = from; at < arity; at++) {
      const values = [];
      for (const choice of matching(at)) {
        if (!values.includes(choice.words[at])) values.push(choice.words[at]);
      }
      const kept = values.includes(lists[at].value) ? lists[at].value : values[0];
      lists[at].replaceChildren(
        ...values.map((words) => {
          const option = element("option", words);
          option.value = words;
          return option;
        }),
      );
      lists[at].value = kept;
      lists[at].parentElement.hidden = values.length === 1;
    }
    button.textContent = matching(arity)[0].label;
  };
  for (let at = 0; at < arity; at++) {
    const list = element("select");
    list.className = "argument";
    list.dataset.argument = String(at);
    list.addEventListener("change", () => refill(at + 1));
    lists.push(list);
    const heading = element("label", headings[at]);
    heading.className = "argument-heading";
    heading.append(list);
    picker.append(heading);
  }
  button.addEventListener("click", () => choose(matching(arity)[0].id));
  refill(0);
  picker.append(button);
  return picker;
}

function cell(tag, text) {
  const node = element(tag);
  if (text.includes("\n")) node.append(element("pre", text));
  else node.textContent = text;
  return node;
}

function showGrid(table, grid, highlight) {
  table.replaceChildren();
  const head = element("tr");
  head.append(cell("th", grid.heading));
  for (const column of grid.columns) head.append(cell("th", column === highlight ? `${column} (you)` : column));
  table.append(head);
  for (const row of grid.rows) {
    const line = element("tr");
    row.forEach((text, i) => line.append(cell(i ? "td" : "th", text)));
    table.append(line);
  }
}

function showScreen(doc) {
  const screen = doc.screen;
  showGrid(document.getElementById("players"), screen.players, screen.viewer);
  const tableBox = document.getElementById("table");
  tableBox.replaceChildren();
  const lines = element("dl");
  for (const part of screen.table) {
    if ("text" in part) {
      lines.append(element("dt", part.heading), element("dd", part.text));
    } else {
      const grid = element("table");
      showGrid(grid, part, null);
      tableBox.append(grid);
    }
  }
  tableBox.prepend(lines);
  const mine = document.getElementById("private");
  mine.replaceChildren();
  for (const line of screen.private) mine.append(element("dt", line.heading), element("dd", line.text));
  document.getElementById("private-section").hidden = screen.private.length === 0;
}

function status(doc) {
  const you = doc.seat === null ? "you are watching" : `you are P${doc.seat + 1}`;
  if (doc.over) {
    const order = doc.places.map((place, seat) => [place, seat]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    return `Game over (${you}): ` + order.map(([place, seat]) => `${place}. P${seat + 1} (${doc.scores[seat]})`).join(", ");
  }
  const waiting = doc.to_move.map((seat) => `P${seat + 1}`).join(", ") || "nobody";
  const yours = doc.seat !== null && doc.to_move.includes(doc.seat) ? " — your decision" : "";
  return `${you}; to move: ${waiting}${yours}`;
}

async function showBoard(doc) {
  const answer = await fetch(`/api/matches/${matchId}/board${query}`);
  if (!answer.ok || current.version !== doc.version) return; // a newer position is on its way
  document.getElementById("board").innerHTML = await answer.text();
  markClickable(current);
  document.getElementById("board").dataset.decisions = doc.decisions;
}

function shapeNames(shape) {
  // The things a board shape stands for (keys such as "route:R013", written by the server).
  return (shape.dataset.names || "").split(" ").filter((key) => key);
}

function choicesAt(doc, shape) {
  const names = new Set(shapeNames(shape));
  return doc.choices.filter((choice) => choice.elements.some((key) => names.has(key)));
}

// A shape standing for a choice (a piece at one placement: `chooses` in the rules) carries
// every argument of it (data-chooses); it makes each of the seat's choices that has them all.
// The choices offered beside the board after a click narrow those drawn: clicking a kind of
// piece leaves the places of that kind; a click on a cell offers the placements covering it.
let offered = null;

function choiceKeys(shape) {
  return (shape.dataset.chooses || "").split(" ").filter((key) => key);
}

function choicesOf(shape, pool) {
  const keys = choiceKeys(shape);
  return pool.filter((choice) => keys.every((key) => choice.arguments.includes(key)));
}

function candidates(doc) {
  return offered || doc.choices;
}

function markClickable(doc) {
  // The shapes standing for something this seat's choices name, marked to be clicked.
  const named = new Set(doc.choices.flatMap((choice) => choice.elements));
  for (const shape of document.querySelectorAll("#board [data-names]")) {
    const clickable = shapeNames(shape).some((key) => named.has(key));
    shape.classList.toggle("clickable", clickable);
    if (clickable && !shape.querySelector(".hit")) widenForClicks(shape);
  }
  const pool = candidates(doc);
  let placing = false;
  for (const shape of document.querySelectorAll("#board [data-chooses]")) {
    const offer = choicesOf(shape, pool).length > 0;
    shape.classList.toggle("offer", offer);
    placing = placing || offer;
  }
  // the rings of the last moves fade while pieces are placed under them
  document.getElementById("board").classList.toggle("placing", placing);
}

function preview(choice) {
  // Show where a choice puts its piece: every shape standing for it, painted in full.
  for (const shape of document.querySelectorAll("#board .preview")) shape.classList.remove("preview");
  if (!choice) return;
  for (const shape of document.querySelectorAll("#board .choice.offer")) {
    if (choicesOf(shape, [choice]).length) shape.classList.add("preview");
  }
}

function boardHovered(event) {
  const shape = event.target.closest ? event.target.closest("#board .choice.offer") : null;
  if (!shape || !current) {
    if (!offered) preview(null);
    return;
  }
  preview(choicesOf(shape, candidates(current))[0]);
}

function widenForClicks(shape) {
  // A dashed line is hit only on its dashes: an unbroken, unpainted copy over it takes the clicks.
  for (const line of shape.querySelectorAll("line, polyline, path")) {
    const hit = line.cloneNode();
    hit.removeAttribute("stroke-dasharray");
    hit.setAttribute("stroke", "transparent");
    hit.setAttribute("class", "hit");
    hit.style.pointerEvents = "stroke";
    shape.append(hit);
  }
}

function underPointer(event) {
  return document.elementsFromPoint(event.clientX, event.clientY)
    .map((node) => node.closest("#board .item"))
    .filter((item) => item);
}

function clickedShape(event) {
  // The clickable shape under the pointer, also when a shape nobody can choose lies over it
  // (a player's marker on a square): those keep their hover titles but pass the click on.
  return underPointer(event).find((item) => item.classList.contains("clickable"));
}

function choicesUnder(event) {
  // Every offered choice whose shapes cover the point clicked (overlapping placements too).
  const pool = candidates(current);
  const found = [];
  for (const shape of underPointer(event).filter((item) => item.classList.contains("offer"))) {
    for (const choice of choicesOf(shape, pool)) if (!found.includes(choice)) found.push(choice);
  }
  return found;
}

// Whether the last press was a finger's (or a pen's): a touch screen has no hovering to show a
// placement before it is made, so there a first tap shows it and a second tap makes it.
let touching = false;

function offer(choices, heading) {
  // The choices a click leaves, beside the board: hovering one shows it on the board (on a touch
  // screen a tap shows it, the first offered shown at once; a tap on the one shown makes it).
  const box = document.getElementById("board-choices");
  box.replaceChildren();
  offered = choices.length ? choices : null;
  markClickable(current);
  preview(null);
  if (!offered) return;
  box.append(element("h3", heading));
  const show = (button, choice) => {
    for (const other of box.querySelectorAll("button.board-choice")) other.setAttribute("aria-pressed", "false");
    button.setAttribute("aria-pressed", "true");
    preview(choice);
  };
  for (const choice of choices) {
    const button = element("button", choice.label);
    button.className = "board-choice";
    button.setAttribute("aria-pressed", "false");
    button.addEventListener("click", () => {
      if (touching && button.getAttribute("aria-pressed") !== "true") {
        show(button, choice);
        return;
      }
      clearOffer();
      choose(choice.id);
    });
    // a tap also sends the mouse's enter and a focus before its click: only the tap shows it
    button.addEventListener("mouseenter", () => touching || show(button, choice));
    button.addEventListener("focus", () => touching || show(button, choice));
    box.append(button);
  }
  if (touching) show(box.querySelector("button.board-choice"), choices[0]);
  const back = element("button", "cancel");
  back.className = "board-cancel";
  back.addEventListener("click", clearOffer);
  box.append(back);
}

function clearOffer() {
  offered = null;
  document.getElementById("board-choices").replaceChildren();
  if (current) markClickable(current);
  preview(null);
}

function boardClicked(event) {
  if (!current) return;
  const placed = choicesUnder(event);
  if (placed.length === 1 && !touching) {
    clearOffer();
    choose(placed[0].id);
    return;
  }
  if (placed.length > 0) {
    const how = touching ? "tap one to see it, tap it again to choose it" : "hover one to see it";
    offer(placed, `${placed.length} choice${placed.length > 1 ? "s" : ""} here (${how})`);
    preview(placed[0]);
    return;
  }
  const shape = clickedShape(event);
  if (!shape) {
    clearOffer();
    return;
  }
  let choices = choicesAt(current, shape);
  const narrowed = offered ? choices.filter((choice) => offered.includes(choice)) : [];
  if (narrowed.length) choices = narrowed;
  if (choices.length === 1) {
    clearOffer();
    choose(choices[0].id);
    return;
  }
  offer(choices, "Choose on the board");
}

function seatText(doc) {
  return (seat) => {
    const who = seat.bot !== null ? `bot ${seat.bot}` : seat.open ? "waiting for someone invited" : seat.absent ? "away (a bot plays meanwhile)" : "a person";
    const failed = seat.failed === null ? "" : ` (${seat.failed})`;
    return `P${seat.seat + 1}: ${who}${seat.seat === doc.seat ? " (you)" : ""}${failed}`;
  };
}

function show(doc) {
  if (current && doc.version < current.version) return; // an older answer arriving late
  const moved = !current || doc.version !== current.version;
  if (!current) keepMatch(matchId, doc.title, [{ seat: doc.seat, url: location.pathname + location.search }]);
  current = doc;
  document.getElementById("title").textContent = doc.title;
  // The tab says when the seat is to decide, so a person in another tab sees it is their turn.
  const yours = doc.seat !== null && !doc.over && doc.to_move.includes(doc.seat);
  document.title = `${yours ? "Your decision · " : ""}${doc.title} · metro`;
  document.getElementById("status").textContent = status(doc);
  document.body.dataset.decisions = doc.decisions;
  document.getElementById("seats").textContent = doc.seats.map(seatText(doc)).join(" · ");
  document.getElementById("replay").hidden = !doc.over;
  document.getElementById("replay-link").href = `/replay/${matchId}${query}`;
  showAgain(doc);
  // The same choices sent again (the websocket's first message, a seat's person leaving or
  // coming back, another player's decision at a simultaneous choice) leave them as the person
  // is making them: boxes checked, lists picked.
  const choices = JSON.stringify([doc.seat, doc.legal]);
  if (choices !== choicesShown) {
    choicesShown = choices;
    showChoices(doc);
  }
  document.getElementById("undo").hidden = !doc.undo;
  if (moved) {
    offered = null;
    document.getElementById("board-choices").replaceChildren();
  }
  markClickable(doc);
  showScreen(doc);
  const log = document.getElementById("log");
  log.replaceChildren(...doc.log.map((line) => element("li", line)));
  log.scrollTop = log.scrollHeight;
  showChat(doc);
  document.getElementById("chat-form").hidden = doc.seat === null; // spectators read only
  if (doc.version !== boardShown) {
    boardShown = doc.version;
    showBoard(doc);
  }
}

function follow() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/api/matches/${matchId}/ws${query}`);
  socket.addEventListener("message", (event) => show(JSON.parse(event.data)));
  socket.addEventListener("close", () => setTimeout(follow, 2000));
}

// The board's sizes: 1 fits the page; larger ones scroll inside the board's frame. The size is
// the frame's (a CSS property), so it stays when a new position's picture replaces the old one.
const ZOOMS = [1, 1.5, 2, 3, 4];
let zoomAt = 0;

function zoomTo(index) {
  const board = document.getElementById("board");
  // The point at the middle of the view stays there.
  const x = (board.scrollLeft + board.clientWidth / 2) / Math.max(board.scrollWidth, 1);
  const y = (board.scrollTop + board.clientHeight / 2) / Math.max(board.scrollHeight, 1);
  zoomAt = Math.max(0, Math.min(ZOOMS.length - 1, index));
  board.style.setProperty("--zoom", String(ZOOMS[zoomAt]));
  board.classList.toggle("zoomed", zoomAt > 0);
  board.scrollLeft = x * board.scrollWidth - board.clientWidth / 2;
  board.scrollTop = y * board.scrollHeight - board.clientHeight / 2;
  document.getElementById("zoom-out").disabled = zoomAt === 0;
  document.getElementById("zoom-fit").disabled = zoomAt === 0;
  document.getElementById("zoom-in").disabled = zoomAt === ZOOMS.length - 1;
}

function start() {
  document.getElementById("zoom-in").addEventListener("click", () => zoomTo(zoomAt + 1));
  document.getElementById("zoom-out").addEventListener("click", () => zoomTo(zoomAt - 1));
  document.getElementById("zoom-fit").addEventListener("click", () => zoomTo(0));
  document.getElementById("board").addEventListener("click", boardClicked);
  document.getElementById("board").addEventListener("mouseover", boardHovered);
  document.addEventListener("pointerdown", (event) => { touching = event.pointerType !== "mouse"; }, true);
  document.getElementById("undo").addEventListener("click", undo);
  document.getElementById("again-button").addEventListener("click", playAgain);
  document.getElementById("chat-form").addEventListener("submit", say);
  follow();
}

start();
