// The program `atrium demo` runs: one execute_code call that reads the service desk through a
// batch, reduces it, hands the person a dashboard view with refresh and drill-down reads, and
// returns the same summary the view shows. It runs inside QuickJS, so it is plain JavaScript.
/** The dashboard page; the program fills in __DATA__. Reads: incidents (refresh), detail (drill-down), metrics. */
const DESK_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Service desk</title><style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;padding:16px;color:#1d2330;background:#f6f7f9}h1{font-size:18px;margin:0 0 12px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:10px;margin-bottom:14px}
.card{background:#fff;border-radius:8px;padding:10px;box-shadow:0 1px 2px #0002;cursor:pointer}.card b{display:block}
.st-degraded{border-left:4px solid #e0a100}.st-outage{border-left:4px solid #d33}.st-operational{border-left:4px solid #2a2}
table{width:100%;border-collapse:collapse;background:#fff;border-radius:8px;overflow:hidden}td,th{padding:6px 8px;text-align:left;border-bottom:1px solid #eee}
tr.row{cursor:pointer}tr.row:hover{background:#eef3ff}.pill{border-radius:9px;padding:1px 7px;font-size:12px}
.sev1{color:#fff;background:#c22}.sev2{background:#f9b}.sev3{background:#fd6}.sev4{background:#ddd}
#detail{background:#fff;border-radius:8px;padding:10px;margin-top:12px;display:none}#bar{font-size:12px;color:#555;margin:8px 0}button{font:inherit;padding:4px 10px}
</style></head><body><h1>Service desk — active incidents</h1><div id="bar"></div><div class="cards" id="cards"></div>
<button id="refresh">Refresh</button>
<table><thead><tr><th>id</th><th>sev</th><th>status</th><th>service</th><th>title</th><th>assignee</th></tr></thead><tbody id="rows"></tbody></table>
<div id="detail"></div>
<script type="application/json" id="data">__DATA__</script>
<script>
const D = JSON.parse(document.getElementById("data").textContent);
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s == null ? "" : s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const say = (t) => { $("bar").textContent = t; };
function spark(pts) {
  if (!pts || !pts.length) return "";
  const max = Math.max(...pts.map((p) => p.p95Ms)), w = 140, h = 30;
  const d = pts.map((p, i) => (i ? "L" : "M") + (i * w / (pts.length - 1)).toFixed(1) + "," + (h - p.p95Ms / max * h).toFixed(1)).join("");
  return '<svg width="' + w + '" height="' + h + '"><path d="' + d + '" fill="none" stroke="#c60" stroke-width="1.5"/></svg>';
}
function cards() {
  $("cards").innerHTML = D.services.map((s) => {
    const m = D.metrics.find((x) => x.service === s.id);
    return '<div class="card st-' + esc(s.status) + '" data-svc="' + esc(s.id) + '"><b>' + esc(s.name) + '</b>' + esc(s.status) +
      (m ? '<br>p95 ' + m.latencyP95Ms + ' ms · ' + (m.errorRate * 100).toFixed(1) + '% errors<br>' + spark(m.latencySeries) : '') + '</div>';
  }).join("");
}
function rows() {
  $("rows").innerHTML = D.incidents.map((i) => '<tr class="row" data-id="' + esc(i.id) + '"><td>' + esc(i.id) + '</td><td><span class="pill ' + esc(i.severity) + '">' + esc(i.severity) +
    '</span></td><td>' + esc(i.status) + '</td><td>' + esc(i.service) + '</td><td>' + esc(i.title) + '</td><td>' + esc(i.assignee || "—") + '</td></tr>').join("");
  say(D.incidents.length + " active incidents · " + Object.entries(D.summary.bySeverity).map(([k, v]) => k + ": " + v).join(", "));
}
async function read(name, args) {
  if (!window.atrium || !atrium.read) throw new Error("this copy of the view has no live connection");
  return atrium.read(name, args);
}
$("refresh").onclick = async () => {
  say("refreshing…");
  try {
    const [o, v] = await Promise.all([read("incidents", { status: "open", limit: 50 }), read("incidents", { status: "investigating", limit: 50 })]);
    D.incidents = [...o.incidents, ...v.incidents];
    rows();
  } catch (e) { say("refresh failed: " + e.message); }
};
$("rows").onclick = async (ev) => {
  const tr = ev.target.closest("tr");
  if (!tr) return;
  const box = $("detail");
  box.style.display = "block";
  box.textContent = "loading " + tr.dataset.id + "…";
  try {
    const i = await read("detail", { id: tr.dataset.id });
    box.innerHTML = "<b>" + esc(i.id) + " — " + esc(i.title) + "</b><p>" + esc(i.description) + "</p><ul>" + i.timeline.map((t) => "<li>" + esc(t.at.slice(11, 16)) + " " + esc(t.kind) + ": " + esc(t.note || "") + "</li>").join("") + "</ul>";
  } catch (e) { box.textContent = "details unavailable: " + e.message; }
};
$("cards").onclick = async (ev) => {
  const c = ev.target.closest(".card");
  if (!c) return;
  try {
    const m = await read("metrics", { service: c.dataset.svc });
    const k = D.metrics.findIndex((x) => x.service === m.service);
    if (k >= 0) D.metrics[k] = m; else D.metrics.push(m);
    cards();
  } catch (e) { say("metrics unavailable: " + e.message); }
};
cards();
rows();
</script></body></html>`;

export const DESK_PROGRAM = `async () => {
  const PAGE = ${JSON.stringify(DESK_PAGE)};
  const [services, open, investigating] = await atrium.batch([
    { address: "desk.list_services", args: {} },
    { address: "desk.list_incidents", args: { status: "open", limit: 50 } },
    { address: "desk.list_incidents", args: { status: "investigating", limit: 50 } },
  ]);
  if (!services.ok || !open.ok || !investigating.ok) return { error: "the desk did not answer", services, open };
  const active = [...open.data.incidents, ...investigating.data.incidents];
  if (active.length === 0) return { note: "no active incidents", sample: open.data };
  const troubled = services.data.services.filter((s) => s.status !== "operational");
  const metrics = await atrium.batch(troubled.map((s) => ({ address: "desk.get_service_metrics", args: { service: s.id } })));
  const bySeverity = {};
  for (const i of active) bySeverity[i.severity] = (bySeverity[i.severity] || 0) + 1;
  const summary = {
    activeIncidents: active.length,
    bySeverity,
    unassigned: active.filter((i) => !i.assignee).map((i) => i.id),
    troubledServices: troubled.map((s, k) => ({ id: s.id, status: s.status, p95Ms: metrics[k].ok ? metrics[k].data.latencyP95Ms : null, errorRate: metrics[k].ok ? metrics[k].data.errorRate : null })),
  };
  const data = JSON.stringify({ services: services.data.services, incidents: active, metrics: metrics.filter((m) => m.ok).map((m) => m.data), summary }).split("<").join("\\u003c");
  const html = PAGE.replace("__DATA__", data);
  atrium.ui(html, { reads: {
    incidents: { address: "desk.list_incidents", viewArgs: ["status", "cursor", "limit"] },
    detail: { address: "desk.get_incident", viewArgs: ["id"] },
    metrics: { address: "desk.get_service_metrics", viewArgs: ["service"] },
  } });
  return summary;
}`;
