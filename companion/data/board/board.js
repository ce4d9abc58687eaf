// Live scoreboard: renders the newest snapshot pushed by the server (SSE) and
// turns buttons into commands; the live loop owns the game, never this page.
"use strict";
const SUITS_FR = { C: ["♣", ""], S: ["♠", ""], H: ["♥", "red"], D: ["♦", "red"] };
const SUITS_ES = { O: ["oros", "gold"], C: ["copas", "red"], E: ["espadas", "blue"], B: ["bastos", "green"] };
let current = null;

function deckFamily(snap) {
  const s = (snap && snap.state) || {};
  const fam = s.deck_family || s.deck || (snap.match || {}).deck || "";
  if (String(fam).startsWith("span")) return "spanish";
  if (String(fam).startsWith("fren")) return "french";
  return "french";
}

let seatNames = [];
function seatLabel(seat) {
  const name = seatNames[seat];
  return name ? String(name).slice(0, 8) : "j" + (seat + 1);
}

function cardNode(card, seat, family) {
  if (card === null || card === undefined || card === "covered" || card === "") {
    return el("span", { class: "card covered" }, "▒", seat != null ? el("span", { class: "seat" }, seatLabel(seat)) : null);
  }
  const text = String(card);
  const rank = text.slice(0, -1), suit = text.slice(-1);
  const spanish = family === "spanish" || "OEB".includes(suit) || rank === "11" || rank === "12";
  const [sym, color] = (spanish ? SUITS_ES : SUITS_FR)[suit] || [suit, ""];
  return el("span", { class: "card " + color, "data-card": text, title: text },
            el("span", {}, rank), el("span", { class: spanish ? "seat" : "" }, sym),
            seat != null ? el("span", { class: "seat" }, seatLabel(seat)) : null);
}

