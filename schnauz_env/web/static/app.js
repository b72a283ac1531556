// schnauz_env in the browser. Plain JavaScript, no build step: the server sends the table
// as JSON (schnauz_env/web/views.py) and this file lays it out. Every text from the server
// goes in with textContent, never as HTML.
"use strict";

const SUITS = { C: "♣", S: "♠", H: "♥", D: "♦" };
const params = new URLSearchParams(location.search);
// Milliseconds between the bots' moves as they appear (?speed=0: at once).
const SPEED = params.has("speed") ? Math.max(0, Number(params.get("speed")) || 0) : 450;

const state = {
  options: null,
  table: null, // the table's id
  view: null, // the table's last view
  busy: false, // a move is on its way, or the bots' moves are still appearing
  coach: null, // the coach's answer for the current turn
  coaching: false, // the coach's answer is being fetched (the moves wait for it)
  selected: new Set(), // hand slots selected (Thirteen, or a Schnauz swap)
  replay: null, // {id, summary, position, viewer}
};

// ------------------------------------------------------------------ helpers
const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function cardName(code) {
  if (!code) return "face-down card";
  return code.slice(0, -1) + SUITS[code.slice(-1)];
}

function card(code, extra = {}) {
  return el("img", {
    class: "card" + (extra.class ? " " + extra.class : ""),
    src: code ? `/cards/${code}.png` : "/cards/back.png",
    alt: cardName(code),
    title: cardName(code),
    dataset: { card: code || "back", ...(extra.dataset || {}) },
    onclick: extra.onclick,
  });
}

