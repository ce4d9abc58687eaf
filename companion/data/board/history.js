// History pages: the list of matches with per-player stats, and one match with its score chart.
"use strict";
function teamsText(m) {
  const n = m.names || [];
  const team = t => n.filter((x, i) => i % 2 === t && x).join(" & ") || (t ? "Eles" : "Nós");
  return team(0) + " × " + team(1);
}
async function listPage() {
  const matches = await getJSON("/api/matches");
  document.querySelector("#matches tbody").replaceChildren(...matches.map(m => el("tr", {},
    el("td", {}, el("a", { href: withToken("/history/" + m.id) }, "#" + m.id)),
    el("td", {}, (m.started_at || "").slice(0, 16).replace("T", " ")),
    el("td", {}, m.variant), el("td", {}, teamsText(m)),
    el("td", {}, (m.score || []).join(" × ") + (m.status === "live" ? " (ao vivo)" : "")),
    el("td", {}, m.venue || ""))));
  const stats = await getJSON("/api/stats");
  const pct = (a, b) => b ? Math.round(100 * a / b) + "%" : "–";
  const rows = table => Object.entries(table || {}).map(([name, p]) => el("tr", {},
    el("td", {}, name), el("td", {}, p.games), el("td", {}, p.games_won), el("td", {}, p.hands_won + "/" + p.hands),
    el("td", {}, p.trucos_called), el("td", {}, p.trucos_accepted), el("td", {}, p.trucos_refused),
    el("td", {}, pct(p.bluffs_lost, p.hands_with_truco)),
    el("td", {}, p.envido_average === null ? "–" : p.envido_average.toFixed(1))));
  document.querySelector("#players tbody").replaceChildren(...rows(stats.players));
  document.querySelector("#pairs tbody").replaceChildren(...rows(stats.pairs));
  document.querySelector("#h2h tbody").replaceChildren(...Object.entries(stats.head_to_head || {}).map(([key, h]) => {
    const [a, b] = key.split(" vs ");
    return el("tr", {}, el("td", {}, key), el("td", {}, h.games), el("td", {}, `${a} ${h[a]} × ${h[b]} ${b}`));
  }));
  document.getElementById("stats-chart").src = withToken("/api/stats/chart.svg");
}
async function matchPage(id) {
  const m = await getJSON("/api/matches/" + id);
  document.getElementById("title").textContent = "Partida #" + id + " · " + m.meta.variant;
  document.getElementById("summary").replaceChildren(
    el("p", {}, teamsText(m.meta) + " — " + (m.meta.score || []).join(" × ")),
    el("p", {}, (m.meta.started_at || "").slice(0, 16).replace("T", " ") + (m.meta.venue ? " · " + m.meta.venue : "")));
  document.getElementById("chart").src = withToken("/api/matches/" + id + "/chart.svg");
  let a = 0, b = 0;
  document.querySelector("#hands tbody").replaceChildren(...(m.hands || []).map((h, i) => {
    a += (h.points || [0, 0])[0]; b += (h.points || [0, 0])[1];
    return el("tr", {}, el("td", {}, i + 1), el("td", {}, h.stake ?? ""), el("td", {}, h.end || ""),
              el("td", {}, (h.points || []).join(" + ")), el("td", {}, a + " × " + b));
  }));
}
const parts = location.pathname.split("/").filter(Boolean);
if (parts.length === 2 && parts[0] === "history") matchPage(parts[1]); else listPage();