// Fósforos: squares of five matchsticks (four sides, then the diagonal); in a
// game to 30 a line separates the malas (first half) from the buenas.
function sticksSVG(score, target) {
  target = target || 30;
  const squares = Math.ceil(target / 5), half = target >= 20 ? target / 2 : null;
  const size = 60, gap = 22, perRow = 1;
  const rows = squares + (half ? 0.3 : 0);
  const h = rows * (size + gap) + 10;
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${size + 40} ${h}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${score} tentos`);
  const stick = (x1, y1, x2, y2, lit) => {
    const g = document.createElementNS(ns, "g");
    const line = document.createElementNS(ns, "line");
    Object.entries({ x1, y1, x2, y2, stroke: lit ? "#e9d6a6" : "#ffffff14", "stroke-width": 6, "stroke-linecap": "round" })
      .forEach(([k, v]) => line.setAttribute(k, v));
    g.append(line);
    if (lit) {
      const head = document.createElementNS(ns, "circle");
      Object.entries({ cx: x2, cy: y2, r: 5.5, fill: "#d23a2a" }).forEach(([k, v]) => head.setAttribute(k, v));
      g.append(head);
    }
    svg.append(g);
  };
  let y = 8;
  for (let q = 0; q < squares; q++) {
    if (half && q * 5 === half) {
      const l = document.createElementNS(ns, "line");
      Object.entries({ x1: 2, y1: y - gap / 2 + 4, x2: size + 38, y2: y - gap / 2 + 4, stroke: "#f2c14e", "stroke-width": 3, "stroke-dasharray": "8 5" })
        .forEach(([k, v]) => l.setAttribute(k, v));
      l.setAttribute("class", "buenas-line");
      svg.append(l);
      const label = document.createElementNS(ns, "text");
      Object.entries({ x: size + 38, y: y - gap / 2 + 16, "text-anchor": "end", fill: "#f2c14e", "font-size": 9 })
        .forEach(([k, v]) => label.setAttribute(k, v));
      label.textContent = "buenas";
      svg.append(label);
      y += 0.3 * (size + gap);
    }
    const x0 = 20, y0 = y, s = size, n = score - q * 5;
    stick(x0, y0 + s, x0, y0, n >= 1);           // left, head up
    stick(x0, y0, x0 + s, y0, n >= 2);           // top
    stick(x0 + s, y0, x0 + s, y0 + s, n >= 3);   // right
    stick(x0 + s, y0 + s, x0, y0 + s, n >= 4);   // bottom
    stick(x0, y0 + s, x0 + s, y0, n >= 5);       // diagonal
    y += size + gap;
  }
  return svg;
}

function betText(b) {
  if (b === null || b === undefined) return "";
  if (typeof b !== "object") return String(b);
  const kind = b.word || b.bet || b.kind || b.type || "";
  const to = b.to !== undefined ? " → " + b.to : (b.stake !== undefined ? " → " + b.stake : "");
  const by = b.seat != null ? " (" + seatLabel(b.seat) + ")" : "";
  return kind + to + by;
}

function currentTrickCards(state) {
  const t = state.current_trick ?? state.trick ?? state.table ?? [];
  const cards = Array.isArray(t) ? t : (t.cards || []);
  return cards.map(c => Array.isArray(c) ? { seat: c[0], card: c[1] } :
                   (typeof c === "object" ? { seat: c.seat, card: c.covered ? null : c.card } : { seat: null, card: c }));
}

function render(snap) {
  current = snap;
  const state = snap.state || {};
  const names = snap.names || state.names || [];
  seatNames = names;
  const players = state.players || names.length || 4;
  const teamName = t => {
    const seats = []; for (let s = t; s < players; s += 2) if (names[s]) seats.push(names[s]);
    return seats.length ? seats.join(" & ") : (t === 0 ? "Nós" : "Eles");
  };
  const score = state.score || [0, 0];
  const family = deckFamily(snap);
  for (const t of [0, 1]) {
    document.getElementById("name" + t).textContent = teamName(t);
    document.getElementById("score" + t).textContent = score[t];
    const said = (state.score_text || [])[t];
    document.getElementById("said" + t).textContent = said && said !== String(score[t]) ? said : "";
    const box = document.getElementById("sticks" + t);
    box.replaceChildren(sticksSVG(score[t], state.target));
    document.getElementById("team" + t).classList.toggle("winner", !!state.game_over && state.winner === t);
  }
  const m = snap.match || {};
  document.getElementById("match-title").textContent =
    "Truco " + (state.variant || m.variant || "") + (state.target ? " · " + state.target : "") + (m.id ? " · #" + m.id : "");
  document.getElementById("hand-no").textContent = state.hand_number ?? "–";
  document.getElementById("stake").textContent = state.stake ?? 1;
  const bets = state.open_bets || [];
  document.getElementById("open-bets").textContent = (Array.isArray(bets) ? bets : [bets]).map(betText).filter(Boolean).join(" · ");
  const vira = document.getElementById("vira-box");
  vira.replaceChildren();
  if (state.vira) vira.append(el("span", { class: "label" }, "vira "), cardNode(state.vira, null, family));
  if (state.manilhas && state.manilhas.length) vira.append(el("span", { class: "label" }, " manilhas " + state.manilhas.join(" ")));
  const turn = document.getElementById("turn");
  turn.textContent = state.game_over ? "fim de jogo" : (state.turn != null ? "vez: " + (names[state.turn] || "j" + (state.turn + 1)) : "");
  const tricks = document.getElementById("tricks");
  tricks.replaceChildren(...(state.tricks || []).filter(t => t && typeof t === "object" && "winner" in t && t.done !== false)
    .map((t, i) => el("span", { class: "tw" }, `${i + 1}ª: ${t.winner === null ? "empate" : teamName(t.winner)}`)));
  const trick = document.getElementById("trick");
  trick.replaceChildren(...currentTrickCards(state).map(c => cardNode(c.card, c.seat, family)));

  const pending = document.getElementById("pending");
  // a doubtful card: confirm, reject, or pick one of its other readings; a card in the log that still
  // settles ("settling", shown ~): the same buttons confirm it, take it out or rename it; an impossible
  // card ("alert"): name it
  pending.replaceChildren(...(snap.pending || []).map(p => el("div", { class: "item", "data-pending": p.id },
    el("span", {}, (p.kind === "alert" ? "! " : p.kind === "settling" ? "~ " : "") + (p.text || JSON.stringify(p.event))),
    ...(p.kind === "alert" ? [] : [
      el("button", { class: "confirm", type: "button", onclick: () => send({ action: "confirm", pending_id: p.id }) }, "✔ confirmar"),
      el("button", { class: "reject", type: "button", onclick: () => send({ action: "reject", pending_id: p.id }) }, "✘ rejeitar")]),
    ...(p.alternatives || []).map((card, i) => el("button", { class: "choose", type: "button", "data-card": card,
      onclick: () => send({ action: "choose", pending_id: p.id, index: i + 1 }) }, "= " + card)))));
  document.getElementById("outcomes").textContent = (snap.outcomes || []).map(o => o.text).filter(Boolean).join(" · ");
  document.getElementById("heard").replaceChildren(...(snap.heard || []).slice(-5).reverse().map(w => el("li", {}, w)));
  document.getElementById("message").textContent = snap.message || "";
  document.body.dataset.version = snap.version;
}

async function send(command) {
  const r = await fetch(withToken("/api/command"), {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(command) });
  if (!r.ok) {
    let detail = await r.text();
    try { detail = JSON.parse(detail).detail || detail; } catch (e) { /* plain text */ }
    document.getElementById("message").textContent = "erro: " + detail;
  }
  return r.ok;
}

function connect() {
  const conn = document.getElementById("conn");
  const es = new EventSource(withToken("/api/stream"));
  es.addEventListener("state", e => { conn.className = "conn on"; render(JSON.parse(e.data)); });
  es.onopen = () => { conn.className = "conn on"; };
  es.onerror = () => { conn.className = "conn off"; };
}

function setMode(mode) {
  document.body.classList.toggle("fosforos", mode === "fosforos");
  document.getElementById("mode").textContent = mode === "fosforos" ? "tentos" : "fósforos";
  try { localStorage.setItem("board-mode", mode); } catch (e) { /* private mode */ }
}

document.getElementById("mode").addEventListener("click", () =>
  setMode(document.body.classList.contains("fosforos") ? "tentos" : "fosforos"));
document.getElementById("undo").addEventListener("click", () => send({ action: "undo" }));
document.getElementById("typed").addEventListener("submit", ev => {
  ev.preventDefault();
  const input = document.getElementById("typed-event");
  if (!input.value.trim()) return;
  send({ action: "event", text: input.value }).then(ok => { if (ok) input.value = ""; });
});
const wanted = new URLSearchParams(location.search).get("mode");
let saved = null; try { saved = localStorage.getItem("board-mode"); } catch (e) { /* ignore */ }
setMode(wanted || saved || "tentos");
connect();