function cards(codes, opts = {}) {
  return el("span", { class: "cards" }, codes.map((c, i) => card(c, opts.each ? opts.each(c, i) : {})));
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(method, url, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(data.message || `${response.status} ${response.statusText}`);
    error.data = data;
    error.status = response.status;
    throw error;
  }
  return data;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function show(section) {
  for (const id of ["setup", "game", "replay"]) $(id).hidden = id !== section;
}

// ------------------------------------------------------------------ setup
async function loadOptions() {
  state.options = await api("GET", "/api/options");
  const select = $("game-select");
  select.replaceChildren();
  for (const game of state.options.order) {
    select.append(el("option", { value: game, text: state.options.games[game].title }));
  }
  select.addEventListener("change", fillSetup);
  $("players").addEventListener("change", fillOpponents);
  $("seat").addEventListener("change", fillOpponents);
  fillSetup();
}

function fillSetup() {
  const game = state.options.games[$("game-select").value];
  const players = $("players");
  players.min = game.players.min;
  players.max = game.players.max;
  players.value = game.players.default;
  const rules = $("rules");
  rules.replaceChildren();
  for (const rule of game.rules) {
    const id = `rule-${rule.name}`;
    let input;
    if (rule.kind === "bool") {
      input = el("select", { id, name: rule.name, dataset: { default: rule.default } },
        el("option", { value: "true", text: "true" }), el("option", { value: "false", text: "false" }));
      input.value = rule.default;
    } else {
      input = el("input", { id, name: rule.name, value: rule.default, dataset: { default: rule.default } });
    }
    rules.append(el("label", { for: id, text: rule.name }), input, el("span", { class: "help", text: rule.help }));
  }
  fillOpponents();
}

function fillOpponents() {
  const gameName = $("game-select").value;
  const game = state.options.games[gameName];
  const n = Number($("players").value) || game.players.default;
  $("seat").max = n - 1;
  const box = $("opponents");
  const before = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  const seat = Number($("seat").value) || 0;
  let k = 0;
  for (let s = 0; s < n; s++) {
    if (s === seat) continue;
    const select = el("select", { name: `opponent-${s}`, dataset: { seat: s } },
      el("option", { value: "", text: "default" }),
      game.opponents.map((name) => el("option", { value: name, text: name })));
    if (before[k]) select.value = before[k];
    k++;
    box.append(el("label", {}, `seat ${s} `, select));
  }
  const models = game.models.map((m) => `${m.name} (${m.shipped ? "shipped" : "given by the server"}, trained at ${m.table_sizes.join("/")} players)`);
  $("opponents-hint").textContent =
    "default: the trained model shipped for these rules, else the expert. 'model' is the shipped model. " +
    (models.length ? `Model files: ${models.join("; ")}.` : "No model file for this game.");
}

function setupRequest() {
  const game = $("game-select").value;
  const rules = {};
  for (const input of $("rules").querySelectorAll("input, select")) {
    if (input.value !== input.dataset.default) rules[input.name] = input.value;
  }
  const opponents = [...$("opponents").querySelectorAll("select")].map((s) => s.value);
  const body = { game, players: Number($("players").value), seat: Number($("seat").value) || 0, rules };
  if (opponents.some((o) => o)) {
    const fallback = opponents.find((o) => o);
    body.opponents = opponents.map((o) => o || fallback);
  }
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  return body;
}

async function startGame(event) {
  event.preventDefault();
  showError("");
  $("start").disabled = true;
  try {
    const data = await api("POST", "/api/tables", setupRequest());
    state.table = data.id;
    document.body.dataset.table = data.id;
    state.view = null;
    $("coach-toggle").checked = $("coach-setup").checked;
    $("log").replaceChildren();
    $("showdown").replaceChildren();
    show("game");
    await present(data.view);
  } catch (error) {
    showError(error.message);
  } finally {
    $("start").disabled = false;
  }
}

// ------------------------------------------------------------------ the table
function seatBox(seat, opts) {
  const tags = seat.tags.map((t) => el("span", { class: "tag" + (t === "knocked" ? " knocked" : t === "to act" ? " acting" : ""), text: t }));
  let standing;
  if (seat.lives_text !== undefined) standing = el("span", { class: "lives", text: seat.lives_text });
  else standing = el("span", { class: "lives", text: `score ${seat.score}` });
  const cardCount = seat.count !== undefined ? el("span", { class: "hint", text: `${seat.count} ${seat.count === 1 ? "card" : "cards"}` }) : null;
  const hidden = seat.you && opts.handBelow;
  return el("div", {
    class: "seat" + (seat.you ? " you" : "") + (seat.to_act ? " acting" : "") + (seat.out ? " out" : ""),
    dataset: { seat: seat.seat },
  },
  el("div", { class: "who" }, el("span", { class: "name", text: `${seat.name}` }), el("span", { class: "hint", text: `seat ${seat.seat}` }), standing, cardCount, tags),
  hidden ? el("div", { class: "hand-below", text: seat.out ? "" : "your hand is below" })
    : el("div", {}, facedown(seat) ? cards([null]) : cards(seat.cards)));
}

function facedown(seat) {
  // A Thirteen hand seen from the back: one card stands for all (the count is beside the name).
  return seat.count !== undefined && seat.count > 3 && !seat.cards.some((c) => c);
}

function centerBox(game, center, opts) {
  const box = el("div", { class: "center", dataset: { testid: "center" } });
  if (game === "schnauz") {
    const each = opts.tableClick ? (c, i) => ({ class: opts.tableClick(i) ? "clickable" : "", onclick: () => opts.onTable && opts.onTable(i) }) : undefined;
    box.append(el("div", {}, el("span", { class: "pile-label", text: "table" }),
      center.table.length ? cards(center.table, { each }) : el("span", { class: "caption", text: center.caption })));
    if (center.out_of_play.length) box.append(el("div", {}, el("span", { class: "pile-label", text: "out of play" }), cards(center.out_of_play)));
    box.append(el("span", { class: "caption", text: `stock ${center.stock}` }));
  } else if (game === "scat") {
    const each = opts.tableClick ? () => ({ class: opts.tableClick(0) ? "clickable" : "", onclick: () => opts.onTable && opts.onTable(0) }) : undefined;
    box.append(el("div", {}, el("span", { class: "pile-label", text: "discard pile" }),
      center.pile.length ? cards(center.pile, { each }) : el("span", { class: "caption", text: "empty" })));
    if (center.below.length) box.append(el("div", {}, el("span", { class: "pile-label", text: "below" }), cards(center.below)));
    box.append(el("div", {}, el("span", { class: "pile-label", text: "stock" }), center.stock ? card(null) : null, el("span", { class: "caption", text: ` ${center.stock} cards` })));
  } else {
    box.append(el("div", {}, el("span", { class: "pile-label", text: "to beat" }),
      center.table.length ? cards(center.table) : null, el("div", { class: "caption", text: center.caption })));
    if (center.selection && center.selection.length) box.append(el("div", {}, el("span", { class: "pile-label", text: "being selected" }), cards(center.selection)));
  }
  return box;
}

function renderTable(container, view, opts = {}) {
  const seats = el("div", { class: "seats" }, view.seats.map((s) => seatBox(s, { handBelow: !!view.hand })));
  const notes = el("div", { class: "notes" }, view.notes.map((n) => el("p", { text: n })));
  const parts = [seats, centerBox(view.game, view.center, opts), notes];
  if (view.hand) {
    const each = opts.handClick ? (c, i) => ({
      class: (opts.handClick(i) ? "clickable" : "") + (state.selected.has(i) ? " selected" : ""),
      dataset: { slot: i },
      onclick: () => opts.onHand && opts.onHand(i),
    }) : undefined;
    parts.push(el("div", { class: "hand", dataset: { testid: "hand" } },
      el("h3", {}, "Your hand", view.hand.label ? el("span", { class: "label", text: view.hand.label }) : null),
      cards(view.hand.cards, { each })));
  }
  container.replaceChildren(...parts);
}

function showdownBox(event) {
  const box = el("div", { class: "showdown", dataset: { testid: "showdown" } }, el("h4", { text: event.title }));
  const table = el("table");
  if (event.rows.length && event.rows[0].order !== undefined) {
    table.append(el("tr", {}, ["order", "player", "points", "score"].map((h) => el("th", { text: h }))));
    for (const r of event.rows) {
      table.append(el("tr", { class: r.you ? "you" : "" }, el("td", { text: r.order }), el("td", { text: `${r.name} (seat ${r.seat})` }), el("td", { text: r.points }), el("td", { text: r.score })));
    }
  } else {
    table.append(el("tr", {}, ["player", "hand", "value", "outcome"].map((h) => el("th", { text: h }))));
    for (const r of event.rows) {
      table.append(el("tr", { class: (r.loser ? "loser" : "") + (r.you ? " you" : "") },
        el("td", { text: `${r.name} (seat ${r.seat})` }), el("td", {}, cards(r.cards)), el("td", { text: r.value }),
        el("td", { text: [r.outcome, ...r.tags.map((t) => `(${t})`)].filter((x) => x).join(" ") })));
    }
  }
  box.append(table, ...event.notes.map((n) => el("p", { class: "explain", text: n })));
  return box;
}

function finalBox(container, final) {
  container.hidden = !final;
  if (!final) return container.replaceChildren();
  const table = el("table", {}, el("tr", {}, ["place", "player", "seat", ...(final.rows[0].score !== undefined ? ["score"] : [])].map((h) => el("th", { text: h }))));
  for (const r of final.rows) {
    table.append(el("tr", { class: "place-row" + (r.you ? " you" : ""), dataset: { seat: r.seat } },
      el("td", { text: r.place }), el("td", { text: r.name }), el("td", { text: r.seat }), r.score !== undefined ? el("td", { text: r.score }) : null));
  }
  const verdict = final.verdict ? [el("p", { class: "verdict", text: final.verdict })] : [];
  container.replaceChildren(el("h3", { text: final.header }), ...verdict, table);
}

function logLine(event) {
  if (event.type === "move") return el("li", { class: event.you ? "you" : "", text: `${event.who}: ${event.text}` });
  if (event.type === "showdown") {
    const losers = (event.rows || []).filter((r) => r.outcome).map((r) => `${r.name}: ${r.outcome}`);
    return el("li", { class: "showdown-line", text: [event.title, ...losers].join(" · ") });
  }
  return el("li", { class: "info", text: event.text });
}

// ------------------------------------------------------------------ playing
function moveOpts(view) {
  if (!view.your_turn || state.busy) return {};
  const moves = view.moves;
  if (view.game === "thirteen") {
    return {
      handClick: (i) => moves.some((m) => m.hand.includes(i)),
      onHand: (i) => { toggleSelect(i); },
    };
  }
  if (view.game === "schnauz") {
    return {
      handClick: (i) => moves.some((m) => m.hand.length === 1 && m.hand[0] === i),
      onHand: (i) => { state.selected = state.selected.has(i) ? new Set() : new Set([i]); redraw(); },
      tableClick: (j) => state.selected.size === 1 && moves.some((m) => m.hand.length === 1 && m.hand[0] === [...state.selected][0] && m.table[0] === j),
      onTable: (j) => {
        const i = [...state.selected][0];
        const move = moves.find((m) => m.hand.length === 1 && m.hand[0] === i && m.table[0] === j);
        if (move) sendMove(move);
      },
    };
  }
  return { // scat: a card to discard, or the pile to draw from
    handClick: (i) => moves.some((m) => m.hand.length === 1 && m.hand[0] === i),
    onHand: (i) => { const move = moves.find((m) => m.hand.length === 1 && m.hand[0] === i); if (move) sendMove(move); },
    tableClick: () => moves.some((m) => m.table.length === 1),
    onTable: () => { const move = moves.find((m) => m.table.length === 1); if (move) sendMove(move); },
  };
}

function toggleSelect(i) {
  if (state.selected.has(i)) state.selected.delete(i); else state.selected.add(i);
  redraw();
}

function selectedMove(view) {
  const chosen = [...state.selected].sort((a, b) => a - b).join(",");
  return view.moves.find((m) => m.hand.length && m.hand.join(",") === chosen);
}

function redraw() {
  const view = state.view;
  if (!view) return;
  renderTable($("table"), view, moveOpts(view));
  renderMoves(view);
}

function renderMoves(view) {
  const box = $("moves");
  const yours = view.your_turn && !state.busy;
  $("moves-area").hidden = !view.your_turn;
  const probs = new Map();
  const risks = new Map();
  if (state.coach && state.coach.turn === view.turn && $("coach-toggle").checked) {
    for (const p of state.coach.probabilities) probs.set(p.id, p.p);
    if (state.coach.expert) for (const [id, r] of Object.entries(state.coach.expert.risk)) risks.set(Number(id), r);
  }
  box.replaceChildren(...view.moves.map((m) => {
    const p = probs.get(m.id);
    const label = el("span", { class: "label" }, m.label, m.cards ? " " : null, m.cards ? cards(m.cards) : null);
    const note = el("span", { class: "note hint" }, m.note, risks.has(m.id) ? el("span", { class: "risk", text: ` risk of the lowest hand ${(100 * risks.get(m.id)).toFixed(0)}%` }) : null);
    const prob = el("span", { class: "prob" }, p !== undefined ? `${(100 * p).toFixed(1)}%` : "",
      p !== undefined ? el("span", { class: "bar", style: `width:${Math.max(1, Math.round(60 * p))}px` }) : null);
    return el("button", {
      type: "button",
      class: "move" + (state.coach && p !== undefined && state.coach.model_move === m.id ? " model-choice" : ""),
      disabled: !yours,
      dataset: {
        id: m.id,
        actions: JSON.stringify(m.actions),
        hand: JSON.stringify(m.hand),
        table: JSON.stringify(m.table),
        ...(p !== undefined ? { p: String(p) } : {}),
      },
      onclick: () => sendMove(m),
    }, label, note, prob);
  }));
  const thirteen = view.game === "thirteen" && view.your_turn;
  $("selection-row").hidden = !thirteen;
  if (thirteen) {
    const move = selectedMove(view);
    $("play-selected").disabled = !yours || !move;
    $("selection-text").textContent = state.selected.size
      ? (move ? `${move.label}: click to play it` : "not a legal play (yet): choose more cards or others")
      : "or click cards of your hand to choose a play";
  }
}

function setStatus(view) {
  const status = $("status");
  status.classList.toggle("yours", !!view.your_turn && !state.busy);
  if (view.game_over) status.textContent = "Game over";
  else if (state.busy) status.textContent = state.coaching ? "The coach is reading the table…" : "The bots are playing…";
  else if (view.your_turn) status.textContent = "Your turn: choose a move";
  else {
    const who = view.to_act === null ? "" : view.seats[view.to_act].name;
    status.textContent = `${who} (seat ${view.to_act}) to act`;
  }
}

async function present(view) {
  // Show the table after a move: the new events one by one, then the moves.
  state.busy = true;
  state.selected = new Set();
  state.coach = null;
  const first = !state.view;
  state.view = view;
  $("game-header").textContent = view.header;
  $("game-note").textContent = view.note;
  $("download").href = `/api/tables/${state.table}/record`;
  $("coach-toggle").disabled = !view.coach.available;
  $("coach-toggle").parentElement.title = view.coach.available
    ? `coached by ${view.coach.model}` : "no trained model for these rules";
  setStatus(view);
  redraw();
  const events = first ? view.log : view.events;
  const log = $("log");
  for (const event of events) {
    log.append(logLine(event));
    log.scrollTop = log.scrollHeight;
    if (event.type === "showdown") $("showdown").replaceChildren(showdownBox(event));
    if (SPEED && !first && event.type !== "info") await sleep(SPEED);
  }
  finalBox($("final"), view.final);
  $("review-button").hidden = !(view.game_over && view.coach.available);
  $("again-button").hidden = !view.game_over;
  // The moves stay disabled until the coach (if on) has answered: its answer redraws
  // them, and a button replaced under the pointer would swallow the click.
  state.coaching = true;
  setStatus(view);
  try {
    await updateCoach();
  } finally {
    state.coaching = false;
    state.busy = false;
    setStatus(view);
    redraw();
  }
}

async function sendMove(move) {
  if (state.busy || !state.view || !state.view.your_turn) return;
  state.busy = true;
  setStatus(state.view);
  renderMoves(state.view);
  showError("");
  try {
    const view = await api("POST", `/api/tables/${state.table}/moves`, { turn: state.view.turn, actions: move.actions });
    await present(view);
  } catch (error) {
    state.busy = false;
    showError(error.message);
    if (error.status === 409) {
      await present(await api("GET", `/api/tables/${state.table}`)); // the table moved on: show it
    } else {
      redraw();
    }
  }
}

async function updateCoach() {
  const view = state.view;
  const panel = $("coach-panel");
  if (!$("coach-toggle").checked || !view) {
    panel.hidden = true;
    return redraw();
  }
  panel.hidden = false;
  if (!view.coach.available) {
    panel.replaceChildren(el("h3", { text: "Coach" }), el("p", { text: "No trained model fits this table's rules, so there is no coach here." }));
    return;
  }
  if (!view.your_turn || view.game_over) {
    panel.replaceChildren(el("h3", { text: "Coach" }), el("p", { class: "hint", text: view.game_over ? "The game is over: review your moves below." : "The coach speaks on your turn." }));
    return;
  }
  try {
    state.coach = await api("GET", `/api/tables/${state.table}/coach?turn=${view.turn}`);
  } catch (error) {
    panel.replaceChildren(el("h3", { text: "Coach" }), el("p", { text: error.message }));
    return;
  }
  const c = state.coach;
  const best = view.moves[c.model_move];
  const parts = [
    el("h3", { text: `Coach · ${c.model}` }),
    el("p", {}, "The model's choice: ", el("strong", { text: best.label }), ` (${(100 * c.probabilities[c.model_move].p).toFixed(1)}%). Its probability of each move is shown beside it.`),
    el("p", { class: "hint", dataset: { testid: "value-note" }, text: c.value === null ? c.value_note : `Value estimate: ${c.value}` }),
  ];
  const ex = c.expert;
  if (ex) {
    const lines = [];
    if (ex.best_risk !== null) lines.push(`The expert's estimate in its place: with the best move, the risk of ending the round with the lowest hand is ${(100 * ex.best_risk).toFixed(0)}%.`);
    if (ex.expert_move !== null && ex.expert_move !== undefined) lines.push(`The expert would play: ${view.moves[ex.expert_move].label}.`);
    if (ex.knock) lines.push(`Knock now: it loses in ${(100 * ex.knock.loss).toFixed(0)}% of the expert's samples; the expert knocks below ${(100 * ex.knock.limit).toFixed(0)}%, so it ${ex.knock.advice ? "would knock" : "would not knock"}.`);
    if (ex.dealer) lines.push(`Dealer's choice: risk ${(100 * ex.dealer.keep_risk).toFixed(0)}% if you keep, ${(100 * ex.dealer.exchange_risk).toFixed(0)}% if you exchange: the expert would ${ex.dealer.advice}.`);
    parts.push(el("div", { dataset: { testid: "expert" } }, el("h3", { text: "The expert's estimates" }), lines.map((l) => el("p", { text: l }))));
  }
  panel.replaceChildren(...parts);
  renderMoves(view);
}

async function reviewGame() {
  showError("");
  try {
    const data = await api("POST", `/api/tables/${state.table}/review`);
    await openReplay(data.replay, data);
  } catch (error) {
    showError(error.message);
  }
}

// ------------------------------------------------------------------ replays
async function openReplay(id, summary) {
  state.replay = { id, summary, position: 0, viewer: summary.viewer === null ? "all" : String(summary.viewer) };
  const select = $("replay-seat");
  select.replaceChildren(el("option", { value: "all", text: "every hand open" }),
    ...summary.names.map((name, s) => el("option", { value: String(s), text: `seat ${s}: ${name}` })));
  select.value = state.replay.viewer;
  $("replay-title").textContent = `Replay · ${summary.game} · ${summary.total} moves`;
  const review = $("review");
  review.hidden = !summary.review;
  if (summary.review) {
    $("review-intro").textContent = summary.review.length
      ? "Your moves the model rated clearly worse than its own choice (its choice at least four times as likely). Click one to see the table before it."
      : "The model rated none of your moves clearly worse than its own choice.";
    $("review-list").replaceChildren(...summary.review.map((item) => el("li", { class: "review-item" },
      el("button", { type: "button", onclick: () => gotoPosition(item.position) },
        `Move ${item.decision}: you played ${item.played} (${(100 * item.played_p).toFixed(1)}%); the model preferred ${item.model} (${(100 * item.model_p).toFixed(1)}%)`))));
  }
  show("replay");
  await gotoPosition(0);
}

async function gotoPosition(k) {
  const r = state.replay;
  const end = r.summary.end;
  k = Math.max(0, Math.min(end, k));
  const view = await api("GET", `/api/replays/${r.id}?position=${k}&seat=${r.viewer}`);
  r.position = k;
  $("rp-position").textContent = `move ${k} of ${view.total}`;
  $("rp-next-move").textContent = view.next ? `Next: ${view.next.who} — ${view.next.text}` : (view.finished ? "The end of the game." : "The record ends here.");
  const error = $("rp-error");
  error.hidden = !view.error;
  error.textContent = view.error ? `The record does not replay past here: ${view.error}` : "";
  renderTable($("rp-table"), view);
  const showdowns = view.events.filter((e) => e.type === "showdown");
  $("rp-showdown").replaceChildren(...(showdowns.length ? [showdownBox(showdowns[showdowns.length - 1])] : []));
  finalBox($("rp-final"), view.final);
  const log = $("rp-log");
  log.replaceChildren(...view.events.map(logLine));
  log.scrollTop = log.scrollHeight;
  $("rp-start").disabled = $("rp-back").disabled = k === 0;
  $("rp-next").disabled = $("rp-end").disabled = k >= end;
}

async function loadRecordFile(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  showError("");
  try {
    const text = await file.text();
    const data = await api("POST", "/api/replays", text);
    await openReplay(data.replay, data);
  } catch (error) {
    showError(`${file.name}: ${error.message}`);
  }
}

// ------------------------------------------------------------------ start
function newGame() {
  showError("");
  show("setup");
}

window.addEventListener("DOMContentLoaded", async () => {
  $("setup-form").addEventListener("submit", startGame);
  $("nav-new").addEventListener("click", newGame);
  $("again-button").addEventListener("click", newGame);
  $("review-button").addEventListener("click", reviewGame);
  $("coach-toggle").addEventListener("change", updateCoach);
  $("load-record").addEventListener("change", loadRecordFile);
  $("play-selected").addEventListener("click", () => { const m = selectedMove(state.view); if (m) sendMove(m); });
  $("rp-start").addEventListener("click", () => gotoPosition(0));
  $("rp-back").addEventListener("click", () => gotoPosition(state.replay.position - 1));
  $("rp-next").addEventListener("click", () => gotoPosition(state.replay.position + 1));
  $("rp-end").addEventListener("click", () => gotoPosition(state.replay.summary.end));
  $("replay-seat").addEventListener("change", (e) => { state.replay.viewer = e.target.value; gotoPosition(state.replay.position); });
  try {
    await loadOptions();
  } catch (error) {
    showError(`The server did not answer: ${error.message}`);
  }
  document.body.dataset.ready = "1";
});
